"""Every event and view an engine makes goes out with its values: each field of the engine's value
that its message has under the same name (a number, a flag, a text, a list of them) carries the
same value. Fields the codec translates (cards as faces, enums, lists of lists) have tests of
their own."""

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


def playouts(game: str) -> list[tuple[Any, tuple[Any, ...]]]:
    """Every state of random playouts of ``game`` with its fewest and most seats, each with the
    event values of the action that led to it (none for a new game)."""
    engine = registry.get(game)
    found = []
    for seats in (engine.info.min_seats, engine.info.max_seats):
        for seed in SEEDS:
            state = engine.new_game(seats, seed, engine.default_options())
            found.append((state, ()))
            rng = Rng(seed)
            while to_act := engine.seats_to_act(state):
                seat = rng.choice(to_act)
                action = rng.choice(engine.legal_actions(state, seat))
                transition = engine.apply(state, seat, action)
                state = transition.state
                found.append((state, tuple(event.body for event in transition.events)))
    return found


def events(game: str) -> list[Any]:
    """The event values of random playouts of ``game``."""
    return [body for _state, bodies in playouts(game) for body in bodies]


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
    assert_varied(seen)


def assert_varied(seen: dict[tuple[str, str], set[Any]]) -> None:
    """Fields were compared, and most of them with more than one value (a field that always
    holds one value would not show a codec that writes a constant)."""
    assert seen
    constant = sorted(key for key, values in seen.items() if len(values) < 2)
    assert len(constant) < len(seen) / 4, f"fields seen with one value only: {constant}"


@pytest.mark.parametrize("game", GAMES)
def test_plain_fields_carry_the_view_values(game: str) -> None:
    """Field by field, for the views of every seat and a spectator along several whole games."""
    engine, codec = registry.get(game), CODECS[game]
    seen: dict[tuple[str, str], set[Any]] = {}
    for state, _bodies in playouts(game):
        for viewer in (None, *range(engine.seats(state))):
            view = engine.view(state, viewer)
            for name, (value, sent) in compared_fields(view, codec.encode_view(view)).items():
                assert sent == value, f"{game} view: {name}"
                seen.setdefault(("view", name), set()).add(value)
    assert_varied(seen)
