"""Ordo's Grafana dashboard as the tests read it: its queries."""

from __future__ import annotations

import json
from pathlib import Path

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "ordo.json"


def dashboard_queries() -> list[str]:
    """Every PromQL query of the dashboard's panels, as written (with Grafana's variables)."""
    panels = json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]
    return [target["expr"] for panel in panels for target in panel.get("targets", [])]
