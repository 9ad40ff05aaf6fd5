"""Plain-text rendering of Fora de Ordem views and events for the command-line demo.

Only the generated ``ordo.v1`` messages are used: the board shows the question's five items with
the cards on each side (bottom first), then each seat's colour, bombs, hand and deck sizes. Seats,
sides and cards are written as ``ordo.notation`` writes them, counted from 1; an item's place on
the board (its side) is not its rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ordo.notation import fora_de_ordem_card_text as card_text
from ordo.notation import number_text, seat_text, side_text
from ordo.render import Step, generic_action_steps
from ordo.v1 import fora_de_ordem_pb2 as pb

if TYPE_CHECKING:
    from ordo.v1 import common_pb2

COLOUR_PREFIX = "FORA_DE_ORDEM_COLOUR_"


def colour_name(seat: int) -> str:
    """The colour of a seat's deck: seat i plays colour number i + 1 of the enum."""
    colour = pb.ForaDeOrdemColour.Name(pb.ForaDeOrdemColour.ValueType(seat + 1))
    return colour.removeprefix(COLOUR_PREFIX).lower()


def seat_name(seat: int) -> str:
    """A seat with the colour of its deck, e.g. ``seat 2 (purple)``."""
    return f"{seat_text(seat)} ({colour_name(seat)})"


def side_item(side: int, item: str) -> str:
    """A side of the board with its item: ``side 1 (Harp)``."""
    return f"{side_text(side)} ({item})"


def _owned(card: pb.ForaDeOrdemCard) -> str:
    return f"{colour_name(card.owner)} {card_text(card)}"


def _rank_set(ranks: Sequence[int], rank: int) -> str:
    """An item's ranks as on the back of the card: a tie of k items at rank r holds r..r+k-1."""
    return "/".join(str(r) for r in range(rank, rank + list(ranks).count(rank)))


def render_view(view: common_pb2.GameView) -> str:
    """Draw the table of a Fora de Ordem view: question, sides, seats and status."""
    game = view.fora_de_ordem
    rounds = game.options.rounds
    lines = [
        f"Fora de Ordem: round {game.round} of {rounds}, {seat_name(game.round_starting_seat)} "
        "started",
        f"Question {game.question_id}: {game.category}",
    ]
    width = max((len(item) for item in game.items), default=0)
    for side, item in enumerate(game.items):
        cards = game.sides[side].cards if side < len(game.sides) else []
        stack = " < ".join(_owned(card) for card in cards) or "-"
        lines.append(f"  {side_text(side)}  {item:<{width}}  {stack}")
    lines.append("Seats ([nb] on a card = its bombs):")
    for seat, bombs in enumerate(game.bombs):
        lines.append(
            f"  {seat_name(seat):<18} {bombs:>3} bombs  hand {game.hand_sizes[seat]}  "
            f"deck {game.deck_sizes[seat]}"
        )
    if game.hand:
        lines.append("Hand: " + ", ".join(card_text(card) for card in game.hand))
    status = view.status
    if status.finished:
        winners = ", ".join(seat_name(seat) for seat in status.outcome.winners)
        lines.append(f"Game over. Winners: {winners}")
    elif status.seats_to_act:
        lines.append(f"To act: {seat_name(status.seats_to_act[0])}")
    return "\n".join(lines)


def render_events(events: Sequence[common_pb2.Event]) -> list[str]:
    """One line per Fora de Ordem event, in order; the caller passes only the events its viewer
    may see (a seat's own draws are addressed to that seat alone)."""
    return [_event_line(event.fora_de_ordem) for event in events]


def _event_line(event: pb.ForaDeOrdemEvent) -> str:
    kind = event.WhichOneof("kind")
    if kind == "card_played":
        played = event.card_played
        return (
            f"{seat_name(played.seat)} plays {card_text(played.card)} on "
            f"{side_item(played.side, played.item)}"
        )
    if kind == "ranks_revealed":
        revealed = event.ranks_revealed
        order = sorted(zip(revealed.ranks, revealed.items, strict=True))
        answers = ", ".join(f"{_rank_set(revealed.ranks, rank)}. {item}" for rank, item in order)
        return f"Answer to round {revealed.round}: {answers}"
    if kind == "side_resolved":
        return _side_line(event.side_resolved)
    if kind == "cards_drawn":
        drawn = event.cards_drawn
        cards = ", ".join(card_text(card) for card in drawn.cards)
        return f"{seat_name(drawn.seat)} draws {cards}"
    if kind == "hands_refilled":
        refilled = event.hands_refilled
        return f"Every seat draws {refilled.count} cards for round {refilled.round}"
    if kind == "round_started":
        started = event.round_started
        items = ", ".join(side_item(side, item) for side, item in enumerate(started.items))
        return (
            f"Round {started.round}, {seat_name(started.starting_seat)} starts. "
            f"{started.category}: {items}"
        )
    if kind == "game_ended":
        ended = event.game_ended
        scores = ", ".join(
            f"{seat_name(seat)} {bombs} bombs (kept {card_text(card)})"
            for seat, (bombs, card) in enumerate(zip(ended.bombs, ended.last_cards, strict=True))
        )
        winners = ", ".join(seat_name(seat) for seat in ended.winners)
        return f"Game over: {scores}. Winners: {winners}"
    return f"({kind})"


def _side_line(resolved: pb.ForaDeOrdemSideResolved) -> str:
    verdicts = ", ".join(
        f"{_owned(card)} {'right' if correct else 'WRONG'}"
        for card, correct in zip(resolved.cards, resolved.correct, strict=True)
    )
    head = f"{side_item(resolved.side, resolved.item)}: {verdicts}"
    if not resolved.taken:  # every card was right: nobody takes any
        return f"{head} -> all discarded"
    taken = _count(len(resolved.taken), "card")
    bombs = _count(resolved.bombs, "bomb")
    return f"{head} -> {seat_name(resolved.taker)} takes {taken}, {bombs}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def action_steps(action: common_pb2.Action, view: common_pb2.GameView | None) -> tuple[Step, ...]:
    """A play in two steps: the card from hand, then the side, coded by its number (``1`` for
    side 1); the view names the card and the side's item."""
    move = action.fora_de_ordem
    if move.WhichOneof("move") != "play":
        return generic_action_steps(action, view)
    game = view.fora_de_ordem if view is not None else None
    hand = {card.id: card_text(card) for card in game.hand} if game is not None else {}
    side = move.play.side
    place = side_text(side)
    if game is not None and side < len(game.items):
        place = side_item(side, game.items[side])
    return (
        Step(f"play {hand.get(move.play.card, f'card {move.play.card}')}"),
        Step(f"on {place}", number_text(side)),
    )
