"""Server settings: defaults, then ``ORDO_*`` environment variables, then flags (flags win)."""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace

from service.telemetry.build import DISTRIBUTION, version
from service.trust.sealing import KeysFileError, StateKey, load_keys

DEFAULT_MAX_SEARCH_ITERATIONS = 256  # the most a request may ask of the search bot
# The CPU one call may spend (service.calls.costs): the largest search of every game fits.
DEFAULT_MAX_CALL_CPU_MS = 3_000
DEFAULT_MAX_HEAVY_CALLS = 2  # heavy calls a worker runs or queues (one runs at a time)
# The bot policies of the games (every game's GameInfo.policies; a test checks): the policies a
# setting may name.
BOT_POLICIES = ("heuristic", "random", "search")
# What a player may ask SuggestAction for on a server that requires seat tokens: the weaker
# bots, whose hints help a newcomer and let a client play an absent player's turn; not
# ``search``, the strongest, which would think for a player against other people (the server
# cannot tell a friendly game from a ranked one). docs/operations.md argues it.
DEFAULT_SUGGEST_POLICIES = "heuristic,random"
LOG_FORMATS = ("auto", "json", "console")
LOG_LEVELS = ("debug", "info", "warning", "error")
CPU_AFFINITIES = ("auto", "pin", "none")
MAX_PORT = 65_535
# A worker's resident memory stays below this with the default settings, whatever states it is
# sent (docs/operations.md, "Memory, draining and connection limits"; tests/e2e/test_memory.py).
WORKER_RSS_CEILING_MB = 200
PARENT_RSS_MB = 64  # the parent process and multiprocessing's resource tracker, rounded up


def allowed_cpus() -> frozenset[int]:
    """The CPUs this process may run on, its affinity mask; empty where the system has none."""
    if hasattr(os, "sched_getaffinity"):
        return frozenset(os.sched_getaffinity(0))
    return frozenset()


