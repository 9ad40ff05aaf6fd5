"""The ``heuristic`` bot of Fora de Ordem.

A bot knows no trivia: it never reads the ranks in the state, only what its seat may see (the
sides, its own hand). It starts from "every order of the 5 items is equally likely" and takes the
other seats' number cards on the board as weak evidence (a seat that puts "2nd" on an item
probably believes it). From that belief it gets, for each side, the probability of each rank; a
side's fate depends only on its item's rank, so the bot can resolve each side exactly under each
rank and weigh the bombs it would take. It plays the card and side that lower its expected bombs
the most compared with what that card would cost on an empty side later (a wide card is cheap
where the order is unknown, a special is cheap on a card it can judge), giving a little weight to
the bombs it sends to others.
"""

from __future__ import annotations

from itertools import permutations
from typing import TYPE_CHECKING

from engines.fora_de_ordem.data import (
    BOMBS,
    DECK,
    DECK_SIZE,
    IS_SPECIAL,
    ITEMS,
    OWNER,
    RANK_MASK,
    RANKS,
    CardKind,
)
from engines.fora_de_ordem.rules import Play, bombs_of, judge, top_wrong

if TYPE_CHECKING:
    from engines.fora_de_ordem.rules import State
    from engines.prng import Rng

# Every order of the items: ORDERS[k][side] is that side's rank.
ORDERS: tuple[tuple[int, ...], ...] = tuple(permutations(RANKS))
UNIFORM: tuple[float, ...] = (1 / ITEMS,) * ITEMS  # no evidence: every rank equally likely
EVIDENCE = 1.5  # likelihood ratio of a rank named by another seat's number card on that item
OTHERS_WEIGHT = 0.25  # how much bombs sent to the other seats count against our own
SPECIAL_RISK = 0.5  # the chance a special card played later on an unknown card is wrong
KEEP_WEIGHT = 1.0  # how much a card's later cost on an empty side offsets its cost here
TOLERANCE = 1e-9  # scores this close are equally good plays


def _later_cost(card_position: int) -> float:
    """The expected bombs of a deck card played later where nothing is known: a number card on an
    empty side, a special on a card that is right or wrong at even odds."""
    face = DECK[card_position]
    if face.kind is CardKind.NUMBER:
        return (1 - len(face.ranks) / ITEMS) * face.bombs
    return SPECIAL_RISK * face.bombs


LATER_COST: tuple[float, ...] = tuple(_later_cost(position) for position in range(DECK_SIZE))


def heuristic(state: State, seat: int, rng: Rng) -> Play:
    """Choose the play with the best expected bombs for ``seat``, ties broken at random."""
    sides = state.sides
    beliefs = rank_beliefs(sides, seat)
    before = [_side_cost(stack, seat, beliefs[side]) for side, stack in enumerate(sides)]
    best: list[Play] = []
    best_score = 0.0
    for card in state.hands[seat]:
        later = KEEP_WEIGHT * LATER_COST[card % DECK_SIZE]
        special = IS_SPECIAL[card]
        for side, stack in enumerate(sides):
            if special and not stack:
                continue
            score = _side_cost((*stack, card), seat, beliefs[side]) - before[side] - later
            if not best or score < best_score - TOLERANCE:
                best, best_score = [Play(card, side)], score
            elif score <= best_score + TOLERANCE:
                best.append(Play(card, side))
    return rng.choice(best)


def rank_beliefs(sides: tuple[tuple[int, ...], ...], seat: int) -> list[tuple[float, ...]]:
    """Per side, the probability of each rank 1..5, from the other seats' number cards."""
    likelihood = [[1.0] * ITEMS for _ in range(ITEMS)]
    informed = False
    for side, stack in enumerate(sides):
        for card in stack:
            if OWNER[card] == seat or IS_SPECIAL[card]:
                continue
            informed = True
            mask = RANK_MASK[card]
            row = likelihood[side]
            for rank in RANKS:
                if mask >> rank & 1:
                    row[rank - 1] *= EVIDENCE
    if not informed:
        return [UNIFORM] * ITEMS
    # The ranks form an order of the items: weigh every order by its likelihood.
    totals = [[0.0] * ITEMS for _ in range(ITEMS)]
    a, b, c, d, e = likelihood
    for order in ORDERS:
        r0, r1, r2, r3, r4 = order
        weight = a[r0 - 1] * b[r1 - 1] * c[r2 - 1] * d[r3 - 1] * e[r4 - 1]
        for side, rank in enumerate(order):
            totals[side][rank - 1] += weight
    return [tuple(value / sum(row) for value in row) for row in totals]


def _side_cost(stack: tuple[int, ...], seat: int, beliefs: tuple[float, ...]) -> float:
    """Expected bombs ``seat`` takes from this side, less a share of those others take."""
    if not stack:
        return 0.0
    cost = 0.0
    for rank in RANKS:
        chance = beliefs[rank - 1]
        wrong = top_wrong(judge(stack, 1 << rank))
        if wrong < 0:
            continue
        bombs = bombs_of(stack[: wrong + 1]) if wrong else BOMBS[stack[0]]
        if OWNER[stack[wrong]] == seat:
            cost += chance * bombs
        else:
            cost -= chance * bombs * OTHERS_WEIGHT
    return cost
