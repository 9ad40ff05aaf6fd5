"""The Sequence Numbers board: its cells, corners and lines of five
(docs/rules/sequence_numbers.md).

Cells are numbered row by row, ``cell = row × 10 + column``; the numbers on them come from
``data`` (fixed, versioned tables).
"""

from __future__ import annotations

from engines.notation import cell_text as row_column_text
from engines.sequence_numbers import data

SEQUENCE_LENGTH = 5  # a sequence is five cells in a straight line
NO_CHIP = -1  # an empty cell (corners always hold NO_CHIP: they are free spaces)
BOARD_SIZE = data.BOARD_SIZE
CELLS = BOARD_SIZE * BOARD_SIZE

#: The number on each cell, row by row; ``data.FREE`` on the four corners.
NUMBERS: tuple[int, ...] = tuple(number for row in data.BOARD for number in row)
#: Whether each cell is a corner (a free space: every team's chip, nobody places on it).
IS_CORNER: tuple[bool, ...] = tuple(number == data.FREE for number in NUMBERS)
CORNERS: tuple[int, ...] = tuple(cell for cell in range(CELLS) if IS_CORNER[cell])
#: Line directions in scan order: row, column, diagonal down-right, diagonal down-left.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))


def _full_lines() -> tuple[tuple[int, ...], ...]:
    """Every maximal straight line of at least five cells, in the order of DIRECTIONS."""
    lines: list[tuple[int, ...]] = []
    for d_row, d_col in DIRECTIONS:
        for row in range(BOARD_SIZE):
            for col in range(BOARD_SIZE):
                before = (row - d_row, col - d_col)
                if 0 <= before[0] < BOARD_SIZE and 0 <= before[1] < BOARD_SIZE:
                    continue  # not the first cell of its line
                line = []
                r, c = row, col
                while 0 <= r < BOARD_SIZE and 0 <= c < BOARD_SIZE:
                    line.append(r * BOARD_SIZE + c)
                    r, c = r + d_row, c + d_col
                if len(line) >= SEQUENCE_LENGTH:
                    lines.append(tuple(line))
    return tuple(lines)


LINES = _full_lines()


def _reach(cell: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Per line of five or more through ``cell``, in the order of DIRECTIONS: the cells up to
    four steps back (towards the line's beginning, nearest first) and up to four steps ahead."""
    reach = []
    for line in LINES:
        if cell in line:
            index = line.index(cell)
            backward = line[max(0, index - SEQUENCE_LENGTH + 1) : index][::-1]
            reach.append((backward, line[index + 1 : index + SEQUENCE_LENGTH]))
    return tuple(reach)


REACH = tuple(_reach(cell) for cell in range(CELLS))
#: Every window of five cells in a straight line, each in line order.
WINDOWS: tuple[tuple[int, ...], ...] = tuple(
    line[start : start + SEQUENCE_LENGTH]
    for line in LINES
    for start in range(len(line) - SEQUENCE_LENGTH + 1)
)
WINDOW_SET = frozenset(WINDOWS)
#: Per cell: the windows that contain it.
WINDOWS_THROUGH: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(window for window in WINDOWS if cell in window) for cell in range(CELLS)
)
#: Per cell: the indices in WINDOWS of the windows that contain it, in the order of WINDOWS_THROUGH.
WINDOW_INDICES_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(index for index, window in enumerate(WINDOWS) if cell in window) for cell in range(CELLS)
)


def cell_text(cell: int) -> str:
    """A cell for people, its row and column counted from 1: cell 9 on the wire (row 0, column 9)
    is ``r1c10``."""
    return row_column_text(*divmod(cell, BOARD_SIZE))
