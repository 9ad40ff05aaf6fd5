"""``ordo replay FILE``: watch a saved game again, step by step, in a terminal.

The server plays the record through (``ReplayGame``, checking every digest) and sends what one
viewer saw after each move: a seat (``--seat N``; by default the seat of whoever saved it), a
spectator (the default for a record that names no seat) or, once the game is over, every seat
at once (``--reveal``). Each step shows the move's events and the table; a key
moves forward, back, to the first or the last step, to a step by number, or runs to the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from ordo.client import Client
from ordo.notation import seat_text
from ordo.records import replay_steps
from ordo.render import Renderer
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api

__all__ = ["HELP", "Replay", "record_game_id", "watch"]

RULE = "-" * 72  # above each step
HELP = """\
  Enter, n   next step          b, p   previous step
  f          first step         l      last step
  e          run to the end     N      step number N
  q          quit               ?      this text"""


def record_game_id(record: api.GameRecord) -> str:
    """The game of a record: its initial state's game field, or its sealed state's game id."""
    state = record.initial_state
    return state.WhichOneof("game") or state.game_id


@dataclass
class Replay:
    """A record's steps as one viewer saw them, and where the watcher is."""

    steps: Sequence[api.ReplayStep]
    render: Renderer
    viewer: str  # "seat N", "a spectator" or "every seat"
    at: int = 0

    def show(self, out: TextIO) -> None:
        """Print the current step: who moved, the events, the table."""
        step = self.steps[self.at]
        last = len(self.steps) - 1
        print(RULE, file=out)
        if step.step == 0:
            print(f"Step 0 of {last}: the deal, as {self.viewer} sees it", file=out)
        else:
            print(f"Step {step.step} of {last}: {seat_text(step.seat)} moved", file=out)
            for line in self.render.render_events(step.events):
                print(f"  {line}", file=out)
        if step.seat_views:
            for seat, view in enumerate(step.seat_views):
                print(f"\n{seat_text(seat).capitalize()}:", file=out)
                print(self.render.render_view(view), file=out)
        else:
            print(self.render.render_view(step.view), file=out)
        if step.view.status.finished:
            outcome = step.view.status.outcome
            scores = ", ".join(
                f"{seat_text(seat)}: {score}" for seat, score in enumerate(outcome.scores)
            )
            winners = ", ".join(map(seat_text, outcome.winners)) or "none (a draw)"
            print(f"\nGame over. Scores: {scores}. Winners: {winners}.", file=out)


def watch(
    client: Client,
    record: api.GameRecord,
    render: Renderer,
    viewer: int | None,
    reveal: bool,
    inp: TextIO,
    out: TextIO,
) -> int:
    """Replay ``record`` for ``viewer`` (a seat, None for a spectator) or every seat
    (``reveal``), stepping as the watcher types; returns the exit code."""
    who: int | common.Viewer | None = None
    if not reveal:
        who = common.Viewer(spectator=True) if viewer is None else viewer
    steps = list(replay_steps(client, record, who, reveal=reveal))
    name = "every seat" if reveal else ("a spectator" if viewer is None else seat_text(viewer))
    replay = Replay(steps, render, name)
    last = len(steps) - 1
    print(f"A game of {last} moves, checked by the server. Type ? for help.", file=out)
    replay.show(out)
    while True:
        out.write("replay> ")
        out.flush()
        line = inp.readline()
        if not line:
            print(file=out)
            return 0
        key = line.strip().lower()
        if key in ("q", "quit"):
            return 0
        if key in ("?", "help"):
            print(HELP, file=out)
            continue
        if key == "e":
            while replay.at < last:
                replay.at += 1
                replay.show(out)
            continue
        target = _target(key, replay.at, last)
        if target is None:
            print(f"No command {key!r}: type ? for help.", file=out)
        elif target == replay.at:
            print(f"Already at step {target}.", file=out)
        else:
            replay.at = target
            replay.show(out)


def _target(key: str, at: int, last: int) -> int | None:
    """The step a key moves to from step ``at``, or None for no known key."""
    moves = {"": at + 1, "n": at + 1, "b": at - 1, "p": at - 1, "f": 0, "l": last}
    if key in moves:
        return max(0, min(last, moves[key]))
    if key.isdigit():
        return max(0, min(last, int(key)))
    return None
