"""Plain-text rendering of Up or Down? views and events for a terminal.

A card is written with the first letter of its colour, e.g. ``37g`` for a green 37; the view
ends with the legend of the letters. A display's rows show their direction: ``up`` and ``down``
once a second card fixed it, ``open`` before. Seats and rows are counted from 1
(``ordo.notation``).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING

from ordo.notation import number_text, row_text, seat_text, seats_text
from ordo.render import Step, generic_action_steps
from ordo.v1 import up_or_down_pb2 as pb

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ordo.v1 import common_pb2

COLOUR_LETTERS = {
    pb.UP_OR_DOWN_COLOUR_YELLOW: "y",
    pb.UP_OR_DOWN_COLOUR_BLUE: "b",
    pb.UP_OR_DOWN_COLOUR_RED: "r",
    pb.UP_OR_DOWN_COLOUR_GREEN: "g",
    pb.UP_OR_DOWN_COLOUR_PURPLE: "p",
    pb.UP_OR_DOWN_COLOUR_ORANGE: "o",
}
COLOUR_NAMES = {
    pb.UP_OR_DOWN_COLOUR_YELLOW: "yellow",
    pb.UP_OR_DOWN_COLOUR_BLUE: "blue",
    pb.UP_OR_DOWN_COLOUR_RED: "red",
    pb.UP_OR_DOWN_COLOUR_GREEN: "green",
    pb.UP_OR_DOWN_COLOUR_PURPLE: "purple",
    pb.UP_OR_DOWN_COLOUR_ORANGE: "orange",
}
LENGTH_NAMES = {pb.UP_OR_DOWN_LENGTH_SHORT: "short", pb.UP_OR_DOWN_LENGTH_LONG: "long"}
DISCARD_NAMES = {
    pb.UP_OR_DOWN_DISCARD_SCORING_PER_CARD: "discards score per card",
    pb.UP_OR_DOWN_DISCARD_SCORING_PER_ROW: "discards score per abandoned row",
}
DRAWS_FROM_A_PILE = (pb.UP_OR_DOWN_DRAW_FACE_UP, pb.UP_OR_DOWN_DRAW_FACE_DOWN)
NO_CARD = 0  # an empty face-up pile, or a face-down draw in a public event
INDENT = "    "


def render_view(view: common_pb2.GameView) -> str:
    """Draw the table as one viewer sees it: circle, piles, every display, the viewer's hand."""
    game = view.up_or_down
    colours = list(game.card_colours)

    def card(value: int) -> str:
        return _card_name(colours, value)

    def cards(values: Sequence[int]) -> str:
        return " ".join(card(value) for value in values) or "-"

    top = card(game.face_up_top) if game.face_up_top != NO_CARD else "none"
    lines = [
        f"Up or Down? ({LENGTH_NAMES.get(game.options.length, 'short')} game, "
        f"{DISCARD_NAMES.get(game.options.discard_scoring, 'discards score per card')})",
        f"{_status(view.status)}",
        f"circle     {cards(game.circle)}  (wraps from the highest to the lowest)",
        f"piles      face down {_count(game.face_down_size, 'card')}, "
        f"face up {_count(game.face_up_size, 'card')}, top {top}",
    ]
    for seat, display in enumerate(game.displays):
        lines.append(
            f"{seat_text(seat):<10} score {_at(game.scores, seat)}, "
            f"hand {_count(_at(game.hand_sizes, seat), 'card')}, "
            f"discard pile {_count(_at(game.discard_sizes, seat), 'card')} from "
            f"{_count(_at(game.abandoned_rows, seat), 'abandoned row')}"
        )
        if not display.rows:
            lines.append(f"{INDENT}no rows yet")
        for index, row in enumerate(display.rows):
            lines.append(f"{INDENT}{row_text(index)} {_direction(row.cards):<5} {cards(row.cards)}")
    if game.hand:
        lines.append(f"your hand  {cards(game.hand)}")
    if colours:
        lines.append(f"colours    {_legend(colours)}")
    return "\n".join(lines)


def render_events(events: Sequence[common_pb2.Event]) -> list[str]:
    """One line per event, in order; the caller passes only what its viewer may see (a card
    drawn face down is addressed to its drawer alone)."""
    lines = []
    for event in events:
        if event.WhichOneof("game") != "up_or_down":
            continue
        body = event.up_or_down
        kind = body.WhichOneof("kind")
        if kind == "turn_played":
            lines.append(_turn_line(body.turn_played))
        elif kind == "card_drawn":
            drawn = body.card_drawn
            lines.append(f"{seat_text(drawn.seat)} drew {drawn.card} from the face-down pile")
        elif kind == "game_scored":
            scores = ", ".join(
                f"{seat_text(seat)} {score}" for seat, score in enumerate(body.game_scored.scores)
            )
            lines.append(f"every hand is empty: final scores {scores}")
    return lines


