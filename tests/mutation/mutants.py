"""The mutants mutmut made of the engines, read back from its work folder (``mutants/``).

mutmut copies each function it mutates once per mutant into ``mutants/<file>`` and indexes the
copies by line span (``<file>.spans``); its verdicts are in ``<file>.meta``. This module reads
both, finds for each mutant the line of the original source it changes and the change, and
sorts it: in scope (it changes what the engine does), a message's wording (the free text of a
rules error, whose stable reason is the contract), or listed as equivalent.
"""

from __future__ import annotations

import ast
import json
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

WORK = Path("mutants")  # mutmut's work folder, beside pyproject.toml
EQUIVALENT_FILE = Path(__file__).with_name("equivalent.toml")
ORIGINAL = "__mutmut_orig"
CLASS_MARK = "ǁ"  # mutmut names a method's copies xǁClassǁmethod__mutmut_N
ANY_CHANGE = "*"  # in equivalent.toml: any change of the line

# mutmut's exit codes, as its stats module reads them.
KILLED_CODES = frozenset({1, 3})
SURVIVED_CODES = frozenset({0})
TIMEOUT_CODES = frozenset({36, -24, 24, 152, 255})
NO_TESTS_CODES = frozenset({5, 33})


@dataclass(frozen=True, slots=True)
class Change:
    """What a mutant changes: the first line it alters, as it was and as it became."""

    file: str
    function: str
    line: int
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Mutant:
    """One mutant: mutmut's name for it, its change and whether it counts."""

    name: str
    change: Change
    wording_only: bool


@dataclass(frozen=True, slots=True)
class Equivalent:
    """A mutant judged to change no behaviour, and why."""

    file: str
    function: str
    before: str
    after: str
    reason: str

    def matches(self, change: Change) -> bool:
        """Whether the change is this one (its lines compared without indentation; an
        ``after`` of ``*`` stands for any change of the line)."""
        return (self.file, self.function, self.before) == (
            change.file,
            change.function,
            change.before,
        ) and self.after in {ANY_CHANGE, change.after}


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node of the source starts and ends (lines from 1, columns in characters)."""

    line: int
    column: int
    end_line: int
    end_column: int

    def holds(self, line: int, start: int, end: int) -> bool:
        """Whether the columns start..end of the line lie inside the span."""
        after_start = (line, start) >= (self.line, self.column)
        before_end = (line, end) <= (self.end_line, self.end_column)
        return after_start and before_end


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A function whose mutants are left out, and why: one that runs only while its module is
    imported (to build a table), before mutmut can switch a mutant on, or one that only words
    the message of a rules error."""

    file: str
    function: str
    reason: str

    def matches(self, change: Change) -> bool:
        """Whether the change is in this function."""
        return (self.file, self.function) == (change.file, change.function)


def load_equivalents(path: Path = EQUIVALENT_FILE) -> list[Equivalent]:
    """The equivalent mutants listed in ``equivalent.toml``, each with its reason."""
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("mutant", [])
    return [Equivalent(**entry) for entry in entries]


def load_left_out(table: str, path: Path = EQUIVALENT_FILE) -> list[LeftOut]:
    """The functions listed in a table of ``equivalent.toml`` (``at_import``, ``message``)."""
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get(table, [])
    return [LeftOut(**entry) for entry in entries]


def mutated_files() -> list[Path]:
    """The source files mutmut made mutants of (paths relative to the repository)."""
    return sorted(
        meta.relative_to(WORK).with_suffix("")
        for meta in WORK.rglob("*.py.meta")
        if json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    )


def verdicts(source: Path) -> dict[str, int | None]:
    """mutmut's exit code for each mutant of a file (``None`` while not run)."""
    meta = json.loads((WORK / f"{source}.meta").read_text(encoding="utf-8"))
    return dict(meta["exit_code_by_key"])


