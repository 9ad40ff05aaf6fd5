"""Sequence Numbers as text for the command line: the board and the table as a viewer sees them,
and one line per event worth telling.

Only the generated ``ordo.v1`` messages are used: the board layout and the cards come with the
view and the events, so no copy of the game's tables is needed here. Seats, teams, cells and cards
are written as ``ordo.notation`` writes them: cells by row and column counted from 1 (``r3c5``).
With ``results=False`` an equation card does not print its result (``17 + 9``):
working it out is the player's part of the game.
"""

from __future__ import annotations

from collections.abc import Sequence

from ordo.notation import BOARD_SIZE, number_text, seat_text, seats_text, team_letter, team_text
from ordo.notation import sequence_numbers_card_text as card_text
from ordo.notation import sequence_numbers_cell_text as cell_text
from ordo.render import Step, generic_action_steps, termination_text
from ordo.v1 import common_pb2, sequence_numbers_pb2

pb = sequence_numbers_pb2

NO_CHIP = -1  # a cell without a chip in the view's chips
FREE = 0  # the number of a corner (a free space) in the view's numbers
CORNER_MARK = "*"  # a free corner: every team's chip
HIDES_RESULTS = True  # an equation card's result may be left for the player to work out


def five_text(cells: Sequence[int]) -> str:
    """The cells of a five for people, in line order: ``r1c8 r2c7 r3c6 r4c5 r5c4``."""
    return " ".join(cell_text(cell) for cell in cells)


def five_code(cells: Sequence[int]) -> str:
    """A short code of a five to type: its two end cells, ``r1c8-r5c4`` (two cells fix a line)."""
    return f"{cell_text(cells[0])}-{cell_text(cells[-1])}" if cells else ""


def choose_sequence_text(cells: Sequence[int], view: pb.SequenceNumbersView | None = None) -> str:
    """The choice of a five as a move: ``lock r1c8 r2c7 r3c6 r4c5 r5c4``. With the view of the
    pending choice, the chips the other fives offered would have locked and this one leaves
    unlocked (open to a MINUS card) are named too."""
    text = f"lock {five_text(cells)}"
    if view is None or not view.HasField("sequence_choice"):
        return text
    locked = {cell for sequence in view.sequences for cell in sequence.cells}
    team = view.sequence_choice.team
    left = sorted(
        {
            cell
            for five in view.sequence_choice.choices
            for cell in five.cells
            if cell not in cells and cell not in locked and view.chips[cell] == team
        }
    )
    if left:
        text += f" (leaves {five_text(left)} unlocked)"
    return text


def render_view(view: common_pb2.GameView, results: bool = True) -> str:
    """Draw the board (numbers, chips in lower case, locked chips in capitals, free corners as
    ``*``), then the teams, sequences, each seat's cards and discard pile, and who acts."""
    game = view.sequence_numbers
    seats = len(game.hand_sizes)
    teams = game.options.teams or 1
    locked = {cell for sequence in game.sequences for cell in sequence.cells}
    lines = ["    " + " ".join(f"{number_text(col):>3}" for col in range(BOARD_SIZE))]
    for row in range(BOARD_SIZE):
        cells = []
        for col in range(BOARD_SIZE):
            cell = row * BOARD_SIZE + col
            number, chip = game.numbers[cell], game.chips[cell]
            if number == FREE:
                cells.append(f"{CORNER_MARK:>3}")
            elif chip == NO_CHIP:
                cells.append(f"{number:>3}")
            else:
                letter = team_letter(chip)
                cells.append(f"{letter if cell in locked else letter.lower():>3}")
        lines.append(f"{number_text(row):>3} " + " ".join(cells))
    lines.append("")
    counts = [0] * teams
    for sequence in game.sequences:
        if sequence.team < teams:
            counts[sequence.team] += 1
    for team in range(teams):
        members = seats_text(list(range(team, seats, teams)))
        lines.append(
            f"{team_text(team)} ({members}): {counts[team]} of {game.sequences_to_win} sequences"
        )
    for seat in range(seats):
        pile = game.discards[seat] if seat < len(game.discards) else pb.SequenceNumbersDiscardPile()
        top = f", top {card_text(pile.top, results)}" if pile.HasField("top") else ""
        lines.append(
            f"{seat_text(seat)} ({team_letter(seat % teams)}): {game.hand_sizes[seat]} cards in "
            "hand, "
            f"{len(pile.cards)} discarded{top}"
        )
    if game.hand:
        lines.append("hand: " + " | ".join(card_text(card, results) for card in game.hand))
    lines.append(f"deck: {game.deck_size} cards; turn {game.turn}")
    if game.HasField("sequence_choice"):
        lines.extend(_choice_lines(game))
    lines.append(_status_line(view.status, teams))
    return "\n".join(lines)


