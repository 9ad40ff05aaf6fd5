"""The GameEngineService servicer: a dispatcher, game-agnostic, in three parts.

Each method decodes its request (``service.decoding``: the game, the engine state, the seat
that acts and its action, the viewer), applies it (the engine call, here, timed into the call
record), and encodes the answer (``service.encoding``). The seats a request acts and views as
are known once it is decoded, before the engine is called. ``ApplyAction``, the call a game
makes most, takes its request as it arrived and returns its response already serialized (see
``RAW_REQUESTS``): the state's bytes key the state cache as they were sent, the bytes after
them key the actions decoded before, and the answer is put together from encodings kept from
call to call (``service.caches``). Errors are raised as ``RulesError``; the call path
(``service.call_path``) hands them to the doors, which turn them into statuses in one place.
No game is named here: each is looked up among the registered games (``service.games``).
"""

from __future__ import annotations

from time import perf_counter

from engines.errors import IllegalActionError, InvalidSeatError, MalformedActionError
from engines.prng import Rng
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service import caches
from service.caches import DEFAULT_STATE_CACHE_BYTES, Encodings, KnownAction
from service.decoding import DEFAULT_POLICY, Decoder, bot_seed, viewer_seat
from service.encoding import Encoder, encode_status, game_info
from service.games import registered_games
from service.observe import CallRecord
from service.replay import replay_game
from service.sealing import Sealer
from service.state_cache import StateCache

#: The methods that take their request as it arrived, unparsed: ``ApplyAction`` keys the state
#: cache with the state's bytes as sent and parses only the rest when it knows the state.
RAW_REQUESTS = frozenset({"ApplyAction"})


class GameEngineServicer:
    """Implements every RPC of ``ordo.v1.GameEngineService``. It holds the worker's tables
    (states, encodings, actions and audiences, see ``service.caches``), which its decoder and
    encoder share."""

    def __init__(
        self,
        state_cache_bytes: int = DEFAULT_STATE_CACHE_BYTES,
        sealer: Sealer | None = None,
        require_sealed: bool = False,
    ) -> None:
        if require_sealed and sealer is None:
            raise ValueError("sealed states can be required only with keys to seal them")
        self.sealer = sealer
        self.games = registered_games()
        self.states = StateCache(state_cache_bytes)
        self.encodings = Encodings(caches.ENCODING_BYTES)
        self.actions: dict[bytes, KnownAction] = {}
        self.audiences: dict[tuple[int, tuple[int, ...] | None], bytes] = {}
        self.decoder = Decoder(
            self.games, self.states, self.actions, caches.ACTION_BYTES, sealer, require_sealed
        )
        self.encoder = Encoder(self.states, self.encodings, self.audiences, sealer)
        self._list_games = api.ListGamesResponse(
            games=[game_info(game) for game in self.games.values()]
        )

    def ListGames(self, request: api.ListGamesRequest, call: CallRecord) -> api.ListGamesResponse:
        return self._list_games

    def NewGame(self, request: api.NewGameRequest, call: CallRecord) -> api.NewGameResponse:
        game, options, seed = self.decoder.new_game(request, call)
        start = perf_counter()
        try:
            state = game.engine.new_game(request.seats, seed, options)
            status = game.engine.status(state)
        finally:
            call.engine_seconds += perf_counter() - start
        call.game_started = True
        response = api.NewGameResponse(status=encode_status(status), seed=seed)
        self.encoder.fill_state(response.state, game, state, call)
        return response

    def ApplyAction(self, request: api.ApplyActionRequest | bytes, call: CallRecord) -> bytes:
        """Apply the action; the answer is the serialized ``ApplyActionResponse``. The request
        is a message, or its serialized bytes as they arrived (see ``RAW_REQUESTS``)."""
        game, state, parts, seat, action, viewer, policy, seed = self.decoder.move(request, call)
        engine = game.engine
        if policy is not None:
            start = perf_counter()
            try:
                action = engine.suggest(state, seat, policy, Rng(seed))
            finally:
                call.engine_seconds += perf_counter() - start
        if viewer >= 0:
            engine.check_seat(state, viewer)
        start = perf_counter()
        try:
            transition = engine.apply(state, seat, action)
            status = engine.status(transition.state)
        finally:
            call.engine_seconds += perf_counter() - start
        call.game_finished = status.finished
        return self.encoder.apply_response(
            game, state, parts, transition.state, status, transition.events, viewer, call
        )

    def ValidateAction(
        self, request: api.ValidateActionRequest, call: CallRecord
    ) -> api.ValidateActionResponse:
        game, state = self.decoder.state(request.state, call)
        try:
            seat, action = self.decoder.action(game, request.action, call)
            start = perf_counter()
            try:
                game.engine.apply(state, seat, action)
            finally:
                call.engine_seconds += perf_counter() - start
        except (IllegalActionError, MalformedActionError, InvalidSeatError) as error:
            return api.ValidateActionResponse(
                legal=False, reason=error.reason, message=error.message
            )
        return api.ValidateActionResponse(legal=True)

    def ListLegalActions(
        self, request: api.ListLegalActionsRequest, call: CallRecord
    ) -> api.ListLegalActionsResponse:
        game, state = self.decoder.state(request.state, call)
        call.seat = request.seat
        start = perf_counter()
        try:
            actions = game.engine.legal_actions(state, request.seat)
        finally:
            call.engine_seconds += perf_counter() - start
        encode = game.codec.encode_action
        return api.ListLegalActionsResponse(
            actions=[
                common.Action(seat=request.seat, **{game.id: encode(action)}) for action in actions
            ]
        )

    def GetView(self, request: api.GetViewRequest, call: CallRecord) -> api.GetViewResponse:
        game, state = self.decoder.state(request.state, call)
        viewer = viewer_seat(request.viewer)
        call.seat = viewer
        start = perf_counter()
        try:
            if viewer is not None:
                game.engine.check_seat(state, viewer)
            view = game.engine.view(state, viewer)
            status = game.engine.status(state)
        finally:
            call.engine_seconds += perf_counter() - start
        return api.GetViewResponse(
            view=common.GameView(
                status=encode_status(status), **{game.id: game.codec.encode_view(view)}
            )
        )

    def SuggestAction(
        self, request: api.SuggestActionRequest, call: CallRecord
    ) -> api.SuggestActionResponse:
        game, state = self.decoder.state(request.state, call)
        seat = call.seat = request.seat
        seed = bot_seed(request.seed, seat, request.state, None)
        start = perf_counter()
        try:
            action = game.engine.suggest(state, seat, request.policy or DEFAULT_POLICY, Rng(seed))
        finally:
            call.engine_seconds += perf_counter() - start
        return api.SuggestActionResponse(
            action=common.Action(seat=seat, **{game.id: game.codec.encode_action(action)})
        )

    def ReplayGame(self, request: api.ReplayGameRequest, call: CallRecord) -> bytes:
        """Play a game record through (``service.replay``); the answer is serialized."""
        return replay_game(self.decoder, self.encoder, request, call)
