"""What an HTTP caller reads when the door refuses: every Connect error body says why in words
(the ErrorInfo in readable form too), refusals before a method included."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from google.rpc import error_details_pb2

from service.doors.http_door import SERVICE_PREFIX
from tests.connect_calls import HttpDoor

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def door(http_address: str) -> Iterator[HttpDoor]:
    """A client of the session server's HTTP door."""
    client = HttpDoor(http_address)
    yield client
    client.close()


def refusal(door: HttpDoor, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    """POST ``body`` to ``path``; the status and the JSON body of the answer."""
    status, got, data = door.post(path, body, headers)
    assert got["content-type"].startswith("application/json"), (status, got, data)
    return status, json.loads(data)


class TestReadableDetails:
    """A method's refusal carries its ErrorInfo in base64 and, readable, in ``debug``."""

    def test_debug_names_the_reason(self, door: HttpDoor) -> None:
        """The ErrorInfo's reason, domain and metadata are in the detail's debug field."""
        status, error = refusal(door, SERVICE_PREFIX + "NewGame", b'{"seats": 2}', JSON)
        assert status == 400
        (detail,) = error["details"]
        assert detail["type"] == "google.rpc.ErrorInfo"
        assert detail["debug"]["reason"] == "GAME_NOT_SELECTED"
        assert detail["debug"]["domain"] == "ordo"
        info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(detail["value"] + "=="))
        assert detail["debug"] == {
            "reason": info.reason,
            "domain": info.domain,
            "metadata": dict(info.metadata),
        }

    def test_debug_holds_only_what_value_holds(self, door: HttpDoor) -> None:
        """A refusal's debug field holds no more than its base64 value does."""
        _, error = refusal(door, SERVICE_PREFIX + "GetView", b"{}", JSON)
        (detail,) = error["details"]
        info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(detail["value"] + "=="))
        assert detail["debug"]["reason"] == info.reason
        assert set(detail["debug"]) == {"reason", "domain", "metadata"}

    def test_the_doors_own_refusals_too(self, door: HttpDoor) -> None:
        """A request the door refuses before the library (an encoding it does not take) carries
        its ErrorInfo readable in ``debug`` as well."""
        headers = {**JSON, "Content-Encoding": "br"}
        status, error = refusal(door, SERVICE_PREFIX + "ListGames", b"{}", headers)
        assert status == 400
        (detail,) = error["details"]
        assert detail["debug"] == {"reason": "MALFORMED_REQUEST", "domain": "ordo", "metadata": {}}


class TestRefusalsBeforeAMethod:
    """The protocol's own refusals come with a Connect error body that says what to do."""

    def test_unknown_method(self, door: HttpDoor) -> None:
        """An unknown method: 404, unimplemented, naming the methods there are."""
        status, error = refusal(door, SERVICE_PREFIX + "Teleport", b"{}", JSON)
        assert status == 404
        assert error["code"] == "unimplemented"
        assert "'Teleport'" in error["message"]
        assert "ApplyAction" in error["message"]
        assert "ListGames" in error["message"]

    @pytest.mark.parametrize(
        "path",
        ["/ordo.v1.GameEngineService/listgames", "/ORDO.V1.GAMEENGINESERVICE/ListGames"],
    )
    def test_wrong_case(self, door: HttpDoor, path: str) -> None:
        """A path in the wrong case is an unknown method (404), with the right path named."""
        status, error = refusal(door, path, b"{}", JSON)
        assert status == 404
        assert error["code"] == "unimplemented"
        assert "/ordo.v1.GameEngineService/ListGames" in error["message"]

    @pytest.mark.parametrize("headers", [{}, {"Content-Type": "text/plain"}])
    def test_missing_or_unknown_content_type(self, door: HttpDoor, headers: dict[str, str]) -> None:
        """No Content-Type, or one no protocol speaks: 415 with a body naming the types."""
        status, got, data = door.post(SERVICE_PREFIX + "ListGames", b"{}", headers)
        assert status == 415
        assert "application/json" in got["accept-post"]
        error = json.loads(data)
        assert error["code"] == "invalid_argument"
        assert "application/json" in error["message"]
        assert headers.get("Content-Type", "none") in error["message"]

    @pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
    def test_another_http_method(self, door: HttpDoor, method: str) -> None:
        """A method called with GET (a browser's address bar) or another HTTP method than POST:
        405 with a body that says to POST JSON, and how with curl."""
        status, got, data = door.request(method, SERVICE_PREFIX + "ListGames")
        assert status == 405
        assert got["content-type"].startswith("application/json")
        error = json.loads(data)
        assert error["code"] == "unimplemented"
        assert error["message"].startswith(f"{method} does not call a method: POST")
        assert f"-d '{{}}' {SERVICE_PREFIX}ListGames" in error["message"]

    def test_another_http_method_on_a_page(self, door: HttpDoor) -> None:
        """A POST where only GET and HEAD read (the playground, health): 405, saying so."""
        status, got, data = door.request("POST", "/healthz", b"{}", JSON)
        assert status == 405
        assert got["allow"] == "GET, HEAD"
        assert data.decode().startswith("Only GET and HEAD read this path")
        assert SERVICE_PREFIX in data.decode()


class TestParseErrors:
    """JSON that does not parse: the message says where and what, before any cut."""

    def test_unknown_field_lists_the_fields(self, door: HttpDoor) -> None:
        """A field the state does not have: the message names it and lists the ones it has."""
        body = b'{"state": {"sixNimmt": {"rows": []}}, "action": {}}'
        status, error = refusal(door, SERVICE_PREFIX + "ApplyAction", body, JSON)
        assert status == 400
        message = error["message"]
        assert '"rows"' in message
        assert "its fields are" in message
        assert "takenLengths" in message  # the last of the state's fields: nothing is cut
        assert "Failed to parse" not in message

    def test_bad_value_names_its_field(self, door: HttpDoor) -> None:
        """A value of the wrong type: the message names the field's path, once."""
        body = b'{"state": {"sixNimmt": {"options": {"hands": "x"}}}, "action": {}}'
        _, error = refusal(door, SERVICE_PREFIX + "ApplyAction", body, JSON)
        assert "state.options.hands: " in error["message"]
        assert "'x'" in error["message"]
        assert error["details"][0]["debug"]["reason"] == "MALFORMED_REQUEST"

    def test_enum_value_without_its_prefix(self, door: HttpDoor) -> None:
        """An enum value sent as ListGames shows it (without its type's prefix): the message
        names the prefixed value to send."""
        body = b'{"seats": 4, "options": {"sixNimmt": {"tooLowRule": "TAKE_CHEAPEST_ROW"}}}'
        status, error = refusal(door, SERVICE_PREFIX + "NewGame", body, JSON)
        assert status == 400
        assert "Invalid enum value TAKE_CHEAPEST_ROW" in error["message"]
        assert error["message"].endswith("send SIX_NIMMT_TOO_LOW_RULE_TAKE_CHEAPEST_ROW")

    def test_unknown_enum_value_lists_the_values(self, door: HttpDoor) -> None:
        """An enum value the type has not at all: the message lists the values it has."""
        body = b'{"seats": 4, "options": {"sixNimmt": {"tooLowRule": "LOWEST"}}}'
        _, error = refusal(door, SERVICE_PREFIX + "NewGame", body, JSON)
        assert error["message"].endswith(
            "its values are SIX_NIMMT_TOO_LOW_RULE_CHOOSE_ROW, "
            "SIX_NIMMT_TOO_LOW_RULE_TAKE_CHEAPEST_ROW"
        )
