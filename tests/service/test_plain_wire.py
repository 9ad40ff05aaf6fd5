"""The fast paths and their slow twin give the same bytes: a servicer with ``plain_wire``
builds every answer with protobuf's own serializer and keeps nothing from call to call, and
answers every golden playout and every recorded game byte for byte as the fast paths do (hand
framing, states serialized in parts, kept encodings, the state cache)."""

from __future__ import annotations

import pytest

from ordo import records
from ordo.v1 import engine_service_pb2 as api
from service.calls.replay import MAX_PAGE_STEPS
from service.calls.servicer import GameEngineServicer
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer
from tests.service import golden
from tests.service.recorded import CASES, Case
from tests.state_keys import TEST_KEY


def servicer(sealed: bool, plain: bool) -> GameEngineServicer:
    """A servicer, sealing under the test key when ``sealed``, plain when ``plain``."""
    return GameEngineServicer(sealer=Sealer([TEST_KEY]) if sealed else None, plain_wire=plain)


def revealed(servicer: GameEngineServicer, record: api.GameRecord) -> list[bytes]:
    """Every page of ``record`` replayed with every seat's view: each answer's bytes."""
    pages = []
    first = 0
    while True:
        request = api.ReplayGameRequest(
            record=record, reveal=True, first_step=first, page_size=MAX_PAGE_STEPS
        )
        answer = servicer.ReplayGame(request, CallRecord("ReplayGame"))
        pages.append(answer)
        first = api.ReplayGameResponse.FromString(answer).next_step
        if not first:
            return pages


class TestPlainWire:
    """Both ways, the same bytes."""

    def test_a_plain_servicer_keeps_nothing(self) -> None:
        """With ``plain_wire`` the state cache, the kept encodings and actions are off."""
        plain = servicer(sealed=False, plain=True)
        assert plain.states.max_bytes == 0
        assert plain.encodings.max_bytes == 0
        assert plain.decoder.action_bytes == 0
        assert plain.encoder.plain

    @pytest.mark.parametrize(
        ("game", "seats", "sealed"),
        golden.cases(),
        ids=[golden.case_id(*case) for case in golden.cases()],
    )
    def test_the_golden_playouts(self, game: str, seats: int, sealed: bool) -> None:
        """Every answer along each golden playout has the digest the fast paths are pinned to."""
        assert (
            golden.digest(game, seats, sealed, plain=True)
            == golden.stored()[golden.case_id(game, seats, sealed)]
        )

    @pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.game}-{case.name}")
    def test_the_recorded_games(self, case: Case) -> None:
        """Each recorded game, replayed whole with every seat's view and every event, gives the
        same pages both ways."""
        record = records.load(case.path)
        fast = revealed(servicer(case.sealed, plain=False), record)
        assert revealed(servicer(case.sealed, plain=True), record) == fast
