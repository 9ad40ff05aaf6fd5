"""Sequence Numbers: the observation of a seat's view, the action encoding, the wire translation.

Cards are the engine's ids (0..95 the equation cards in result order, 96 and 97 PLUS, 98 and 99
MINUS); cells are ``row × 10 + column``; the fives are the board's 192 lines of five in scan
order (``engines.sequence_numbers.rules.WINDOWS``). Actions (``Discrete(980)``), each step of a
turn one action:

- ``card`` (0..95): exchange that dead equation card (step 1);
- ``96 + card`` (96..195): discard that card, when no card in hand can be played;
- ``196 + 2 × card + k`` (196..387): play equation card ``card`` on the ``k``-th (0 or 1, in
  cell order) of the two cells showing its result;
- ``388 + 100 × j + cell`` (388..787): play the ``j``-th special card (96, 97, 98, 99) on
  ``cell``: a PLUS card places a chip there, a MINUS card removes the chip there;
- ``788 + five`` (788..979): after a play that completed fives excluding one another, lock that
  five.

Observation parts (teams are counted from the observing seat's: 1 is its own team, 2 the next
team in seat order, 3 the one after; per-seat values start with the observing seat):

- ``chips`` (100): 0 for an empty cell (and the corners), else the team of the chip on it;
- ``locked`` (100 flags): cells in a completed sequence;
- ``sequences`` (teams): each team's completed sequences;
- ``hand`` (100 flags): the seat's cards;
- ``discarded`` (100 flags): the cards in the discard piles;
- ``choice`` (192 flags): the fives on offer while a choice of five is pending;
- ``hand_sizes`` (seats), ``deck_size`` (1), ``turn`` (1: turns completed), ``exchanged``
  (1: the seat to act exchanged a dead card this turn), ``sequences_to_win`` (1).
"""

from __future__ import annotations

from collections import abc
from typing import Any

import numpy as np
from gymnasium import spaces

from engines.sequence_numbers import rules
from engines.sequence_numbers.rules import (
    CARD_CELLS,
    CELLS,
    DECK_SIZE,
    EQUATION_COUNT,
    MINUS_CARDS,
    PLUS_CARDS,
    WINDOWS,
    Action,
    ChooseSequence,
    Discard,
    Exchange,
    Play,
    Sequence,
    SequenceChoice,
    View,
    turn,
)
from ordo.v1 import sequence_numbers_pb2 as pb
from ordo_agents.games.base import (
    MASK_TYPE,
    GameEncoding,
    Observation,
    box,
    flags,
    index_table,
    rotated,
)
from ordo_agents.games.base import options_from_wire as wire_options

SPECIALS: tuple[int, ...] = (*PLUS_CARDS, *MINUS_CARDS)
FIRST_DISCARD = EQUATION_COUNT
FIRST_EQUATION_PLAY = FIRST_DISCARD + DECK_SIZE
FIRST_SPECIAL_PLAY = FIRST_EQUATION_PLAY + 2 * EQUATION_COUNT
FIRST_CHOICE = FIRST_SPECIAL_PLAY + len(SPECIALS) * CELLS
ACTION_COUNT = FIRST_CHOICE + len(WINDOWS)
MOST_SEQUENCES = 2 * rules.TURN_LIMIT  # more than any team can complete
WINDOW_INDEX: dict[tuple[int, ...], int] = {window: index for index, window in enumerate(WINDOWS)}


def _actions() -> tuple[Action | None, ...]:
    """Every action by index; None where a special card would be played on a corner."""
    actions: list[Action | None] = [Exchange(card) for card in range(EQUATION_COUNT)]
    actions += [Discard(card) for card in range(DECK_SIZE)]
    actions += [Play(card, cell) for card in range(EQUATION_COUNT) for cell in CARD_CELLS[card]]
    actions += [
        None if rules.IS_CORNER[cell] else Play(card, cell)
        for card in SPECIALS
        for cell in range(CELLS)
    ]
    actions += [ChooseSequence(window) for window in WINDOWS]
    assert len(actions) == ACTION_COUNT
    return tuple(actions)


ACTIONS = _actions()
INDEX = index_table({action: index for index, action in enumerate(ACTIONS) if action is not None})
#: The index of every action the engine lists legal actions from (its shared actions), by
#: identity: they live as long as the engine, so an identity found here is one of them.
INDEX_BY_ID: dict[int, int] = {
    id(action): INDEX[action]
    for action in (
        *turn.EXCHANGES[:EQUATION_COUNT],
        *turn.DISCARDS,
        *(play for plays in turn.EQUATION_PLAYS for play in plays),
        *(play for plays in turn.SPECIAL_PLAYS.values() for play in plays if play is not None),
    )
}


