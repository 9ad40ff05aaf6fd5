"""The search policy over the wire: ListGames describes it, requests set its budget within the
server's maximum, and anything beyond is refused with its reason."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from engines import registry
from engines.search import SEARCH_POLICY
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.config import DEFAULT_MAX_SEARCH_ITERATIONS, Settings
from service.process.worker import create_server
from tests.conformance.drivers import reason_of

GAMES = sorted(registry.ENGINES)
SMALL_MAX = 3  # the maximum of the small server


@pytest.fixture(scope="module")
def small_stub() -> Iterator[rpc.GameEngineServiceStub]:
    """A stub of a server that allows at most ``SMALL_MAX`` search iterations."""
    settings = Settings(
        host="127.0.0.1", port=0, workers=1, metrics_port=0, max_search_iterations=SMALL_MAX
    )
    server, port, _health = create_server(settings)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield rpc.GameEngineServiceStub(channel)
    server.stop(None)


def dealt(stub: rpc.GameEngineServiceStub, game: str) -> common.GameState:
    """A new game of ``game`` with the fewest seats."""
    seats = registry.get(game).info.min_seats
    options = common.GameOptions(**{game: {}})
    request = api.NewGameRequest(seats=seats, seed=5, options=options)
    return stub.NewGame(request, timeout=10).state


def refusal(call: object, request: object) -> tuple[grpc.StatusCode, str]:
    """The code and reason of a call that must fail."""
    with pytest.raises(grpc.RpcError) as refused:
        call(request, timeout=10)  # type: ignore[operator]
    return refused.value.code(), reason_of(refused.value)


class TestListGames:
    """ListGames lists the search policy with what it does and its budget."""

    def test_every_game_describes_every_policy(self, stub: rpc.GameEngineServiceStub) -> None:
        """Each game's policy_details name its policies in order, each with a description;
        only search has a budget: its default and the server's maximum."""
        games = stub.ListGames(api.ListGamesRequest(), timeout=10).games
        assert sorted(game.id for game in games) == GAMES
        for game in games:
            assert SEARCH_POLICY in game.policies
            assert [policy.name for policy in game.policy_details] == list(game.policies)
            for policy in game.policy_details:
                assert policy.description
                if policy.name == SEARCH_POLICY:
                    engine = registry.get(game.id)
                    assert engine.search_info is not None
                    default = engine.search_info.searcher.default_iterations
                    assert policy.default_search_iterations == default
                    assert policy.max_search_iterations == DEFAULT_MAX_SEARCH_ITERATIONS
                else:
                    assert policy.default_search_iterations == 0
                    assert policy.max_search_iterations == 0

    def test_the_maximum_is_the_servers(self, small_stub: rpc.GameEngineServiceStub) -> None:
        """A server started with a lower maximum lists that maximum."""
        games = small_stub.ListGames(api.ListGamesRequest(), timeout=10).games
        for game in games:
            (search,) = [p for p in game.policy_details if p.name == SEARCH_POLICY]
            assert search.max_search_iterations == SMALL_MAX


class TestBudget:
    """A request may ask for any iterations up to the maximum, and no more."""

    @pytest.mark.parametrize("game", GAMES)
    def test_up_to_the_maximum_is_answered(
        self, small_stub: rpc.GameEngineServiceStub, game: str
    ) -> None:
        """The maximum itself, fewer and a time cap are answered with a legal action."""
        state = dealt(small_stub, game)
        listed = small_stub.ListLegalActions(
            api.ListLegalActionsRequest(state=state, seat=0), timeout=10
        ).actions
        for iterations, time_ms in ((SMALL_MAX, 0), (1, 0), (0, 1)):
            request = api.SuggestActionRequest(
                state=state,
                seat=0,
                policy=SEARCH_POLICY,
                search_iterations=iterations,
                search_time_limit_ms=time_ms,
            )
            assert small_stub.SuggestAction(request, timeout=10).action in listed

    @pytest.mark.parametrize("iterations", [SMALL_MAX + 1, 2**32 - 1])
    def test_more_than_the_maximum_is_refused(
        self, small_stub: rpc.GameEngineServiceStub, iterations: int
    ) -> None:
        """SuggestAction asking for more iterations than the server allows is refused with
        SEARCH_BUDGET_TOO_LARGE."""
        request = api.SuggestActionRequest(
            state=dealt(small_stub, "six_nimmt"),
            seat=0,
            policy=SEARCH_POLICY,
            search_iterations=iterations,
        )
        code, reason = refusal(small_stub.SuggestAction, request)
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SEARCH_BUDGET_TOO_LARGE")

    def test_a_bot_move_beyond_the_maximum_is_refused(
        self, small_stub: rpc.GameEngineServiceStub
    ) -> None:
        """A bot move in ApplyAction asking for too many iterations is refused alike, and
        nothing is applied."""
        bot = api.BotMove(seat=0, policy=SEARCH_POLICY, search_iterations=SMALL_MAX + 1)
        request = api.ApplyActionRequest(state=dealt(small_stub, "up_or_down"), bot=bot)
        code, reason = refusal(small_stub.ApplyAction, request)
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SEARCH_BUDGET_TOO_LARGE")

    def test_the_budget_is_checked_whatever_the_policy(
        self, small_stub: rpc.GameEngineServiceStub
    ) -> None:
        """Too many iterations are refused even for a policy that would not use them: a
        request is judged by what it asks, the same for every policy."""
        request = api.SuggestActionRequest(
            state=dealt(small_stub, "fora_de_ordem"),
            seat=0,
            policy="heuristic",
            search_iterations=SMALL_MAX + 1,
        )
        code, reason = refusal(small_stub.SuggestAction, request)
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SEARCH_BUDGET_TOO_LARGE")

    def test_a_bot_move_applies_the_suggested_search_move(
        self, stub: rpc.GameEngineServiceStub
    ) -> None:
        """A search bot move with a seed applies the move SuggestAction gives for that seed."""
        state = dealt(stub, "sequence_numbers")
        suggested = stub.SuggestAction(
            api.SuggestActionRequest(
                state=state, seat=0, policy=SEARCH_POLICY, seed=9, search_iterations=2
            ),
            timeout=10,
        ).action
        applied = stub.ApplyAction(api.ApplyActionRequest(state=state, action=suggested))
        bot = api.BotMove(seat=0, policy=SEARCH_POLICY, seed=9, search_iterations=2)
        played = stub.ApplyAction(api.ApplyActionRequest(state=state, bot=bot), timeout=10)
        assert played.state == applied.state
