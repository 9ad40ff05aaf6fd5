"""The encoders of state parts write each field exactly as protobuf does."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.descriptor_pb2 import FieldDescriptorProto
from hypothesis import given
from hypothesis import strategies as st

from service.codecs.base import field_part

INTEGER_TYPES = {
    FieldDescriptor.TYPE_INT32: "int32",
    FieldDescriptor.TYPE_INT64: "int64",
    FieldDescriptor.TYPE_UINT32: "uint32",
    FieldDescriptor.TYPE_UINT64: "uint64",
    FieldDescriptor.TYPE_SINT32: "sint32",
    FieldDescriptor.TYPE_SINT64: "sint64",
    FieldDescriptor.TYPE_BOOL: "bool",
}


def probe_message() -> Any:
    """A proto3 message with a field of each integer type, single and repeated (packed, as
    proto3 packs them), with keys of one byte and of two (field numbers from 16)."""
    file = descriptor_pb2.FileDescriptorProto(
        name="tests/field_part_probe.proto", package="tests.probe", syntax="proto3"
    )
    message = file.message_type.add(name="Probe")
    number = 1
    for field_type, type_name in INTEGER_TYPES.items():
        for repeated in (False, True):
            for wide_key in (False, True):
                label = "repeated" if repeated else "single"
                field_number = number + 16 * wide_key
                message.field.add(
                    name=f"{label}_{type_name}_{field_number}",
                    number=field_number,
                    type=field_type,
                    label=(
                        FieldDescriptorProto.LABEL_REPEATED
                        if repeated
                        else FieldDescriptorProto.LABEL_OPTIONAL
                    ),
                )
                number += 1
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tests.probe.Probe"))


Probe = probe_message()
FIELDS = [field.name for field in Probe.DESCRIPTOR.fields]
#: Small values above all (what states hold), and the edges of every integer type beyond them.
EDGES = [-(2**64), -(2**63) - 1, -(2**63), -(2**31) - 1, -(2**31), -1, 0, 1, 127, 128, 255, 256]
EDGES += [2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64]
INTEGERS = st.one_of(
    st.integers(min_value=-1, max_value=130),
    st.sampled_from(EDGES),
    st.integers(min_value=-(2**65), max_value=2**65),
)
VALUES = {
    FieldDescriptor.TYPE_BOOL: st.one_of(st.booleans(), st.sampled_from([0, 1, 2, -1])),
    **dict.fromkeys(INTEGER_TYPES.keys() - {FieldDescriptor.TYPE_BOOL}, INTEGERS),
}


def protobuf_or_error(message_type: Any, name: str, value: Any) -> bytes | type[Exception]:
    try:
        data: bytes = message_type(**{name: value}).SerializeToString()
    except (ValueError, TypeError) as error:
        return type(error)
    return data


def encoded_or_error(name: str, message_type: Any, value: Any) -> bytes | type[Exception]:
    try:
        return field_part(message_type, name)(value)
    except (ValueError, TypeError) as error:
        return type(error)


@pytest.mark.parametrize("name", FIELDS)
@given(data=st.data())
def test_an_integer_field_is_written_as_protobuf_writes_it(name: str, data: st.DataObject) -> None:
    """Any value, in range or not, of the field's type or not: protobuf's bytes or error."""
    field = Probe.DESCRIPTOR.fields_by_name[name]
    values = VALUES[field.type]
    value = data.draw(st.lists(values, max_size=12) if field.is_repeated else values)
    if field.is_repeated:
        value = data.draw(st.sampled_from([value, tuple(value)]))
    expected = protobuf_or_error(Probe, name, value)
    assert encoded_or_error(name, Probe, value) == expected


def test_a_value_of_another_type_is_refused_as_protobuf_refuses_it() -> None:
    """A float, a string, None, a list or a bool in an integer field: protobuf's error."""
    for value in (1.5, "3", None, [1], True):
        expected = protobuf_or_error(Probe, "single_uint32_9", value)
        assert encoded_or_error("single_uint32_9", Probe, value) == expected
    for items in (
        *((1.5,), ("3",), (None,), ((1,),), (1, 2**32), 5, "abc", b"\x01", range(3)),
        # Beside a -1, the lowest item of a usual signed field.
        *((-1, 1.5), (-1, 2.0), (-1.0, 3), (-1, "3"), (-1, None), (-1, (1,)), (-1, 2**32)),
    ):
        for name in ("repeated_int32_3", "repeated_sint32_19"):
            expected = protobuf_or_error(Probe, name, items)
            assert encoded_or_error(name, Probe, items) == expected


