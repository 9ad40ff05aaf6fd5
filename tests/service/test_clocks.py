"""Clocks and absent players: time controls, timeouts claimed when due, absent seats and their
return, through a real server whose clock the tests move by hand (no waiting)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from engines import clock as clocks
from engines import registry
from engines.clock import GameClock, SeatClock, TimeControl
from engines.prng import Rng
from ordo import Client, OrdoError
from ordo.records import Recorder
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1.six_nimmt_pb2 import SixNimmtOptions
from service.calls.clocks import clock_message, encode_clock
from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.process.worker import create_server, new_servicer
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer, StateKey
from tests.conftest import seated_doors
from tests.fake_clock import START_MS, FakeClock
from tests.redis_server import running_redis
from tests.state_keys import TEST_KEY

GAMES = sorted(registry.ENGINES)
LIMIT_MS = 5_000  # a per-move limit of 5 s
BASE_MS, INCREMENT_MS = 60_000, 2_000  # a minute per seat, 2 s more a move
TOLERANCE_MS = 250  # the server's default
PAST_DUE_MS = LIMIT_MS + TOLERANCE_MS
MAX_STEPS = 24  # moves played in each game: enough for several rounds of claims and moves
PER_MOVE = common.TimeControl(move_limit_ms=LIMIT_MS)
BANKED = common.TimeControl(base_ms=BASE_MS, increment_ms=INCREMENT_MS)


@dataclass(frozen=True)
class Clocked:
    """A server whose clock the test moves, and a client of it."""

    clock: FakeClock
    client: Client


@contextmanager
def clocked_server(**settings: Any) -> Iterator[Clocked]:
    """An in-process server with the test state key (sealed states), ``settings`` beside, and
    a fake clock."""
    clock = FakeClock()
    every = Settings(
        **{
            "host": "127.0.0.1",
            "port": 0,
            "workers": 1,
            "metrics_port": 0,
            "state_keys": (TEST_KEY,),
            **settings,
        }
    )
    server, port, _health = create_server(every, servicer=new_servicer(every, clock=clock))
    server.start()
    try:
        with Client(f"127.0.0.1:{port}", retries=0) as client:
            yield Clocked(clock, client)
    finally:
        server.stop(None)


@pytest.fixture(scope="module")
def clocked() -> Iterator[Clocked]:
    """The module's clocked server."""
    with clocked_server() as server:
        yield server


def seat_range(game: str) -> list[tuple[str, int]]:
    """Every game at its fewest and its most seats."""
    info = registry.get(game).info
    return [(game, seats) for seats in sorted({info.min_seats, info.max_seats})]


def refused(error: pytest.ExceptionInfo[OrdoError]) -> tuple[grpc.StatusCode, str]:
    """The code and reason of a refusal."""
    return error.value.code, error.value.reason


def clock_of(client: Client, state: common.GameState) -> common.ClockView:
    """The clocks a spectator sees."""
    return client.get_view(state).view.clock


def play_one(
    client: Client, state: common.GameState, seat: int, rng: Rng
) -> api.ApplyActionResponse:
    """One random legal action of ``seat``."""
    legal = client.list_legal_actions(state, seat).actions
    return client.apply_action(state, rng.choice(list(legal)))


