"""Game clocks: pure arithmetic over the times the server stamps.

A time control is common to every game: a limit on each move, or a bank of time per seat for the
whole game with an increment after each of its moves. A clock keeps, per seat, when the wait for
its move began (0 when it is not to act), its bank when that wait began, the timeouts claimed
against it in a row and whether it is absent. Several seats may be waited for at once (6
nimmt!'s selections): each clock runs from its own wait's start. Every function here takes the
time as an argument (milliseconds since the Unix epoch, as the server reads its clock): nothing
here reads a clock, and a game without a time control has no clock at all.

A seat that timed out ``absent_after`` times in a row is absent: its moves are due as soon as it
is to act, until a move of its own brings it back.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from engines.errors import InvalidOptionsError

MIN_LIMIT_MS = 1_000  # a second: the shortest move limit or bank a person can use
MAX_LIMIT_MS = 86_400_000  # a day: a correspondence game's move
MAX_INCREMENT_MS = 3_600_000  # an hour
MAX_ABSENT_AFTER = 100


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A time control: ``move_limit_ms`` per move, or a bank of ``base_ms`` per seat plus
    ``increment_ms`` after each move; ``absent_after`` timeouts in a row mark a seat absent
    (0: never)."""

    move_limit_ms: int = 0
    base_ms: int = 0
    increment_ms: int = 0
    absent_after: int = 0


@dataclass(frozen=True, slots=True)
class SeatClock:
    """One seat's clock: when its wait began (0: not to act), its bank then, the timeouts
    claimed against it in a row, and whether it is absent."""

    waiting_since_ms: int = 0
    bank_ms: int = 0
    timeouts_in_row: int = 0
    absent: bool = False


@dataclass(frozen=True, slots=True)
class GameClock:
    """A game's clock: its time control and one clock per seat."""

    control: TimeControl
    seats: tuple[SeatClock, ...]


@dataclass(frozen=True, slots=True)
class SeatTime:
    """What a seat's clock shows at one instant: its time left and whether it runs."""

    remaining_ms: int
    running: bool
    absent: bool
    timeouts_in_row: int


def check_control(control: TimeControl) -> TimeControl:
    """``control`` when it is one of the two shapes within bounds; raises
    ``InvalidOptionsError`` naming the field at fault."""

    def refuse(message: str, option: str) -> InvalidOptionsError:
        return InvalidOptionsError(message, option=f"time_control.{option}")

    if bool(control.move_limit_ms) == bool(control.base_ms):
        raise refuse("a time control sets move_limit_ms or base_ms, exactly one", "base_ms")
    limit = control.move_limit_ms or control.base_ms
    if not MIN_LIMIT_MS <= limit <= MAX_LIMIT_MS:
        name = "move_limit_ms" if control.move_limit_ms else "base_ms"
        raise refuse(f"{name} must be {MIN_LIMIT_MS:,} to {MAX_LIMIT_MS:,} ms", name)
    if control.increment_ms and control.move_limit_ms:
        raise refuse("increment_ms goes with base_ms, not with move_limit_ms", "increment_ms")
    if control.increment_ms > MAX_INCREMENT_MS:
        raise refuse(f"increment_ms must be at most {MAX_INCREMENT_MS:,} ms", "increment_ms")
    if control.absent_after > MAX_ABSENT_AFTER:
        raise refuse(f"absent_after must be at most {MAX_ABSENT_AFTER}", "absent_after")
    return control


def start(control: TimeControl, seats: int, to_act: Collection[int], now_ms: int) -> GameClock:
    """The clock of a new game of ``seats`` seats: every bank full, the seats ``to_act`` waited
    for from ``now_ms``."""
    return GameClock(
        control,
        tuple(SeatClock(now_ms if seat in to_act else 0, control.base_ms) for seat in range(seats)),
    )


def allowance_ms(clock: GameClock, seat: int) -> int:
    """The time ``seat`` has for its move from the start of its wait: none when absent, else
    the move limit or its bank."""
    seat_clock = clock.seats[seat]
    if seat_clock.absent:
        return 0
    return clock.control.move_limit_ms or seat_clock.bank_ms


