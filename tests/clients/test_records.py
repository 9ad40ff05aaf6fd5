"""Game records through both clients and both doors: a game of each kind, played and recorded by
the Python client (gRPC door) and by the TypeScript client (HTTP door), saved, loaded and
replayed, reaches the same last state byte for byte, on a plain server and on a sealing one."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import structlog
from google.protobuf import json_format

from ordo import records
from ordo.client import Client, OrdoError
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.config import Settings
from service.doors.http_door import http_door
from service.process.worker import create_server, new_servicer
from tests.connect_calls import HttpDoor
from tests.node import ROOT, node_executable, run_node
from tests.state_keys import TEST_KEY

GAMES = [("six_nimmt", 4), ("sequence_numbers", 2), ("up_or_down", 3), ("fora_de_ordem", 2)]
SEED = 20261203
RECORDER = ROOT / "clients" / "node" / "dist" / "test" / "record.js"


@dataclass(frozen=True)
class Doors:
    """The two doors of one server."""

    grpc: str
    http: str


@pytest.fixture(scope="module")
def sealed_doors() -> Iterator[Doors]:
    """A server with the test state key, both doors on one servicer."""
    settings = Settings(
        host="127.0.0.1", port=0, workers=1, metrics_port=0, http_port=0, state_keys=(TEST_KEY,)
    )
    servicer = new_servicer(settings)
    server, port, _health = create_server(settings, servicer=servicer)
    server.start()
    door = http_door(settings, servicer, (), structlog.get_logger("ordo.server"))
    door.start()
    yield Doors(f"127.0.0.1:{port}", f"127.0.0.1:{door.port}")
    door.stop()
    door.wait()
    server.stop(None)


@pytest.fixture(scope="module", params=["plain", "sealed"])
def doors(request: pytest.FixtureRequest, server_address: str, http_address: str) -> Doors:
    """The session's plain server, or the sealing one."""
    if request.param == "sealed":
        sealed: Doors = request.getfixturevalue("sealed_doors")
        return sealed
    return Doors(server_address, http_address)


def play_recorded(address: str, game: str, seats: int) -> tuple[api.GameRecord, common.GameState]:
    """The game the TypeScript recorder plays (odd turns a bot's move, even turns the
    heuristic's suggestion as an action), recorded by the Python client; its last state."""
    with Client(address) as client:
        recorder = records.Recorder(client)
        started = recorder.new_game(game, seats, SEED)
        state, status = started.state, started.status
        turn = 0
        while not status.finished:
            seat = status.seats_to_act[0]
            if turn % 2:
                applied = recorder.play_bot(state, seat)
            else:
                action = client.suggest_action(state, seat).action
                applied = recorder.apply_action(state, action)
            state, status = applied.state, applied.status
            turn += 1
        return recorder.record, state


def replay_over_http(address: str, record: api.GameRecord) -> bytes:
    """The last state of ``record`` replayed through the HTTP door, in Connect JSON and binary:
    the same bytes both ways."""
    door = HttpDoor(address)
    try:
        request = api.ReplayGameRequest(record=record)
        binary = door.call("connect-proto", "ReplayGame", request.SerializeToString())
        text = door.call(
            "connect-json", "ReplayGame", records.to_json(record).join(('{"record":', "}")).encode()
        )
    finally:
        door.close()
    assert binary.reason == text.reason == ""
    from_binary = api.ReplayGameResponse.FromString(binary.body).final_state
    from_json = api.ReplayGameResponse()
    json_format.Parse(text.body, from_json)
    assert from_json.final_state == from_binary
    return from_binary.SerializeToString(deterministic=True)


class TestRecordsAcrossClientsAndDoors:
    """The same game recorded by either client replays to the same bytes through either door."""

    @pytest.mark.parametrize(("game", "seats"), GAMES)
    def test_python_and_typescript_records_replay_to_the_same_state(
        self, doors: Doors, game: str, seats: int, tmp_path: Path
    ) -> None:
        """Python over gRPC and TypeScript over Connect record the same moves and digests; the
        saved records load and replay, over both doors, to the very last state played."""
        record, state = play_recorded(doors.grpc, game, seats)
        played = state.SerializeToString(deterministic=True)
        path = tmp_path / f"python{records.SUFFIX}"
        records.save(record, path)
        assert records.load(path) == record
        node_path = tmp_path / f"node{records.SUFFIX}"
        done = run_node(
            node_executable(), str(RECORDER), "--target", doors.http, "--protocol", "connect",
            "--game", game, "--seats", str(seats), "--seed", str(SEED), "--out", str(node_path),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert base64.b64decode(report["state"]) == played
        assert report["steps"] == report["moves"] + 1 == len(record.moves) + 1
        node_record = records.load(node_path)
        assert node_record == record
        with Client(doors.grpc) as client:
            replayed = client.replay_game(node_record)
            assert replayed.final_state.SerializeToString(deterministic=True) == played
            assert replayed.final_status.finished
        assert replay_over_http(doors.http, node_record) == played

    def test_a_refusal_is_the_same_through_both_doors(self, doors: Doors) -> None:
        """A record cut short is RECORD_MISMATCH at its last step over gRPC and over HTTP."""
        record, _state = play_recorded(doors.grpc, "up_or_down", 2)
        del record.moves[5:]
        with Client(doors.grpc) as client, pytest.raises(OrdoError) as caught:
            client.replay_game(record)
        assert (caught.value.reason, caught.value.metadata["step"]) == ("RECORD_MISMATCH", "5")
        door = HttpDoor(doors.http)
        try:
            payload = records.to_json(record).join(('{"record":', "}")).encode()
            answer = door.call("connect-json", "ReplayGame", payload)
        finally:
            door.close()
        assert answer.reason == "RECORD_MISMATCH"
        assert json.loads(answer.body)["message"] == caught.value.message
