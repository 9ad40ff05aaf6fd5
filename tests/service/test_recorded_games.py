"""The recorded games (``recorded.py``, ``records/``) replay move for move to the very states they
were recorded with: every digest of every step matches."""

from __future__ import annotations

import pytest

from engines import registry
from ordo import records
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.servicer import GameEngineServicer
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer
from tests.service.recorded import CASES, Case
from tests.state_keys import TEST_KEY

FULL_GAME_BYTES = 20_000  # a whole 6 nimmt! game to 66 points fits in a record of this size


@pytest.fixture(scope="module")
def servicers() -> dict[bool, GameEngineServicer]:
    """A plain servicer and one with the test key, by whether it seals."""
    return {False: GameEngineServicer(), True: GameEngineServicer(sealer=Sealer([TEST_KEY]))}


def replay(servicer: GameEngineServicer, request: api.ReplayGameRequest) -> api.ReplayGameResponse:
    return api.ReplayGameResponse.FromString(servicer.ReplayGame(request, CallRecord("ReplayGame")))


class TestRecordedGames:
    """Each recorded game is the game the code plays today."""

    @pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.game}-{case.name}")
    def test_the_record_replays_to_its_end(
        self, servicers: dict[bool, GameEngineServicer], case: Case
    ) -> None:
        """Every move is legal and leads to the state its digest names, to a finished game."""
        record = records.load(case.path)
        assert record.initial_state.HasField(case.game) != case.sealed
        answer = replay(servicers[case.sealed], api.ReplayGameRequest(record=record))
        assert answer.move_count == len(record.moves) > 0
        assert answer.final_status.finished
        assert records.state_digest(answer.final_state) == record.final_digest

    def test_every_game_and_option_value_has_a_record(self) -> None:
        """Each game has a plain and a sealed record, and each value an option lists is played
        in one."""
        for game, engine in registry.ENGINES.items():
            cases = [case for case in CASES if case.game == game]
            assert {case.sealed for case in cases} == {False, True}, game
            played = {
                str(case.game_options().ListFields()[0][1]) for case in cases
            }  # the options as text
            for option in engine.info.options:
                for value in option.allowed[1:]:  # the first is the default, played without it
                    assert any(value in text for text in played), (game, option.name, value)

    def test_a_full_six_nimmt_game_fits_in_20_kb(self) -> None:
        """A whole 6 nimmt! game to 66 points is a record of under 20 KB as JSON."""
        case = next(case for case in CASES if case.game == "six_nimmt" and case.name == "to_66")
        record = records.load(case.path)
        state = common.GameState.FromString(record.initial_state.SerializeToString())
        assert state.six_nimmt.options.threshold == 66
        assert case.path.stat().st_size < FULL_GAME_BYTES
