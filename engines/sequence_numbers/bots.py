"""The ``heuristic`` bot of Sequence Numbers: a greedy player that reads only what its seat sees.

It looks at its own hand and the public board, never at other hands or the deck, so it needs no
re-deal. Each play is scored by the windows of five cells through its cell: a chip is worth more
the closer it brings an open window of its team to a sequence, and worth more again when it
blocks a window that one other team is filling. PLUS and MINUS cards carry a reserve price, so
they are kept for a cell no equation card reaches and for real threats. A dead card is always
exchanged first; with nothing playable, the least useful card is discarded. Offered a choice of
fives, it locks the one that protects the most of its team's chips that a MINUS card could still
remove (the fives locked along with it counted).
"""

from __future__ import annotations

from engines.prng import Rng
from engines.sequence_numbers.rules import (
    EQUATION_COUNT,
    IS_CORNER,
    MAX_SHARED,
    MINUS_CARDS,
    NO_CHIP,
    PLUS_CARDS,
    WINDOW_INDICES_THROUGH,
    WINDOWS,
    WINDOWS_THROUGH,
    Action,
    ChooseSequence,
    Discard,
    Exchange,
    State,
    apply,
    counts_as_new,
    is_dead,
    locked_cells,
    pending_choice,
    plays,
)

# Value of a chip in an open window (no other team's chip) by the cells the team already holds
# in it (its chips and corners): the fifth cell completes a sequence.
ATTACK = (1, 4, 20, 100, 100_000)
# Value of a chip in a window that one other team is filling, by the cells that team holds: on
# the fifth cell it stops a sequence next turn.
BLOCK = (0, 1, 8, 60, 20_000)
PLUS_RESERVE = 50  # a PLUS card is kept for a cell no equation card reaches
MINUS_RESERVE = 500  # a MINUS card is kept for a threat of three or more
# Discard preference with nothing playable: lowest first (dead equation cards go first).
DISCARD_RANK_EQUATION, DISCARD_RANK_MINUS, DISCARD_RANK_PLUS = 0, 1, 2


def heuristic(state: State, seat: int, rng: Rng) -> Action:
    """Choose ``seat``'s action: the five that locks most, exchange a dead card, else the
    best-scoring play or discard."""
    choice = pending_choice(state)
    if choice is not None:
        return _best_five(state, seat, choice.choices)
    hand = state.hands[seat]
    chips = state.chips
    if not state.exchanged:
        for card in hand:
            if card < EQUATION_COUNT and is_dead(chips, card):
                return Exchange(card)
    candidates = plays(state, seat)
    if not candidates:
        return Discard(min(hand, key=_discard_rank))
    team = seat % state.options.teams
    own = [s.cells for s in state.sequences if s.team == team]
    placements = Placements(chips, team, own, MAX_SHARED[state.options.sequence_overlap])
    best, best_value = candidates[0], -1 << 62
    for play in candidates:
        card, cell = play.card, play.cell
        if card in MINUS_CARDS:
            value = _removal_value(chips, cell) - MINUS_RESERVE
        else:
            value = placements.value(cell)
            if card in PLUS_CARDS:
                value -= PLUS_RESERVE
        if value > best_value:
            best, best_value = play, value
    return best


def _best_five(state: State, seat: int, choices: tuple[tuple[int, ...], ...]) -> Action:
    """The choice after which the most chips of the seat's team are locked (a choice may lock
    other fives along with it), the first in scan order on a tie."""
    team = seat % state.options.teams
    before = locked_cells(state.sequences)
    best, best_count = ChooseSequence(choices[0]), -1
    for cells in choices:
        action = ChooseSequence(cells)
        after = locked_cells(apply(state, seat, action)[0].sequences)
        count = sum(1 for cell in after - before if state.chips[cell] == team)
        if count > best_count:
            best, best_count = action, count
    return best


def _discard_rank(card: int) -> int:
    if card < EQUATION_COUNT:
        return DISCARD_RANK_EQUATION
    return DISCARD_RANK_MINUS if card in MINUS_CARDS else DISCARD_RANK_PLUS


class Placements:
    """What a chip of ``team`` is worth on each free cell of ``chips``, ``own`` the cells of the
    team's sequences and ``most`` the cells a new sequence may share with each of them.

    A cell's worth is the sum over the windows of five through it: in a window no other team has
    entered, extending it (nothing if it could never count beside ``own``); in a window that one
    other team is filling and this team is not, blocking it. The free cell itself adds nothing to
    a window's counts, so a window is worth the same through each of its free cells.
    """

    def __init__(
        self, chips: tuple[int, ...], team: int, own: list[tuple[int, ...]], most: int
    ) -> None:
        self.chips = chips
        self.team = team
        self.own = own
        self.most = most
        self._windows: list[int | None] = [None] * len(WINDOWS)
        self._cells: dict[int, int] = {}

    def value(self, cell: int) -> int:
        """What a chip of the team on the free ``cell`` is worth."""
        value = self._cells.get(cell)
        if value is None:
            value = 0
            for index in WINDOW_INDICES_THROUGH[cell]:
                worth = self._windows[index]
                if worth is None:
                    worth = self._windows[index] = self._window_value(WINDOWS[index])
                value += worth
            self._cells[cell] = value
        return value

    def _window_value(self, window: tuple[int, ...]) -> int:
        """What a chip of the team on a free cell of ``window`` adds through this window."""
        team, chips = self.team, self.chips
        corners = mine = theirs = 0
        other = NO_CHIP
        for x in window:
            if IS_CORNER[x]:
                corners += 1
                continue
            chip = chips[x]
            if chip == NO_CHIP:
                continue
            if chip == team:
                mine += 1
            elif other in (NO_CHIP, chip):
                other = chip
                theirs += 1
            else:
                return 0  # two other teams: nobody can complete it
        if other == NO_CHIP:
            # A window sharing two cells with one of the team's sequences can never count.
            return ATTACK[mine + corners] if counts_as_new(window, self.own, self.most) else 0
        return BLOCK[theirs + corners] if mine == 0 else 0


def _removal_value(chips: tuple[int, ...], cell: int) -> int:
    """What removing the chip on ``cell`` is worth: how far it sets back its team's windows."""
    owner = chips[cell]
    value = 0
    for window in WINDOWS_THROUGH[cell]:
        held = 0
        for x in window:
            chip = chips[x]
            if IS_CORNER[x] or chip == owner:
                held += 1
            elif chip != NO_CHIP:
                break
        else:
            held = min(held, len(BLOCK) - 1)
            value += BLOCK[held] - BLOCK[held - 1]
    return value
