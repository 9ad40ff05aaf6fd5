"""The Fora de Ordem codec: ``ordo.v1.ForaDeOrdem*`` messages <-> ``engines.fora_de_ordem`` values.

States carry card ids only; views and events show each card face up (``ForaDeOrdemCard``), built
once per card id at import. A state whose questions all come from the built-in bank names them by
id (the bank of the options' language holds their texts and ranks); otherwise they travel in full.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engines.errors import InvalidStateError, MalformedActionError, quoted
from engines.fora_de_ordem import data, rules
from ordo.v1 import fora_de_ordem_pb2 as pb
from service.codecs.base import (
    EnumMap,
    StateParts,
    at_most,
    field_part,
    flatten,
    groups_part,
    split,
)

OPTION_SETS_KEPT = 64  # serialized option sets of states: a language, a round count, a seat

LANGUAGE = EnumMap(
    data.Language.PT_BR,
    {
        pb.FORA_DE_ORDEM_LANGUAGE_PT_BR: data.Language.PT_BR,
        pb.FORA_DE_ORDEM_LANGUAGE_EN: data.Language.EN,
    },
)
KIND = EnumMap(
    data.CardKind.NUMBER,
    {
        pb.FORA_DE_ORDEM_CARD_KIND_NUMBER: data.CardKind.NUMBER,
        pb.FORA_DE_ORDEM_CARD_KIND_PREVIOUS_CORRECT: data.CardKind.PREVIOUS_CORRECT,
        pb.FORA_DE_ORDEM_CARD_KIND_PREVIOUS_WRONG: data.CardKind.PREVIOUS_WRONG,
    },
)
COLOUR = EnumMap(
    data.Colour.YELLOW,
    {
        pb.FORA_DE_ORDEM_COLOUR_YELLOW: data.Colour.YELLOW,
        pb.FORA_DE_ORDEM_COLOUR_PURPLE: data.Colour.PURPLE,
        pb.FORA_DE_ORDEM_COLOUR_PINK: data.Colour.PINK,
        pb.FORA_DE_ORDEM_COLOUR_BLUE: data.Colour.BLUE,
        pb.FORA_DE_ORDEM_COLOUR_GREEN: data.Colour.GREEN,
        pb.FORA_DE_ORDEM_COLOUR_ORANGE: data.Colour.ORANGE,
    },
)

#: Every player card face up, by id.
CARDS: tuple[pb.ForaDeOrdemCard, ...] = tuple(
    pb.ForaDeOrdemCard(
        id=card,
        owner=data.OWNER[card],
        kind=KIND.encode(face.kind),
        ranks=face.ranks,
        bombs=face.bombs,
    )
    for card, face in enumerate(data.FACES)
)


def _card(card: int) -> pb.ForaDeOrdemCard:
    if not 0 <= card < len(CARDS):
        raise InvalidStateError(f"card {card} is not a card of this game")
    return CARDS[card]


def _faces(cards: tuple[int, ...]) -> list[pb.ForaDeOrdemCard]:
    return [_card(card) for card in cards]


#: The built-in bank's questions, per language, by id.
BANK_BY_ID: dict[data.Language, dict[str, data.Question]] = {
    language: {question.id: question for question in questions}
    for language, questions in data.BANK.items()
}


def _question(msg: pb.ForaDeOrdemQuestion) -> data.Question:
    return data.Question(
        id=msg.id,
        category=msg.category,
        items=tuple(msg.items),
        ranks=tuple(msg.ranks),
    )


def _encode_question(question: data.Question) -> pb.ForaDeOrdemQuestion:
    return pb.ForaDeOrdemQuestion(
        id=question.id,
        category=question.category,
        items=question.items,
        ranks=question.ranks,
    )


def _questions(
    msg: pb.ForaDeOrdemState, bank: dict[str, data.Question]
) -> tuple[data.Question, ...]:
    """The round questions of a state: named by their bank ids, or carried in full."""
    at_most(msg.questions, rules.MAX_ROUNDS, "questions")
    at_most(msg.bank_question_ids, rules.MAX_ROUNDS, "bank question ids")
    if not msg.bank_question_ids:
        return tuple(_question(question) for question in msg.questions)
    if msg.questions:
        raise InvalidStateError("a state carries questions or bank question ids, not both")
    try:
        return tuple(bank[question_id] for question_id in msg.bank_question_ids)
    except KeyError as error:
        raise InvalidStateError(
            f"question {quoted(error.args[0])} is not in the built-in bank"
        ) from None


def _bank_ids(questions: tuple[data.Question, ...], bank: dict[str, data.Question]) -> list[str]:
    """The ids of the questions if the bank holds exactly every one of them, else none."""
    for question in questions:
        known = bank.get(question.id)
        if known is not question and known != question:
            return []
    return [question.id for question in questions]


def _options(msg: pb.ForaDeOrdemOptions, decode: Any) -> rules.Options:
    return rules.Options(
        language=decode(LANGUAGE, msg.language, "language"),
        rounds=msg.rounds or rules.DEFAULT_ROUNDS,
        starting_seat=msg.starting_seat,
        custom_questions=tuple(_question(question) for question in msg.custom_questions),
    )


def _encode_options(options: rules.Options) -> pb.ForaDeOrdemOptions:
    return pb.ForaDeOrdemOptions(
        language=LANGUAGE.encode(options.language),
        rounds=options.rounds,
        starting_seat=options.starting_seat,
        custom_questions=[_encode_question(question) for question in options.custom_questions],
    )


def _piles(groups: tuple[tuple[int, ...], ...]) -> list[pb.ForaDeOrdemCards]:
    return [pb.ForaDeOrdemCards(cards=_faces(cards)) for cards in groups]


@lru_cache(maxsize=OPTION_SETS_KEPT)
def _serialized_options(options: rules.Options) -> bytes:
    """The options field of a serialized state, made once per option set."""
    return pb.ForaDeOrdemState(options=_encode_options(options)).SerializeToString()


def _full_questions(questions: tuple[data.Question, ...], options: rules.Options) -> bytes:
    """The questions field of a serialized state: empty when the bank names them all."""
    if _bank_ids(questions, BANK_BY_ID[options.language]):
        return b""
    return pb.ForaDeOrdemState(
        questions=[_encode_question(question) for question in questions]
    ).SerializeToString()


def _bank_question_ids(questions: tuple[data.Question, ...], options: rules.Options) -> bytes:
    """The bank_question_ids field of a serialized state: empty unless the bank names them all."""
    bank_ids = _bank_ids(questions, BANK_BY_ID[options.language])
    return pb.ForaDeOrdemState(bank_question_ids=bank_ids).SerializeToString()


class ForaDeOrdemCodec:
    """Translates Fora de Ordem messages."""

    game_id = rules.GAME_ID
    # In field number order: options 1, questions 2, rounds_played 3, discarded 8, rng_state 9,
    # hands 10-11 … score piles 16-17, bank_question_ids 18. The questions go to field 2, or by
    # their ids to field 18 when the bank of the options' language holds them all: both parts
    # read the questions and the options.
    state_parts: StateParts | None = StateParts(
        (
            ("options", _serialized_options),
            (("questions", "options"), _full_questions),
            *(
                (name, field_part(pb.ForaDeOrdemState, name))
                for name in ("rounds_played", "discarded", "rng_state")
            ),
            ("hands", groups_part(pb.ForaDeOrdemState, "hand_cards", "hand_sizes")),
            ("decks", groups_part(pb.ForaDeOrdemState, "deck_cards", "deck_sizes")),
            ("sides", groups_part(pb.ForaDeOrdemState, "side_cards", "side_sizes")),
            (
                "score_piles",
                groups_part(pb.ForaDeOrdemState, "score_pile_cards", "score_pile_sizes"),
            ),
            (("questions", "options"), _bank_question_ids),
        )
    )

    def decode_state(
        self, msg: pb.ForaDeOrdemState, rules_version: int, revision: int
    ) -> rules.State:
        if not msg.HasField("options"):
            raise InvalidStateError("the state has no options")
        at_most(msg.options.custom_questions, rules.MAX_CUSTOM_QUESTIONS, "custom questions")
        options = _options(msg.options, EnumMap.decode_state)
        bank = BANK_BY_ID[options.language]
        return rules.State(
            rules_version=rules_version,
            revision=revision,
            options=options,
            questions=_questions(msg, bank),
            rounds_played=msg.rounds_played,
            hands=split(msg.hand_cards, msg.hand_sizes, "hands"),
            decks=split(msg.deck_cards, msg.deck_sizes, "decks"),
            sides=split(msg.side_cards, msg.side_sizes, "sides"),
            score_piles=split(msg.score_pile_cards, msg.score_pile_sizes, "score piles"),
            discarded=tuple(msg.discarded),
            rng_state=msg.rng_state,
        )

    def encode_state(self, state: rules.State) -> pb.ForaDeOrdemState:
        bank_ids = _bank_ids(state.questions, BANK_BY_ID[state.options.language])
        return pb.ForaDeOrdemState(
            options=_encode_options(state.options),
            questions=() if bank_ids else [_encode_question(q) for q in state.questions],
            bank_question_ids=bank_ids,
            rounds_played=state.rounds_played,
            hand_cards=flatten(state.hands),
            hand_sizes=map(len, state.hands),
            deck_cards=flatten(state.decks),
            deck_sizes=map(len, state.decks),
            side_cards=flatten(state.sides),
            side_sizes=map(len, state.sides),
            score_pile_cards=flatten(state.score_piles),
            score_pile_sizes=map(len, state.score_piles),
            discarded=state.discarded,
            rng_state=state.rng_state,
        )

    def decode_action(self, msg: pb.ForaDeOrdemAction) -> rules.Action:
        if msg.WhichOneof("move") == "play":
            return rules.Play(msg.play.card, msg.play.side)
        raise MalformedActionError("the Fora de Ordem action has no move set")

    def encode_action(self, action: rules.Action) -> pb.ForaDeOrdemAction:
        return pb.ForaDeOrdemAction(play=pb.ForaDeOrdemPlay(card=action.card, side=action.side))

    def decode_options(self, msg: pb.ForaDeOrdemOptions) -> rules.Options:
        # Counted before the questions are decoded, each into a Python value.
        rules.check_custom_question_count(len(msg.custom_questions))
        return _options(msg, EnumMap.decode_option)

    def encode_view(self, view: rules.View) -> pb.ForaDeOrdemView:
        return pb.ForaDeOrdemView(
            options=_encode_options(view.options),
            round=view.round,
            rounds_played=view.rounds_played,
            round_starting_seat=view.round_starting_seat,
            question_id=view.question_id,
            category=view.category,
            items=view.items,
            sides=_piles(view.sides),
            hand=_faces(view.hand),
            hand_sizes=view.hand_sizes,
            deck_sizes=view.deck_sizes,
            score_piles=_piles(view.score_piles),
            bombs=view.bombs,
            discarded=_faces(view.discarded),
            colours=[COLOUR.encode(colour) for colour in view.colours],
        )

    def encode_event(self, body: Any) -> pb.ForaDeOrdemEvent:
        match body:
            case rules.CardPlayed(seat, card, side, item):
                return pb.ForaDeOrdemEvent(
                    card_played=pb.ForaDeOrdemCardPlayed(
                        seat=seat, card=_card(card), side=side, item=item
                    )
                )
            case rules.RanksRevealed(round_number, question_id, items, ranks):
                return pb.ForaDeOrdemEvent(
                    ranks_revealed=pb.ForaDeOrdemRanksRevealed(
                        round=round_number,
                        question_id=question_id,
                        ranks=ranks,
                        items=items,
                    )
                )
            case rules.SideResolved(side, item, cards, correct, taker, taken, bombs, discarded):
                return pb.ForaDeOrdemEvent(
                    side_resolved=pb.ForaDeOrdemSideResolved(
                        side=side,
                        item=item,
                        cards=_faces(cards),
                        correct=correct,
                        taker=taker,
                        taken=taken,
                        bombs=bombs,
                        discarded=discarded,
                    )
                )
            case rules.HandsRefilled(round_number, count):
                return pb.ForaDeOrdemEvent(
                    hands_refilled=pb.ForaDeOrdemHandsRefilled(round=round_number, count=count)
                )
            case rules.CardsDrawn(seat, cards):
                return pb.ForaDeOrdemEvent(
                    cards_drawn=pb.ForaDeOrdemCardsDrawn(seat=seat, cards=_faces(cards))
                )
            case rules.RoundStarted(round_number, starting_seat, question_id, category, items):
                return pb.ForaDeOrdemEvent(
                    round_started=pb.ForaDeOrdemRoundStarted(
                        round=round_number,
                        starting_seat=starting_seat,
                        question_id=question_id,
                        category=category,
                        items=items,
                    )
                )
            case rules.GameEnded(bombs, last_cards, winners):
                return pb.ForaDeOrdemEvent(
                    game_ended=pb.ForaDeOrdemGameEnded(
                        bombs=bombs, last_cards=_faces(last_cards), winners=winners
                    )
                )
        raise TypeError(f"not a Fora de Ordem event: {body!r}")


CODEC = ForaDeOrdemCodec()
