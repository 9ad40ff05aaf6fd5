"""What each client's copy of the notation must write: every function of ``engines.notation``
and every game's card text, applied to every seat, team, row, side, cell, rank and card.

A case names a function as the Python client's ``ordo.notation`` names it (the playground's
``notation.ts`` names it in camelCase), its arguments as the wire carries them (numbers, and a
card as its generated message) and what the engines write for them. The Python client's test
calls its function with the arguments; the playground's test sends them, cards as proto JSON,
to a Node.js script that calls its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from google.protobuf.message import Message

from engines import notation, registry
from engines.fora_de_ordem import data as fora_de_ordem
from engines.sequence_numbers import rules as sequence_numbers
from engines.sequence_numbers.data import EQUATIONS
from engines.six_nimmt import data as six_nimmt
from ordo.v1 import fora_de_ordem_pb2, sequence_numbers_pb2

TEAMS = range(3)  # Sequence Numbers plays in up to 3 teams
ROWS = range(10)  # more rows than any game has: 4 in 6 nimmt!, 3 in a seat's Up or Down? display
RANKS = range(1, 31)  # Fora de Ordem's ranks are 1st to 5th; 11th to 13th and 21st are the traps


@dataclass(frozen=True, slots=True)
class Case:
    """One function of a client's notation on one argument list, and what the engines write."""

    function: str
    arguments: tuple[int | Message, ...]
    expected: str | int


def camel(name: str) -> str:
    """The playground's name of a function: ``seat_text`` is ``seatText``."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def cases() -> list[Case]:
    """Every case of every function."""
    return list(_cases())


def _cases() -> Iterator[Case]:
    seats = range(max(engine.info.max_seats for engine in registry.ENGINES.values()))
    functions: dict[str, tuple[Callable[[int], str | int], range]] = {
        "number_text": (notation.number_text, seats),
        "seat_text": (notation.seat_text, seats),
        "team_letter": (notation.team_letter, TEAMS),
        "team_text": (notation.team_text, TEAMS),
        "row_text": (notation.row_text, ROWS),
        "side_text": (notation.side_text, range(fora_de_ordem.ITEMS)),
        "ordinal_text": (notation.ordinal_text, RANKS),
        "bullheads": (six_nimmt.BULLHEADS.__getitem__, range(six_nimmt.HIGHEST_CARD + 1)),
        "six_nimmt_card_text": (six_nimmt.card_text, range(six_nimmt.HIGHEST_CARD + 1)),
        "sequence_numbers_cell_text": (sequence_numbers.cell_text, range(sequence_numbers.CELLS)),
    }
    for name, (function, values) in functions.items():
        yield from (Case(name, (value,), function(value)) for value in values)
    for cell in range(sequence_numbers.CELLS):
        row, column = divmod(cell, sequence_numbers.BOARD_SIZE)
        yield Case("cell_text", (row, column), notation.cell_text(row, column))
    for card in range(sequence_numbers.DECK_SIZE):
        equation = _sequence_numbers_card(card)
        yield Case("sequence_numbers_card_text", (equation,), sequence_numbers.card_text(card))
    for card in range(fora_de_ordem.CARD_COUNT):
        face = _fora_de_ordem_card(card)
        yield Case("fora_de_ordem_card_label", (face,), fora_de_ordem.card_label(card))
        yield Case("fora_de_ordem_card_text", (face,), fora_de_ordem.card_text(card))


def _sequence_numbers_card(card: int) -> sequence_numbers_pb2.SequenceNumbersCard:
    """A Sequence Numbers card as the wire describes it (the view's hand, the events)."""
    pb = sequence_numbers_pb2
    kind = pb.SequenceNumbersCardKind.Value(
        f"SEQUENCE_NUMBERS_CARD_KIND_{sequence_numbers.card_kind(card).value}"
    )
    if card >= sequence_numbers.EQUATION_COUNT:
        return pb.SequenceNumbersCard(id=card, kind=kind)
    _, operator, left, right, result = EQUATIONS[card]
    word = {"+": "ADD", "-": "SUBTRACT"}[operator]
    return pb.SequenceNumbersCard(
        id=card,
        kind=kind,
        operator=pb.SequenceNumbersOperator.Value(f"SEQUENCE_NUMBERS_OPERATOR_{word}"),
        left=left,
        right=right,
        result=result,
    )


def _fora_de_ordem_card(card: int) -> fora_de_ordem_pb2.ForaDeOrdemCard:
    """A Fora de Ordem card as the wire describes it, face up."""
    pb = fora_de_ordem_pb2
    face = fora_de_ordem.FACES[card]
    return pb.ForaDeOrdemCard(
        id=card,
        owner=fora_de_ordem.OWNER[card],
        kind=pb.ForaDeOrdemCardKind.Value(f"FORA_DE_ORDEM_CARD_KIND_{face.kind.value}"),
        ranks=face.ranks,
        bombs=face.bombs,
    )
