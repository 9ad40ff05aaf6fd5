"""The GameEngineService servicer: a dispatcher, game-agnostic, in three parts.

Each method decodes its request (``service.calls.decoding``: the game, the engine state, the
seat that acts and its action, the viewer), applies it (the engine call, here, timed into the
call record), and encodes the answer (``service.calls.encoding``). Every method takes its
request's bytes as they arrived: a state's bytes key the state cache as they were sent, and
``ApplyAction``, the call a game makes most, finds the actions decoded before by the bytes
after them and returns its response already serialized, put together from encodings kept from
call to call (``service.calls.caches``). Errors are raised as ``RulesError``; the call path
(``service.calls.call_path``) hands them to the doors, which turn them into statuses in one
place. No game is named here: each is looked up among the registered games
(``service.calls.games``).

With seat tokens required, the decoder asks ``service.trust.access`` whether the call's token
may ask what it asks, before the state is opened and the engine called: a refusal costs no
engine work and tells nothing of the state. With a revision fence, ``ApplyAction`` moves the
game on in the revision store once its answer is ready, and answers only when the store took
the move (``service.trust.revision_fence``).

With a table store, the servicer also hosts games (``service.calls.hosting``): ``NewGame`` with
``host`` keeps one, every call that takes a state takes a table id instead, ``WatchGame`` opens
a stream of a table (its messages come from the worker's ``TableFeed``) and ``GetRecord``
gives a finished table's record.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Any

from engines.errors import IllegalActionError, InvalidSeatError, MalformedActionError
from engines.prng import Rng
from engines.search import SEARCH_POLICY, Budget
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls import caches
from service.calls.caches import DEFAULT_STATE_CACHE_BYTES, Encodings, KnownAction
from service.calls.costs import DEFAULT_COST_LIMITS, CallCosts, CostLimits, bot_cost_us
from service.calls.decoding import (
    DecodedState,
    Decoder,
    Move,
    bot_seed,
    parse,
    split,
    viewer_seat,
)
from service.calls.encoding import Encoder, encode_status, game_info
from service.calls.games import REQUEST_STATE_KEY, Game, registered_games
from service.calls.hosting import Hosting
from service.calls.replay import replay_game
from service.calls.state_cache import StateCache
from service.calls.table_feed import TableFeed
from service.config import DEFAULT_MAX_SEARCH_ITERATIONS, DEFAULT_SUGGEST_POLICIES, policy_names
from service.errors import RequestError
from service.tables.errors import HostingNotConfiguredError
from service.tables.store import TableStore
from service.tables.watchers import Watcher, Watchers
from service.telemetry.observe import CallRecord
from service.trust.access import Access, Asked
from service.trust.revision_fence import RevisionFence, request_digest
from service.trust.sealing import Sealer
from service.trust.seat_tokens import SeatTokens
from service.trust.seats import DEFAULT_POLICY, Seating, bot_seats, seating

#: A request as a servicer method takes it: its bytes as they arrived, or, for callers in the
#: same process, the message (serialized first: one way in).
Request = bytes | Any


def data_of(request: Request) -> bytes:
    """The bytes of ``request``."""
    return request if isinstance(request, bytes) else request.SerializeToString()


class GameEngineServicer:
    """Implements every RPC of ``ordo.v1.GameEngineService``. It holds the worker's tables
    (states, encodings, actions and audiences, see ``service.calls.caches``), which its decoder
    and encoder share. With ``seat_tokens`` (made from the same keys as ``sealer``) it gives
    each new game's seats their tokens, and checks them on every call when
    ``require_seat_tokens`` (its players asking SuggestAction for the ``suggest_policies``
    only); with a ``fence``, every move is fenced by revision. ``plain_wire``
    builds every answer with protobuf's own serializer and keeps no table (the fast paths' slow
    twin, see ``service.calls.encoding``). With a ``table_store`` it hosts games, and streams
    them to at most as many ``watchers`` as the worker allows."""

    def __init__(
        self,
        state_cache_bytes: int = DEFAULT_STATE_CACHE_BYTES,
        sealer: Sealer | None = None,
        require_sealed: bool = False,
        seat_tokens: SeatTokens | None = None,
        require_seat_tokens: bool = False,
        fence: RevisionFence | None = None,
        max_search_iterations: int = DEFAULT_MAX_SEARCH_ITERATIONS,
        plain_wire: bool = False,
        limits: CostLimits = DEFAULT_COST_LIMITS,
        suggest_policies: frozenset[str] = policy_names(DEFAULT_SUGGEST_POLICIES),
        table_store: TableStore | None = None,
        watchers: Watchers | None = None,
    ) -> None:
        if require_sealed and sealer is None:
            raise ValueError("sealed states can be required only with keys to seal them")
        if (require_seat_tokens or fence is not None) and (seat_tokens is None or sealer is None):
            raise ValueError("seat tokens and the revision fence need keys to make match ids")
        if table_store is not None and not (require_seat_tokens and seat_tokens):
            raise ValueError("hosted tables need seat tokens required")
        self.sealer = sealer
        self.seat_tokens = seat_tokens
        self.access = (
            Access(seat_tokens, suggest_policies) if require_seat_tokens and seat_tokens else None
        )
        self.fence = fence
        self.max_search_iterations = max_search_iterations
        self.costs = CallCosts(limits)
        self.games = registered_games()
        self.states = StateCache(0 if plain_wire else state_cache_bytes)
        self.encodings = Encodings(0 if plain_wire else caches.ENCODING_BYTES)
        self.actions: dict[bytes, KnownAction] = {}
        self.audiences: dict[tuple[int, tuple[int, ...] | None], bytes] = {}
        self.decoder = Decoder(
            self.games,
            self.states,
            self.actions,
            0 if plain_wire else caches.ACTION_BYTES,
            sealer,
            require_sealed,
            self.access,
        )
        self.encoder = Encoder(self.states, self.encodings, self.audiences, sealer, plain_wire)
        self.hosting: Hosting | None = None
        if table_store is not None:
            feed = TableFeed(
                table_store,
                table_store.url,
                self.decoder,
                self.encoder,
                watchers or Watchers(4096, 64),
            )
            self.hosting = Hosting(table_store, self.decoder, self.encoder, self._budget, feed)
        self._list_games = api.ListGamesResponse(
            games=[game_info(game, max_search_iterations) for game in self.games.values()],
            hosting=self.hosting is not None,
        )

    def ListGames(
        self, request: Request, call: CallRecord, token: str = ""
    ) -> api.ListGamesResponse:
        parse(api.ListGamesRequest, data_of(request))
        return self._list_games

    def NewGame(self, request: Request, call: CallRecord, token: str = "") -> api.NewGameResponse:
        request = parse(api.NewGameRequest, data_of(request))
        game, options, seed = self.decoder.new_game(request, call)
        start = perf_counter()
        try:
            state = game.engine.new_game(request.seats, seed, options)
            status = game.engine.status(state)
        finally:
            call.engine_seconds += perf_counter() - start
        bots = bot_seats(request.bots, request.seats, game.engine.policies)
        if request.host and self.hosting is None:
            raise HostingNotConfiguredError
        seated, tokens, spectator = self._seating(request, seed, bots)
        call.game_started = True
        response = api.NewGameResponse(
            seed=0 if self.access is not None else seed,
            seat_tokens=tokens,
            spectator_token=spectator,
        )
        if request.host and self.hosting is not None:
            response.table_id, status = self.hosting.host(game, state, seated, call)
            call.game_finished = status.finished
        else:
            self.encoder.fill_state(response.state, game, state, call, seated)
        response.status.CopyFrom(encode_status(status))
        return response

    def ApplyAction(self, request: Request, call: CallRecord, token: str = "") -> bytes:
        """Apply the action; the answer is the serialized ``ApplyActionResponse``."""
        data = data_of(request)
        if data[:1] != REQUEST_STATE_KEY:  # a request of a hosted table leads with no state
            parsed = parse(api.ApplyActionRequest, data)
            if parsed.table_id:
                return self._hosting(token).apply(parsed, call, token)
        move = self.decoder.move(data, call, token)
        given = move.given
        engine = given.game.engine
        action = move.action
        if move.bot is not None:
            asked = move.bot.asked
            budget = self._budget(given.game, asked.search_iterations, asked.search_time_limit_ms)
            action = self._bot_move(given, move.seat, move.bot.policy, move.bot.seed, budget, call)
        if isinstance(move.viewer, int):
            engine.check_seat(given.state, move.viewer)
        start = perf_counter()
        try:
            transition = engine.apply(given.state, move.seat, action)
            status = engine.status(transition.state)
        finally:
            call.engine_seconds += perf_counter() - start
        call.game_finished = status.finished
        answer = self.encoder.apply_response(
            given.game,
            given.state,
            given.parts,
            transition.state,
            status,
            transition.events,
            move.viewer,
            call,
            given.seating,
        )
        if self.fence is not None:
            self._fenced(move, action)
        return answer

    def ValidateAction(
        self, request: Request, call: CallRecord, token: str = ""
    ) -> api.ValidateActionResponse:
        request, given = self._state_of(
            request,
            api.ValidateActionRequest,
            call,
            token,
            lambda request: Asked("validate the actions", acts_as=request.action.seat),
        )
        try:
            seat, action = self.decoder.action(given.game, request.action, call)
            start = perf_counter()
            try:
                given.game.engine.apply(given.state, seat, action)
            finally:
                call.engine_seconds += perf_counter() - start
        except (IllegalActionError, MalformedActionError, InvalidSeatError) as error:
            return api.ValidateActionResponse(
                legal=False, reason=error.reason, message=error.message
            )
        return api.ValidateActionResponse(legal=True)

    def ListLegalActions(
        self, request: Request, call: CallRecord, token: str = ""
    ) -> api.ListLegalActionsResponse:
        request, given = self._state_of(
            request,
            api.ListLegalActionsRequest,
            call,
            token,
            lambda request: Asked("list the legal actions", acts_as=request.seat),
        )
        game, seat = given.game, request.seat
        start = perf_counter()
        try:
            actions = game.engine.legal_actions(given.state, seat)
        finally:
            call.engine_seconds += perf_counter() - start
        encode = game.codec.encode_action
        return api.ListLegalActionsResponse(
            actions=[common.Action(seat=seat, **{game.id: encode(action)}) for action in actions]
        )

    def GetView(self, request: Request, call: CallRecord, token: str = "") -> api.GetViewResponse:
        request, given = self._state_of(
            request,
            api.GetViewRequest,
            call,
            token,
            lambda request: Asked("see", views_as=viewer_seat(request.viewer)),
        )
        game, state, viewer = given.game, given.state, call.seat
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
        self, request: Request, call: CallRecord, token: str = ""
    ) -> api.SuggestActionResponse:
        request, given = self._state_of(
            request,
            api.SuggestActionRequest,
            call,
            token,
            lambda request: Asked(
                "ask for the suggested actions",
                acts_as=request.seat,
                suggests=request.policy or DEFAULT_POLICY,
            ),
        )
        game, seat = given.game, request.seat
        seed = bot_seed(request.seed, seat, given.canonical())
        budget = self._budget(game, request.search_iterations, request.search_time_limit_ms)
        policy = request.policy or DEFAULT_POLICY
        action = self._bot_move(given, seat, policy, seed, budget, call)
        return api.SuggestActionResponse(
            action=common.Action(seat=seat, **{game.id: game.codec.encode_action(action)})
        )

    def ReplayGame(self, request: Request, call: CallRecord, token: str = "") -> bytes:
        """Play a game record through (``service.calls.replay``); the answer is serialized."""
        request = parse(api.ReplayGameRequest, data_of(request))
        return replay_game(
            self.decoder, self.encoder, request, call, self._budget, self.costs, token
        )

    def WatchGame(self, request: Request, call: CallRecord, token: str = "") -> Watcher:
        """Open a stream of a hosted table: the watcher, counted in, that the door feeds
        (``TableFeed.follow``) once it has attached its sink."""
        hosting = self._hosting(token)
        return hosting.watch(parse(api.WatchGameRequest, data_of(request)), call, token)

    def GetRecord(
        self, request: Request, call: CallRecord, token: str = ""
    ) -> api.GetRecordResponse:
        """The record of a hosted table's finished game."""
        hosting = self._hosting(token)
        record: api.GetRecordResponse = hosting.record(
            parse(api.GetRecordRequest, data_of(request)), call, token
        )
        return record

    def _hosting(self, token: str) -> Hosting:
        """The tables of a server that hosts them (the token admitted first, as always)."""
        self.decoder.admit(token)
        if self.hosting is None:
            raise HostingNotConfiguredError
        return self.hosting

    def _state_of(
        self,
        request: Request,
        request_type: Any,
        call: CallRecord,
        token: str,
        asked_by: Callable[[Any], Asked],
    ) -> tuple[Any, DecodedState]:
        """A request that carries a state, parsed, and its state decoded, in the one order of
        every call: the token admitted, the request and its state's envelope parsed, what the
        request asks (``asked_by``) permitted, the state opened."""
        granted = self.decoder.admit(token)
        sent, parsed = split(data_of(request), request_type)
        if parsed.table_id:
            sent = self._hosting(token).state_of(parsed.table_id, sent)
        envelope = self.decoder.envelope(sent)
        asked = asked_by(parsed)
        call.seat = asked.views_as if asked.acts_as is None else asked.acts_as
        return parsed, self.decoder.open(envelope, call, asked, granted)

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

    def _bot_move(
        self,
        given: DecodedState,
        seat: int,
        policy: str,
        seed: int,
        budget: Budget | None,
        call: CallRecord,
    ) -> Any:
        """The action the bot ``policy`` chooses for ``seat``. A search is held to the call's
        budget (``service.calls.costs``): refused before it starts when it asks for more, made
        in its turn among the worker's heavy calls, its worlds counted as it goes, stopped once
        its caller no longer waits."""
        game = given.game
        if policy != SEARCH_POLICY:
            start = perf_counter()
            try:
                return game.engine.suggest(given.state, seat, policy, Rng(seed), budget)
            finally:
                call.engine_seconds += perf_counter() - start
        meter = self.costs.meter(call)
        meter.plan(bot_cost_us(game, policy, budget))
        with self.costs.work(meter):
            start = perf_counter()
            try:
                searched = meter.search(game, budget)
                return game.engine.suggest(given.state, seat, policy, Rng(seed), searched)
            finally:
                call.engine_seconds += perf_counter() - start

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

    def _fenced(self, move: Move, action: Any) -> None:
        """Move the game on in the revision store from the state of ``move``, by the
        ``action`` its seat applied (the bot's choice, for a bot move: a search capped by time
        that chooses otherwise when sent again is another move, never a retry; not its
        viewer); raises when the store refuses or cannot be reached."""
        assert self.fence is not None
        given = move.given
        if not given.seating.match_id:
            raise RequestError(
                "this server fences every game by its match id, and this state has none (it "
                "was sealed before): start a new game",
                "MATCH_ID_MISSING",
            )
        encoded = given.game.codec.encode_action(action).SerializeToString(deterministic=True)
        played = b"action %d " % move.seat + encoded
        self.fence.advance(
            given.seating.match_id, given.state.revision, request_digest(given.seal, played)
        )
