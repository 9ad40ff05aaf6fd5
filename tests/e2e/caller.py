"""A load of callers through the Python client with its default settings, for the end-to-end
tests: ``python tests/e2e/caller.py --target T --callers 16 --prefix P``.

Each caller loops on its own client: NewGame (6 nimmt!, four seats), then ApplyAction (the
first seat to act plays its lowest card). Every call is sent with the request id
``<prefix>-<caller>-<number>``, so that the servers' access logs account for it. The callers run
until standard input ends (the test closes it), then the command prints one JSON object:
``calls`` (made), ``failed`` (calls that raised), ``failures`` (the first few, as text) and
``answered``, a list of ``[request_id, unix_time_sent]`` of every call answered. Another client
gives the same command line and output to be tested the same way.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from ordo import Client, OrdoError
from ordo.v1 import common_pb2 as common
from ordo.v1 import six_nimmt_pb2 as six_nimmt

GAME = "six_nimmt"
SEATS = 4
HAND_SIZE = 10  # cards per hand: a seat's cards follow the seats before it in hand_cards
FAILURES_SHOWN = 10
LOAD_BALANCING = [("grpc.lb_policy_name", "round_robin")]


class Tally:
    """What every caller did, under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls = 0
        self.failures: list[str] = []
        self.answered: list[tuple[str, float]] = []

    def call(self, request_id: str, send: Any) -> Any:
        """Make one call with ``request_id``; its response, or None when it failed."""
        sent = time.time()
        try:
            response = send(request_id)
        except OrdoError as error:
            with self.lock:
                self.calls += 1
                self.failures.append(f"{request_id}: {error}")
            return None
        with self.lock:
            self.calls += 1
            self.answered.append((request_id, sent))
        return response


def caller(target: str, name: str, tally: Tally, stop: threading.Event) -> None:
    """Loop NewGame and ApplyAction until ``stop``."""
    with Client(target, channel_options=LOAD_BALANCING) as ordo:
        number = 0
        while not stop.is_set():
            number += 1
            new = tally.call(
                f"{name}-{number}",
                lambda rid, n=number: ordo.new_game(GAME, SEATS, n, request_id=rid),
            )
            if new is None:
                continue
            seat = new.status.seats_to_act[0]
            action = common.Action(
                seat=seat,
                six_nimmt=six_nimmt.SixNimmtAction(
                    select_card=new.state.six_nimmt.hand_cards[seat * HAND_SIZE]
                ),
            )
            number += 1
            tally.call(
                f"{name}-{number}",
                lambda rid, state=new.state, move=action: ordo.apply_action(
                    state, move, request_id=rid
                ),
            )


def main(argv: Sequence[str] | None = None) -> None:
    """Run the callers until standard input ends; print what they saw as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--callers", type=int, default=16)
    parser.add_argument("--prefix", default="call")
    args = parser.parse_args(argv)
    tally, stop = Tally(), threading.Event()
    threads = [
        threading.Thread(target=caller, args=(args.target, f"{args.prefix}-{index}", tally, stop))
        for index in range(args.callers)
    ]
    for thread in threads:
        thread.start()
    print(json.dumps({"started": args.callers}), flush=True)
    sys.stdin.read()
    stop.set()
    for thread in threads:
        thread.join()
    result = {
        "calls": tally.calls,
        "failed": len(tally.failures),
        "failures": tally.failures[:FAILURES_SHOWN],
        "answered": tally.answered,
    }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
