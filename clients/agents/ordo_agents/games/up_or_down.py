"""Up or Down?: the observation of a seat's view, the action encoding, the wire translation.

One action is one whole turn, its four parts in one index (``Discrete(126)``):
``((slot × 2 + take) × 7 + place) × 3 + draw``, where

- ``slot`` (0..2) is the played card's place in the seat's hand, lowest first;
- ``take`` is 0 for the lower neighbour, 1 for the higher;
- ``place`` is 0..2 to extend that row, 3 to start a new row (the next index), 4..6 to abandon
  row ``place - 4`` and restart it with the taken card;
- ``draw`` is 0 for the face-up pile, 1 for the face-down pile, 2 for no draw (both empty).

Observation parts (colours are 1..6 in the order yellow, blue, red, green, purple, orange, 0 for
no card; per-seat values start with the observing seat):

- ``hand``, ``hand_colours`` (3 each): the seat's cards, lowest first, 0 after the last;
- ``circle``, ``circle_colours`` (6 each): the circle, ascending;
- ``rows`` (seats × 3 × 9): each seat's rows, each as its length, its last card, its direction
  (0 not fixed yet, 1 rising, 2 falling) and its count of each colour; zeros for no row;
- ``hand_sizes``, ``discard_sizes``, ``abandoned``, ``scores`` (seats each): the score is what
  the seat would score if the game ended now;
- ``face_down_size``, ``face_up_size``, ``face_up_top``, ``face_up_top_colour`` (1 each).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from gymnasium import spaces

from engines.up_or_down import rules
from engines.up_or_down.data import BLOCK, COLOUR_INDEX, HIGHEST_CARD, Colour
from engines.up_or_down.rules import Draw, Neighbour, Placement, Turn, View
from ordo.v1 import up_or_down_pb2 as pb
from ordo_agents.games.base import (
    MASK_TYPE,
    GameEncoding,
    Observation,
    box,
    enum_from_wire,
    enum_to_wire,
    options_from_wire,
    rotated,
)

TAKES = (Neighbour.LOWER, Neighbour.HIGHER)
DRAWS = (Draw.FACE_UP, Draw.FACE_DOWN, Draw.NONE)
PLACES = rules.MAX_ROWS * 2 + 1  # extend a row, start a new one, abandon a row
NEW_ROW_PLACE = rules.MAX_ROWS
FIRST_ABANDON_PLACE = NEW_ROW_PLACE + 1
ROW_FEATURES = 3 + BLOCK  # length, last card, direction, a count per colour
RISING, FALLING = 1, 2
MOST_SCORE = 2**15 - 1
DISPLAYS_KEPT = 1024  # display features kept: a game has a display per seat at a time
_COLOUR_FIELD = pb.UpOrDownView.DESCRIPTOR.fields_by_name["card_colours"]


def _offset(turn: Turn) -> int:
    """A turn's index less its hand slot's part: its take, placement and draw."""
    take = 0 if turn.take is Neighbour.LOWER else 1
    if turn.placement is Placement.EXTEND:
        place = turn.row
    elif turn.placement is Placement.NEW_ROW:
        place = NEW_ROW_PLACE
    else:
        place = FIRST_ABANDON_PLACE + turn.row
    return (take * PLACES + place) * len(DRAWS) + DRAWS.index(turn.draw)


SLOT_STRIDE = len(TAKES) * PLACES * len(DRAWS)  # the indices of one hand slot's turns
#: The offset of every turn the engine lists legal turns from (its tables of shared turns), by
#: identity: those turns live as long as the engine, so an identity found here is one of them.
OFFSETS_BY_ID: dict[int, int] = {
    id(turn): _offset(turn)
    for table in (rules.EXTENDS, rules.TAILS)
    for by_card in table
    for by_take in by_card
    for by_rows in by_take
    for turns in by_rows
    for turn in turns
}


#: Each card's colour, 1..6, by number (0 for no card).
COLOURS: tuple[int, ...] = (0, *(index + 1 for index in COLOUR_INDEX[1:]))
EMPTY_HAND = (0,) * rules.HAND_SIZE
NO_ROW = [0] * ROW_FEATURES


def row_features(row: tuple[int, ...]) -> list[int]:
    """A row's length, last card, direction and colour counts."""
    direction = 0 if len(row) < 2 else RISING if row[1] > row[0] else FALLING
    return [len(row), row[-1], direction, *rules.colour_counts(row)]


@lru_cache(maxsize=DISPLAYS_KEPT)
def display_features(display: rules.Display) -> tuple[int, ...]:
    """The features of a display's rows, zeros for the rows it lacks: a part of every
    observation while the display stands (most turns change one seat's), so made once."""
    features: list[int] = []
    for row in display:
        features += row_features(row)
    return (*features, *NO_ROW * (rules.MAX_ROWS - len(display)))


