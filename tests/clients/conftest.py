"""Fixtures of the client tests: scripted fake servers on free loopback ports."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.clients.fakes import FakeServer, running_fake


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    """A fake server on a free loopback port."""
    with running_fake() as server:
        yield server


@pytest.fixture
def two_fakes() -> Iterator[tuple[FakeServer, FakeServer]]:
    """Two fake servers, each on a free loopback port of its own."""
    with running_fake() as first, running_fake() as second:
        yield first, second
