"""Two versions side by side: ``ApplyAction`` through both doors, this tree against another
revision of it, in one run.

The other revision (``--against``, by default the newest release tag, ``v*``) is checked out into
a temporary git worktree, and its server runs from there (``python -m service`` with that tree
first on the path) beside this tree's, both in the default shape with both doors. The same
recorded requests (``bench.rpc.record_requests``: every step of seeded random playouts, each
connection playing games of its own in order) go through each server's gRPC door and HTTP door
(Connect, binary) in rounds, the servers in turn and in the opposite order the next round, so a
drift of the machine's load evens out. The table gives each version's calls/s and the ratio this
tree / the other, the median over the rounds with its lowest and highest: a difference inside
that range is no result.

    python -m bench.versions [--against REV] [--seconds N] [--games six_nimmt] [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from bench.common import Settings, fmt_int, games, section, table
from bench.http import CONCURRENCIES, DOORS, measure, wait_for_http
from bench.rpc import HOST, Server, free_port, record_requests, running_server, slot_requests
from service.config import Settings as ServerSettings

ROOT = Path(__file__).resolve().parent.parent
RELEASE_TAGS = "v*"  # the tags of releases: the newest is the default to compare against
HEADERS = (
    "in flight", "door", "this calls/s", "other calls/s", "this/other", "rounds",
)  # fmt: skip
DEFAULT_ROUNDS = 4


def newest_release() -> str | None:
    """The newest release tag of this repository, or None."""
    found = subprocess.run(
        ["git", "tag", "--list", RELEASE_TAGS, "--sort=-v:refname"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    tags = found.stdout.split()
    return tags[0] if found.returncode == 0 and tags else None


@contextlib.contextmanager
def checked_out(revision: str) -> Iterator[Path]:
    """A temporary worktree of ``revision``, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="ordo-version-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "--quiet", str(tree), revision],
            cwd=ROOT,
            check=True,
        )
        try:
            yield tree
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False
            )


def server_args(http_port: int) -> list[str]:
    """A server in the default shape with both doors and no metrics endpoint."""
    return ["-m", "service", "--host", HOST, "--metrics-port", "0", "--http-port", str(http_port)]


def run(settings: Settings, revision: str, rounds: int = DEFAULT_ROUNDS) -> None:
    """Measure this tree's server against ``revision``'s and print the table."""
    game = games(settings.games)[0]
    workers = ServerSettings().worker_count
    section(f"7. Versions: ApplyAction through both doors, this tree against {revision}")
    playouts = record_requests(game, max(CONCURRENCIES))
    print(
        f"Servers: python -m service ({workers} workers, both doors) from this tree and from\n"
        f"{revision}; {game.id}; {rounds} rounds of {settings.seconds / rounds:g} s per door and\n"
        "concurrency, the servers in turn. this/other: the median of the rounds' ratios, with\n"
        "their lowest and highest."
    )
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ordo-bench-")))
        other_tree = stack.enter_context(checked_out(revision))
        ports = {"this": free_port(), "other": free_port()}
        this = stack.enter_context(
            running_server("this", server_args(ports["this"]), workers, folder)
        )
        other = stack.enter_context(
            running_server("other", server_args(ports["other"]), workers, folder, tree=other_tree)
        )
        servers = {"this": this, "other": other}
        for name in servers:
            wait_for_http(ports[name])
        rows = []
        for concurrency in CONCURRENCIES:
            slots = slot_requests(playouts, concurrency)
            for door in DOORS:
                rates = measure_versions(servers, ports, door, slots, settings.seconds, rounds)
                rows.append(row(concurrency, door, rates))
    print(table(HEADERS, rows, left=2))


def measure_versions(
    servers: dict[str, Server],
    ports: dict[str, int],
    door: str,
    slots: list[list[bytes]],
    seconds: float,
    rounds: int,
) -> dict[str, list[float]]:
    """Each version's calls/s through ``door`` in each round."""
    rates: dict[str, list[float]] = {name: [] for name in servers}
    names = list(servers)
    for number in range(rounds):
        for name in names if number % 2 == 0 else reversed(names):
            server = servers[name]
            address = server.target if door == "grpc" else f"{HOST}:{ports[name]}"
            rate, _, _ = measure(door, address, slots, seconds / rounds, server.process.pid)
            rates[name].append(rate)
    return rates


def row(concurrency: int, door: str, rates: dict[str, list[float]]) -> list[object]:
    """A table row: each version's median calls/s and the ratio of the rounds."""
    ratios = [this / other for this, other in zip(rates["this"], rates["other"], strict=True)]
    return [
        concurrency,
        door,
        fmt_int(statistics.median(rates["this"])),
        fmt_int(statistics.median(rates["other"])),
        f"{statistics.median(ratios):.2f}",
        f"{min(ratios):.2f}-{max(ratios):.2f}",
    ]


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(prog="python -m bench.versions", description=__doc__)
    parser.add_argument("--against", help="a git revision (default: the newest v* tag)")
    parser.add_argument("--seconds", type=float, default=8.0, help="per door and concurrency")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--games", default="six_nimmt", help="the game whose playouts are sent")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    revision = args.against or newest_release()
    if revision is None:
        parser.error("no release tag (v*) here: name a revision with --against")
    ids = tuple(gid for gid in args.games.split(",") if gid)
    run(Settings(quick=args.quick, games=ids, seconds=args.seconds), revision, args.rounds)


if __name__ == "__main__":
    main()
