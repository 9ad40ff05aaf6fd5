"""Text renderings of games for people, one module per game id.

A module ``ordo.render.<game_id>`` exposes two functions:

- ``render_view(view: common_pb2.GameView) -> str``: what a viewer sees, on several lines;
- ``render_events(events: Sequence[common_pb2.Event]) -> list[str]``: one line per event worth
  telling (the caller passes only the events its viewer may see);

and may expose a third:

- ``action_steps(action: common_pb2.Action, view: common_pb2.GameView | None) ->
  tuple[Step, ...]``: a move as the choices a person makes one after the other (a card, then
  where it goes…), each with a text and, where one is natural, a short code to type. The view,
  when given, is that of the seat to act, for the names of the cards it holds.

``renderer(game_id)`` finds that module, or falls back to a generic rendering of the game's
messages in compact protobuf text format for a game without one; a module without
``action_steps``, or a move it does not know (one a newer server added), gets the generic
one-step text of the move. A module whose cards print what a player is meant to work out (the
results of Sequence Numbers' equations) says so with ``HIDES_RESULTS = True``: its three
functions then take ``results=False`` to leave them out, which ``renderer(game_id, results=False)``
passes.

Seats, teams, rows, sides, cells and cards are written as ``ordo.notation`` writes them, counted
from 1 as people count them (``seat_text(0)`` is ``seat 1``), the notation of the server's
messages, of the playground and of the rules for players. The numbers on the wire (and in the
protobuf messages) stay 0-based.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from google.protobuf import text_format
from google.protobuf.message import Message

from ordo.notation import seat_text
from ordo.v1 import common_pb2 as common

__all__ = [
    "GENERIC",
    "Renderer",
    "Step",
    "generic_action_steps",
    "generic_events",
    "generic_view",
    "renderer",
    "seat_text",
    "termination_text",
]

STEP_SEPARATOR = ", "  # between the steps of a move written on one line
# Why a game ended (Outcome.termination), for people; an unknown word is written in lower case.
TERMINATIONS = {
    "PENALTY_THRESHOLD": "a seat's penalties reached the threshold",
    "FIXED_HANDS": "every hand of the game was played",
    "SEQUENCES": "a team completed its sequences",
    "TURN_LIMIT": "the turn limit was reached without a winner",
    "ALL_CARDS_PLAYED": "every card was played",
    "ROUNDS_COMPLETED": "every round was played",
}


def termination_text(termination: str) -> str:
    """Why a game ended, in words: ``PENALTY_THRESHOLD`` is "a seat's penalties reached the
    threshold"."""
    return TERMINATIONS.get(termination, termination.replace("_", " ").lower() or "it finished")


@dataclass(frozen=True, slots=True)
class Step:
    """One choice of a move: its text for people, and a short code to type ("" for none)."""

    text: str
    code: str = ""


ActionSteps = Callable[[common.Action, common.GameView | None], tuple[Step, ...]]


def generic_action_steps(action: common.Action, view: common.GameView | None) -> tuple[Step, ...]:
    """A move as one step: the compact text of its game message."""
    game = _game_message(action)
    return (Step("(no game in the action)" if game is None else _compact(game)),)


@dataclass(frozen=True, slots=True)
class Renderer:
    """The rendering functions of one game."""

    render_view: Callable[[common.GameView], str]
    render_events: Callable[[Sequence[common.Event]], list[str]]
    action_steps: ActionSteps = generic_action_steps

    def action_text(self, action: common.Action, view: common.GameView | None = None) -> str:
        """A move on one line for people: its steps one after the other."""
        return STEP_SEPARATOR.join(step.text for step in self.action_steps(action, view))


def _compact(message: Message) -> str:
    return text_format.MessageToString(message, as_one_line=True)


def _game_message(message: common.GameView | common.Event | common.Action) -> Message | None:
    field = message.WhichOneof("game")
    game: Message | None = None if field is None else getattr(message, field)
    return game


def generic_view(view: common.GameView) -> str:
    """A view as the compact text of its game message."""
    game = _game_message(view)
    return "(no game in the view)" if game is None else _compact(game)


def generic_events(events: Sequence[common.Event]) -> list[str]:
    """Each event as the compact text of its game message."""
    return [_compact(game) for event in events if (game := _game_message(event)) is not None]


GENERIC = Renderer(generic_view, generic_events)


def renderer(game_id: str, results: bool = True) -> Renderer:
    """The renderer of ``game_id``: its module in this package, else the generic one. With
    ``results`` False, a module that prints what players work out (``HIDES_RESULTS``) leaves it
    out."""
    if not game_id.isidentifier():
        return GENERIC
    name = f"{__name__}.{game_id}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:  # the module exists but fails to import: let that be seen
            raise
        return GENERIC
    steps = getattr(module, "action_steps", generic_action_steps)
    if not results and getattr(module, "HIDES_RESULTS", False):
        return Renderer(
            partial(module.render_view, results=False),
            partial(module.render_events, results=False),
            partial(module.action_steps, results=False),
        )
    return Renderer(module.render_view, module.render_events, steps)