class NoMessages:
    """A message type that only describes itself: building a message of it fails the test."""

    DESCRIPTOR = Probe.DESCRIPTOR

    def __init__(self, **fields: Any) -> None:
        raise AssertionError(f"a message was built for {fields}")


SIGNED_TYPES = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SINT64,
}


def in_range(name: str) -> Any:
    """Values in the field's range: true for a bool, else from 0 to 300 (and from -1 to -300 if
    signed)."""
    field = Probe.DESCRIPTOR.fields_by_name[name]
    if field.type == FieldDescriptor.TYPE_BOOL:
        return True
    signed = field.type in SIGNED_TYPES
    items = (0, 5, 127, 128, 300, *((-1, -64, -65, -300) if signed else ()))
    return items if field.is_repeated else items[-1]


@pytest.mark.parametrize("name", [name for name in FIELDS if not name.startswith("repeated_bool")])
def test_integer_fields_are_written_without_a_message(name: str) -> None:
    """Values in range never go through a message (a repeated bool does, as it is rare)."""
    value = in_range(name)
    assert field_part(NoMessages, name)(value) == Probe(**{name: value}).SerializeToString()


def test_the_usual_values_of_a_packed_field_are_one_byte_each() -> None:
    """Cards, seats and counts: one byte each after the key and the length."""
    encode = field_part(NoMessages, "repeated_uint32_11")
    assert encode((0, 7, 127)) == b"\x5a\x03\x00\x07\x7f"  # key (11 << 3 | 2), length, items


def test_the_usual_values_of_a_signed_packed_field_are_written_without_a_message() -> None:
    """-1 (no card, no seat) beside items from 0 to 127, or beside an item beyond them."""
    encode = field_part(NoMessages, "repeated_int32_3")
    for items in ((-1,), (-1, 0, 5, 127), (5, -1, 3, -1), (-1, 128, 300), (-2, -1, 7)):
        assert encode(items) == Probe(repeated_int32_3=items).SerializeToString()


def test_the_usual_values_of_a_zigzag_packed_field_are_one_byte_each() -> None:
    """A team on each cell or -1 for none: from -64 to 63, a byte each, as protobuf writes them."""
    encode = field_part(NoMessages, "repeated_sint32_19")
    for items in ((-1, 0, 1, 2), (-64, 63), (-1,) * 100, (-65, 64, -1), (0,)):
        assert encode(items) == Probe(repeated_sint32_19=items).SerializeToString()
    assert encode((-1, 0, 1, -64, 63)) == b"\x9a\x01\x05\x01\x00\x02\x7f\x7e"


def optional_probe_message() -> Any:
    """A proto3 message with an ``optional`` field of each single integer type: fields with
    presence, which protobuf writes whenever they are set, 0 and false included."""
    file = descriptor_pb2.FileDescriptorProto(
        name="tests/field_part_optional_probe.proto", package="tests.probe", syntax="proto3"
    )
    message = file.message_type.add(name="OptionalProbe")
    for index, (field_type, type_name) in enumerate(INTEGER_TYPES.items()):
        name = f"optional_{type_name}"
        message.oneof_decl.add(name=f"_{name}")
        message.field.add(
            name=name,
            number=index + 1,
            type=field_type,
            label=FieldDescriptorProto.LABEL_OPTIONAL,
            oneof_index=index,
            proto3_optional=True,
        )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tests.probe.OptionalProbe"))


OptionalProbe = optional_probe_message()


@pytest.mark.parametrize("name", [field.name for field in OptionalProbe.DESCRIPTOR.fields])
def test_a_field_with_presence_is_written_when_set_to_its_default(name: str) -> None:
    """An ``optional`` field holding 0 (or false) is set, and protobuf writes it: the encoder
    of its part leaves it to protobuf rather than leave the default out."""
    field = OptionalProbe.DESCRIPTOR.fields_by_name[name]
    default = False if field.type == FieldDescriptor.TYPE_BOOL else 0
    expected = OptionalProbe(**{name: default}).SerializeToString()
    assert expected  # the key and a zero
    assert field_part(OptionalProbe, name)(default) == expected
