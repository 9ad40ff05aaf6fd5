"""Checks of a codec that serializes states in parts (``service.codecs.base.StateParts``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from typing import Any

from service.codecs.base import Codec

ENVELOPE_FIELDS = {"rules_version", "revision"}  # written by the servicer, not by the parts


def assert_serialized_in_parts(codec: Codec, states: Iterable[Any]) -> None:
    """The parts of each state of a game (in order of play), encoded afresh or reused from the
    state before it, join into protobuf's serialization of the state."""
    parts_of = codec.state_parts
    assert parts_of is not None
    previous: Any = None
    previous_parts: tuple[bytes, ...] = ()
    for state in states:
        expected = codec.encode_state(state).SerializeToString()
        assert b"".join(parts_of.serialize(state)) == expected
        parts = parts_of.serialize(state, previous, previous_parts)
        assert b"".join(parts) == expected
        previous, previous_parts = state, parts


def assert_parts_cover_the_state(codec: Codec, state_type: type) -> None:
    """Every field of the engine state is a part, but the envelope's version and revision."""
    assert codec.state_parts is not None
    names = {field.name for field in fields(state_type)}
    assert sorted(codec.state_parts.fields) == sorted(names - ENVELOPE_FIELDS)
