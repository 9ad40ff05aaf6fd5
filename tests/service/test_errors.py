"""Errors leave the server as rich statuses with exactly one ErrorInfo, mapped in one table."""

from __future__ import annotations

import ast
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from engines.errors import IllegalActionError, InvalidStateError, RulesError
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.errors import (
    INTERNAL_REASON,
    MAX_MESSAGE_CHARACTERS,
    MAX_METADATA_CHARACTERS,
    RequestError,
    status_code_of,
    status_of,
)
from tests.conformance.drivers import reason_of

SIX = common.GameOptions(six_nimmt={})
ROOT = Path(__file__).resolve().parents[2]
DETAILS_KEY = "grpc-status-details-bin"


@pytest.fixture
def small_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[rpc.GameEngineServiceStub]:
    """A server with a 4 KiB request limit whose ListGames fails unexpectedly."""
    from service.process.worker import create_server  # noqa: PLC0415

    def broken(self: Any, request: Any, call: Any, token: str) -> Any:
        raise RuntimeError("secret detail that must not reach the caller")

    monkeypatch.setattr(GameEngineServicer, "ListGames", broken)
    settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0, max_request_bytes=4096)
    server, port, _health = create_server(settings)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield rpc.GameEngineServiceStub(channel)
    server.stop(None)


class TestStatusTable:
    """The one table from error kinds to status codes."""

    @pytest.mark.parametrize(
        "error",
        [IllegalActionError("x"), InvalidStateError("x"), RequestError("x"), RulesError("x")],
    )
    def test_every_rules_error_is_invalid_argument(self, error: RulesError) -> None:
        """Illegal actions, bad states and bad requests are the caller's argument."""
        assert status_code_of(error) == grpc.StatusCode.INVALID_ARGUMENT


def raised_reasons() -> set[str]:
    """Every reason the engines and the service can raise, read from their source: each
    ``default_reason`` of an error class, and each reason given to an error where it is raised
    (its second argument or ``reason=``, a string or a module constant)."""
    files = [*ROOT.joinpath("engines").rglob("*.py"), *ROOT.joinpath("service").rglob("*.py")]
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in files]
    constants = {
        node.targets[0].id: node.value.value
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }
    reasons = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "default_reason"
                for target in node.targets
            ):
                assert isinstance(node.value, ast.Constant)
                reasons.add(node.value.value)
            if not isinstance(node, ast.Call):
                continue
            function = node.func
            name = function.id if isinstance(function, ast.Name) else ""
            name = function.attr if isinstance(function, ast.Attribute) else name
            if not (name.endswith("Error") and name in RULES_ERRORS):
                continue
            given = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "reason")]
            for reason in given:
                if isinstance(reason, ast.Constant):
                    reasons.add(reason.value)
                else:
                    assert isinstance(reason, ast.Name), ast.dump(reason)
                    reasons.add(constants[reason.id])
    return reasons


def _rules_errors() -> set[str]:
    """The names of every RulesError class."""
    import engines.errors  # noqa: PLC0415
    import service.errors  # noqa: PLC0415

    names = set()
    for module in (engines.errors, service.errors):
        names.update(
            name
            for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, RulesError)
        )
    return names


RULES_ERRORS = _rules_errors()


class TestReasonsDocumented:
    """docs/errors.md lists every reason an error can carry, and no other."""

    def test_the_readme_table_is_every_reason(self) -> None:
        """The reason column of the errors table is the set of reasons raised in the code."""
        readme = ROOT.joinpath("docs", "errors.md").read_text(encoding="utf-8")
        listed = re.findall(r"^\| `([A-Z_]+)` \| [^|]+ \| [^|]+ \|$", readme, re.MULTILINE)
        assert len(listed) == len(set(listed)), "a reason is listed twice"
        assert set(listed) == raised_reasons()
        assert INTERNAL_REASON not in listed  # the one reason of INTERNAL, told apart