def _turn_line(turn: pb.UpOrDownTurnPlayed) -> str:
    start = f"{seat_text(turn.seat)} plays {turn.card} and takes {turn.taken}"
    row = row_text(turn.row)
    if turn.placement == pb.UP_OR_DOWN_PLACEMENT_EXTEND:
        placed = f"onto {row}"
    elif turn.placement == pb.UP_OR_DOWN_PLACEMENT_NEW_ROW:
        placed = f"to start {row}"
    else:
        placed = (
            f"abandoning {row} ({_count(turn.discarded, 'card')} to the discard pile) to restart it"
        )
    if turn.draw == pb.UP_OR_DOWN_DRAW_FACE_UP:
        drawn = f"draws {turn.drawn} from the face-up pile"
    elif turn.draw == pb.UP_OR_DOWN_DRAW_FACE_DOWN:
        drawn = "draws from the face-down pile"
    else:
        drawn = "draws nothing (both piles are empty)"
    if turn.draw in DRAWS_FROM_A_PILE:
        new_top = str(turn.face_up_top) if turn.face_up_top != NO_CARD else "empty"
        drawn += f"; face-up top {new_top}"
    return f"{start} {placed}; {drawn}"


def _status(status: common_pb2.GameStatus) -> str:
    if status.finished:
        winners = list(status.outcome.winners)
        scores = ", ".join(str(score) for score in status.outcome.scores)
        label = "winner" if len(winners) == 1 else "winners"
        return f"finished: scores {scores}; {label}: {seats_text(winners)}"
    return f"{seats_text(list(status.seats_to_act))} to act"


def _direction(row: Sequence[int]) -> str:
    if len(row) < 2:
        return "open"
    return "up" if row[1] > row[0] else "down"


def _legend(colours: Sequence[pb.UpOrDownColour.ValueType]) -> str:
    """The letters of the colours the game's cards have: ``y yellow, b blue, ...``."""
    present = set(colours)
    return ", ".join(
        f"{letter} {COLOUR_NAMES[colour]}"
        for colour, letter in COLOUR_LETTERS.items()
        if colour in present
    )


def _at(values: Sequence[int], index: int) -> int:
    return values[index] if index < len(values) else 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def action_steps(action: common_pb2.Action, view: common_pb2.GameView | None) -> tuple[Step, ...]:
    """A turn in four steps: the card played (``37``), the neighbour taken (``l``/``h``), where
    it goes (``e1`` extend row 1, ``n`` a new row, ``a2`` abandon row 2),
    the pile (``u``/``d``).
    With the viewer's view the taken card and the face-up top are named."""
    turn = action.up_or_down
    game = view.up_or_down if view is not None else None
    colours = list(game.card_colours) if game is not None else []
    lower = higher = ""
    if game is not None and game.circle:
        index = bisect_left(list(game.circle), turn.card)
        lower = " " + _card_name(colours, game.circle[index - 1])
        higher = " " + _card_name(colours, game.circle[index % len(game.circle)])
    take = {
        pb.UP_OR_DOWN_NEIGHBOUR_LOWER: Step(f"take the lower neighbour{lower}", "l"),
        pb.UP_OR_DOWN_NEIGHBOUR_HIGHER: Step(f"take the higher neighbour{higher}", "h"),
    }.get(turn.take)
    row, number = row_text(turn.row), number_text(turn.row)
    place = {
        pb.UP_OR_DOWN_PLACEMENT_EXTEND: Step(f"onto {row}", f"e{number}"),
        pb.UP_OR_DOWN_PLACEMENT_NEW_ROW: Step(f"to start {row}", "n"),
        pb.UP_OR_DOWN_PLACEMENT_ABANDON: Step(
            f"abandoning {row} to restart it with the card", f"a{number}"
        ),
    }.get(turn.placement)
    top = ""
    if game is not None and game.face_up_top != NO_CARD:
        top = f" (top {_card_name(colours, game.face_up_top)})"
    draw = {
        pb.UP_OR_DOWN_DRAW_FACE_UP: Step(f"draw from the face-up pile{top}", "u"),
        pb.UP_OR_DOWN_DRAW_FACE_DOWN: Step("draw from the face-down pile", "d"),
        pb.UP_OR_DOWN_DRAW_NONE: Step("draw nothing (both piles are empty)", "-"),
    }.get(turn.draw)
    if take is None or place is None or draw is None:
        return generic_action_steps(action, view)
    return (Step(f"play {_card_name(colours, turn.card)}", str(turn.card)), take, place, draw)


def _card_name(colours: Sequence[pb.UpOrDownColour.ValueType], value: int) -> str:
    """A card with its colour's letter (none without the colours)."""
    if not colours:
        return str(value)
    letter = COLOUR_LETTERS.get(colours[value - 1], "?") if 0 < value <= len(colours) else "?"
    return f"{value}{letter}"
