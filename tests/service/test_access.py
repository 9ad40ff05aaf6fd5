"""Who may do what, walked from the service's descriptor: every RPC has its rule in
``service.trust.access.RULES``, and every RPC whose request carries a state or names a hosted
table refuses, through both doors, the hostile requests a cheating player would send: no token,
another game's token, and a request that names another seat in any field that names one (its
seat, its viewer, its action's seat, its bot move's seat). A new RPC is covered without editing
a list."""

from __future__ import annotations

import grpc
import pytest

from engines import registry
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.config import BOT_POLICIES, DEFAULT_SUGGEST_POLICIES, policy_names
from service.trust.access import RULES, Access, Asked
from service.trust.seat_tokens import SeatNotPermittedError, SeatToken, SeatTokens
from service.trust.seats import seating
from tests.seat_calls import (
    GAME,
    SERVICE,
    STATE_METHODS,
    TABLE_METHODS,
    Caller,
    Target,
    hostile,
    names_a_seat,
)
from tests.state_keys import TEST_KEY

SEATS = 4
DENIED = grpc.StatusCode.PERMISSION_DENIED
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
#: Every method with each way its request names a game: a state, or a hosted table.
WALKS = [(method, "state") for method in STATE_METHODS] + [
    (method, "table") for method in TABLE_METHODS
]
#: Those whose request names a seat somewhere.
SEAT_WALKS = [walk for walk in WALKS if names_a_seat(SERVICE.methods_by_name[walk[0]].input_type)]


def deal(caller: Caller, host: bool = False) -> api.NewGameResponse:
    """A new game (a hosted one with ``host``) with seat 1 played by a bot, the other seats by
    people."""
    request = api.NewGameRequest(
        seats=SEATS,
        options=common.GameOptions(**{GAME: {}}),
        bots=[common.BotSeat(seat=1)],
        host=host,
    )
    dealt: api.NewGameResponse = caller.ok("NewGame", request)
    return dealt


def target(dealt: api.NewGameResponse) -> Target:
    """What a request names its game by: the state, or the table id of a hosted game."""
    return dealt.table_id or dealt.state


class TestRules:
    """Every RPC has a rule, and no rule names an RPC the service has not."""

    def test_every_rpc_has_its_rule(self) -> None:
        """``RULES`` lists the service's methods exactly."""
        assert set(RULES) == {method.name for method in SERVICE.methods}

    def test_the_walk_finds_the_methods_that_carry_a_state(self) -> None:
        """The descriptor walk sees the state in a request and in a record's initial state,
        and the table id of every request that takes one."""
        assert {"ApplyAction", "GetView", "ReplayGame"} <= set(STATE_METHODS)
        assert {"ApplyAction", "GetView", "WatchGame", "GetRecord"} <= set(TABLE_METHODS)
        assert "NewGame" not in STATE_METHODS
        assert registry.get(GAME).info.min_seats <= SEATS


@pytest.mark.parametrize(("method", "kind"), WALKS)
class TestEveryMethodWithAGame:
    """Each method that carries a state or names a table, with each hostile request the walk
    builds."""

    def test_no_token_is_refused_first(self, host_caller: Caller, method: str, kind: str) -> None:
        """Without a token: SEAT_TOKEN_MISSING, whatever else the request asks."""
        game = target(deal(host_caller, kind == "table"))
        for request in hostile(SERVICE.methods_by_name[method].input_type, game):
            reply = host_caller(method, request)
            assert (reply.code, reply.reason) == (UNAUTHENTICATED, "SEAT_TOKEN_MISSING")

    def test_a_token_of_another_game_is_refused(
        self, host_caller: Caller, method: str, kind: str
    ) -> None:
        """Another game's token: SEAT_NOT_PERMITTED, before the state is looked at."""
        game, other = target(deal(host_caller, kind == "table")), deal(host_caller)
        for request in hostile(SERVICE.methods_by_name[method].input_type, game):
            reply = host_caller(method, request, other.seat_tokens[0])
            assert (reply.code, reply.reason) == (DENIED, "SEAT_NOT_PERMITTED")


