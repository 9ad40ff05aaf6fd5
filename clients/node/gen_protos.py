"""Generate the TypeScript code of the Ordo contract for the TypeScript client (protoc-gen-es).

Usage: ``python clients/node/gen_protos.py OUT_DIR`` writes ``OUT_DIR/ordo/v1`` and the
``google`` messages they use (``google.rpc.Status`` and ``ErrorInfo``, for the rich errors).
``make proto`` writes into ``clients/node/src/gen``; ``make proto-check`` writes into a scratch
folder and compares. The plugin is the protoc-gen-es of ``clients/node/package-lock.json``
(``npm ci`` in ``clients/node`` installs it); its output serves Node.js and browsers alike.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto"
PLUGIN = Path(__file__).resolve().parent / "node_modules" / ".bin" / "protoc-gen-es"
# TypeScript, ES modules whose imports name their files (".js", as Node.js resolves them).
OPTIONS = "target=ts,import_extension=js"
RICH_ERRORS = ("google/rpc/status.proto", "google/rpc/error_details.proto")


def googleapis_dir() -> Path:
    """The folder holding ``google/rpc/*.proto`` (googleapis-common-protos, with grpcio-status)."""
    spec = importlib.util.find_spec("google.rpc.status_pb2")
    if spec is None or spec.origin is None:
        raise SystemExit("googleapis-common-protos is not installed")
    return Path(spec.origin).parents[2]


def generate(out_dir: Path) -> None:
    """Regenerate ``out_dir`` from every proto file, removing what no file generates."""
    if not PLUGIN.exists():
        raise SystemExit(f"{PLUGIN} is missing: run 'npm ci' in clients/node")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    protos = sorted(
        str(p.relative_to(PROTO_DIR)) for p in (PROTO_DIR / "ordo" / "v1").glob("*.proto")
    )
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"-I{Path(protoc.__file__).parent / '_proto'}",
        f"-I{googleapis_dir()}",
        f"--plugin=protoc-gen-es={PLUGIN}",
        f"--es_out={out_dir}",
        f"--es_opt={OPTIONS}",
        *protos,
        *RICH_ERRORS,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    generate(Path(sys.argv[1]))
