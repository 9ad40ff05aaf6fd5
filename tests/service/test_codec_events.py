"""Every event an engine makes goes out with its values: each field of the event's value that its
message has under the same name (a number, a flag, a text, a list of them) carries the same value.
Fields the codec translates (cards as faces, enums, lists of lists) have tests of their own."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

from engines import registry
from engines.prng import Rng
from service.codecs import CODECS

GAMES = sorted(registry.ENGINES)
SEEDS = (3, 4, 5)
PLAIN = frozenset(
    {
        FieldDescriptor.CPPTYPE_INT32,
        FieldDescriptor.CPPTYPE_INT64,
        FieldDescriptor.CPPTYPE_UINT32,
        FieldDescriptor.CPPTYPE_UINT64,
        FieldDescriptor.CPPTYPE_BOOL,
        FieldDescriptor.CPPTYPE_STRING,
    }
)


def events(game: str) -> list[Any]:
    """The event values of random playouts of ``game`` with its fewest and most seats."""
    engine = registry.get(game)
    found = []
    for seats in (engine.info.min_seats, engine.info.max_seats):
        for seed in SEEDS:
            state = engine.new_game(seats, seed, engine.default_options())
            rng = Rng(seed)
            while to_act := engine.seats_to_act(state):
                seat = rng.choice(to_act)
                action = rng.choice(engine.legal_actions(state, seat))
                transition = engine.apply(state, seat, action)
                found.extend(event.body for event in transition.events)
                state = transition.state
    return found


def compared_fields(body: Any, message: Any) -> dict[str, tuple[Any, Any]]:
    """The fields of ``body`` whose message field of the same name holds plain values: their
    values in the engine and on the wire."""
    fields = message.DESCRIPTOR.fields_by_name
    pairs = {}
    for field in dataclasses.fields(body):
        descriptor = fields.get(field.name)
        if descriptor is None or descriptor.cpp_type not in PLAIN:
            continue
        value, sent = getattr(body, field.name), getattr(message, field.name)
        if descriptor.is_repeated:
            if any(isinstance(item, tuple) for item in value):
                continue  # a list of lists travels flattened: not a plain list
            sent = tuple(sent)
        pairs[field.name] = (value, sent)
    return pairs


@pytest.mark.parametrize("game", GAMES)
def test_plain_fields_carry_the_event_values(game: str) -> None:
    """Field by field, for every event of several whole games; every kind of event the games
    made is checked, and each field is seen with more than one value."""
    codec = CODECS[game]
    seen: dict[tuple[str, str], set[Any]] = {}
    for body in events(game):
        encoded = codec.encode_event(body)
        kind = encoded.WhichOneof(encoded.DESCRIPTOR.oneofs[0].name)
        for name, (value, sent) in compared_fields(body, getattr(encoded, kind)).items():
            assert sent == value, f"{type(body).__name__}.{name}"
            seen.setdefault((type(body).__name__, name), set()).add(value)
    assert seen
    constant = sorted(key for key, values in seen.items() if len(values) < 2)
    assert len(constant) < len(seen) / 4, f"fields seen with one value only: {constant}"
