"""The clocks' arithmetic on its own: time controls checked, waits started and moved on, time
left, when a timeout is due, absence and its end, and clocks no server could have made."""

from __future__ import annotations

import pytest

from engines import clock as clocks
from engines.clock import GameClock, SeatClock, TimeControl
from engines.errors import InvalidOptionsError

T0 = 1_800_000_000_000  # a server's time, in ms since the epoch
PER_MOVE = TimeControl(move_limit_ms=5_000, absent_after=2)
BANKED = TimeControl(base_ms=60_000, increment_ms=2_000)
TOLERANCE_MS = 250


class TestTimeControls:
    """A time control is one of two shapes, within bounds."""

    @pytest.mark.parametrize(
        ("control", "option"),
        [
            (TimeControl(), "time_control.base_ms"),
            (TimeControl(move_limit_ms=5_000, base_ms=60_000), "time_control.base_ms"),
            (TimeControl(move_limit_ms=999), "time_control.move_limit_ms"),
            (TimeControl(base_ms=86_400_001), "time_control.base_ms"),
            (TimeControl(move_limit_ms=5_000, increment_ms=1), "time_control.increment_ms"),
            (TimeControl(base_ms=60_000, increment_ms=3_600_001), "time_control.increment_ms"),
            (TimeControl(move_limit_ms=5_000, absent_after=101), "time_control.absent_after"),
        ],
    )
    def test_a_control_out_of_shape_is_refused(self, control: TimeControl, option: str) -> None:
        """Neither shape, both, or a value out of its range: INVALID_OPTIONS naming the field."""
        with pytest.raises(InvalidOptionsError) as refused:
            clocks.check_control(control)
        assert refused.value.metadata["option"] == option

    @pytest.mark.parametrize(
        "control",
        [
            TimeControl(move_limit_ms=1_000),
            TimeControl(move_limit_ms=86_400_000, absent_after=100),
            TimeControl(base_ms=1_000, increment_ms=3_600_000),
        ],
    )
    def test_the_bounds_are_accepted(self, control: TimeControl) -> None:
        """The shortest and longest limits, banks and increments are time controls."""
        assert clocks.check_control(control) is control


class TestWaits:
    """Each seat to act is waited for from its own start."""

    def test_a_new_clock_waits_for_the_seats_to_act(self) -> None:
        """The seats to act wait from the deal; every bank is full."""
        clock = clocks.start(BANKED, 3, (0, 2), T0)
        assert [seat.waiting_since_ms for seat in clock.seats] == [T0, 0, T0]
        assert {seat.bank_ms for seat in clock.seats} == {60_000}

    def test_a_seat_still_owing_keeps_its_start(self) -> None:
        """After one seat's selection the others still owing keep the wait's start; a seat
        newly to act, or the mover to act again, waits from the move."""
        clock = clocks.start(PER_MOVE, 3, (0, 1, 2), T0)
        moved = clocks.moved(clock, 0, (1, 2), T0 + 1_000)
        assert [seat.waiting_since_ms for seat in moved.seats] == [0, T0, T0]
        again = clocks.moved(moved, 1, (1,), T0 + 2_000)
        assert [seat.waiting_since_ms for seat in again.seats] == [0, T0 + 2_000, 0]

    def test_time_left_runs_down_from_the_start(self) -> None:
        """A seat to act has its allowance less the time since its wait began, never below 0;
        one not to act shows its whole allowance."""
        clock = clocks.start(PER_MOVE, 2, (0,), T0)
        assert clocks.time_left_ms(clock, 0, T0 + 1_500) == 3_500
        assert clocks.time_left_ms(clock, 0, T0 + 9_000) == 0
        assert clocks.time_left_ms(clock, 1, T0 + 9_000) == 5_000
        shown = clocks.seat_times(clock, T0 + 1_500)
        assert [(seat.remaining_ms, seat.running) for seat in shown] == [
            (3_500, True),
            (5_000, False),
        ]


