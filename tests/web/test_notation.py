"""The playground writes seats, teams, rows, sides, cells and cards as the engines do.

``clients/web/src/notation.ts`` is the page's own copy of ``engines.notation`` and of the games'
card texts; every case of ``tests.notation_cases`` (cards in the proto JSON the page gets) is
written by it in Node.js and held to the engines' text, on every seat, cell and card.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from tests.notation_cases import Case, camel, cases
from tests.web.sources import ask


def _argument(value: int | Message) -> Any:
    """An argument as the page gets it: a number, or a message in proto JSON."""
    return json_format.MessageToDict(value) if isinstance(value, Message) else value


@pytest.fixture(scope="module")
def written() -> dict[str, list[tuple[Case, Any]]]:
    """Per function of notation.ts, each case with what the page wrote for it."""
    every = cases()
    sent = [
        {"function": camel(case.function), "arguments": list(map(_argument, case.arguments))}
        for case in every
    ]
    by_function: dict[str, list[tuple[Case, Any]]] = defaultdict(list)
    for case, text in zip(every, ask("notation", sent), strict=True):
        by_function[case.function].append((case, text))
    return by_function


class TestAgreement:
    """Each function of notation.ts writes what the engines write."""

    @pytest.mark.parametrize("function", sorted({case.function for case in cases()}))
    def test_the_function_agrees_on_every_case(
        self, written: dict[str, list[tuple[Case, Any]]], function: str
    ) -> None:
        """The page's function gives the engines' text for every seat, cell or card."""
        wrong = [
            (case.arguments, text, case.expected)
            for case, text in written[function]
            if text != case.expected
        ]
        assert not wrong, f"notation.ts {camel(function)} disagrees with the engines: {wrong[:3]}"