class TestTimeControls:
    """Each kind of time control runs in every game, at its fewest and most seats."""

    @pytest.mark.parametrize(
        ("game", "seats"), [case for game in GAMES for case in seat_range(game)]
    )
    @pytest.mark.parametrize("control", [PER_MOVE, BANKED], ids=["per_move", "base_increment"])
    def test_claims_and_moves_take_turns_to_the_end_or_a_bound(
        self, clocked: Clocked, game: str, seats: int, control: common.TimeControl
    ) -> None:
        """Early claims are refused with the time left, due claims play the seat's move, own
        moves run the clock, and every seat's clock shows in the views."""
        client, clock = clocked.client, clocked.clock
        rng = Rng(seats * 31 + len(game))
        state = client.new_game(game, seats, time_control=control).state
        assert state.sealed
        assert not state.HasField("clock")
        for step in range(MAX_STEPS):
            status = client.get_view(state).view.status
            if status.finished:
                return
            seat = rng.choice(list(status.seats_to_act))
            view = clock_of(client, state)
            assert [entry.running for entry in view.seats] == [
                s in status.seats_to_act for s in range(seats)
            ]
            left = 0
            if view.seats[seat].remaining_ms:  # a seat that still owes may be past its time
                with pytest.raises(OrdoError) as early:
                    client.claim_timeout(state, seat)
                assert refused(early) == (grpc.StatusCode.FAILED_PRECONDITION, "TIMEOUT_NOT_DUE")
                left = int(early.value.metadata["time_left_ms"])
                assert left == view.seats[seat].remaining_ms + TOLERANCE_MS
            if step % 2:
                clock.advance(left or TOLERANCE_MS)
                claimed = client.claim_timeout(state, seat)
                assert claimed.timed_out
                assert claimed.at_ms == clock.now_ms()
                assert claimed.state.revision == state.revision + 1
                state = claimed.state
            else:
                clock.advance(1_000)
                state = play_one(client, state, seat, rng).state
                assert clock_of(client, state).seats[seat].timeouts_in_row == 0

    def test_a_bank_loses_the_time_taken_and_gains_the_increment(self, clocked: Clocked) -> None:
        """With a base and an increment, a seat's bank is what it had, less its move's time,
        plus the increment; a clock that is not running keeps its time."""
        client, clock = clocked.client, clocked.clock
        state = client.new_game("sequence_numbers", 2, time_control=BANKED).state
        seat = client.get_view(state).view.status.seats_to_act[0]
        clock.advance(7_000)
        assert clock_of(client, state).seats[seat].remaining_ms == BASE_MS - 7_000
        state = play_one(client, state, seat, Rng(1)).state
        clock.advance(3_000)
        view = clock_of(client, state)
        assert view.seats[seat].remaining_ms == BASE_MS - 7_000 + INCREMENT_MS
        assert not view.seats[seat].running
        assert view.seats[1 - seat].remaining_ms == BASE_MS - 3_000

    def test_simultaneous_seats_run_their_clocks_at_once(self, clocked: Clocked) -> None:
        """In 6 nimmt!, every seat that still owes its selection has its clock running from
        the same start; one seat's selection stops its own clock only."""
        client, clock = clocked.client, clocked.clock
        state = client.new_game("six_nimmt", 3, time_control=PER_MOVE).state
        clock.advance(2_000)
        state = play_one(client, state, 0, Rng(2)).state
        view = clock_of(client, state)
        assert [seat.running for seat in view.seats] == [False, True, True]
        assert [seat.remaining_ms for seat in view.seats[1:]] == [LIMIT_MS - 2_000] * 2
        clock.advance(LIMIT_MS)
        assert clocked.client.claim_timeout(state, 1).timed_out