@pytest.mark.parametrize(("method", "kind"), SEAT_WALKS)
class TestEveryMethodThatNamesASeat:
    """Each method whose request names a seat, with each hostile request the walk builds."""

    def test_another_seat_is_refused(self, host_caller: Caller, method: str, kind: str) -> None:
        """Seat 0's token naming seat 2 anywhere: refused with PERMISSION_DENIED, the same
        refusal whether the request is otherwise well formed or not (a malformed action for
        another seat is not the caller's to hear about)."""
        message = SERVICE.methods_by_name[method].input_type
        dealt = deal(host_caller, kind == "table")
        for request in hostile(message, target(dealt)):
            reply = host_caller(method, request, dealt.seat_tokens[0])
            assert reply.code == DENIED, (request, reply)
            assert reply.reason in {"SEAT_NOT_PERMITTED", "NOT_A_BOT_SEAT"}


class TestNewGame:
    """``NewGame`` carries no state: its rule is that the server picks the seed."""

    def test_a_seed_is_refused(self, host_caller: Caller) -> None:
        """A seed sent to a server that requires tokens: SEED_NOT_PERMITTED."""
        request = api.NewGameRequest(seats=SEATS, seed=7, options=common.GameOptions(six_nimmt={}))
        reply = host_caller("NewGame", request)
        assert (reply.code, reply.reason) == (DENIED, "SEED_NOT_PERMITTED")

    def test_list_games_needs_no_token(self, host_caller: Caller) -> None:
        """``ListGames`` answers anyone."""
        assert host_caller.ok("ListGames", api.ListGamesRequest()).games


class TestSuggestPolicies:
    """``SuggestAction`` suggests with the policies the server gives its players only."""

    @pytest.mark.parametrize("policy", ["", "heuristic", "random"])
    def test_the_weaker_bots_suggest(self, caller: Caller, policy: str) -> None:
        """By default a seat may ask the heuristic bot (also the empty policy's) or the random
        one for its own move."""
        dealt = deal(caller)
        request = api.SuggestActionRequest(state=dealt.state, seat=0, policy=policy)
        assert caller.ok("SuggestAction", request, dealt.seat_tokens[0]).action.seat == 0

    def test_search_is_refused_by_default(self, caller: Caller) -> None:
        """The strongest bot is no seat's to ask: SUGGEST_POLICY_NOT_PERMITTED, naming the
        policies the server suggests with."""
        dealt = deal(caller)
        request = api.SuggestActionRequest(state=dealt.state, seat=0, policy="search")
        reply = caller("SuggestAction", request, dealt.seat_tokens[0])
        assert (reply.code, reply.reason) == (DENIED, "SUGGEST_POLICY_NOT_PERMITTED")
        assert "heuristic, random (not search)" in reply.message

    def test_search_is_refused_on_a_hosted_table_too(self, host_caller: Caller) -> None:
        """A seat of a hosted table asks by its table id: the same refusal, the same policies."""
        dealt = deal(host_caller, host=True)
        request = api.SuggestActionRequest(table_id=dealt.table_id, seat=0, policy="search")
        reply = host_caller("SuggestAction", request, dealt.seat_tokens[0])
        assert (reply.code, reply.reason) == (DENIED, "SUGGEST_POLICY_NOT_PERMITTED")
        request.policy = "heuristic"
        assert host_caller.ok("SuggestAction", request, dealt.seat_tokens[0]).action.seat == 0

    def test_the_default_is_the_weaker_bots(self) -> None:
        """The setting's default names heuristic and random, and the policies a setting may
        name are the games' own."""
        assert policy_names(DEFAULT_SUGGEST_POLICIES) == {"heuristic", "random"}
        policies = {name for engine in registry.ENGINES.values() for name in engine.policies}
        assert policies == set(BOT_POLICIES)

    @pytest.mark.parametrize(
        ("allowed", "policy", "permitted"),
        [
            ({"heuristic", "random", "search"}, "search", True),
            (set(), "heuristic", False),
            ({"search"}, "random", False),
        ],
    )
    def test_as_the_setting_says(self, allowed: set[str], policy: str, permitted: bool) -> None:
        """An operator's list decides: search where they allow it, nothing where it is empty."""
        access = Access(SeatTokens((TEST_KEY,)), frozenset(allowed))
        match_id = b"m" * 16
        asked = Asked("ask for the suggested actions", acts_as=0, suggests=policy)
        granted = SeatToken(match_id, 0)
        if permitted:
            assert access.permit(granted, seating(match_id, ()), asked) == 0
        else:
            with pytest.raises(SeatNotPermittedError) as refused:
                access.permit(granted, seating(match_id, ()), asked)
            assert refused.value.reason == "SUGGEST_POLICY_NOT_PERMITTED"
