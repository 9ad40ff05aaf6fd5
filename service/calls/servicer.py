"""The GameEngineService servicer: a dispatcher, game-agnostic, in three parts.

Each method decodes its request (``service.calls.decoding``: the game, the engine state, the seat
that acts and its action, the viewer), applies it (the engine call, here, timed into the call
record), and encodes the answer (``service.calls.encoding``). The seats a request acts and views as
are known once it is decoded, before the engine is called. ``ApplyAction``, the call a game
makes most, takes its request as it arrived and returns its response already serialized (see
``RAW_REQUESTS``): the state's bytes key the state cache as they were sent, the bytes after
them key the actions decoded before, and the answer is put together from encodings kept from
call to call (``service.calls.caches``). Errors are raised as ``RulesError``; the call path
(``service.calls.call_path``) hands them to the doors, which turn them into statuses in one place.
No game is named here: each is looked up among the registered games (``service.calls.games``).

With seat tokens required, each method checks what the call's token grants once its request is
decoded, before the engine is called (``service.trust.seats``): a refusal costs no engine work and
tells nothing of the state. With a revision fence, ``ApplyAction`` moves the game on in the
revision store once its answer is ready, and answers only when the store took the move
(``service.trust.revision_fence``).
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

from engines.errors import IllegalActionError, InvalidSeatError, MalformedActionError
from engines.prng import Rng
from engines.search import DEFAULT_MAX_ITERATIONS, Budget
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls import caches
from service.calls.caches import DEFAULT_STATE_CACHE_BYTES, Encodings, KnownAction
from service.calls.decoding import Decoder, bot_seed, viewer_seat
from service.calls.encoding import Encoder, encode_status, game_info
from service.calls.games import ALL_EVENTS, PUBLIC_EVENTS, Game, registered_games
from service.calls.replay import replay_game
from service.calls.state_cache import StateCache
from service.errors import RequestError
from service.telemetry.observe import CallRecord
from service.trust.revision_fence import RevisionFence, request_digest
from service.trust.sealing import Sealer
from service.trust.seat_tokens import SeatTokens
from service.trust.seats import DEFAULT_POLICY, SeatGuard, Seating, bot_seats, seating

#: The methods that take their request as it arrived, unparsed: ``ApplyAction`` keys the state
#: cache with the state's bytes as sent and parses only the rest when it knows the state.
RAW_REQUESTS = frozenset({"ApplyAction"})


class GameEngineServicer:
    """Implements every RPC of ``ordo.v1.GameEngineService``. It holds the worker's tables
    (states, encodings, actions and audiences, see ``service.calls.caches``), which its decoder and
    encoder share. With ``seat_tokens`` (made from the same keys as ``sealer``) it gives each
    new game's seats their tokens, and checks them on every call when ``require_seat_tokens``;
    with a ``fence``, every move is fenced by revision."""

    def __init__(
        self,
        state_cache_bytes: int = DEFAULT_STATE_CACHE_BYTES,
        sealer: Sealer | None = None,
        require_sealed: bool = False,
        seat_tokens: SeatTokens | None = None,
        require_seat_tokens: bool = False,
        fence: RevisionFence | None = None,
        max_search_iterations: int = DEFAULT_MAX_ITERATIONS,
    ) -> None:
        if require_sealed and sealer is None:
            raise ValueError("sealed states can be required only with keys to seal them")
        if (require_seat_tokens or fence is not None) and (seat_tokens is None or sealer is None):
            raise ValueError("seat tokens and the revision fence need keys to make match ids")
        self.sealer = sealer
        self.seat_tokens = seat_tokens
        self.guard = SeatGuard(seat_tokens) if require_seat_tokens and seat_tokens else None
        self.fence = fence
        self.max_search_iterations = max_search_iterations
        self.games = registered_games()
        self.states = StateCache(state_cache_bytes)
        self.encodings = Encodings(caches.ENCODING_BYTES)
        self.actions: dict[bytes, KnownAction] = {}
        self.audiences: dict[tuple[int, tuple[int, ...] | None], bytes] = {}
        self.decoder = Decoder(
            self.games,
            self.states,
            self.actions,
            caches.ACTION_BYTES,
            sealer,
            require_sealed,
            self.guard,
            keep_seals=fence is not None,
        )
        self.encoder = Encoder(self.states, self.encodings, self.audiences, sealer)
        self._list_games = api.ListGamesResponse(
            games=[game_info(game, max_search_iterations) for game in self.games.values()]
        )

    def ListGames(self, request: api.ListGamesRequest, call: CallRecord) -> api.ListGamesResponse:
        return self._list_games

    def NewGame(self, request: api.NewGameRequest, call: CallRecord) -> api.NewGameResponse:
        if self.guard is not None:
            self.guard.no_seed(request.seed)
        game, options, seed = self.decoder.new_game(request, call)
        start = perf_counter()
        try:
            state = game.engine.new_game(request.seats, seed, options)
            status = game.engine.status(state)
        finally:
            call.engine_seconds += perf_counter() - start
        bots = bot_seats(request.bots, request.seats, game.engine.policies)
        seated, tokens, spectator = self._seating(request, seed, bots)
        call.game_started = True
        response = api.NewGameResponse(
            status=encode_status(status),
            seed=0 if self.guard is not None else seed,
            seat_tokens=tokens,
            spectator_token=spectator,
        )
        self.encoder.fill_state(response.state, game, state, call, seated)
        return response

    def ApplyAction(self, request: api.ApplyActionRequest | bytes, call: CallRecord) -> bytes:
        """Apply the action; the answer is the serialized ``ApplyActionResponse``. The request
        is a message, or its serialized bytes as they arrived (see ``RAW_REQUESTS``)."""
        (
            game,
            state,
            parts,
            seat,
            action,
            viewer,
            policy,
            seed,
            search,
            seating,
            holder,
            bot,
            seal,
        ) = self.decoder.move(request, call)
        if self.guard is not None:
            viewer = self._permitted(holder, seating, bot, seat, viewer)
        engine = game.engine
        if policy is not None:
            budget = self._budget(game, *search)
            start = perf_counter()
            try:
                action = engine.suggest(state, seat, policy, Rng(seed), budget)
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
        answer = self.encoder.apply_response(
            game, state, parts, transition.state, status, transition.events, viewer, call, seating
        )
        if self.fence is not None:
            self._fenced(game, state, seat, action, bot, policy, seed, seating, seal)
        return answer

    def ValidateAction(
        self, request: api.ValidateActionRequest, call: CallRecord
    ) -> api.ValidateActionResponse:
        game, state, _, holder = self.decoder.state(request.state, call)
        if self.guard is not None:
            self.guard.own_seat(holder, request.action.seat, "validate the actions")
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
        game, state, _, holder = self.decoder.state(request.state, call)
        call.seat = request.seat
        if self.guard is not None:
            self.guard.own_seat(holder, request.seat, "list the legal actions")
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
        game, state, _, holder = self.decoder.state(request.state, call)
        viewer = viewer_seat(request.viewer)
        call.seat = viewer
        if self.guard is not None:
            self.guard.viewer(holder, viewer)
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
        game, state, _, holder = self.decoder.state(request.state, call)
        seat = call.seat = request.seat
        if self.guard is not None:
            self.guard.own_seat(holder, seat, "ask for the suggested actions")
        seed = bot_seed(request.seed, seat, request.state, None)
        budget = self._budget(game, request.search_iterations, request.search_time_limit_ms)
        policy = request.policy or DEFAULT_POLICY
        start = perf_counter()
        try:
            action = game.engine.suggest(state, seat, policy, Rng(seed), budget)
        finally:
            call.engine_seconds += perf_counter() - start
        return api.SuggestActionResponse(
            action=common.Action(seat=seat, **{game.id: game.codec.encode_action(action)})
        )

    def ReplayGame(self, request: api.ReplayGameRequest, call: CallRecord) -> bytes:
        """Play a game record through (``service.calls.replay``); the answer is serialized."""
        return replay_game(self.decoder, self.encoder, request, call, self._budget, self.guard)

    def _budget(self, game: Game, iterations: int, time_ms: int) -> Budget | None:
        """The search budget a request asks for (None: the game's default); more iterations
        than this server's maximum are refused, whatever the policy."""
        if iterations > self.max_search_iterations:
            raise RequestError(
                f"search_iterations is {iterations}; this server allows at most "
                f"{self.max_search_iterations}",
                "SEARCH_BUDGET_TOO_LARGE",
                iterations=str(iterations),
                max_iterations=str(self.max_search_iterations),
            )
        info = game.engine.search_info
        if not (iterations or time_ms) or info is None:
            return None
        return Budget(iterations or info.searcher.default_iterations, time_ms)

    # ----------------------------------------------------------------- seats and the fence
    def _seating(
        self, request: api.NewGameRequest, seed: int, bots: tuple[tuple[int, str], ...]
    ) -> tuple[Seating, list[str], str]:
        """A new game's seating (its match id drawn from the deal, its bots), each seat's token
        (empty for a bot's) and the spectator's: none without keys."""
        if self.seat_tokens is None:
            return seating(b"", bots), [], ""
        deal = api.NewGameRequest(
            seats=request.seats,
            seed=seed,
            options=request.options,
            bots=[common.BotSeat(seat=seat, policy=policy) for seat, policy in bots],
        )
        match_id = self.seat_tokens.match_id(deal.SerializeToString(deterministic=True))
        robots = dict(bots)
        issue = self.seat_tokens.issue
        tokens = ["" if seat in robots else issue(match_id, seat) for seat in range(request.seats)]
        return seating(match_id, bots), tokens, issue(match_id, None)

    def _permitted(
        self, holder: int | None, seating: Seating, bot: Any, seat: int, viewer: int
    ) -> int:
        """The viewer of a move of ``seat`` (``bot``: the bot move asked, None for an action)
        once the token's seat (``holder``) may make it: its own seat's action, or the move of
        a bot seat of the game with the game's policy. The events it answers with are the
        token's seat's unless it asked for a spectator's."""
        assert self.guard is not None
        if bot is not None:
            self.guard.bot_move(holder, seating, bot)
        else:
            self.guard.own_seat(holder, seat, "apply the actions")
        if viewer == ALL_EVENTS:
            return PUBLIC_EVENTS if holder is None else holder
        if viewer >= 0:
            self.guard.viewer(holder, viewer)
        return viewer

    def _fenced(
        self,
        game: Game,
        state: Any,
        seat: int,
        action: Any,
        bot: Any,
        policy: str | None,
        seed: int,
        seating: Seating,
        seal: bytes,
    ) -> None:
        """Move the game on in the revision store from ``state``, by this request (its state's
        ``seal`` and its move: the ``action`` of ``seat``, or the ``bot`` move with its
        ``policy`` and ``seed``; not its viewer); raises when the store refuses or cannot be
        reached."""
        assert self.fence is not None
        if not seating.match_id:
            raise RequestError(
                "this server fences every game by its match id, and this state has none (it "
                "was sealed before): start a new game",
                "MATCH_ID_MISSING",
            )
        if bot is not None:
            budget = b"%d %d" % (bot.search_iterations, bot.search_time_limit_ms)
            played = b"bot %d %s %d %s" % (seat, (policy or "").encode(), seed, budget)
        else:
            encoded = game.codec.encode_action(action).SerializeToString(deterministic=True)
            played = b"action %d " % seat + encoded
        self.fence.advance(seating.match_id, state.revision, request_digest(seal, played))
