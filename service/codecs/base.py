"""The codec protocol: one codec per game translates between its proto messages and its engine's
values. Codecs see only their game's inner messages; the envelopes (``GameState``, ``Action`` …)
are handled once, in ``service.calls.decoding`` and ``service.calls.encoding``."""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence, Sized
from enum import Enum
from functools import lru_cache
from itertools import accumulate, chain, compress
from operator import attrgetter, is_not
from typing import Any, Protocol, TypeVar

from google.protobuf.descriptor import FieldDescriptor

from engines.errors import InvalidOptionsError, InvalidStateError
from service.codecs import wire

T = TypeVar("T")

#: The items of nested groups, in order: the flat half of a list of lists on the wire.
flatten = chain.from_iterable


#: One part of a serialized state: an engine state's field and the encoding of the message
#: fields it becomes (``encode_state`` of a state holding only that value, serialized). A part
#: that several fields decide names them all, and its encoder takes their values in that order.
StatePart = tuple[str | tuple[str, ...], Callable[..., bytes]]


class Codec(Protocol):
    """Translates one game's messages; every method is pure and builds messages in one call."""

    game_id: str
    #: The state message in parts (see ``StateParts``), or None: a state is serialized whole.
    state_parts: StateParts | None

    def decode_state(self, msg: Any, rules_version: int, revision: int) -> Any:
        """Return the engine state of the game's state message; raises ``InvalidStateError``."""

    def encode_state(self, state: Any) -> Any:
        """Return the game's state message (without the envelope's version and revision)."""

    def decode_action(self, msg: Any) -> Any:
        """Return the engine action of the game's action message; raises
        ``MalformedActionError`` when no move is set."""

    def encode_action(self, action: Any) -> Any:
        """Return the game's action message."""

    def decode_options(self, msg: Any) -> Any:
        """Return the engine options, defaults filled in; raises ``InvalidOptionsError``."""

    def encode_view(self, view: Any) -> Any:
        """Return the game's view message."""

    def encode_event(self, body: Any) -> Any:
        """Return the game's event message for an engine event body."""


class EnumMap:
    """A two-way map between a proto enum (numbers) and an engine ``Enum``; 0 is the default."""

    def __init__(self, default: Enum, pairs: dict[int, Enum]) -> None:
        self.default = default
        self.to_engine = {0: default, **pairs}
        self.to_proto = {member: number for number, member in pairs.items()}

    def decode_option(self, number: int, name: str) -> Any:
        """Decode an option value; an unknown number is an ``InvalidOptionsError``."""
        try:
            return self.to_engine[number]
        except KeyError:
            raise InvalidOptionsError(f"unknown value {number} for {name}", option=name) from None

    def decode_state(self, number: int, name: str) -> Any:
        """Decode a value inside a state; an unknown number is an ``InvalidStateError``."""
        try:
            return self.to_engine[number]
        except KeyError:
            raise InvalidStateError(f"unknown value {number} for {name}") from None

    def encode(self, member: Enum) -> Any:
        """The proto number of an engine member."""
        return self.to_proto[member]


MAX_LISTS = 64  # the most lists a list of lists in a state holds: seats and rows are far fewer


def at_most(entries: Sized, most: int, name: str) -> None:
    """Refuse a repeated field of more than ``most`` entries before any is decoded.

    A request is bounded in bytes, not in entries, and an empty entry takes a byte or two: a
    field of a million entries, each made into a Python value before validation counts them,
    would keep a worker busy for seconds.
    """
    if len(entries) > most:
        raise InvalidStateError(
            f"{name}: {len(entries):,} entries, more than a state holds (at most {most})"
        )


def split(items: Sequence[T], sizes: Sequence[int], name: str) -> tuple[tuple[T, ...], ...]:
    """Cut ``items`` into consecutive groups of ``sizes`` items: a list of lists travels as its
    flat items and the size of each list, which costs far less than one message per list.

    Raises ``InvalidStateError`` unless the sizes add up to the items, or for more sizes than
    ``MAX_LISTS``.
    """
    at_most(sizes, MAX_LISTS, name)
    flat = tuple(items)
    groups = []
    end = 0
    for size in sizes:
        start, end = end, end + size
        groups.append(flat[start:end])
    if end != len(flat):
        raise InvalidStateError(f"the sizes of {name} add up to {end}, not its {len(flat)} items")
    return tuple(groups)


