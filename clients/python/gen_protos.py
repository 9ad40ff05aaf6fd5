"""Generate the Python code of the Ordo contract (messages, gRPC stubs, mypy stubs, and the
Connect application and clients of ``connectrpc``, on Google's protobuf runtime).

Usage: ``python clients/python/gen_protos.py OUT_DIR`` writes ``OUT_DIR/ordo/v1``. ``make proto``
writes into ``clients/python``; ``make proto-check`` writes into a scratch folder and compares.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto"
PACKAGE = Path("ordo") / "v1"
INIT_TEXT = '"""Generated code of the ordo.v1 contract: do not edit, run `make proto`."""\n'


def generate(out_dir: Path) -> None:
    """Regenerate ``out_dir/ordo/v1`` from every proto file, removing what no file generates."""
    target = out_dir / PACKAGE
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    bin_dir = Path(sys.executable).parent
    protos = sorted(str(p.relative_to(PROTO_DIR)) for p in (PROTO_DIR / PACKAGE).glob("*.proto"))
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"-I{Path(protoc.__file__).parent / '_proto'}",
        f"--plugin=protoc-gen-mypy={bin_dir / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={bin_dir / 'protoc-gen-mypy_grpc'}",
        f"--plugin=protoc-gen-connectrpc={bin_dir / 'protoc-gen-connectrpc'}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--mypy_out={out_dir}",
        f"--mypy_grpc_out={out_dir}",
        f"--connectrpc_out={out_dir}",
        "--connectrpc_opt=protobuf=google",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    (target / "__init__.py").write_text(INIT_TEXT)
    (target / "py.typed").write_text("")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    generate(Path(sys.argv[1]))
