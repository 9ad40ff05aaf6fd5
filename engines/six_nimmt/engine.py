"""The 6 nimmt! engine: the shared protocol over ``engines.six_nimmt.rules``."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from engines.base import Event, GameEngine, GameInfo, OptionInfo, Outcome, Viewer
from engines.errors import IllegalActionError, MalformedActionError
from engines.notation import field_text
from engines.search import SearchInfo
from engines.six_nimmt import bots, check, rules, search
from engines.six_nimmt.data import ZERO_CARD
from engines.six_nimmt.rules import (
    CHOOSE_ROWS,
    GAME_ID,
    HAND_SIZE,
    MAX_SEATS,
    MIN_SEATS,
    NO_SELECTION,
    ROW_COUNT,
    RULES_VERSION,
    SELECTS,
    Action,
    ChooseRow,
    EndRule,
    Options,
    Select,
    State,
    TooLowRule,
    View,
)

if TYPE_CHECKING:
    from engines.prng import Rng


class SixNimmt(GameEngine[State, Action, Options, View]):
    """The 6 nimmt! engine."""

    info = GameInfo(
        id=GAME_ID,
        title="6 nimmt!",
        min_seats=MIN_SEATS,
        max_seats=MAX_SEATS,
        simultaneous=True,
        rules_version=RULES_VERSION,
        options=(
            OptionInfo(
                "too_low_rule",
                "what happens to a card lower than every row: the seat chooses the row, or the "
                "cheapest row is taken automatically",
                "CHOOSE_ROW",
                tuple(rule.value for rule in TooLowRule),
            ),
            OptionInfo(
                "end",
                "when the game ends: after the hand in which a total reaches the threshold, or "
                "after a fixed number of hands",
                "PENALTY_THRESHOLD",
                tuple(rule.value for rule in EndRule),
            ),
            OptionInfo("threshold", "total bullheads that end the game (1..1000)", "66"),
            OptionInfo("hands", "number of hands with FIXED_HANDS (1..100)", "1"),
            OptionInfo("tactical_deck", "use only cards 1..(10 × seats + 4)", "false"),
            OptionInfo("zero_card", "each seat may play a 0 card once per game", "false"),
        ),
    )

    def default_options(self) -> Options:
        return Options()

    def seats(self, state: State) -> int:
        return len(state.hands)

    def max_actions(self, state: State) -> int:
        # A hand is 10 turns of one selection per seat, each card placed making at most one
        # row choice (Rule 4). A hand places at least 9 number cards per seat (a zero card
        # stands in for one at most), 18 or more, where 4 rows take only 16 beside their
        # first cards: some row is taken, and a taken row holds a number card, worth at least
        # one bullhead. So each hand adds a bullhead to some total, and some total reaches the
        # threshold within seats x (threshold - 1) + 1 hands.
        seats = len(state.hands)
        options = state.options
        if options.end is EndRule.FIXED_HANDS:
            hands = options.hands
        else:
            hands = seats * (options.threshold - 1) + 1
        return hands * 2 * HAND_SIZE * seats

    def seats_to_act(self, state: State) -> tuple[int, ...]:
        if state.turn == HAND_SIZE:
            return ()
        if state.revealed:  # Rule 4 choice pending: only that seat acts
            return (rules.reveal_order(state.selections)[state.placed][1],)
        return tuple([seat for seat, card in enumerate(state.selections) if card == NO_SELECTION])

    def is_to_act(self, state: State, seat: int) -> bool:
        if state.turn == HAND_SIZE:
            return False
        if state.revealed:
            return rules.reveal_order(state.selections)[state.placed][1] == seat
        return state.selections[seat] == NO_SELECTION

    def outcome(self, state: State) -> Outcome | None:
        if state.turn != HAND_SIZE:
            return None
        best = min(state.penalties)
        return Outcome(
            scores=state.penalties,
            winners=tuple(seat for seat, total in enumerate(state.penalties) if total == best),
            lower_is_better=True,
            termination=state.options.end.value,
        )

    @property
    def search_info(self) -> SearchInfo[State, Action]:
        return search.SEARCH

    def redeal(self, state: State, seat: int, rng: Rng) -> State:
        """Re-deal the other seats' hands, their pending selections and the deck. A pending
        selection of a seat whose zero card is unused becomes the zero card with the chance a
        uniformly random choice among its cards and the zero card would give it."""
        self.check_seat(state, seat)
        others = [s for s in range(len(state.hands)) if s != seat]
        pending = (
            [] if state.revealed else [s for s in others if state.selections[s] != NO_SELECTION]
        )
        pool = list(state.deck)
        for s in others:
            pool.extend(state.hands[s])
        pool.extend(state.selections[s] for s in pending if state.selections[s] > ZERO_CARD)
        shuffled = list(rng.shuffle(pool))
        sizes = [len(hand) for hand in state.hands]
        selections = list(state.selections)
        for s in pending:
            sizes[s] += state.selections[s] > ZERO_CARD  # the number cards it chose from
            zero_held = state.options.zero_card and state.zero_card_used_in_hand[s] == 0
            if zero_held and rng.below(sizes[s] + 1) == 0:
                selections[s] = ZERO_CARD
            else:
                selections[s] = shuffled.pop()
                sizes[s] -= 1
        hands = list(state.hands)
        for s in others:
            hands[s] = tuple(sorted(shuffled[: sizes[s]]))
            del shuffled[: sizes[s]]
        return dataclasses.replace(
            state,
            hands=tuple(hands),
            selections=tuple(selections),
            deck=tuple(shuffled),
            rng_state=rng.next_u64(),
        )

    # ----------------------------------------------------------------- hooks
    def _view(self, state: State, viewer: Viewer) -> View:
        seats = len(state.hands)
        return View(
            options=state.options,
            rows=state.rows,
            hand=state.hands[viewer] if viewer is not None else (),
            selected=tuple(card != NO_SELECTION for card in state.selections),
            revealed=state.selections if state.revealed else (NO_SELECTION,) * seats,
            own_selection=state.selections[viewer] if viewer is not None else NO_SELECTION,
            penalties=state.penalties,
            taken=state.taken,
            zero_card_available=tuple(
                state.options.zero_card and used == 0 for used in state.zero_card_used_in_hand
            ),
            hand_number=state.hand_number,
            turn=state.turn,
            hand_sizes=tuple(
                len(hand) + rules.holds_zero_card(state, seat)
                for seat, hand in enumerate(state.hands)
            ),
        )

    def _new_game(self, seats: int, rng: Rng, options: Options) -> State:
        rules.check_options(options)
        rows, hands, deck = rules.deal(options, seats, rng)
        return State(
            rules_version=RULES_VERSION,
            revision=0,
            options=options,
            rows=rows,
            hands=hands,
            selections=(NO_SELECTION,) * seats,
            revealed=False,
            placed=0,
            penalties=(0,) * seats,
            taken=((),) * seats,
            zero_card_used_in_hand=(0,) * seats,
            hand_number=1,
            turn=0,
            deck=deck,
            discarded=(),
            rng_state=rng.state,
        )

    def _legal_actions(self, state: State, seat: int) -> tuple[Action, ...]:
        if state.revealed:
            return CHOOSE_ROWS
        selects = tuple(map(SELECTS.__getitem__, state.hands[seat]))
        if state.options.zero_card and state.zero_card_used_in_hand[seat] == 0:
            return (SELECTS[ZERO_CARD], *selects)
        return selects

    def _apply(self, state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
        if isinstance(action, Select):
            return rules.select(state, seat, action.card)
        if isinstance(action, ChooseRow):
            if not state.revealed:
                raise IllegalActionError("no row choice is pending", "NO_ROW_CHOICE_PENDING")
            if not 0 <= action.row < ROW_COUNT:
                raise IllegalActionError(
                    f"{field_text('choose_row', action.row)} names no row: the wire numbers "
                    f"them 0 to {ROW_COUNT - 1}",
                    "NO_SUCH_ROW",
                )
            return rules.resolve(
                state,
                state.hands,
                state.selections,
                state.zero_card_used_in_hand,
                state.placed,
                [],
                action.row,
            )
        raise MalformedActionError(f"not a 6 nimmt! action: {action!r}")

    def _heuristic(self, state: State, seat: int, rng: Rng) -> Action:
        return bots.heuristic(state, seat, rng)

    def _validate(self, state: State) -> None:
        check.validate(state)


ENGINE = SixNimmt()