#: The integer field types that protobuf writes as plain varints, and the values each holds.
_VARINT_RANGES = {
    FieldDescriptor.TYPE_INT32: range(-(2**31), 2**31),
    FieldDescriptor.TYPE_INT64: range(-(2**63), 2**63),
    FieldDescriptor.TYPE_UINT32: range(2**32),
    FieldDescriptor.TYPE_UINT64: range(2**64),
}
#: The integer field types that protobuf writes as zigzag varints (0, -1, 1, -2 … as 0, 1, 2,
#: 3 …), and the values each holds.
_ZIGZAG_RANGES = {
    FieldDescriptor.TYPE_SINT32: range(-(2**31), 2**31),
    FieldDescriptor.TYPE_SINT64: range(-(2**63), 2**63),
}
_WORD = 2**64  # a negative int32 or int64 is written as its two's complement on 64 bits
_TRUE = b"\x01"


def _word_varint(value: int) -> bytes:
    """The varint protobuf writes for ``value`` in an ``int``/``uint`` field (a negative one as
    its two's complement on 64 bits)."""
    return wire.varint(value % _WORD)


#: ``_word_varint``, kept for the values that repeat: the items of a state's packed fields
#: beyond 0-127, a signed field's -1 above all.
_varint_of = lru_cache(maxsize=1024)(_word_varint)


#: The varint of every value from -1 to 127, each at its value + 1.
_SMALL_SIGNED = [_varint_of(value) for value in range(-1, 128)]
_PLUS_ONE = (1).__add__


def _zigzag(value: int) -> int:
    """The zigzag number of ``value``, as ``sint32`` and ``sint64`` fields write it."""
    return value << 1 if value >= 0 else ~value << 1 | 1


@lru_cache(maxsize=1024)
def _zigzag_varint_of(value: int) -> bytes:
    """The varint protobuf writes for ``value`` in a ``sint32`` or ``sint64`` field."""
    return wire.varint(_zigzag(value))


#: At the byte of each signed char, its value's zigzag varint when that is one byte (the values
#: from -64 to 63), else 128, which is not ASCII: such items go the long way.
_ZIGZAG_BYTES = bytes(
    _zigzag(byte if byte < 128 else byte - 256) if byte < 64 or byte >= 192 else 128
    for byte in range(256)
)


@lru_cache(maxsize=64)
def _signed_chars(count: int) -> Callable[..., bytes]:
    """Packs ``count`` integers from -128 to 127 as signed chars; refuses other values."""
    return struct.Struct(f"<{count}b").pack


def field_part(message_type: Any, name: str) -> Callable[[Any], bytes]:
    """The encoder of a state part that is one field ``name`` of ``message_type``, as protobuf
    writes it (nothing for a default value).

    An integer field (``int32``, ``int64``, ``uint32``, ``uint64``, ``sint32``, ``sint64``;
    single or packed) and a single ``bool`` are written here: a message built only to be
    serialized costs several times the bytes. A value out of the field's range or of another
    type, and any other field, is left to protobuf, which refuses what it cannot write; only a
    ``bool`` among the items of a packed field is taken here for the integer it is.
    """
    field = message_type.DESCRIPTOR.fields_by_name[name]

    def by_protobuf(value: Any) -> bytes:
        data: bytes = message_type(**{name: value}).SerializeToString()
        return data

    if field.has_presence or (field.is_repeated and not field.is_packed):
        return by_protobuf
    if field.type == FieldDescriptor.TYPE_BOOL and not field.is_repeated:
        return _bool_part(wire.key(field.number, wire.VARINT), by_protobuf)
    zigzag = _ZIGZAG_RANGES.get(field.type)
    if zigzag is not None:
        if field.is_repeated:
            key = wire.key(field.number, wire.LENGTH_DELIMITED)
            return _zigzag_packed_part(key, zigzag, by_protobuf)
        key = wire.key(field.number, wire.VARINT)
        return _integer_part(key, zigzag, _zigzag_varint_of, by_protobuf)
    values = _VARINT_RANGES.get(field.type)
    if values is None:
        return by_protobuf
    if field.is_repeated:
        return _packed_part(wire.key(field.number, wire.LENGTH_DELIMITED), values, by_protobuf)
    varint_of = wire.varint if values.start >= 0 else _word_varint  # no negative to turn
    return _integer_part(wire.key(field.number, wire.VARINT), values, varint_of, by_protobuf)


