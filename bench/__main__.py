"""``python -m bench`` (``make bench``): run every benchmark and print the results.

Options: ``--quick`` for a short run, ``--games a,b`` to benchmark some games only,
``--seconds N`` for the time of each measured point,
``--only engine|rpc|http|records|versions|agents|probes|tables`` for one part (``--only
sealed``: the engine benchmark's table of the handler on sealed and plain states, and the handler
with seat tokens and the revision fence, ``bench.seats``; ``records``: replay speed and record
size; ``versions``: this tree against the newest release tag, both doors, ``bench.versions``;
``agents``: the PettingZoo environments' steps/s, in-process and over gRPC; ``probes``: health
checks and a cheap call while one worker is sent searches at the largest budget,
``bench.probes``; ``tables``: hosted tables, ``bench.tables``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from bench import agents, engine, http, probes, records, rpc, seats, tables, versions
from bench.common import Settings, games, header

DEFAULT_SECONDS = 4.0
QUICK_SECONDS = 1.0


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, print the header, run the benchmarks."""
    parser = argparse.ArgumentParser(
        prog="python -m bench", description="Ordo benchmarks: engine and RPC speed (no asserts)."
    )
    parser.add_argument("--quick", action="store_true", help="a short run: fewer games, 1 s points")
    parser.add_argument("--games", default="", help="comma-separated game ids (default: all)")
    parser.add_argument(
        "--seconds",
        type=float,
        help=f"seconds per measured point (default {DEFAULT_SECONDS:g}, --quick {QUICK_SECONDS:g})",
    )
    parser.add_argument(
        "--only",
        choices=(
            "engine",
            "rpc",
            "http",
            "sealed",
            "records",
            "versions",
            "agents",
            "probes",
            "tables",
        ),
        help="run one benchmark (or table) only",
    )
    args = parser.parse_args(argv)
    seconds = args.seconds or (QUICK_SECONDS if args.quick else DEFAULT_SECONDS)
    if seconds <= 0:
        parser.error("--seconds must be positive")
    ids = tuple(gid.strip() for gid in args.games.split(",") if gid.strip())
    settings = Settings(quick=args.quick, games=ids, seconds=seconds)
    chosen = games(ids)
    started = time.perf_counter()
    print(header(settings, chosen), flush=True)
    if args.only in (None, "engine"):
        engine.run(settings, chosen)
    if args.only == "sealed":
        engine.sealed_only(settings, chosen)
    if args.only in (None, "engine", "sealed"):
        seats.run(settings, chosen)
    if args.only in (None, "records"):
        records.run(settings, chosen)
    if args.only in (None, "rpc"):
        rpc.run(settings, chosen)
    if args.only in (None, "http"):
        http.run(settings, chosen)
    if args.only in (None, "versions"):
        release = versions.newest_release()
        if release is None:
            print("\n7. Versions: skipped, no release tag (v*) to compare against")
        else:
            versions.run(settings, release)
    if args.only in (None, "agents"):
        agents.run(settings, chosen)
    if args.only in (None, "probes"):
        probes.run(settings)
    if args.only in (None, "tables"):
        tables.run(settings)
    print(f"\ndone in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
