"""Two ways to drive any registered game with the same calls: the engine in this process, and the
real server over gRPC. The conformance suite runs every check through both.

Both speak in wire messages (``GameState``, ``Action``, ``GameView``) so that one test body serves
both; the in-process driver translates with the game's codec and calls the engine directly. A
driver over gRPC to a server with state keys holds them too (``sealer``): the states it makes
(re-dealt, with a planted generator state) are sealed as the server's are, with the seating of
the last state it read, and the states it reads are opened first. To a server that requires
seat tokens, it sends each call with the token of the seat the call is for (a spectator's for
a spectator's view): it deals its games itself, from their seeds, as the server would (the
server picks its own seeds), and makes their tokens with the same keys.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from engines import registry
from engines.clock import GameClock
from engines.errors import RulesError
from engines.prng import Rng
from engines.search import Budget
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.clocks import sealed_payload, unsealed_payload
from service.calls.encoding import encode_status
from service.codecs import CODECS
from service.trust.sealing import Sealer
from service.trust.seat_tokens import HEADER, SeatTokens
from service.trust.seats import NO_SEATING, Seating, seating, seating_of


class RefusedError(Exception):
    """A call refused with a stable reason."""

    def __init__(self, reason: str, code: str = "INVALID_ARGUMENT") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class Driver(Protocol):
    """What the conformance suite needs from a way of running a game."""

    name: str
    game_id: str
    refuses_plain: bool

    def new_game(self, seats: int, seed: int) -> common.GameState: ...
    def status(self, state: common.GameState) -> common.GameStatus: ...
    def legal(self, state: common.GameState, seat: int) -> list[common.Action]: ...
    def apply(self, state: common.GameState, action: common.Action) -> api.ApplyActionResponse: ...
    def validate(self, state: common.GameState, action: common.Action) -> tuple[bool, str]: ...
    def view(self, state: common.GameState, seat: int | None) -> common.GameView: ...
    def suggest(
        self, state: common.GameState, seat: int, policy: str, seed: int = 0, iterations: int = 0
    ) -> common.Action: ...


class Codecs:
    """Engine ↔ message translation shared by the drivers and the tests."""

    def __init__(self, game_id: str, sealer: Sealer | None = None) -> None:
        self.game_id = game_id
        self.engine = registry.get(game_id)
        self.codec = CODECS[game_id]
        self.sealer = sealer
        self.seating: Seating = NO_SEATING  # that of the last state read
        self.clock: GameClock | None = None  # that of the last state read
        # Whether plain states are refused before they are read (STATE_NOT_SEALED): so they are
        # by a server that requires seat tokens, which takes sealed states only.
        self.refuses_plain = False

    def to_engine(self, state: common.GameState) -> Any:
        """Decode a state message, sealed or plain, into the engine's state (not validated)."""
        plain = self.unsealed(state)
        return self.codec.decode_state(
            getattr(plain, self.game_id), plain.rules_version, plain.revision
        )

    def unsealed(self, state: common.GameState) -> common.GameState:
        """The plain state of a sealed one (``state`` itself when it is plain)."""
        if not state.sealed:
            return state
        assert self.sealer is not None, "a sealed state, and no keys to open it"
        self.seating = seating_of(state)
        payload = self.sealer.unseal(
            state.sealed, state.game_id, state.rules_version, state.revision, self.seating.fields()
        )
        inner, self.clock = unsealed_payload(payload)
        plain = common.GameState(rules_version=state.rules_version, revision=state.revision)
        getattr(plain, self.game_id).MergeFromString(inner)
        return plain

    def to_message(self, state: Any) -> common.GameState:
        """Encode an engine state as a message, sealed when the driver holds keys."""
        plain = self.to_plain_message(state)
        if self.sealer is None:
            return plain
        sealed = common.GameState(
            rules_version=plain.rules_version,
            revision=plain.revision,
            game_id=self.game_id,
            sealed=self.sealer.seal(
                self.game_id,
                plain.rules_version,
                plain.revision,
                sealed_payload(getattr(plain, self.game_id).SerializeToString(), self.clock),
                self.seating.fields(),
            ),
        )
        sealed.MergeFromString(self.seating.fields())
        return sealed

    def to_plain_message(self, state: Any) -> common.GameState:
        """Encode an engine state as a plain message: what anyone may send, keys or not."""
        return common.GameState(
            rules_version=state.rules_version,
            revision=state.revision,
            **{self.game_id: self.codec.encode_state(state)},
        )

    def action(self, seat: int, action: Any) -> common.Action:
        """Encode an engine action as a message."""
        return common.Action(seat=seat, **{self.game_id: self.codec.encode_action(action)})

    def redeal(self, state: common.GameState, seat: int, seed: int) -> common.GameState:
        """Re-deal what ``seat`` cannot see."""
        return self.to_message(self.engine.redeal(self.to_engine(state), seat, Rng(seed)))

    def with_rng_state(self, state: common.GameState, value: int) -> common.GameState:
        """The same state with its generator state replaced (a sentinel to search views for)."""
        engine_state = self.to_engine(state)
        return self.to_message(dataclasses.replace(engine_state, rng_state=value))


