"""Every file the code, the docs and the deployment cite exists in the repository.

A citation is a path with a directory and an extension (``engines/six_nimmt/rules.py``), a bare
Markdown file name (``README.md``), or the target of a relative Markdown link. A path counts as
found when it exists from the folder of the citing file or one of its parents (the root
included), or ends a path of the repository (``ordo/client.py``, inside ``clients/python``).
What a build produces (the virtual environment, installed packages, compiled output) is never in
the repository and is not a citation.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Where citations are read: the code, the tests, the docs, the deployment and the build.
SOURCES = (".ci", "engines", "service", "clients/python/ordo", "clients/agents")
SOURCES += ("tests", "bench", "docs", "deploy")
TOP_FILES = ("README.md", "Makefile", "pyproject.toml", "buf.yaml")
SUFFIXES = {".py", ".md", ".yml", ".yaml", ".toml", ".proto", ".txt", ""}
BUILT_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache"}
BUILT_DIRS |= {".ruff_cache"}
SKIPPED_DIRS = BUILT_DIRS | {"v1"}  # v1: generated code, whose citations are the protos' own
# Built or installed, never checked in; or written by a test or a command at run time.
PRODUCED = re.compile(
    r"^(?:\.venv|\.venv-[\w.]+|node_modules|dist|build)/|/(?:dist|node_modules|\.venv)/|"
    r"^(?:/|~|\$)|^[\w.-]+\.(?:com|org|io|dev)/"
)
# Names that look like paths but name no file: descriptors built in memory by a test.
NOT_FILES = {"tests/field_part_probe.proto", "tests/field_part_optional_probe.proto"}
EXTENSIONS = "py|md|ts|js|mjs|json|ya?ml|proto|toml|txt|png|binpb|html|css|cfg|lock|pem|sh"
PATH = re.compile(rf"(?<![\w./@$~:-])((?:[\w.-]+/)+[\w.-]+\.(?:{EXTENSIONS}))(?![\w/-])")
BARE_MARKDOWN = re.compile(r"(?<![\w./-])([A-Z][A-Z_]+\.md)\b")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def sources() -> list[Path]:
    """The files whose citations are checked."""
    found = [ROOT / name for name in TOP_FILES]
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            parts = set(path.relative_to(ROOT).parts)
            if path.is_file() and path.suffix in SUFFIXES and not parts & SKIPPED_DIRS:
                found.append(path)
    return [path for path in found if path != Path(__file__).resolve()]


def repository_files() -> set[str]:
    """Every file of the repository, as a path from the root (built folders left out)."""
    found = set()
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in BUILT_DIRS]
        base = Path(folder).relative_to(ROOT)
        found.update((base / name).as_posix() for name in names)
    return found


FILES = repository_files()


def exists(cited: str, source: Path) -> bool:
    """Whether a cited path exists from the citing file's folders or ends a repository path."""
    folders = [source.parent, *source.parent.parents]
    if any((folder / cited).exists() for folder in folders if folder.is_relative_to(ROOT)):
        return True
    return "/" in cited and any(path.endswith("/" + cited) for path in FILES)


def citations(source: Path) -> set[str]:
    """The paths a file cites."""
    text = source.read_text(encoding="utf-8")
    cited = {path for path in PATH.findall(text) if not PRODUCED.search(path)} - NOT_FILES
    cited.update(BARE_MARKDOWN.findall(text))
    if source.suffix == ".md":
        cited.update(link for link in LINK.findall(text) if "://" not in link)
    return cited


def test_the_sources_are_found() -> None:
    """The search reads the engines, the docs and the deployment, so it can find something."""
    names = {path.relative_to(ROOT).as_posix() for path in sources()}
    assert {"engines/six_nimmt/rules.py", "docs/architecture.md", "deploy/Dockerfile"} <= names


def test_a_missing_file_is_caught() -> None:
    """A citation of a file that is not in the repository is reported."""
    source = ROOT / "README.md"
    assert not exists("NO_SUCH_NOTES.md", source)
    assert not exists("engines/no_such_game.py", source)
    assert exists("docs/rules/six_nimmt.md", source)


@pytest.mark.parametrize("source", sources(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_cited_file_exists(source: Path) -> None:
    """Each path the file cites is a file or folder of the repository."""
    missing = sorted(cited for cited in citations(source) if not exists(cited, source))
    assert not missing, f"{source.relative_to(ROOT)} cites files that do not exist: {missing}"
