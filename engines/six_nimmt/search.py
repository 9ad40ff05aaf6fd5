"""The ``search`` bot of 6 nimmt! (``engines.search``): its sampler, candidates and rollouts.

The sampler deals what the seat cannot see from its view alone: the cards of the set that are in
no row, in no seat's taken cards, not in its own hand and not among the revealed or its own
selected cards (the others' hands, their selections of this turn while hidden, the undealt
deck) are gathered in ascending order, shuffled and dealt back, each seat with as many cards as
its view shows; a seat whose zero card is unused has it selected with the chance a random
choice among its cards would give. Every legal action is a candidate, the heuristic's best
first (many cards are safe in most worlds: ties go to the heuristic's order).

In each world every other seat is one of two kinds of player, drawn afresh: a careful one (three
worlds in four), whose selection of this turn is the heuristic's and whose later cards follow a
quick policy (the card with the fewest expected bullheads, roughly), or a careless one, whose
every card is a card of its hand at random. Within a world the other seats' selections of this
turn do not depend on the seat's own (they are simultaneous), so they are chosen once. Each
candidate is then played out: this turn is placed by Rules 1–4, and a few later turns are played,
the seat itself by the quick policy, on plain lists rather than states, for speed. The reward is
the bullheads the other seats took on average less those the seat took.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections.abc import Sequence
from typing import NamedTuple

from engines.prng import Rng
from engines.search import SearchInfo
from engines.six_nimmt.bots import _card_scores, _heuristic_select
from engines.six_nimmt.data import BULLHEADS, ZERO_CARD
from engines.six_nimmt.rules import (
    HAND_SIZE,
    NO_SELECTION,
    ROW_LIMIT,
    Action,
    ChooseRow,
    Select,
    State,
    card_set,
    row_bullheads,
)

DEFAULT_ITERATIONS = 64
# The later turns of a rollout: as many as play about this many cards (3 turns at 4 seats, 1 at
# 10), so that a world costs about the same at every seat count. Longer rollouts, to the end of
# the hand, did not choose better: the quick policy's guesses blur with every turn.
ROLLOUT_CARDS = 12
# Another seat is a careful player in this many worlds out of so many, else a careless one: a
# search sure of one model of the others loses more to players who play another.
CAREFUL_ODDS = (3, 4)
GAP_SCALE = 100  # the quick policy: a gap this wide times the other seats is sure to fill


def sample(state: State, seat: int, rng: Rng) -> State:
    """A state ``seat`` cannot tell from ``state``, drawn from what its view shows. A seat that
    selected its card of this turn unseen is dealt its hand with that card still in it, and
    selects again as the heuristic would from it: its hand is a guess, its choice need not be
    a random one."""
    seats = len(state.hands)
    seen = {card for row in state.rows for card in row}
    seen.update(state.hands[seat])
    seen.update(card for taken in state.taken for card in taken)
    if state.revealed:
        seen.update(state.selections)
    else:
        seen.add(state.selections[seat])
    cards = list(rng.shuffle([c for c in card_set(state.options, seats) if c not in seen]))
    hands = list(state.hands)
    selections = list(state.selections)
    pending = [
        other
        for other in range(seats)
        if other != seat and not state.revealed and state.selections[other] != NO_SELECTION
    ]
    for other in range(seats):
        if other == seat:
            continue
        # The number cards the seat holds, with its hidden selection: its view's hand size.
        size = len(state.hands[other]) + (other in pending and state.selections[other] > ZERO_CARD)
        hands[other] = tuple(sorted(cards[:size]))
        del cards[:size]
    for other in pending:
        selections[other] = NO_SELECTION
    world = dataclasses.replace(
        state,
        hands=tuple(hands),
        selections=tuple(selections),
        deck=tuple(cards),
        rng_state=rng.next_u64(),
    )
    for other in pending:
        card = _heuristic_select(world, other).card
        selections[other] = card
        if card > ZERO_CARD:
            hands[other] = tuple(c for c in hands[other] if c != card)
    return dataclasses.replace(world, hands=tuple(hands), selections=tuple(selections))


class World(NamedTuple):
    """A sampled state, the others' selections of this turn in it, and which seats are
    careless (they play at random)."""

    state: State
    chosen: tuple[int, ...]
    careless: tuple[bool, ...]


class Table:
    """The rows of a rollout as plain lists: their cards, last cards and bullheads."""

    __slots__ = ("bulls", "ends", "rows")

    def __init__(self, rows: Sequence[Sequence[int]]) -> None:
        self.rows = [list(row) for row in rows]
        self.ends = [row[-1] for row in rows]
        self.bulls = [sum(BULLHEADS[c] for c in row) for row in rows]

    def target(self, card: int) -> int:
        """Rules 1–2: the row whose last card is closest below ``card``; -1 under Rule 4."""
        best, best_end = -1, 0
        for index, end in enumerate(self.ends):
            if best_end < end < card:
                best, best_end = index, end
        return best

    def cheapest(self) -> int:
        """TAKE_CHEAPEST_ROW, as the heuristic takes under Rule 4 too."""
        rows, bulls = self.rows, self.bulls
        return min(range(len(rows)), key=lambda i: (bulls[i], len(rows[i]), i))

    def place(self, order: list[tuple[int, int]], gained: list[int]) -> None:
        """Place the revealed cards (card, seat), ascending, by Rules 1–4; each seat's
        bullheads go to ``gained``."""
        rows = self.rows
        for card, seat in order:
            row = self.target(card)
            if row < 0:
                row = self.cheapest()
            elif len(rows[row]) < ROW_LIMIT:
                rows[row].append(card)
                self.ends[row] = card
                self.bulls[row] += BULLHEADS[card]
                continue
            gained[seat] += self.bulls[row]
            rows[row] = [card]
            self.ends[row] = card
            self.bulls[row] = BULLHEADS[card]

    def take(self, row: int, card: int, seat: int, gained: list[int]) -> None:
        """Rule 4 with a chosen row: ``seat`` takes it and ``card`` starts it."""
        gained[seat] += self.bulls[row]
        self.rows[row] = [card]
        self.ends[row] = card
        self.bulls[row] = BULLHEADS[card]

    def play_out(
        self,
        hands: list[list[int]],
        turns: int,
        gained: list[int],
        careless: Sequence[bool],
        rng: Rng,
    ) -> None:
        """Play ``turns`` more turns: a ``careless`` seat plays a card of its hand at random,
        every other seat by the quick policy, the card with the fewest expected bullheads,
        roughly. A card that fills its row, or is lower than every row, takes for sure; another
        takes its row when the others' cards fill the gap to it, which grows likelier with the
        gap and the fewer places the row has left."""
        rows, ends, bulls = self.rows, self.ends, self.bulls
        spread = (len(hands) - 1) / GAP_SCALE  # a gap's chance to fill, per card of gap
        for _ in range(turns):
            by_end = sorted(range(len(rows)), key=ends.__getitem__)
            lows = [ends[row] for row in by_end]
            needs = [ROW_LIMIT - len(rows[row]) for row in by_end]
            costs = [bulls[row] for row in by_end]
            lowest = min(costs) + 1
            order = []
            for seat, hand in enumerate(hands):
                if careless[seat]:
                    order.append((hand.pop(rng.below(len(hand))), seat))
                    continue
                best, best_cost = hand[0], -1.0
                for card in hand:
                    at = bisect_left(lows, card) - 1
                    if at < 0:  # Rule 4
                        cost = float(lowest)
                    elif needs[at] == 0:
                        cost = float(costs[at] + 1)
                    else:
                        cost = min(1.0, (card - lows[at]) * spread) ** needs[at] * costs[at]
                    if best_cost < 0 or cost < best_cost:
                        best, best_cost = card, cost
                hand.remove(best)
                order.append((best, seat))
            order.sort()
            self.place(order, gained)


class SixNimmtSearcher:
    """Candidates, sampler and rollouts of the 6 nimmt! ``search`` bot."""

    default_iterations = DEFAULT_ITERATIONS

    def candidates(self, state: State, seat: int) -> Sequence[Action]:
        """Every legal action, the heuristic's first: rows cheapest first, cards by the
        heuristic's score (many cards are safe in most worlds, and the heuristic tells those
        ties apart better than the hand's order would)."""
        if state.revealed:
            rows = state.rows
            order = sorted(
                range(len(rows)), key=lambda r: (row_bullheads(rows[r]), len(rows[r]), r)
            )
            return [ChooseRow(row) for row in order]
        ranked = [Select(card) for *_, card, _ in sorted(_card_scores(state, seat))]
        if state.options.zero_card and state.zero_card_used_in_hand[seat] == 0:
            zero = Select(ZERO_CARD)
            first = _heuristic_select(state, seat)
            return [zero, *ranked] if first == zero else [*ranked, zero]
        return ranked

    def sample(self, state: State, seat: int, rng: Rng) -> World:
        """A world, which other seats are careless in it, and every other seat's selection of
        this turn: those it made, and for each other seat the heuristic's choice if it is
        careful, else a card of its hand at random."""
        world = sample(state, seat, rng)
        careful_in, out_of = CAREFUL_ODDS
        careless = tuple(
            other != seat and rng.below(out_of) >= careful_in for other in range(len(world.hands))
        )
        if world.revealed:
            return World(world, world.selections, careless)
        chosen = list(world.selections)
        for other, card in enumerate(chosen):
            if other == seat or card != NO_SELECTION:
                continue
            if not careless[other]:
                chosen[other] = _heuristic_select(world, other).card
            else:
                hand = world.hands[other]
                zero = world.options.zero_card and world.zero_card_used_in_hand[other] == 0
                pick = rng.below(len(hand) + zero)
                chosen[other] = hand[pick] if pick < len(hand) else ZERO_CARD
        return World(world, tuple(chosen), careless)

    def rollout(self, sampled: World, seat: int, action: Action, rng: Rng) -> float:
        world, chosen, careless = sampled
        seats = len(world.hands)
        table = Table(world.rows)
        hands = [list(hand) for hand in world.hands]
        gained = [0] * seats
        if isinstance(action, ChooseRow):
            order = sorted(
                (card, s) for s, card in enumerate(world.selections) if card > ZERO_CARD
            )[world.placed :]
            card, chooser = order[0]
            table.take(action.row, card, chooser, gained)
            table.place(order[1:], gained)
        else:
            selections = list(chosen)
            selections[seat] = action.card
            for other, card in enumerate(selections):
                if card > ZERO_CARD and card in hands[other]:
                    hands[other].remove(card)
            order = sorted((card, s) for s, card in enumerate(selections) if card > ZERO_CARD)
            table.place(order, gained)
        turns = min(HAND_SIZE - world.turn - 1, max(1, ROLLOUT_CARDS // seats))
        if turns > 0 and all(len(hand) >= turns for hand in hands):
            table.play_out(hands, turns, gained, careless, rng)
        mine = gained.pop(seat)
        return sum(gained) / len(gained) - mine


SEARCH = SearchInfo(
    SixNimmtSearcher(),
    "determinised Monte-Carlo: each iteration deals the unseen cards at random, makes each "
    "other seat a careful player (mostly: the heuristic's card this turn, a quick policy's "
    "after) or a careless one (random cards), plays every card of the hand and a few turns "
    "after it, drops the worse half of the cards every few worlds, and "
    "keeps the card with the best mean bullheads against the others",
)
