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

from functools import lru_cache
from typing import Any

from gymnasium import spaces

from engines.six_nimmt import rules
from engines.six_nimmt.data import BULLHEADS, HIGHEST_CARD, ZERO_CARD
from engines.six_nimmt.rules import CHOOSE_ROWS, SELECTS, ChooseRow, Select, View
from ordo.v1 import six_nimmt_pb2 as pb
from ordo_agents.games.base import (
    GameEncoding,
    Observation,
    box,
    flags,
    options_from_wire,
    rotated,
)

CARDS = HIGHEST_CARD + 1  # card numbers 0..104, 0 the zero card
FIRST_ROW_ACTION = CARDS
ROW_ACTIONS = rules.ROW_COUNT
MOST_PENALTY = 2**15 - 1  # above any total: 100 hands of every bullhead are 17,100
MOST_HANDS = 2**15 - 1  # above any hand number: 10 seats to a threshold of 1,000 take 9,991
EMPTY_ROW = (0,) * rules.ROW_LIMIT
ROWS_KEPT = 1024  # row bullheads kept: a row stands for several turns, seen by every seat
row_bullheads = lru_cache(maxsize=ROWS_KEPT)(rules.row_bullheads)
Action = Select | ChooseRow


class SixNimmtEncoding(GameEncoding[View, Action]):
    """6 nimmt!'s encoding."""

    game_id = rules.GAME_ID
    action_count = CARDS + ROW_ACTIONS
    lower_is_better = True

    sparse = ("hand", "taken")

    def fields(self, seats: int, options: Any) -> dict[str, spaces.Box]:
        return {
            "rows": box(0, HIGHEST_CARD, rules.ROW_COUNT, rules.ROW_LIMIT),
            "row_bullheads": box(0, rules.ROW_LIMIT * max(BULLHEADS), rules.ROW_COUNT),
            "selected": flags(seats),
            "revealed": box(rules.NO_SELECTION, HIGHEST_CARD, seats),
            "own_selection": box(rules.NO_SELECTION, HIGHEST_CARD, 1),
            "penalties": box(0, MOST_PENALTY, seats),
            "zero_card_available": flags(seats),
            "hand_sizes": box(0, rules.HAND_SIZE + 1, seats),
            "turn": box(0, rules.HAND_SIZE, 1),
            "hand_number": box(0, MOST_HANDS, 1),
            "hand": flags(CARDS),
            "taken": flags(seats, CARDS),
        }

    def observe(self, view: View, seat: int) -> Observation:
        seats = len(view.penalties)
        layout = self.layout(seats, view.options)
        dense: list[int] = []
        for row in view.rows:
            dense += row
            dense += EMPTY_ROW[len(row) :]
        dense += map(row_bullheads, view.rows)
        dense += rotated(view.selected, seat)
        dense += rotated(view.revealed, seat)
        dense.append(view.own_selection)
        dense += rotated(view.penalties, seat)
        dense += rotated(view.zero_card_available, seat)
        dense += rotated(view.hand_sizes, seat)
        dense += (view.turn, view.hand_number)
        at = layout.start["hand"]
        ones = [at + card for card in view.hand]
        if view.zero_card_available[seat] and view.own_selection != ZERO_CARD:
            ones.append(at + ZERO_CARD)
        at = layout.start["taken"]
        for cards in rotated(view.taken, seat):
            ones += [at + card for card in cards]
            at += CARDS
        return layout.observation(dense, ones)

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
