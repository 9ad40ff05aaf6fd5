"""6 nimmt!: the observation of a seat's view, the action encoding, the wire translation.

Actions (``Discrete(109)``): ``card`` (0..104) selects that card, 0 being the zero card;
``105 + row`` (105..108) takes that row under Rule 4.

Observation parts (per-seat values start with the observing seat, then the seats after it):

- ``hand`` (105 flags): the cards in the seat's hand, by number; flag 0 is its zero card while
  it holds it;
- ``rows`` (4 × 5): each row's cards in the order laid, 0 after its last;
- ``row_bullheads`` (4): each row's bullheads;
- ``selected`` (seats): whether each seat has selected this turn;
- ``revealed`` (seats): each seat's revealed card while a turn is being placed (a Rule 4 choice
  pending), -1 otherwise;
- ``own_selection`` (1): the card the seat selected this turn, -1 before;
- ``penalties`` (seats): each seat's bullheads over the game;
- ``taken`` (seats × 105 flags): the cards each seat took this hand;
- ``zero_card_available`` (seats): whether each seat still has its zero card;
- ``hand_sizes`` (seats), ``turn`` (1: turns completed in this hand), ``hand_number`` (1).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from engines.six_nimmt import rules
from engines.six_nimmt.data import BULLHEADS, HIGHEST_CARD, ZERO_CARD
from engines.six_nimmt.rules import CHOOSE_ROWS, SELECTS, ChooseRow, Select, View
from ordo.v1 import six_nimmt_pb2 as pb
from ordo_agents.games.base import (
    GameEncoding,
    Int8,
    Int16,
    Int32,
    Observation,
    box,
    flags,
    one_hot,
    options_from_wire,
    rotated,
)

CARDS = HIGHEST_CARD + 1  # card numbers 0..104, 0 the zero card
FIRST_ROW_ACTION = CARDS
ROW_ACTIONS = rules.ROW_COUNT
MOST_PENALTY = 2**15 - 1  # above any total: 100 hands of every bullhead are 17,100
MOST_HANDS = 2**31 - 1
Action = Select | ChooseRow


class SixNimmtEncoding(GameEncoding[View, Action]):
    """6 nimmt!'s encoding."""

    game_id = rules.GAME_ID
    action_count = CARDS + ROW_ACTIONS
    lower_is_better = True

    def fields(self, seats: int, options: Any) -> dict[str, spaces.Box]:
        return {
            "hand": flags(CARDS),
            "rows": box(0, HIGHEST_CARD, (rules.ROW_COUNT, rules.ROW_LIMIT), Int16),
            "row_bullheads": box(0, rules.ROW_LIMIT * max(BULLHEADS), (rules.ROW_COUNT,), Int16),
            "selected": flags(seats),
            "revealed": box(rules.NO_SELECTION, HIGHEST_CARD, (seats,), Int16),
            "own_selection": box(rules.NO_SELECTION, HIGHEST_CARD, (1,), Int16),
            "penalties": box(0, MOST_PENALTY, (seats,), Int16),
            "taken": flags(seats, CARDS),
            "zero_card_available": flags(seats),
            "hand_sizes": box(0, rules.HAND_SIZE + 1, (seats,), Int8),
            "turn": box(0, rules.HAND_SIZE, (1,), Int8),
            "hand_number": box(0, MOST_HANDS, (1,), Int32),
        }

    def observe(self, view: View, seat: int) -> Observation:
        seats = len(view.penalties)
        hand = one_hot(CARDS, view.hand)
        if view.zero_card_available[seat] and view.own_selection != ZERO_CARD:
            hand[ZERO_CARD] = 1
        rows = np.zeros((rules.ROW_COUNT, rules.ROW_LIMIT), Int16)
        for index, row in enumerate(view.rows):
            rows[index, : len(row)] = row
        taken = np.zeros((seats, CARDS), Int8)
        for index, cards in enumerate(rotated(view.taken, seat)):
            taken[index, list(cards)] = 1
        return {
            "hand": hand,
            "rows": rows,
            "row_bullheads": np.array([rules.row_bullheads(row) for row in view.rows], Int16),
            "selected": np.array(rotated(view.selected, seat), Int8),
            "revealed": np.array(rotated(view.revealed, seat), Int16),
            "own_selection": np.array((view.own_selection,), Int16),
            "penalties": np.array(rotated(view.penalties, seat), Int16),
            "taken": taken,
            "zero_card_available": np.array(rotated(view.zero_card_available, seat), Int8),
            "hand_sizes": np.array(rotated(view.hand_sizes, seat), Int8),
            "turn": np.array((view.turn,), Int8),
            "hand_number": np.array((view.hand_number,), Int32),
        }

    def action_index(self, action: Action, view: View) -> int:
        if isinstance(action, Select):
            return action.card
        return FIRST_ROW_ACTION + action.row

    def action_of(self, index: int, view: View, seat: int) -> Action:
        if 0 <= index < CARDS:
            return SELECTS[index]
        if FIRST_ROW_ACTION <= index < self.action_count:
            return CHOOSE_ROWS[index - FIRST_ROW_ACTION]
        raise ValueError(f"no 6 nimmt! action has index {index}")

    def running_scores(self, view: View) -> tuple[int, ...]:
        return view.penalties

    def view_from_wire(self, msg: pb.SixNimmtView) -> View:
        return View(
            options=options_from_wire(msg.options, rules.Options),
            rows=tuple(tuple(row.cards) for row in msg.rows),
            hand=tuple(msg.hand),
            selected=tuple(msg.selected),
            revealed=tuple(msg.revealed),
            own_selection=msg.own_selection,
            penalties=tuple(msg.penalties),
            taken=tuple(tuple(cards.cards) for cards in msg.taken),
            zero_card_available=tuple(msg.zero_card_available),
            hand_number=msg.hand_number,
            turn=msg.turn,
            hand_sizes=tuple(msg.hand_sizes),
        )

    def action_to_wire(self, action: Action) -> pb.SixNimmtAction:
        if isinstance(action, Select):
            return pb.SixNimmtAction(select_card=action.card)
        return pb.SixNimmtAction(choose_row=action.row)

    def action_from_wire(self, msg: pb.SixNimmtAction) -> Action:
        if msg.WhichOneof("move") == "select_card":
            return SELECTS[msg.select_card]
        return CHOOSE_ROWS[msg.choose_row]


ENCODING = SixNimmtEncoding()
