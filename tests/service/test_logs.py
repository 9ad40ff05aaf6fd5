"""The logs: one access line per RPC, the request id, formats and levels, and no hidden state."""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import grpc
import pytest
import structlog

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service import config
from service.calls.servicer import GameEngineServicer
from service.process.worker import worker_observers
from service.telemetry import logs
from service.telemetry.observe import CallRecord
from tests.conformance.drivers import reason_of
from tests.service.bots import GAME, Bots, card_not_in_hand, hand
from tests.service.conftest import StartServer

ACCESS_FIELDS = {
    "event", "level", "timestamp",
    "method", "game", "seat", "code", "reason", "latency_ms", "request_id", "protocol",
}  # fmt: skip
SEED = 0x5EED_0BAD_F00D_CAFE  # distinctive: must never show up in a log
ANSI_ESCAPE = "\x1b["
NANOSECONDS = 1_000_000_000  # in a second


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


WAIT_SECONDS = 10.0  # the longest a test waits for a flush it expects


class Recording(io.StringIO):
    """A stream that keeps each piece written to it, or refuses it while ``refusing``; each
    write, kept or refused, is signalled on ``written``."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []
        self.refused = 0
        self.refusing = False
        self.written = threading.Condition()

    def write(self, text: str) -> int:
        with self.written:
            self.written.notify_all()
            if self.refusing:
                self.refused += 1
                raise OSError("no space left on device")
            self.writes.append(text)
            return super().write(text)

    def wait(self, done: Callable[[], bool]) -> None:
        """Wait until ``done()`` holds after some write (ten seconds at most)."""
        with self.written:
            assert self.written.wait_for(done, timeout=WAIT_SECONDS)


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """Send this process's logs, as JSON lines, to a buffer; restore the defaults afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    buffer = io.StringIO()
    logs.configure("info", "json", buffer)
    yield buffer
    structlog.reset_defaults()
    root.handlers[:] = handlers
    root.setLevel(level)


def lines(buffer: io.StringIO) -> list[dict[str, Any]]:
    """Every line written so far, parsed as JSON."""
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def access_lines(buffer: io.StringIO) -> list[dict[str, Any]]:
    """The access lines written so far."""
    return [line for line in lines(buffer) if line["event"] == "rpc"]


def new_game(stub: Any, seed: int = 7) -> api.NewGameResponse:
    """Deal a 6 nimmt! game for three seats."""
    request = api.NewGameRequest(seats=3, seed=seed, options=common.GameOptions(six_nimmt={}))
    response: api.NewGameResponse = stub.NewGame(request, timeout=10)
    return response


