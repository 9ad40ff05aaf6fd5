"""The server's clock and the clocks of games: reading the time, and carrying a game's clock on
the wire.

The server reads its time through a ``Clock`` handed to the servicer (the system's by default;
tests hand a clock they move themselves), never elsewhere: what the rules do with the time is
pure arithmetic over the times read here (``engines.clock``).

A game's clock travels in ``GameState.clock`` of a plain state. A sealed state keeps it inside
the seal, where the caller can neither read nor change it: the sealed payload is then a zero
byte, the clock message's length and bytes, and the game's state message. No protobuf message
opens with a zero byte (field number 0 does not exist), so a payload without a clock, the game's
state message alone, is told apart and stays byte for byte what it was before clocks.
"""

from __future__ import annotations

import functools
import time
from typing import Protocol

from engines import clock as clocks
from engines.clock import GameClock, SeatClock, TimeControl
from engines.errors import InvalidOptionsError, InvalidStateError
from engines.notation import seat_text
from ordo.v1 import common_pb2 as common
from service.codecs import wire
from service.codecs.base import MAX_LISTS
from service.errors import RequestError, TimeoutNotDueError

CLOCK_KEY = wire.key(
    common.GameState.DESCRIPTOR.fields_by_name["clock"].number, wire.LENGTH_DELIMITED
)
_CLOCK_FIELDS = common.Clock.DESCRIPTOR.fields_by_name
_SEAT_FIELDS = common.SeatClock.DESCRIPTOR.fields_by_name
_CONTROL_KEY = wire.key(_CLOCK_FIELDS["control"].number, wire.LENGTH_DELIMITED)
_SEAT_KEY = wire.key(_CLOCK_FIELDS["seats"].number, wire.LENGTH_DELIMITED)
_SINCE_KEY = wire.key(_SEAT_FIELDS["waiting_since_ms"].number, wire.VARINT)
_BANK_KEY = wire.key(_SEAT_FIELDS["bank_ms"].number, wire.VARINT)
_TIMEOUTS_KEY = wire.key(_SEAT_FIELDS["timeouts_in_row"].number, wire.VARINT)
_ABSENT_FIELD = wire.key(_SEAT_FIELDS["absent"].number, wire.VARINT) + wire.varint(1)
CONTROLS_KEPT = 256  # the time controls in play: a few each deployment offers
CLOCK_MARK = b"\x00"  # opens a sealed payload that carries a clock
NANOSECONDS_PER_MILLISECOND = 1_000_000


class Clock(Protocol):
    """The server's clock."""

    def now_ms(self) -> int:
        """The time now, in milliseconds since the Unix epoch."""


class SystemClock:
    """The system's wall clock: the one the replicas keep in step (NTP)."""

    def now_ms(self) -> int:
        """The time now, in milliseconds since the Unix epoch."""
        return time.time_ns() // NANOSECONDS_PER_MILLISECOND


SYSTEM_CLOCK = SystemClock()


def decode_control(msg: common.TimeControl) -> TimeControl:
    """The engine's time control of ``msg``, checked (``InvalidOptionsError``)."""
    return clocks.check_control(
        TimeControl(msg.move_limit_ms, msg.base_ms, msg.increment_ms, msg.absent_after)
    )


def encode_control(control: TimeControl) -> common.TimeControl:
    """The message of a time control."""
    return common.TimeControl(
        move_limit_ms=control.move_limit_ms,
        base_ms=control.base_ms,
        increment_ms=control.increment_ms,
        absent_after=control.absent_after,
    )


@functools.lru_cache(maxsize=CONTROLS_KEPT)
def _control_field(control: TimeControl) -> bytes:
    """The ``control`` field of a ``Clock`` message, made once per time control in play."""
    return wire.length_delimited(_CONTROL_KEY, encode_control(control).SerializeToString())