class UpOrDownEncoding(GameEncoding[View, Turn]):
    """Up or Down?'s encoding."""

    game_id = rules.GAME_ID
    action_count = rules.HAND_SIZE * len(TAKES) * PLACES * len(DRAWS)
    lower_is_better = False

    def fields(self, seats: int, options: Any) -> dict[str, spaces.Box]:
        return {
            "hand": box(0, HIGHEST_CARD, rules.HAND_SIZE),
            "hand_colours": box(0, BLOCK, rules.HAND_SIZE),
            "circle": box(0, HIGHEST_CARD, rules.CIRCLE_SIZE),
            "circle_colours": box(0, BLOCK, rules.CIRCLE_SIZE),
            "rows": box(0, HIGHEST_CARD, seats, rules.MAX_ROWS, ROW_FEATURES),
            "hand_sizes": box(0, rules.HAND_SIZE, seats),
            "discard_sizes": box(0, HIGHEST_CARD, seats),
            "abandoned": box(0, HIGHEST_CARD, seats),
            "scores": box(0, MOST_SCORE, seats),
            "face_down_size": box(0, HIGHEST_CARD, 1),
            "face_up_size": box(0, HIGHEST_CARD, 1),
            "face_up_top": box(0, HIGHEST_CARD, 1),
            "face_up_top_colour": box(0, BLOCK, 1),
        }

    def observe(self, view: View, seat: int) -> Observation:
        layout = self.layout(len(view.hand_sizes), view.options)
        hand = [*view.hand, *EMPTY_HAND[len(view.hand) :]]
        dense = hand + [COLOURS[card] for card in hand]
        dense += view.circle
        dense += [COLOURS[card] for card in view.circle]
        for display in rotated(view.displays, seat):
            dense += display_features(display)
        dense += rotated(view.hand_sizes, seat)
        dense += rotated(view.discard_sizes, seat)
        dense += rotated(view.abandoned, seat)
        dense += rotated(view.scores, seat)
        top = view.face_up_top
        dense += (view.face_down_size, view.face_up_size, top, COLOURS[top])
        return layout.observation(dense, ())

    def action_index(self, action: Turn, view: View) -> int:
        return view.hand.index(action.card) * SLOT_STRIDE + _offset(action)

    def mask(self, actions: Sequence[Turn], view: View) -> np.ndarray:
        # A turn of a few dozen a step: the engine's shared turns are looked up by identity.
        slots = {card: slot * SLOT_STRIDE for slot, card in enumerate(view.hand)}
        by_id = OFFSETS_BY_ID
        try:
            indices = [slots[turn.card] + by_id[id(turn)] for turn in actions]
        except KeyError:  # a turn made elsewhere (decoded from the wire): by its parts
            indices = [slots[turn.card] + _offset(turn) for turn in actions]
        mask = np.zeros(self.action_count, MASK_TYPE)
        mask[indices] = 1
        return mask

    def action_of(self, index: int, view: View, seat: int) -> Turn:
        rest, draw = divmod(index, len(DRAWS))
        rest, place = divmod(rest, PLACES)
        slot, take = divmod(rest, len(TAKES))
        if not 0 <= index < self.action_count or slot >= len(view.hand):
            raise ValueError(f"no Up or Down? action has index {index} with this hand")
        if place < NEW_ROW_PLACE:
            placement, row = Placement.EXTEND, place
        elif place == NEW_ROW_PLACE:
            placement, row = Placement.NEW_ROW, len(view.displays[seat])
        else:
            placement, row = Placement.ABANDON, place - FIRST_ABANDON_PLACE
        return Turn(view.hand[slot], TAKES[take], placement, row, DRAWS[draw])

    def running_scores(self, view: View) -> tuple[int, ...]:
        return view.scores

    def view_from_wire(self, msg: pb.UpOrDownView) -> View:
        return View(
            options=options_from_wire(msg.options, rules.Options),
            circle=tuple(msg.circle),
            hand=tuple(msg.hand),
            hand_sizes=tuple(msg.hand_sizes),
            displays=tuple(
                tuple(tuple(row.cards) for row in display.rows) for display in msg.displays
            ),
            discard_sizes=tuple(msg.discard_sizes),
            abandoned=tuple(msg.abandoned_rows),
            face_down_size=msg.face_down_size,
            face_up_size=msg.face_up_size,
            face_up_top=msg.face_up_top,
            card_colours=tuple(
                enum_from_wire(_COLOUR_FIELD, number, Colour) for number in msg.card_colours
            ),
            scores=tuple(msg.scores),
        )

    def action_to_wire(self, action: Turn) -> pb.UpOrDownAction:
        return pb.UpOrDownAction(
            card=action.card,
            take=enum_to_wire(pb.UpOrDownNeighbour, action.take),
            placement=enum_to_wire(pb.UpOrDownPlacement, action.placement),
            row=action.row,
            draw=enum_to_wire(pb.UpOrDownDraw, action.draw),
        )

    def action_from_wire(self, msg: pb.UpOrDownAction) -> Turn:
        fields = pb.UpOrDownAction.DESCRIPTOR.fields_by_name
        return Turn(
            card=msg.card,
            take=enum_from_wire(fields["take"], msg.take, Neighbour),
            placement=enum_from_wire(fields["placement"], msg.placement, Placement),
            row=msg.row,
            draw=enum_from_wire(fields["draw"], msg.draw, Draw),
        )


ENCODING = UpOrDownEncoding()
