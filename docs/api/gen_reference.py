"""Generate ``docs/api/reference.md``, the API reference, from the comments of ``proto/``.

Usage: ``python docs/api/gen_reference.py OUT_FILE``. ``make proto`` writes the reference beside
this script; ``make proto-check`` writes it to a scratch file and compares, so a proto comment
changed without ``make proto`` fails the build as stale generated code does.

The pinned ``grpcio-tools`` compiles the contract (its bundled ``protoc``) into a descriptor set
with source info, whose comments and declarations this script lays out: the service and its
methods first, then each file's messages and enums in declaration order.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto"
# Field numbers of the descriptor messages, as SourceCodeInfo paths name them.
FILE_MESSAGE, FILE_ENUM, FILE_SERVICE = 4, 5, 6
MESSAGE_FIELD, MESSAGE_NESTED, MESSAGE_ENUM = 2, 3, 4
ENUM_VALUE, SERVICE_METHOD = 2, 2
FIELD = descriptor_pb2.FieldDescriptorProto
SCALARS = {
    value: name.removeprefix("TYPE_").lower()
    for name, value in FIELD.Type.items()
    if value not in (FIELD.TYPE_MESSAGE, FIELD.TYPE_ENUM, FIELD.TYPE_GROUP)
}
HEADER = """# API reference

Generated from the comments of `proto/ordo/v1/` by `docs/api/gen_reference.py` (`make proto`):
do not edit by hand. Field names are those of the `.proto` files; JSON (grpcurl, the HTTP door)
accepts them as written or in lowerCamelCase, and enum values are always written in full, with
their type's prefix.
"""


def descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    """The contract's files, compiled with their comments."""
    protos = sorted(p.relative_to(PROTO_DIR).as_posix() for p in PROTO_DIR.rglob("*.proto"))
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "contract.binpb"
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_DIR}",
            f"-I{Path(protoc.__file__).parent / '_proto'}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *protos,
        ]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def comment(comments: dict[tuple[int, ...], str], path: tuple[int, ...]) -> str:
    """The leading (or else trailing) comment of a declaration, on one line."""
    return " ".join(comments.get(path, "").split())


def type_name(field: descriptor_pb2.FieldDescriptorProto) -> str:
    """A field's type as the reference writes it, linked when it is one of the contract's."""
    if field.type in SCALARS:
        name = SCALARS[field.type]
    else:
        full = field.type_name.lstrip(".")
        short = full.removeprefix("ordo.v1.")
        name = f"[`{short}`](#{anchor(short)})" if full.startswith("ordo.v1.") else f"`{full}`"
        return f"repeated {name}" if field.label == FIELD.LABEL_REPEATED else name
    return f"repeated `{name}`" if field.label == FIELD.LABEL_REPEATED else f"`{name}`"


def anchor(name: str) -> str:
    """The Markdown anchor of a heading holding only ``name``."""
    return name.lower().replace(".", "")


def cell(text: str) -> str:
    """Text made safe for a table cell."""
    return text.replace("|", "\\|")


def message_lines(
    message: descriptor_pb2.DescriptorProto,
    path: tuple[int, ...],
    comments: dict[tuple[int, ...], str],
    prefix: str = "",
) -> list[str]:
    """A message: its comment and a table of its fields (oneof members named), then nested types."""
    name = prefix + message.name
    lines = [f"### {name}", "", comment(comments, path) or "(no comment)", ""]
    if message.field:
        lines += ["| field | number | type | description |", "|---|---|---|---|"]
        for index, field in enumerate(message.field):
            note = comment(comments, (*path, MESSAGE_FIELD, index))
            if field.HasField("oneof_index") and not field.proto3_optional:
                note = f"oneof `{message.oneof_decl[field.oneof_index].name}`. {note}"
            row = f"| `{field.name}` | {field.number} | {type_name(field)} | {cell(note)} |"
            lines.append(row)
        lines.append("")
    for index, nested in enumerate(message.nested_type):
        lines += message_lines(nested, (*path, MESSAGE_NESTED, index), comments, f"{name}.")
    for index, enum in enumerate(message.enum_type):
        lines += enum_lines(enum, (*path, MESSAGE_ENUM, index), comments, f"{name}.")
    return lines


def enum_lines(
    enum: descriptor_pb2.EnumDescriptorProto,
    path: tuple[int, ...],
    comments: dict[tuple[int, ...], str],
    prefix: str = "",
) -> list[str]:
    """An enum: its comment and a table of its values."""
    lines = [f"### {prefix}{enum.name}", "", comment(comments, path) or "(no comment)", ""]
    lines += ["| value | number | description |", "|---|---|---|"]
    for index, value in enumerate(enum.value):
        note = cell(comment(comments, (*path, ENUM_VALUE, index)))
        lines.append(f"| `{value.name}` | {value.number} | {note} |")
    return [*lines, ""]


def file_comments(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    """Every commented declaration of a file, by its source path."""
    return {
        tuple(location.path): location.leading_comments or location.trailing_comments
        for location in file.source_code_info.location
        if location.leading_comments or location.trailing_comments
    }


def render() -> str:
    """The whole reference."""
    files = [f for f in descriptor_set().file if f.package == "ordo.v1"]
    lines = [HEADER]
    for file in files:
        comments = file_comments(file)
        for index, service in enumerate(file.service):
            about = comment(comments, (FILE_SERVICE, index))
            lines += [f"## {file.package}.{service.name}", "", about, ""]
            lines += ["| method | request | response | description |", "|---|---|---|---|"]
            for number, method in enumerate(service.method):
                request = method.input_type.removeprefix(".ordo.v1.")
                response = method.output_type.removeprefix(".ordo.v1.")
                note = cell(comment(comments, (FILE_SERVICE, index, SERVICE_METHOD, number)))
                lines.append(
                    f"| `{method.name}` | [`{request}`](#{anchor(request)}) | "
                    f"[`{response}`](#{anchor(response)}) | {note} |"
                )
            lines.append("")
    for file in files:
        comments = file_comments(file)
        lines += [f"## {file.name}", ""]
        for index, message in enumerate(file.message_type):
            lines += message_lines(message, (FILE_MESSAGE, index), comments)
        for index, enum in enumerate(file.enum_type):
            lines += enum_lines(enum, (FILE_ENUM, index), comments)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    Path(sys.argv[1]).write_text(render(), encoding="utf-8")