class TestBanks:
    """A bank loses the time a move took and gains the increment."""

    def test_a_move_spends_and_earns(self) -> None:
        """60 s, a move of 7 s, 2 s more: 55 s."""
        clock = clocks.start(BANKED, 2, (0,), T0)
        moved = clocks.moved(clock, 0, (1,), T0 + 7_000)
        assert moved.seats[0].bank_ms == 55_000
        assert moved.seats[1].bank_ms == 60_000

    def test_a_timeout_empties_the_bank_but_the_increment(self) -> None:
        """A seat whose bank ran out has the increment alone for its next move."""
        clock = clocks.start(BANKED, 2, (0,), T0)
        moved = clocks.moved(clock, 0, (1,), T0 + 70_000, timed_out=True)
        assert moved.seats[0].bank_ms == 2_000

    def test_a_bank_never_goes_below_zero(self) -> None:
        """A move made after the bank ran out (nobody claimed) leaves the increment."""
        clock = clocks.start(BANKED, 2, (0,), T0)
        assert clocks.moved(clock, 0, (1,), T0 + 90_000).seats[0].bank_ms == 2_000


class TestTimeouts:
    """When a timeout is due, and what timeouts in a row do."""

    def test_a_timeout_is_due_after_the_time_and_the_tolerance(self) -> None:
        """Due once the allowance and the tolerance have passed, not a millisecond before."""
        clock = clocks.start(PER_MOVE, 2, (0,), T0)
        due = T0 + 5_000 + TOLERANCE_MS
        assert clocks.time_until_due_ms(clock, 0, T0, TOLERANCE_MS) == 5_000 + TOLERANCE_MS
        assert clocks.time_until_due_ms(clock, 0, due - 1, TOLERANCE_MS) == 1
        assert clocks.time_until_due_ms(clock, 0, due, TOLERANCE_MS) == 0

    def test_timeouts_in_row_mark_a_seat_absent_and_its_own_move_brings_it_back(self) -> None:
        """Two timeouts in a row (absent_after 2): absent, due at once, no time left; its own
        move clears the count and the absence."""
        clock = clocks.start(PER_MOVE, 2, (0,), T0)
        once = clocks.moved(clock, 0, (0,), T0 + 6_000, timed_out=True)
        assert (once.seats[0].timeouts_in_row, once.seats[0].absent) == (1, False)
        twice = clocks.moved(once, 0, (0,), T0 + 12_000, timed_out=True)
        assert (twice.seats[0].timeouts_in_row, twice.seats[0].absent) == (2, True)
        assert clocks.time_until_due_ms(twice, 0, T0 + 12_000, TOLERANCE_MS) == 0
        assert clocks.time_left_ms(twice, 0, T0 + 12_000) == 0
        back = clocks.moved(twice, 0, (1,), T0 + 12_500)
        assert back.seats[0] == SeatClock(0, 0, 0, False)

    def test_without_absent_after_a_seat_is_never_absent(self) -> None:
        """absent_after 0: any number of timeouts in a row, never absent."""
        clock = clocks.start(TimeControl(move_limit_ms=1_000), 1, (0,), T0)
        for step in range(1, 6):
            clock = clocks.moved(clock, 0, (0,), T0 + step * 2_000, timed_out=True)
        assert (clock.seats[0].timeouts_in_row, clock.seats[0].absent) == (5, False)


class TestImpossibleClocks:
    """A clock no server could have made is refused."""

    @pytest.mark.parametrize(
        "clock",
        [
            GameClock(PER_MOVE, (SeatClock(T0),)),  # one seat of two
            GameClock(PER_MOVE, (SeatClock(T0), SeatClock(T0))),  # a wait for a seat not to act
            GameClock(PER_MOVE, (SeatClock(), SeatClock())),  # no wait for the seat to act
            GameClock(PER_MOVE, (SeatClock(T0 + 60_000), SeatClock())),  # a wait in the future
            GameClock(PER_MOVE, (SeatClock(T0, bank_ms=1), SeatClock())),  # a bank per move
            GameClock(PER_MOVE, (SeatClock(T0, absent=True), SeatClock())),  # absent untimed out
            GameClock(TimeControl(), (SeatClock(T0), SeatClock())),  # no time control
        ],
    )
    def test_an_impossible_clock_is_refused(self, clock: GameClock) -> None:
        """Each of these is refused."""
        with pytest.raises((ValueError, InvalidOptionsError)):
            clocks.check_clock(clock, 2, (0,), T0, TOLERANCE_MS)

    def test_a_clock_the_server_made_is_accepted(self) -> None:
        """A clock moved on by the rules passes the checks."""
        clock = clocks.moved(clocks.start(PER_MOVE, 2, (0,), T0), 0, (1,), T0 + 1_000)
        clocks.check_clock(clock, 2, (1,), T0 + 1_000, TOLERANCE_MS)