class TestClaims:
    """Who may claim, when, and what a claim that lost a race gets."""

    def test_a_game_without_a_time_control_has_no_clock(self, clocked: Clocked) -> None:
        """Without a time control nothing of a clock appears, and a claim is refused."""
        client = clocked.client
        dealt = client.new_game("six_nimmt", 2)
        applied = play_one(client, dealt.state, 0, Rng(3))
        assert applied.at_ms == 0
        assert not client.get_view(applied.state).view.HasField("clock")
        with pytest.raises(OrdoError) as error:
            client.claim_timeout(applied.state, 1)
        assert refused(error) == (grpc.StatusCode.INVALID_ARGUMENT, "NO_TIME_CONTROL")

    def test_a_time_control_out_of_shape_is_refused(self, clocked: Clocked) -> None:
        """Both shapes at once, or a limit under a second, are bad options naming the field."""
        for control in (
            common.TimeControl(move_limit_ms=LIMIT_MS, base_ms=BASE_MS),
            common.TimeControl(move_limit_ms=10),
            common.TimeControl(move_limit_ms=LIMIT_MS, increment_ms=1),
        ):
            with pytest.raises(OrdoError) as error:
                clocked.client.new_game("up_or_down", 2, time_control=control)
            assert error.value.reason == "INVALID_OPTIONS"
            assert error.value.metadata["option"].startswith("time_control.")

    def test_a_claim_that_lost_the_race_gets_the_game_as_it_is(self, clocked: Clocked) -> None:
        """A seat that moved before the claim reached the server is not timed out: the claim
        answers the state it was sent, unchanged, and the game has the seat's own move."""
        client, clock = clocked.client, clocked.clock
        state = client.new_game("up_or_down", 2, time_control=PER_MOVE).state
        seat = client.get_view(state).view.status.seats_to_act[0]
        clock.advance(PAST_DUE_MS)
        moved = play_one(client, state, seat, Rng(4))
        late = client.claim_timeout(moved.state, seat)
        assert not late.timed_out
        assert late.at_ms == 0
        assert late.events == []
        assert late.state.SerializeToString() == moved.state.SerializeToString()
        assert late.status == moved.status

    def test_a_racing_claim_and_move_end_in_one_game(self, clocked: Clocked) -> None:
        """A claim and the seat's own move sent on the same state both answer; the holder of
        the game keeps the first to reach it, and the other, sent again on the game as it now
        is, is answered without a second move (the claim) or refused as not the seat's turn
        (the move)."""
        client, clock = clocked.client, clocked.clock
        state = client.new_game("fora_de_ordem", 2, time_control=PER_MOVE).state
        seat = client.get_view(state).view.status.seats_to_act[0]
        clock.advance(PAST_DUE_MS)
        action = client.list_legal_actions(state, seat).actions[0]
        claimed = client.claim_timeout(state, seat)
        moved = client.apply_action(state, action)
        assert claimed.state.revision == moved.state.revision == state.revision + 1
        again = client.claim_timeout(moved.state, seat)
        assert not again.timed_out
        assert again.state == moved.state
        if seat not in claimed.status.seats_to_act:
            with pytest.raises(OrdoError) as error:
                client.apply_action(claimed.state, action)
            assert error.value.reason == "NOT_SEATS_TURN"

    def test_any_seat_or_the_spectator_may_claim(self) -> None:
        """With seat tokens required, the token of any seat of the game, or the spectator's,
        may claim against another seat, and sees only its own events."""
        clock = FakeClock()
        with seated_doors(clock=clock) as doors, Client(doors.grpc_address, retries=0) as client:
            dealt = client.new_game("six_nimmt", 3, time_control=PER_MOVE)
            clock.advance(PAST_DUE_MS)
            for token in (dealt.seat_tokens[1], dealt.spectator_token):
                claimed = client.claim_timeout(dealt.state, 0, seat_token=token)
                assert claimed.timed_out
            with pytest.raises(OrdoError) as error:
                client.claim_timeout(dealt.state, 0)
            assert error.value.reason == "SEAT_TOKEN_MISSING"


class TestAbsentSeats:
    """A seat that timed out often enough is absent until a move of its own."""

    def test_an_absent_seat_is_played_at_once_and_returns_with_its_own_move(
        self, clocked: Clocked
    ) -> None:
        """Two timeouts in a row (absent_after 2) mark the seat absent; its next move is due
        at once; its own move brings it back with its whole time."""
        client, clock = clocked.client, clocked.clock
        control = common.TimeControl(move_limit_ms=LIMIT_MS, absent_after=2)
        state = client.new_game("six_nimmt", 2, time_control=control).state
        rng = Rng(5)
        for in_row in (1, 2):
            clock.advance(PAST_DUE_MS)
            state = play_one(client, state, 1, rng).state  # seat 2 selects in time
            claimed = client.claim_timeout(state, 0)
            assert claimed.timed_out
            assert claimed.absent == (in_row == 2)
            state = claimed.state
            assert clock_of(client, state).seats[0].timeouts_in_row == in_row
        view = clock_of(client, state)
        assert view.seats[0].absent
        assert view.seats[0].remaining_ms == 0
        assert client.claim_timeout(state, 0).timed_out  # due at once: no time has passed
        state = play_one(client, state, 1, rng).state
        back = play_one(client, state, 0, rng).state
        seat = clock_of(client, back).seats[0]
        assert not seat.absent
        assert seat.timeouts_in_row == 0
        assert seat.remaining_ms == LIMIT_MS


