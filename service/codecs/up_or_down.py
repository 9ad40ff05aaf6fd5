"""The Up or Down? codec: ``ordo.v1.UpOrDown*`` messages ↔ ``engines.up_or_down.rules`` values."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engines.errors import InvalidStateError, MalformedActionError
from engines.up_or_down import rules as game
from engines.up_or_down.data import Colour, Length
from ordo.v1 import up_or_down_pb2 as pb
from service.codecs.base import EnumMap, StateParts, field_part, flatten, groups_part, split

if TYPE_CHECKING:
    from engines.up_or_down.rules import Display

LENGTH = EnumMap(
    Length.SHORT,
    {
        pb.UP_OR_DOWN_LENGTH_SHORT: Length.SHORT,
        pb.UP_OR_DOWN_LENGTH_LONG: Length.LONG,
    },
)
DISCARD_SCORING = EnumMap(
    game.DiscardScoring.PER_CARD,
    {
        pb.UP_OR_DOWN_DISCARD_SCORING_PER_CARD: game.DiscardScoring.PER_CARD,
        pb.UP_OR_DOWN_DISCARD_SCORING_PER_ROW: game.DiscardScoring.PER_ROW,
    },
)
# The parts of an action have no default: an unset or unknown value is a malformed action.
NEIGHBOURS: dict[pb.UpOrDownNeighbour.ValueType, game.Neighbour] = {
    pb.UP_OR_DOWN_NEIGHBOUR_LOWER: game.Neighbour.LOWER,
    pb.UP_OR_DOWN_NEIGHBOUR_HIGHER: game.Neighbour.HIGHER,
}
PLACEMENTS: dict[pb.UpOrDownPlacement.ValueType, game.Placement] = {
    pb.UP_OR_DOWN_PLACEMENT_EXTEND: game.Placement.EXTEND,
    pb.UP_OR_DOWN_PLACEMENT_NEW_ROW: game.Placement.NEW_ROW,
    pb.UP_OR_DOWN_PLACEMENT_ABANDON: game.Placement.ABANDON,
}
DRAWS: dict[pb.UpOrDownDraw.ValueType, game.Draw] = {
    pb.UP_OR_DOWN_DRAW_FACE_UP: game.Draw.FACE_UP,
    pb.UP_OR_DOWN_DRAW_FACE_DOWN: game.Draw.FACE_DOWN,
    pb.UP_OR_DOWN_DRAW_NONE: game.Draw.NONE,
}
NEIGHBOUR_NUMBERS = {member: number for number, member in NEIGHBOURS.items()}
PLACEMENT_NUMBERS = {member: number for number, member in PLACEMENTS.items()}
DRAW_NUMBERS = {member: number for number, member in DRAWS.items()}
COLOUR_NUMBERS: dict[Colour, pb.UpOrDownColour.ValueType] = {
    Colour.YELLOW: pb.UP_OR_DOWN_COLOUR_YELLOW,
    Colour.BLUE: pb.UP_OR_DOWN_COLOUR_BLUE,
    Colour.RED: pb.UP_OR_DOWN_COLOUR_RED,
    Colour.GREEN: pb.UP_OR_DOWN_COLOUR_GREEN,
    Colour.PURPLE: pb.UP_OR_DOWN_COLOUR_PURPLE,
    Colour.ORANGE: pb.UP_OR_DOWN_COLOUR_ORANGE,
}


def _options(msg: pb.UpOrDownOptions, decode: Any) -> game.Options:
    return game.Options(
        length=decode(LENGTH, msg.length, "length"),
        discard_scoring=decode(DISCARD_SCORING, msg.discard_scoring, "discard_scoring"),
    )


def _encode_options(options: game.Options) -> pb.UpOrDownOptions:
    return pb.UpOrDownOptions(
        length=LENGTH.encode(options.length),
        discard_scoring=DISCARD_SCORING.encode(options.discard_scoring),
    )


@lru_cache(maxsize=len(Length) * len(game.DiscardScoring))
def _serialized_options(options: game.Options) -> bytes:
    """The options field of a serialized state, made once per option set."""
    return pb.UpOrDownState(options=_encode_options(options)).SerializeToString()


_display_rows = groups_part(pb.UpOrDownState, "row_cards", "row_sizes")
_display_sizes = field_part(pb.UpOrDownState, "display_rows")


def _serialized_displays(displays: tuple[Display, ...]) -> bytes:
    """The displays' fields of a serialized state: every seat's rows in seat order, as a list of
    lists (``row_cards``, ``row_sizes``), then the number of rows of each seat."""
    return _display_rows(tuple(flatten(displays))) + _display_sizes(tuple(map(len, displays)))


def _cards(groups: tuple[tuple[int, ...], ...]) -> list[pb.UpOrDownCards]:
    return [pb.UpOrDownCards(cards=cards) for cards in groups]


def _displays(displays: tuple[Display, ...]) -> list[pb.UpOrDownDisplay]:
    return [pb.UpOrDownDisplay(rows=_cards(display)) for display in displays]


def _part(table: dict[Any, Any], number: int, name: str) -> Any:
    try:
        return table[number]
    except KeyError:
        raise MalformedActionError(
            f"the Up or Down? action's {name} is unset or unknown ({number})"
        ) from None


class UpOrDownCodec:
    """Translates Up or Down? messages."""

    game_id = game.GAME_ID
    # In field number order: options 1, circle 2, abandoned_rows 6 … rng_state 9, then hands
    # 10-11, displays 12-14, discards 15-16. A turn changes the circle, a hand, a display and
    # a pile; the rest is reused from the state before.
    state_parts: StateParts | None = StateParts(
        (
            ("options", _serialized_options),
            ("circle", field_part(pb.UpOrDownState, "circle")),
            ("abandoned", field_part(pb.UpOrDownState, "abandoned_rows")),
            ("face_down", field_part(pb.UpOrDownState, "face_down")),
            ("face_up", field_part(pb.UpOrDownState, "face_up")),
            ("rng_state", field_part(pb.UpOrDownState, "rng_state")),
            ("hands", groups_part(pb.UpOrDownState, "hand_cards", "hand_sizes")),
            ("displays", _serialized_displays),
            ("discards", groups_part(pb.UpOrDownState, "discard_cards", "discard_sizes")),
        )
    )

    def decode_state(self, msg: pb.UpOrDownState, rules_version: int, revision: int) -> game.State:
        if not msg.HasField("options"):
            raise InvalidStateError("the state has no options")
        return game.State(
            rules_version=rules_version,
            revision=revision,
            options=_options(msg.options, EnumMap.decode_state),
            circle=tuple(msg.circle),
            hands=split(msg.hand_cards, msg.hand_sizes, "hands"),
            displays=split(
                split(msg.row_cards, msg.row_sizes, "display rows"),
                msg.display_rows,
                "displays",
            ),
            discards=split(msg.discard_cards, msg.discard_sizes, "discards"),
            abandoned=tuple(msg.abandoned_rows),
            face_down=tuple(msg.face_down),
            face_up=tuple(msg.face_up),
            rng_state=msg.rng_state,
        )

    def encode_state(self, state: game.State) -> pb.UpOrDownState:
        return pb.UpOrDownState(
            options=_encode_options(state.options),
            circle=state.circle,
            hand_cards=flatten(state.hands),
            hand_sizes=map(len, state.hands),
            row_cards=flatten(flatten(state.displays)),
            row_sizes=[len(row) for display in state.displays for row in display],
            display_rows=map(len, state.displays),
            discard_cards=flatten(state.discards),
            discard_sizes=map(len, state.discards),
            abandoned_rows=state.abandoned,
            face_down=state.face_down,
            face_up=state.face_up,
            rng_state=state.rng_state,
        )

    def decode_action(self, msg: pb.UpOrDownAction) -> game.Turn:
        return game.Turn(
            card=msg.card,
            take=_part(NEIGHBOURS, msg.take, "take"),
            placement=_part(PLACEMENTS, msg.placement, "placement"),
            row=msg.row,
            draw=_part(DRAWS, msg.draw, "draw"),
        )

    def encode_action(self, action: game.Turn) -> pb.UpOrDownAction:
        return pb.UpOrDownAction(
            card=action.card,
            take=NEIGHBOUR_NUMBERS[action.take],
            placement=PLACEMENT_NUMBERS[action.placement],
            row=action.row,
            draw=DRAW_NUMBERS[action.draw],
        )

    def decode_options(self, msg: pb.UpOrDownOptions) -> game.Options:
        return _options(msg, EnumMap.decode_option)

    def encode_view(self, view: game.View) -> pb.UpOrDownView:
        return pb.UpOrDownView(
            options=_encode_options(view.options),
            circle=view.circle,
            hand=view.hand,
            hand_sizes=view.hand_sizes,
            displays=_displays(view.displays),
            discard_sizes=view.discard_sizes,
            abandoned_rows=view.abandoned,
            face_down_size=view.face_down_size,
            face_up_size=view.face_up_size,
            face_up_top=view.face_up_top,
            card_colours=[COLOUR_NUMBERS[colour] for colour in view.card_colours],
            scores=view.scores,
        )

    def encode_event(self, body: Any) -> pb.UpOrDownEvent:
        match body:
            case game.TurnPlayed():
                return pb.UpOrDownEvent(
                    turn_played=pb.UpOrDownTurnPlayed(
                        seat=body.seat,
                        card=body.card,
                        taken=body.taken,
                        placement=PLACEMENT_NUMBERS[body.placement],
                        row=body.row,
                        discarded=body.discarded,
                        draw=DRAW_NUMBERS[body.draw],
                        drawn=body.drawn,
                        face_up_top=body.face_up_top,
                    )
                )
            case game.CardDrawn(seat, card):
                return pb.UpOrDownEvent(card_drawn=pb.UpOrDownCardDrawn(seat=seat, card=card))
            case game.GameScored(scores):
                return pb.UpOrDownEvent(game_scored=pb.UpOrDownGameScored(scores=scores))
        raise TypeError(f"not an Up or Down? event: {body!r}")


CODEC = UpOrDownCodec()
