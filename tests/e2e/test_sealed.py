"""Sealed states with the server as its own process: two servers given one keys file answer
byte for byte alike, each taking the states the other sealed; a malformed keys file stops the
start-up with a usage error."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from engines.prng import Rng
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from tests.conformance.drivers import reason_of
from tests.e2e.server_process import running_server
from tests.e2e.test_startup import start_alone
from tests.state_keys import TEST_KEY, keys_file_text

pytestmark = pytest.mark.e2e

EXIT_USAGE = 2
ACTIONS = 30


def test_two_servers_with_one_keys_file_interoperate(tmp_path: Path) -> None:
    """Two server processes with the same keys file give byte-identical answers along a game
    played on both in turns, and require sealed states when told to."""
    keys = tmp_path / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with (
        running_server(tmp_path / "a", workers=1, state_keys_file=str(keys)) as first,
        running_server(
            tmp_path / "b", workers=1, state_keys_file=str(keys), require_sealed="true"
        ) as second,
        grpc.insecure_channel(first.target) as one,
        grpc.insecure_channel(second.target) as other,
    ):
        stubs = (rpc.GameEngineServiceStub(one), rpc.GameEngineServiceStub(other))
        request = api.NewGameRequest(seats=3, seed=12, options=common.GameOptions(up_or_down={}))
        started = [stub.NewGame(request, timeout=30) for stub in stubs]
        assert started[0].SerializeToString() == started[1].SerializeToString()
        state, status = started[0].state, started[0].status
        rng = Rng(12)
        for step in range(ACTIONS):
            here, there = stubs[step % 2], stubs[1 - step % 2]
            seat = rng.choice(list(status.seats_to_act))
            listing = api.ListLegalActionsRequest(state=state, seat=seat)
            legal = here.ListLegalActions(listing, timeout=30)
            apply = api.ApplyActionRequest(state=state, action=rng.choice(list(legal.actions)))
            answer = here.ApplyAction(apply, timeout=30)
            assert answer == there.ApplyAction(apply, timeout=30)
            state, status = answer.state, answer.status
        assert state.sealed
        assert state.revision == ACTIONS
        plain = common.GameState(
            rules_version=state.rules_version, revision=0, up_or_down=common.GameState().up_or_down
        )
        with pytest.raises(grpc.RpcError) as refused:
            stubs[1].GetView(
                api.GetViewRequest(state=plain, viewer=common.Viewer(spectator=True)), timeout=30
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(refused.value) == "STATE_NOT_SEALED"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("k1 c2hvcnQ=\n", "line 1: the key is 5 bytes"),
        ("", "no key"),
    ],
    ids=["short-key", "empty"],
)
def test_a_malformed_keys_file_stops_the_start_up(tmp_path: Path, text: str, message: str) -> None:
    """A malformed keys file stops the server at once with exit code 2 and a clear message:
    never a half-working server."""
    keys = tmp_path / "keys"
    keys.write_text(text)
    code, output, _lines = start_alone(tmp_path, port="0", workers="1", state_keys_file=str(keys))
    assert code == EXIT_USAGE
    assert message in output
    assert "Traceback" not in output