def available_cpus() -> int:
    """The number of CPUs this process may run on (all of the machine's where it cannot tell)."""
    return len(allowed_cpus()) or os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting of the server, with its default."""

    host: str = "0.0.0.0"  # a server in a container listens on every interface
    port: int = 50051
    metrics_port: int = 9464  # 0 turns the metrics endpoint off
    http_port: int = 8080  # the HTTP door (Connect, gRPC-Web, gRPC, the playground); 0: off
    http_cors_origins: str = ""  # comma-separated origins browsers may call from; * for any
    workers: int = 0  # worker processes; 0 means one per core
    threads: int = 4  # threads per worker
    # auto: each worker on a CPU of its own when there are as many workers as CPUs to run on
    # (see ``service.process.worker.worker_cpu``); pin: always; none: the kernel places them.
    cpu_affinity: str = "auto"
    grace_seconds: float = 10.0  # how long SIGTERM waits for in-flight calls
    # A connection older than this is closed gracefully (its calls in flight finish): the
    # client connects again, resolving the name again, so calls spread over the replicas added
    # since. 0 (the default) keeps connections for ever: gRPC's connection-age filter costs a
    # little on every call that leaves a connection idle, so it is for deployments that scale
    # out (the Kubernetes manifests set it).
    max_connection_age_seconds: float = 0.0
    log_level: str = "info"
    log_format: str = "auto"  # json when not on a terminal, console on a terminal
    access_log_flush_ms: int = 100  # access lines are written together, at most this late
    max_request_bytes: int = 1 << 20
    max_concurrent_rpcs: int = 0  # per worker; 0 means no limit
    # The HTTP door's bounds on what clients make a worker hold (``service.doors.http_guard``): the
    # requests in progress at once, the bytes of their bodies, and how long a request's head
    # and body may take to arrive.
    http_max_requests: int = 1000
    http_body_budget_bytes: int = 32 << 20
    http_header_timeout_seconds: float = 10.0
    http_body_timeout_seconds: float = 30.0
    # Bytes of states a worker remembers having returned (charged as ``service.calls.state_cache``
    # says); 0 turns it off. With the other caches' fixed budgets it keeps a worker's memory
    # below the ceiling the operations docs give (200 MB), whatever states it is sent.
    state_cache_bytes: int = 64 << 20
    # The most iterations a request may ask of the ``search`` bot (``engines.search``): what
    # one call may cost is bounded, about 3 ms an iteration at most.
    max_search_iterations: int = DEFAULT_MAX_SEARCH_ITERATIONS
    # What one call may cost, in CPU: counted in nominal costs as its work goes, refused before
    # when it asks for more (service.calls.costs).
    max_call_cpu_ms: int = DEFAULT_MAX_CALL_CPU_MS
    # Heavy calls (searches, long replays) a worker runs or keeps waiting, past which they are
    # refused (RESOURCE_EXHAUSTED, with a delay to retry after); one runs at a time. At most the
    # threads but one (``heavy_call_limit``), so that health checks and cheap calls find one.
    max_heavy_calls: int = DEFAULT_MAX_HEAVY_CALLS
    state_keys_file: str = ""  # the keys that seal states (service.trust.sealing); none: plain
    require_sealed: bool = False  # refuse plain states (needs state keys)
    # Every call that carries a state needs a seat token of its game, and sees and does only
    # what that seat may (service.trust.access); needs state keys, takes sealed states only.
    require_seat_tokens: bool = False
    # The bot policies a seat may ask SuggestAction for when seat tokens are required
    # (comma-separated; empty: none). Without tokens, the caller is trusted: every policy.
    suggest_policies: str = DEFAULT_SUGGEST_POLICIES
    # The Redis or Valkey that keeps each game's latest revision (service.trust.revision_fence):
    # redis://HOST:PORT/DB; empty: no fence. Needs state keys.
    revision_store: str = ""
    # A game's entry lives this long after its last move.
    revision_idle_seconds: float = 7 * 24 * 3600.0
    # The Redis or Valkey that keeps hosted tables (service.tables): redis://HOST:PORT/DB, which
    # may be the revision store's; empty: no hosting. Needs state keys and seat tokens required.
    table_store: str = ""
    # A table lives this long after its last move; a finished one this long after its end.
    table_idle_seconds: float = 7 * 24 * 3600.0
    table_finished_seconds: float = 24 * 3600.0
    # The store's bound on tables and on the bytes of one table (its states and moves), and a
    # worker's on the watchers it streams to, in all and on one table.
    table_max_tables: int = 100_000
    table_max_bytes: int = 1 << 20
    table_max_watchers: int = 4096
    table_max_table_watchers: int = 64
    # Every answer built by protobuf's own serializer, and no state kept from call to call: the
    # fast paths' slow twin (service.calls.encoding), for checking them; slower.
    plain_wire: bool = False
    # The keys read from ``state_keys_file`` at start-up, the sealing one first: every worker
    # seals with the same keys. Never shown (repr), never a flag.
    state_keys: tuple[StateKey, ...] = field(default=(), repr=False, compare=False)

    @property
    def heavy_call_limit(self) -> int:
        """The heavy calls a worker holds: ``max_heavy_calls``, leaving a thread free for
        health checks and cheap calls where there are two or more."""
        return max(1, min(self.max_heavy_calls, self.threads - 1))

    @property
    def worker_count(self) -> int:
        """The number of worker processes to run."""
        return self.workers or available_cpus()


HELP = {
    "host": "address to listen on",
    "port": "gRPC port (0 picks a free one; only with one worker)",
    "metrics_port": "Prometheus /metrics port (0 turns it off)",
    "http_port": "HTTP port: Connect, gRPC-Web and gRPC, /healthz and the web playground "
    "(0 turns it off)",
    "http_cors_origins": "comma-separated origins that browsers may call the HTTP port from "
    "(* for any; none by default)",
    "workers": "worker processes, each a gRPC server on the same port (0: one per core)",
    "threads": "threads per worker",
    "cpu_affinity": f"one of {', '.join(CPU_AFFINITIES)}: pin each worker to a CPU of its own "
    "(auto: when there are as many workers as CPUs the server may run on)",
    "grace_seconds": "seconds SIGTERM waits for in-flight calls before exiting",
    "max_connection_age_seconds": "seconds after which a client connection is closed "
    "gracefully, so that the client reconnects and finds new replicas (0: never)",
    "log_level": f"one of {', '.join(LOG_LEVELS)}",
    "log_format": f"one of {', '.join(LOG_FORMATS)} (auto: console on a terminal, else json)",
    "access_log_flush_ms": "JSON access lines are gathered and written together at most this "
    "many milliseconds after the call (0: each line at once)",
    "max_request_bytes": "largest request accepted, in bytes",
    "max_concurrent_rpcs": "calls at once per worker before RESOURCE_EXHAUSTED (0: no limit)",
    "http_max_requests": "HTTP requests in progress at once per worker before RESOURCE_EXHAUSTED",
    "http_body_budget_bytes": "bytes of HTTP request bodies a worker holds at once before "
    "RESOURCE_EXHAUSTED",
    "http_header_timeout_seconds": "seconds an HTTP request's head may take to arrive before "
    "the connection is closed",
    "http_body_timeout_seconds": "seconds an HTTP request's body may take to arrive after its "
    "head before the call is CANCELLED",
    "state_cache_bytes": "bytes of states a worker remembers having returned, so that a state "
    "sent back unchanged is not decoded and validated again (0: off)",
    "max_search_iterations": "the most iterations a SuggestAction or bot move may ask of the "
    "search policy; more is refused (SEARCH_BUDGET_TOO_LARGE)",
    "max_call_cpu_ms": "the CPU one call may spend, in milliseconds: a call that asks for "
    "more is refused before it starts, one that spends more is stopped (CALL_BUDGET_EXCEEDED)",
    "max_heavy_calls": "heavy calls (searches, long replays) a worker runs or queues, one "
    "running at a time; more are refused with RESOURCE_EXHAUSTED (SERVER_BUSY) and a delay to "
    "retry after (at most --threads minus one)",
    "state_keys_file": "file of state keys, one 'KEY_ID BASE64_KEY' a line: the first seals "
    "the states returned, every one opens sealed states (empty: states are not sealed)",
    "require_sealed": "refuse plain states: only sealed ones (needs --state-keys-file)",
    "require_seat_tokens": "every call that carries a state needs the seat token of a seat of "
    "its game (header ordo-seat-token) and answers only what that seat may know; NewGame "
    "picks every seed and returns none (needs --state-keys-file; implies --require-sealed)",
    "suggest_policies": "comma-separated bot policies a seat may ask SuggestAction for when "
    f"seat tokens are required, among {', '.join(BOT_POLICIES)} (empty: none; others are "
    "refused with SUGGEST_POLICY_NOT_PERMITTED)",
    "revision_store": "redis://HOST:PORT/DB of a Redis or Valkey that keeps each game's latest "
    "revision: ApplyAction refuses older states (needs --state-keys-file; implies "
    "--require-sealed; empty: no fence)",
    "revision_idle_seconds": "seconds a game's entry in the revision store lives after its "
    "last move",
    "table_store": "redis://HOST:PORT/DB of a Redis or Valkey that hosts tables: NewGame with "
    "host keeps the game there, and its seats act and watch by its table id (may be the "
    "revision store; needs --state-keys-file and --require-seat-tokens; empty: no hosting)",
    "table_idle_seconds": "seconds a hosted table lives after its last move",
    "table_finished_seconds": "seconds a hosted table lives after its game is over (its record "
    "can be asked for until then)",
    "table_max_tables": "the most hosted tables the table store keeps at once; NewGame with host "
    "is refused past it (STORE_TABLE_LIMIT)",
    "table_max_bytes": "the most bytes one hosted table takes in the store (its states and "
    "moves); a move past it is refused (TABLE_BYTE_LIMIT)",
    "table_max_watchers": "WatchGame streams open at once per worker before RESOURCE_EXHAUSTED "
    "(WORKER_WATCHER_LIMIT)",
    "table_max_table_watchers": "WatchGame streams open at once on one table per worker before "
    "RESOURCE_EXHAUSTED (TABLE_WATCHER_LIMIT)",
    "plain_wire": "build every answer with protobuf's own serializer and keep no state from "
    "call to call: the same bytes, slower (for checking the fast paths)",
}
REVISION_STORE_SCHEMES = ("redis://", "rediss://", "unix://")
#: Settings that are not flags: made from the others.
DERIVED = frozenset({"state_keys"})
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


def env_name(field_name: str) -> str:
    """The environment variable of a setting, e.g. ``ORDO_GRACE_SECONDS``."""
    return f"ORDO_{field_name.upper()}"


def load(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Read the settings from the environment and the command line (flags win)."""
    parser, names = _parser(os.environ if environ is None else environ)
    args = parser.parse_args(argv)
    settings = Settings(**{name: getattr(args, name) for name in names})
    _check(settings, parser)
    return _with_state_keys(settings, parser)