def _one_by_one(
    field_key: bytes,
    values: range,
    varint_of: Callable[[int], bytes],
    by_protobuf: Callable[[Any], bytes],
) -> Callable[[Sequence[int]], bytes]:
    """The long way of a packed integer field's encoder: each item's varint (``varint_of``) when
    every item is an integer in ``values``, else protobuf's bytes or error."""
    varint = wire.varint

    def encode(items: Sequence[int]) -> bytes:
        if not all(type(item) is int and item in values for item in items):
            return by_protobuf(items)
        payload = b"".join(map(varint_of, items))
        return field_key + varint(len(payload)) + payload

    return encode


def _packed_part(
    field_key: bytes, values: range, by_protobuf: Callable[[Any], bytes]
) -> Callable[[Sequence[int]], bytes]:
    """The encoder of a packed integer field holding ``values``, given as a tuple or a list.

    Items from 0 to 127 (cards, seats, counts) are a byte each, which ``bytes`` writes at once.
    A signed field's items from -1 (no card, no seat: ten bytes) to 127 are looked up in
    ``_SMALL_SIGNED`` at their value + 1, where anything but an integer (or a ``bool``) fails:
    ``int.__add__`` answers NotImplemented, which is no index. Other items go one by one.
    """
    varint = wire.varint
    one_by_one = _one_by_one(field_key, values, _varint_of, by_protobuf)

    def encode(items: Sequence[int]) -> bytes:
        if type(items) is not tuple and type(items) is not list:
            return by_protobuf(items)  # bytes(5) would be five zeros
        if not items:
            return b""
        try:
            payload = bytes(items)
        except (ValueError, TypeError):  # below 0 or above 255, or not integers
            return one_by_one(items)
        if not payload.isascii():
            return one_by_one(items)
        return field_key + varint(len(payload)) + payload

    def encode_signed(items: Sequence[int]) -> bytes:
        if type(items) is not tuple and type(items) is not list:
            return by_protobuf(items)
        try:
            lowest = min(items) if items else 0
        except TypeError:  # items that do not compare
            return one_by_one(items)
        if lowest != -1:
            return encode(items)  # as an unsigned field's, unless an item is below 0
        try:
            payload = b"".join(map(_SMALL_SIGNED.__getitem__, map(_PLUS_ONE, items)))
        except (TypeError, IndexError):  # not integers, or above 127
            return one_by_one(items)
        return field_key + varint(len(payload)) + payload

    return encode_signed if values.start < 0 else encode


def _integer_part(
    field_key: bytes,
    values: range,
    varint_of: Callable[[int], bytes],
    by_protobuf: Callable[[Any], bytes],
) -> Callable[[int], bytes]:
    """The encoder of a single integer field holding ``values``, written by ``varint_of`` (plain
    or zigzag); 0 is not written."""

    def encode(value: int) -> bytes:
        if type(value) is not int or value not in values:
            return by_protobuf(value)
        return field_key + varint_of(value) if value else b""

    return encode


def _zigzag_packed_part(
    field_key: bytes, values: range, by_protobuf: Callable[[Any], bytes]
) -> Callable[[Sequence[int]], bytes]:
    """The encoder of a packed ``sint32`` or ``sint64`` field holding ``values``, given as a
    tuple or a list: items from -64 to 63 (a team, or -1 for none) are a byte each, packed as
    signed chars by ``struct`` (which refuses anything but integers) and translated to their
    zigzag varints at once."""
    varint = wire.varint
    one_by_one = _one_by_one(field_key, values, _zigzag_varint_of, by_protobuf)

    def encode(items: Sequence[int]) -> bytes:
        if type(items) is not tuple and type(items) is not list:
            return by_protobuf(items)
        if not items:
            return b""
        try:
            payload = _signed_chars(len(items))(*items).translate(_ZIGZAG_BYTES)
        except struct.error:  # out of the usual values, or not integers
            return one_by_one(items)
        if not payload.isascii():
            return one_by_one(items)
        return field_key + varint(len(payload)) + payload

    return encode


def _bool_part(field_key: bytes, by_protobuf: Callable[[Any], bytes]) -> Callable[[bool], bytes]:
    """The encoder of a single ``bool`` field; false is not written."""
    true = field_key + _TRUE

    def encode(value: bool) -> bytes:
        if value is True:
            return true
        if value is False:
            return b""
        return by_protobuf(value)

    return encode


