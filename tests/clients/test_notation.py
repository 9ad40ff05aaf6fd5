"""The Python client writes seats, teams, rows, sides, cells and cards as the engines do.

``ordo.notation`` is the client's own copy of ``engines.notation`` and of the games' card texts
(the client may not import the engines); every case of ``tests.notation_cases`` holds it to the
engines' text, on every seat, cell and card.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from engines import notation as engine_notation
from ordo import notation
from tests.notation_cases import Case, cases

CASES = cases()
BY_FUNCTION: dict[str, list[Case]] = defaultdict(list)
for _case in CASES:
    BY_FUNCTION[_case.function].append(_case)


class TestAgreement:
    """Each function of ``ordo.notation`` writes what the engines write."""

    @pytest.mark.parametrize("function", sorted(BY_FUNCTION))
    def test_the_function_agrees_on_every_case(self, function: str) -> None:
        """The client's function gives the engines' text for every seat, cell or card."""
        written = getattr(notation, function)
        wrong = [
            (case.arguments, written(*case.arguments), case.expected)
            for case in BY_FUNCTION[function]
            if written(*case.arguments) != case.expected
        ]
        assert not wrong, f"ordo.notation.{function} disagrees with the engines: {wrong[:3]}"

    def test_every_function_of_the_engines_has_cases(self) -> None:
        """Each function of engines.notation that writes for people is checked here, under the
        same name (field_text quotes the wire in the server's messages, which no client writes)."""
        public = {
            name
            for name, value in vars(engine_notation).items()
            if callable(value) and not name.startswith("_") and name != "field_text"
        }
        assert public <= set(BY_FUNCTION), public - set(BY_FUNCTION)

    def test_people_count_from_1_and_the_wire_from_0(self) -> None:
        """Seat 0 of the wire is seat 1, and the Sequence Numbers cell 9 is r1c10."""
        assert notation.seat_text(0) == "seat 1"
        assert notation.sequence_numbers_cell_text(9) == "r1c10"
