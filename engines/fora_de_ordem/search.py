"""The ``search`` bot of Fora de Ordem (``engines.search``): its sampler, candidates and rollouts.

The sampler deals what the seat cannot see from its view alone. Each other seat's hand and deck
are dealt from the cards of its colour that are not on the board, in a score pile or out of the
game, gathered in ascending order and shuffled; the seat's own deck is shuffled likewise; the
question's ranks are an order of the five items drawn at random, never read from the state.

The candidates are the heuristic's best plays (ranked with its evidence-weighted belief), as
many as ``candidate_count`` allows: every legal play at 2 seats, fewer as the seats grow, since
a rollout is as long as the plays left in the round. So a world costs about the same at every
seat count, and one default budget answers within 100 ms of CPU a move from 2 to 6 seats.

Each candidate is played out to the end of the round, every seat played by the heuristic's
valuation with every rank equally likely. No play in a rollout depends on the ranks, so the
round's end is judged under every rank each side may have rather than under the sampled ones:
the expected bombs, exactly. They are judged with every rank equally likely as well, not with
the heuristic's evidence: the other seats' number cards tell a bot little (a bot knows no
trivia), and a search that trusts them follows the others' guesses. The reward is the bombs the
other seats take, on average, less those the seat takes, less the later cost of the cards it
keeps (nothing in the last round, when the card kept is never played).

A side's end under each rank (``fates``) is worked out once from the side beneath its top card
and kept in a bounded cache: the rollouts meet the same sides again and again.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterator, Sequence

from engines.fora_de_ordem.bots import (
    KEEP_WEIGHT,
    LATER_COST,
    ORDERS,
    OTHERS_WEIGHT,
    TOLERANCE,
    UNIFORM,
    rank_beliefs,
)
from engines.fora_de_ordem.data import (
    DECK_SIZE,
    IS_SPECIAL,
    KIND,
    OWNER,
    RANK_MASK,
    RANKS,
    CardKind,
    Question,
)
from engines.fora_de_ordem.rules import (
    NO_TAKER,
    PLAYS_PER_ROUND,
    Play,
    State,
    bombs_of,
)
from engines.prng import Rng
from engines.search import SearchInfo

CANDIDATE_PLAYS = 40  # candidates times seats: 20 (every play) at 2 seats, 7 at 6
DEFAULT_ITERATIONS = 32
Fate = tuple[bool, int, int]  # a side's end under one rank: top correct, taker, bombs taken
# The sides whose fates are kept for the next rollouts: enough for the sides one search meets,
# few enough that a server's garbage collector does not stall on them (with 65,536 kept, its
# full passes took moves of other games past 100 ms).
FATES_CACHED = 1 << 12
UNIFORM_BELIEFS = (UNIFORM,) * len(RANKS)  # every rank of every side equally likely


def candidate_count(seats: int) -> int:
    """How many of the heuristic's best plays the search tries at ``seats`` seats."""
    return -(-CANDIDATE_PLAYS // seats)


def sample(state: State, seat: int, rng: Rng) -> State:
    """A state ``seat`` cannot tell from ``state``, drawn from what its view shows."""
    seats = len(state.hands)
    shown = {card for stack in state.sides for card in stack}
    shown.update(card for pile in state.score_piles for card in pile)
    shown.update(state.discarded)
    hands = list(state.hands)
    decks = list(state.decks)
    for other in range(seats):
        own = other == seat
        hidden = [
            card
            for card in range(other * DECK_SIZE, (other + 1) * DECK_SIZE)
            if card not in shown and not (own and card in state.hands[seat])
        ]
        cards = rng.shuffle(hidden)
        if own:
            decks[other] = cards
        else:
            size = len(state.hands[other])
            hands[other] = tuple(sorted(cards[:size]))
            decks[other] = cards[size:]
    current = state.questions[state.rounds_played]
    order = ORDERS[rng.below(len(ORDERS))]
    question = Question(current.id, current.category, current.items, order)
    # Later questions are never reached by a rollout: they are dealt again, answers and all.
    later = sorted(state.questions[state.rounds_played + 1 :], key=lambda q: q.id)
    questions = (
        *state.questions[: state.rounds_played],
        question,
        *(
            Question(q.id, q.category, q.items, rng.shuffle(sorted(q.ranks)))
            for q in rng.shuffle(later)
        ),
    )
    return dataclasses.replace(
        state,
        questions=questions,
        hands=tuple(hands),
        decks=tuple(decks),
        rng_state=rng.next_u64(),
    )


@functools.lru_cache(maxsize=FATES_CACHED)
def fates(stack: tuple[int, ...]) -> tuple[Fate, ...]:
    """Per rank 1..5 of the side's item, how the side ends as the rules resolve it: whether its
    top card is correct, the seat that takes the side (``NO_TAKER`` if every card is correct)
    and the bombs it takes. Worked out from the side without its top card, which the rollouts
    have always met just before."""
    if not stack:
        return ((False, NO_TAKER, 0),) * len(RANKS)
    *rest, card = stack
    below = fates(tuple(rest))
    total = bombs_of(stack)
    kind = KIND[card]
    result = []
    for rank, (previous, taker, bombs) in zip(RANKS, below, strict=True):
        if kind is CardKind.NUMBER:
            correct = bool(RANK_MASK[card] >> rank & 1)
        else:
            correct = previous == (kind is CardKind.PREVIOUS_CORRECT)
        result.append((True, taker, bombs) if correct else (False, OWNER[card], total))
    return tuple(result)


def side_cost(stack: tuple[int, ...], seat: int, chances: tuple[float, ...]) -> float:
    """The heuristic's cost of a side for ``seat``: the bombs it expects to take there, less a
    share of those the others take (``bots._side_cost``, from the side's fates)."""
    if not stack:
        return 0.0
    cost = 0.0
    for (_, taker, bombs), chance in zip(fates(stack), chances, strict=True):
        if taker == seat:
            cost += chance * bombs
        elif taker != NO_TAKER:
            cost -= chance * bombs * OTHERS_WEIGHT
    return cost


def _plays(
    sides: Sequence[tuple[int, ...]],
    hand: tuple[int, ...],
    cost: Callable[[int, tuple[int, ...]], float],
) -> Iterator[tuple[float, int, int]]:
    """Every legal play of ``hand`` in legal order, as (score, card, side): the heuristic's
    score (lower is better) when ``cost(side, stack)`` is its cost of a side for the seat."""
    before = [cost(side, stack) for side, stack in enumerate(sides)]
    for card in hand:
        later = KEEP_WEIGHT * LATER_COST[card % DECK_SIZE]
        special = IS_SPECIAL[card]
        for side, stack in enumerate(sides):
            if not (special and not stack):
                yield cost(side, (*stack, card)) - before[side] - later, card, side


@functools.lru_cache(maxsize=FATES_CACHED)
def _plain_cost(stack: tuple[int, ...], seat: int) -> float:
    """``side_cost`` with every rank equally likely."""
    return side_cost(stack, seat, UNIFORM)


def quick_play(sides: Sequence[tuple[int, ...]], hand: tuple[int, ...], seat: int) -> Play:
    """The rollout policy: the heuristic's best play with every rank equally likely (the first
    of the best in legal order)."""
    best_score, best_card, best_side = math.inf, 0, 0
    for score, card, side in _plays(sides, hand, lambda _, stack: _plain_cost(stack, seat)):
        if score < best_score - TOLERANCE:
            best_score, best_card, best_side = score, card, side
    return Play(best_card, best_side)


def expected_bombs(
    sides: Sequence[tuple[int, ...]], beliefs: Sequence[tuple[float, ...]], seats: int
) -> list[float]:
    """The bombs each seat takes when the round is resolved, expected under ``beliefs``."""
    taken = [0.0] * seats
    for stack, chances in zip(sides, beliefs, strict=True):
        if not stack:
            continue
        for (_, taker, bombs), chance in zip(fates(stack), chances, strict=True):
            if taker != NO_TAKER:
                taken[taker] += chance * bombs
    return taken


def _later_cost(hand: tuple[int, ...]) -> float:
    """What the cards kept in hand are expected to cost when played later."""
    return KEEP_WEIGHT * sum(LATER_COST[card % DECK_SIZE] for card in hand)


class ForaDeOrdemSearcher:
    """Candidates, sampler and rollouts of the Fora de Ordem ``search`` bot."""

    default_iterations = DEFAULT_ITERATIONS

    def candidates(self, state: State, seat: int) -> Sequence[Play]:
        beliefs = rank_beliefs(state.sides, seat)
        scored = sorted(
            _plays(
                state.sides,
                state.hands[seat],
                lambda side, stack: side_cost(stack, seat, beliefs[side]),
            ),
            key=lambda play: play[0],
        )
        count = candidate_count(len(state.hands))
        return [Play(card, side) for _, card, side in scored[:count]]

    def sample(self, state: State, seat: int, rng: Rng) -> State:
        return sample(state, seat, rng)

    def rollout(self, world: State, seat: int, action: Play, rng: Rng) -> float:
        del rng  # the world's hands decide the round; the policy is deterministic
        seats = len(world.hands)
        sides = list(world.sides)
        hands = list(world.hands)
        to_act = seat
        played = sum(map(len, sides))
        play: Play | None = action
        for _ in range(PLAYS_PER_ROUND * seats - played):
            if play is None:
                play = quick_play(sides, hands[to_act], to_act)
            sides[play.side] = (*sides[play.side], play.card)
            hands[to_act] = tuple(card for card in hands[to_act] if card != play.card)
            to_act = (to_act + 1) % seats
            play = None
        taken = expected_bombs(sides, UNIFORM_BELIEFS, seats)
        mine = taken.pop(seat)
        last_round = world.rounds_played == world.options.rounds - 1
        later = 0.0 if last_round else _later_cost(hands[seat])
        return sum(taken) / len(taken) - mine - later


SEARCH = SearchInfo(
    ForaDeOrdemSearcher(),
    "determinised Monte-Carlo: each iteration deals the unseen cards at random, plays the "
    f"heuristic's best plays ({CANDIDATE_PLAYS} divided by the seats: every play at 2 seats) "
    "and the rest of the round after each, judges the round under every order of the items, "
    "and keeps the play with the best mean bombs against the others",
)