class TestClockIntegrity:
    """A caller can neither read nor change a sealed state's clock; a plain one's is checked."""

    def test_a_clock_set_beside_a_sealed_state_is_refused(self, clocked: Clocked) -> None:
        """Adding a clock of one's own beside the seal (to get more time) is a broken seal."""
        client = clocked.client
        state = client.new_game("up_or_down", 2, time_control=PER_MOVE).state
        forged = common.GameState()
        forged.CopyFrom(state)
        forged.clock.control.move_limit_ms = 86_400_000
        with pytest.raises(OrdoError) as error:
            client.get_view(forged)
        assert error.value.reason == "STATE_SEAL_INVALID"

    def test_a_changed_byte_of_a_clocked_seal_is_refused(self, clocked: Clocked) -> None:
        """Every byte of a sealed state with a clock is bound by its seal."""
        state = clocked.client.new_game("six_nimmt", 2, time_control=PER_MOVE).state
        for position in (-1, len(state.sealed) // 2):
            forged = common.GameState()
            forged.CopyFrom(state)
            sealed = bytearray(state.sealed)
            sealed[position] ^= 1
            forged.sealed = bytes(sealed)
            with pytest.raises(OrdoError) as error:
                clocked.client.claim_timeout(forged, 0)
            assert error.value.reason == "STATE_SEAL_INVALID"

    def test_a_plain_clock_that_no_server_made_is_refused(self) -> None:
        """A plain state's clock that waits for a seat not to act, or began after the
        server's time, is an inconsistent state."""
        clock = FakeClock()
        every = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0)
        server, port, _health = create_server(every, servicer=new_servicer(every, clock=clock))
        server.start()
        try:
            with Client(f"127.0.0.1:{port}", retries=0) as client:
                state = client.new_game("up_or_down", 2, time_control=PER_MOVE).state
                assert state.HasField("clock")
                waiting = [seat.waiting_since_ms for seat in state.clock.seats]
                for seat, since in ((waiting.index(0), clock.now_ms()), (0, clock.now_ms() * 2)):
                    forged = common.GameState()
                    forged.CopyFrom(state)
                    forged.clock.seats[seat].waiting_since_ms = since
                    with pytest.raises(OrdoError) as error:
                        client.get_view(forged)
                    assert error.value.reason == "INVALID_STATE"
        finally:
            server.stop(None)


class TestRecords:
    """Records keep timeouts as what they were, and the times the server stamped."""

    def test_a_record_with_timeouts_replays_to_the_same_bytes(self, clocked: Clocked) -> None:
        """A game of own moves and timeouts, recorded, replays on a server whose clock shows
        another time, and each timeout is a step of the timed-out seat."""
        client, clock = clocked.client, clocked.clock
        recorder = Recorder(client)
        dealt = recorder.new_game("six_nimmt", 2, time_control=BANKED)
        state, to_act = dealt.state, dealt.status.seats_to_act
        rng, seats = Rng(6), []
        answer: api.ApplyActionResponse | api.ClaimTimeoutResponse
        for step in range(8):
            seat = to_act[0]
            seats.append(seat)
            if step % 2 == 0:
                clock.advance(BASE_MS + TOLERANCE_MS)
                answer = recorder.claim_timeout(state, seat)
                assert answer.timed_out
            else:
                clock.advance(500)
                legal = client.list_legal_actions(state, seat).actions
                answer = recorder.apply_action(state, rng.choice(list(legal)))
            state, to_act = answer.state, answer.status.seats_to_act
        kinds = [move.WhichOneof("move") for move in recorder.record.moves]
        assert kinds == ["timeout", "action"] * 4
        assert all(move.at_ms for move in recorder.record.moves)
        clock.advance(123_456)
        replayed = client.replay_game(recorder.record, reveal=False)
        assert replayed.final_state == state
        steps = client.replay_game(recorder.record, common.Viewer(spectator=True)).steps
        assert [step.seat for step in steps[1:]] == seats