class InProcess(Codecs):
    """Runs the engine in this process."""

    name = "in_process"

    def _state(self, state: common.GameState) -> Any:
        try:
            engine_state = self.to_engine(state)
            self.engine.validate(engine_state)
        except RulesError as error:
            raise RefusedError(error.reason) from None
        return engine_state

    def new_game(self, seats: int, seed: int) -> common.GameState:
        try:
            state = self.engine.new_game(seats, seed, self.engine.default_options())
        except RulesError as error:
            raise RefusedError(error.reason) from None
        return self.to_message(state)

    def status(self, state: common.GameState) -> common.GameStatus:
        return encode_status(self.engine.status(self._state(state)))

    def legal(self, state: common.GameState, seat: int) -> list[common.Action]:
        engine_state = self._state(state)
        try:
            actions = self.engine.legal_actions(engine_state, seat)
        except RulesError as error:
            raise RefusedError(error.reason) from None
        return [self.action(seat, action) for action in actions]

    def apply(self, state: common.GameState, action: common.Action) -> api.ApplyActionResponse:
        engine_state = self._state(state)
        try:
            move = self.codec.decode_action(getattr(action, self.game_id))
            transition = self.engine.apply(engine_state, action.seat, move)
        except RulesError as error:
            raise RefusedError(error.reason) from None
        seats = self.engine.seats(engine_state)
        return api.ApplyActionResponse(
            state=self.to_message(transition.state),
            status=encode_status(self.engine.status(transition.state)),
            events=[
                common.Event(
                    visible_to_seats=range(seats) if event.audience is None else event.audience,
                    public=event.audience is None,
                    **{self.game_id: self.codec.encode_event(event.body)},
                )
                for event in transition.events
            ],
        )

    def validate(self, state: common.GameState, action: common.Action) -> tuple[bool, str]:
        self._state(state)  # a bad state is refused, as by the server, not answered
        try:
            self.apply(state, action)
        except RefusedError as error:
            return False, error.reason
        return True, ""

    def view(self, state: common.GameState, seat: int | None) -> common.GameView:
        engine_state = self._state(state)
        try:
            view = self.engine.view(engine_state, seat)
        except RulesError as error:
            raise RefusedError(error.reason) from None
        return common.GameView(
            status=encode_status(self.engine.status(engine_state)),
            **{self.game_id: self.codec.encode_view(view)},
        )

    def suggest(
        self, state: common.GameState, seat: int, policy: str, seed: int = 0, iterations: int = 0
    ) -> common.Action:
        engine_state = self._state(state)
        budget = Budget(iterations) if iterations else None
        try:
            move = self.engine.suggest(engine_state, seat, policy, Rng(seed or seat + 1), budget)
        except RulesError as error:
            raise RefusedError(error.reason) from None
        return self.action(seat, move)


