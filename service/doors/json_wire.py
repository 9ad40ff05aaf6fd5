"""Connect JSON, fast: a request's JSON to its binary form, a response's message to its JSON.

protobuf's ``json_format`` walks every field of every message through several layers of
generic checks: a Connect JSON call cost twice the servicer's own work in JSON alone. The HTTP
door converts with tables made once per message type instead (``JsonWire``), and only for what
the Connect JSON of Ordo's messages holds (objects, lists, strings, integers, booleans, enum
names, base64 bytes): any other input (null, an unknown or repeated field, two members of one
oneof, a number where a string belongs, a lone surrogate…) goes to ``json_format``, whose answer
or error is then the door's. So both give the same bytes for every request they take, and the
same refusal for every other; ``plain`` sends everything to ``json_format``, the fast path's
slow twin, one switch away (``--plain-wire``). ``tests/service/test_json_wire.py`` converts
every golden playout's requests and responses both ways and finds the same bytes.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor

#: A field's converter: sets one JSON value on a message, or raises ``UnusualJsonError``.
Setter = Callable[[Any, Any], None]
#: A field's printer: one field's value as the JSON object holds it.
Printer = Callable[[Any], Any]

INT64_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)
INT_TYPES = INT64_TYPES | {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_SFIXED32,
}
DIGITS = re.compile(r"-?[0-9]+")
SURROGATE = re.compile("[\ud800-\udfff]")  # what json_format refuses in a string


class UnusualJsonError(Exception):
    """Input the fast path does not take: ``json_format`` decides."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key repeats (``json_format`` refuses it then)."""
    made = dict(pairs)
    if len(made) != len(pairs):
        raise UnusualJsonError
    return made


class JsonWire:
    """Connect JSON of Ordo's messages, with tables made on first use per message type;
    ``plain``: ``json_format`` alone."""

    def __init__(self, plain: bool = False) -> None:
        self.plain = plain
        self._fields: dict[str, dict[str, tuple[FieldDescriptor, Setter]]] = {}
        self._printers: dict[str, dict[str, tuple[str, Printer]]] = {}

    # ----------------------------------------------------------------- JSON to message
    def parse(self, data: bytes | bytearray, message_class: Any) -> bytes:
        """The binary form of the ``message_class`` message that ``data`` (JSON) holds; raises
        ``json_format``'s errors."""
        if not self.plain:
            try:
                message = message_class()
                self._fill(message, json.loads(data, object_pairs_hook=_object))
                return bytes(message.SerializeToString())
            except (UnusualJsonError, ValueError, TypeError, AttributeError, UnicodeError):
                pass  # json_format's own answer, or its error, for the same bytes
        message = message_class()
        json_format.Parse(bytes(data), message)
        return bytes(message.SerializeToString())

    def _fill(self, message: Any, value: Any) -> None:
        if type(value) is not dict:
            raise UnusualJsonError
        fields = self._fields_of(message.DESCRIPTOR)
        seen: set[str] = set()
        for key, item in value.items():
            found = fields.get(key)
            if found is None or item is None:
                raise UnusualJsonError
            field, setter = found
            group = field.containing_oneof
            name = field.name if group is None else group.name
            if name in seen:
                raise UnusualJsonError
            seen.add(name)
            setter(message, item)

    def _fields_of(self, descriptor: Descriptor) -> dict[str, tuple[FieldDescriptor, Setter]]:
        fields = self._fields.get(descriptor.full_name)
        if fields is None:
            fields = {}
            for field in descriptor.fields:
                entry = (field, self._setter(field))
                fields[field.json_name] = fields[field.name] = entry
            self._fields[descriptor.full_name] = fields
        return fields

    def _setter(self, field: FieldDescriptor) -> Setter:
        name = field.name
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if _is_map(field):
                return _unusual
            if field.is_repeated:

                def add_messages(message: Any, items: Any) -> None:
                    if type(items) is not list:
                        raise UnusualJsonError
                    repeated = getattr(message, name)
                    for item in items:
                        self._fill(repeated.add(), item)

                return add_messages

            def fill(message: Any, item: Any) -> None:
                child = getattr(message, name)
                self._fill(child, item)
                child.SetInParent()

            return fill
        convert = _scalar(field)
        if field.is_repeated:

            def extend(message: Any, items: Any) -> None:
                if type(items) is not list:
                    raise UnusualJsonError
                getattr(message, name).extend([convert(item) for item in items])

            return extend

        def assign(message: Any, item: Any) -> None:
            setattr(message, name, convert(item))

        return assign

    # ----------------------------------------------------------------- message to JSON
    def dump(self, message: Any) -> bytes:
        """``message`` in Connect JSON, as ``json_format.MessageToJson`` writes it."""
        if self.plain:
            return json_format.MessageToJson(message, indent=None).encode()
        return json.dumps(self._print(message)).encode()

    def _print(self, message: Any) -> dict[str, Any]:
        printers = self._printers_of(message.DESCRIPTOR)
        printed = {}
        for field, value in message.ListFields():
            key, printer = printers[field.name]
            printed[key] = printer(value)
        return printed

    def _printers_of(self, descriptor: Descriptor) -> dict[str, tuple[str, Printer]]:
        printers = self._printers.get(descriptor.full_name)
        if printers is None:
            printers = {
                field.name: (field.json_name, self._printer(field)) for field in descriptor.fields
            }
            self._printers[descriptor.full_name] = printers
        return printers

    def _printer(self, field: FieldDescriptor) -> Printer:
        one: Printer
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if _is_map(field):
                return lambda value: json.loads(json_format.MessageToJson(value, indent=None))
            one = self._print
        elif field.type == FieldDescriptor.TYPE_ENUM:
            names = {value.number: value.name for value in _enum_values(field)}
            one = lambda number: names.get(number, number)  # noqa: E731 - one line
        elif field.type == FieldDescriptor.TYPE_BYTES:
            one = lambda value: base64.b64encode(value).decode()  # noqa: E731
        elif field.type in INT64_TYPES:
            one = str
        else:
            one = _same
        if field.is_repeated:
            if one is _same:
                return list
            return lambda values: list(map(one, values))
        return one


