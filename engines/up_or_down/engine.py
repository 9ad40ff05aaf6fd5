"""The Up or Down? engine: the shared protocol over ``engines.up_or_down.rules``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.base import Event, GameEngine, GameInfo, OptionInfo, Outcome, Viewer
from engines.search import SearchInfo
from engines.up_or_down import bots, check, rules, search
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

    def max_actions(self, state: State) -> int:
        # One action is one whole turn, and each turn moves a card out of play for good.
        return rules.total_turns(state.options, len(state.hands))

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
        """Re-deal what ``seat`` cannot see: the other hands, every discard pile (its own too: the
        faces are down), the face-down pile and the face-up pile below its top, keeping every
        size."""
        self.check_seat(state, seat)
        seats = range(len(state.hands))
        others = [s for s in seats if s != seat]
        pool = [*state.face_down, *state.face_up[1:]]
        for s in others:
            pool.extend(state.hands[s])
        for discard in state.discards:
            pool.extend(discard)
        shuffled = rng.shuffle(pool)
        taken = 0

        def deal_next(count: int) -> tuple[int, ...]:
            nonlocal taken
            cards = shuffled[taken : taken + count]
            taken += count
            return cards

        hands = list(state.hands)
        discards = list(state.discards)
        for s in others:
            hands[s] = tuple(sorted(deal_next(len(state.hands[s]))))
        for s in seats:
            discards[s] = tuple(sorted(deal_next(len(state.discards[s]))))
        face_down = deal_next(len(state.face_down))
        face_up = state.face_up[:1] + deal_next(len(state.face_up) - 1) if state.face_up else ()
        return State(
            rules_version=state.rules_version,
            revision=state.revision,
            options=state.options,
            circle=state.circle,
            hands=tuple(hands),
            displays=state.displays,
            discards=tuple(discards),
            abandoned=state.abandoned,
            face_down=face_down,
            face_up=face_up,
            rng_state=rng.next_u64(),
        )

    # ----------------------------------------------------------------- hooks
    def _view(self, state: State, viewer: Viewer) -> View:
        face_up = state.face_up
        return View(
            options=state.options,
            circle=state.circle,
            hand=state.hands[viewer] if viewer is not None else (),
            hand_sizes=tuple(len(hand) for hand in state.hands),
            displays=state.displays,
            discard_sizes=tuple(len(discard) for discard in state.discards),
            abandoned=state.abandoned,
            face_down_size=len(state.face_down),
            face_up_size=len(face_up),
            face_up_top=face_up[0] if face_up else rules.NO_CARD,
            card_colours=rules.COLOURS_IN_PLAY[rules.highest_card(state.options, len(state.hands))],
            scores=rules.scores(state),
        )

    def _new_game(self, seats: int, rng: Rng, options: Options) -> State:
        check.check_options(options)
        return rules.deal(seats, rng, options)

    def _validate(self, state: State) -> None:
        check.validate(state)

    def _legal_actions(self, state: State, seat: int) -> tuple[Turn, ...]:
        return rules.legal_turns(state, seat)

    def _apply(self, state: State, seat: int, action: Turn) -> tuple[State, tuple[Event, ...]]:
        return rules.play(state, seat, action)

    def _heuristic(self, state: State, seat: int, rng: Rng) -> Turn:
        return bots.heuristic(state, seat, rng)


ENGINE = UpOrDown()
