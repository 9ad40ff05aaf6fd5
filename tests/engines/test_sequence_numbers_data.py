"""Invariants of the Sequence Numbers board and deck tables (docs/rules/sequence_numbers.md)."""

from collections import Counter
from itertools import product
from pathlib import Path

from engines.sequence_numbers import data, gen_data

SIZE = 10  # docs/rules/sequence_numbers.md: 10 x 10 cells
NUMBERS = range(1, 49)  # the non-corner cells and the equation results: 1..48
COPIES = 2  # each number is on two cells and on two equation cards
MIN_DISTANCE = 3  # Chebyshev distance between the two cells of a number
OPERANDS = range(61)  # equation operands are whole numbers 0..60
CORNERS = {(0, 0), (0, SIZE - 1), (SIZE - 1, 0), (SIZE - 1, SIZE - 1)}


def _cells_of(number: int) -> list[tuple[int, int]]:
    """Every (row, col) of the board that shows ``number``."""
    return [
        (row, col)
        for row, col in product(range(data.BOARD_SIZE), repeat=2)
        if data.BOARD[row][col] == number
    ]


class TestBoard:
    """The fixed board layout."""

    def test_board_is_10_by_10(self) -> None:
        """The board has BOARD_SIZE == 10 rows of 10 cells."""
        assert data.BOARD_SIZE == SIZE
        assert len(data.BOARD) == SIZE
        assert all(len(row) == SIZE for row in data.BOARD)

    def test_corners_are_free(self) -> None:
        """All four corners hold FREE."""
        assert all(data.BOARD[row][col] == data.FREE for row, col in CORNERS)

    def test_only_corners_are_free(self) -> None:
        """FREE appears on the four corners and nowhere else."""
        assert set(_cells_of(data.FREE)) == CORNERS

    def test_each_number_is_on_exactly_two_cells(self) -> None:
        """The non-corner cells hold 1..48, each exactly twice, and nothing else."""
        counts = Counter(value for row in data.BOARD for value in row)
        del counts[data.FREE]
        assert counts == dict.fromkeys(NUMBERS, COPIES)

    def test_cells_of_a_number_are_at_chebyshev_distance_3_or_more(self) -> None:
        """The two cells of every number are at least 3 king moves apart."""
        for number in NUMBERS:
            (row_a, col_a), (row_b, col_b) = _cells_of(number)
            assert max(abs(row_a - row_b), abs(col_a - col_b)) >= MIN_DISTANCE, number


class TestDeck:
    """The fixed deck: equation cards, PLUS and MINUS cards."""

    def test_deck_has_100_distinct_ids_0_to_99(self) -> None:
        """Equation, PLUS and MINUS ids together are exactly 0..99, each once."""
        ids = [card[0] for card in data.EQUATIONS]
        ids += [*data.PLUS_CARDS, *data.MINUS_CARDS]
        assert data.DECK_SIZE == 100
        assert sorted(ids) == list(range(data.DECK_SIZE))

    def test_equation_ids_are_0_to_95_in_order(self) -> None:
        """The equation cards are listed by id, 0..95."""
        assert [card[0] for card in data.EQUATIONS] == list(range(96))

    def test_96_equations_two_per_number(self) -> None:
        """There are 96 equation cards: two for each result 1..48."""
        assert len(data.EQUATIONS) == 96
        counts = Counter(card[4] for card in data.EQUATIONS)
        assert counts == dict.fromkeys(NUMBERS, COPIES)

    def test_operator_is_plus_or_minus(self) -> None:
        """Every equation is an addition or a subtraction."""
        assert {card[1] for card in data.EQUATIONS} <= {"+", "-"}

    def test_arithmetic_gives_the_result(self) -> None:
        """Each equation's left operator right equals its result."""
        for card_id, operator, left, right, result in data.EQUATIONS:
            value = left + right if operator == "+" else left - right
            assert value == result, card_id

    def test_operands_are_whole_numbers_0_to_60(self) -> None:
        """Both operands of every equation are ints in 0..60."""
        for card_id, _, left, right, _ in data.EQUATIONS:
            assert type(left) is int, card_id
            assert type(right) is int, card_id
            assert left in OPERANDS, card_id
            assert right in OPERANDS, card_id

    def test_no_negative_results(self) -> None:
        """No equation evaluates to a negative number."""
        for card_id, operator, left, right, _ in data.EQUATIONS:
            assert (left + right if operator == "+" else left - right) >= 0, card_id

    def test_no_trivial_zero_operand(self) -> None:
        """No card is a trivial n + 0, 0 + n or n - 0."""
        for card_id, _, left, right, _ in data.EQUATIONS:
            assert left != 0, card_id
            assert right != 0, card_id

    def test_both_cards_of_a_number_differ(self) -> None:
        """The two cards of a result never show the same operator and operands."""
        for number in NUMBERS:
            forms = {card[1:4] for card in data.EQUATIONS if card[4] == number}
            assert len(forms) == COPIES, number

    def test_two_plus_and_two_minus_cards(self) -> None:
        """There are exactly 2 PLUS cards and 2 MINUS cards, with different ids."""
        assert len(data.PLUS_CARDS) == 2
        assert len(data.MINUS_CARDS) == 2
        assert len({*data.PLUS_CARDS, *data.MINUS_CARDS}) == 4


class TestGenerator:
    """The checked-in tables and their generator."""

    def test_render_reproduces_the_checked_in_tables(self) -> None:
        """gen_data.render() yields data.py byte for byte."""
        assert gen_data.render() == Path(data.__file__).read_text(encoding="utf-8")

    def test_tables_version_is_1(self) -> None:
        """The tables are at version 1."""
        assert data.TABLES_VERSION == 1
