"""How ``python -m tests.mutation`` reads mutmut's mutants: the line each changes, whether it
only rewords a message, and which are left out of the score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mutation.__main__ import Tally, pick, sort_out
from tests.mutation.mutants import (
    WORK,
    Change,
    Equivalent,
    LeftOut,
    Mutant,
    load_equivalents,
    load_left_out,
    mutants_of,
)

SOURCE = '''"""A module."""


def check(value: int) -> int:
    """Refuse a negative value."""
    if value < 0:
        raise ValueError("a negative value", "NEGATIVE")
    return value
'''
DEMO = Path("engines", "demo.py")  # a module of the engines made up for these tests
COPY = '''def x_check__mutmut_orig(value: int) -> int:
    """Refuse a negative value."""
    if value < 0:
        raise ValueError("a negative value", "NEGATIVE")
    return value'''


def write_work_folder(root: Path) -> None:
    """A source file and mutmut's copies of ``check`` with three mutants, as mutmut lays
    them out: the copies in ``mutants/<file>``, their line spans in ``<file>.spans``."""
    (root / "engines").mkdir()
    (root / DEMO).write_text(SOURCE, encoding="utf-8")
    mutants = {
        "1": COPY.replace("value < 0", "value <= 0"),
        "2": COPY.replace('"a negative value"', '"XXa negative valueXX"'),
        "3": COPY.replace('"NEGATIVE"', '"XXNEGATIVEXX"'),
    }
    lines: list[str] = []
    spans = {}
    for name, copy in [("orig", COPY), *mutants.items()]:
        renamed = copy.replace("x_check__mutmut_orig", f"x_check__mutmut_{name}")
        start = len(lines) + 1
        lines.extend(["", *renamed.split("\n")])
        spans[f"x_check__mutmut_{name}"] = [start, len(lines)]
    work = root / WORK / "engines"
    work.mkdir(parents=True)
    (work / DEMO.name).write_text("\n".join(lines), encoding="utf-8")
    (work / f"{DEMO.name}.spans").write_text(json.dumps({"spans": spans}), encoding="utf-8")


class TestReading:
    """Each mutant is read back as the line of the source it changes."""

    def test_the_changed_line_is_counted_in_the_source(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A mutant names the source's line, the function, and the line before and after."""
        write_work_folder(tmp_path)
        monkeypatch.chdir(tmp_path)
        found = {m.name: m for m in mutants_of(DEMO)}
        first = found["engines.demo.x_check__mutmut_1"].change
        assert first == Change(str(DEMO), "check", 6, "if value < 0:", "if value <= 0:")

    def test_only_the_message_of_an_error_is_wording(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Rewording an error's message is wording only; changing its reason is not."""
        write_work_folder(tmp_path)
        monkeypatch.chdir(tmp_path)
        wording = {m.name[-1]: m.wording_only for m in mutants_of(DEMO)}
        assert wording == {"1": False, "2": True, "3": False}


def mutant(name: str, before: str, after: str, wording: bool = False) -> Mutant:
    """A mutant of ``check`` in the made-up module."""
    return Mutant(name, Change(str(DEMO), "check", 6, before, after), wording)


class TestSortingOut:
    """What counts in the score, and what is left out."""

    def test_equivalents_wording_and_import_time_code_are_left_out(self) -> None:
        """Listed equivalents, message wording and functions run at import do not count."""
        listed = mutant("a", "x = 1", "x = 2")
        any_change = mutant("b", "y = 1", "y = None")
        counted = mutant("c", "z = 1", "z = 2")
        equivalents = [
            Equivalent(str(DEMO), "check", "x = 1", "x = 2", "why"),
            Equivalent(str(DEMO), "check", "y = 1", "*", "why"),
        ]
        result = sort_out(
            [listed, any_change, counted, mutant("d", "w", "v", wording=True)], equivalents, [], []
        )
        assert result.candidates == [counted]
        assert (result.wording, result.equivalent) == (1, 2)
        at_import = [LeftOut(str(DEMO), "check", "why")]
        assert sort_out([counted], [], at_import, []).at_import == 1

    def test_the_sample_is_the_same_for_the_same_seed(self) -> None:
        """A seed picks the same mutants every time, and another seed others."""
        candidates = [mutant(str(n), "a", "b") for n in range(200)]
        first = pick(candidates, 52, 20)
        assert first == pick(list(reversed(candidates)), 52, 20)
        assert first != pick(candidates, 53, 20)
        assert pick(candidates, 52, None) == candidates

    def test_the_score_counts_killed_among_decided(self) -> None:
        """Killed over killed and survived; mutants without a verdict do not count."""
        assert Tally(killed=97, survived=3, other=10).score == 0.97
        assert Tally().score == 1.0


class TestTheList:
    """tests/mutation/equivalent.toml reads, and every entry gives a reason."""

    def test_every_entry_has_a_reason(self) -> None:
        """An entry without its reason would not stay justified."""
        entries = [*load_equivalents(), *load_left_out("at_import"), *load_left_out("message")]
        assert entries
        assert all(entry.reason.strip() for entry in entries)
