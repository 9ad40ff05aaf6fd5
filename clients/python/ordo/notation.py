"""How people write seats, teams, rows, sides, cells and cards, counted from 1: the client's copy
of the notation of the server's messages and of the rules for players (docs/clients.md,
"Notation").

The wire counts from 0: ``seat_text(0)`` is ``seat 1``, and the Sequence Numbers cell of row 0
and column 9 is ``cell_text(0, 9)``, ``r1c10``. The client does not import the server's engines,
so the few facts of the games it needs to write cards (a 6 nimmt! card's bullheads, which card is
the zero card) are copied here; a test checks every function of this module against the engines
on every seat, cell and card.
"""

from __future__ import annotations

from collections.abc import Sequence

from ordo.v1 import fora_de_ordem_pb2, sequence_numbers_pb2

__all__ = [
    "FIRST",
    "ZERO_CARD",
    "bullheads",
    "cell_text",
    "fora_de_ordem_card_label",
    "fora_de_ordem_card_text",
    "number_text",
    "ordinal_text",
    "row_text",
    "seat_text",
    "seats_text",
    "sequence_numbers_card_text",
    "sequence_numbers_cell_text",
    "side_text",
    "six_nimmt_card_text",
    "team_letter",
    "team_text",
]

FIRST = 1  # people count seats, rows, sides and cells from 1; the wire counts them from 0
TEAM_LETTERS = "ABC"  # teams 0, 1 and 2 on the wire
ORDINAL_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}  # any other rank up to 20 takes "th"
ZERO_CARD = 0  # 6 nimmt!: the zero-card variant's card, which bears no bullhead
BOARD_SIZE = 10  # Sequence Numbers: 10 x 10 cells; on the wire, cell = row * 10 + column
SEQUENCE_NUMBERS = sequence_numbers_pb2
FORA_DE_ORDEM = fora_de_ordem_pb2
# Fora de Ordem: what a special card says, in place of ranks.
SPECIAL_LABELS = {
    FORA_DE_ORDEM.FORA_DE_ORDEM_CARD_KIND_PREVIOUS_CORRECT: "previous is correct",
    FORA_DE_ORDEM.FORA_DE_ORDEM_CARD_KIND_PREVIOUS_WRONG: "previous is wrong",
}


def number_text(index: int) -> str:
    """An index of the wire as people count it: ``number_text(0)`` is ``1``."""
    return str(index + FIRST)


def seat_text(seat: int) -> str:
    """A seat: ``seat_text(0)`` is ``seat 1``."""
    return f"seat {number_text(seat)}"


def seats_text(seats: Sequence[int]) -> str:
    """Seats: ``seats_text([0, 1, 3])`` is ``seats 1, 2 and 4``, ``seats_text([1])`` is
    ``seat 2``, ``seats_text([])`` is ``no seat``."""
    if not seats:
        return "no seat"
    if len(seats) == 1:
        return seat_text(seats[0])
    numbers = [number_text(seat) for seat in seats]
    return f"seats {', '.join(numbers[:-1])} and {numbers[-1]}"


def team_letter(team: int) -> str:
    """The letter of a team: ``team_letter(0)`` is ``A`` (past the letters, its number)."""
    return TEAM_LETTERS[team] if 0 <= team < len(TEAM_LETTERS) else number_text(team)


def team_text(team: int) -> str:
    """A team: ``team_text(0)`` is ``team A``."""
    return f"team {team_letter(team)}"


def row_text(row: int) -> str:
    """A row of the table or of a seat's display: ``row_text(0)`` is ``row 1``."""
    return f"row {number_text(row)}"


def side_text(side: int) -> str:
    """A side of the Fora de Ordem board, a place and not a rank: ``side_text(0)`` is
    ``side 1``."""
    return f"side {number_text(side)}"


def cell_text(row: int, column: int) -> str:
    """A cell of a board by its row and column: ``cell_text(0, 9)`` is ``r1c10``."""
    return f"r{number_text(row)}c{number_text(column)}"


def ordinal_text(rank: int) -> str:
    """A rank as an ordinal: ``ordinal_text(1)`` is ``1st``, ``ordinal_text(4)`` is ``4th``."""
    suffix = ORDINAL_SUFFIXES.get(rank % 10, "th") if not 10 < rank % 100 < 20 else "th"
    return f"{rank}{suffix}"


def bullheads(card: int) -> int:
    """The bullheads a 6 nimmt! card bears: 7 on 55, 5 on a multiple of 11, 3 on a multiple of
    10, 2 on a multiple of 5, else 1; none on the zero card."""
    if card == ZERO_CARD:
        return 0
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


def six_nimmt_card_text(card: int) -> str:
    """A 6 nimmt! card: its number, ``37``, and ``the zero card`` for 0."""
    return "the zero card" if card == ZERO_CARD else str(card)


def sequence_numbers_cell_text(cell: int) -> str:
    """A Sequence Numbers cell of the wire: cell 24 (row 2, column 4) is ``r3c5``."""
    return cell_text(*divmod(cell, BOARD_SIZE))


def sequence_numbers_card_text(
    card: sequence_numbers_pb2.SequenceNumbersCard, results: bool = True
) -> str:
    """A Sequence Numbers card: ``17 + 9 = 26`` (``17 + 9`` without ``results``), ``PLUS`` or
    ``MINUS``."""
    if card.kind == SEQUENCE_NUMBERS.SEQUENCE_NUMBERS_CARD_KIND_PLUS:
        return "PLUS"
    if card.kind == SEQUENCE_NUMBERS.SEQUENCE_NUMBERS_CARD_KIND_MINUS:
        return "MINUS"
    sign = "-" if card.operator == SEQUENCE_NUMBERS.SEQUENCE_NUMBERS_OPERATOR_SUBTRACT else "+"
    equation = f"{card.left} {sign} {card.right}"
    return f"{equation} = {card.result}" if results else equation


def fora_de_ordem_card_label(card: fora_de_ordem_pb2.ForaDeOrdemCard) -> str:
    """What a Fora de Ordem card names: ``2nd/3rd``, ``previous is correct``."""
    return SPECIAL_LABELS.get(card.kind) or "/".join(map(ordinal_text, card.ranks))


def fora_de_ordem_card_text(card: fora_de_ordem_pb2.ForaDeOrdemCard) -> str:
    """A Fora de Ordem card with its bombs: ``2nd/3rd [3b]``."""
    return f"{fora_de_ordem_card_label(card)} [{card.bombs}b]"
