"""``python -m bench.rehearsal`` (``make rehearsal``): a rehearsal of production on one machine.

Each host is a network namespace of its own (``bench.rehearsal.hosts``): one ``redis-server``
keeping the revision fence (append-only file on), three Ordo replicas (keys file, seat tokens
required, the fence) and HAProxy in front, balancing gRPC over HTTP/2 and the HTTP door over
HTTP/1.1 call by call with the readiness check the manifests use. Two drivers play many games
at once through HAProxy, one with the Python client over gRPC, one with the TypeScript client over
Connect (``bench.rehearsal.driver``), while the phases go by:

1. steady load;
2. ``kill -9`` of one replica, which comes back;
3. a rolling restart (each replica out of the balancer, SIGTERM, back), one at a time;
4. a network partition of one replica (its link down, then up);
5. the store restarted, then (a phase of its own) paused;
6. a key rotation rolled across the replicas: the new key added everywhere, made current, the
   old one removed once the games dealt under it have ended;
7. the previous release rolled in, one replica at a time, then this one again (both serving at
   once all along).

Per phase it reports the calls made, the attempts that failed by reason (then retried), the
calls that failed for good, the moves lost and applied twice (each game's last revision against
the store's), the stale states the fence let through, and p50/p99 latency; ``report.md`` and
``report.json`` land in ``--out``. It exits 1, naming each phase and figure that missed its
target. Needs root (namespaces), haproxy, redis-server and node, and ``make node``.
"""

from __future__ import annotations

import argparse
import atexit
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

from bench.rehearsal import report
from bench.rehearsal.stage import REPLICAS, ROOT, Stage, Timing

FULL = Timing(steady=60, settle=20, partition=20, pause=10, pre_stop=5)
SHORT = Timing(steady=8, settle=3, partition=20, pause=5, pre_stop=1)


def phases(stage: Stage) -> list[tuple[str, str, Callable[[], None]]]:
    """The phases in order: name, what happens, and the doing of it."""
    timing = stage.timing

    def steady() -> None:
        time.sleep(timing.steady)

    def kill() -> None:
        replica = stage.replicas[REPLICAS[0]]
        replica.stop(kill=True)
        stage.balancer.wait_until(REPLICAS[0], up=False)
        assert replica.release is not None
        replica.start(replica.release, stage.keys_now)
        stage.balancer.wait_until(REPLICAS[0], up=True)
        time.sleep(timing.settle)

    def rolling_restart() -> None:
        stage.roll_all()
        time.sleep(timing.settle)

    def partition() -> None:
        host = stage.host(REPLICAS[1])
        host.link(up=False)
        time.sleep(timing.partition)
        host.link(up=True)
        stage.balancer.wait_until(REPLICAS[1], up=True)
        stage.order("probe")
        time.sleep(timing.settle)

    def store_restart() -> None:
        stage.store.stop()
        stage.store.start()
        stage.order("probe")
        time.sleep(timing.settle)

    def store_pause() -> None:
        stage.store.pause(paused=True)
        time.sleep(timing.pause)
        stage.store.pause(paused=False)
        stage.order("probe")
        time.sleep(timing.settle)

    def key_rotation() -> None:
        stage.roll_all(keys=stage.keys["ab"])
        stage.roll_all(keys=stage.keys["ba"])
        stage.new_epoch()
        stage.roll_all(keys=stage.keys["b"])
        time.sleep(timing.settle)

    def downgrade() -> None:
        stage.tables(on=False)
        stage.roll_all(stage.previous)
        time.sleep(timing.settle)

    def upgrade() -> None:
        stage.roll_all(stage.current)
        stage.tables(on=True)
        time.sleep(timing.settle)

    return [
        ("1-steady", "steady load", steady),
        ("2-kill", f"kill -9 of {REPLICAS[0]}, started again", kill),
        (
            "3-rolling-restart",
            "each replica out of HAProxy, SIGTERM, started, back",
            rolling_restart,
        ),
        (
            "4-partition",
            f"{REPLICAS[1]}'s link down for {timing.partition:g} s, then up",
            partition,
        ),
        ("5a-store-restart", "the store stopped (SIGTERM) and started on its AOF", store_restart),
        ("5b-store-pause", f"the store paused (SIGSTOP) for {timing.pause:g} s", store_pause),
        (
            "6-key-rotation",
            "key-b added everywhere, made current, key-a removed once its games ended",
            key_rotation,
        ),
        ("7a-rollback", "each replica replaced by release 0.1.0 in turn", downgrade),
        ("7b-upgrade", "each replica replaced by this release in turn", upgrade),
    ]


def rehearse(arguments: argparse.Namespace) -> int:
    """Run the phases; write the report; 0 when every figure met its target."""
    out = Path(arguments.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    timing = SHORT if arguments.short else FULL
    stage = Stage(out, timing, unfenced=arguments.unfenced)
    atexit.register(stage.close)
    signal.signal(signal.SIGTERM, stop_on_signal)
    done: list[tuple[str, str, float]] = []
    print(f"hosts: namespaces {stage.network.tag}-*", flush=True)
    try:
        stage.open()
        chosen = phases(stage)
        if arguments.phases:
            chosen = [phase for phase in chosen if phase[0].split("-")[0] in arguments.phases]
        for name, what, act in chosen:
            print(f"phase {name}: {what}", flush=True)
            stage.order(f"phase {name}")
            stage.order("probe")
            started = time.monotonic()
            act()
            done.append((name, what, time.monotonic() - started))
        drivers, audit = stage.finish()
    finally:
        stage.close()
    report.write_counts(out, drivers, audit)
    reports = report.build(done, drivers, audit)
    setting = {
        "replicas": len(REPLICAS),
        "mode": "short" if arguments.short else "full",
        "unfenced replica": arguments.unfenced or "none",
    }
    report.write(reports, out, setting)
    print((out / "report.md").read_text())
    missed = report.misses(reports)
    for line in missed:
        print(line, file=sys.stderr)
    return 1 if missed else 0


def stop_on_signal(signum: int, frame: FrameType | None) -> None:
    """SIGTERM ends the run as an error would: the stage is torn down on the way out."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the arguments and rehearse."""
    parser = argparse.ArgumentParser(prog="python -m bench.rehearsal", description=__doc__)
    parser.add_argument("--short", action="store_true", help="every phase, briefly")
    parser.add_argument("--out", default=str(ROOT / "test-artifacts" / "rehearsal"))
    parser.add_argument(
        "--phases", nargs="*", default=[], help="run only these phases (1 2 3 4 5a 5b 6 7a 7b)"
    )
    parser.add_argument(
        "--unfenced", default="", help="run this replica without the revision fence (a check)"
    )
    sys.exit(rehearse(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
