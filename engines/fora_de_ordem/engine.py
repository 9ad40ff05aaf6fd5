"""The Fora de Ordem engine: the shared protocol over ``engines.fora_de_ordem.rules``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.base import Event, GameEngine, GameInfo, OptionInfo, Outcome, Viewer
from engines.fora_de_ordem import bots, rules
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