def groups_part(message_type: Any, items: str, sizes: str) -> Callable[[Any], bytes]:
    """The encoder of a state part that is a list of lists of integers, on the wire as the flat
    items in the repeated field ``items`` and each list's size in ``sizes`` (see ``split``),
    both of ``message_type``: the fields' encoding, as protobuf writes it.

    Values and sizes from 0 to 127, the usual case (cards, hands), are one byte each: ``bytes``
    writes each field's payload at once. Others are encoded by protobuf.
    """
    fields = message_type.DESCRIPTOR.fields_by_name
    items_field, sizes_field = fields[items], fields[sizes]
    if not items_field.number < sizes_field.number:
        raise ValueError(f"{items} must come before {sizes} in field number order")
    if not (items_field.is_packed and sizes_field.is_packed):
        raise TypeError(f"{items} and {sizes} must be packed repeated integers")
    items_key = wire.key(items_field.number, wire.LENGTH_DELIMITED)
    sizes_key = wire.key(sizes_field.number, wire.LENGTH_DELIMITED)
    varint = wire.varint

    def by_protobuf(groups: Sequence[Sequence[int]]) -> bytes:
        msg = message_type()
        getattr(msg, items).extend(flatten(groups))
        getattr(msg, sizes).extend(map(len, groups))
        data: bytes = msg.SerializeToString()
        return data

    def encode(groups: Sequence[Sequence[int]]) -> bytes:
        try:
            flat, lengths = bytes(flatten(groups)), bytes(map(len, groups))
            small = flat.isascii() and lengths.isascii()
        except ValueError:  # a value below 0 or above 255
            small = False
        if not small:
            return by_protobuf(groups)
        if not lengths:
            return b""
        if not flat:
            return sizes_key + varint(len(lengths)) + lengths
        return b"".join(
            (items_key, varint(len(flat)), flat, sizes_key, varint(len(lengths)), lengths)
        )

    return encode


class StateParts:
    """A state message in parts, in field number order: the concatenation of the parts'
    encodings is the serialized message. A part is most often one engine state field; one that
    depends on several (where a field goes may depend on another) names them all.

    An action changes a few fields of a state; the engine's new state holds the very objects of
    the old one in the others. ``serialize`` takes the encoding of a part whose fields all hold
    the same objects from the old state's instead of encoding it again.
    """

    def __init__(self, parts: Sequence[StatePart]) -> None:
        if len(parts) < 2:
            raise ValueError("a state in parts has two parts or more")
        groups = [(field,) if isinstance(field, str) else tuple(field) for field, _ in parts]
        #: Every engine field that a part reads, each once, in order.
        self.fields = tuple(dict.fromkeys(name for group in groups for name in group))
        self.encoders = tuple(encode for _, encode in parts)
        self._single = all(len(group) == 1 for group in groups)
        self._indexes = range(len(parts))
        names = [name for group in groups for name in group]
        self._values = attrgetter(*names)
        ends = list(accumulate(map(len, groups)))
        self._spans = tuple(zip([0, *ends[:-1]], ends, strict=True))  # each part's values
        #: The part of each value, in the order of ``_values``.
        self._owners = tuple(index for index, group in enumerate(groups) for _ in group)

    def serialize(
        self, state: Any, previous: Any = None, previous_encoded: Sequence[bytes] = ()
    ) -> tuple[bytes, ...]:
        """The encoding of each part of ``state``, those ``previous`` shares taken from
        ``previous_encoded`` (the encoding of ``previous``'s parts)."""
        values = self._values(state)
        if not self._single:
            return self._serialize_groups(values, previous, previous_encoded)
        if previous is None:
            return tuple(
                [encode(value) for encode, value in zip(self.encoders, values, strict=True)]
            )
        # An action changes a few fields: the comparison runs in C, the loop over those only.
        parts = list(previous_encoded)
        encoders = self.encoders
        for index in compress(self._indexes, map(is_not, values, self._values(previous))):
            parts[index] = encoders[index](values[index])
        return tuple(parts)

    def _serialize_groups(
        self, values: Sequence[Any], previous: Any, previous_encoded: Sequence[bytes]
    ) -> tuple[bytes, ...]:
        """``serialize`` where some part reads several fields."""
        spans, encoders = self._spans, self.encoders
        if previous is None:
            return tuple(
                [
                    encode(*values[start:end])
                    for (start, end), encode in zip(spans, encoders, strict=True)
                ]
            )
        # As in ``serialize``: the comparison runs in C, the loop over the changed parts only,
        # each once however many of its values changed.
        parts = list(previous_encoded)
        changed = compress(self._owners, map(is_not, values, self._values(previous)))
        for index in dict.fromkeys(changed):
            start, end = spans[index]
            parts[index] = encoders[index](*values[start:end])
        return tuple(parts)