def _parser(environ: Mapping[str, str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The command line's parser, each setting's default read from ``environ`` when set there;
    and the names of the settings it reads."""
    parser = argparse.ArgumentParser(
        prog="ordo-server",
        description="Ordo: a stateless gRPC rules engine for card games about ordering numbers.",
    )
    parser.add_argument("--version", action="version", version=f"{DISTRIBUTION} {version()}")
    defaults = Settings()
    names = [each.name for each in fields(Settings) if each.name not in DERIVED]
    for name in names:
        kind = type(getattr(defaults, name))
        raw = environ.get(env_name(name))
        parse = _boolean if kind is bool else kind
        try:
            default = getattr(defaults, name) if raw is None else parse(raw)
        except ValueError:
            parser.error(f"{env_name(name)}={raw!r} is not a valid {kind.__name__}")
        choices = {
            "log_level": LOG_LEVELS,
            "log_format": LOG_FORMATS,
            "cpu_affinity": CPU_AFFINITIES,
        }.get(name)
        help_text = f"{HELP[name]} (env {env_name(name)}, default %(default)s)"
        flag = "--" + name.replace("_", "-")
        if kind is bool:
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=default, help=help_text
            )
        else:
            parser.add_argument(flag, type=kind, default=default, choices=choices, help=help_text)
    return parser, names


def _check(settings: Settings, parser: argparse.ArgumentParser) -> None:
    """Refuse, through ``parser`` (which exits saying why), settings out of their range."""
    if (
        settings.log_level not in LOG_LEVELS
        or settings.log_format not in LOG_FORMATS
        or settings.cpu_affinity not in CPU_AFFINITIES
    ):
        parser.error("log level, log format or CPU affinity out of range")
    if settings.worker_count > 1 and settings.port == 0:
        parser.error("port 0 needs --workers 1: workers share one fixed port")
    ports = (settings.port, settings.metrics_port, settings.http_port)
    if not all(0 <= port <= MAX_PORT for port in ports):
        parser.error(f"ports must be 0..{MAX_PORT}")
    chosen = [port for port in ports if port]
    if len(set(chosen)) < len(chosen):
        parser.error("the gRPC, metrics and HTTP ports must differ")
    if settings.max_search_iterations < 1 or settings.max_call_cpu_ms < 1:
        parser.error("max search iterations and max call CPU ms must be positive")
    if settings.max_heavy_calls < 1:
        parser.error("max heavy calls must be 1 or more")
    unknown = policy_names(settings.suggest_policies) - set(BOT_POLICIES)
    if unknown:
        parser.error(
            f"--suggest-policies names {', '.join(sorted(unknown))}: the policies are "
            f"{', '.join(BOT_POLICIES)}"
        )
    if settings.workers < 0 or settings.max_concurrent_rpcs < 0:
        parser.error("workers and max concurrent RPCs must be >= 0 (0: one per core, no limit)")
    if (
        settings.threads < 1
        or settings.max_request_bytes < 1
        or settings.http_max_requests < 1
        or settings.http_body_budget_bytes < 2 * settings.max_request_bytes
        or not 0 < settings.http_header_timeout_seconds < math.inf
        or not 0 < settings.http_body_timeout_seconds < math.inf
        or not 0 <= settings.grace_seconds < math.inf
        or not 0 <= settings.max_connection_age_seconds < math.inf
        or settings.state_cache_bytes < 0
        or settings.access_log_flush_ms < 0
        or not 0 < settings.revision_idle_seconds < math.inf
    ):
        parser.error(
            "threads, max request bytes, HTTP requests, HTTP timeouts and the revision idle "
            "seconds must be positive (the HTTP body budget at least twice max request bytes); "
            "the grace period, the connection age, the state cache's bytes and the access log's "
            "flush delay >= 0 (and finite)"
        )
    if (
        not 0 < settings.table_idle_seconds < math.inf
        or not 0 < settings.table_finished_seconds < math.inf
        or min(settings.table_max_tables, settings.table_max_bytes) < 1
        or min(settings.table_max_watchers, settings.table_max_table_watchers) < 1
    ):
        parser.error("the table store's times and limits must be positive (and finite)")


def policy_names(text: str) -> frozenset[str]:
    """The policies of a comma-separated list such as ``suggest_policies``."""
    return frozenset(name.strip() for name in text.split(",") if name.strip())


def _boolean(raw: str) -> bool:
    """A boolean setting's environment value: true/false, 1/0, yes/no, on/off."""
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(raw)


def _with_state_keys(settings: Settings, parser: argparse.ArgumentParser) -> Settings:
    """``settings`` with the keys of its keys file, read once here: a file that cannot be used
    stops the server before it starts (exit 2), never leaves it half working."""
    for name in ("revision_store", "table_store"):
        url: str = getattr(settings, name)
        flag = f"--{name.replace('_', '-')}"
        if url and not url.startswith(REVISION_STORE_SCHEMES):
            parser.error(
                f"{flag} is a URL starting with {', '.join(REVISION_STORE_SCHEMES)}, "
                "e.g. redis://127.0.0.1:6379/0"
            )
        if url and importlib.util.find_spec("redis") is None:
            parser.error(
                f"{flag} needs the redis package, which this installation lacks: "
                "pip install 'ordo-server[redis]'"
            )
    if settings.table_store and not settings.require_seat_tokens:
        parser.error(
            "--table-store needs --require-seat-tokens: a hosted game's seats act and watch "
            "from their own devices, each with its own seat token, and see only what that seat "
            "may see"
        )
    if not settings.state_keys_file:
        for name, needs in (
            ("require_sealed", "no key could seal a state"),
            ("require_seat_tokens", "no key could make a seat token"),
            ("revision_store", "no game would have a match id to fence"),
            ("table_store", "no key could seal a hosted game's state or make its seat tokens"),
        ):
            if getattr(settings, name):
                parser.error(f"--{name.replace('_', '-')} needs --state-keys-file: {needs}")
        return settings
    try:
        keys = load_keys(settings.state_keys_file)
    except KeysFileError as error:
        parser.error(str(error))
    # A fenced game is known by the match id its sealed states carry: a plain state would let
    # a caller name any game's id.
    sealed = (
        settings.require_sealed or settings.require_seat_tokens or bool(settings.revision_store)
    )
    return replace(settings, state_keys=keys, require_sealed=sealed)
