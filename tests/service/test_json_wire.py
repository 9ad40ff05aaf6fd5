"""Connect JSON's fast path and its slow twin give the same bytes: every request and response
along the golden playouts and the recorded games, converted by ``JsonWire`` and by
``json_format`` alone, and every odd or hostile request, which both refuse alike."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from engines.prng import Rng
from ordo import records
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.servicer import GameEngineServicer
from service.doors.json_wire import JsonWire
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer
from tests.service import golden
from tests.service.recorded import CASES
from tests.state_keys import TEST_KEY

FAST, SLOW = JsonWire(), JsonWire(plain=True)
PLAYED_STEPS = 60  # steps of each golden playout converted, from its start


def exchanges(game: str, seats: int, sealed: bool) -> Iterator[tuple[Message, Message]]:
    """Requests and their responses along the first steps of a golden playout."""
    servicer = GameEngineServicer(sealer=Sealer([TEST_KEY]) if sealed else None)
    options = common.GameOptions(**{game: {}})
    deal = api.NewGameRequest(seats=seats, seed=golden.SEED, options=options)
    started = servicer.NewGame(deal, CallRecord("NewGame"))
    yield deal, started
    state, status = started.state, started.status
    rng = Rng(golden.SEED)
    for _ in range(PLAYED_STEPS):
        if status.finished:
            return
        seat = rng.choice(list(status.seats_to_act))
        view = api.GetViewRequest(state=state, viewer=common.Viewer(seat=seat))
        yield view, servicer.GetView(view, CallRecord("GetView"))
        listing = api.ListLegalActionsRequest(state=state, seat=seat)
        legal = servicer.ListLegalActions(listing, CallRecord("ListLegalActions"))
        yield listing, legal
        request = api.ApplyActionRequest(
            state=state, action=rng.choice(list(legal.actions)), viewer=view.viewer
        )
        answer = servicer.ApplyAction(request, CallRecord("ApplyAction"))
        applied = api.ApplyActionResponse.FromString(answer)
        yield request, applied
        state, status = applied.state, applied.status


def outcome(wire: JsonWire, data: bytes, message_class: Any) -> bytes | str:
    """The binary request ``wire`` makes of ``data``, or its error as text."""
    try:
        return wire.parse(data, message_class)
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def agree(message: Message) -> None:
    """Both ways give ``message``'s JSON, and both read it (in either field naming) back to
    the same bytes."""
    assert FAST.dump(message) == SLOW.dump(message)
    for preserving in (False, True):
        text = json_format.MessageToJson(message, preserving_proto_field_name=preserving)
        fast = outcome(FAST, text.encode(), type(message))
        assert fast == outcome(SLOW, text.encode(), type(message))
        assert fast == message.SerializeToString()


class TestSameBytes:
    """The fast path is the slow twin's, on every message Ordo's games exchange."""

    @pytest.mark.parametrize(
        ("game", "seats", "sealed"),
        golden.cases(),
        ids=[golden.case_id(*case) for case in golden.cases()],
    )
    def test_the_golden_playouts(self, game: str, seats: int, sealed: bool) -> None:
        """Every request and response along the start of each golden playout."""
        for request, response in exchanges(game, seats, sealed):
            agree(request)
            agree(response)

    @pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.game}-{case.name}")
    def test_the_recorded_games(self, case: Any) -> None:
        """Each recorded game's replay request, and its answer with every seat's view."""
        request = api.ReplayGameRequest(record=records.load(case.path), reveal=True)
        servicer = GameEngineServicer(sealer=Sealer([TEST_KEY]) if case.sealed else None)
        agree(request)
        agree(api.ReplayGameResponse.FromString(servicer.ReplayGame(request, CallRecord("R"))))


ODD_REQUESTS = [
    b"",
    b"[]",
    b"null",
    b"{",
    b'{"seats": null}',
    b'{"seats": 4, "seats": 5}',
    b'{"seats": "4"}',
    b'{"seats": "4 "}',
    b'{"seats": 4.0}',
    b'{"seats": 4.5}',
    b'{"seats": 1e2}',
    b'{"seats": true}',
    b'{"seats": -1}',
    b'{"seats": 99999999999999999999}',
    b'{"seed": "18446744073709551616"}',
    b'{"seed": "-1"}',
    b'{"seed": "0x10"}',
    b'{"options": {"sixNimmt": {}, "upOrDown": {}}}',
    b'{"options": {"six_nimmt": {}, "sixNimmt": {}}}',
    b'{"options": {"sixNimmt": []}}',
    b'{"options": {"unknownGame": {}}}',
    b'{"bots": {"seat": 1}}',
    b'{"bots": [{"seat": 1}, null]}',
    b'{"bots": [{"seat": 1, "policy": 5}]}',
    b'{"bots": [{"seat": 1, "policy": "\\ud800"}]}',
    b'{"nope": 1}',
    b"\xff\xfe",
]
ODD_ACTIONS = [
    b'{"action": {"upOrDown": {"take": "UP_OR_DOWN_NOT_A_TAKE"}}}',
    b'{"action": {"upOrDown": {"take": 1}}}',
    b'{"action": {"upOrDown": {"take": "1"}}}',
    b'{"state": {"sealed": "not base64!"}}',
    b'{"state": {"sealed": "AAEC"}}',
    b'{"state": {"sealed": "AA-_"}}',
    b'{"state": {"sealed": 5}}',
]


class TestOddRequests:
    """What the fast path does not take, ``json_format`` decides: the same bytes or error."""

    @pytest.mark.parametrize("data", ODD_REQUESTS)
    def test_odd_new_games(self, data: bytes) -> None:
        """Nulls, repeated keys, numbers in strings or floats, out of range, two oneof
        members, unknown fields, lone surrogates, bytes that are not UTF-8."""
        assert outcome(FAST, data, api.NewGameRequest) == outcome(SLOW, data, api.NewGameRequest)

    @pytest.mark.parametrize("data", ODD_ACTIONS)
    def test_odd_actions_and_states(self, data: bytes) -> None:
        """Enum values by an unknown name or by number, bytes that are not base64."""
        kind = api.ApplyActionRequest
        assert outcome(FAST, data, kind) == outcome(SLOW, data, kind)
