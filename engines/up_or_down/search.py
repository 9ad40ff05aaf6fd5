"""The ``search`` bot of Up or Down? (``engines.search``): its sampler, candidates and rollouts.

The sampler deals what the seat cannot see from its view alone: the cards of the set that are
in no display, not in the circle, not in its own hand and not the face-up top (the others'
hands, every discard pile, both piles below what shows) are gathered in ascending order,
shuffled, and dealt back to those places, each with the size the view shows. The candidates are
the turns the heuristic values highest; each is played out for a few turns by every seat with
the heuristic's own valuation (computed as the change it makes to one row, which is quicker
than the heuristic's full pass and ranks the turns alike), and the display each seat is left
with is valued as the heuristic values it, points and prospects. The reward is the seat's value
less the best of the others' (the game is won on the highest score).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from engines.prng import Rng
from engines.search import SearchInfo
from engines.up_or_down.bots import (
    HORIZON_TURNS,
    PROSPECT_WEIGHT,
    _after_value,
    _preferred_draw,
    _row_value,
    _taken,
)
from engines.up_or_down.rules import (
    MAX_ROWS,
    DiscardScoring,
    Display,
    Draw,
    Neighbour,
    Placement,
    State,
    Turn,
    accepts,
    highest_card,
    legal_turns,
    neighbours,
    play,
    scores,
    total_turns,
)

CANDIDATES = 6  # the heuristic's best turns the search tries
ROLLOUT_TURNS = 8  # turns played after the candidate before the displays are valued
DEFAULT_ITERATIONS = 12


def sample(state: State, seat: int, rng: Rng) -> State:
    """A state ``seat`` cannot tell from ``state``, drawn from what its view shows."""
    seats = len(state.hands)
    seen = set(state.circle)
    seen.update(state.hands[seat])
    seen.update(card for display in state.displays for row in display for card in row)
    seen.update(state.face_up[:1])
    unseen = [c for c in range(1, highest_card(state.options, seats) + 1) if c not in seen]
    cards = rng.shuffle(unseen)
    taken = 0

    def deal(count: int) -> tuple[int, ...]:
        nonlocal taken
        dealt = cards[taken : taken + count]
        taken += count
        return dealt

    hands = tuple(
        state.hands[s] if s == seat else tuple(sorted(deal(len(state.hands[s]))))
        for s in range(seats)
    )
    discards = tuple(tuple(sorted(deal(len(discard)))) for discard in state.discards)
    face_down = deal(len(state.face_down))
    face_up = state.face_up[:1] + deal(len(state.face_up) - 1) if state.face_up else ()
    return dataclasses.replace(
        state,
        hands=hands,
        discards=discards,
        face_down=face_down,
        face_up=face_up,
        rng_state=rng.next_u64(),
    )


@dataclass(frozen=True, slots=True)
class _Scale:
    """What the heuristic's valuation needs to know of the game at one turn."""

    highest: int
    horizon: float
    per_row: bool


def _scale(state: State, seat: int) -> _Scale:
    seats = len(state.hands)
    own_turns_left = (total_turns(state.options, seats) - state.revision - 1) // seats
    return _Scale(
        highest_card(state.options, seats),
        PROSPECT_WEIGHT * min(own_turns_left, HORIZON_TURNS) / HORIZON_TURNS,
        state.options.discard_scoring is DiscardScoring.PER_ROW,
    )


def ranked_turns(state: State, seat: int) -> list[Turn]:
    """Every legal turn, best first by the heuristic's valuation of the display it leaves (its
    preferred pile first, then the other)."""
    scale = _scale(state, seat)
    rows = state.displays[seat]
    preferred = _preferred_draw(state, rows)
    valued = [
        (
            turn.draw is not preferred if preferred is not None else False,
            -_after_value(
                rows,
                _taken(state, turn),
                turn,
                highest=scale.highest,
                horizon=scale.horizon,
                per_row=scale.per_row,
            ),
            index,
            turn,
        )
        for index, turn in enumerate(legal_turns(state, seat))
    ]
    valued.sort()
    return [turn for *_, turn in valued]


def quick_turn(state: State, seat: int) -> Turn:
    """The turn the heuristic's valuation prefers, found by what each placement adds to one
    row: the rollout policy."""
    scale = _scale(state, seat)
    rows = state.displays[seat]
    values = [_row_value(row, scale.highest, scale.horizon) for row in rows]
    best: tuple[float, int, Neighbour, Placement, int] | None = None
    for card in state.hands[seat]:
        lower, higher = neighbours(state.circle, card)
        for take, taken in ((Neighbour.LOWER, lower), (Neighbour.HIGHER, higher)):
            alone = _row_value((taken,), scale.highest, scale.horizon)
            options: list[tuple[float, Placement, int]] = []
            if len(rows) < MAX_ROWS:
                options.append((alone, Placement.NEW_ROW, len(rows)))
            for r, row in enumerate(rows):
                if accepts(row, taken):
                    extended = _row_value((*row, taken), scale.highest, scale.horizon)
                    options.append((extended - values[r], Placement.EXTEND, r))
                discard = 1 if scale.per_row else len(row)
                options.append((alone - values[r] + discard, Placement.ABANDON, r))
            for gain, placement, r in options:
                if best is None or gain > best[0]:
                    best = (gain, card, take, placement, r)
    if best is None:
        raise ValueError("the seat to act always holds a card")
    _, card, take, placement, r = best
    return Turn(card, take, placement, r, _draw(state, rows))


def _draw(state: State, rows: Display) -> Draw:
    preferred = _preferred_draw(state, rows)
    if preferred is not None:
        return preferred
    if state.face_up:
        return Draw.FACE_UP
    return Draw.FACE_DOWN if state.face_down else Draw.NONE


def _value(state: State, seat: int) -> float:
    """A seat's score now plus its rows' prospects, as the heuristic values a display."""
    scale = _scale(state, seat)
    prospects = sum(
        _row_value(row, scale.highest, scale.horizon) for row in state.displays[seat]
    ) - sum(_row_value(row, scale.highest, 0.0) for row in state.displays[seat])
    return scores(state)[seat] + prospects


class UpOrDownSearcher:
    """Candidates, sampler and rollouts of the Up or Down? ``search`` bot."""

    default_iterations = DEFAULT_ITERATIONS

    def candidates(self, state: State, seat: int) -> Sequence[Turn]:
        return ranked_turns(state, seat)[:CANDIDATES]

    def sample(self, state: State, seat: int, rng: Rng) -> State:
        return sample(state, seat, rng)

    def rollout(self, world: State, seat: int, action: Turn, rng: Rng) -> float:
        del rng  # the world's piles decide every draw; the policy is deterministic
        state = play(world, seat, action)[0]
        seats = len(state.hands)
        for _ in range(ROLLOUT_TURNS):
            if not any(state.hands):
                break
            to_act = state.revision % seats
            state = play(state, to_act, quick_turn(state, to_act))[0]
        values = [_value(state, s) for s in range(seats)]
        mine = values.pop(seat)
        return mine - max(values)


SEARCH = SearchInfo(
    UpOrDownSearcher(),
    "determinised Monte-Carlo: each iteration deals the unseen cards at random, plays the "
    f"heuristic's best {CANDIDATES} turns and {ROLLOUT_TURNS} turns after each with its "
    "valuation, and keeps the turn with the best mean lead in score and prospects",
)
