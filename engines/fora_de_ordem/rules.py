"""The rules of Fora de Ordem: value types, dealing, playing, resolution and state validation.

See the package docstring for the rules and the decisions taken.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.base import Event, Outcome
from engines.errors import (
    IllegalActionError,
    InvalidOptionsError,
    MalformedActionError,
    quoted,
)
from engines.fora_de_ordem.data import (
    BANK,
    BOMBS,
    CARD_COUNT,
    COLOURS,
    DECK_SIZE,
    IS_SPECIAL,
    ITEMS,
    KIND,
    OWNER,
    RANK_MASK,
    CardKind,
    Colour,
    Language,
    Question,
    card_text,
    deck_of,
    item_mask,
    question_problem,
)
from engines.notation import field_text, seat_text, side_text
from engines.prng import Rng

# Bank cards travel as ids: a change to questions.json needs a new RULES_VERSION.
RULES_VERSION = 2
GAME_ID = "fora_de_ordem"
MIN_SEATS, MAX_SEATS = 2, len(COLOURS)  # one deck colour per seat
HAND_SIZE = 4  # cards drawn at setup, and held again after each refill
PLAYS_PER_ROUND = 3  # the round ends when every seat has 1 card left
DRAW_COUNT = PLAYS_PER_ROUND  # between rounds each seat draws back to HAND_SIZE
# 4 + 3 * 5 = 19: six rounds use a whole deck, so no game can have more.
MAX_ROUNDS = 1 + (DECK_SIZE - HAND_SIZE) // DRAW_COUNT
DEFAULT_ROUNDS = MAX_ROUNDS  # the printed game plays 6 rounds
MAX_CUSTOM_QUESTIONS = 1000  # a bound on the custom bank a NewGame may carry
NO_TAKER = -1  # a side whose cards were all correct
TERMINATION = "ROUNDS_COMPLETED"
INVALID_CUSTOM_QUESTION = "INVALID_CUSTOM_QUESTION"


@dataclass(frozen=True, slots=True)
class Options:
    """The variant settings of a game."""

    language: Language = Language.PT_BR  # of the built-in bank
    rounds: int = DEFAULT_ROUNDS  # 1..6
    starting_seat: int = 0  # the "youngest player", who starts round 1
    custom_questions: tuple[Question, ...] = ()  # played instead of the bank; () in a state


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card from hand on top of one of the 5 sides (side = item index)."""

    card: int
    side: int

    def __str__(self) -> str:
        return f"play {card_text(self.card)} (card={self.card}) on {side_text(self.side)}"


Action = Play


@dataclass(frozen=True, slots=True)
class State:
    """The whole state of a game; ``hands``, ``decks``, ``rng_state``, the questions of later
    rounds and the current question's ranks are hidden."""

    rules_version: int
    revision: int
    options: Options
    questions: tuple[Question, ...]  # one per round, in round order
    rounds_played: int  # rounds resolved; the game is over at options.rounds
    hands: tuple[tuple[int, ...], ...]  # hidden: card ids, each ascending
    decks: tuple[tuple[int, ...], ...]  # hidden: draw order, next card first
    sides: tuple[tuple[int, ...], ...]  # the 5 sides, bottom card first
    score_piles: tuple[tuple[int, ...], ...]  # face up, each ascending
    discarded: tuple[int, ...]  # correct cards out of the game, ascending
    rng_state: int  # hidden


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer sees: the question without its ranks, the sides, the score piles and the
    viewer's own hand; no other hand, no deck order, no later question, no generator."""

    options: Options
    round: int  # 1-based; the last round once the game is over
    rounds_played: int
    round_starting_seat: int
    question_id: str
    category: str
    items: tuple[str, ...]
    sides: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    deck_sizes: tuple[int, ...]
    score_piles: tuple[tuple[int, ...], ...]
    bombs: tuple[int, ...]
    discarded: tuple[int, ...]
    colours: tuple[Colour, ...]


# Events, each public unless addressed to one seat.
@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A seat played a card on a side."""

    seat: int
    card: int
    side: int
    item: str


@dataclass(frozen=True, slots=True)
class RanksRevealed:
    """The back of the round's question card: the rank set of each item."""

    round: int
    question_id: str
    items: tuple[str, ...]
    ranks: tuple[int, ...]  # a competition ranking, as in Question


