"""The Up or Down? engine: the shared protocol over ``engines.up_or_down.rules``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.base import Event, GameEngine, GameInfo, OptionInfo, Outcome, Viewer
from engines.search import SearchInfo
from engines.up_or_down import bots, rules, search
from engines.up_or_down.data import Length
from engines.up_or_down.rules import (
    GAME_ID,
    MAX_SEATS,
    MIN_SEATS,
    RULES_VERSION,
    DiscardScoring,
    Options,
    State,
    Turn,
    View,
)

if TYPE_CHECKING:
    from engines.prng import Rng

TERMINATION = "ALL_CARDS_PLAYED"  # the game ends when every hand is empty


class UpOrDown(GameEngine[State, Turn, Options, View]):
    """The Up or Down? engine."""

    info = GameInfo(
        id=GAME_ID,
        title="Up or Down?",
        min_seats=MIN_SEATS,
        max_seats=MAX_SEATS,
        simultaneous=False,
        rules_version=RULES_VERSION,
        options=(
            OptionInfo(
                "length",
                "the card set per seat count: SHORT 2→1..42, 3→1..60, 4→1..78, 5-6→1..96; "
                "LONG 2→1..54, 3→1..78, 4→1..102, 5-6→1..126",
                Length.SHORT.value,
                tuple(length.value for length in Length),
            ),
            OptionInfo(
                "discard_scoring",
                "what the discard pile scores: 1 point per card, or 1 point per abandoned row",
                DiscardScoring.PER_CARD.value,
                tuple(scoring.value for scoring in DiscardScoring),
            ),
        ),
    )

    def default_options(self) -> Options:
        return Options()

    def seats(self, state: State) -> int:
        return len(state.hands)

    def seats_to_act(self, state: State) -> tuple[int, ...]:
        if rules.is_finished(state):
            return ()
        return (state.revision % len(state.hands),)

    def outcome(self, state: State) -> Outcome | None:
        if not rules.is_finished(state):
            return None
        scores = rules.scores(state)
        best = max(scores)
        return Outcome(
            scores=scores,
            winners=tuple(seat for seat, score in enumerate(scores) if score == best),
            lower_is_better=False,
            termination=TERMINATION,
        )

    @property
    def search_info(self) -> SearchInfo[State, Turn]:
        return search.SEARCH

    def redeal(self, state: State, seat: int, rng: Rng) -> State:
        self.check_seat(state, seat)
        return rules.redeal(state, seat, rng)

    # ----------------------------------------------------------------- hooks
    def _view(self, state: State, viewer: Viewer) -> View:
        return rules.view(state, viewer)

    def _new_game(self, seats: int, rng: Rng, options: Options) -> State:
        rules.check_options(options)
        return rules.deal(seats, rng, options)

    def _validate(self, state: State) -> None:
        rules.check_state(state)

    def _legal_actions(self, state: State, seat: int) -> tuple[Turn, ...]:
        return rules.legal_turns(state, seat)

    def _apply(self, state: State, seat: int, action: Turn) -> tuple[State, tuple[Event, ...]]:
        return rules.play(state, seat, action)

    def _heuristic(self, state: State, seat: int, rng: Rng) -> Turn:
        return bots.heuristic(state, seat, rng)


ENGINE = UpOrDown()