def time_left_ms(clock: GameClock, seat: int, now_ms: int) -> int:
    """The time ``seat`` has left at ``now_ms`` (its whole allowance when not to act; never
    below 0)."""
    seat_clock = clock.seats[seat]
    allowance = allowance_ms(clock, seat)
    if not seat_clock.waiting_since_ms:
        return allowance
    return max(0, allowance - max(0, now_ms - seat_clock.waiting_since_ms))


def time_until_due_ms(clock: GameClock, seat: int, now_ms: int, tolerance_ms: int) -> int:
    """How long before a timeout may be claimed against ``seat``, a seat that is to act (0:
    now): its time left and ``tolerance_ms`` more, the most the replicas' clocks may differ, so
    that no replica calls a timeout before the replica that stamped the wait would. An absent
    seat's move is due at once."""
    seat_clock = clock.seats[seat]
    if seat_clock.absent:
        return 0
    due_at = seat_clock.waiting_since_ms + allowance_ms(clock, seat) + tolerance_ms
    return max(0, due_at - now_ms)


def seat_times(clock: GameClock, now_ms: int) -> tuple[SeatTime, ...]:
    """Every seat's clock as it shows at ``now_ms``."""
    return tuple(
        SeatTime(
            time_left_ms(clock, seat, now_ms),
            bool(seat_clock.waiting_since_ms),
            seat_clock.absent,
            seat_clock.timeouts_in_row,
        )
        for seat, seat_clock in enumerate(clock.seats)
    )


def moved(
    clock: GameClock,
    seat: int,
    to_act_after: Collection[int],
    now_ms: int,
    timed_out: bool = False,
) -> GameClock:
    """The clock once ``seat`` moved at ``now_ms`` (its own move, or one played for it when
    ``timed_out``) and the seats ``to_act_after`` are to act.

    The mover's bank loses the time it took and gains the increment; a timeout counts one more
    in a row (``absent_after`` of them mark it absent), its own move clears them and brings it
    back. A seat still waited for from before keeps its wait's start; a seat newly to act, or
    the mover to act again, is waited for from ``now_ms``.
    """
    control = clock.control
    seats = list(clock.seats)
    mover = seats[seat]
    bank = mover.bank_ms
    if control.base_ms:
        spent = max(0, now_ms - mover.waiting_since_ms) if mover.waiting_since_ms else 0
        bank = (0 if timed_out else max(0, bank - spent)) + control.increment_ms
    if timed_out:
        in_row = mover.timeouts_in_row + 1
        absent = mover.absent or bool(control.absent_after and in_row >= control.absent_after)
        seats[seat] = SeatClock(0, bank, in_row, absent)
    else:
        seats[seat] = SeatClock(0, bank)
    for other, seat_clock in enumerate(seats):
        waiting = seat_clock.waiting_since_ms
        if other not in to_act_after:
            waiting = 0
        elif not waiting:
            waiting = now_ms
        if waiting != seat_clock.waiting_since_ms:
            seats[other] = SeatClock(
                waiting, seat_clock.bank_ms, seat_clock.timeouts_in_row, seat_clock.absent
            )
    return GameClock(control, tuple(seats))


def check_clock(
    clock: GameClock, seats: int, to_act: Collection[int], now_ms: int, tolerance_ms: int
) -> None:
    """Refuse, with ``ValueError``, a clock that no game could have: another number of seats,
    a wait for a seat not to act (or none for one that is), a wait stamped after ``now_ms`` (by
    more than ``tolerance_ms``), a bank beside a per-move limit, an absence without its
    timeouts. A plain state's caller may still have moved a stamp back in time: only a sealed
    state keeps the stamps out of its reach."""
    control = check_control(clock.control)
    if len(clock.seats) != seats:
        raise ValueError("a clock holds one entry per seat")
    for seat, seat_clock in enumerate(clock.seats):
        if bool(seat_clock.waiting_since_ms) != (seat in to_act):
            raise ValueError("a clock waits for the seats to act, and for them only")
        if seat_clock.waiting_since_ms > now_ms + tolerance_ms:
            raise ValueError("a clock's wait cannot begin after the server's time")
        if control.move_limit_ms and seat_clock.bank_ms:
            raise ValueError("a per-move limit keeps no bank")
        absent_after = control.absent_after
        if seat_clock.absent and not (absent_after and seat_clock.timeouts_in_row >= absent_after):
            raise ValueError("a seat is absent after absent_after timeouts in a row only")
