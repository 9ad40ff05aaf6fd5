"""The Python examples of the README and the docs pass ``mypy --strict``, as typed code using
the client would."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "docs/clients.md", "docs/integration.md", "docs/records.md")


def python_blocks() -> dict[str, str]:
    """Every Python block of the documents, named after its document and position."""
    blocks = {}
    for document in DOCUMENTS:
        text = (ROOT / document).read_text(encoding="utf-8")
        found = re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
        for index, block in enumerate(found):
            name = re.sub(r"\W", "_", document.removesuffix(".md")).lower()
            blocks[f"{name}_{index}"] = block
    return blocks


def test_every_python_example_passes_mypy_strict(tmp_path: Path) -> None:
    """mypy --strict, with the project's settings, finds no error in any Python block (each
    checked as a module of its own)."""
    blocks = python_blocks()
    assert {"readme_0", "docs_clients_0", "docs_integration_0", "docs_records_0"} <= blocks.keys()
    for name, block in blocks.items():
        (tmp_path / f"{name}.py").write_text(block, encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "pyproject.toml",
         "--cache-dir", str(tmp_path / "cache"),
         *sorted(str(path) for path in tmp_path.glob("*.py"))],
        capture_output=True, text=True, check=False, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