def encode_clock(clock: GameClock) -> bytes:
    """The serialized ``Clock`` message of a game's clock, framed here (every move writes one:
    protobuf's message building costs several times more); ``clock_message`` is its slow twin,
    which gives the same bytes."""
    fields = [_control_field(clock.control)]
    for seat in clock.seats:
        body = b"".join(
            (
                wire.uint_field(_SINCE_KEY, seat.waiting_since_ms),
                wire.uint_field(_BANK_KEY, seat.bank_ms),
                wire.uint_field(_TIMEOUTS_KEY, seat.timeouts_in_row),
                _ABSENT_FIELD if seat.absent else b"",
            )
        )
        fields.append(wire.length_delimited(_SEAT_KEY, body))
    return b"".join(fields)


def clock_message(clock: GameClock) -> common.Clock:
    """The ``Clock`` message of a game's clock, built by protobuf."""
    return common.Clock(
        control=encode_control(clock.control),
        seats=[
            common.SeatClock(
                waiting_since_ms=seat.waiting_since_ms,
                bank_ms=seat.bank_ms,
                timeouts_in_row=seat.timeouts_in_row,
                absent=seat.absent,
            )
            for seat in clock.seats
        ],
    )


def decode_clock(msg: common.Clock) -> GameClock:
    """The game's clock of a ``Clock`` message; a time control out of bounds is an inconsistent
    state."""
    try:
        control = decode_control(msg.control)
    except InvalidOptionsError as error:
        raise InvalidStateError(f"the state's clock is inconsistent: {error.message}") from None
    if len(msg.seats) > MAX_LISTS:
        raise InvalidStateError("the state's clock holds more seats than a game has")
    return GameClock(
        control,
        tuple(
            SeatClock(seat.waiting_since_ms, seat.bank_ms, seat.timeouts_in_row, seat.absent)
            for seat in msg.seats
        ),
    )


def clock_field(clock: GameClock | None) -> bytes:
    """The ``clock`` field of a plain ``GameState`` (nothing without a clock)."""
    if clock is None:
        return b""
    return wire.length_delimited(CLOCK_KEY, encode_clock(clock))


def sealed_payload(payload: bytes, clock: GameClock | None) -> bytes:
    """What a sealed state seals: the game's state message ``payload``, after the clock when
    the game has one."""
    if clock is None:
        return payload
    encoded = encode_clock(clock)
    return b"".join((CLOCK_MARK, wire.varint(len(encoded)), encoded, payload))


def unsealed_payload(payload: bytes) -> tuple[bytes, GameClock | None]:
    """The game's state message and the clock (None without one) of a sealed payload."""
    if not payload.startswith(CLOCK_MARK):
        return payload, None
    found = wire.leading_field(payload, CLOCK_MARK)
    if found is None:
        raise InvalidStateError("the state's clock is cut short")
    encoded, rest = found
    return rest, decode_clock(common.Clock.FromString(encoded))


def clock_view(clock: GameClock, now_ms: int) -> common.ClockView:
    """Every seat's clock as a viewer sees it at ``now_ms``."""
    return common.ClockView(
        control=encode_control(clock.control),
        server_time_ms=now_ms,
        seats=[
            common.SeatClockView(
                remaining_ms=seat.remaining_ms,
                running=seat.running,
                absent=seat.absent,
                timeouts_in_row=seat.timeouts_in_row,
            )
            for seat in clocks.seat_times(clock, now_ms)
        ],
    )


def no_time_control() -> RequestError:
    """The refusal of a timeout claimed in a game without a time control."""
    return RequestError("this game has no time control: no seat can time out", "NO_TIME_CONTROL")


def not_due(seat: int, time_left_ms: int) -> TimeoutNotDueError:
    """The refusal of a timeout claimed against ``seat`` before it is due, in
    ``time_left_ms``."""
    return TimeoutNotDueError(
        f"{seat_text(seat)} still has time: claim again in {time_left_ms} ms",
        seat=seat,
        time_left_ms=time_left_ms,
    )
