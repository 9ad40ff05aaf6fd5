"""The ``search`` bot: determinised Monte-Carlo search over what a seat may know.

A seat cannot see the other hands, the deck order or the answers of a trivia card, and a bot that
searched the true state would be cheating. So the search never reads what its seat cannot see:
each *iteration* samples a world, a full state that the seat cannot tell from the one it is in
(its hand and every public part kept, the cards it has not seen dealt at random to the places
it cannot see), then plays each candidate action still running in that world and the rest of
the round, or of the hand, or a few turns, after it with a fast policy for every seat, and
scores the end for the seat. The action with the best mean over the worlds is chosen:
Monte-Carlo over determinisations, where the candidates meet the same worlds and the same
rollout draws, so that they are compared on equal terms and few worlds tell them apart, and
where sequential halving drops the worse half of the candidates after each round of worlds, so
that the worlds go to the candidates that are close.

Each game brings a ``Searcher``: which actions are worth trying (every legal one, or the best few
by the game's heuristic), how to sample a world (from the seat's own view: the unseen cards are
gathered in a canonical order before they are shuffled, so that the sample depends on nothing
the seat cannot see), and how to play a world out and score it. The budget is a number of
iterations, so the same request gives the same move on every machine; an optional time cap stops
earlier, at the price of that sameness. All randomness comes from the ``Rng`` the caller passes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Generic, Protocol, TypeVar

from engines.prng import Rng

S = TypeVar("S")
A = TypeVar("A")
S_contra = TypeVar("S_contra", contravariant=True)
W = TypeVar("W")  # a sampled world: a state, or a state with what the game worked out in it

SEARCH_POLICY = "search"  # the policy's name in every game's ``policies``
MS_PER_SECOND = 1000


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a search may do: ``iterations`` sampled worlds, each trying every candidate;
    ``time_ms`` > 0 also stops it after that many milliseconds (one world is always finished).
    ``each_world``, when given, is called after every world: whatever it raises stops the
    search and goes up to the caller (which holds the search to a budget of its own that way,
    or stops it once nobody waits for its answer)."""

    iterations: int
    time_ms: int = 0
    each_world: Callable[[], None] | None = field(default=None, compare=False)


class Searcher(Protocol[S_contra, A, W]):
    """What a game tells the search: its candidates, its sampler and its rollouts."""

    @property
    def default_iterations(self) -> int:
        """The iterations of a search whose request names none (well under 100 ms a move)."""

    def candidates(self, state: S_contra, seat: int) -> Sequence[A]:
        """The actions worth trying, best first by the game's own judgement (never empty)."""

    def sample(self, state: S_contra, seat: int, rng: Rng) -> W:
        """A world ``seat`` cannot tell from ``state``, drawn from its view alone (with anything
        that every candidate's rollout in it would work out alike)."""

    def rollout(self, world: W, seat: int, action: A, rng: Rng) -> float:
        """Play ``action`` in ``world`` and on to the rollout's end; the seat's reward there."""


@dataclass(frozen=True, slots=True)
class SearchInfo(Generic[S, A]):
    """A game's searcher and the words ListGames says about it."""

    searcher: Searcher[S, A, Any]
    description: str


def search(searcher: Searcher[S, A, W], state: S, seat: int, rng: Rng, budget: Budget) -> A:
    """The candidate with the best mean reward over ``budget.iterations`` sampled worlds, found
    by sequential halving: the worlds are split into rounds, every candidate still running is
    played in each world of a round, and after the round the worse half stops running. The
    last candidates are compared over every world, the clearly worse ones cost only the first
    round's. Ties go to the candidate the game ranks first."""
    actions = list(searcher.candidates(state, seat))
    if len(actions) == 1:
        return actions[0]
    deadline = perf_counter() + budget.time_ms / MS_PER_SECOND if budget.time_ms > 0 else None
    worlds = max(1, budget.iterations)
    rounds = min(worlds, math.ceil(math.log2(len(actions))))
    totals = [0.0] * len(actions)
    running = list(range(len(actions)))
    for round_index in range(rounds):
        # The worlds split evenly; the last rounds take one more when they do not divide.
        for _ in range(worlds // rounds + (round_index >= rounds - worlds % rounds)):
            world = searcher.sample(state, seat, Rng(rng.next_u64()))
            rollout_seed = rng.next_u64()
            for index in running:
                totals[index] += searcher.rollout(world, seat, actions[index], Rng(rollout_seed))
            if budget.each_world is not None:
                budget.each_world()
            if deadline is not None and perf_counter() >= deadline:
                return actions[_best(running, totals)]
        if round_index < rounds - 1:
            # Every candidate still running has met the same worlds: their totals compare.
            running.sort(key=lambda index: (-totals[index], index))
            del running[(len(running) + 1) // 2 :]
    return actions[_best(running, totals)]


def _best(running: list[int], totals: list[float]) -> int:
    return min(running, key=lambda index: (-totals[index], index))
