"""6 nimmt! as text: the four rows with their bullheads, penalties, selections and reveals.

Seats, rows and cards are written as ``ordo.notation`` writes them, counted from 1. Public
selections ("seat 2 has selected a card") are left to the view, which lists the seats that have
selected; a seat's own selection (an event addressed to it alone) is told with its card.
"""

from __future__ import annotations

from collections.abc import Sequence

from ordo.notation import (
    bullheads,
    number_text,
    row_text,
    seat_text,
    seats_text,
    six_nimmt_card_text,
)
from ordo.render import Step, generic_action_steps
from ordo.v1 import common_pb2 as common
from ordo.v1 import six_nimmt_pb2 as six_nimmt

__all__ = ["action_steps", "render_events", "render_view"]

NO_CARD = -1  # on the wire: no selection, or not revealed yet
ROW_WIDTH = 5 * 4  # five cards of up to three digits, space-separated


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _cards(cards: Sequence[int]) -> str:
    return " ".join(str(card) for card in cards)


def _per_seat(values: Sequence[int]) -> str:
    return ", ".join(f"{seat_text(seat)}: {value}" for seat, value in enumerate(values))


def render_view(view: common.GameView) -> str:
    """The rows with their bullheads, the penalties and what is known of this turn's cards."""
    game = view.six_nimmt
    lines = [f"hand {game.hand_number}, {_plural(game.turn, 'turn')} played"]
    for index, row in enumerate(game.rows):
        cards = " ".join(f"{card:>3}" for card in row.cards)
        heads = sum(bullheads(card) for card in row.cards)
        lines.append(f"  {row_text(index)}: {cards:<{ROW_WIDTH}} {_plural(heads, 'bullhead')}")
    lines.append(f"  penalties: {_per_seat(game.penalties)}")
    taken = [
        f"{seat_text(seat)}: {_cards(cards.cards)}"
        for seat, cards in enumerate(game.taken)
        if cards.cards
    ]
    if taken:
        lines.append(f"  taken this hand: {'; '.join(taken)}")
    revealed = [
        f"{seat_text(seat)}: {six_nimmt_card_text(card)}"
        for seat, card in enumerate(game.revealed)
        if card != NO_CARD
    ]
    if revealed:
        lines.append(f"  revealed: {', '.join(revealed)}")
    else:
        selected = [seat for seat, done in enumerate(game.selected) if done]
        if selected:
            lines.append(f"  selected a card: {seats_text(selected)}")
    if game.hand:
        lines.append(f"  hand: {_cards(game.hand)}")
    return "\n".join(lines)


def render_events(events: Sequence[common.Event]) -> list[str]:
    """One line per reveal, placement, row choice, row taken, hand ended and hand dealt."""
    lines = []
    for event in events:
        line = _event_line(event.six_nimmt)
        if line:
            lines.append(line)
    return lines


def _event_line(event: six_nimmt.SixNimmtEvent) -> str:
    kind = event.WhichOneof("kind")
    if kind == "card_selected":
        selected = event.card_selected
        if selected.card == NO_CARD:
            return ""
        return f"{seat_text(selected.seat)} selects {six_nimmt_card_text(selected.card)}"
    if kind == "cards_revealed":
        cards = ", ".join(
            f"{seat_text(seat)}: {six_nimmt_card_text(card)}"
            for seat, card in enumerate(event.cards_revealed.cards)
        )
        return f"revealed: {cards}"
    if kind == "card_placed":
        placed = event.card_placed
        return f"{seat_text(placed.seat)} places {placed.card} on {row_text(placed.row)}"
    if kind == "row_choice_required":
        choice = event.row_choice_required
        return (
            f"{seat_text(choice.seat)}'s {choice.card} is lower than every row: it must take a row"
        )
    if kind == "row_taken":
        taken = event.row_taken
        return (
            f"{seat_text(taken.seat)} takes {row_text(taken.row)} ({_cards(taken.cards)}): "
            f"{_plural(taken.bullheads, 'bullhead')}"
        )
    if kind == "hand_ended":
        ended = event.hand_ended
        return f"hand {ended.hand_number} ends; penalties: {_per_seat(ended.penalties)}"
    if kind == "hand_dealt":
        dealt = event.hand_dealt
        return f"hand {dealt.hand_number} dealt; the rows start with {_cards(dealt.rows)}"
    return ""


def action_steps(action: common.Action, view: common.GameView | None) -> tuple[Step, ...]:
    """A move in one step, coded by its number: the card (``37``) or the row (``r2``, counted
    from 1)."""
    move = action.six_nimmt
    kind = move.WhichOneof("move")
    if kind == "select_card":
        card = move.select_card
        bears = _plural(bullheads(card), "bullhead")
        return (Step(f"play {six_nimmt_card_text(card)}, {bears}", str(card)),)
    if kind == "choose_row":
        row = move.choose_row
        text = f"take {row_text(row)}"
        if view is not None and row < len(view.six_nimmt.rows):
            heads = sum(bullheads(card) for card in view.six_nimmt.rows[row].cards)
            text += f" ({_cards(view.six_nimmt.rows[row].cards)}: {_plural(heads, 'bullhead')})"
        return (Step(text, f"r{number_text(row)}"),)
    return generic_action_steps(action, view)
