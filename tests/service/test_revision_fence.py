"""The revision fence on a real ``redis-server``: compare and set in one step, retries
recognised, entries that expire, a store that cannot be reached."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
import redis

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.process.worker import create_server
from service.telemetry.observe import CallRecord
from service.trust.revision_fence import (
    KEY_PREFIX,
    REPLY_SECONDS,
    RevisionFence,
    RevisionStoreOutcomeUnknownError,
    RevisionStoreUnavailableError,
    StateSupersededError,
    request_digest,
)
from service.trust.sealing import Sealer
from tests.conformance.drivers import reason_of
from tests.e2e.server_process import free_port
from tests.redis_server import RedisServer, running_redis
from tests.service.conftest import race
from tests.slow_proxy import SlowProxy
from tests.state_keys import TEST_KEY

GAME = bytes(range(16))
IDLE_SECONDS = 3600.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of the test's own."""
    with running_redis(tmp_path) as server:
        yield server


@pytest.fixture
def fence(store: RedisServer) -> Iterator[RevisionFence]:
    """A fence on the test's store."""
    fence = RevisionFence(store.url, IDLE_SECONDS)
    yield fence
    fence.close()


class TestMovingOn:
    """A game moves on one revision at a time, from its latest state only."""

    def test_a_new_game_moves_on_from_revision_zero(self, fence: RevisionFence) -> None:
        """The first move of a game the store has not seen is taken, and moves it to 1."""
        assert fence.advance(GAME, 0, request_digest(b"s0", b"a")) is False
        assert fence.advance(GAME, 1, request_digest(b"s1", b"b")) is False

    def test_an_older_state_is_refused(self, fence: RevisionFence) -> None:
        """Once a game moved on from a state, another move on that state, or on any older one,
        is refused with STATE_SUPERSEDED."""
        for revision in range(3):
            fence.advance(GAME, revision, request_digest(b"s%d" % revision, b"a"))
        for revision in range(3):
            with pytest.raises(StateSupersededError) as refused:
                fence.advance(GAME, revision, request_digest(b"s%d" % revision, b"other"))
            assert refused.value.reason == "STATE_SUPERSEDED"

    def test_the_request_that_moved_the_game_on_is_a_retry(self, fence: RevisionFence) -> None:
        """The very request that moved the game on last is recognised when sent again, and
        leaves the game where it is; the one before it is not."""
        fence.advance(GAME, 0, request_digest(b"s0", b"a"))
        fence.advance(GAME, 1, request_digest(b"s1", b"b"))
        assert fence.advance(GAME, 1, request_digest(b"s1", b"b")) is True
        assert fence.advance(GAME, 1, request_digest(b"s1", b"b")) is True
        with pytest.raises(StateSupersededError):
            fence.advance(GAME, 0, request_digest(b"s0", b"a"))
        assert fence.advance(GAME, 2, request_digest(b"s2", b"c")) is False

    def test_games_are_fenced_apart(self, fence: RevisionFence) -> None:
        """One game's moves do not move another on."""
        fence.advance(GAME, 0, request_digest(b"s0", b"a"))
        assert fence.advance(bytes(16), 0, request_digest(b"t0", b"a")) is False

    def test_of_moves_raced_on_one_state_exactly_one_succeeds(self, store: RedisServer) -> None:
        """Eight fences (eight replicas) moving the same state on at once: one succeeds, the
        seven others are refused."""
        fences = [RevisionFence(store.url, IDLE_SECONDS) for _ in range(8)]
        results: list[str] = []

        def move(index: int) -> None:
            try:
                fences[index].advance(GAME, 0, request_digest(b"s0", b"move %d" % index))
                results.append("moved")
            except StateSupersededError:
                results.append("refused")

        race(move, len(fences))
        for each in fences:
            each.close()
        assert sorted(results) == ["moved"] + ["refused"] * 7


