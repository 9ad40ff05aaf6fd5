/**
 * The client's calls, whatever carries them: one method per RPC of `ordo.v1.GameEngineService`,
 * one error type, retries, deadlines and request ids. `index.ts` (Node.js) and `web.ts`
 * (browsers) each give it the transports of their platform. On a server that hosts games, every
 * call that takes a state takes a table's id instead, and `watchGame` follows a table: an async
 * iterable (`for await`) that takes a cut stream up again from the last revision it gave.
 */

import {
  create,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import { Code, type Transport } from "@connectrpc/connect";

import { OrdoError } from "./errors.js";
import { GameEngineService } from "./gen/ordo/v1/engine_service_pb.js";
import type {
  ApplyActionResponse,
  GetRecordResponse,
  GetViewResponse,
  ListGamesResponse,
  ListLegalActionsResponse,
  GameRecord,
  NewGameResponse,
  ReplayGameResponse,
  SuggestActionResponse,
  ValidateActionResponse,
  WatchGameResponse,
} from "./gen/ordo/v1/engine_service_pb.js";
import {
  type ActionInput,
  type GameChoice,
  type GameInput,
  gameField,
  gameOptions,
  type StateInput,
} from "./messages.js";
import { newRequestId, REQUEST_ID_KEY, SEAT_TOKEN_KEY } from "./request-id.js";
import { MAX_RECONNECTS, type RetryOptions, RetryPolicy, sleep } from "./retry.js";

/** The settings every client has, on any platform; every one has a default. */
export interface CommonOptions extends RetryOptions {
  /** Each call's deadline in milliseconds, retries included (10 s). */
  timeoutMs?: number;
  /** Headers sent with every call (gRPC metadata). */
  metadata?: Readonly<Record<string, string>>;
  /**
   * The seat token sent with every call (`ordo-seat-token`), to a server that requires seat
   * tokens: one of `NewGameResponse.seatTokens`. A call's own `seatToken` replaces it.
   */
  seatToken?: string;
}

/** What any one call may set. */
export interface CallOptions {
  /** This call's deadline in ms, retries included (the client's `timeoutMs` by default). */
  timeoutMs?: number;
  /** The `x-request-id` to send (a fresh one by default); the server's log lines carry it. */
  requestId?: string;
  /** Cancels the call: it fails with CANCELLED, and is not retried. */
  signal?: AbortSignal;
  /** The seat token of this call (the client's `seatToken` by default; "" sends none). */
  seatToken?: string;
}

/** `newGame`'s optional arguments. */
export interface NewGameOptions extends CallOptions {
  /** The deal's seed; 0 (the default) lets the server pick one (the response says which). */
  seed?: bigint | number;
  /** The game's options message (with a game id): its defaults when left out. */
  options?: object;
  /**
   * The seats bots play, each with its policy ("" for heuristic): `{ 1: "heuristic" }`. Those
   * seats get no seat token; any seat's token may ask for their moves (`playBot`).
   */
  bots?: Readonly<Record<number, string>>;
  /**
   * Have the server keep the game (a server that hosts tables): the response holds its `tableId`
   * and no state, and the bots play their seats by themselves.
   */
  host?: boolean;
}

/** `suggestAction`'s optional arguments. */
export interface SuggestOptions extends CallOptions {
  /** The bot policy, one of the game's `policies` (`heuristic` by default). */
  policy?: string;
  /** The bot's seed; 0 (the default) makes the answer depend on the request alone. */
  seed?: bigint | number;
  /**
   * The `search` policy's iterations (rollouts a candidate move); 0 (the default) is the game's
   * default, and more than the server's maximum is refused (`SEARCH_BUDGET_TOO_LARGE`).
   */
  searchIterations?: number;
  /** A time cap on the `search` policy in milliseconds; 0 (the default) is none. */
  searchTimeLimitMs?: number;
}

/** `applyAction`'s optional arguments. */
export interface ApplyOptions extends CallOptions {
  /**
   * Who is looking: a seat, or "spectator". The response's events are then only those the viewer
   * may see; without a viewer they are every event, each with its audience.
   */
  viewer?: number | "spectator";
  /**
   * On a hosted table, the revision the action was chosen at (the last one seen): the same
   * request sent again is then recognised, never applied twice.
   */
  tableRevision?: bigint | number;
}

/** `watchGame`'s optional arguments. */
export interface WatchOptions {
  /** The last revision seen: the stream starts with the moves after it (the view now without). */
  afterRevision?: bigint | number;
  /** Who watches: the token's own seat (the default), or "spectator". */
  viewer?: number | "spectator";
  /** The `x-request-id` of every attempt (a fresh one by default). */
  requestId?: string;
  /** Ends the watch: the iteration rejects with CANCELLED. */
  signal?: AbortSignal;
  /** The seat token (the client's `seatToken` by default). */
  seatToken?: string;
}

/** `playBot`'s optional arguments. */
export interface PlayBotOptions extends SuggestOptions, ApplyOptions {}

/** `replayGame`'s optional arguments. */
export interface ReplayOptions extends CallOptions {
  /** Who watches: a seat, or "spectator"; each step then holds what it saw. */
  viewer?: number | "spectator";
  /** Every seat's view and every event at each step (finished games only). */
  reveal?: boolean;
  /** The first step of the page (0, the initial state, by default). */
  firstStep?: number;
  /** The most steps in the page (the server's default, 64, when left out; at most 256). */
  pageSize?: number;
  /** The previous page's `nextState`: the page then replays its own moves only. */
  fromState?: StateInput;
}

/** One way to the server, used round-robin with the others, and how to close it. */
export interface Connection {
  transport: Transport;
  close(): void;
}

const methods = GameEngineService.method;

/** The fields of a bot's request that choose its move: policy, seed and search budget. */
function botChoice(init: SuggestOptions): {
  policy: string;
  seed: bigint;
  searchIterations: number;
  searchTimeLimitMs: number;
} {
  return {
    policy: init.policy ?? "heuristic",
    seed: bigintOf(init.seed),
    searchIterations: init.searchIterations ?? 0,
    searchTimeLimitMs: init.searchTimeLimitMs ?? 0,
  };
}

/** The client's calls over `connections`; closing it closes them. */
export class ClientCore {
  readonly timeoutMs: number;
  readonly retryPolicy: RetryPolicy;
  private readonly metadata: Readonly<Record<string, string>>;
  private readonly seatToken: string;
  private readonly connections: readonly Connection[];
  private readonly closing = new AbortController();
  private next = 0;

  protected constructor(connections: readonly Connection[], options: CommonOptions) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!(timeoutMs > 0)) {
      throw new RangeError(`timeoutMs must be positive, not ${timeoutMs}`);
    }
    if (connections.length === 0) {
      throw new RangeError("no connection to a server");
    }
    this.timeoutMs = timeoutMs;
    this.retryPolicy = new RetryPolicy(options);
    this.metadata = { ...options.metadata };
    this.seatToken = options.seatToken ?? "";
    this.connections = connections;
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** The number of distinct connections this client spreads its calls over. */
  get channelCount(): number {
    return this.connections.length;
  }

  /** `using client = new OrdoClient(...)` closes it at the end of the block. */
  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * Close every connection; the client cannot be used afterwards. Calls still in flight end with
   * CANCELLED.
   */
  close(): void {
    if (this.closed) {
      return;
    }
    this.closing.abort(new OrdoError(Code.Canceled, "", "the client was closed"));
    for (const connection of this.connections) {
      connection.close();
    }
  }

  // ------------------------------------------------------------------ RPCs
  /** Every game the server runs, with seat ranges, options and bot policies. */
  listGames(call: CallOptions = {}): Promise<ListGamesResponse> {
    return this.call(methods.listGames, {}, call);
  }

  /**
   * Deal a new game: `game` is a `GameOptions`, or a game id with its `options` (its defaults
   * without them).
   */
  async newGame(
    game: GameChoice,
    seats: number,
    init: NewGameOptions = {},
  ): Promise<NewGameResponse> {
    const options = gameOptions(game, init.options);
    const bots = Object.entries(init.bots ?? {}).map(([seat, policy]) => ({
      seat: Number(seat),
      policy,
    }));
    const request = { options, seats, seed: bigintOf(init.seed), bots, host: init.host ?? false };
    return this.call(methods.newGame, request, init);
  }

  /**
   * Apply one seat's action: the new state, the status and the events (only those `viewer` may
   * see, when given).
   */
  applyAction(
    state: GameInput,
    action: ActionInput,
    init: ApplyOptions = {},
  ): Promise<ApplyActionResponse> {
    const request = {
      ...gameField(state),
      action,
      viewer: viewerOf(init.viewer),
      tableRevision: bigintOf(init.tableRevision),
    };
    return this.call(methods.applyAction, request, init);
  }

  /**
   * Apply the move a bot chooses for `seat` (as `suggestAction` would choose it) without showing
   * the move: the events are those `viewer` may see, as in `applyAction`. Without a `policy`,
   * the bot plays the one the game's `bots` gave the seat (`heuristic` for any other seat).
   */
  playBot(
    state: StateInput,
    seat: number,
    init: PlayBotOptions = {},
  ): Promise<ApplyActionResponse> {
    const bot = { seat, ...botChoice(init), policy: init.policy ?? "" };
    return this.call(methods.applyAction, { state, bot, viewer: viewerOf(init.viewer) }, init);
  }

  /** Whether `applyAction` would accept the action, and why not. */
  validateAction(
    state: GameInput,
    action: ActionInput,
    call: CallOptions = {},
  ): Promise<ValidateActionResponse> {
    return this.call(methods.validateAction, { ...gameField(state), action }, call);
  }

  /** Every legal action of `seat` now (none when it is not to act). */
  listLegalActions(
    state: GameInput,
    seat: number,
    call: CallOptions = {},
  ): Promise<ListLegalActionsResponse> {
    return this.call(methods.listLegalActions, { ...gameField(state), seat }, call);
  }

  /** What `seat` may see of the game; a spectator's view when `seat` is null or left out. */
  getView(
    state: GameInput,
    seat: number | null = null,
    call: CallOptions = {},
  ): Promise<GetViewResponse> {
    const request = { ...gameField(state), viewer: viewerOf(seat ?? "spectator") };
    return this.call(methods.getView, request, call);
  }

  /** A bot's action for `seat`. */
  async suggestAction(
    state: GameInput,
    seat: number,
    init: SuggestOptions = {},
  ): Promise<SuggestActionResponse> {
    const request = { ...gameField(state), seat, ...botChoice(init) };
    return this.call(methods.suggestAction, request, init);
  }

  /**
   * Play a game record through: its last state and status and, for a `viewer` or with `reveal`,
   * one page of steps from `firstStep` (`replaySteps` walks every page).
   */
  replayGame(record: GameRecord, init: ReplayOptions = {}): Promise<ReplayGameResponse> {
    const request = {
      record,
      viewer: viewerOf(init.viewer),
      reveal: init.reveal ?? false,
      firstStep: init.firstStep ?? 0,
      pageSize: init.pageSize ?? 0,
      fromState: init.fromState,
    };
    // The record's own token (its keeper's) goes when the call names none.
    const token = init.seatToken ?? (record.seatToken || undefined);
    return this.call(methods.replayGame, request, { ...init, seatToken: token });
  }

  /** The record of a hosted table's game, once it is over. */
  getRecord(tableId: string, call: CallOptions = {}): Promise<GetRecordResponse> {
    return this.call(methods.getRecord, { tableId }, call);
  }

  /**
   * Every revision of a hosted table as the token's seat (or `viewer`) sees it, for
   * `for await`: the view now (or each move after `afterRevision`), then each move, until the
   * game is over. A stream cut on its way (a server that stops, a lost connection, a store out
   * of reach for a moment) is taken up again from the last revision given, after a pause that
   * doubles as the retries' do; it gives up after `MAX_RECONNECTS` attempts in a row that brought
   * no message. Leaving the loop (or `signal`) ends the stream.
   */
  async *watchGame(tableId: string, init: WatchOptions = {}): AsyncGenerator<WatchGameResponse> {
    const requestId = init.requestId || newRequestId();
    const headers = this.headers(requestId, init.seatToken);
    const signal = init.signal
      ? AbortSignal.any([this.closing.signal, init.signal])
      : this.closing.signal;
    let after = init.afterRevision === undefined ? undefined : BigInt(init.afterRevision);
    let failures = 0; // in a row, without a message
    for (;;) {
      const stream = new AbortController();
      const { transport } = this.connections[this.next++ % this.connections.length];
      const request = { tableId, afterRevision: after, viewer: viewerOf(init.viewer) };
      try {
        const response = await transport.stream(
          methods.watchGame,
          AbortSignal.any([signal, stream.signal]),
          undefined,
          headers,
          once(encodable(methods.watchGame.input, request)),
        );
        for await (const message of response.message) {
          after = message.revision;
          failures = 0;
          yield message;
        }
        return;
      } catch (error) {
        const failure = signal.aborted
          ? cancelled(signal, requestId)
          : OrdoError.from(error, requestId);
        failures += 1;
        if (signal.aborted || failures >= MAX_RECONNECTS || !this.retryPolicy.reconnects(failure)) {
          throw failure;
        }
      } finally {
        stream.abort();
      }
      try {
        await sleep(this.retryPolicy.pause(failures - 1), signal);
      } catch {
        throw cancelled(signal, requestId);
      }
    }
  }

  // ------------------------------------------------------------------ calls
  /** The headers of a call: the client's, its request id and its seat token. */
  private headers(requestId: string, seatToken: string | undefined): Headers {
    const headers = new Headers(this.metadata);
    headers.set(REQUEST_ID_KEY, requestId);
    const token = seatToken ?? this.seatToken;
    if (token) {
      headers.set(SEAT_TOKEN_KEY, token);
    }
    return headers;
  }

  /**
   * Send a request, retrying as the retry policy says within the deadline. A request that
   * cannot be encoded (a negative seat, a seed past 64 bits) rejects with a `RangeError` before
   * anything is sent.
   */
  private async call<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    init: MessageInitShape<I>,
    options: CallOptions,
  ): Promise<MessageShape<O>> {
    if (this.closed) {
      throw new Error("the client is closed");
    }
    const request = encodable(method.input, init);
    const requestId = options.requestId || newRequestId();
    const headers = this.headers(requestId, options.seatToken);
    const signal = options.signal
      ? AbortSignal.any([this.closing.signal, options.signal])
      : this.closing.signal;
    const deadline = Date.now() + (options.timeoutMs ?? this.timeoutMs);
    const policy = this.retryPolicy;
    let failure: OrdoError | undefined;
    for (let retry = 0; ;) {
      const left = deadline - Date.now();
      if (signal.aborted) {
        throw cancelled(signal, requestId);
      }
      if (left <= 0) {
        const last = failure ? `: the last attempt failed with ${failure.message}` : "";
        throw new OrdoError(Code.DeadlineExceeded, "", `deadline exceeded${last}`, {}, requestId);
      }
      const { transport } = this.connections[this.next++ % this.connections.length];
      try {
        const response = await transport.unary(method, signal, left, headers, request);
        return response.message;
      } catch (error) {
        failure = signal.aborted ? cancelled(signal, requestId) : OrdoError.from(error, requestId);
      }
      if (signal.aborted || !policy.retryable(failure)) {
        throw failure;
      }
      const waiting = policy.waits(failure);
      if (!waiting && retry >= policy.retries) {
        throw failure;
      }
      const pause = policy.pause(retry, failure);
      if (!waiting && Date.now() + pause >= deadline) {
        throw failure;
      }
      retry += 1;
      try {
        await sleep(Math.min(pause, Math.max(deadline - Date.now(), 0)), signal);
      } catch {
        throw cancelled(signal, requestId);
      }
    }
  }
}

