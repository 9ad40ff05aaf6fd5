"""How people write seats, teams, rows, sides, cells and ranks: the one notation of the engines'
messages, the rules for players and the clients' renderings (docs/clients.md, "Notation").

People count from 1 and the wire from 0: ``seat_text(0)`` is ``seat 1``, ``row_text(0)`` is
``row 1``, ``side_text(0)`` is ``side 1``, and the Sequence Numbers cell of row 0 and column 9
on the wire is ``cell_text(0, 9)``, ``r1c10``. Teams are letters (``team_text(0)`` is
``team A``), a rank is an ordinal (``ordinal_text(2)`` is ``2nd``). Each game writes its cards in
its own package, in these forms: ``engines.six_nimmt.data.card_text``,
``engines.sequence_numbers.rules.card_text`` and ``engines.fora_de_ordem.data.card_text``; an Up
or Down? card is its number.

A message that quotes a number as a request carried it, one that names no seat, row, side, cell or
card of the game and so cannot be written for people, keeps the wire's value after the name of
its field: ``field_text("six_nimmt.choose_row", 7)`` is ``six_nimmt.choose_row=7``.

The clients keep their own copy of this notation (``ordo.notation`` in Python,
``clients/web/src/notation.ts`` in the playground), since they do not import the engines; tests
check both against this module on every seat, cell and card.
"""

from __future__ import annotations

FIRST = 1  # people count seats, rows, sides and cells from 1; the wire counts them from 0
TEAM_LETTERS = "ABC"  # teams 0, 1 and 2 on the wire
ORDINAL_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}  # any other rank up to 20 takes "th"


def number_text(index: int) -> str:
    """An index of the wire as people count it: ``number_text(0)`` is ``1``."""
    return str(index + FIRST)


def seat_text(seat: int) -> str:
    """A seat: ``seat_text(0)`` is ``seat 1``."""
    return f"seat {number_text(seat)}"


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


def field_text(field: str, value: object) -> str:
    """A value quoted as the wire carried it, after its field: ``field_text("seat", 7)`` is
    ``seat=7``, a number of the wire and not a person's ``seat 7``."""
    return f"{field}={value}"
