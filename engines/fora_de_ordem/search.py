"""The ``search`` bot of Fora de Ordem (``engines.search``): its sampler, candidates and rollouts.

The sampler deals what the seat cannot see from its view alone. The question's ranks are an
order of the five items drawn with the heuristic's belief: every order weighed by how well the
other seats' number cards on the board agree with it (a seat that puts "2nd" on an item probably
believes it), never from the ranks in the state. Each other seat's hand and deck are dealt from
the cards of its colour that are not on the board, in a score pile or out of the game, gathered
in ascending order and shuffled; the seat's own deck is shuffled likewise. The candidates are
the heuristic's best plays; each is played out to the end of the round, every seat played by
the heuristic's valuation without evidence (quicker, and the others know no more trivia than
the bot). No play in a rollout depends on the ranks, so the round's end is judged under every
rank each side may have, weighed by the seat's belief, rather than under the sampled ones: the
expected bombs, exactly, as the heuristic reckons them for one card. The reward is the bombs
the other seats take, on average, less those the seat takes, less the later cost of the cards
it keeps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from engines.fora_de_ordem.bots import (
    KEEP_WEIGHT,
    LATER_COST,
    ORDERS,
    TOLERANCE,
    UNIFORM,
    _side_cost,
    rank_beliefs,
)
from engines.fora_de_ordem.data import DECK_SIZE, IS_SPECIAL, OWNER, RANKS, Question
from engines.fora_de_ordem.rules import (
    PLAYS_PER_ROUND,
    Play,
    State,
    bombs_of,
    judge,
    top_wrong,
)
from engines.prng import Rng
from engines.search import SearchInfo

CANDIDATES = 5  # the heuristic's best plays the search tries
DEFAULT_ITERATIONS = 12
LIKELIHOOD_STEPS = 1 << 32  # an order's weight is drawn in this many steps of the total


def _order_weights(state: State, seat: int) -> list[float]:
    """Each order of the items (``ORDERS``), weighed by the other seats' cards on the board."""
    beliefs = rank_beliefs(state.sides, seat)
    if beliefs[0] is UNIFORM:
        return [1.0] * len(ORDERS)
    return [
        beliefs[0][o[0] - 1]
        * beliefs[1][o[1] - 1]
        * beliefs[2][o[2] - 1]
        * beliefs[3][o[3] - 1]
        * beliefs[4][o[4] - 1]
        for o in ORDERS
    ]


def _draw_order(weights: list[float], rng: Rng) -> tuple[int, ...]:
    """An order drawn with probability in proportion to its weight."""
    target = rng.below(LIKELIHOOD_STEPS) / LIKELIHOOD_STEPS * sum(weights)
    for order, weight in zip(ORDERS, weights, strict=True):
        target -= weight
        if target < 0:
            return order
    return ORDERS[-1]


def sample(state: State, seat: int, rng: Rng, weights: list[float] | None = None) -> State:
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
    order = _draw_order(weights or _order_weights(state, seat), rng)
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


def _scored_plays(
    sides: Sequence[tuple[int, ...]],
    hand: tuple[int, ...],
    seat: int,
    beliefs: Sequence[tuple[float, ...]],
) -> list[tuple[float, Play]]:
    """Every legal play of ``hand`` with the heuristic's score (lower is better), in legal
    order."""
    before = [_side_cost(stack, seat, beliefs[side]) for side, stack in enumerate(sides)]
    scored = []
    for card in hand:
        later = KEEP_WEIGHT * LATER_COST[card % DECK_SIZE]
        special = IS_SPECIAL[card]
        for side, stack in enumerate(sides):
            if special and not stack:
                continue
            cost = _side_cost((*stack, card), seat, beliefs[side]) - before[side] - later
            scored.append((cost, Play(card, side)))
    return scored


UNIFORM_BELIEFS = (UNIFORM,) * len(RANKS)


def quick_play(sides: Sequence[tuple[int, ...]], hand: tuple[int, ...], seat: int) -> Play:
    """The rollout policy: the heuristic's best play with every rank equally likely."""
    scored = _scored_plays(sides, hand, seat, UNIFORM_BELIEFS)
    best_cost, best = scored[0]
    for cost, candidate in scored[1:]:
        if cost < best_cost - TOLERANCE:
            best_cost, best = cost, candidate
    return best


def expected_bombs(
    sides: Sequence[tuple[int, ...]], beliefs: Sequence[tuple[float, ...]], seats: int
) -> list[float]:
    """The bombs each seat takes when the round is resolved, expected under ``beliefs``."""
    taken = [0.0] * seats
    for stack, chances in zip(sides, beliefs, strict=True):
        if not stack:
            continue
        for rank, chance in zip(RANKS, chances, strict=True):
            wrong = top_wrong(judge(stack, 1 << rank))
            if wrong >= 0 and chance:
                taken[OWNER[stack[wrong]]] += chance * bombs_of(stack[: wrong + 1])
    return taken


def _later_cost(hand: tuple[int, ...]) -> float:
    """What the cards kept in hand are expected to cost when played later."""
    return KEEP_WEIGHT * sum(LATER_COST[card % DECK_SIZE] for card in hand)


@dataclasses.dataclass(frozen=True, slots=True)
class World:
    """A sampled state, and the seat's belief about the ranks of the round's sides."""

    state: State
    beliefs: tuple[tuple[float, ...], ...]


class ForaDeOrdemSearcher:
    """Candidates, sampler and rollouts of the Fora de Ordem ``search`` bot."""

    default_iterations = DEFAULT_ITERATIONS

    def candidates(self, state: State, seat: int) -> Sequence[Play]:
        beliefs = rank_beliefs(state.sides, seat)
        scored = _scored_plays(state.sides, state.hands[seat], seat, beliefs)
        scored.sort(key=lambda entry: entry[0])
        return [candidate for _, candidate in scored[:CANDIDATES]]

    def sample(self, state: State, seat: int, rng: Rng) -> World:
        return World(sample(state, seat, rng), tuple(rank_beliefs(state.sides, seat)))

    def rollout(self, world: World, seat: int, action: Play, rng: Rng) -> float:
        del rng  # the world's hands decide the round; the policy is deterministic
        state = world.state
        seats = len(state.hands)
        sides = list(state.sides)
        hands = list(state.hands)
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
        taken = expected_bombs(sides, world.beliefs, seats)
        mine = taken.pop(seat)
        return sum(taken) / len(taken) - mine - _later_cost(hands[seat])


SEARCH = SearchInfo(
    ForaDeOrdemSearcher(),
    "determinised Monte-Carlo: each iteration deals the unseen cards at random, plays the "
    f"heuristic's best {CANDIDATES} plays and the rest of the round after each, judges the "
    "round under every order of the items the board suggests, and keeps the play with the "
    "best mean bombs against the others",
)