/** One message, as a streaming call's input. */
async function* once<T>(message: T): AsyncIterable<T> {
  yield message;
}

/** The error of a call its signal or the client's `close()` ended. */
function cancelled(signal: AbortSignal, requestId: string): OrdoError {
  const reason: unknown = signal.reason;
  const details =
    reason instanceof OrdoError ? reason.details : "the call was cancelled by its signal";
  return new OrdoError(Code.Canceled, "", details, {}, requestId);
}

/** The request as a message, once it is known to encode (a `RangeError` otherwise). */
function encodable<I extends DescMessage>(schema: I, init: MessageInitShape<I>): MessageShape<I> {
  try {
    const message = create(schema, init);
    toBinary(schema, message);
    return message;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RangeError(`the request cannot be encoded: ${reason}`);
  }
}

/** A seed as the 64-bit field takes it (0 when left out). */
function bigintOf(value: bigint | number | undefined): bigint {
  if (value === undefined) {
    return 0n;
  }
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    throw new RangeError(`the request cannot be encoded: ${value} is no whole number`);
  }
  return BigInt(value);
}

/** The `Viewer` message of a seat or "spectator" (none when `viewer` is undefined). */
function viewerOf(viewer: number | "spectator" | undefined) {
  if (viewer === undefined) {
    return undefined;
  }
  return {
    viewer:
      viewer === "spectator"
        ? { case: "spectator" as const, value: true }
        : { case: "seat" as const, value: viewer },
  };
}
