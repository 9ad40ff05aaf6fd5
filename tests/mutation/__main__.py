"""Mutation testing of the engines: ``python -m tests.mutation [--full] [--seed N] [--sample N]``.

mutmut (configured in ``pyproject.toml``) makes the mutants of the rules code under
``engines/`` and runs, for each, the in-process tests that reach the function it changes (the
engine scenarios, the conformance suite's in-process half, the rules docs' worked examples and
the recorded games). The quick mode runs a seeded sample and fails when the sample's score is
under ``--bar``; ``--full`` runs every mutant. Either prints the score of each module and every
survivor as ``file:line`` with its change.

A mutant counts when it changes behaviour: those that only reword the message of a rules error
(its reason, the contract, stays in scope) are left out, and so are those listed, each with its
reason, in ``tests/mutation/equivalent.toml``. The score is killed / (killed + survived), a
mutant whose tests run past their time (a loop that never ends) counted as killed; a mutant no
test reaches is listed apart.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tests.mutation.mutants import (
    KILLED_CODES,
    NO_TESTS_CODES,
    SURVIVED_CODES,
    TIMEOUT_CODES,
    WORK,
    Equivalent,
    LeftOut,
    Mutant,
    load_equivalents,
    load_left_out,
    mutants_of,
    mutated_files,
    verdicts,
)

SEED = 52
SAMPLE = 90  # mutants in the quick mode: a few minutes on two busy cores
BAR = 0.95  # the quick mode's least score; the full run's modules stand at 97% or more
LOG = WORK / "mutmut-run.log"


@dataclass(frozen=True, slots=True)
class Tally:
    """One module's verdicts."""

    killed: int = 0
    survived: int = 0
    other: int = 0  # no test reaches it

    @property
    def score(self) -> float:
        """Killed among the mutants that ran to a verdict (1 when none did)."""
        decided = self.killed + self.survived
        return self.killed / decided if decided else 1.0


def generate(fresh: bool) -> None:
    """Make (or, unless ``fresh``, refresh) mutmut's copies of the source with every mutant in
    them. A fresh start forgets the last run: copies made from older tests cannot fail this one."""
    from mutmut.__main__ import create_mutants  # noqa: PLC0415 (mutmut is a dev tool)
    from mutmut.utils.file_utils import (  # noqa: PLC0415
        copy_also_copy_files,
        copy_src_dir,
        setup_source_paths,
    )

    if fresh:
        shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(exist_ok=True)
    with LOG.open("w", encoding="utf-8") as log, contextlib.redirect_stdout(log):
        copy_src_dir()
        copy_also_copy_files()
        setup_source_paths()
        create_mutants(2)


@dataclass(frozen=True, slots=True)
class SortedOut:
    """The mutants that count, and how many of the others were left out and why."""

    candidates: list[Mutant]
    wording: int
    at_import: int
    equivalent: int
    matched: set[Equivalent]


def sort_out(
    every: list[Mutant],
    equivalents: list[Equivalent],
    at_import: list[LeftOut],
    messages: list[LeftOut],
) -> SortedOut:
    """Leave out the mutants that only reword a message, those of functions run only at
    import and those listed as equivalent."""
    candidates, matched = [], set()
    wording = imported = 0
    for mutant in every:
        equivalent = next((e for e in equivalents if e.matches(mutant.change)), None)
        if equivalent is not None:
            matched.add(equivalent)
        elif mutant.wording_only or any(entry.matches(mutant.change) for entry in messages):
            wording += 1
        elif any(entry.matches(mutant.change) for entry in at_import):
            imported += 1
        else:
            candidates.append(mutant)
    listed = len(every) - len(candidates) - wording - imported
    return SortedOut(candidates, wording, imported, listed, matched)


def pick(candidates: list[Mutant], seed: int, size: int | None) -> list[Mutant]:
    """A seeded sample of the candidates (all of them when ``size`` is ``None``): the same seed
    and the same code always pick the same mutants."""
    if size is None or size >= len(candidates):
        return candidates

    def rank(mutant: Mutant) -> str:
        return hashlib.sha256(f"{seed}:{mutant.name}".encode()).hexdigest()

    return sorted(candidates, key=rank)[:size]


def run(mutants: list[Mutant]) -> int:
    """Run mutmut on the named mutants (output to the log); its exit status."""
    names = [mutant.name for mutant in mutants]
    mutmut = Path(sys.executable).with_name("mutmut")
    with LOG.open("a", encoding="utf-8") as log:
        return subprocess.run(
            [str(mutmut), "run", *names], stdout=log, stderr=subprocess.STDOUT, check=False
        ).returncode


def codes_now() -> dict[str, int | None]:
    """mutmut's exit code for every mutant."""
    codes: dict[str, int | None] = {}
    for source in mutated_files():
        codes.update(verdicts(source))
    return codes