class TestAccessLine:
    """One line per RPC with exactly the listed fields."""

    def test_ok_call(self, start_server: StartServer, log_output: io.StringIO) -> None:
        """A successful call is logged at info with its method, game, code and latency."""
        stub = start_server([logs.AccessLog()])
        new_game(stub)
        (line,) = access_lines(log_output)
        assert line["level"] == "info"
        assert line["method"] == "NewGame"
        assert line["game"] == GAME
        assert line["seat"] is None
        assert line["code"] == "OK"
        assert line["reason"] is None
        assert isinstance(line["latency_ms"], float)
        assert line["latency_ms"] >= 0
        assert re.fullmatch(r"[0-9a-f]{32}", line["request_id"])

    def test_refused_call(self, start_server: StartServer, log_output: io.StringIO) -> None:
        """A refused action is logged with its seat, INVALID_ARGUMENT and the stable reason."""
        stub = start_server([logs.AccessLog()])
        state = new_game(stub).state
        with pytest.raises(grpc.RpcError) as caught:
            stub.ApplyAction(card_not_in_hand(state, seat=1), timeout=10)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        line = access_lines(log_output)[-1]
        assert line["level"] == "info"
        assert (line["method"], line["game"], line["seat"]) == ("ApplyAction", GAME, 1)
        assert (line["code"], line["reason"]) == ("INVALID_ARGUMENT", "CARD_NOT_IN_HAND")

    def test_the_seat_of_each_call(
        self, start_server: StartServer, log_output: io.StringIO
    ) -> None:
        """A call about a seat logs that seat; a spectator's view logs none."""
        stub = start_server([logs.AccessLog()])
        state = new_game(stub).state
        stub.ListLegalActions(api.ListLegalActionsRequest(state=state, seat=2), timeout=10)
        stub.GetView(api.GetViewRequest(state=state, viewer=common.Viewer(seat=1)), timeout=10)
        spectator = common.Viewer(spectator=True)
        stub.GetView(api.GetViewRequest(state=state, viewer=spectator), timeout=10)
        stub.SuggestAction(api.SuggestActionRequest(state=state, seat=0), timeout=10)
        written = [(line["method"], line["seat"]) for line in access_lines(log_output)[1:]]
        assert written == [
            ("ListLegalActions", 2),
            ("GetView", 1),
            ("GetView", None),
            ("SuggestAction", 0),
        ]

    def test_only_the_listed_fields(
        self, start_server: StartServer, log_output: io.StringIO
    ) -> None:
        """Access lines carry the listed fields and nothing else, whatever the call."""
        stub = start_server([logs.AccessLog()])
        state = new_game(stub).state
        stub.ListLegalActions(api.ListLegalActionsRequest(state=state, seat=2), timeout=10)
        with pytest.raises(grpc.RpcError):
            stub.ApplyAction(card_not_in_hand(state), timeout=10)
        written = access_lines(log_output)
        assert [line["method"] for line in written] == [
            "NewGame",
            "ListLegalActions",
            "ApplyAction",
        ]
        assert all(set(line) == ACCESS_FIELDS for line in written)

    def test_one_line_per_call(self, start_server: StartServer, log_output: io.StringIO) -> None:
        """Every call of a whole game, good or refused, writes exactly one access line."""
        bots = Bots([start_server([logs.AccessLog()])])
        state = bots.play(seed=11)[0]
        bots.reject(card_not_in_hand(state), GAME, "CARD_NOT_IN_HAND")
        written = access_lines(log_output)
        assert len(written) == sum(bots.calls.values())
        tally: dict[tuple[str, str], int] = {}
        for line in written:
            tally[line["method"], line["code"]] = tally.get((line["method"], line["code"]), 0) + 1
        assert tally == dict(bots.calls)

    def test_internal_error_is_a_warning(
        self,
        start_server: StartServer,
        log_output: io.StringIO,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """A failure inside the server is logged at warning with code and reason INTERNAL."""

        def fail(self: GameEngineServicer, request: Any, call: CallRecord, token: str) -> NoReturn:
            raise RuntimeError("broken")

        monkeypatch.setattr(GameEngineServicer, "ListGames", fail)
        stub = start_server([logs.AccessLog()])
        with pytest.raises(grpc.RpcError) as caught:
            stub.ListGames(api.ListGamesRequest(), timeout=10)
        assert caught.value.code() == grpc.StatusCode.INTERNAL
        (line,) = access_lines(log_output)
        assert (line["level"], line["code"], line["reason"]) == ("warning", "INTERNAL", "INTERNAL")


class TestRequestId:
    """The request id comes from ``x-request-id``, or is made up, and goes back to the caller."""

    def test_sent_id_comes_back(self, start_server: StartServer, log_output: io.StringIO) -> None:
        """The caller's id is returned in the trailing metadata and written in the access line."""
        stub = start_server([logs.AccessLog()])
        _response, call = stub.ListGames.with_call(
            api.ListGamesRequest(), metadata=(("x-request-id", "trace-42"),), timeout=10
        )
        assert ("x-request-id", "trace-42") in call.trailing_metadata()
        assert access_lines(log_output)[-1]["request_id"] == "trace-42"

    def test_generated_when_absent(
        self, start_server: StartServer, log_output: io.StringIO
    ) -> None:
        """Without an id, each call gets a new one, returned to the caller and logged."""
        stub = start_server([logs.AccessLog()])
        returned = []
        for _ in range(2):
            _response, call = stub.ListGames.with_call(api.ListGamesRequest(), timeout=10)
            returned.append(dict(call.trailing_metadata())["x-request-id"])
        assert all(re.fullmatch(r"[0-9a-f]{32}", rid) for rid in returned)
        assert any(int(rid, 16) >> 64 for rid in returned)  # 128 random bits, not 64
        assert returned[0] != returned[1]
        assert [line["request_id"] for line in access_lines(log_output)] == returned

    def test_returned_on_a_failed_call(
        self, start_server: StartServer, log_output: io.StringIO
    ) -> None:
        """A refused call returns the request id too."""
        stub = start_server([logs.AccessLog()])
        with pytest.raises(grpc.RpcError) as caught:
            stub.NewGame(api.NewGameRequest(), metadata=(("x-request-id", "r-1"),), timeout=10)
        assert ("x-request-id", "r-1") in caught.value.trailing_metadata()  # type: ignore[attr-defined]
        assert access_lines(log_output)[-1]["reason"] == "GAME_NOT_SELECTED"

    def test_long_id_is_cut(self, start_server: StartServer, log_output: io.StringIO) -> None:
        """An id longer than 128 characters is cut to its first 128."""
        stub = start_server([logs.AccessLog()])
        sent = "".join(f"{index:03d}" for index in range(100))  # 300 characters, none alike
        _response, call = stub.ListGames.with_call(
            api.ListGamesRequest(), metadata=(("x-request-id", sent),), timeout=10
        )
        assert dict(call.trailing_metadata())["x-request-id"] == sent[:128]
        assert access_lines(log_output)[-1]["request_id"] == sent[:128]

    def test_empty_id_is_replaced(self, start_server: StartServer, log_output: io.StringIO) -> None:
        """An empty x-request-id counts as none: the call gets a new id."""
        stub = start_server([logs.AccessLog()])
        _response, call = stub.ListGames.with_call(
            api.ListGamesRequest(), metadata=(("x-request-id", ""),), timeout=10
        )
        returned = dict(call.trailing_metadata())["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{32}", returned)
        assert access_lines(log_output)[-1]["request_id"] == returned


class TestNoHiddenState:
    """Hands, decks, seeds and the generator state never reach the logs."""

    @staticmethod
    def assert_nothing_hidden(text: str, states: list[common.GameState]) -> None:
        """Fail when ``text`` holds the seed, a generator state, a hand or a deck of ``states``."""
        assert str(SEED) not in text
        assert f"{SEED:x}" not in text.lower()
        for word in ("hands", "hand_cards", "deck", "rng_state", "selections"):
            assert word not in text
        for state in states:
            hidden = state.six_nimmt
            assert str(hidden.rng_state) not in text
            seats = len(hidden.hand_lengths)
            for cards in [*(hand(state, seat) for seat in range(seats)), hidden.deck]:
                if len(cards) > 1:
                    assert json.dumps(list(cards)) not in text
                    assert json.dumps(list(cards), separators=(",", ":")) not in text
                    assert str(list(cards)) not in text

    def test_whole_game(self, start_server: StartServer, log_output: io.StringIO) -> None:
        """Playing a whole game, with refused actions, logs no hidden part of any state."""
        bots = Bots([start_server([logs.AccessLog()])])
        states = bots.play(seed=SEED)
        for state in states[::7]:
            bots.reject(card_not_in_hand(state), GAME, "CARD_NOT_IN_HAND")
        assert len(access_lines(log_output)) == sum(bots.calls.values())
        self.assert_nothing_hidden(log_output.getvalue(), states)

    def test_unexpected_error(
        self,
        start_server: StartServer,
        log_output: io.StringIO,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """An unexpected error is logged with its type and stack, without request or message."""

        def fail(self: GameEngineServicer, request: Any, call: CallRecord, token: str) -> NoReturn:
            raise RuntimeError(str(request))  # the message quotes the whole request

        monkeypatch.setattr(GameEngineServicer, "GetView", fail)
        stub = start_server([logs.AccessLog()])
        state = new_game(stub, SEED).state
        viewer = common.Viewer(seat=0)
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetView(api.GetViewRequest(state=state, viewer=viewer), timeout=10)
        assert caught.value.code() == grpc.StatusCode.INTERNAL
        assert caught.value.details() == "internal error"
        (error,) = [line for line in lines(log_output) if line["event"] == "unexpected error"]
        assert error["level"] == "error"
        assert error["method"] == "GetView"
        assert (error["game"], error["seat"]) == (None, None)  # the call failed before both
        assert error["request_id"] == access_lines(log_output)[-1]["request_id"]
        assert error["error"] == "RuntimeError"
        assert "in fail" in error["stack"]
        assert "viewer {" not in log_output.getvalue()
        self.assert_nothing_hidden(log_output.getvalue(), [state])


class TestErrorFields:
    """What an unexpected error's line says of it, and that logging it never fails."""

    def test_a_library_error_is_named_with_its_module(self) -> None:
        """A built-in error is named alone; any other with its module, to tell it apart."""
        assert logs.error_fields(RuntimeError("x"))["error"] == "RuntimeError"
        decode_error = json.JSONDecodeError("x", "", 0)
        assert logs.error_fields(decode_error)["error"] == "json.decoder.JSONDecodeError"

    def test_a_failing_log_fails_nothing(self) -> None:
        """A logger that raises (a closed stream) does not make the error worse."""

        class Broken:
            def error(self, event: str, **fields: Any) -> None:
                raise ValueError("I/O operation on closed file")

        logs.log_error(Broken(), "unexpected error", RuntimeError("x"), method="GetView")


class Exploding:
    """An observer that fails in both hooks."""

    def call_started(self, call: CallRecord) -> None:
        raise ValueError(call.method.upper())

    def call_finished(self, call: CallRecord) -> None:
        raise ValueError(call.method.upper())


class TestObserverFailure:
    """A broken observer never breaks a call, nor the observers after it."""

    def test_call_succeeds(self, start_server: StartServer, log_output: io.StringIO) -> None:
        """The call succeeds, the failure is logged once per hook, the next observer runs."""
        stub = start_server([Exploding(), logs.AccessLog()])
        response = stub.ListGames(api.ListGamesRequest(), timeout=10)
        assert GAME in [game.id for game in response.games]
        failures = [line for line in lines(log_output) if line["event"] == "observer failed"]
        assert len(failures) == 2
        assert {line["observer"] for line in failures} == {"Exploding"}
        assert {line["error"] for line in failures} == {"ValueError"}
        assert "LISTGAMES" not in log_output.getvalue()  # the exception's message
        assert access_lines(log_output)[-1]["code"] == "OK"

    def test_refused_call_keeps_its_status(
        self, start_server: StartServer, log_output: io.StringIO
    ) -> None:
        """A refused call still fails with its own code and reason, not an observer's error."""
        stub = start_server([Exploding()])
        with pytest.raises(grpc.RpcError) as caught:
            stub.ApplyAction(api.ApplyActionRequest(), timeout=10)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(caught.value) == "STATE_NOT_SET"


def finished(code: str = "OK") -> CallRecord:
    """A finished call record, as the server hands it to the access log."""
    return CallRecord(method="NewGame", request_id="r-1", game=GAME, code=code, seconds=0.002)


class TestConfigure:
    """Format and level are selectable; auto picks by whether the stream is a terminal."""

    @pytest.fixture(autouse=True)
    def _restore(self) -> Iterator[None]:
        root = logging.getLogger()
        handlers, level = root.handlers[:], root.level
        yield
        structlog.reset_defaults()
        root.handlers[:] = handlers
        root.setLevel(level)

    def test_json(self) -> None:
        """The json format writes one JSON object per line."""
        buffer = io.StringIO()
        logs.configure("info", "json", buffer)
        logs.AccessLog().call_finished(finished())
        (line,) = lines(buffer)
        assert line["event"] == "rpc"
        assert line["latency_ms"] == 2.0

    def test_console(self) -> None:
        """The console format writes readable key=value lines, uncoloured off a terminal."""
        buffer = io.StringIO()
        logs.configure("info", "console", buffer)
        logs.AccessLog().call_finished(finished())
        text = buffer.getvalue()
        assert text.count("\n") == 1
        assert "rpc" in text
        assert "method=NewGame" in text
        assert "request_id=r-1" in text
        assert ANSI_ESCAPE not in text
        with pytest.raises(json.JSONDecodeError):
            json.loads(text)

    def test_auto_off_a_terminal_is_json(self) -> None:
        """Auto writes JSON when the stream is not a terminal."""
        buffer = io.StringIO()
        logs.configure("info", "auto", buffer)
        logs.AccessLog().call_finished(finished())
        assert lines(buffer)[0]["method"] == "NewGame"

    def test_auto_on_a_terminal_is_console(self) -> None:
        """Auto writes coloured console lines on a terminal."""
        terminal = Terminal()
        logs.configure("info", "auto", terminal)
        logs.AccessLog().call_finished(finished())
        assert ANSI_ESCAPE in terminal.getvalue()
        assert not terminal.getvalue().lstrip().startswith("{")

    def test_level(self) -> None:
        """At level warning, ordinary access lines are dropped and server failures kept."""
        buffer = io.StringIO()
        logs.configure("warning", "json", buffer)
        access = logs.AccessLog()
        access.call_finished(finished())
        access.call_finished(finished("INTERNAL"))
        assert [line["code"] for line in lines(buffer)] == ["INTERNAL"]

    @pytest.mark.parametrize("fmt", ["json", "console"])
    def test_one_write_per_line(self, fmt: str) -> None:
        """Each line is written in one piece, so the lines of several workers never interleave."""
        stream = Recording()
        logs.configure("info", fmt, stream)
        access = logs.AccessLog()
        for code in ("OK", "INTERNAL"):
            access.call_finished(finished(code))
        logging.getLogger("grpc").warning("from the standard library")
        assert len(stream.writes) == 3
        assert all(text.count("\n") == 1 and text.endswith("\n") for text in stream.writes)

    def test_standard_logging_is_rendered_too(self) -> None:
        """Records of the standard logging module (grpc's) come out in the same JSON format."""
        buffer = io.StringIO()
        logs.configure("info", "json", buffer)
        logging.getLogger("grpc._server").warning("something about %s", "grpc")
        logging.getLogger("grpc._server").debug("not at this level")
        (line,) = lines(buffer)
        assert line["event"] == "something about grpc"
        assert (line["logger"], line["level"]) == ("grpc._server", "warning")

    def test_standard_logging_follows_the_level(self) -> None:
        """At level debug, the debug records of the standard logging module are written too."""
        buffer = io.StringIO()
        logs.configure("debug", "json", buffer)
        logging.getLogger("grpc._server").debug("a detail")
        (line,) = lines(buffer)
        assert (line["event"], line["level"]) == ("a detail", "debug")


class TestGatheredLines:
    """With a flush delay, access lines are written together, in whole lines, in order."""

    @pytest.fixture
    def stream(self) -> Iterator[Recording]:
        """JSON logs to a stream that keeps each write; the defaults restored afterwards."""
        root = logging.getLogger()
        handlers, level = root.handlers[:], root.level
        stream = Recording()
        logs.configure("info", "json", stream)
        yield stream
        structlog.reset_defaults()
        root.handlers[:] = handlers
        root.setLevel(level)

    @staticmethod
    def calls(count: int) -> list[CallRecord]:
        """Finished calls told apart by their request ids."""
        return [
            CallRecord(method="ApplyAction", request_id=f"call-{index}", game=GAME, seat=1)
            for index in range(count)
        ]

    def test_written_together_on_flush(self, stream: Recording) -> None:
        """Nothing is written before the delay; then every line at once, in call order."""
        access = logs.AccessLog(flush_seconds=60)
        for call in self.calls(5):
            access.call_finished(call)
        assert stream.writes == []
        access.flush()
        assert len(stream.writes) == 1
        assert [line["request_id"] for line in lines(stream)] == [f"call-{i}" for i in range(5)]
        access.close()

    def test_chunks_of_whole_lines(self, stream: Recording) -> None:
        """Many calls are written in batches, in chunks of at most CHUNK_BYTES, each of whole
        lines, so that no write to a shared pipe is split."""
        access = logs.AccessLog(flush_seconds=60)
        for call in self.calls(200):
            access.call_finished(call)
        access.close()
        assert len(stream.writes) > 1
        for text in stream.writes:
            assert len(text.encode()) <= logs.AccessLog.CHUNK_BYTES
            assert text.endswith("\n")
            assert all(json.loads(line)["event"] == "rpc" for line in text.splitlines())
        assert [line["request_id"] for line in lines(stream)] == [f"call-{i}" for i in range(200)]

    def test_a_full_batch_goes_out_at_once(self, stream: Recording) -> None:
        """BATCH_CALLS gathered calls are written at once, without waiting for the delay."""
        access = logs.AccessLog(flush_seconds=60)
        calls = self.calls(logs.AccessLog.BATCH_CALLS)
        for call in calls[:-1]:
            access.call_finished(call)
        assert stream.writes == []
        access.call_finished(calls[-1])
        assert [line["request_id"] for line in lines(stream)] == [call.request_id for call in calls]
        access.close()

    def test_a_chunk_one_byte_too_long_is_split(self, stream: Recording) -> None:
        """Lines that would fill a chunk to one byte past CHUNK_BYTES (newlines included) are
        written in two."""
        chunk_bytes = logs.AccessLog.CHUNK_BYTES

        def size(call: CallRecord) -> int:  # as written, with its newline
            return len(logs.json_access_line(call, "info", "2025-01-01T12:00:00.000000Z")) + 1

        calls = self.calls(chunk_bytes // size(self.calls(1)[0]) - 1)
        used = sum(map(size, calls))
        last = CallRecord(method="ApplyAction", request_id="", game=GAME, seat=1)
        last.request_id = "x" * (chunk_bytes + 1 - used - size(last))
        assert used + size(last) == chunk_bytes + 1
        access = logs.AccessLog(flush_seconds=60)
        for call in [*calls, last]:
            access.call_finished(call)
        access.close()
        assert [len(text.encode()) for text in stream.writes] == [used, size(last)]

    def test_gathered_lines_keep_the_time_of_their_call(
        self, stream: Recording, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A line written after the delay says when its call ended, not when it was written."""
        now = [1_735_732_800 * NANOSECONDS]  # 2025-01-01T12:00:00Z
        monkeypatch.setattr(logs.time, "time_ns", lambda: now[0])
        access = logs.AccessLog(flush_seconds=60)
        access.call_finished(finished())
        now[0] += 5 * NANOSECONDS
        access.close()
        (line,) = access_lines(stream)
        assert line["timestamp"] == "2025-01-01T12:00:00.000000Z"

    def test_a_warning_goes_out_at_once(self, stream: Recording) -> None:
        """A server-side failure is written at once, after the lines gathered before it."""
        access = logs.AccessLog(flush_seconds=60)
        access.call_finished(finished())
        access.call_finished(finished("INTERNAL"))
        assert [line["level"] for line in lines(stream)] == ["info", "warning"]
        access.close()

    def test_written_within_the_delay(self, stream: Recording) -> None:
        """A lone line is written by the flusher soon after its call, without a close."""
        access = logs.AccessLog(flush_seconds=0.02)
        access.call_finished(finished())
        stream.wait(lambda: bool(stream.writes))
        assert len(access_lines(stream)) == 1
        access.close()

    def test_a_closed_stream_at_exit_is_no_error(self, stream: Recording) -> None:
        """Lines left when the process exits after its stream was closed are dropped quietly."""
        access = logs.AccessLog(flush_seconds=60)
        access.call_finished(finished())
        stream.close()
        access._flush_at_exit()
        access.close()  # nothing is left to write

    def test_the_flusher_outlives_a_failing_stream(self, stream: Recording) -> None:
        """Lines a failing stream refuses are lost, not kept; the flusher writes later ones."""
        access = logs.AccessLog(flush_seconds=0.01)
        stream.refusing = True
        access.call_finished(CallRecord(method="ApplyAction", request_id="lost", game=GAME))
        stream.wait(lambda: stream.refused >= 1)  # the flusher tried, and the stream refused
        stream.refusing = False
        access.call_finished(CallRecord(method="ApplyAction", request_id="kept", game=GAME))
        stream.wait(lambda: bool(stream.writes))
        access.close()
        assert [line["request_id"] for line in access_lines(stream)] == ["kept"]

    def test_close_writes_the_rest(self, stream: Recording) -> None:
        """Closing writes the gathered lines; lines after it are written one by one."""
        access = logs.AccessLog(flush_seconds=60)
        access.call_finished(finished())
        access.close()
        assert len(access_lines(stream)) == 1
        access.call_finished(finished())
        assert len(access_lines(stream)) == 2


class TestJsonAccessLine:
    """The access line rendered by hand is the line structlog's JSON renderer would write."""

    @pytest.mark.parametrize(
        "call",
        [
            finished(),
            CallRecord(method="ListGames", request_id="r", seconds=1.5),
            CallRecord(
                method="ApplyAction",
                request_id='quote " backslash \\ tab \t é ✓ \u2028',
                game=GAME,
                seat=0,
                code="INVALID_ARGUMENT",
                reason="CARD_NOT_IN_HAND",
                seconds=0.000_412_5,
                protocol="grpc-web",
            ),
        ],
    )
    def test_same_as_json_dumps(self, call: CallRecord) -> None:
        """Fields, order, escaping and numbers are those of ``json.dumps`` of the same fields."""
        fields = {
            "method": call.method,
            "game": call.game or None,
            "seat": call.seat,
            "code": call.code,
            "reason": call.reason or None,
            "latency_ms": round(call.seconds * 1000, 3),
            "request_id": call.request_id,
            "protocol": call.protocol,
            "event": "rpc",
            "level": "warning",
            "timestamp": "2025-01-01T12:00:00.000001Z",
        }
        line = logs.json_access_line(call, "warning", "2025-01-01T12:00:00.000001Z")
        assert line == json.dumps(fields)

    def test_timestamps_of_several_seconds(self) -> None:
        """The clock formats each time with its own date and time, a second after another."""
        clock = logs._Clock()
        noon = 1_735_732_800  # 2025-01-01T12:00:00Z
        assert clock.format(noon * NANOSECONDS + 123_456_789) == "2025-01-01T12:00:00.123456Z"
        assert clock.format((noon + 61) * NANOSECONDS + 7_000) == "2025-01-01T12:01:01.000007Z"
        assert clock.format((noon + 86_400) * NANOSECONDS) == "2025-01-02T12:00:00.000000Z"

    def test_timestamp(self, log_output: io.StringIO) -> None:
        """The timestamp is ISO 8601 in UTC to the microsecond, like every other line's."""
        logs.AccessLog().call_finished(finished())
        (line,) = access_lines(log_output)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", line["timestamp"])


class TestSettings:
    """``--log-format`` and ``--log-level`` (or their ORDO_* variables) choose the logs."""

    def test_flags(self) -> None:
        """The flags set the format and the level."""
        settings = config.load(["--log-format", "console", "--log-level", "debug"], environ={})
        assert (settings.log_format, settings.log_level) == ("console", "debug")

    def test_environment(self) -> None:
        """ORDO_LOG_FORMAT and ORDO_LOG_LEVEL set them too; flags win."""
        environ = {"ORDO_LOG_FORMAT": "json", "ORDO_LOG_LEVEL": "warning"}
        assert config.load([], environ).log_format == "json"
        assert config.load([], environ).log_level == "warning"
        assert config.load(["--log-level", "error"], environ).log_level == "error"

    def test_defaults(self) -> None:
        """By default the format is auto and the level info."""
        settings = config.load([], environ={})
        assert (settings.log_format, settings.log_level) == ("auto", "info")

    def test_access_log_flush_delay(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The flush delay of the access log is a setting: 100 ms by default, 0 writes each
        line at once, a negative one is refused."""
        assert config.load([], environ={}).access_log_flush_ms == 100
        assert config.load([], {"ORDO_ACCESS_LOG_FLUSH_MS": "0"}).access_log_flush_ms == 0
        assert config.load(["--access-log-flush-ms", "5"], environ={}).access_log_flush_ms == 5
        with pytest.raises(SystemExit):
            config.load(["--access-log-flush-ms", "-1"], environ={})
        assert "flush delay" in capsys.readouterr().err

    def test_a_workers_flush_delay_is_in_milliseconds(self) -> None:
        """A worker's access log gathers its lines for access_log_flush_ms milliseconds."""
        observers = worker_observers(config.Settings(access_log_flush_ms=250))
        (access,) = [observer for observer in observers if isinstance(observer, logs.AccessLog)]
        assert access.flush_seconds == 0.25

    @pytest.mark.parametrize("argv", [["--log-format", "xml"], ["--log-level", "loud"]])
    def test_unknown_values_are_refused(
        self, argv: list[str], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """An unknown format or level stops the server with a usage error."""
        with pytest.raises(SystemExit) as caught:
            config.load(argv, environ={})
        assert caught.value.code == 2
        assert "invalid choice" in capsys.readouterr().err