def _choice_lines(game: pb.SequenceNumbersView) -> list[str]:
    """The pending choice of five, one line per five it offers."""
    choice = game.sequence_choice
    lines = [
        f"{seat_text(choice.seat)} ({team_letter(choice.team)}) chooses the five its chip at "
        f"{cell_text(choice.cell)} locks:"
    ]
    for number, five in enumerate(choice.choices, 1):
        lines.append(f"  {number}. {choose_sequence_text(five.cells, game)}")
    return lines


def _status_line(status: common_pb2.GameStatus, teams: int) -> str:
    if not status.finished:
        return f"{seats_text(list(status.seats_to_act))} to act"
    winners = list(status.outcome.winners)
    if not winners:
        return f"game over: a draw ({termination_text(status.outcome.termination)})"
    return f"game over: {team_text(winners[0] % teams)} wins ({seats_text(winners)})"


def render_events(events: Sequence[common_pb2.Event], results: bool = True) -> list[str]:
    """One line per event worth telling, in order (the caller passes the events its viewer may
    see): a public draw, implied by every play, is left out; a seat's own draw names the card."""
    lines = []
    for event in events:
        if event.WhichOneof("game") == "sequence_numbers":
            line = _event_line(event.sequence_numbers, results)
            if line:
                lines.append(line)
    return lines


def _event_line(event: sequence_numbers_pb2.SequenceNumbersEvent, results: bool) -> str:
    def shown(card: pb.SequenceNumbersCard) -> str:
        return card_text(card, results)

    kind = event.WhichOneof("kind")
    if kind == "chip_placed":
        placed = event.chip_placed
        return (
            f"{seat_text(placed.seat)} plays {shown(placed.card)}: {team_text(placed.team)} "
            f"chip on {placed.number} at {cell_text(placed.cell)}"
        )
    if kind == "chip_removed":
        removed = event.chip_removed
        return (
            f"{seat_text(removed.seat)} plays MINUS: removes {team_text(removed.team)}'s chip "
            f"at {cell_text(removed.cell)}"
        )
    if kind == "dead_card_exchanged":
        exchanged = event.dead_card_exchanged
        return f"{seat_text(exchanged.seat)} exchanges the dead card {shown(exchanged.card)}"
    if kind == "card_drawn":
        drawn = event.card_drawn
        if not drawn.HasField("card"):
            return ""
        return f"{seat_text(drawn.seat)} draws {shown(drawn.card)}"
    if kind == "card_discarded":
        discarded = event.card_discarded
        return (
            f"{seat_text(discarded.seat)} has no playable card and discards {shown(discarded.card)}"
        )
    if kind == "sequence_completed":
        completed = event.sequence_completed
        cells = " ".join(cell_text(cell) for cell in completed.cells)
        return f"{team_text(completed.team)} completes a sequence: {cells}"
    if kind == "deck_reshuffled":
        return (
            f"the discard piles are shuffled into a new deck of {event.deck_reshuffled.size} cards"
        )
    if kind == "team_won":
        won = event.team_won
        return f"{team_text(won.team)} wins ({seats_text(list(won.seats))})"
    if kind == "sequence_choice_required":
        choice = event.sequence_choice_required
        fives = " or ".join(five_text(five.cells) for five in choice.choices)
        return (
            f"{seat_text(choice.seat)}'s chip at {cell_text(choice.cell)} completes fives that "
            f"exclude one another: it chooses {fives}"
        )
    if kind == "turn_limit_reached":
        return f"{event.turn_limit_reached.turns} turns without a winner: the game is a draw"
    return ""


def action_steps(
    action: common_pb2.Action, view: common_pb2.GameView | None, results: bool = True
) -> tuple[Step, ...]:
    """A move as the card first, then for a play the cell, coded ``r3c5``; the view names the
    viewer's cards and the cells' numbers (not without ``results``: the number is the result)."""
    move = action.sequence_numbers
    kind = move.WhichOneof("move")
    game = view.sequence_numbers if view is not None else None
    hand = {card.id: card_text(card, results) for card in game.hand} if game is not None else {}

    def card(card_id: int) -> str:
        return hand.get(card_id, f"card {card_id}")

    if kind == "exchange_dead_card":
        return (Step(f"exchange the dead card {card(move.exchange_dead_card)}"),)
    if kind == "discard":
        return (Step(f"discard {card(move.discard)} (no card can be played)"),)
    if kind == "play":
        cell = move.play.cell
        number = (
            f"{game.numbers[cell]} at "
            if results and game is not None and cell < len(game.numbers)
            else ""
        )
        return (
            Step(f"play {card(move.play.card)}"),
            Step(f"on {number}{cell_text(cell)}", cell_text(cell)),
        )
    return generic_action_steps(action, view)