def report(
    mutants: list[Mutant], codes: dict[str, int | None]
) -> tuple[dict[str, Tally], list[Mutant], list[Mutant]]:
    """Each module's tally, the survivors and those without a verdict."""
    counts: dict[str, Counter[str]] = {}
    survivors, others = [], []
    for mutant in mutants:
        code = codes.get(mutant.name)
        count = counts.setdefault(mutant.change.file, Counter())
        if code in KILLED_CODES or code in TIMEOUT_CODES:  # a test that never ends fails
            count["killed"] += 1
        elif code in SURVIVED_CODES:
            count["survived"] += 1
            survivors.append(mutant)
        else:
            count["other"] += 1
            others.append(mutant)
    tallies = {file: Tally(**count) for file, count in sorted(counts.items())}
    return tallies, survivors, others


def describe(code: int | None) -> str:
    """Why a mutant has no verdict."""
    if code in NO_TESTS_CODES:
        return "no test reaches it"
    return f"mutmut exit code {code}"


def main(argv: list[str] | None = None) -> int:
    """Run the quick (sampled) or full mutation run and print the report; 1 under the bar."""
    parser = argparse.ArgumentParser(prog="python -m tests.mutation", description=__doc__)
    parser.add_argument("--full", action="store_true", help="every mutant, not a sample")
    parser.add_argument("--seed", type=int, default=SEED, help="the sample's seed")
    parser.add_argument("--sample", type=int, default=SAMPLE, help="mutants in the sample")
    parser.add_argument("--bar", type=float, default=BAR, help="the least score (0..1)")
    parser.add_argument(
        "--again",
        action="store_true",
        help="with --full: run again only the mutants the last run did not kill",
    )
    parser.add_argument("--only", default="", help="only files whose path starts with this")
    args = parser.parse_args(argv)

    generate(fresh=not args.again)
    equivalents = load_equivalents()
    every = [m for source in mutated_files() for m in mutants_of(source)]
    every = [m for m in every if m.change.file.startswith(args.only)]
    sorted_out = sort_out(every, equivalents, load_left_out("at_import"), load_left_out("message"))
    candidates = sorted_out.candidates
    chosen = pick(candidates, args.seed, None if args.full else args.sample)
    mode = "every mutant" if args.full else f"a sample of {len(chosen)}, seed {args.seed}"
    print(
        f"{len(every)} mutants: {sorted_out.wording} only reword a message, "
        f"{sorted_out.at_import} are in functions run only at import, "
        f"{sorted_out.equivalent} are listed as equivalent, "
        f"{len(candidates)} change behaviour; running {mode}"
    )
    to_run = chosen
    if args.full and args.again:
        last = codes_now()
        to_run = [m for m in chosen if last.get(m.name) not in KILLED_CODES | TIMEOUT_CODES]
        print(f"running again the {len(to_run)} that the last run did not kill")
    status = run(to_run) if to_run else 0
    if status != 0:
        print(f"mutmut failed with status {status}: see {LOG}")
        return status
    codes = codes_now()
    tallies, survivors, others = report(chosen, codes)
    return print_report(tallies, survivors, others, codes, args, equivalents, sorted_out.matched)


def print_report(
    tallies: dict[str, Tally],
    survivors: list[Mutant],
    others: list[Mutant],
    codes: dict[str, int | None],
    args: argparse.Namespace,
    equivalents: list[Equivalent],
    matched: set[Equivalent],
) -> int:
    """Print the scores, the survivors and the unmatched equivalents; the exit status."""
    print(f"\n{'module':48} {'killed':>7} {'survived':>9} {'score':>7}")
    for file, tally in tallies.items():
        print(f"{file:48} {tally.killed:7} {tally.survived:9} {tally.score:7.1%}")
    total = Tally(
        sum(t.killed for t in tallies.values()),
        sum(t.survived for t in tallies.values()),
        sum(t.other for t in tallies.values()),
    )
    print(f"{'all':48} {total.killed:7} {total.survived:9} {total.score:7.1%}")
    for title, listed in (("survivors", survivors), ("without a verdict", others)):
        if listed:
            print(f"\n{title}:")
        for mutant in sorted(listed, key=lambda m: (m.change.file, m.change.line)):
            change = mutant.change
            why = "" if mutant in survivors else f", {describe(codes.get(mutant.name))}"
            print(f"  {change.file}:{change.line} ({change.function}{why}) {mutant.name}")
            print(f"      - {change.before}\n      + {change.after}")
    if args.full and not args.only:
        for stale in sorted(set(equivalents) - matched, key=lambda e: (e.file, e.before)):
            print(f"\nno such mutant any more, listed as equivalent: {stale.file} {stale.before}")
    if total.score < args.bar:
        print(f"\nscore {total.score:.1%} is under the bar of {args.bar:.0%}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