class TestStatusSize:
    """However long an error's text, its status fits the trailing metadata clients accept."""

    def test_long_message_and_metadata_are_cut(self) -> None:
        """A message and a metadata value of 100,000 characters are cut, the reason kept."""
        error = RulesError("\u00e9" * 100_000, "SOME_REASON", policy="\u00e9" * 100_000)
        status = status_of(error)
        # On the wire: grpc-message percent-encoded, the binary details in base64.
        size = len(quote(status.details.encode()))
        size += sum(len(key) + len(value) * 4 // 3 for key, value in status.trailing_metadata)
        assert size < 12 * 1024
        details = status_pb2.Status.FromString(dict(status.trailing_metadata)[DETAILS_KEY])
        info = error_details_pb2.ErrorInfo()
        assert details.details[0].Unpack(info)
        assert info.reason == "SOME_REASON"
        assert info.metadata["policy"].endswith("\u2026")
        assert details.message.endswith("\u2026")

    def test_short_text_is_kept_whole(self) -> None:
        """A message and metadata of ordinary length go out as they are."""
        status = status_of(RulesError("seat 9 does not exist", "INVALID_SEAT", seat="9"))
        assert status.details == "seat 9 does not exist"
        details = status_pb2.Status.FromString(dict(status.trailing_metadata)[DETAILS_KEY])
        info = error_details_pb2.ErrorInfo()
        assert details.details[0].Unpack(info)
        assert (details.message, dict(info.metadata)) == ("seat 9 does not exist", {"seat": "9"})

    def test_cut_to_the_limit_exactly(self) -> None:
        """A text as long as its limit goes out whole; one character longer, it is cut to the
        limit, the last character an ellipsis."""
        for extra, kept in [(0, 0), (1, 1)]:
            message = "m" * (MAX_MESSAGE_CHARACTERS + extra)
            value = "v" * (MAX_METADATA_CHARACTERS + extra)
            status = status_of(RulesError(message, "SOME_REASON", policy=value))
            details = status_pb2.Status.FromString(dict(status.trailing_metadata)[DETAILS_KEY])
            info = error_details_pb2.ErrorInfo()
            assert details.details[0].Unpack(info)
            cut_message = message[: MAX_MESSAGE_CHARACTERS - kept] + "\u2026" * kept
            cut_value = value[: MAX_METADATA_CHARACTERS - kept] + "\u2026" * kept
            assert (details.message, info.metadata["policy"]) == (cut_message, cut_value)


class TestRichStatus:
    """What the caller receives."""

    def test_illegal_action_carries_one_error_info(self, stub: rpc.GameEngineServiceStub) -> None:
        """An illegal action is INVALID_ARGUMENT with the stable reason in one ErrorInfo."""
        state = stub.NewGame(api.NewGameRequest(seats=2, seed=1, options=SIX)).state
        action = common.Action(seat=0, six_nimmt={"choose_row": 1})
        with pytest.raises(grpc.RpcError) as failed:
            stub.ApplyAction(api.ApplyActionRequest(state=state, action=action))
        assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(failed.value) == "NO_ROW_CHOICE_PENDING"

    def test_validate_action_answers_in_the_response(self, stub: rpc.GameEngineServiceStub) -> None:
        """ValidateAction reports an illegal move as legal=false with the same reason."""
        state = stub.NewGame(api.NewGameRequest(seats=2, seed=1, options=SIX)).state
        action = common.Action(seat=0, six_nimmt={"choose_row": 1})
        reply = stub.ValidateAction(api.ValidateActionRequest(state=state, action=action))
        assert (reply.legal, reply.reason) == (False, "NO_ROW_CHOICE_PENDING")
        assert reply.message

    def test_unexpected_failure_is_internal_and_generic(
        self, small_server: rpc.GameEngineServiceStub
    ) -> None:
        """An unexpected exception is INTERNAL with a generic message, and serving goes on."""
        with pytest.raises(grpc.RpcError) as failed:
            small_server.ListGames(api.ListGamesRequest())
        assert failed.value.code() == grpc.StatusCode.INTERNAL
        assert "secret" not in (failed.value.details() or "")
        assert reason_of(failed.value) == "INTERNAL"
        assert small_server.NewGame(api.NewGameRequest(seats=2, seed=1, options=SIX)).state

    def test_request_size_limit(self, small_server: rpc.GameEngineServiceStub) -> None:
        """A request over the size limit is refused with RESOURCE_EXHAUSTED."""
        state = small_server.NewGame(api.NewGameRequest(seats=2, seed=1, options=SIX)).state
        state.six_nimmt.deck.extend(range(5000))
        with pytest.raises(grpc.RpcError) as failed:
            small_server.GetView(
                api.GetViewRequest(state=state, viewer=common.Viewer(spectator=True))
            )
        assert failed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

    def test_concurrency_limit(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Over max_concurrent_rpcs calls at once, a new call is refused with
        RESOURCE_EXHAUSTED; the call in flight goes on."""
        from service.process.worker import create_server  # noqa: PLC0415

        entered, release = threading.Event(), threading.Event()

        def held(self: Any, request: Any, call: Any, token: str) -> api.ListGamesResponse:
            entered.set()
            release.wait(10)
            return api.ListGamesResponse()

        monkeypatch.setattr(GameEngineServicer, "ListGames", held)
        settings = Settings(
            host="127.0.0.1", port=0, workers=1, metrics_port=0, max_concurrent_rpcs=1
        )
        server, port, _health = create_server(settings)
        server.start()
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = rpc.GameEngineServiceStub(channel)
                first = stub.ListGames.future(api.ListGamesRequest(), timeout=10)
                assert entered.wait(10)
                with pytest.raises(grpc.RpcError) as refused:
                    stub.NewGame(api.NewGameRequest(seats=2, seed=1, options=SIX), timeout=5)
                assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                release.set()
                assert first.result(timeout=10) == api.ListGamesResponse()
        finally:
            release.set()
            server.stop(None)
