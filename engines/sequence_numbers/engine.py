"""The Sequence Numbers engine: the shared protocol over ``rules`` and ``bots``."""

from __future__ import annotations

from dataclasses import replace

from engines.base import Event, GameEngine, GameInfo, OptionInfo, Outcome, Viewer
from engines.prng import Rng
from engines.sequence_numbers import bots, rules
from engines.sequence_numbers.rules import Action, Options, State, View

TERMINATION_SEQUENCES = "SEQUENCES"  # a team completed the sequences it needs
TERMINATION_TURN_LIMIT = "TURN_LIMIT"  # [decision] 600 turns without a winner: a draw


class SequenceNumbers(GameEngine[State, Action, Options, View]):
    """The Sequence Numbers engine."""

    info = GameInfo(
        id=rules.GAME_ID,
        title="Sequence Numbers",
        min_seats=rules.MIN_SEATS,
        max_seats=rules.MAX_SEATS,
        seat_counts=tuple(sorted(rules.TEAM_CHOICES)),
        simultaneous=False,
        rules_version=rules.RULES_VERSION,
        options=(
            OptionInfo(
                "teams",
                "the number of teams: 2 or 3 with 6 seats; 2 and 3 seats play individually, "
                "4 seats as 2 teams (0 = the usual: 2 teams with 4 or 6 seats)",
                str(rules.USUAL_TEAMS),
                (str(rules.USUAL_TEAMS), *map(str, rules.TEAM_COUNTS)),
            ),
            OptionInfo(
                "sequence_overlap",
                "how many cells a team's new sequence may share with each earlier one: ONE_CELL "
                "(as in classic Sequence) or ANY (any chips, but not the same five)",
                rules.SequenceOverlap.ONE_CELL.value,
                tuple(overlap.value for overlap in rules.SequenceOverlap),
            ),
        ),
    )

    def default_options(self) -> Options:
        return Options()

    def seats(self, state: State) -> int:
        return len(state.hands)

    def max_actions(self, state: State) -> int:
        # A turn is a play or a discard after at most one dead-card exchange, and a play may
        # await its choice of five: three actions, for at most TURN_LIMIT turns.
        return 3 * rules.TURN_LIMIT

    def seats_to_act(self, state: State) -> tuple[int, ...]:
        if rules.is_finished(state):
            return ()
        return (state.turn % len(state.hands),)

    def outcome(self, state: State) -> Outcome | None:
        if not rules.is_finished(state):
            return None
        winner = rules.winning_team(state)
        seats = len(state.hands)
        teams = state.options.teams
        counts = rules.sequence_counts(state.sequences, teams)
        return Outcome(
            scores=tuple(counts[seat % teams] for seat in range(seats)),
            winners=() if winner is None else rules.team_seats(seats, teams, winner),
            lower_is_better=False,
            termination=TERMINATION_TURN_LIMIT if winner is None else TERMINATION_SEQUENCES,
        )

    def redeal(self, state: State, seat: int, rng: Rng) -> State:
        self.check_seat(state, seat)
        others = [s for s in range(len(state.hands)) if s != seat]
        pool = list(state.deck)
        for s in others:
            pool.extend(state.hands[s])
        shuffled = list(rng.shuffle(pool))
        hands = list(state.hands)
        for s in others:
            size = len(state.hands[s])
            hands[s] = tuple(sorted(shuffled[:size]))
            del shuffled[:size]
        return State(
            rules_version=state.rules_version,
            revision=state.revision,
            options=state.options,
            chips=state.chips,
            sequences=state.sequences,
            hands=tuple(hands),
            discards=state.discards,
            deck=tuple(shuffled),
            turn=state.turn,
            exchanged=state.exchanged,
            rng_state=rng.next_u64(),
            pending_cell=state.pending_cell,
        )

    # ----------------------------------------------------------------- hooks
    def _view(self, state: State, viewer: Viewer) -> View:
        return View(
            options=state.options,
            numbers=rules.NUMBERS,
            chips=state.chips,
            sequences=state.sequences,
            hand=state.hands[viewer] if viewer is not None else (),
            hand_sizes=tuple(len(hand) for hand in state.hands),
            discards=state.discards,
            deck_size=len(state.deck),
            turn=state.turn,
            exchanged=state.exchanged,
            sequences_to_win=rules.sequences_to_win(len(state.hands)),
            choice=rules.pending_choice(state),
        )

    def _new_game(self, seats: int, rng: Rng, options: Options) -> State:
        teams = rules.resolve_teams(seats, options)
        return rules.deal(seats, replace(options, teams=teams), rng)

    def _legal_actions(self, state: State, seat: int) -> tuple[Action, ...]:
        return rules.legal_actions(state, seat)

    def _apply(self, state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
        return rules.apply(state, seat, action)

    def _heuristic(self, state: State, seat: int, rng: Rng) -> Action:
        return bots.heuristic(state, seat, rng)

    def _validate(self, state: State) -> None:
        rules.validate(state)


ENGINE = SequenceNumbers()