class TestClockEncoding:
    """The clock framed by hand is the bytes protobuf writes, and the plain wire agrees."""

    @pytest.mark.parametrize(
        "clock",
        [
            clocks.start(TimeControl(move_limit_ms=LIMIT_MS), 3, (0, 2), START_MS),
            GameClock(
                TimeControl(base_ms=BASE_MS, increment_ms=INCREMENT_MS, absent_after=2),
                (SeatClock(), SeatClock(2**63, 2**40, 7, absent=True), SeatClock(0, 1, 1)),
            ),
        ],
        ids=["per_move", "banked_absent"],
    )
    def test_the_framed_clock_is_protobufs(self, clock: GameClock) -> None:
        """``encode_clock`` writes what protobuf serializes for the same clock."""
        assert encode_clock(clock) == clock_message(clock).SerializeToString()

    @pytest.mark.parametrize("keys", [(), (TEST_KEY,)], ids=["plain", "sealed"])
    def test_the_plain_wire_gives_the_same_bytes(self, keys: tuple[StateKey, ...]) -> None:
        """A game with a clock answers byte for byte the same through the fast paths and
        protobuf's own serializer."""
        answers = []
        for plain_wire in (False, True):
            clock = FakeClock()
            sealer = Sealer(keys) if keys else None
            servicer = GameEngineServicer(sealer=sealer, plain_wire=plain_wire, clock=clock)
            options = common.GameOptions(time_control=BANKED, six_nimmt=SixNimmtOptions())
            dealt = servicer.NewGame(api.NewGameRequest(seats=3, seed=9, options=options), call())
            state, bytes_seen = dealt.state, [dealt.SerializeToString()]
            for seat in range(3):
                clock.advance(1_500)
                legal = servicer.ListLegalActions(
                    api.ListLegalActionsRequest(state=state, seat=seat), call()
                ).actions
                answer = servicer.ApplyAction(
                    api.ApplyActionRequest(state=state, action=legal[0]), call()
                )
                bytes_seen.append(answer)
                state = api.ApplyActionResponse.FromString(answer).state
            answers.append(bytes_seen)
        assert answers[0] == answers[1]


def call() -> CallRecord:
    """A call's record, for a servicer called in this process."""
    return CallRecord(method="test", request_bytes=0, request_id="test", protocol="test")


@pytest.fixture(scope="module")
def fenced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clocked]:
    """A fenced server with a fake clock, on a redis-server of its own."""
    with (
        running_redis(tmp_path_factory.mktemp("fenced-clocks")) as store,
        clocked_server(require_sealed=True, revision_store=store.url) as server,
    ):
        yield server


class TestFencedClocks:
    """With the revision fence, a claim and a move race for one revision, and a retry is
    answered as the first try was, its clock's stamp included."""

    @pytest.mark.parametrize("claim_first", [True, False], ids=["claim_first", "move_first"])
    def test_a_claim_and_a_move_on_one_state_end_in_one_game(
        self, fenced: Clocked, claim_first: bool
    ) -> None:
        """Whichever of a due claim and the seat's own move reaches the fence first moves the
        game on; the other is STATE_SUPERSEDED, and a claim on the game as it now is answers
        it unchanged."""
        client, clock = fenced.client, fenced.clock
        state = client.new_game("sequence_numbers", 2, time_control=PER_MOVE).state
        seat = client.get_view(state).view.status.seats_to_act[0]
        clock.advance(PAST_DUE_MS)
        action = client.list_legal_actions(state, seat).actions[0]
        moves = [
            lambda: client.claim_timeout(state, seat).state,
            lambda: client.apply_action(state, action).state,
        ]
        if not claim_first:
            moves.reverse()
        first = moves[0]()
        with pytest.raises(OrdoError) as lost:
            moves[1]()
        assert lost.value.reason == "STATE_SUPERSEDED"
        again = client.claim_timeout(first, seat)
        assert not again.timed_out
        assert again.state == first

    def test_a_retry_is_answered_with_the_first_stamp(self, fenced: Clocked) -> None:
        """The same move or claim sent again later (its answer lost) gets the same bytes: the
        fence keeps the time the server stamped it first."""
        client, clock = fenced.client, fenced.clock
        state = client.new_game("six_nimmt", 3, time_control=BANKED).state
        clock.advance(1_000)
        action = client.list_legal_actions(state, 0).actions[0]
        first = client.apply_action(state, action)
        clock.advance(5_000)
        again = client.apply_action(state, action)
        assert again.SerializeToString() == first.SerializeToString()
        clock.advance(BASE_MS)
        claimed = client.claim_timeout(first.state, 1)
        clock.advance(7_000)
        assert client.claim_timeout(first.state, 1) == claimed
