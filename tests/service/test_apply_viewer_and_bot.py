"""ApplyAction for a frontend that must not see other seats' cards: a ``viewer`` keeps only the
events it may see, and a ``bot`` move is chosen and applied by the server without showing it.
Against real servers, plain and sealed, over gRPC and the HTTP door."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from engines import registry
from engines.prng import Rng
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from tests.conformance.drivers import reason_of
from tests.connect_calls import HttpDoor

GAMES = sorted(registry.ENGINES)
MOVES = 40  # moves played per game: hands dealt, cards drawn, selections revealed
SPECTATOR = common.Viewer(spectator=True)


@pytest.fixture(params=["plain", "sealed"])
def server(request: pytest.FixtureRequest) -> rpc.GameEngineServiceStub:
    """A server returning plain states, and one returning sealed states."""
    name = "stub" if request.param == "plain" else "sealed_stub"
    stub: rpc.GameEngineServiceStub = request.getfixturevalue(name)
    return stub


def new_game(stub: rpc.GameEngineServiceStub, game: str) -> api.NewGameResponse:
    """A seeded game with the most seats the game takes."""
    seats = registry.get(game).info.max_seats
    options = common.GameOptions(**{game: {}})
    started: api.NewGameResponse = stub.NewGame(
        api.NewGameRequest(seats=seats, seed=29, options=options)
    )
    return started


def reason(stub: rpc.GameEngineServiceStub, request: api.ApplyActionRequest) -> str:
    """The ErrorInfo reason ApplyAction refuses ``request`` with."""
    with pytest.raises(grpc.RpcError) as refused:
        stub.ApplyAction(request, timeout=30)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return reason_of(refused.value)


def sees(viewer: common.Viewer, event: common.Event) -> bool:
    """Whether ``viewer`` may see ``event``, by its audience."""
    if viewer.HasField("spectator"):
        return event.public
    return event.public or viewer.seat in event.visible_to_seats


@pytest.mark.parametrize("game", GAMES)
def test_a_viewer_gets_only_the_events_it_may_see(
    server: rpc.GameEngineServiceStub, game: str
) -> None:
    """With a viewer, the events are those of the full answer that seat (or a spectator) may
    see, in order, and the state and status are the same; events for other seats do occur."""
    started = new_game(server, game)
    state, status = started.state, started.status
    rng = Rng(29)
    hidden = 0
    for _ in range(MOVES):
        if status.finished:
            break
        seat = rng.choice(list(status.seats_to_act))
        legal = server.ListLegalActions(api.ListLegalActionsRequest(state=state, seat=seat))
        action = rng.choice(list(legal.actions))
        full = server.ApplyAction(api.ApplyActionRequest(state=state, action=action))
        viewers = [common.Viewer(seat=s) for s in range(registry.get(game).info.max_seats)]
        for viewer in [*viewers, SPECTATOR]:
            seen = server.ApplyAction(
                api.ApplyActionRequest(state=state, action=action, viewer=viewer)
            )
            expected = [event for event in full.events if sees(viewer, event)]
            assert list(seen.events) == expected
            assert seen.state == full.state
            assert seen.status == full.status
            hidden += len(full.events) - len(expected)
        state, status = full.state, full.status
    assert hidden > 0, "no event was hidden from anyone: the test checks nothing"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [0, 7])
def test_a_bot_move_is_the_suggested_move_applied(
    server: rpc.GameEngineServiceStub, game: str, seed: int
) -> None:
    """A bot move gives what SuggestAction then ApplyAction give with the same policy and seed:
    the same state bytes, status and events."""
    started = new_game(server, game)
    state, status = started.state, started.status
    for turn in range(MOVES):
        if status.finished:
            break
        seat = status.seats_to_act[turn % len(status.seats_to_act)]
        policy = ("random", "heuristic")[turn % 2]
        suggested = server.SuggestAction(
            api.SuggestActionRequest(state=state, seat=seat, policy=policy, seed=seed)
        )
        expected = server.ApplyAction(api.ApplyActionRequest(state=state, action=suggested.action))
        bot = api.BotMove(seat=seat, policy=policy, seed=seed)
        answer = server.ApplyAction(api.ApplyActionRequest(state=state, bot=bot))
        assert answer.SerializeToString() == expected.SerializeToString()
        state, status = answer.state, answer.status


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_move_with_a_viewer_shows_only_what_it_may_see(
    stub: rpc.GameEngineServiceStub, game: str
) -> None:
    """A bot move with a spectator viewer answers with the public events of the move."""
    started = new_game(stub, game)
    seat = started.status.seats_to_act[0]
    bot = api.BotMove(seat=seat, seed=3)
    full = stub.ApplyAction(api.ApplyActionRequest(state=started.state, bot=bot))
    seen = stub.ApplyAction(api.ApplyActionRequest(state=started.state, bot=bot, viewer=SPECTATOR))
    assert list(seen.events) == [event for event in full.events if event.public]
    assert seen.state == full.state


class TestRefusals:
    """The request must say one move, and a viewer that exists."""

    def test_exactly_one_of_action_and_bot(self, stub: rpc.GameEngineServiceStub) -> None:
        """Neither an action nor a bot, or both, is MALFORMED_ACTION."""
        started = new_game(stub, "six_nimmt")
        seat = started.status.seats_to_act[0]
        legal = stub.ListLegalActions(api.ListLegalActionsRequest(state=started.state, seat=seat))
        neither = api.ApplyActionRequest(state=started.state)
        both = api.ApplyActionRequest(
            state=started.state, action=legal.actions[0], bot=api.BotMove(seat=seat)
        )
        assert reason(stub, neither) == "MALFORMED_ACTION"
        assert reason(stub, both) == "MALFORMED_ACTION"

    @pytest.mark.parametrize(
        ("viewer", "expected"),
        [
            (common.Viewer(), "VIEWER_NOT_SET"),
            (common.Viewer(spectator=False), "VIEWER_NOT_SET"),
            (common.Viewer(seat=10), "INVALID_SEAT"),
        ],
    )
    def test_a_viewer_that_is_no_one(
        self, stub: rpc.GameEngineServiceStub, viewer: common.Viewer, expected: str
    ) -> None:
        """A viewer set to no seat, or to a seat the game has not, is refused, also when the
        same action was applied before."""
        started = new_game(stub, "six_nimmt")
        seat = started.status.seats_to_act[0]
        legal = stub.ListLegalActions(api.ListLegalActionsRequest(state=started.state, seat=seat))
        stub.ApplyAction(api.ApplyActionRequest(state=started.state, action=legal.actions[0]))
        request = api.ApplyActionRequest(state=started.state, action=legal.actions[0])
        request.viewer.CopyFrom(viewer)
        for _ in range(2):
            assert reason(stub, request) == expected

    def test_a_bot_seat_not_to_act(self, stub: rpc.GameEngineServiceStub) -> None:
        """A bot move for a seat that is not to act is refused as SuggestAction refuses it."""
        started = new_game(stub, "sequence_numbers")
        waiting = next(
            seat
            for seat in range(registry.get("sequence_numbers").info.max_seats)
            if seat not in started.status.seats_to_act
        )
        request = api.ApplyActionRequest(state=started.state, bot=api.BotMove(seat=waiting))
        assert reason(stub, request) == "NOT_SEATS_TURN"


def test_the_http_door_takes_viewer_and_bot_in_json(
    stub: rpc.GameEngineServiceStub, http_address: str
) -> None:
    """Over Connect JSON, a bot move with a viewer answers as over gRPC."""
    started = new_game(stub, "up_or_down")
    request = api.ApplyActionRequest(
        state=started.state,
        bot=api.BotMove(seat=started.status.seats_to_act[0], seed=5),
        viewer=common.Viewer(seat=1),
    )
    expected = stub.ApplyAction(request)
    door = HttpDoor(http_address)
    try:
        answer: Any = door.call(
            "connect-json", "ApplyAction", json_format.MessageToJson(request).encode()
        )
    finally:
        door.close()
    assert answer.code == grpc.StatusCode.OK
    assert json_format.Parse(answer.body, api.ApplyActionResponse()) == expected