class TestExpiry:
    """Entries live for the idle time after their game's last move."""

    def test_each_move_sets_the_entry_to_expire_after_the_idle_time(
        self, store: RedisServer
    ) -> None:
        """A move (and a recognised retry) gives the game's entry the idle time to live."""
        fence = RevisionFence(store.url, 90.0)
        inspect = redis.Redis.from_url(store.url)
        fence.advance(GAME, 0, request_digest(b"s0", b"a"))
        assert 89_000 < inspect.pttl(KEY_PREFIX + GAME) <= 90_000
        inspect.pexpire(KEY_PREFIX + GAME, 5_000)
        fence.advance(GAME, 0, request_digest(b"s0", b"a"))
        assert inspect.pttl(KEY_PREFIX + GAME) > 5_000
        fence.close()
        inspect.close()

    def test_a_game_whose_entry_expired_goes_on(
        self, fence: RevisionFence, store: RedisServer
    ) -> None:
        """Once its entry is gone, the game's next state is taken as its latest."""
        for revision in range(3):
            fence.advance(GAME, revision, request_digest(b"s%d" % revision, b"a"))
        inspect = redis.Redis.from_url(store.url)
        inspect.delete(KEY_PREFIX + GAME)
        inspect.close()
        assert fence.advance(GAME, 3, request_digest(b"s3", b"a")) is False


class TestUnreachableStore:
    """A store that does not answer refuses the move, and the game goes on once it is back."""

    def test_no_store_listening_is_unavailable(self) -> None:
        """Nothing listens at the store's address: REVISION_STORE_UNAVAILABLE."""
        fence = RevisionFence(f"redis://127.0.0.1:{free_port()}/0", IDLE_SECONDS)
        with pytest.raises(RevisionStoreUnavailableError) as refused:
            fence.advance(GAME, 0, request_digest(b"s0", b"a"))
        assert refused.value.reason == "REVISION_STORE_UNAVAILABLE"

    def test_a_store_that_restarts_is_unavailable_then_serves(
        self, fence: RevisionFence, store: RedisServer
    ) -> None:
        """The store stops mid-game: the next move is refused as unavailable; once it is back
        (its script and data gone) the game goes on from its latest state."""
        fence.advance(GAME, 0, request_digest(b"s0", b"a"))
        store.stop()
        with pytest.raises(RevisionStoreUnavailableError):
            fence.advance(GAME, 1, request_digest(b"s1", b"b"))
        store.start()
        assert fence.advance(GAME, 1, request_digest(b"s1", b"b")) is False
        with pytest.raises(StateSupersededError):
            fence.advance(GAME, 1, request_digest(b"s1", b"other"))


class TestSlowStore:
    """A store that takes a move but replies too late: the outcome is unknown, and says so."""

    def test_a_late_reply_is_an_unknown_outcome_that_a_retry_settles(
        self, store: RedisServer
    ) -> None:
        """The store's reply comes after the fence's wait: REVISION_STORE_OUTCOME_UNKNOWN (the
        move did go through); the same move again is a retry, another one superseded."""
        proxy = SlowProxy(store.port)
        fence = RevisionFence(proxy.url, IDLE_SECONDS)
        try:
            fence.advance(bytes(16), 0, request_digest(b"t0", b"a"))  # connected, while quick
            proxy.reply_delay = REPLY_SECONDS + 0.5
            with pytest.raises(RevisionStoreOutcomeUnknownError) as unknown:
                fence.advance(GAME, 0, request_digest(b"s0", b"a"))
            assert unknown.value.reason == "REVISION_STORE_OUTCOME_UNKNOWN"
            proxy.reply_delay = 0
            with pytest.raises(StateSupersededError):
                fence.advance(GAME, 0, request_digest(b"s0", b"other"))
            assert fence.advance(GAME, 0, request_digest(b"s0", b"a")) is True
        finally:
            fence.close()
            proxy.close()


@contextmanager
def fenced_server(url: str) -> Iterator[rpc.GameEngineServiceStub]:
    """A stub of a started server with the test key and the revision store at ``url``."""
    settings = Settings(
        host="127.0.0.1",
        port=0,
        workers=1,
        metrics_port=0,
        state_keys=(TEST_KEY,),
        require_sealed=True,
        revision_store=url,
    )
    server, port, _health = create_server(settings)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield rpc.GameEngineServiceStub(channel)
    finally:
        server.stop(None)


