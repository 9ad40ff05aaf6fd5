"""The ``search`` bot of Sequence Numbers (``engines.search``): its sampler, candidates, rollouts.

The sampler deals what the seat cannot see from its view alone: every card of the deck that is
neither in its hand nor on a discard pile (the others' hands and the draw deck) is shuffled, in
ascending order first, and dealt back, each hand with the size the view shows. A dead-card
exchange, a discard with nothing playable and the choice of a five are left to the heuristic;
for a play, the candidates are the heuristic's best plays. Each is played out by the heuristic for
every seat, two rounds of turns (one round at 6 seats, where two would pass the budget's time),
and the board it leaves is valued by its open windows: a team's window of five that no other team
has entered is worth more the more of it the team holds, and a won game outweighs every board.
The reward is the seat's team's value less the best other team's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from engines.prng import Rng
from engines.search import SearchInfo
from engines.sequence_numbers import bots
from engines.sequence_numbers.bots import MINUS_RESERVE, PLUS_RESERVE
from engines.sequence_numbers.rules import (
    ALL_CARDS,
    IS_CORNER,
    MAX_SHARED,
    MINUS_CARDS,
    NO_CHIP,
    PLUS_CARDS,
    WINDOWS,
    Action,
    Play,
    State,
    apply,
    is_finished,
    plays,
    winning_team,
)

CANDIDATES = 5  # the heuristic's best plays the search tries
ROLLOUT_ROUNDS = 2  # rounds of turns played after the candidate before the board is valued
ROLLOUT_TURNS_MAX = 8  # more turns than this (two rounds at 6 seats) and one round is played
DEFAULT_ITERATIONS = 16
# A window of five held by one team, by the cells it holds (its chips and corners): a window
# of four is one card from a sequence.
WINDOW_VALUE = (0, 1, 4, 16, 64, 0)
SEQUENCE_VALUE = 400  # a completed sequence (its windows count no more)
WIN_VALUE = 100_000  # a won game, over any board


def sample(state: State, seat: int, rng: Rng) -> State:
    """A state ``seat`` cannot tell from ``state``, drawn from what its view shows."""
    seen = set(state.hands[seat])
    seen.update(card for pile in state.discards for card in pile)
    cards = list(rng.shuffle([card for card in ALL_CARDS if card not in seen]))
    hands = list(state.hands)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hands[other] = tuple(sorted(cards[: len(hand)]))
            del cards[: len(hand)]
    return dataclasses.replace(
        state, hands=tuple(hands), deck=tuple(cards), rng_state=rng.next_u64()
    )


def _play_values(state: State, seat: int, candidates: Sequence[Play]) -> list[int]:
    """The heuristic's value of each play, reserve prices included."""
    team = seat % state.options.teams
    own = [s.cells for s in state.sequences if s.team == team]
    placements = bots.Placements(state.chips, team, own, MAX_SHARED[state.options.sequence_overlap])
    values = []
    for play in candidates:
        if play.card in MINUS_CARDS:
            values.append(bots._removal_value(state.chips, play.cell) - MINUS_RESERVE)
            continue
        value = placements.value(play.cell)
        values.append(value - PLUS_RESERVE if play.card in PLUS_CARDS else value)
    return values


def board_value(state: State, teams: int) -> list[int]:
    """Each team's value of the board: its sequences, and its windows no other team entered."""
    values = [0] * teams
    if is_finished(state):
        winner = winning_team(state)
        if winner is not None:
            values[winner] = WIN_VALUE
        return values
    for sequence in state.sequences:
        values[sequence.team] += SEQUENCE_VALUE
    chips = state.chips
    for window in WINDOWS:
        owner = NO_CHIP
        held = 0
        for cell in window:
            chip = chips[cell]
            if chip == NO_CHIP:
                held += IS_CORNER[cell]
            elif owner in (NO_CHIP, chip):
                owner = chip
                held += 1
            else:
                break
        else:
            if owner != NO_CHIP:
                values[owner] += WINDOW_VALUE[held]
    return values


def rollout_turns(seats: int) -> int:
    """The turns a rollout plays after the candidate: two rounds, or one when two are too many."""
    rounds = ROLLOUT_ROUNDS if ROLLOUT_ROUNDS * seats <= ROLLOUT_TURNS_MAX else 1
    return rounds * seats


class SequenceNumbersSearcher:
    """Candidates, sampler and rollouts of the Sequence Numbers ``search`` bot."""

    default_iterations = DEFAULT_ITERATIONS

    def candidates(self, state: State, seat: int) -> Sequence[Action]:
        chosen = bots.heuristic(state, seat, Rng(0))
        if not isinstance(chosen, Play):
            return (chosen,)
        candidates = plays(state, seat)
        values = _play_values(state, seat, candidates)
        order = sorted(range(len(candidates)), key=lambda index: -values[index])
        ranked = [chosen, *(candidates[index] for index in order if candidates[index] != chosen)]
        return ranked[:CANDIDATES]

    def sample(self, state: State, seat: int, rng: Rng) -> State:
        return sample(state, seat, rng)

    def rollout(self, world: State, seat: int, action: Action, rng: Rng) -> float:
        del rng  # the world's deck decides every draw; the policy is deterministic
        state = apply(world, seat, action)[0]
        seats = len(state.hands)
        for _ in range(rollout_turns(seats)):
            if is_finished(state):
                break
            to_act = state.turn % seats
            state = apply(state, to_act, bots.heuristic(state, to_act, Rng(0)))[0]
        teams = state.options.teams
        values = board_value(state, teams)
        mine = values.pop(seat % teams)
        return mine - max(values)


SEARCH = SearchInfo(
    SequenceNumbersSearcher(),
    "determinised Monte-Carlo: each iteration deals the unseen cards at random, plays the "
    f"heuristic's best {CANDIDATES} plays and {ROLLOUT_ROUNDS} rounds after each (one at 6 seats) "
    "by the heuristic, and keeps the play with the best mean lead in the value of the board",
)
