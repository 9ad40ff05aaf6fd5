"""Fora de Ordem: the observation of a seat's view, the action encoding, the wire translation.

A seat only ever holds cards of its own deck, so a card is named by its place in the deck
composition (0..18, ``engines.fora_de_ordem.data.DECK``; card id ``seat × 19 + place``).
Actions (``Discrete(95)``): ``place × 5 + side`` plays the seat's card of that place on that
side (item) of the board.

Observation parts (per-seat values start with the observing seat; a card on the board shows as
its place + 1 and its owner + 1, counted from the observing seat, so 1 is its own):

- ``hand`` (19 flags): the seat's cards, by place;
- ``sides`` (5 × 3·seats × 2): each side's stack, bottom first, zeros above its top;
- ``out`` (seats × 19 flags): the cards of each seat's deck that are face up (on a side, in a
  score pile, or discarded);
- ``question`` (1): the question's place in the built-in bank of the game's language, plus 1
  (0 for a custom question): its category and items are public, its ranks never are;
- ``round``, ``rounds_played`` (1 each), ``round_starting_seat`` (1: counted from the seat);
- ``hand_sizes``, ``deck_sizes``, ``bombs`` (seats each).
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from engines.fora_de_ordem import rules
from engines.fora_de_ordem.data import BANK, DECK_SIZE, ITEMS, Colour, Language
from engines.fora_de_ordem.rules import Play, View
from ordo.v1 import fora_de_ordem_pb2 as pb
from ordo_agents.games.base import (
    GameEncoding,
    Observation,
    box,
    enum_from_wire,
    flags,
    options_from_wire,
    rotated,
)

MOST_BOMBS = 2**15 - 1
MOST_QUESTIONS = max(len(questions) for questions in BANK.values())
#: Per language: each built-in question's place in the bank, plus 1, by id.
QUESTION_NUMBERS: dict[Language, dict[str, int]] = {
    language: {question.id: number for number, question in enumerate(questions, start=1)}
    for language, questions in BANK.items()
}


def stack_height(seats: int) -> int:
    """The most cards a side can hold: every card a round plays."""
    return rules.PLAYS_PER_ROUND * seats


_COLOUR_FIELD = pb.ForaDeOrdemView.DESCRIPTOR.fields_by_name["colours"]


class ForaDeOrdemEncoding(GameEncoding[View, Play]):
    """Fora de Ordem's encoding."""

    game_id = rules.GAME_ID
    action_count = DECK_SIZE * ITEMS
    lower_is_better = True

    sparse = ("hand", "out")

    def fields(self, seats: int, options: Any) -> dict[str, spaces.Box]:
        return {
            "question": box(0, MOST_QUESTIONS, 1),
            "round": box(0, rules.MAX_ROUNDS, 1),
            "rounds_played": box(0, rules.MAX_ROUNDS, 1),
            "round_starting_seat": box(0, seats - 1, 1),
            "hand_sizes": box(0, rules.HAND_SIZE, seats),
            "deck_sizes": box(0, DECK_SIZE, seats),
            "bombs": box(0, MOST_BOMBS, seats),
            "sides": box(0, max(DECK_SIZE, seats), ITEMS, stack_height(seats), 2),
            "hand": flags(DECK_SIZE),
            "out": flags(seats, DECK_SIZE),
        }

    def observe(self, view: View, seat: int) -> Observation:
        seats = len(view.hand_sizes)
        layout = self.layout(seats, view.options)
        dense = [
            QUESTION_NUMBERS[view.options.language].get(view.question_id, 0),
            view.round,
            view.rounds_played,
            (view.round_starting_seat - seat) % seats,
        ]
        dense += rotated(view.hand_sizes, seat)
        dense += rotated(view.deck_sizes, seat)
        dense += rotated(view.bombs, seat)
        # A card id is owner × 19 + place: seen from the seat, its owner counts from it.
        own = seat * DECK_SIZE
        all_cards = seats * DECK_SIZE
        empty = [0, 0] * stack_height(seats)
        for stack in view.sides:
            for card in stack:
                owner, place = divmod(card - own, DECK_SIZE)
                dense += (place + 1, owner % seats + 1)
            dense += empty[2 * len(stack) :]
        at = layout.start["hand"]
        ones = [at + card - own for card in view.hand]
        at = layout.start["out"]
        ones += [at + (card - own) % all_cards for stack in view.sides for card in stack]
        ones += [at + (card - own) % all_cards for pile in view.score_piles for card in pile]
        ones += [at + (card - own) % all_cards for card in view.discarded]
        return layout.observation(dense, ones)

    def action_index(self, action: Play, view: View) -> int:
        return (action.card % DECK_SIZE) * ITEMS + action.side

    def action_of(self, index: int, view: View, seat: int) -> Play:
        if not 0 <= index < self.action_count:
            raise ValueError(f"no Fora de Ordem action has index {index}")
        place, side = divmod(index, ITEMS)
        return Play(seat * DECK_SIZE + place, side)

    def running_scores(self, view: View) -> tuple[int, ...]:
        return view.bombs

    def view_from_wire(self, msg: pb.ForaDeOrdemView) -> View:
        return View(
            options=options_from_wire(msg.options, rules.Options),
            round=msg.round,
            rounds_played=msg.rounds_played,
            round_starting_seat=msg.round_starting_seat,
            question_id=msg.question_id,
            category=msg.category,
            items=tuple(msg.items),
            sides=tuple(tuple(card.id for card in side.cards) for side in msg.sides),
            hand=tuple(card.id for card in msg.hand),
            hand_sizes=tuple(msg.hand_sizes),
            deck_sizes=tuple(msg.deck_sizes),
            score_piles=tuple(tuple(card.id for card in pile.cards) for pile in msg.score_piles),
            bombs=tuple(msg.bombs),
            discarded=tuple(card.id for card in msg.discarded),
            colours=tuple(enum_from_wire(_COLOUR_FIELD, number, Colour) for number in msg.colours),
        )

    def action_to_wire(self, action: Play) -> pb.ForaDeOrdemAction:
        return pb.ForaDeOrdemAction(play=pb.ForaDeOrdemPlay(card=action.card, side=action.side))

    def action_from_wire(self, msg: pb.ForaDeOrdemAction) -> Play:
        return Play(msg.play.card, msg.play.side)


ENCODING = ForaDeOrdemEncoding()
