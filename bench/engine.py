"""In-process engine benchmarks, per registered game, on one core (one thread, no gRPC).

1. Random playouts: actions per second (each step is ``seats_to_act``, ``legal_actions``, a
   seeded random choice and ``apply``) and whole games per second, against a target per game.
2. What the server does to a state on every call: ``validate``, and the codec round trip of a
   mid-game state (parse + decode + validate in, encode + serialize out).
3. The whole ``ApplyAction`` handler in-process, part by part, to show where our own time per call
   goes (the server adds gRPC's own cost per call on top of it); then the handler, and the
   baseline server's, after their thread slept, as a server's does between one caller's calls,
   and after other work went through the core's cache, as in a busy server; and the handler on
   sealed states beside plain ones.
4. The heuristic bot against random bots: seat 0 heuristic, the other seats random, over seeded
   games, beside a control where every seat is random; in the game's own score unit.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, NoReturn, cast

import grpc

from bench import baseline
from bench.common import (
    ROUNDS,
    Game,
    Settings,
    Step,
    apply_request,
    encode_state,
    fmt_int,
    fmt_us,
    micros_per_call,
    mid_game_steps,
    section,
    table,
)
from engines.base import Status, Transition
from engines.prng import Rng
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.caches import DEFAULT_STATE_CACHE_BYTES
from service.calls.encoding import encode_status
from service.calls.servicer import GameEngineServicer
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer, StateKey
from service.trust.seats import NO_SEATING, Seating

#: Actions per second each game's engine should reach on one core. 6 nimmt! has its own target
#: (bots simulate many of its turns per decision); every other game, present or future, gets the
#: default.
TARGETS: dict[str, int] = {"six_nimmt": 30_000}
DEFAULT_TARGET = 20_000
APPLY_PATH = "/ordo.v1.GameEngineService/ApplyAction"
IDLE_GAPS = (0.0, 0.0002, 0.0005, 0.002)  # seconds a handler's thread sleeps before each call
#: The memory the other work between two calls goes through: more than a core's L2 cache on the
#: development machines (4 MiB), so that a call finds little of its own in it.
OTHER_WORK_BYTES = 16 * 2**20
CACHE_LINE = 64  # bytes
BENCH_KEY: StateKey = ("bench", bytes(range(64)))  # a fixed key: sealing costs the same with any


def run(settings: Settings, chosen: Sequence[Game]) -> None:
    """Run every engine benchmark over the chosen games and print the tables."""
    playout_speed(settings, chosen)
    samples = {game.id: mid_game_steps(game, settings.recorded_games) for game in chosen}
    codec_round_trip(settings, chosen, samples)
    handler_parts(settings, chosen, samples)
    bots(settings, chosen)


# --------------------------------------------------------------------- 1. playouts
@dataclass(frozen=True, slots=True)
class PlayoutRound:
    """One timed round of back-to-back random playouts."""

    actions: int
    games: int
    seconds: float
    cut_off: int  # playouts stopped at the length bound


def play_round(game: Game, seconds: float, first_seed: int) -> PlayoutRound:
    """Play seeded random games back to back for about ``seconds``; CPU time is counted."""
    engine = game.engine
    options = engine.default_options()
    seats_to_act = engine.seats_to_act
    legal_actions = engine.legal_actions
    apply = engine.apply
    actions = games = cut_off = 0
    seed = first_seed
    deadline = time.perf_counter() + seconds
    start = time.thread_time()
    while True:
        state = engine.new_game(game.seats, seed, options)
        rng = Rng(seed)
        for _ in range(100_000):
            to_act = seats_to_act(state)
            if not to_act:
                break
            seat = rng.choice(to_act)
            state = apply(state, seat, rng.choice(legal_actions(state, seat))).state
            actions += 1
        else:
            cut_off += 1
        games += 1
        seed += 1
        if time.perf_counter() >= deadline:
            return PlayoutRound(actions, games, time.thread_time() - start, cut_off)


def playout_speed(settings: Settings, chosen: Sequence[Game]) -> None:
    """Actions and games per second of random playouts, against each game's target."""
    section("1. Engine speed: random playouts in-process, one thread, CPU time")
    print(
        "Each step: seats_to_act, legal_actions, a seeded random choice, apply. actions/s: the\n"
        f"best of {ROUNDS} rounds (median beside it), new_game included; games/s: whole games at\n"
        "that rate. target: the speed an engine is built to reach on one core (6 nimmt!'s\n"
        "higher: bots simulate many of its turns for each decision), a fixed floor, not a\n"
        "measured baseline."
    )
    rows = []
    for game in chosen:
        rounds = [
            play_round(game, settings.seconds / ROUNDS, 1 + index * 1_000_000)
            for index in range(ROUNDS)
        ]
        rates = sorted(r.actions / r.seconds for r in rounds)
        per_game = sum(r.actions for r in rounds) / sum(r.games for r in rounds)
        target = TARGETS.get(game.id, DEFAULT_TARGET)
        cut_off = sum(r.cut_off for r in rounds)
        rows.append(
            (
                game.id,
                game.seats,
                fmt_int(rates[-1]),
                fmt_int(rates[len(rates) // 2]),
                f"{rates[-1] / per_game:,.1f}",
                fmt_int(per_game),
                fmt_int(target),
                f"{rates[-1] / target:.2f}" + ("" if rates[-1] >= target else "  below target"),
            )
        )
        if cut_off:
            print(f"  note: {game.id}: {cut_off} playouts stopped at the length bound")
    headers = (
        "game", "seats", "actions/s", "median", "games/s", "actions/game", "target",
        "best/target",
    )  # fmt: skip
    print(table(headers, rows))


# --------------------------------------------------------------------- 2. codec
def codec_round_trip(
    settings: Settings, chosen: Sequence[Game], samples: dict[str, list[Step]]
) -> None:
    """The cost of what the server does to every state it receives and returns."""
    section("2. State checks and codec round trip, mid-game states, µs per call")
    print(
        "in = parse GameState bytes + codec decode + validate (every call that takes a state);\n"
        "out = codec encode + serialize (every call that returns a state). Mid-game: the middle\n"
        "half of seeded random playouts."
    )
    rows = [codec_row(game, samples[game.id], settings.call_seconds) for game in chosen]
    print(table(("game", "state bytes", "validate", "in", "out", "in + out"), rows))


def codec_row(game: Game, steps: Sequence[Step], seconds: float) -> tuple[str, ...]:
    """One game's line of the codec table."""
    engine, codec, gid = game.engine, game.codec, game.id
    states = [step.state for step in steps]
    wire = [encode_state(game, state).SerializeToString() for state in states]

    def decode_in(raw: bytes) -> None:
        msg = common.GameState.FromString(raw)
        engine.validate(codec.decode_state(getattr(msg, gid), msg.rules_version, msg.revision))

    def encode_out(state: Any) -> None:
        encode_state(game, state).SerializeToString()

    validate, into, out = micros_per_call(
        [(engine.validate, states), (decode_in, wire), (encode_out, states)], seconds
    )
    size = sum(map(len, wire)) / len(wire)
    return gid, fmt_int(size), fmt_us(validate), fmt_us(into), fmt_us(out), fmt_us(into + out)


# --------------------------------------------------------------------- 3. handler
class Context:
    """The little of ``grpc.ServicerContext`` the handler uses, for calling it in-process; its
    metadata are set by the caller before a call (a seat token)."""

    def __init__(self) -> None:
        self.metadata: tuple[tuple[str, str], ...] = ()

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata

    def set_trailing_metadata(self, metadata: object) -> None:
        return None

    def abort_with_status(self, status: object) -> NoReturn:
        raise RuntimeError(f"the handler refused a recorded request: {status}")


@contextlib.contextmanager
def _quiet_observers() -> Iterator[list[Any]]:
    """The server's observers (access log, metrics), logging to /dev/null, metrics to a temp
    folder removed afterwards."""
    from service.telemetry import logs  # noqa: PLC0415 - only this measurement needs them

    with (
        tempfile.TemporaryDirectory(prefix="ordo-bench-metrics-") as folder,
        open(os.devnull, "w") as devnull,
    ):
        previous = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
        logs.configure("info", "json", stream=devnull)
        from service.config import Settings as ServerSettings  # noqa: PLC0415
        from service.process.worker import worker_observers  # noqa: PLC0415

        observers = worker_observers(ServerSettings())
        try:
            yield observers
        finally:
            for observer in observers:
                if isinstance(observer, logs.AccessLog):
                    observer.close()  # before /dev/null closes
            if previous is None:
                del os.environ["PROMETHEUS_MULTIPROC_DIR"]
            else:
                os.environ["PROMETHEUS_MULTIPROC_DIR"] = previous


Handler = Callable[[bytes], object]


def apply_handler(
    servicer: GameEngineServicer, observers: Sequence[Any] = (), calls: Context | None = None
) -> Handler:
    """The server's real ``ApplyAction`` handler of ``servicer`` with its response serializer,
    called with the context ``calls`` (one without metadata by default)."""
    from service.doors.grpc_door import rpc_handler  # noqa: PLC0415

    context = cast("grpc.ServicerContext", calls or Context())
    details = cast("grpc.HandlerCallDetails", SimpleNamespace(method=APPLY_PATH))
    method = rpc_handler(servicer, observers).service(details)
    handle = None if method is None else method.unary_unary
    serialize = None if method is None else method.response_serializer
    if handle is None or serialize is None:
        raise RuntimeError(f"the server has no unary handler for {APPLY_PATH}")

    def served(raw: bytes) -> object:
        return serialize(handle(raw, context))

    return served


def _apply_handlers(observers: Sequence[Any]) -> tuple[Handler, Handler]:
    """The server's real ``ApplyAction`` handler, without and with the observers."""
    return apply_handler(GameEngineServicer()), apply_handler(GameEngineServicer(), observers)


def handler_parts(
    settings: Settings, chosen: Sequence[Game], samples: dict[str, list[Step]]
) -> None:
    """Where the time of one ``ApplyAction`` goes, part by part, then the whole handler."""
    section("3. ApplyAction in-process, part by part, mid-game requests, µs per call")
    print(
        "parse = ApplyActionRequest bytes to message; decode = codec, state and action; apply =\n"
        "engine.apply + status; events = encoding the events; encode = state + status into the\n"
        "response; serialize = response to bytes: each part done plainly, as a first call would.\n"
        "handler = the server's real handler and serializer without observers, the recorded\n"
        "requests sent in turn, so that (as from a game server) each state is one the handler\n"
        "returned: it reuses what it knows (the decoded state, the parts of the state an action\n"
        "left unchanged, status and event encodings). +observers = with the access log (JSON to\n"
        "/dev/null) and the metrics, as served. gRPC's own cost per call comes on top (see the\n"
        "RPC benchmark)."
    )
    with _quiet_observers() as observers:
        bare, observed = _apply_handlers(observers)
        rows = [
            handler_row(game, samples[game.id], bare, observed, settings.call_seconds)
            for game in chosen
        ]
        hooks = observer_hooks(observers, chosen[0].id, settings.call_seconds)
    headers = (
        "game", "parse", "decode", "validate", "apply", "events", "encode", "serialize", "sum",
        "handler", "+observers",
    )  # fmt: skip
    print(table(headers, rows))
    print(f"Observers alone, call_started + call_finished of an ApplyAction, µs per call: {hooks}")
    after_idle_table(settings, chosen, samples, bare)
    sealed_table(settings, chosen, samples)


def after_idle_table(
    settings: Settings, chosen: Sequence[Game], samples: dict[str, list[Step]], handler: Handler
) -> None:
    """The handler's CPU time per call when its thread has slept before each call, as a server's
    does between the calls of one caller, and when other work went through the core's cache
    before each call, as in a busy server; beside the baseline server's handler."""
    gaps = ", ".join(f"{gap * 1e3:g} ms" for gap in IDLE_GAPS)
    mebibytes = OTHER_WORK_BYTES // 2**20
    print(
        "\nThe same handler when its thread sleeps before each call, the median µs of CPU per\n"
        f"call ({gaps} of sleep). A server waiting for its next call leaves the core\n"
        "to other work (other processes, other virtual machines), which takes over its caches.\n"
        f"'other work': before each call, one byte of every cache line of {mebibytes} MiB is\n"
        "read and written, more than a core's L2 cache here. In a busy server, gRPC, the\n"
        "kernel and the callers run on the core between two calls: a call then finds little of\n"
        "its own in the cache, and costs about what this column shows (compare the RPC\n"
        "benchmark's server CPU per call, Ordo's against the baseline's).\n"
        "'baseline' is the RPC benchmark's echo handler (parse the request, build and serialize\n"
        "the response with the state unchanged) on the same requests."
    )
    calls = 100 if settings.quick else 400
    other_work = bytearray(OTHER_WORK_BYTES)
    rows = []
    for game in chosen:
        raw = [apply_request(game, step) for step in samples[game.id]]
        for name, handle in ((game.id, handler), ("  baseline", _echo)):
            for request in raw:  # each state one the handler returned, as in the table above
                handle(request)
            slept = (fmt_us(after_idle(handle, raw, gap, calls)) for gap in IDLE_GAPS)
            rows.append((name, *slept, fmt_us(after_other_work(handle, raw, other_work, calls))))
    headers = ("handler", *(f"slept {gap * 1e3:g} ms" for gap in IDLE_GAPS), "other work")
    print(table(headers, rows))


def sealed_only(settings: Settings, chosen: Sequence[Game]) -> None:
    """The table of the handler on sealed and plain states alone."""
    section("3. ApplyAction in-process on sealed and plain states, mid-game requests")
    samples = {game.id: mid_game_steps(game, settings.recorded_games) for game in chosen}
    sealed_table(settings, chosen, samples)


def sealed_table(
    settings: Settings, chosen: Sequence[Game], samples: dict[str, list[Step]]
) -> None:
    """The handler on sealed states beside plain ones: on states the worker returned (its state
    cache knows them) and on states new to it (as on another replica)."""
    print(
        "\nThe handler (no observers) on sealed states beside plain ones, µs per call. 'returned\n"
        "here': the recorded requests in turn, each state one this worker returned (its state\n"
        "cache knows it: only the answer is sealed). 'new here': the state cache off, as for\n"
        "states another replica returned: a plain state is decoded and validated, a sealed one\n"
        "opened and decoded, not validated. The key is a fixed benchmark key."
    )
    sealer = Sealer([BENCH_KEY])
    rows = []
    for game in chosen:
        plain = [apply_request(game, step) for step in samples[game.id]]
        sealed = [sealed_request(game, raw, sealer) for raw in plain]
        cases = [
            (apply_handler(GameEngineServicer(size, sealer if seal else None)), requests)
            for size in (DEFAULT_STATE_CACHE_BYTES, 0)
            for seal, requests in ((False, plain), (True, sealed))
        ]
        here, here_sealed, new, new_sealed = micros_per_call(cases, settings.call_seconds)
        rows.append(
            (
                game.id,
                fmt_us(here),
                fmt_us(here_sealed),
                f"{here_sealed / here:.2f}",
                fmt_us(new),
                fmt_us(new_sealed),
                f"{new_sealed / new:.2f}",
            )
        )
    headers = (
        "game", "plain, returned here", "sealed", "sealed/plain", "plain, new here", "sealed",
        "sealed/plain",
    )  # fmt: skip
    print(table(headers, rows))


def sealed_request(game: Game, raw: bytes, sealer: Sealer, seated: Seating = NO_SEATING) -> bytes:
    """A recorded ``ApplyActionRequest`` with its state sealed, with the seating ``seated``, as
    a server with keys returns it."""
    request = api.ApplyActionRequest.FromString(raw)
    plain = request.state
    request.state.CopyFrom(
        common.GameState(
            rules_version=plain.rules_version,
            revision=plain.revision,
            game_id=game.id,
            sealed=sealer.seal(
                game.id,
                plain.rules_version,
                plain.revision,
                getattr(plain, game.id).SerializeToString(),
                seated.fields(),
            ),
        )
    )
    request.state.MergeFromString(seated.fields())
    return request.SerializeToString()


def after_idle(handle: Handler, requests: Sequence[bytes], gap: float, calls: int) -> float:
    """The median CPU time of ``handle`` on ``requests`` in turn, sleeping ``gap`` seconds before
    each call, in µs."""
    return _median_cpu(handle, requests, calls, (lambda: time.sleep(gap)) if gap else None)


def after_other_work(
    handle: Handler, requests: Sequence[bytes], memory: bytearray, calls: int
) -> float:
    """The median CPU time of ``handle`` on ``requests`` in turn, in µs, when one byte of every
    cache line of ``memory`` was read and written before each call (not counted)."""

    def go_through() -> None:
        memory[::CACHE_LINE] = memory[::CACHE_LINE]

    return _median_cpu(handle, requests, calls, go_through)


def _median_cpu(
    handle: Handler, requests: Sequence[bytes], calls: int, before: Callable[[], None] | None
) -> float:
    """The median CPU time of ``calls`` calls of ``handle`` on ``requests`` in turn, in µs, each
    after ``before`` (not counted). The median: a call that an interrupt or another thread
    delayed does not count for more than one."""
    clock = time.thread_time
    times = []
    for index in range(calls):
        if before is not None:
            before()
        start = clock()
        handle(requests[index % len(requests)])
        times.append(clock() - start)
    return statistics.median(times) * 1e6


def _echo(raw: bytes) -> object:
    """The baseline server's ``ApplyAction`` with its request parsing and response serializing."""
    request = api.ApplyActionRequest.FromString(raw)
    return baseline.apply_action(request, cast("grpc.ServicerContext", None)).SerializeToString()


def observer_hooks(observers: Sequence[Any], game: str, seconds: float) -> str:
    """Each observer's cost per call, both hooks, on a typical record of an applied action."""
    record = CallRecord(
        "ApplyAction", request_id="0" * 32, request_bytes=213, game=game, seat=1,
        seconds=0.0003, engine_seconds=0.00005, state_bytes=200,
    )  # fmt: skip

    def hooks(observer: Any) -> Callable[[CallRecord], None]:
        def both(call: CallRecord) -> None:
            observer.call_started(call)
            observer.call_finished(call)

        return both

    costs = micros_per_call([(hooks(observer), [record]) for observer in observers], seconds)
    return ", ".join(
        f"{type(observer).__name__} {fmt_us(cost)}"
        for observer, cost in zip(observers, costs, strict=True)
    )


def handler_row(
    game: Game, steps: Sequence[Step], bare: Handler, observed: Handler, seconds: float
) -> tuple[str, ...]:
    """One game's line of the handler table."""
    engine, codec, gid = game.engine, game.codec, game.id
    seats = engine.seats(steps[0].state)
    raw = [apply_request(game, step) for step in steps]
    requests = [api.ApplyActionRequest.FromString(data) for data in raw]
    transitions = [engine.apply(step.state, step.seat, step.action) for step in steps]
    outputs = [(t, engine.status(t.state)) for t in transitions]

    def decode(request: api.ApplyActionRequest) -> None:
        msg = request.state
        codec.decode_state(getattr(msg, gid), msg.rules_version, msg.revision)
        codec.decode_action(getattr(request.action, gid))

    def apply(step: Step) -> None:
        engine.status(engine.apply(step.state, step.seat, step.action).state)

    def events_of(transition: Transition[Any]) -> list[common.Event]:
        return [
            common.Event(
                visible_to_seats=range(seats) if event.audience is None else event.audience,
                public=event.audience is None,
                **{gid: codec.encode_event(event.body)},
            )
            for event in transition.events
        ]

    def encode(output: tuple[Transition[Any], Status]) -> api.ApplyActionResponse:
        transition, status = output
        return api.ApplyActionResponse(
            state=encode_state(game, transition.state), status=encode_status(status)
        )

    responses = [
        api.ApplyActionResponse(
            state=encode_state(game, t.state), status=encode_status(status), events=events_of(t)
        )
        for t, status in outputs
    ]
    *parts, whole, full = micros_per_call(
        [
            (api.ApplyActionRequest.FromString, raw),
            (decode, requests),
            (engine.validate, [step.state for step in steps]),
            (apply, steps),
            (events_of, transitions),
            (encode, outputs),
            (api.ApplyActionResponse.SerializeToString, responses),
            (bare, raw),
            (observed, raw),
        ],
        seconds,
    )
    return gid, *(fmt_us(part) for part in parts), fmt_us(sum(parts)), fmt_us(whole), fmt_us(full)


# --------------------------------------------------------------------- 4. bots
@dataclass(frozen=True, slots=True)
class BotResults:
    """Seat 0's results over a series of seeded games."""

    games: int
    wins: int  # seat 0 among the winners (shared wins count)
    sole_wins: int
    seat0_score: float  # mean
    others_score: float  # mean of the other seats' mean
    margin: float  # mean of seat 0 minus the others, signed so that positive is better
    lower_is_better: bool
    unfinished: int


def bot_series(game: Game, games: int, seat0_policy: str) -> BotResults:
    """Play ``games`` seeded games: seat 0 with ``seat0_policy``, every other seat random."""
    engine = game.engine
    policies = engine.policies
    first, rest = policies[seat0_policy], policies["random"]
    options = engine.default_options()
    wins = sole = unfinished = 0
    seat0_total = others_total = margin_total = 0.0
    lower_is_better = False
    for seed in range(1, games + 1):
        state = engine.new_game(game.seats, seed, options)
        rng = Rng(seed)
        for _ in range(100_000):
            to_act = engine.seats_to_act(state)
            if not to_act:
                break
            seat = rng.choice(to_act)
            action = (first if seat == 0 else rest)(state, seat, rng)
            state = engine.apply(state, seat, action).state
        outcome = engine.outcome(state)
        if outcome is None:
            unfinished += 1
            continue
        lower_is_better = outcome.lower_is_better
        own, others = outcome.scores[0], outcome.scores[1:]
        others_mean = sum(others) / len(others)
        seat0_total += own
        others_total += others_mean
        margin_total += (others_mean - own) if lower_is_better else (own - others_mean)
        wins += 0 in outcome.winners
        sole += outcome.winners == (0,)
    finished = max(1, games - unfinished)
    return BotResults(
        games,
        wins,
        sole,
        seat0_total / finished,
        others_total / finished,
        margin_total / finished,
        lower_is_better,
        unfinished,
    )


def bots(settings: Settings, chosen: Sequence[Game]) -> None:
    """The heuristic bot against random bots, beside an all-random control on the same seeds."""
    section("4. Heuristic bot vs random bots, seeded games")
    print(
        f"Seat 0 plays the heuristic policy, every other seat random, over {settings.bot_games:,}\n"
        "seeded games per game; the control plays the same seeds with seat 0 random too. Scores\n"
        "are in the game's own unit; margin = seat 0 against the mean of the other seats, signed\n"
        "so that positive is better for seat 0; wins count shared wins (a team's win is every\n"
        "member's), so the control row, not 1/seats, is the fair share to compare with."
    )
    rows = []
    for game in chosen:
        start = time.perf_counter()
        heuristic = bot_series(game, settings.bot_games, "heuristic")
        control = bot_series(game, settings.bot_games, "random")
        elapsed = time.perf_counter() - start
        for name, result in (("heuristic", heuristic), ("random", control)):
            finished = max(1, result.games - result.unfinished)
            rows.append(
                (
                    game.id if name == "heuristic" else "",
                    name,
                    "lowest" if result.lower_is_better else "highest",
                    f"{result.seat0_score:.1f}",
                    f"{result.others_score:.1f}",
                    f"{result.margin:+.1f}",
                    f"{result.wins / finished:.1%}",
                    f"{result.sole_wins / finished:.1%}",
                )
            )
            if result.unfinished:
                print(f"  note: {game.id} ({name}): {result.unfinished} games did not finish")
        played = 2 * settings.bot_games
        print(f"  {game.id}: {game.seats} seats, {played:,} games in {elapsed:.1f} s")
    headers = (
        "game", "seat 0", "best score", "seat 0 score", "others", "margin", "wins", "sole wins",
    )  # fmt: skip
    print(table(headers, rows, left=3))
