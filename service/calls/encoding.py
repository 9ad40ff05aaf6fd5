"""The servicer's last part: from the engine's answer to the response's bytes or message.

A state is serialized once, in parts when its codec has them (the parts the action left as
they were are reused from the state it applied to), sealed when the server has keys, and kept
by the state cache under the bytes that go out. ``ApplyAction``'s response is put together
field by field (``service.codecs.wire`` frames them): the encodings of the statuses and events
the engines share, which recur from call to call, are kept (``service.calls.caches``), and an
event's is made of its audience's fields, kept per seat count, and its game's event message
serialized alone. The other methods' responses are messages, filled in place (a message passed
to a constructor is copied; one filled in place is not).

These are fast paths, and each has a slow twin one switch away: an encoder made ``plain``
builds every message with protobuf and serializes it whole, keeping nothing. Both give the same
bytes (``tests/service/test_plain_wire.py`` plays every recorded game and golden playout both
ways); ``docs/architecture.md`` says why the fast paths exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engines.base import Event, Outcome, Status
from engines.clock import GameClock
from engines.search import SEARCH_POLICY
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.caches import AUDIENCE_BYTES, AUDIENCE_COST, Encodings
from service.calls.clocks import clock_field, clock_message, sealed_payload
from service.calls.games import (
    EVERY_EVENT,
    RESPONSE_AT_KEY,
    RESPONSE_EVENTS_KEY,
    RESPONSE_STATE_KEY,
    RESPONSE_STATUS_KEY,
    REVISION_KEY,
    RULES_VERSION_KEY,
    SEALED_KEY,
    EventViewer,
    Game,
)
from service.calls.state_cache import KnownState, StateCache
from service.codecs import wire
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer
from service.trust.seats import NO_SEATING, Seating


def encode_outcome(outcome: Outcome) -> common.Outcome:
    """The proto of an engine outcome."""
    return common.Outcome(
        scores=outcome.scores,
        winners=outcome.winners,
        lower_is_better=outcome.lower_is_better,
        termination=outcome.termination,
    )


def encode_status(status: Status) -> common.GameStatus:
    """The proto of an engine status."""
    if status.outcome is None:
        return common.GameStatus(seats_to_act=status.seats_to_act, finished=status.finished)
    return common.GameStatus(finished=True, outcome=encode_outcome(status.outcome))


def game_info(game: Game, max_search_iterations: int) -> common.GameInfo:
    """The proto of a game's description, as ``ListGames`` gives it, with the most search
    iterations this server allows a request."""
    info = game.engine.info
    search = game.engine.search_info
    policies = sorted(game.engine.policies)
    return common.GameInfo(
        id=info.id,
        title=info.title,
        min_seats=info.min_seats,
        max_seats=info.max_seats,
        seat_counts=info.seat_counts,
        simultaneous=info.simultaneous,
        rules_version=info.rules_version,
        options=[
            common.OptionInfo(
                name=option.name,
                description=option.description,
                default_value=option.default,
                allowed_values=option.allowed,
            )
            for option in info.options
        ],
        policies=policies,
        policy_details=[
            common.PolicyInfo(
                name=name,
                description=game.engine.describe_policy(name),
                **(
                    {
                        "default_search_iterations": search.searcher.default_iterations,
                        "max_search_iterations": max_search_iterations,
                    }
                    if name == SEARCH_POLICY and search is not None
                    else {}
                ),
            )
            for name in policies
        ],
    )


@dataclass(frozen=True, slots=True)
class EncodedState:
    """A state as it leaves the server: its ``GameState`` bytes, the encodings of its parts
    (when its codec serializes states in parts, and not ``plain``) and its sealed payload."""

    data: bytes
    parts: tuple[bytes, ...] | None = None
    seal: bytes = b""


class Encoder:
    """Encodes the answers of one servicer, with the worker's ``states``, ``encodings`` and
    ``audiences`` tables, sealing states with ``sealer`` when it has one; ``plain``, with
    protobuf's own serializer and no table (the fast paths' slow twin)."""

    def __init__(
        self,
        states: StateCache,
        encodings: Encodings,
        audiences: dict[tuple[int, tuple[int, ...] | None], bytes],
        sealer: Sealer | None,
        plain: bool = False,
    ) -> None:
        self.states = states
        self.encodings = encodings
        self.audiences = audiences
        self.sealer = sealer
        self.plain = plain

    def apply_response(
        self,
        game: Game,
        state: Any,
        parts: Any,
        new_state: Any,
        status: Status,
        events: Sequence[Event],
        viewer: EventViewer,
        call: CallRecord,
        seating: Seating = NO_SEATING,
        clock: GameClock | None = None,
        at_ms: int = 0,
    ) -> bytes:
        """The serialized ``ApplyActionResponse`` of an action of ``game`` that led from
        ``state`` (whose encoded ``parts`` may be known) to ``new_state``: that state, with the
        game's ``seating`` and ``clock``, its ``status``, the ``events`` that ``viewer`` may see
        and the time the server stamped (``at_ms``, 0 without a clock)."""
        data = self.state(game, new_state, call, state, parts, seating, clock).data
        seats = game.engine.seats(state)
        if self.plain:
            response = api.ApplyActionResponse(status=encode_status(status), at_ms=at_ms)
            response.state.MergeFromString(data)
            response.events.extend(self.event_messages(game, seats, events, viewer))
            return response.SerializeToString()
        return b"".join(
            (
                RESPONSE_STATE_KEY,
                wire.varint(len(data)),
                data,
                self.status_field(status),
                *self.event_fields(game, seats, events, viewer),
                wire.uint_field(RESPONSE_AT_KEY, at_ms),
            )
        )

    def fill_state(
        self,
        target: common.GameState,
        game: Game,
        state: Any,
        call: CallRecord,
        seating: Seating = NO_SEATING,
        clock: GameClock | None = None,
    ) -> None:
        """Encode ``state``, its ``seating`` and its ``clock`` into ``target``, the (empty)
        state field of a response."""
        target.MergeFromString(self.state(game, state, call, seating=seating, clock=clock).data)

    def state(
        self,
        game: Game,
        state: Any,
        call: CallRecord,
        previous: Any = None,
        previous_parts: Any = None,
        seating: Seating = NO_SEATING,
        clock: GameClock | None = None,
    ) -> EncodedState:
        """The ``GameState`` of ``state`` with its ``seating`` and ``clock``, sealed (the
        seating bound to the seal, the clock inside it) when the server has keys, remembered by
        the state cache. When the codec serializes states in parts and the encoded parts of
        ``previous`` (the state the action applied to) are known, the parts the action left as
        they were are reused."""
        if self.plain:
            encoded = self._plain_state(game, state, seating, clock)
        else:
            encoded = self._state(game, state, previous, previous_parts, seating, clock)
        if self.states.max_bytes:
            known = KnownState(game.id, state, encoded.parts, seating, encoded.seal, clock)
            self.states.put(encoded.data, known)
        call.state_bytes = len(encoded.data)
        return encoded

    def _state(
        self,
        game: Game,
        state: Any,
        previous: Any,
        previous_parts: Any,
        seating: Seating,
        clock: GameClock | None,
    ) -> EncodedState:
        """``state``'s encoding, framed here in field number order."""
        codec = game.codec
        if codec.state_parts is not None:
            if previous_parts is None:
                previous = None
            parts = codec.state_parts.serialize(state, previous, previous_parts)
            payload = b"".join(parts)
        else:
            parts = None
            payload = codec.encode_state(state).SerializeToString()
        seated = seating.fields()  # fields 5 and 6: after the seal's, before the game's
        seal = b""
        if self.sealer is None:
            fields: tuple[bytes, ...] = (
                seated,
                clock_field(clock),  # field 7
                game.state_key,
                wire.varint(len(payload)),
                payload,
            )
        else:
            sealed = sealed_payload(payload, clock)
            seal = self.sealer.seal(game.id, state.rules_version, state.revision, sealed, seated)
            fields = (SEALED_KEY, wire.varint(len(seal)), seal, game.id_field, seated)
        data = b"".join(
            (
                wire.uint_field(RULES_VERSION_KEY, state.rules_version),
                wire.uint_field(REVISION_KEY, state.revision),
                *fields,
            )
        )
        return EncodedState(data, parts, seal)

    def _plain_state(
        self, game: Game, state: Any, seating: Seating, clock: GameClock | None
    ) -> EncodedState:
        """``state``'s encoding, a message built and serialized by protobuf."""
        inner = game.codec.encode_state(state)
        message = common.GameState(
            rules_version=state.rules_version,
            revision=state.revision,
            match_id=seating.match_id,
            bots=[common.BotSeat(seat=seat, policy=policy) for seat, policy in seating.bots],
        )
        seal = b""
        if self.sealer is None:
            getattr(message, game.id).CopyFrom(inner)
            if clock is not None:
                message.clock.CopyFrom(clock_message(clock))
        else:
            bound = common.GameState(match_id=message.match_id, bots=message.bots)
            seal = self.sealer.seal(
                game.id,
                state.rules_version,
                state.revision,
                sealed_payload(inner.SerializeToString(), clock),
                bound.SerializeToString(),
            )
            message.sealed = seal
            message.game_id = game.id
        return EncodedState(message.SerializeToString(), None, seal)

    def status_field(self, status: Status) -> bytes:
        """The ``status`` field of a response."""
        field = self.encodings.get(status)
        if field is None:
            field = wire.length_delimited(
                RESPONSE_STATUS_KEY, encode_status(status).SerializeToString()
            )
            self.encodings.put(status, None, field)
        return field

    def event_messages(
        self, game: Game, seats: int, events: Sequence[Event], viewer: EventViewer = EVERY_EVENT
    ) -> list[common.Event]:
        """The ``Event`` messages of the ``events`` that ``viewer`` may see, built by protobuf."""
        encode = game.codec.encode_event
        return [
            common.Event(
                visible_to_seats=range(seats) if event.audience is None else event.audience,
                public=event.audience is None,
                **{game.id: encode(event.body)},
            )
            for event in visible(events, viewer)
        ]

    def event_fields(
        self, game: Game, seats: int, events: Sequence[Event], viewer: EventViewer = EVERY_EVENT
    ) -> list[bytes]:
        """The entries of the ``events`` field of an ``ApplyActionResponse``: those ``viewer``
        may see.

        Most events an action makes are new values, so an event's encoding is put together
        from the game's event message, serialized alone, and the fields before it (the
        audience), which take few values: building the ``Event`` message would copy the game's
        event into it.
        """
        if self.plain:
            return [
                wire.length_delimited(RESPONSE_EVENTS_KEY, event.SerializeToString())
                for event in self.event_messages(game, seats, events, viewer)
            ]
        context = (game.id, seats)
        kept = self.encodings.get
        fields = []
        for event in visible(events, viewer):
            field = kept(event, context)
            if field is None:
                body = game.codec.encode_event(event.body).SerializeToString()
                message = b"".join(
                    (
                        self._audience_fields(seats, event.audience),
                        game.event_key,
                        wire.varint(len(body)),
                        body,
                    )
                )
                field = wire.length_delimited(RESPONSE_EVENTS_KEY, message)
                self.encodings.put(event, context, field)
            fields.append(field)
        return fields

    def _audience_fields(self, seats: int, audience: tuple[int, ...] | None) -> bytes:
        """The ``visible_to_seats`` and ``public`` fields of an ``Event`` (the fields before its
        ``game``), kept per seat count and audience."""
        fields = self.audiences.get((seats, audience))
        if fields is None:
            public = audience is None
            fields = common.Event(
                visible_to_seats=range(seats) if public else audience, public=public
            ).SerializeToString()
            if (len(self.audiences) + 1) * AUDIENCE_COST > AUDIENCE_BYTES:
                self.audiences.clear()
            self.audiences[seats, audience] = fields
        return fields


def visible(events: Sequence[Event], viewer: EventViewer) -> Sequence[Event]:
    """The ``events`` that ``viewer`` may see: all of them, the public ones (a spectator) or
    those of a seat's audience."""
    if viewer is EVERY_EVENT:
        return events
    if viewer is None:
        return [event for event in events if event.audience is None]
    return [event for event in events if event.audience is None or viewer in event.audience]
