"""Protocol-buffers framing, for responses assembled from parts that are already serialized.

A message's encoding is its fields' encodings one after the other; a sub-message field is its
tag, the length of the sub-message's bytes and those bytes. So a response whose parts were
serialized separately (a state whose bytes are needed anyway, events and statuses kept from
earlier calls) is put together by concatenation, exactly as protobuf would have encoded the
whole: fields in field-number order, each set field present, defaults left out. The tests
check these helpers against protobuf's own serialization.
"""

from __future__ import annotations

from collections.abc import Callable

VARINT = 0  # wire types
LENGTH_DELIMITED = 2
_SEVEN_BITS = 0x7F
_MORE = 0x80
_TWO_BYTES = _MORE << 7  # the values below this are varints of two bytes at most
_VARINT_BITS = 64  # a varint longer than this is malformed


def _encode_varint(value: int) -> bytes:
    """The base-128 varint of a non-negative integer, worked out."""
    out = bytearray()
    while value >= _MORE:
        out.append(value & _SEVEN_BITS | _MORE)
        value >>= 7
    out.append(value)  # refuses a negative number, and a float
    return bytes(out)


class _Varints(dict[int, bytes]):
    """The varints of the integers below ``_TWO_BYTES`` (lengths, counts, small numbers: most
    of the varints a response needs), each worked out at its first use and kept; the others
    (a generator's state, a large revision) are worked out every time."""

    __slots__ = ()

    def __missing__(self, value: int) -> bytes:
        encoded = _encode_varint(value)
        if type(value) is int and value < _TWO_BYTES:
            self[value] = encoded
        return encoded


#: The base-128 varint of a non-negative integer. A lookup, which runs in C without a Python
#: call for a kept varint: a response is put together from a dozen or more of them.
varint: Callable[[int], bytes] = _Varints().__getitem__


def key(field: int, wire_type: int) -> bytes:
    """The key of a field, its number and wire type: made once per field by the callers."""
    return varint(field << 3 | wire_type)


def length_delimited(field_key: bytes, payload: bytes) -> bytes:
    """A sub-message (or bytes) field holding ``payload``; present even when it is empty.
    ``field_key`` is ``key(number, LENGTH_DELIMITED)``."""
    return field_key + varint(len(payload)) + payload


def uint_field(field_key: bytes, value: int) -> bytes:
    """An unsigned integer field, left out when it is 0 (proto3's default is not written).
    ``field_key`` is ``key(number, VARINT)``."""
    return field_key + varint(value) if value else b""


def leading_field(data: bytes, field_key: bytes) -> tuple[bytes, bytes] | None:
    """Split a message whose encoding opens with the length-delimited field ``field_key``: the
    field's payload and the rest of the message. None when it does not open so, or is cut short.

    Protobuf writes fields in number order, so a message sent by a protobuf library opens with
    its field 1 when that is set. The rest may still hold the same field again (protobuf merges
    repeated occurrences of a sub-message): the caller checks.
    """
    if not data.startswith(field_key):
        return None
    position = len(field_key)
    size = len(data)
    # A length below 16384 (a state's, most often) is one or two bytes: read without the loop.
    if position < size and data[position] < _MORE:
        length, position = data[position], position + 1
    elif position + 1 < size and data[position + 1] < _MORE:
        length = data[position] & _SEVEN_BITS | data[position + 1] << 7
        position += 2
    else:
        return _leading_field_loop(data, position)
    end = position + length
    if end > size:
        return None
    return data[position:end], data[end:]


def _leading_field_loop(data: bytes, position: int) -> tuple[bytes, bytes] | None:
    """``leading_field`` past the key, for a length of any size (or a message cut short)."""
    length = 0
    shift = 0
    while position < len(data) and shift < _VARINT_BITS:
        byte = data[position]
        position += 1
        length |= (byte & _SEVEN_BITS) << shift
        if byte < _MORE:
            end = position + length
            if end > len(data):
                return None
            return data[position:end], data[end:]
        shift += 7
    return None
