"""``ListGames`` names an enum option's values as people read them (``TAKE_CHEAPEST_ROW``); on
the wire, in JSON (grpcurl) as in binary, each is the value of the option's enum named with the
enum type's prefix in UPPER_SNAKE (``SIX_NIMMT_TOO_LOW_RULE_TAKE_CHEAPEST_ROW``). These tests pin
that rule for every option of every game, so that a UI may build a request from ``ListGames``."""

from __future__ import annotations

import re

from google.protobuf import json_format

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc


def enum_prefix(enum_name: str) -> str:
    """``SixNimmtTooLowRule`` → ``SIX_NIMMT_TOO_LOW_RULE_``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum_name).upper() + "_"


def test_every_listed_enum_value_is_sent_with_its_type_prefix(
    stub: rpc.GameEngineServiceStub,
) -> None:
    """Each enum option's default and allowed values, prefixed, are the enum's values in JSON,
    and a game dealt with each of them carries it."""
    checked = 0
    for game in stub.ListGames(api.ListGamesRequest(), timeout=10).games:
        options_type = common.GameOptions.DESCRIPTOR.fields_by_name[game.id].message_type
        assert options_type is not None
        fields = options_type.fields_by_name
        for option in game.options:
            enum = fields[option.name].enum_type
            if enum is None:
                continue
            prefix = enum_prefix(enum.name)
            named = {value.name for value in enum.values if value.number}
            assert {prefix + value for value in option.allowed_values} == named
            assert option.default_value in option.allowed_values
            for value in option.allowed_values:
                options = json_format.ParseDict(
                    {game.id: {option.name: prefix + value}}, common.GameOptions()
                )
                request = api.NewGameRequest(seats=game.seat_counts[0], seed=1, options=options)
                state = stub.NewGame(request, timeout=10).state
                chosen = getattr(getattr(state, game.id).options, option.name)
                assert enum.values_by_number[chosen].name == prefix + value
                checked += 1
    assert checked >= 10  # two values each: 6 nimmt!'s two rules, Up or Down?'s two, a language
