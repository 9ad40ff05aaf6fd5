"""Version skew: the previous release (``v0.1.0``, checked out from its tag) and this one, side by
side on one revision store with one keys file and seat tokens required, as a rolling upgrade (or
a rollback) runs them. What each makes, the other serves correctly or refuses with a clear
reason; nothing is misread (docs/operations.md, "Upgrades and version skew")."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.rehearsal.stage import previous_release
from ordo import Client, OrdoError
from ordo.records import Recorder
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from tests.e2e.server_process import HOST, ServerProcess, running_server
from tests.redis_server import RedisServer
from tests.state_keys import TEST_KEY, keys_file_text

MOVES = 10
GAME = "six_nimmt"


@dataclass(frozen=True)
class Releases:
    """A server of each release, fenced by one store, and a client of each."""

    previous: Client
    current: Client
    previous_server: ServerProcess
    current_server: ServerProcess


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Releases]:
    """The previous release and this one, with the same keys, seat tokens and store."""
    scratch = tmp_path_factory.mktemp("skew")
    checkout = previous_release(scratch / "previous").root
    keys = scratch / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    settings = {"state_keys_file": str(keys), "require_seat_tokens": "true"}
    store = RedisServer(scratch)
    store.start()
    with ExitStack() as stack:
        stack.callback(store.stop)
        (scratch / "old").mkdir()
        (scratch / "new").mkdir()
        old = stack.enter_context(
            running_server(
                scratch / "old", 1, source=checkout, revision_store=store.url, **settings
            )
        )
        new = stack.enter_context(
            running_server(
                scratch / "new", 1, revision_store=store.url, table_store=store.url, **settings
            )
        )
        yield Releases(
            stack.enter_context(Client(old.target, retries=0)),
            stack.enter_context(Client(new.target, retries=0)),
            old,
            new,
        )


def first_action(client: Client, state: common.GameState, seat: int, token: str) -> common.Action:
    """The first legal action of ``seat``."""
    return client.list_legal_actions(state, seat, seat_token=token).actions[0]


def play_across(
    releases: Releases, dealer: Client
) -> tuple[api.NewGameResponse, list[tuple[common.GameState, common.Action, str]]]:
    """Deal a game on ``dealer`` and play ``MOVES`` moves, each sent to one release and then, the
    same request, to the other (a retry that lands on the other version): both answers must be
    the same bytes. Returns the deal and each move (its state, its action, its token)."""
    dealt = dealer.new_game(GAME, 2)
    state, status = dealt.state, dealt.status
    moves = []
    for number in range(MOVES):
        first, second = (
            (releases.previous, releases.current)
            if number % 2
            else (releases.current, releases.previous)
        )
        seat = status.seats_to_act[0]
        token = dealt.seat_tokens[seat]
        action = first_action(second, state, seat, token)
        applied = first.apply_action(state, action, seat_token=token)
        again = second.apply_action(state, action, seat_token=token)
        assert again.SerializeToString(deterministic=True) == applied.SerializeToString(
            deterministic=True
        )
        moves.append((state, action, token))
        state, status = applied.state, applied.status
    return dealt, moves


class TestStatesAndTokens:
    """States, seat tokens and fence records pass between the releases both ways."""

    @pytest.mark.parametrize("dealer", ["previous", "current"])
    def test_a_game_dealt_by_either_is_played_on_both(
        self, releases: Releases, dealer: str
    ) -> None:
        """A game dealt by either release is played move by move on both, each move's retry on
        the other release answered with the same bytes (its seal, its tokens, its fence entry
        read alike)."""
        play_across(releases, getattr(releases, dealer))

    def test_an_older_state_is_refused_by_both(self, releases: Releases) -> None:
        """A state the game has moved on from (moved on by either release) is refused by both
        with STATE_SUPERSEDED."""
        _dealt, moves = play_across(releases, releases.current)
        state, action, token = moves[-2]
        others = [
            other
            for other in releases.current.list_legal_actions(
                state, action.seat, seat_token=token
            ).actions
            if other != action
        ]
        for client in (releases.previous, releases.current):
            with pytest.raises(OrdoError) as refused:
                client.apply_action(state, others[0], seat_token=token)
            assert refused.value.reason == "STATE_SUPERSEDED"


class TestRecords:
    """Records made with this release's fields replay on the previous one."""

    def test_a_record_kept_with_its_token_replays_on_the_previous_release(
        self, releases: Releases
    ) -> None:
        """A record naming its keeper and their seat token (fields the previous release does not
        know) replays there, with the token sent as the call's, to the same last state."""
        recorder = Recorder(releases.current)
        dealt = recorder.new_game(GAME, 2)
        state, status = dealt.state, dealt.status
        for _ in range(4):
            seat = status.seats_to_act[0]
            token = dealt.seat_tokens[seat]
            applied = recorder.apply_action(
                state, first_action(releases.current, state, seat, token), seat_token=token
            )
            state, status = applied.state, applied.status
        recorder.kept_by(0, dealt.seat_tokens[0])
        replayed = {
            name: client.replay_game(recorder.record, 0).final_state
            for name, client in (("previous", releases.previous), ("current", releases.current))
        }
        assert replayed["previous"] == replayed["current"] == state