def _is_map(field: FieldDescriptor) -> bool:
    """Whether ``field`` is a map (its JSON is an object of its entries)."""
    message_type = field.message_type
    return message_type is not None and bool(message_type.GetOptions().map_entry)


def _enum_values(field: FieldDescriptor) -> Any:
    """The values of an enum ``field``'s type."""
    enum_type = field.enum_type
    return enum_type.values if enum_type is not None else ()


def _same(value: Any) -> Any:
    return value


def _unusual(message: Any, value: Any) -> None:
    raise UnusualJsonError


def _scalar(field: FieldDescriptor) -> Callable[[Any], Any]:
    """The converter of one JSON value of a scalar ``field``, as ``json_format`` converts the
    values it takes; ``UnusualJsonError`` for any other."""
    kind = field.type
    if kind in INT_TYPES:

        def integer(value: Any) -> int:
            if type(value) is int:
                return value
            if type(value) is str and DIGITS.fullmatch(value):
                return int(value)
            raise UnusualJsonError

        return integer
    if kind == FieldDescriptor.TYPE_BOOL:

        def boolean(value: Any) -> bool:
            if type(value) is not bool:
                raise UnusualJsonError
            return value

        return boolean
    if kind == FieldDescriptor.TYPE_STRING:

        def string(value: Any) -> str:
            if type(value) is not str or SURROGATE.search(value):
                raise UnusualJsonError
            return value

        return string
    if kind == FieldDescriptor.TYPE_BYTES:

        def octets(value: Any) -> bytes:
            if type(value) is not str:
                raise UnusualJsonError
            encoded = value.encode()
            return base64.urlsafe_b64decode(encoded + b"=" * (4 - len(encoded) % 4))

        return octets
    if kind == FieldDescriptor.TYPE_ENUM:
        numbers: dict[str, int] = {value.name: value.number for value in _enum_values(field)}

        def enum(value: Any) -> int:
            number = numbers.get(value) if type(value) is str else None
            if number is None:
                raise UnusualJsonError
            return number

        return enum
    return _unusual_value


def _unusual_value(value: Any) -> Any:
    raise UnusualJsonError
