"""Whole 6 nimmt! games played over gRPC by the server's own bots, with a tally of every call.

The tally is what the server's metrics and access log must agree with: calls per method and
status code, games started and finished, actions applied, actions refused per reason.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

import grpc

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from ordo.v1 import six_nimmt_pb2 as six_nimmt

GAME = "six_nimmt"
TIMEOUT_SECONDS = 30
# One hand of ten turns keeps a game short; a turn is one selection per seat plus at most one
# row choice per seat (Rule 4), so this bounds any game of up to 10 seats.
ONE_HAND = six_nimmt.SixNimmtOptions(end=six_nimmt.SIX_NIMMT_END_RULE_FIXED_HANDS, hands=1)
MAX_ACTIONS = 10 * 10 * 2


class Bots:
    """Plays games and makes calls, each on the next of ``stubs`` in turn, counting them all."""

    def __init__(self, stubs: Sequence[rpc.GameEngineServiceStub]) -> None:
        self.stubs = list(stubs)
        self._turn = itertools.count()
        self.calls: Counter[tuple[str, str]] = Counter()  # (method, status code name)
        self.games_started = 0
        self.games_finished = 0
        self.actions_applied = 0
        self.actions_rejected: Counter[tuple[str, str]] = Counter()  # (game, reason)

    def call(self, method: str, request: Any, stub: rpc.GameEngineServiceStub | None = None) -> Any:
        """Make one call on ``stub`` or the next stub; a failed call is counted and raised again."""
        if stub is None:
            stub = self.stubs[next(self._turn) % len(self.stubs)]
        try:
            response = getattr(stub, method)(request, timeout=TIMEOUT_SECONDS)
        except grpc.RpcError as error:
            self.calls[method, error.code().name] += 1
            raise
        self.calls[method, "OK"] += 1
        return response

    def new_game(self, seed: int, seats: int = 3) -> api.NewGameResponse:
        """Deal a one-hand game."""
        options = common.GameOptions(six_nimmt=ONE_HAND)
        response: api.NewGameResponse = self.call(
            "NewGame", api.NewGameRequest(seats=seats, seed=seed, options=options)
        )
        self.games_started += 1
        return response

    def play(self, seed: int, seats: int = 3) -> list[common.GameState]:
        """Play a whole game, the bots choosing every move; returns every state it went through."""
        new = self.new_game(seed, seats)
        states, status = [new.state], new.status
        for _ in range(MAX_ACTIONS):
            if status.finished:
                self.games_finished += 1
                return states
            seat = status.seats_to_act[0]
            suggested = self.call(
                "SuggestAction", api.SuggestActionRequest(state=states[-1], seat=seat)
            )
            applied = self.call(
                "ApplyAction", api.ApplyActionRequest(state=states[-1], action=suggested.action)
            )
            self.actions_applied += 1
            states.append(applied.state)
            status = applied.status
        raise AssertionError(f"the game of seed {seed} did not end within {MAX_ACTIONS} actions")

    def reject(self, request: api.ApplyActionRequest, game: str, reason: str) -> grpc.RpcError:
        """Make an ApplyAction call that must be refused with ``reason``; returns its error."""
        try:
            self.call("ApplyAction", request)
        except grpc.RpcError as error:
            self.actions_rejected[game, reason] += 1
            return error
        raise AssertionError(f"ApplyAction accepted an action that should fail with {reason}")


def hand(state: common.GameState, seat: int) -> list[int]:
    """The cards of a seat's hand in a 6 nimmt! wire state (hands travel as one flat list)."""
    msg = state.six_nimmt
    start = sum(msg.hand_lengths[:seat])
    return list(msg.hand_cards[start : start + msg.hand_lengths[seat]])


def card_not_in_hand(state: common.GameState, seat: int = 0) -> api.ApplyActionRequest:
    """An ApplyAction request selecting a card the seat does not hold (CARD_NOT_IN_HAND)."""
    held = set(hand(state, seat))
    card = next(card for card in range(1, 105) if card not in held)
    action = common.Action(seat=seat, six_nimmt=six_nimmt.SixNimmtAction(select_card=card))
    return api.ApplyActionRequest(state=state, action=action)


def no_state() -> api.ApplyActionRequest:
    """An ApplyAction request without a state (STATE_NOT_SET, no game)."""
    action = common.Action(seat=0, six_nimmt=six_nimmt.SixNimmtAction(select_card=1))
    return api.ApplyActionRequest(action=action)