def mutants_of(source: Path) -> Iterator[Mutant]:
    """Every mutant of a source file, with its change and whether only a message's wording."""
    spans = json.loads((WORK / f"{source}.spans").read_text(encoding="utf-8"))["spans"]
    copies = (WORK / source).read_text(encoding="utf-8").split("\n")
    text = source.read_text(encoding="utf-8")
    lines = text.split("\n")
    tree = ast.parse(text)
    def_lines = _def_lines(tree)
    messages = _message_spans(tree, lines)
    module = ".".join(source.with_suffix("").parts)
    for key, (start, end) in spans.items():
        if key.endswith(ORIGINAL):
            continue
        mangled = key.rpartition("__mutmut_")[0]
        first, last = spans[mangled + ORIGINAL]
        change = _change(
            str(source),
            _function_name(mangled),
            def_lines[_function_name(mangled)],
            copies[first - 1 : last],
            copies[start - 1 : end],
        )
        line_text = lines[change.line - 1]
        column, stop = _changed_columns(line_text, _mutated_line(copies, start, end, first, last))
        wording = any(span.holds(change.line, column, stop) for span in messages)
        yield Mutant(f"{module}.{key}", change, wording)


def _function_name(mangled: str) -> str:
    """``Class.method`` or ``function`` from mutmut's mangled name."""
    if mangled.startswith("x" + CLASS_MARK):
        _, cls, method = mangled.split(CLASS_MARK)
        return f"{cls}.{method}"
    return mangled.removeprefix("x_")


def _def_lines(tree: ast.Module) -> dict[str, int]:
    """The line of each function's ``def``, by ``function`` or ``Class.method``."""
    found: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node.lineno
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found[f"{node.name}.{item.name}"] = item.lineno
    return found


def _body(copy: list[str]) -> list[str]:
    """A function's copy from its ``def`` line on (mutmut puts a blank line before it)."""
    start = next(i for i, line in enumerate(copy) if line.lstrip().startswith("def "))
    return copy[start:]


def _change(
    file: str, function: str, def_line: int, original: list[str], mutant: list[str]
) -> Change:
    """The first line the mutant alters, counted in the original source."""
    before, after = _body(original), _body(mutant)
    for offset, (old, new) in enumerate(zip(before[1:], after[1:], strict=False), start=1):
        if old != new:
            return Change(file, function, def_line + offset, old.strip(), new.strip())
    offset = min(len(before), len(after))
    old = before[offset].strip() if offset < len(before) else ""
    new = after[offset].strip() if offset < len(after) else ""
    return Change(file, function, def_line + offset, old, new)


def _mutated_line(copies: list[str], start: int, end: int, first: int, last: int) -> str:
    """The first line of the mutant's copy that differs from the original's."""
    before, after = _body(copies[first - 1 : last]), _body(copies[start - 1 : end])
    for old, new in zip(before[1:], after[1:], strict=False):
        if old != new:
            return new
    return ""


def _changed_columns(old: str, new: str) -> tuple[int, int]:
    """The columns of the old line that the new one replaces (what lies between the common
    beginning and the common end)."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, len(old) - suffix


def _message_spans(tree: ast.Module, lines: list[str]) -> list[Span]:
    """Where the messages of raised errors are: the first argument of ``raise SomeError(...)``
    and its ``message=``; the reason, the second, is the contract and stays in scope."""
    spans = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
            continue
        call = node.exc
        name = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        if isinstance(call.func, ast.Name):
            name = call.func.id
        if not name.endswith("Error"):
            continue
        arguments = call.args[:1] + [kw.value for kw in call.keywords if kw.arg == "message"]
        spans.extend(_span(argument, lines) for argument in arguments)
    return spans


def _span(node: ast.expr, lines: list[str]) -> Span:
    """A node's span, its byte offsets turned into character columns."""
    end_line = node.end_lineno or node.lineno
    end_offset = node.end_col_offset or 0

    def column(line: int, offset: int) -> int:
        return len(lines[line - 1].encode()[:offset].decode(errors="ignore"))

    return Span(
        node.lineno,
        column(node.lineno, node.col_offset),
        end_line,
        column(end_line, end_offset),
    )