class TestFencedServer:
    """A server with a revision store applies no move it cannot fence."""

    def test_a_move_whose_store_replies_late_says_so_and_a_retry_settles_it(
        self, store: RedisServer
    ) -> None:
        """The store takes the move but replies too late: UNAVAILABLE with
        REVISION_STORE_OUTCOME_UNKNOWN; another move on that state is then STATE_SUPERSEDED,
        and the same request again gets the answer."""
        proxy = SlowProxy(store.port)
        try:
            with fenced_server(proxy.url) as stub:
                dealt_options = common.GameOptions(up_or_down={})
                dealt = stub.NewGame(api.NewGameRequest(seats=2, options=dealt_options))
                request = api.ApplyActionRequest(state=dealt.state, bot=api.BotMove(seat=0))
                warm = stub.NewGame(api.NewGameRequest(seats=2, options=dealt_options))
                stub.ApplyAction(api.ApplyActionRequest(state=warm.state, bot=api.BotMove(seat=0)))
                proxy.reply_delay = REPLY_SECONDS + 0.5  # the fence is connected by now
                with pytest.raises(grpc.RpcError) as unknown:
                    stub.ApplyAction(request, timeout=30)
                assert unknown.value.code() == grpc.StatusCode.UNAVAILABLE
                assert reason_of(unknown.value) == "REVISION_STORE_OUTCOME_UNKNOWN"
                proxy.reply_delay = 0
                other = api.ApplyActionRequest(
                    state=dealt.state, bot=api.BotMove(seat=0, policy="random", seed=5)
                )
                with pytest.raises(grpc.RpcError) as superseded:
                    stub.ApplyAction(other, timeout=30)
                assert reason_of(superseded.value) == "STATE_SUPERSEDED"
                assert stub.ApplyAction(request, timeout=30).state.revision == 1
        finally:
            proxy.close()

    def test_a_time_capped_search_sent_again_never_forks_the_game(self, store: RedisServer) -> None:
        """Bot moves searched under a time cap of a few ms (whose choice depends on how many
        worlds the time allowed), each sent again and again: every answer the fence accepts for
        one state holds the same new state, and the others are STATE_SUPERSEDED."""
        bot = api.BotMove(seat=0, policy="search", search_iterations=256, search_time_limit_ms=3)
        options = common.GameOptions(six_nimmt={})
        with fenced_server(store.url) as stub:
            for seed in range(1, 13):
                dealt = stub.NewGame(api.NewGameRequest(seats=4, seed=seed, options=options))
                request = api.ApplyActionRequest(state=dealt.state, bot=bot)
                accepted, refusals = set(), set()
                for _ in range(10):
                    try:
                        answer = stub.ApplyAction(request, timeout=30)
                        accepted.add(answer.state.SerializeToString())
                    except grpc.RpcError as refused:
                        refusals.add(reason_of(refused))
                assert len(accepted) == 1, f"{len(accepted)} states at one revision (seed {seed})"
                assert refusals <= {"STATE_SUPERSEDED"}

    def test_a_state_without_a_match_id_is_refused(self, store: RedisServer) -> None:
        """A sealed state of a game dealt before match ids (sealed without one) is refused with
        MATCH_ID_MISSING, not applied unfenced."""
        sealer = Sealer([TEST_KEY])
        with fenced_server(store.url) as stub:
            old = GameEngineServicer(sealer=sealer).NewGame(
                api.NewGameRequest(seats=2, options=common.GameOptions(up_or_down={})),
                CallRecord("NewGame"),
            )
            assert not old.state.match_id
            request = api.ApplyActionRequest(state=old.state, bot=api.BotMove(seat=0))
            with pytest.raises(grpc.RpcError) as refused:
                stub.ApplyAction(request, timeout=30)
            assert reason_of(refused.value) == "MATCH_ID_MISSING"
            dealt = stub.NewGame(
                api.NewGameRequest(seats=2, options=common.GameOptions(up_or_down={}))
            )
            moved = api.ApplyActionRequest(state=dealt.state, bot=api.BotMove(seat=0))
            assert stub.ApplyAction(moved, timeout=30).state.revision == 1
