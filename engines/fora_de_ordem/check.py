"""The check of a Fora de Ordem state sent back (docs/rules/fora_de_ordem.md): every state the
rules could not have produced is refused, in time linear in its size."""

from __future__ import annotations

from engines.errors import InvalidOptionsError, InvalidStateError
from engines.fora_de_ordem.data import (
    BANK_CARDS,
    DECK_SIZE,
    IS_SPECIAL,
    ITEMS,
    OWNER,
    question_problem,
)
from engines.fora_de_ordem.rules import (
    DRAW_COUNT,
    HAND_SIZE,
    MAX_SEATS,
    MIN_SEATS,
    PLAYS_PER_ROUND,
    State,
    check_options,
    finished,
    plays_this_round,
)
from engines.notation import seat_text, side_text
from engines.prng import MASK64


def validate(state: State) -> None:
    """Reject any state the rules could not have produced (linear in its size)."""
    seats = len(state.hands)
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise InvalidStateError(f"a game has {MIN_SEATS}..{MAX_SEATS} seats, not {seats}")
    if len(state.decks) != seats or len(state.score_piles) != seats:
        raise InvalidStateError(f"decks and score piles need one entry per seat ({seats})")
    if len(state.sides) != ITEMS:
        raise InvalidStateError(f"the board has {ITEMS} sides, not {len(state.sides)}")
    _validate_options_and_questions(state, seats)
    if not 0 <= state.rng_state <= MASK64:
        raise InvalidStateError("the generator state is not a 64-bit value")
    over = finished(state)
    played = sum(map(len, state.sides))
    if played >= PLAYS_PER_ROUND * seats:
        raise InvalidStateError("every card of the round is played but the round is unresolved")
    if over and played:
        raise InvalidStateError("cards are on the board after the last round")
    located = _validate_hands_and_decks(state)
    for group in (*state.score_piles, state.discarded):
        if sorted(set(group)) != list(group):
            raise InvalidStateError("score piles and discarded cards must be ascending")
        located.extend(group)
    for stack in state.sides:
        located.extend(stack)
    # Card conservation: every card of every seat's deck is in exactly one place.
    if sorted(located) != list(range(seats * DECK_SIZE)):
        raise InvalidStateError(_conservation_problem(located, seats * DECK_SIZE))
    on_board = [0] * seats
    for side, stack in enumerate(state.sides):
        if stack and IS_SPECIAL[stack[0]]:
            raise InvalidStateError(f"a special card is at the bottom of {side_text(side)}")
        for card in stack:
            on_board[OWNER[card]] += 1
    if not over and on_board != plays_this_round(state):
        raise InvalidStateError("the cards on the board do not match the seats' turns")
    # Every action plays one card: the revision is the number of cards played.
    plays = state.rounds_played * PLAYS_PER_ROUND * seats + played
    if state.revision != plays:
        raise InvalidStateError(
            f"the revision {state.revision} does not follow from the turns played: {plays} actions"
        )


def _validate_options_and_questions(state: State, seats: int) -> None:
    options = state.options
    try:
        check_options(options, seats)
    except InvalidOptionsError as error:
        raise InvalidStateError(f"bad options in the state: {error.message}") from None
    if options.custom_questions:
        raise InvalidStateError("a state carries its round questions, not custom_questions")
    if not 0 <= state.rounds_played <= options.rounds:
        raise InvalidStateError(f"rounds_played must be 0..{options.rounds}")
    if len(state.questions) != options.rounds:
        raise InvalidStateError(
            f"the state holds {len(state.questions)} questions for {options.rounds} rounds"
        )
    for number, question in enumerate(state.questions, start=1):
        if question in BANK_CARDS:
            continue  # checked when the bank was loaded
        problem = question_problem(question)
        if problem is not None:
            raise InvalidStateError(f"question of round {number} ({question.id}): {problem}")


def _validate_hands_and_decks(state: State) -> list[int]:
    """Hands and decks hold only their seat's cards, as many as its draws and plays leave;
    return those cards."""
    over = finished(state)
    # Each seat drew 4, then 3 before every later round.
    drawn = HAND_SIZE + DRAW_COUNT * min(state.rounds_played, state.options.rounds - 1)
    located: list[int] = []
    plays = [PLAYS_PER_ROUND] * len(state.hands) if over else plays_this_round(state)
    for seat, (hand, deck) in enumerate(zip(state.hands, state.decks, strict=True)):
        expected = HAND_SIZE - plays[seat]
        if len(hand) != expected:
            raise InvalidStateError(f"{seat_text(seat)} holds {len(hand)} cards, not {expected}")
        if len(deck) != DECK_SIZE - drawn:
            raise InvalidStateError(
                f"{seat_text(seat)}'s deck has {len(deck)} cards, not {DECK_SIZE - drawn}"
            )
        if sorted(set(hand)) != list(hand):
            raise InvalidStateError(f"{seat_text(seat)}'s hand must be ascending without repeats")
        cards = hand + deck
        first = seat * DECK_SIZE
        if cards and not (first <= min(cards) and max(cards) < first + DECK_SIZE):
            raise InvalidStateError(
                f"{seat_text(seat)}'s hand or deck holds a card of another seat, or of none"
            )
        located.extend(cards)
    return located


def _conservation_problem(located: list[int], total: int) -> str:
    """Say which card breaks conservation: out of the game, in two places, or missing."""
    seen: set[int] = set()
    for card in located:
        if not 0 <= card < total:
            return f"card {card} is not a card of this game"
        if card in seen:
            return f"card {card} is in two places"
        seen.add(card)
    missing = min(set(range(total)) - seen)
    return f"the cards do not add up: card {missing} is missing"
