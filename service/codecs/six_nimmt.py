"""The 6 nimmt! codec: ``ordo.v1.SixNimmt*`` messages ↔ ``engines.six_nimmt.rules`` values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from engines.errors import InvalidStateError, MalformedActionError
from engines.six_nimmt import rules as game
from ordo.v1 import six_nimmt_pb2 as pb
from service.codecs.base import MAX_LISTS, EnumMap, StateParts, at_most, field_part, groups_part

#: Distinct option sets kept decoded; a server sees few, one per kind of game its callers play.
DECODED_OPTIONS_KEPT = 256
ACTIONS_KEPT = 256  # decoded actions kept: every card and row, with room for wrong ones
TOO_LOW = EnumMap(
    game.TooLowRule.CHOOSE_ROW,
    {
        pb.SIX_NIMMT_TOO_LOW_RULE_CHOOSE_ROW: game.TooLowRule.CHOOSE_ROW,
        pb.SIX_NIMMT_TOO_LOW_RULE_TAKE_CHEAPEST_ROW: game.TooLowRule.TAKE_CHEAPEST_ROW,
    },
)
END = EnumMap(
    game.EndRule.PENALTY_THRESHOLD,
    {
        pb.SIX_NIMMT_END_RULE_PENALTY_THRESHOLD: game.EndRule.PENALTY_THRESHOLD,
        pb.SIX_NIMMT_END_RULE_FIXED_HANDS: game.EndRule.FIXED_HANDS,
    },
)


def _options(msg: pb.SixNimmtOptions, decode: Any) -> game.Options:
    return _decoded_options(
        decode,
        msg.too_low_rule,
        msg.end,
        msg.threshold,
        msg.hands,
        msg.tactical_deck,
        msg.zero_card,
    )


@lru_cache(maxsize=DECODED_OPTIONS_KEPT)
def _decoded_options(
    decode: Any,
    too_low_rule: int,
    end: int,
    threshold: int,
    hands: int,
    tactical_deck: bool,
    zero_card: bool,
) -> game.Options:
    """The engine options of these field values. A game keeps its options for its whole life, so
    the states of every call carry the same few option sets; the engine's options are immutable
    and can be shared. A refused value raises and is not kept."""
    return game.Options(
        too_low_rule=decode(TOO_LOW, too_low_rule, "too_low_rule"),
        end=decode(END, end, "end"),
        threshold=threshold or game.DEFAULT_THRESHOLD,
        hands=hands or 1,
        tactical_deck=tactical_deck,
        zero_card=zero_card,
    )


def _encode_options(options: game.Options) -> pb.SixNimmtOptions:
    return pb.SixNimmtOptions(
        too_low_rule=TOO_LOW.encode(options.too_low_rule),
        end=END.encode(options.end),
        threshold=options.threshold,
        hands=options.hands,
        tactical_deck=options.tactical_deck,
        zero_card=options.zero_card,
    )


@lru_cache(maxsize=DECODED_OPTIONS_KEPT)
def _encoded_options(options: game.Options) -> pb.SixNimmtOptions:
    """The message of an option set, made once: callers copy it, never change it."""
    return _encode_options(options)


def _rows(rows: tuple[tuple[int, ...], ...]) -> list[pb.SixNimmtRow]:
    return [pb.SixNimmtRow(cards=row) for row in rows]


def _cards(groups: tuple[tuple[int, ...], ...]) -> list[pb.SixNimmtCards]:
    return [pb.SixNimmtCards(cards=cards) for cards in groups]


def _split(cards: Sequence[int], lengths: Sequence[int], name: str) -> tuple[tuple[int, ...], ...]:
    """Cut a flat list of cards into groups of the given lengths; the lengths must add up to the
    number of cards."""
    at_most(lengths, MAX_LISTS, f"{name} lengths")
    cards = tuple(cards)
    groups = []
    start = 0
    for length in lengths:
        end = start + length
        groups.append(cards[start:end])
        start = end
    if start != len(cards):
        raise InvalidStateError(f"the {name} lengths do not add up to the {name} cards")
    return tuple(groups)


# Actions are immutable values: the few that occur (a card, a row) are made once.
_select = lru_cache(maxsize=ACTIONS_KEPT)(game.Select)
_choose_row = lru_cache(maxsize=ACTIONS_KEPT)(game.ChooseRow)


@lru_cache(maxsize=DECODED_OPTIONS_KEPT)
def _serialized_options(options: game.Options) -> bytes:
    """The options field of a serialized state, made once per option set."""
    return pb.SixNimmtState(options=_encoded_options(options)).SerializeToString()


class SixNimmtCodec:
    """Translates 6 nimmt! messages."""

    game_id = game.GAME_ID
    # In field number order: options 1, selections 4 … rng_state 14, then rows 15-16, hands
    # 17-18, taken 19-20.
    state_parts: StateParts | None = StateParts(
        (
            ("options", _serialized_options),
            *(
                (name, field_part(pb.SixNimmtState, name))
                for name in (
                    "selections",
                    "revealed",
                    "placed",
                    "penalties",
                    "zero_card_used_in_hand",
                    "hand_number",
                    "turn",
                    "deck",
                    "discarded",
                    "rng_state",
                )
            ),
            ("rows", groups_part(pb.SixNimmtState, "row_cards", "row_lengths")),
            ("hands", groups_part(pb.SixNimmtState, "hand_cards", "hand_lengths")),
            ("taken", groups_part(pb.SixNimmtState, "taken_cards", "taken_lengths")),
        )
    )

    def decode_state(self, msg: pb.SixNimmtState, rules_version: int, revision: int) -> game.State:
        if not msg.HasField("options"):
            raise InvalidStateError("the state has no options")
        return game.State(
            rules_version=rules_version,
            revision=revision,
            options=_options(msg.options, EnumMap.decode_state),
            rows=_split(msg.row_cards, msg.row_lengths, "row"),
            hands=_split(msg.hand_cards, msg.hand_lengths, "hand"),
            selections=tuple(msg.selections),
            revealed=msg.revealed,
            placed=msg.placed,
            penalties=tuple(msg.penalties),
            taken=_split(msg.taken_cards, msg.taken_lengths, "taken"),
            zero_card_used_in_hand=tuple(msg.zero_card_used_in_hand),
            hand_number=msg.hand_number,
            turn=msg.turn,
            deck=tuple(msg.deck),
            discarded=tuple(msg.discarded),
            rng_state=msg.rng_state,
        )

    def encode_state(self, state: game.State) -> pb.SixNimmtState:
        # Filled field by field: ``extend`` takes a tuple as it is, where a constructor argument
        # costs more per card; the options message is made once per option set.
        msg = pb.SixNimmtState()
        msg.options.CopyFrom(_encoded_options(state.options))
        rows, hands, taken = state.rows, state.hands, state.taken
        msg.row_cards.extend(sum(rows, ()))
        msg.row_lengths.extend(map(len, rows))
        msg.hand_cards.extend(sum(hands, ()))
        msg.hand_lengths.extend(map(len, hands))
        msg.selections.extend(state.selections)
        msg.revealed = state.revealed
        msg.placed = state.placed
        msg.penalties.extend(state.penalties)
        msg.taken_cards.extend(sum(taken, ()))
        msg.taken_lengths.extend(map(len, taken))
        msg.zero_card_used_in_hand.extend(state.zero_card_used_in_hand)
        msg.hand_number = state.hand_number
        msg.turn = state.turn
        msg.deck.extend(state.deck)
        msg.discarded.extend(state.discarded)
        msg.rng_state = state.rng_state
        return msg

    def decode_action(self, msg: pb.SixNimmtAction) -> game.Action:
        move = msg.WhichOneof("move")
        if move == "select_card":
            return _select(msg.select_card)
        if move == "choose_row":
            return _choose_row(msg.choose_row)
        raise MalformedActionError("the 6 nimmt! action has no move set")

    def encode_action(self, action: game.Action) -> pb.SixNimmtAction:
        if isinstance(action, game.Select):
            return pb.SixNimmtAction(select_card=action.card)
        return pb.SixNimmtAction(choose_row=action.row)

    def decode_options(self, msg: pb.SixNimmtOptions) -> game.Options:
        return _options(msg, EnumMap.decode_option)

    def encode_view(self, view: game.View) -> pb.SixNimmtView:
        return pb.SixNimmtView(
            options=_encoded_options(view.options),
            rows=_rows(view.rows),
            hand=view.hand,
            selected=view.selected,
            revealed=view.revealed,
            own_selection=view.own_selection,
            penalties=view.penalties,
            taken=_cards(view.taken),
            zero_card_available=view.zero_card_available,
            hand_number=view.hand_number,
            turn=view.turn,
            hand_sizes=view.hand_sizes,
        )

    def encode_event(self, body: Any) -> pb.SixNimmtEvent:
        encode = _EVENTS.get(type(body))
        if encode is None:
            raise TypeError(f"not a 6 nimmt! event: {body!r}")
        return encode(body)


def _card_selected(body: game.CardSelected) -> pb.SixNimmtEvent:
    return pb.SixNimmtEvent(card_selected=pb.SixNimmtCardSelected(seat=body.seat, card=body.card))


def _cards_revealed(body: game.CardsRevealed) -> pb.SixNimmtEvent:
    return pb.SixNimmtEvent(cards_revealed=pb.SixNimmtCardsRevealed(cards=body.cards))


def _card_placed(body: game.CardPlaced) -> pb.SixNimmtEvent:
    return pb.SixNimmtEvent(
        card_placed=pb.SixNimmtCardPlaced(seat=body.seat, card=body.card, row=body.row)
    )


def _row_taken(body: game.RowTaken) -> pb.SixNimmtEvent:
    return pb.SixNimmtEvent(
        row_taken=pb.SixNimmtRowTaken(
            seat=body.seat, row=body.row, cards=body.cards, bullheads=body.bullheads
        )
    )


def _row_choice_required(body: game.RowChoiceRequired) -> pb.SixNimmtEvent:
    return pb.SixNimmtEvent(
        row_choice_required=pb.SixNimmtRowChoiceRequired(seat=body.seat, card=body.card)
    )


def _hand_ended(body: game.HandEnded) -> pb.SixNimmtEvent:
    return pb.SixNimmtEvent(
        hand_ended=pb.SixNimmtHandEnded(hand_number=body.hand_number, penalties=body.penalties)
    )


def _hand_dealt(body: game.HandDealt) -> pb.SixNimmtEvent:
    return pb.SixNimmtEvent(
        hand_dealt=pb.SixNimmtHandDealt(hand_number=body.hand_number, rows=body.rows)
    )


#: The encoder of each event type, found with one lookup per event.
_EVENTS: dict[type, Callable[[Any], pb.SixNimmtEvent]] = {
    game.CardSelected: _card_selected,
    game.CardsRevealed: _cards_revealed,
    game.CardPlaced: _card_placed,
    game.RowTaken: _row_taken,
    game.RowChoiceRequired: _row_choice_required,
    game.HandEnded: _hand_ended,
    game.HandDealt: _hand_dealt,
}


CODEC = SixNimmtCodec()