class TestBalancers:
    """What a balancer sees of each release."""

    def test_the_previous_release_has_no_readyz(self, releases: Releases) -> None:
        """The previous release answers /readyz with 404 and /healthz with 200: a balancer that
        checks /readyz takes 404 as ready while it serves (HAProxy: rstatus ^(200|404)$)."""
        port = releases.previous_server.http_port
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"http://{HOST}:{port}/readyz", timeout=10)
        assert missing.value.code == 404
        with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=10) as answer:
            assert answer.status == 200


class TestBotMoves:
    """A bot's move is fenced by a different digest in each release."""

    def test_a_bot_move_retried_on_the_other_release_is_superseded(
        self, releases: Releases
    ) -> None:
        """A bot's move applied by one release and sent again to the other is refused with
        STATE_SUPERSEDED (the previous release fenced the request, this one the bot's choice),
        never applied twice; sent again to the release that applied it, it is answered."""
        for first, second in (
            (releases.previous, releases.current),
            (releases.current, releases.previous),
        ):
            dealt = first.new_game(GAME, 2, bots={1: "heuristic"})
            token = dealt.seat_tokens[0]
            assert 1 in dealt.status.seats_to_act  # every seat chooses a card at once
            applied = first.play_bot(dealt.state, 1, seat_token=token)
            with pytest.raises(OrdoError) as refused:
                second.play_bot(dealt.state, 1, seat_token=token)
            assert refused.value.reason == "STATE_SUPERSEDED"
            assert first.play_bot(dealt.state, 1, seat_token=token) == applied


def test_the_checkout_is_the_previous_release(releases: Releases, tmp_path: Path) -> None:
    """The previous release's server is the tag's code: it logs no trust settings in its
    started line, which this release does."""
    old_log = releases.previous_server.log.read_text()
    new_log = releases.current_server.log.read_text()
    assert '"revision_store_reached"' not in old_log
    assert '"revision_store_reached"' in new_log


class TestHostedTables:
    """Hosted tables are this release's alone."""

    def test_the_previous_release_deals_no_table(self, releases: Releases) -> None:
        """NewGame with `host` on the previous release, which does not know the field, deals a
        plain game: a state and no table id (a client that asked for a table can tell)."""
        dealt = releases.previous.new_game(GAME, 2, host=True)
        assert dealt.table_id == ""
        assert dealt.state.sealed

    def test_a_table_call_to_the_previous_release_is_refused(self, releases: Releases) -> None:
        """A call about a table this release hosts, sent to the previous release (which sees a
        call with no state), is refused with INVALID_ARGUMENT STATE_NOT_SEALED, never answered
        about another game; a watch of it with UNIMPLEMENTED."""
        dealt = releases.current.new_game(GAME, 2, host=True)
        assert dealt.table_id
        with pytest.raises(OrdoError) as refused:
            releases.previous.list_legal_actions(dealt.table_id, 0, seat_token=dealt.seat_tokens[0])
        assert (refused.value.code.name, refused.value.reason) == (
            "INVALID_ARGUMENT",
            "STATE_NOT_SEALED",
        )
        old = Client(releases.previous_server.target, retries=0)
        with old, pytest.raises(OrdoError) as unknown:
            next(iter(old.watch_game(dealt.table_id, seat_token=dealt.seat_tokens[0])))
        assert unknown.value.code.name == "UNIMPLEMENTED"