@dataclass(frozen=True, slots=True)
class SideResolved:
    """One side judged: correct cards above the first wrong one are discarded; the owner of the
    first wrong card from the top takes it and everything beneath."""

    side: int
    item: str
    cards: tuple[int, ...]  # bottom first
    correct: tuple[bool, ...]  # per card, bottom first
    taker: int  # NO_TAKER when every card was correct
    taken: tuple[int, ...]
    bombs: int
    discarded: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandsRefilled:
    """Every seat drew ``count`` cards before ``round``."""

    round: int
    count: int


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    """The cards one seat drew (addressed to that seat only)."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round started: its question's front side (category and items, never the ranks)."""

    round: int
    starting_seat: int
    question_id: str
    category: str
    items: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The final bombs, the cards left in hand (revealed for the tie-break) and the winners."""

    bombs: tuple[int, ...]
    last_cards: tuple[int, ...]
    winners: tuple[int, ...]


# ------------------------------------------------------------------------- options and setup
def check_options(options: Options, seats: int) -> None:
    """Raise ``InvalidOptionsError`` unless the options fit a game of ``seats`` seats."""
    if not isinstance(options.language, Language):
        raise InvalidOptionsError(f"unknown language {options.language!r}", option="language")
    if not 1 <= options.rounds <= MAX_ROUNDS:
        raise InvalidOptionsError(
            f"rounds must be 1..{MAX_ROUNDS}, not {options.rounds}", option="rounds"
        )
    if not 0 <= options.starting_seat < seats:
        raise InvalidOptionsError(
            f"starting_seat must be a seat of the game (0..{seats - 1}), "
            f"not {options.starting_seat}",
            option="starting_seat",
        )
    custom = options.custom_questions
    if not custom:
        return
    check_custom_question_count(len(custom))
    if len(custom) < options.rounds:
        raise InvalidOptionsError(
            f"{len(custom)} custom questions are too few for {options.rounds} rounds",
            option="custom_questions",
        )
    first_numbers: dict[str, int] = {}  # the number of the first question with each id
    named = custom_question_ids(custom)
    for number, (question, name) in enumerate(zip(custom, named, strict=True), start=1):
        problem = question_problem(question)
        first = first_numbers.setdefault(name.id, number)
        if problem is None and first != number:
            problem = f"question {first} has the same id (ids name the questions in views)"
        if problem is not None:
            raise InvalidOptionsError(
                f"custom question {number} ({_question_name(question)}): {problem}",
                INVALID_CUSTOM_QUESTION,
                option="custom_questions",
                question=str(number),
            )


def check_custom_question_count(count: int) -> None:
    """Raise ``InvalidOptionsError`` for more custom questions than a game may carry."""
    if count > MAX_CUSTOM_QUESTIONS:
        raise InvalidOptionsError(
            f"at most {MAX_CUSTOM_QUESTIONS} custom questions, not {count:,}",
            option="custom_questions",
        )


def custom_question_ids(questions: tuple[Question, ...]) -> tuple[Question, ...]:
    """Name the custom cards that came without an id ``custom-N`` (N from 1, in order)."""
    return tuple(
        question
        if question.id
        else Question(f"custom-{number}", question.category, question.items, question.ranks)
        for number, question in enumerate(questions, start=1)
    )


def deal(seats: int, rng: Rng, options: Options) -> State:
    """Setup: each seat shuffles its deck and draws 4; shuffle the questions and keep one per
    round. Custom questions replace the bank."""
    check_options(options, seats)
    decks = [rng.shuffle(deck_of(seat)) for seat in range(seats)]
    pool = custom_question_ids(options.custom_questions) or BANK[options.language]
    questions = _sample(rng, pool, options.rounds)
    return State(
        rules_version=RULES_VERSION,
        revision=0,
        options=Options(options.language, options.rounds, options.starting_seat),
        questions=questions,
        rounds_played=0,
        hands=tuple(tuple(sorted(deck[:HAND_SIZE])) for deck in decks),
        decks=tuple(deck[HAND_SIZE:] for deck in decks),
        sides=((),) * ITEMS,
        score_piles=((),) * seats,
        discarded=(),
        rng_state=rng.state,
    )


def _sample(rng: Rng, pool: tuple[Question, ...], count: int) -> tuple[Question, ...]:
    """``count`` cards drawn from a shuffled pool: the last ``count`` steps of a Fisher-Yates
    shuffle (last index first), so only the cards drawn cost a random number."""
    cards = list(pool)
    for index in range(len(cards) - 1, len(cards) - 1 - count, -1):
        other = rng.below(index + 1)
        cards[index], cards[other] = cards[other], cards[index]
    return tuple(reversed(cards[len(cards) - count :]))


# ------------------------------------------------------------------------- whose turn
def finished(state: State) -> bool:
    """Whether the last round has been resolved."""
    return state.rounds_played == state.options.rounds


def round_starting_seat(state: State) -> int:
    """The seat that starts the current round: the start passes on one seat per round."""
    options = state.options
    current = min(state.rounds_played, options.rounds - 1)
    return (options.starting_seat + current) % len(state.hands)


def seat_to_act(state: State) -> int:
    """The seat whose turn it is in a round under way: from the round's starting seat, in seat
    order."""
    a, b, c, d, e = state.sides
    played = len(a) + len(b) + len(c) + len(d) + len(e)
    return (state.options.starting_seat + state.rounds_played + played) % len(state.hands)


def plays_this_round(state: State) -> list[int]:
    """How many cards each seat has played in the current round: turns go round the table from
    the round's starting seat."""
    seats = len(state.hands)
    played = sum(map(len, state.sides))
    start = round_starting_seat(state)
    return [(played - (seat - start) % seats + seats - 1) // seats for seat in range(seats)]


def bombs_of(cards: tuple[int, ...]) -> int:
    """The bombs printed on some cards."""
    return sum(BOMBS[card] for card in cards)


def outcome(state: State) -> Outcome | None:
    """Fewest bombs wins; a tie goes to the fewest bombs on the card left in hand; if still tied,
    all tied seats win."""
    if not finished(state):
        return None
    bombs = tuple(bombs_of(pile) for pile in state.score_piles)
    return Outcome(
        scores=bombs,
        winners=winners(bombs, state.hands),
        lower_is_better=True,
        termination=TERMINATION,
    )


def winners(bombs: tuple[int, ...], hands: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """The seats with the fewest bombs, then the fewest bombs in hand."""
    best = min(bombs)
    tied = [seat for seat, total in enumerate(bombs) if total == best]
    in_hand = {seat: bombs_of(hands[seat]) for seat in tied}
    least = min(in_hand.values())
    return tuple(seat for seat in tied if in_hand[seat] == least)


# ------------------------------------------------------------------------- playing
def play(state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Put a card from hand on top of a side; the round's last card resolves the round."""
    if not isinstance(action, Play):
        raise MalformedActionError(f"not a Fora de Ordem action: {action!r}")
    card, side = action.card, action.side
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalActionError(
            f"{_card_named(card)} is not in {seat_text(seat)}'s hand", "CARD_NOT_IN_HAND"
        )
    if not 0 <= side < ITEMS:
        raise IllegalActionError(
            f"{field_text('play.side', side)} names no side: the wire numbers them "
            f"0 to {ITEMS - 1}",
            "NO_SUCH_SIDE",
        )
    stack = state.sides[side]
    if IS_SPECIAL[card] and not stack:
        raise IllegalActionError(
            f"a special card ({card_text(card)}) may only go on a side that has a card",
            "SPECIAL_ON_EMPTY_SIDE",
        )
    hands = list(state.hands)
    hands[seat] = tuple([c for c in hand if c != card])
    sides = list(state.sides)
    sides[side] = (*stack, card)
    played = Event(CardPlayed(seat, card, side, state.questions[state.rounds_played].items[side]))
    a, b, c, d, e = sides
    if len(a) + len(b) + len(c) + len(d) + len(e) < PLAYS_PER_ROUND * len(hands):
        new = State(
            state.rules_version,
            state.revision + 1,
            state.options,
            state.questions,
            state.rounds_played,
            tuple(hands),
            state.decks,
            tuple(sides),
            state.score_piles,
            state.discarded,
            state.rng_state,
        )
        return new, (played,)
    return _resolve_round(state, hands, sides, [played])


def judge(stack: tuple[int, ...], item_mask: int) -> tuple[bool, ...]:
    """Each card's correctness, bottom-up: a number card is correct if the item's rank is one of
    its numbers; "previous is correct" / "previous is wrong" copy / invert the card beneath."""
    verdicts: list[bool] = []
    previous = False
    for card in stack:
        kind = KIND[card]
        if kind is CardKind.NUMBER:
            previous = bool(RANK_MASK[card] & item_mask)
        elif kind is CardKind.PREVIOUS_WRONG:
            previous = not previous
        verdicts.append(previous)
    return tuple(verdicts)


def top_wrong(verdicts: tuple[bool, ...]) -> int:
    """The index of the first wrong card examined from the top, or -1 if all are correct."""
    for index in range(len(verdicts) - 1, -1, -1):
        if not verdicts[index]:
            return index
    return -1


def _resolve_round(
    state: State, hands: list[tuple[int, ...]], sides: list[tuple[int, ...]], events: list[Event]
) -> tuple[State, tuple[Event, ...]]:
    """Reveal the ranks, judge every side from the top, refill the hands, start the next round."""
    round_number = state.rounds_played + 1
    question = state.questions[state.rounds_played]
    events.append(Event(RanksRevealed(round_number, question.id, question.items, question.ranks)))
    piles = [list(pile) for pile in state.score_piles]
    discarded = list(state.discarded)
    for side, stack in enumerate(sides):
        if not stack:
            continue
        verdicts = judge(stack, item_mask(question.ranks, side))
        wrong = top_wrong(verdicts)
        taken, dropped = stack[: wrong + 1], stack[wrong + 1 :]
        taker = OWNER[stack[wrong]] if wrong >= 0 else NO_TAKER
        if taken:
            piles[taker].extend(taken)
        discarded.extend(dropped)
        item = question.items[side]
        events.append(
            Event(SideResolved(side, item, stack, verdicts, taker, taken, bombs_of(taken), dropped))
        )
    score_piles = tuple(tuple(sorted(pile)) for pile in piles)
    decks = state.decks
    rounds_played = state.rounds_played + 1
    if rounds_played < state.options.rounds:
        events.append(Event(HandsRefilled(round_number + 1, DRAW_COUNT)))
        new_hands, new_decks = [], []
        for seat, (hand, deck) in enumerate(zip(hands, decks, strict=True)):
            drawn = deck[:DRAW_COUNT]
            new_hands.append(tuple(sorted(hand + drawn)))
            new_decks.append(deck[DRAW_COUNT:])
            events.append(Event(CardsDrawn(seat, drawn), (seat,)))
        hands, decks = new_hands, tuple(new_decks)
    new = State(
        state.rules_version,
        state.revision + 1,
        state.options,
        state.questions,
        rounds_played,
        tuple(hands),
        decks,
        ((),) * ITEMS,
        score_piles,
        tuple(sorted(discarded)),
        state.rng_state,
    )
    if rounds_played < state.options.rounds:
        following = state.questions[rounds_played]
        events.append(
            Event(
                RoundStarted(
                    rounds_played + 1,
                    round_starting_seat(new),
                    following.id,
                    following.category,
                    following.items,
                )
            )
        )
    else:
        bombs = tuple(bombs_of(pile) for pile in score_piles)
        last_cards = tuple(hand[0] for hand in hands)
        events.append(Event(GameEnded(bombs, last_cards, winners(bombs, new.hands))))
    return new, tuple(events)


# ------------------------------------------------------------------------- validation
def _question_name(question: Question) -> str:
    return f"id {quoted(question.id)}" if question.id else f"category {quoted(question.category)}"


def _card_named(card: int) -> str:
    """A card of an action for a message: its text, or its id as the field carried it when the
    id names no card."""
    return card_text(card) if 0 <= card < CARD_COUNT else field_text("play.card", card)
