"""The contract may grow but not break: ``make lint`` runs ``buf breaking`` against the contract
as released (``proto/baseline.binpb``, written by ``make proto-baseline``). These tests check
that the gate catches what would break a client built on the released contract, and lets an
addition through; and that the contract needs nothing beside itself to generate a client."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.descriptor import Descriptor

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "proto" / "baseline.binpb"
BUF = Path(sys.executable).with_name("buf")
STATUS_FIELD = "  repeated uint32 seats_to_act = 1;\n"  # in common.proto's GameStatus


def buf(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``buf`` on the module in ``workspace``."""
    return subprocess.run(
        [str(BUF), *args], cwd=workspace, capture_output=True, text=True, timeout=120, check=False
    )


def breaking(workspace: Path) -> subprocess.CompletedProcess[str]:
    """``buf breaking`` of the proto files in ``workspace`` against the released contract."""
    return buf(workspace, "breaking", "--against", str(BASELINE))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the buf module, to change."""
    if not BUF.exists():
        pytest.fail(f"buf not found beside the interpreter ({BUF}): pip install buf-bin")
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    return tmp_path


def edit(workspace: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) in common.proto."""
    path = workspace / "proto" / "ordo" / "v1" / "common.proto"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_the_contract_matches_the_baseline(workspace: Path) -> None:
    """As it stands, the contract breaks nothing of the released one."""
    result = breaking(workspace)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("new", "reported"),
    [
        ("  repeated uint32 seats_waiting = 1;\n", r"changed name from \"seats_to_act\""),
        ("  repeated uint32 seats_to_act = 9;\n", r"Previously present field \"1\""),
        ("  repeated int32 seats_to_act = 1;\n", r"changed type from \"uint32\" to \"int32\""),
        ("", r"Previously present field \"1\" with name \"seats_to_act\""),
    ],
    ids=["renamed", "renumbered", "retyped", "removed"],
)
def test_a_breaking_change_is_caught(workspace: Path, new: str, reported: str) -> None:
    """Renaming, renumbering, retyping or removing a field fails the check, naming it."""
    edit(workspace, STATUS_FIELD, new)
    result = breaking(workspace)
    assert result.returncode != 0
    assert re.search(reported, result.stdout + result.stderr), result.stdout + result.stderr


def test_an_added_field_is_not_breaking(workspace: Path) -> None:
    """A new field is an addition: old clients ignore it."""
    edit(
        workspace,
        STATUS_FIELD,
        STATUS_FIELD + "  // A field added later.\n  uint32 added_later = 99;\n",
    )
    result = breaking(workspace)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_contract_stands_alone(workspace: Path) -> None:
    """The proto files import only each other, and buf builds them with nothing else: a client
    in any language is generated from proto/ alone."""
    for path in (ROOT / "proto").rglob("*.proto"):
        for imported in re.findall(r'^import "([^"]+)";', path.read_text(), flags=re.MULTILINE):
            assert imported.startswith("ordo/v1/"), f"{path.name} imports {imported}"
    image = workspace / "image.binpb"
    result = buf(workspace, "build", "-o", str(image))
    assert result.returncode == 0, result.stdout + result.stderr
    assert image.stat().st_size > 0


def _messages(descriptor: Descriptor) -> Iterator[Descriptor]:
    yield descriptor
    for nested in descriptor.nested_types:
        yield from _messages(nested)


def test_fields_are_declared_in_number_order() -> None:
    """Every message declares its fields in field-number order: protobuf's own serializers
    write fields in number order, the TypeScript ones (protobuf-es) in the order they are
    declared. Only then does a Node.js client send a state back with the very bytes the server
    wrote, which its state cache knows."""
    files = [
        importlib.import_module(f"ordo.v1.{path.stem}_pb2").DESCRIPTOR
        for path in sorted((ROOT / "proto" / "ordo" / "v1").glob("*.proto"))
    ]
    out_of_order = [
        message.full_name
        for file in files
        for top in file.message_types_by_name.values()
        for message in _messages(top)
        if [field.number for field in message.fields] != sorted(f.number for f in message.fields)
    ]
    assert files
    assert not out_of_order, out_of_order
