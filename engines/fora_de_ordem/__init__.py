"""Fora de Ordem (Adoleta): docs/rules/fora_de_ordem.md, seed "Fora de Ordem Rulebook".

Kind: 2 to 6 seats, chance (each seat's deck order, the question cards), hidden information (hands,
decks, the ranks on the back of the question card), one seat acts at a time. Each round shows a
question card (a category and 5 items, one per side of the board); from the round's starting seat
in seat order, each seat puts one card from hand on top of one side (``Play``). When every seat has
played 3 cards the round is resolved in the same action: the ranks are revealed, each side is
judged bottom-up and examined top-down, hands are refilled to 4 and the next question is shown.

Rules as implemented:
- Number cards name 1 to 3 ranks; "previous card is correct" / "previous card is wrong" may only go
  on a side that already has a card. A side has no limit and seats may cover their own cards.
- Resolution: bottom-up, a number card is correct when the item's rank is one of its numbers; a
  special copies (or inverts) the verdict of the card directly beneath it, so specials chain. From
  the top down, correct cards are discarded from the game; the owner of the first wrong card takes
  it and every card beneath it (anyone's) into their face-up score pile.
- Outcome: bombs in the score pile, lower is better; a tie goes to the fewest bombs on the card
  left in hand; if still tied, every tied seat wins.

Decisions:
- Player decks [decision, docs/rules/fora_de_ordem.md]: the real composition is not public;
  ``data.DECK_COMPOSITION`` is the table of the rules (19 cards per seat, 50 bombs), which
  reproduces every figure of the seed's example. Seat ``i`` plays colour ``i`` (yellow, purple,
  pink, blue, green, orange).
- A card is the int ``seat * 19 + position`` in the composition, so its owner is part of its id.
- Ties on a question card give the tied items the same set of consecutive ranks ({2, 3} and
  {2, 3}); a number card on a tied item is correct when it names any of them. A card stores its
  ranks as a standard competition ranking (1, 2, 2, 4, 5), from which the sets follow.
- The question bank is ``questions.json`` (pt-BR and English); the ``language`` option picks the
  texts. ``custom_questions`` in NewGame replace the bank (used as supplied, whatever the
  language); a bad card is refused naming the card and the problem. The state holds only the
  cards of its rounds, never the bank; custom cards without an id are named ``custom-N``.
  On the wire, bank cards travel as their ids: a change to ``questions.json`` changes what
  stored states mean, so it comes with a new ``RULES_VERSION``.
- ``rounds`` is 1..6 (default 6): a deck of 19 holds 4 + 3 * 5 cards, so six rounds use it all.
  ``starting_seat`` (default 0) starts round 1; the start passes to the next seat each round.
- The ranks are public only in the ``RanksRevealed`` event of the round's resolution; the view
  shows the current question's category and items. The cards left in hand are revealed in the
  ``GameEnded`` event for the tie-break, and the view keeps hiding them.
- A seat that drew cards learns which in a ``CardsDrawn`` event addressed to it alone; everybody
  sees ``HandsRefilled``. A side with no card is not reported at resolution.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.base import Event, GameEngine, GameInfo, OptionInfo, Outcome, Viewer
from engines.fora_de_ordem import bots, rules, search
from engines.fora_de_ordem.data import CARD_COUNT, IS_SPECIAL, ITEMS, Language
from engines.fora_de_ordem.rules import (
    DEFAULT_ROUNDS,
    GAME_ID,
    MAX_ROUNDS,
    MAX_SEATS,
    MIN_SEATS,
    RULES_VERSION,
    Action,
    Options,
    Play,
    State,
    View,
)
from engines.search import SearchInfo

if TYPE_CHECKING:
    from engines.prng import Rng

__all__ = ["ENGINE", "Action", "ForaDeOrdem", "Options", "Play", "State", "View"]

# Every play of a card, one per side, built once: legal_actions hands these out.
_PLAYS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(Play(card, side) for side in range(ITEMS)) for card in range(CARD_COUNT)
)


class ForaDeOrdem(GameEngine[State, Action, Options, View]):
    """The Fora de Ordem engine."""

    info = GameInfo(
        id=GAME_ID,
        title="Fora de Ordem",
        min_seats=MIN_SEATS,
        max_seats=MAX_SEATS,
        simultaneous=False,
        rules_version=RULES_VERSION,
        options=(
            OptionInfo(
                "language",
                "language of the built-in question bank",
                Language.PT_BR.value,
                tuple(language.value for language in Language),
            ),
            OptionInfo("rounds", f"number of rounds (1..{MAX_ROUNDS})", str(DEFAULT_ROUNDS)),
            OptionInfo("starting_seat", "the seat that starts the first round", "0"),
            OptionInfo(
                "custom_questions",
                "question cards to play with instead of the built-in bank (at least one per "
                "round; each a category, 5 items and their ranks)",
                "",
            ),
        ),
    )

    def default_options(self) -> Options:
        return Options()

    def seats(self, state: State) -> int:
        return len(state.hands)

    def seats_to_act(self, state: State) -> tuple[int, ...]:
        if rules.finished(state):
            return ()
        return (rules.seat_to_act(state),)

    def outcome(self, state: State) -> Outcome | None:
        return rules.outcome(state)

    @property
    def search_info(self) -> SearchInfo[State, Action]:
        return search.SEARCH

    def redeal(self, state: State, seat: int, rng: Rng) -> State:
        self.check_seat(state, seat)
        return rules.redeal(state, seat, rng)

    # ----------------------------------------------------------------- hooks
    def _view(self, state: State, viewer: Viewer) -> View:
        return rules.view(state, viewer)

    def _new_game(self, seats: int, rng: Rng, options: Options) -> State:
        return rules.deal(seats, rng, options)

    def _legal_actions(self, state: State, seat: int) -> tuple[Action, ...]:
        sides = state.sides
        actions: list[Action] = []
        for card in state.hands[seat]:
            if IS_SPECIAL[card]:  # only on a side that already has a card
                actions.extend(play for play in _PLAYS[card] if sides[play.side])
            else:
                actions.extend(_PLAYS[card])
        return tuple(actions)

    def _apply(self, state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
        return rules.play(state, seat, action)

    def _heuristic(self, state: State, seat: int, rng: Rng) -> Action:
        return bots.heuristic(state, seat, rng)

    def _validate(self, state: State) -> None:
        rules.validate(state)


ENGINE = ForaDeOrdem()
