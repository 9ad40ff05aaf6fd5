"""The check of an Up or Down? state sent back (docs/rules/up_or_down.md): every state the
rules could not have produced is refused, in time linear in its size."""

from __future__ import annotations

from itertools import pairwise

from engines.errors import InvalidOptionsError, InvalidStateError
from engines.notation import seat_text
from engines.prng import MASK64
from engines.up_or_down.data import Length
from engines.up_or_down.rules import (
    CIRCLE_SIZE,
    HAND_SIZE,
    MAX_ROWS,
    MAX_SEATS,
    MIN_SEATS,
    DiscardScoring,
    Options,
    State,
    highest_card,
    initial_pile_cards,
    total_turns,
)


def check_options(options: Options) -> None:
    """Raise ``InvalidOptionsError`` naming the first option that holds an unknown value."""
    for name, allowed in (("length", Length), ("discard_scoring", DiscardScoring)):
        value = getattr(options, name)
        if not isinstance(value, allowed):
            raise InvalidOptionsError(
                f"{name} must be one of {', '.join(m.value for m in allowed)}, not {value!r}",
                option=name,
            )


def validate(state: State) -> None:
    """Reject any state the rules could not have produced (linear in its size)."""
    _check_shape(state)
    for seat in range(len(state.hands)):
        _check_display(state, seat)
    _check_piles_and_hands(state)
    _check_cards(state)


def _check_shape(state: State) -> None:
    """The seats, one entry per seat in each list, the options, the generator, the turns and
    the circle."""
    seats = len(state.hands)
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise InvalidStateError(f"a game has {MIN_SEATS}..{MAX_SEATS} seats, not {seats}")
    for name in ("displays", "discards", "abandoned"):
        if len(getattr(state, name)) != seats:
            raise InvalidStateError(f"{name} must have one entry per seat ({seats})")
    if not isinstance(state.options, Options):
        raise InvalidStateError("the state's options are not Up or Down? options")
    try:
        check_options(state.options)
    except InvalidOptionsError as error:
        raise InvalidStateError(f"bad options in the state: {error.message}") from None
    if not 0 <= state.rng_state <= MASK64:
        raise InvalidStateError("the generator state is not a 64-bit value")
    if state.revision > total_turns(state.options, seats):
        raise InvalidStateError("more turns were played than the game has")
    if len(state.circle) != CIRCLE_SIZE or not ascending(state.circle):
        raise InvalidStateError(f"the circle holds {CIRCLE_SIZE} cards in ascending order")


def _check_display(state: State, seat: int) -> None:
    """A seat's display and discard pile. Each turn puts exactly one card into the display of
    the seat that played it, so they hold one card per turn it played (seats take turns from
    seat 0)."""
    seats, turns = len(state.hands), state.revision
    display = state.displays[seat]
    if len(display) > MAX_ROWS:
        raise InvalidStateError(f"{seat_text(seat)}'s display has more than {MAX_ROWS} rows")
    placed = 0
    for row in display:
        if not row:
            raise InvalidStateError(f"{seat_text(seat)}'s display has an empty row")
        if len(row) > 1 and not (ascending(row) or ascending(row[::-1])):
            raise InvalidStateError(
                f"a row of {seat_text(seat)} breaks the direction its second card fixed"
            )
        placed += len(row)
    discard = state.discards[seat]
    abandoned = state.abandoned[seat]
    if not ascending(discard):
        raise InvalidStateError(f"{seat_text(seat)}'s discard pile must be ascending")
    # Every abandoned row sends at least one card to the discard pile, and the taken card
    # restarts it, so a seat that abandoned a row still has one.
    if (
        abandoned < 0
        or abandoned > len(discard)
        or (abandoned == 0) != (not discard)
        or (abandoned and not display)
    ):
        raise InvalidStateError(f"{seat_text(seat)}'s abandoned rows do not match its discards")
    placed += len(discard)
    seat_turns = turns // seats + (seat < turns % seats)
    if placed != seat_turns:
        raise InvalidStateError(
            f"{seat_text(seat)}'s display and discard pile hold {placed} cards "
            f"after its {seat_turns} turns"
        )


def _check_piles_and_hands(state: State) -> None:
    """Every turn draws while the piles last; after that each turn empties a hand by one
    card."""
    seats, turns = len(state.hands), state.revision
    piles = initial_pile_cards(state.options, seats)
    if len(state.face_down) + len(state.face_up) != max(0, piles - turns):
        raise InvalidStateError("the piles do not hold the cards left after the draws")
    # Piles only shrink: neither holds more than the deal gave it.
    if len(state.face_down) > (piles + 1) // 2 or len(state.face_up) > piles // 2:
        raise InvalidStateError("a pile holds more cards than the deal gave it")
    undrawn_turns = max(0, turns - piles)
    for seat, hand in enumerate(state.hands):
        if not ascending(hand):
            raise InvalidStateError(f"{seat_text(seat)}'s hand must be ascending")
        # Turns without a draw were played by seats piles % seats, piles % seats + 1 and so on
        played = undrawn_turns // seats + ((seat - piles) % seats < undrawn_turns % seats)
        if len(hand) != HAND_SIZE - played:
            raise InvalidStateError(
                f"{seat_text(seat)} holds {len(hand)} cards, not {HAND_SIZE - played}"
            )


def _check_cards(state: State) -> None:
    """Card conservation: every card of the set is in exactly one place."""
    highest = highest_card(state.options, len(state.hands))
    located = [*state.circle, *state.face_down, *state.face_up]
    for group in (state.hands, state.discards):
        for cards in group:
            located.extend(cards)
    for display in state.displays:
        for row in display:
            located.extend(row)
    if (
        len(located) != highest
        or len(set(located)) != highest
        or min(located) < 1
        or max(located) > highest
    ):
        raise InvalidStateError("the cards do not add up: a card is missing, repeated or foreign")


def ascending(cards: tuple[int, ...]) -> bool:
    return all(a < b for a, b in pairwise(cards))
