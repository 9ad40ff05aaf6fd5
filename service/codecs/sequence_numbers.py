"""The Sequence Numbers codec: ``ordo.v1.SequenceNumbers*`` messages ↔ ``engines.sequence_numbers``
values.

Cards travel as ids in states and actions; views and events describe them in full
(``SequenceNumbersCard``) from the deck table, so that clients need no copy of it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engines.errors import InvalidStateError, MalformedActionError
from engines.sequence_numbers import data
from engines.sequence_numbers import rules as game
from ordo.v1 import sequence_numbers_pb2 as pb
from service.codecs.base import (
    EnumMap,
    StateParts,
    at_most,
    field_part,
    flatten,
    groups_part,
    split,
)

OPTION_SETS_KEPT = 64  # serialized option sets (a handful of team counts)
SEQUENCE_LISTS_KEPT = 1024  # serialized lists of completed sequences: a game has a few at once

KIND = EnumMap(
    game.CardKind.EQUATION,
    {
        pb.SEQUENCE_NUMBERS_CARD_KIND_EQUATION: game.CardKind.EQUATION,
        pb.SEQUENCE_NUMBERS_CARD_KIND_PLUS: game.CardKind.PLUS,
        pb.SEQUENCE_NUMBERS_CARD_KIND_MINUS: game.CardKind.MINUS,
    },
)
OPERATORS = {"+": pb.SEQUENCE_NUMBERS_OPERATOR_ADD, "-": pb.SEQUENCE_NUMBERS_OPERATOR_SUBTRACT}
OVERLAP = EnumMap(
    game.SequenceOverlap.ONE_CELL,
    {
        pb.SEQUENCE_NUMBERS_SEQUENCE_OVERLAP_ONE_CELL: game.SequenceOverlap.ONE_CELL,
        pb.SEQUENCE_NUMBERS_SEQUENCE_OVERLAP_ANY: game.SequenceOverlap.ANY,
    },
)


def _card(card: int) -> pb.SequenceNumbersCard:
    kind = KIND.encode(game.card_kind(card))
    if card >= game.EQUATION_COUNT:
        return pb.SequenceNumbersCard(id=card, kind=kind)
    _, operator, left, right, result = data.EQUATIONS[card]
    return pb.SequenceNumbersCard(
        id=card, kind=kind, operator=OPERATORS[operator], left=left, right=right, result=result
    )


#: Every card's description, by id, built once.
CARDS: tuple[pb.SequenceNumbersCard, ...] = tuple(_card(card) for card in range(game.DECK_SIZE))


def _drawn_card(card: int) -> pb.SequenceNumbersCard | None:
    """The description of a drawn card; None in the public event, where the card is hidden."""
    return None if card == game.HIDDEN_CARD else CARDS[card]


def _options(msg: pb.SequenceNumbersOptions, decode: Any) -> game.Options:
    overlap = decode(OVERLAP, msg.sequence_overlap, "sequence_overlap")
    return game.Options(teams=msg.teams, sequence_overlap=overlap)


def _encode_options(options: game.Options) -> pb.SequenceNumbersOptions:
    return pb.SequenceNumbersOptions(
        teams=options.teams, sequence_overlap=OVERLAP.encode(options.sequence_overlap)
    )


def _sequences(sequences: tuple[game.Sequence, ...]) -> list[pb.SequenceNumbersSequence]:
    return [pb.SequenceNumbersSequence(team=s.team, cells=s.cells) for s in sequences]


def _choice(choice: game.SequenceChoice) -> pb.SequenceNumbersSequenceChoice:
    return pb.SequenceNumbersSequenceChoice(
        seat=choice.seat,
        team=choice.team,
        cell=choice.cell,
        choices=[
            pb.SequenceNumbersSequence(team=choice.team, cells=cells) for cells in choice.choices
        ],
    )


def _pending_cell(msg: pb.SequenceNumbersState) -> int:
    return msg.pending_choice.cell if msg.HasField("pending_choice") else game.NO_CELL


def _encode_pending(cell: int) -> pb.SequenceNumbersPendingChoice | None:
    return None if cell == game.NO_CELL else pb.SequenceNumbersPendingChoice(cell=cell)


@lru_cache(maxsize=game.CELLS + 1)
def _serialized_pending(cell: int) -> bytes:
    """The pending choice field of a serialized state: nothing while no choice is pending."""
    return pb.SequenceNumbersState(pending_choice=_encode_pending(cell)).SerializeToString()


def _pile(cards: tuple[int, ...]) -> pb.SequenceNumbersDiscardPile:
    if not cards:
        return pb.SequenceNumbersDiscardPile()
    return pb.SequenceNumbersDiscardPile(cards=cards, top=CARDS[cards[-1]])


@lru_cache(maxsize=OPTION_SETS_KEPT)
def _serialized_options(options: game.Options) -> bytes:
    """The options field of a serialized state, made once per option set."""
    return pb.SequenceNumbersState(options=_encode_options(options)).SerializeToString()


@lru_cache(maxsize=SEQUENCE_LISTS_KEPT)
def _serialized_sequences(sequences: tuple[game.Sequence, ...]) -> bytes:
    """The sequences field of a serialized state: it changes only when a sequence is completed."""
    return pb.SequenceNumbersState(sequences=_sequences(sequences)).SerializeToString()


class SequenceNumbersCodec:
    """Translates Sequence Numbers messages."""

    game_id = game.GAME_ID
    # In field number order: options 1, chips 2, sequences 3, deck 6 … rng_state 9, then hands
    # 10-11, discards 12-13 and the pending choice 14.
    state_parts: StateParts | None = StateParts(
        (
            ("options", _serialized_options),
            ("chips", field_part(pb.SequenceNumbersState, "chips")),
            ("sequences", _serialized_sequences),
            *(
                (name, field_part(pb.SequenceNumbersState, name))
                for name in ("deck", "turn", "exchanged", "rng_state")
            ),
            ("hands", groups_part(pb.SequenceNumbersState, "hand_cards", "hand_sizes")),
            ("discards", groups_part(pb.SequenceNumbersState, "discard_cards", "discard_sizes")),
            ("pending_cell", _serialized_pending),
        )
    )

    def decode_state(
        self, msg: pb.SequenceNumbersState, rules_version: int, revision: int
    ) -> game.State:
        if not msg.HasField("options"):
            raise InvalidStateError("the state has no options")
        # Sequences share at most one cell: no more than the board's five-in-a-line windows.
        at_most(msg.sequences, len(game.WINDOWS), "sequences")
        return game.State(
            rules_version=rules_version,
            revision=revision,
            options=_options(msg.options, EnumMap.decode_state),
            chips=tuple(msg.chips),
            sequences=tuple(game.Sequence(s.team, tuple(s.cells)) for s in msg.sequences),
            hands=split(msg.hand_cards, msg.hand_sizes, "hands"),
            discards=split(msg.discard_cards, msg.discard_sizes, "discards"),
            deck=tuple(msg.deck),
            turn=msg.turn,
            exchanged=msg.exchanged,
            rng_state=msg.rng_state,
            pending_cell=_pending_cell(msg),
        )

    def encode_state(self, state: game.State) -> pb.SequenceNumbersState:
        return pb.SequenceNumbersState(
            options=_encode_options(state.options),
            chips=state.chips,
            sequences=_sequences(state.sequences),
            hand_cards=flatten(state.hands),
            hand_sizes=map(len, state.hands),
            discard_cards=flatten(state.discards),
            discard_sizes=map(len, state.discards),
            deck=state.deck,
            turn=state.turn,
            exchanged=state.exchanged,
            rng_state=state.rng_state,
            pending_choice=_encode_pending(state.pending_cell),
        )

    def decode_action(self, msg: pb.SequenceNumbersAction) -> game.Action:
        move = msg.WhichOneof("move")
        if move == "play":
            return game.Play(msg.play.card, msg.play.cell)
        if move == "exchange_dead_card":
            return game.Exchange(msg.exchange_dead_card)
        if move == "discard":
            return game.Discard(msg.discard)
        if move == "choose_sequence":
            # More cells than a five are refused whatever they are: one past it is enough to
            # tell, and a request of a million cells is not made into a tuple.
            cells = msg.choose_sequence.cells[: game.SEQUENCE_LENGTH + 1]
            return game.ChooseSequence(tuple(cells))
        raise MalformedActionError("the Sequence Numbers action has no move set")

    def encode_action(self, action: game.Action) -> pb.SequenceNumbersAction:
        if isinstance(action, game.Play):
            return pb.SequenceNumbersAction(
                play=pb.SequenceNumbersPlay(card=action.card, cell=action.cell)
            )
        if isinstance(action, game.Exchange):
            return pb.SequenceNumbersAction(exchange_dead_card=action.card)
        if isinstance(action, game.ChooseSequence):
            return pb.SequenceNumbersAction(
                choose_sequence=pb.SequenceNumbersChooseSequence(cells=action.cells)
            )
        return pb.SequenceNumbersAction(discard=action.card)

    def decode_options(self, msg: pb.SequenceNumbersOptions) -> game.Options:
        return _options(msg, EnumMap.decode_option)

    def encode_view(self, view: game.View) -> pb.SequenceNumbersView:
        return pb.SequenceNumbersView(
            options=_encode_options(view.options),
            numbers=view.numbers,
            chips=view.chips,
            sequences=_sequences(view.sequences),
            hand=[CARDS[card] for card in view.hand],
            hand_sizes=view.hand_sizes,
            discards=[_pile(pile) for pile in view.discards],
            deck_size=view.deck_size,
            turn=view.turn,
            exchanged=view.exchanged,
            sequences_to_win=view.sequences_to_win,
            sequence_choice=None if view.choice is None else _choice(view.choice),
        )

    def encode_event(self, body: Any) -> pb.SequenceNumbersEvent:
        match body:
            case game.ChipPlaced(seat, team, card, cell):
                return pb.SequenceNumbersEvent(
                    chip_placed=pb.SequenceNumbersChipPlaced(
                        seat=seat, team=team, card=CARDS[card], cell=cell, number=game.NUMBERS[cell]
                    )
                )
            case game.CardDrawn(seat, card):
                return pb.SequenceNumbersEvent(
                    card_drawn=pb.SequenceNumbersCardDrawn(seat=seat, card=_drawn_card(card))
                )
            case game.ChipRemoved(seat, card, cell, team):
                return pb.SequenceNumbersEvent(
                    chip_removed=pb.SequenceNumbersChipRemoved(
                        seat=seat, card=CARDS[card], cell=cell, team=team
                    )
                )
            case game.DeadCardExchanged(seat, card):
                return pb.SequenceNumbersEvent(
                    dead_card_exchanged=pb.SequenceNumbersDeadCardExchanged(
                        seat=seat, card=CARDS[card]
                    )
                )
            case game.CardDiscarded(seat, card):
                return pb.SequenceNumbersEvent(
                    card_discarded=pb.SequenceNumbersCardDiscarded(seat=seat, card=CARDS[card])
                )
            case game.SequenceCompleted(team, cells):
                return pb.SequenceNumbersEvent(
                    sequence_completed=pb.SequenceNumbersSequenceCompleted(team=team, cells=cells)
                )
            case game.DeckReshuffled(size):
                return pb.SequenceNumbersEvent(
                    deck_reshuffled=pb.SequenceNumbersDeckReshuffled(size=size)
                )
            case game.TeamWon(team, seats):
                return pb.SequenceNumbersEvent(
                    team_won=pb.SequenceNumbersTeamWon(team=team, seats=seats)
                )
            case game.SequenceChoice():
                return pb.SequenceNumbersEvent(sequence_choice_required=_choice(body))
            case game.TurnLimitReached(turns):
                return pb.SequenceNumbersEvent(
                    turn_limit_reached=pb.SequenceNumbersTurnLimitReached(turns=turns)
                )
        raise TypeError(f"not a Sequence Numbers event: {body!r}")


CODEC = SequenceNumbersCodec()
