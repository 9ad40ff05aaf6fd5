"""How the engines write seats, teams, rows, sides, cells and ranks for people
(``engines.notation``): counted from 1, teams as letters, ranks as ordinals."""

from __future__ import annotations

import pytest

from engines import notation


class TestNotation:
    """Each form reads as people write it."""

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            (notation.number_text(0), "1"),
            (notation.seat_text(0), "seat 1"),
            (notation.seat_text(9), "seat 10"),
            (notation.row_text(3), "row 4"),
            (notation.side_text(4), "side 5"),
            (notation.cell_text(0, 9), "r1c10"),
            (notation.team_text(0), "team A"),
            (notation.team_text(2), "team C"),
            (notation.field_text("six_nimmt.choose_row", 7), "six_nimmt.choose_row=7"),
        ],
        ids=str,
    )
    def test_a_form(self, text: str, expected: str) -> None:
        """The form names the thing as people count it."""
        assert text == expected

    @pytest.mark.parametrize(
        ("team", "letter"), [(0, "A"), (1, "B"), (2, "C"), (3, "4"), (-1, "0")]
    )
    def test_teams_past_the_letters_keep_their_number(self, team: int, letter: str) -> None:
        """Teams 0 to 2 are the letters A to C; any other team keeps its number."""
        assert notation.team_letter(team) == letter

    @pytest.mark.parametrize(
        ("rank", "ordinal"),
        [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (10, "10th"), (11, "11th"), (12, "12th"),
         (13, "13th"), (20, "20th"), (21, "21st"), (22, "22nd"), (23, "23rd"), (111, "111th")],
    )  # fmt: skip
    def test_ranks_are_ordinals(self, rank: int, ordinal: str) -> None:
        """1st, 2nd, 3rd, then th, and th for the teens."""
        assert notation.ordinal_text(rank) == ordinal
