"""The ``heuristic`` bot of 6 nimmt!: a closed-form estimate of each card's bullheads this turn.

It sees only what its seat may see (its hand, the rows, the taken cards), so it needs no re-deal.
It selects the card with the fewest expected bullheads this turn, the others' cards modelled as
drawn from the cards it has not seen (a closed form, no sampling), plus a share of the danger of
the row the card joins; it plays its zero card when even its best card is expected to cost a
bullhead, and under Rule 4 it takes the cheapest row.
"""

from __future__ import annotations

from itertools import accumulate
from math import comb
from operator import mul
from typing import TYPE_CHECKING

from engines.six_nimmt.data import BULLHEADS, HIGHEST_CARD, ZERO_CARD
from engines.six_nimmt.rules import (
    ROW_LIMIT,
    Action,
    ChooseRow,
    Select,
    State,
    cheapest_row,
    highest_card,
    row_bullheads,
    target_row,
)

if TYPE_CHECKING:
    from engines.prng import Rng

DANGER_WEIGHT = 0.25  # the share of a row's danger added to a card's expected bullheads
ZERO_CARD_COST = 1.0  # expected bullheads of the best card from which the bot plays its 0 card


def heuristic(state: State, seat: int, rng: Rng) -> Action:
    """The heuristic's action for ``seat``: under Rule 4 the cheapest row, else its best card."""
    if state.revealed:
        return ChooseRow(cheapest_row(state.rows))
    return _heuristic_select(state, seat)


def _heuristic_select(state: State, seat: int) -> Select:
    """Select the card with the lowest score: its expected bullheads this turn plus a share of
    the danger of the row it joins (see ``_card_scores``); the zero card when even the best card
    is expected to cost ``ZERO_CARD_COST`` bullheads or more."""
    scores = _card_scores(state, seat)
    _, _, card, cost = min(scores)
    if (
        state.options.zero_card
        and state.zero_card_used_in_hand[seat] == 0
        and cost >= ZERO_CARD_COST
    ):
        return Select(ZERO_CARD)
    return Select(card)


def _card_scores(state: State, seat: int) -> list[tuple[float, int, int, float]]:
    """(score, gap, card, expected bullheads) of each card in the seat's hand.

    Only what the seat may see is used: its hand, the rows and the taken cards. The others' cards
    this turn are modelled as drawn without replacement from the cards the seat has not seen, so
    the number of them below a card is hypergeometric:
    - Rule 4: the card takes the cheapest row unless another card is lower still (that card
      starts a row, and ours follows it).
    - Rules 1–3: the card is the 6th of its row, and takes it, exactly when the others put
      5 − len(row) cards between the row's end and it.
    The danger of the row (how full it gets, times its bullheads) breaks the many near-ties
    between safe cards toward rows that stay short; then the smallest gap wins.
    """
    rows = state.rows
    seats = len(state.hands)
    seen = {card for row in rows for card in row}
    seen.update(state.hands[seat])
    seen.update(card for taken in state.taken for card in taken)
    # below[c], bulls_below[c]: unseen cards lower than c, and their bullheads.
    highest = highest_card(state.options, seats)
    unseen = [0] * (HIGHEST_CARD + 1)  # by card: 1 for a card of the set the seat has not seen
    unseen[1 : highest + 1] = [1] * highest
    for card in seen:
        unseen[card] = 0
    below = [0, *accumulate(unseen)]
    bulls_below = [0, *accumulate(map(mul, unseen, BULLHEADS))]
    pool, others = below[HIGHEST_CARD + 1], seats - 1
    draws = max(1, comb(pool, others))
    cheapest = min(row_bullheads(row) for row in rows)
    scores = []
    for card in state.hands[seat]:
        row = target_row(rows, card)
        if row is None:  # Rule 4, unless another card is lower still
            cost = comb(pool - below[card], others) / draws * cheapest
            danger, gap = float(cheapest), HIGHEST_CARD
        else:
            end, bullheads = rows[row][-1], row_bullheads(rows[row])
            need = ROW_LIMIT - len(rows[row])  # others' cards that make ours the 6th
            between = below[card] - below[end + 1]
            cost = 0.0
            if need <= others:
                taken = comb(between, need) * comb(pool - between, others - need) / draws
                gap_bulls = bulls_below[card] - bulls_below[end + 1]
                cost = taken * (bullheads + need * gap_bulls / max(1, between))
            expected = others * between / max(1, pool)
            fill = 1.0 if need == 0 else min(1.0, expected / need)
            danger, gap = fill * (bullheads + 1), card - end
        scores.append((cost + DANGER_WEIGHT * danger, gap, card, cost))
    return scores