class OverGrpc(Codecs):
    """Calls the real server over a real channel."""

    name = "grpc"

    def __init__(
        self,
        game_id: str,
        stub: rpc.GameEngineServiceStub,
        sealer: Sealer | None = None,
        tokens: SeatTokens | None = None,
        time_control: common.TimeControl | None = None,
    ) -> None:
        super().__init__(game_id, sealer)
        self.stub = stub
        self.tokens = tokens
        self.time_control = time_control
        self.refuses_plain = tokens is not None

    def _call(
        self, method: Any, request: Any, state: common.GameState | None = None, seat: int = -1
    ) -> Any:
        """Call ``method``; to a server that requires tokens, with that of ``seat`` (-1: a
        spectator's) in the game of ``state`` (of the last state read, for a plain state)."""
        metadata: tuple[tuple[str, str], ...] = ()
        match_id = state.match_id or self.seating.match_id if state is not None else b""
        if self.tokens is not None and match_id:
            token = self.tokens.issue(match_id, None if seat < 0 else seat)
            metadata = ((HEADER, token),)
        try:
            return method(request, timeout=30, metadata=metadata)
        except grpc.RpcError as error:
            raise RefusedError(reason_of(error), error.code().name) from None

    def new_game(self, seats: int, seed: int) -> common.GameState:
        options = common.GameOptions(time_control=self.time_control, **{self.game_id: {}})
        request = api.NewGameRequest(seats=seats, seed=seed, options=options)
        if self.tokens is None:
            return self._call(self.stub.NewGame, request).state  # type: ignore[no-any-return]
        try:
            state = self.engine.new_game(seats, seed, self.engine.default_options())
        except RulesError as error:
            raise RefusedError(error.reason) from None
        self.seating = seating(self.tokens.match_id(request.SerializeToString()), ())
        return self.to_message(state)

    def status(self, state: common.GameState) -> common.GameStatus:
        return self.view(state, None).status

    def legal(self, state: common.GameState, seat: int) -> list[common.Action]:
        request = api.ListLegalActionsRequest(state=state, seat=seat)
        return list(self._call(self.stub.ListLegalActions, request, state, seat).actions)

    def apply(self, state: common.GameState, action: common.Action) -> api.ApplyActionResponse:
        request = api.ApplyActionRequest(state=state, action=action)
        applied: api.ApplyActionResponse = self._call(
            self.stub.ApplyAction, request, state, action.seat
        )
        return applied

    def validate(self, state: common.GameState, action: common.Action) -> tuple[bool, str]:
        request = api.ValidateActionRequest(state=state, action=action)
        response = self._call(self.stub.ValidateAction, request, state, action.seat)
        return response.legal, response.reason

    def view(self, state: common.GameState, seat: int | None) -> common.GameView:
        viewer = common.Viewer(spectator=True) if seat is None else common.Viewer(seat=seat)
        request = api.GetViewRequest(state=state, viewer=viewer)
        answer = self._call(self.stub.GetView, request, state, -1 if seat is None else seat)
        return answer.view  # type: ignore[no-any-return]

    def suggest(
        self, state: common.GameState, seat: int, policy: str, seed: int = 0, iterations: int = 0
    ) -> common.Action:
        request = api.SuggestActionRequest(
            state=state, seat=seat, policy=policy, seed=seed, search_iterations=iterations
        )
        return self._call(self.stub.SuggestAction, request, state, seat).action  # type: ignore[no-any-return]


def reason_of(error: grpc.RpcError) -> str:
    """The ErrorInfo reason of a failed call; fails unless there is exactly one ErrorInfo."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, f"no rich status in {error!r}"
    infos = []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            infos.append(info)
    assert len(infos) == 1, f"expected exactly one ErrorInfo, got {len(infos)}"
    assert infos[0].domain == "ordo"
    return infos[0].reason
