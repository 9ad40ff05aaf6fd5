"""The playground's own sources, read in Node.js by ``clients/web/test/sources.mjs`` (bundled by
esbuild, no browser): what the tests check against the engines."""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from typing import Any

from tests.e2e.server_process import ROOT

WEB = ROOT / "clients" / "web"
SCRIPT = WEB / "test" / "sources.mjs"
RUN_SECONDS = 120  # a bound on a hung run, far above the second a run takes


def ask(command: str, given: Any = None) -> Any:
    """The script's JSON answer to ``command``, ``given`` sent as JSON on its standard input."""
    node = shutil.which("node")
    assert node, "Node.js is not installed: the playground's tests need it"
    assert (WEB / "node_modules" / "esbuild").exists(), "run 'make web' first"
    done = subprocess.run(
        [node, str(SCRIPT), command],
        cwd=WEB,
        input=json.dumps(given),
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    assert done.returncode == 0, f"{SCRIPT.name} {command} failed:\n{done.stderr}"
    return json.loads(done.stdout)


@cache
def games() -> dict[str, list[str]]:
    """The games of the page's parts (``uis``) and of its build's rules pages (``build``)."""
    answer: dict[str, list[str]] = ask("games")
    return answer
