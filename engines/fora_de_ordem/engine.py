"""The Fora de Ordem engine: the shared protocol over ``engines.fora_de_ordem.rules``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.base import Event, GameEngine, GameInfo, OptionInfo, Outcome, Viewer
from engines.fora_de_ordem import bots, check, rules, search
from engines.fora_de_ordem.data import CARD_COUNT, COLOURS, IS_SPECIAL, ITEMS, Language, Question
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
            OptionInfo(
                "starting_seat", "the seat that starts the first round, from 0 (seat 1)", "0"
            ),
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

    def max_actions(self, state: State) -> int:
        # Each round, every seat plays PLAYS_PER_ROUND cards, one action each.
        return state.options.rounds * rules.PLAYS_PER_ROUND * len(state.hands)

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
        """Re-deal what ``seat`` cannot see: the other seats' hands and decks (each within its own
        colour), the order of its own deck, the ranks of every unresolved question and the order of
        the questions of later rounds. Once the game is over the last cards in hand are public."""
        self.check_seat(state, seat)
        over = rules.finished(state)
        hands = list(state.hands)
        decks = list(state.decks)
        for other, (hand, deck) in enumerate(zip(state.hands, state.decks, strict=True)):
            if other == seat or over:
                decks[other] = rng.shuffle(deck)
                continue
            cards = rng.shuffle(hand + deck)
            hands[other] = tuple(sorted(cards[: len(hand)]))
            decks[other] = cards[len(hand) :]
        resolved = state.questions[: state.rounds_played]
        current = state.questions[state.rounds_played : state.rounds_played + 1]
        later = rng.shuffle(state.questions[state.rounds_played + 1 :])
        unresolved = tuple(
            Question(q.id, q.category, q.items, rng.shuffle(q.ranks)) for q in current + later
        )
        return State(
            state.rules_version,
            state.revision,
            state.options,
            resolved + unresolved,
            state.rounds_played,
            tuple(hands),
            tuple(decks),
            state.sides,
            state.score_piles,
            state.discarded,
            rng.next_u64(),
        )

    # ----------------------------------------------------------------- hooks
    def _view(self, state: State, viewer: Viewer) -> View:
        question = state.questions[min(state.rounds_played, state.options.rounds - 1)]
        seats = len(state.hands)
        return View(
            options=state.options,
            round=min(state.rounds_played + 1, state.options.rounds),
            rounds_played=state.rounds_played,
            round_starting_seat=rules.round_starting_seat(state),
            question_id=question.id,
            category=question.category,
            items=question.items,
            sides=state.sides,
            hand=state.hands[viewer] if viewer is not None else (),
            hand_sizes=tuple(map(len, state.hands)),
            deck_sizes=tuple(map(len, state.decks)),
            score_piles=state.score_piles,
            bombs=tuple(rules.bombs_of(pile) for pile in state.score_piles),
            discarded=state.discarded,
            colours=COLOURS[:seats],
        )

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
        check.validate(state)


ENGINE = ForaDeOrdem()