class SequenceNumbersEncoding(GameEncoding[View, Action]):
    """Sequence Numbers' encoding."""

    game_id = rules.GAME_ID
    action_count = ACTION_COUNT
    lower_is_better = False

    sparse = ("locked", "hand", "discarded", "choice")

    def fields(self, seats: int, options: Any) -> dict[str, spaces.Box]:
        teams = rules.resolve_teams(seats, options)
        return {
            "chips": box(0, teams, CELLS),
            "sequences": box(0, MOST_SEQUENCES, teams),
            "hand_sizes": box(0, rules.HAND_SIZE_INDIVIDUAL, seats),
            "deck_size": box(0, DECK_SIZE, 1),
            "turn": box(0, rules.TURN_LIMIT, 1),
            "exchanged": flags(1),
            "sequences_to_win": box(0, rules.SEQUENCES_TEAMS, 1),
            "locked": flags(CELLS),
            "hand": flags(DECK_SIZE),
            "discarded": flags(DECK_SIZE),
            "choice": flags(len(WINDOWS)),
        }

    def observe(self, view: View, seat: int) -> Observation:
        seats = len(view.hand_sizes)
        teams = view.options.teams
        layout = self.layout(seats, view.options)
        team = seat % teams
        # Team t's chips read 1 + (t - team) mod teams, so the seat's own read 1; an empty cell
        # holds NO_CHIP, -1, which reads the table's last entry: 0.
        relative = [*(1 + (other - team) % teams for other in range(teams)), 0]
        dense = [relative[chip] for chip in view.chips]
        dense += rotated(rules.sequence_counts(view.sequences, teams), team)
        dense += rotated(view.hand_sizes, seat)
        dense += (view.deck_size, view.turn, view.exchanged, view.sequences_to_win)
        start = layout.start
        at = start["locked"]
        ones = [at + cell for sequence in view.sequences for cell in sequence.cells]
        at = start["hand"]
        ones += [at + card for card in view.hand]
        at = start["discarded"]
        ones += [at + card for pile in view.discards for card in pile]
        if view.choice is not None:
            at = start["choice"]
            ones += [at + WINDOW_INDEX[cells] for cells in view.choice.choices]
        return layout.observation(dense, ones)

    def action_index(self, action: Action, view: View) -> int:
        if isinstance(action, ChooseSequence):
            return FIRST_CHOICE + WINDOW_INDEX[action.cells]
        return INDEX[action]

    def mask(self, actions: abc.Sequence[Action], view: View) -> np.ndarray:
        # Up to a hundred legal actions a step: the engine's shared ones are found by identity.
        by_id = INDEX_BY_ID
        try:
            indices = [by_id[id(action)] for action in actions]
        except KeyError:  # a choice of five, or an action decoded from the wire: by value
            indices = [self.action_index(action, view) for action in actions]
        mask = np.zeros(ACTION_COUNT, MASK_TYPE)
        mask[indices] = 1
        return mask

    def action_of(self, index: int, view: View, seat: int) -> Action:
        action = ACTIONS[index] if 0 <= index < ACTION_COUNT else None
        if action is None:
            raise ValueError(f"no Sequence Numbers action has index {index}")
        return action

    def running_scores(self, view: View) -> tuple[int, ...]:
        teams = view.options.teams
        counts = rules.sequence_counts(view.sequences, teams)
        return tuple(counts[seat % teams] for seat in range(len(view.hand_sizes)))

    def view_from_wire(self, msg: pb.SequenceNumbersView) -> View:
        choice = None
        if msg.HasField("sequence_choice"):
            wire = msg.sequence_choice
            choice = SequenceChoice(
                wire.seat, wire.team, wire.cell, tuple(tuple(five.cells) for five in wire.choices)
            )
        return View(
            options=wire_options(msg.options, rules.Options),
            numbers=tuple(msg.numbers),
            chips=tuple(msg.chips),
            sequences=tuple(Sequence(wire.team, tuple(wire.cells)) for wire in msg.sequences),
            hand=tuple(card.id for card in msg.hand),
            hand_sizes=tuple(msg.hand_sizes),
            discards=tuple(tuple(pile.cards) for pile in msg.discards),
            deck_size=msg.deck_size,
            turn=msg.turn,
            exchanged=msg.exchanged,
            sequences_to_win=msg.sequences_to_win,
            choice=choice,
        )

    def action_to_wire(self, action: Action) -> pb.SequenceNumbersAction:
        if isinstance(action, Play):
            return pb.SequenceNumbersAction(
                play=pb.SequenceNumbersPlay(card=action.card, cell=action.cell)
            )
        if isinstance(action, Exchange):
            return pb.SequenceNumbersAction(exchange_dead_card=action.card)
        if isinstance(action, Discard):
            return pb.SequenceNumbersAction(discard=action.card)
        return pb.SequenceNumbersAction(
            choose_sequence=pb.SequenceNumbersChooseSequence(cells=action.cells)
        )

    def action_from_wire(self, msg: pb.SequenceNumbersAction) -> Action:
        move = msg.WhichOneof("move")
        if move == "play":
            return Play(msg.play.card, msg.play.cell)
        if move == "exchange_dead_card":
            return Exchange(msg.exchange_dead_card)
        if move == "discard":
            return Discard(msg.discard)
        return ChooseSequence(tuple(msg.choose_sequence.cells))


ENCODING = SequenceNumbersEncoding()
