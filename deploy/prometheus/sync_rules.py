"""Write deploy/prometheus/ordo-rules.yml from the PrometheusRule in deploy/k8s/prometheusrule.yaml.

The PrometheusRule is the one place the rules are edited. A plain Prometheus (prometheus.yml here)
and `promtool test rules` need them as a rules file, which is exactly the PrometheusRule's
`spec.groups`. This copies that part of the file as text, one indentation level less, so the
comments and the layout of the rules survive; tests/deploy/test_deploy.py checks the copy is
current and parses to the same groups.

    python deploy/prometheus/sync_rules.py           # rewrite ordo-rules.yml
    python deploy/prometheus/sync_rules.py --check   # exit 1 if ordo-rules.yml is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEPLOY = Path(__file__).resolve().parent.parent
SOURCE = DEPLOY / "k8s" / "prometheusrule.yaml"
TARGET = DEPLOY / "prometheus" / "ordo-rules.yml"

HEADER = """\
# GENERATED from deploy/k8s/prometheusrule.yaml (its spec.groups) by
# `python deploy/prometheus/sync_rules.py`: edit the rules there, then run that script.
# tests/deploy/test_deploy.py fails when this file is stale.
"""

GROUPS_LINE = "  groups:"  # `spec.groups`, indented under `spec:`
INDENT = "  "


def render(source: str) -> str:
    """Return the rules file for a PrometheusRule's text: a header, then its spec.groups."""
    lines = source.splitlines()
    try:
        start = lines.index("spec:")
        groups = lines.index(GROUPS_LINE, start)
    except ValueError:
        sys.exit(f"{SOURCE}: no top-level 'spec:' followed by '{GROUPS_LINE}'")
    body = []
    for number, line in enumerate(lines[groups:], start=groups + 1):
        if line and not line.startswith(INDENT):
            sys.exit(f"{SOURCE}:{number}: spec.groups must be the last field of the file")
        body.append(line.removeprefix(INDENT))
    return HEADER + "\n".join(body).rstrip("\n") + "\n"


def main() -> int:
    """Rewrite the rules file, or with --check report whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args()
    expected = render(SOURCE.read_text(encoding="utf-8"))
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else None
    if args.check:
        if current != expected:
            print(f"{TARGET} is stale: run 'python {Path(__file__).relative_to(DEPLOY.parent)}'")
            return 1
        return 0
    if current != expected:
        TARGET.write_text(expected, encoding="utf-8")
        print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
