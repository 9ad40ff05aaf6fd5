/**
 * The client's calls, whatever carries them: one method per RPC of `ordo.v1.GameEngineService`,
 * one error type, retries, deadlines and request ids. `index.ts` (Node.js) and `web.ts`
 * (browsers) each give it the transports of their platform.
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
import { TimeControlSchema } from "./gen/ordo/v1/common_pb.js";
import type {
  ApplyActionResponse,
  ClaimTimeoutResponse,
  GetViewResponse,
  ListGamesResponse,
  ListLegalActionsResponse,
  GameRecord,
  NewGameResponse,
  ReplayGameResponse,
  SuggestActionResponse,
  ValidateActionResponse,
} from "./gen/ordo/v1/engine_service_pb.js";
import { type ActionInput, type GameChoice, gameOptions, type StateInput } from "./messages.js";
import { newRequestId, REQUEST_ID_KEY, SEAT_TOKEN_KEY } from "./request-id.js";
import { type RetryOptions, RetryPolicy, sleep } from "./retry.js";

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
   * A time control, which gives every seat a clock (see `claimTimeout`): `{ moveLimitMs: 30000 }`
   * or `{ baseMs: 300000, incrementMs: 5000 }`, with `absentAfter` timeouts in a row marking a
   * seat absent.
   */
  timeControl?: MessageInitShape<typeof TimeControlSchema>;
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
    if (init.timeControl !== undefined) {
      options.timeControl = create(TimeControlSchema, init.timeControl);
    }
    const bots = Object.entries(init.bots ?? {}).map(([seat, policy]) => ({
      seat: Number(seat),
      policy,
    }));
    return this.call(methods.newGame, { options, seats, seed: bigintOf(init.seed), bots }, init);
  }

  /**
   * Apply one seat's action: the new state, the status and the events (only those `viewer` may
   * see, when given).
   */
  applyAction(
    state: StateInput,
    action: ActionInput,
    init: ApplyOptions = {},
  ): Promise<ApplyActionResponse> {
    return this.call(methods.applyAction, { state, action, viewer: viewerOf(init.viewer) }, init);
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

  /**
   * Claim that `seat`'s time is up, in a game with a time control: the game's bot plays its move
   * (`timedOut`), or, when the seat is no longer to act, the game comes back as it is. Before
   * the seat's time is up the server refuses with reason `TIMEOUT_NOT_DUE` and the time left
   * (`error.metadata.time_left_ms`). The events are those `viewer` may see, as in `applyAction`.
   */
  claimTimeout(
    state: StateInput,
    seat: number,
    init: ApplyOptions = {},
  ): Promise<ClaimTimeoutResponse> {
    return this.call(methods.claimTimeout, { state, seat, viewer: viewerOf(init.viewer) }, init);
  }

  /** Whether `applyAction` would accept the action, and why not. */
  validateAction(
    state: StateInput,
    action: ActionInput,
    call: CallOptions = {},
  ): Promise<ValidateActionResponse> {
    return this.call(methods.validateAction, { state, action }, call);
  }

  /** Every legal action of `seat` now (none when it is not to act). */
  listLegalActions(
    state: StateInput,
    seat: number,
    call: CallOptions = {},
  ): Promise<ListLegalActionsResponse> {
    return this.call(methods.listLegalActions, { state, seat }, call);
  }

  /** What `seat` may see of the game; a spectator's view when `seat` is null or left out. */
  getView(
    state: StateInput,
    seat: number | null = null,
    call: CallOptions = {},
  ): Promise<GetViewResponse> {
    return this.call(methods.getView, { state, viewer: viewerOf(seat ?? "spectator") }, call);
  }

  /** A bot's action for `seat`. */
  async suggestAction(
    state: StateInput,
    seat: number,
    init: SuggestOptions = {},
  ): Promise<SuggestActionResponse> {
    const request = { state, seat, ...botChoice(init) };
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

  // ------------------------------------------------------------------ calls
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
    const headers = new Headers(this.metadata);
    headers.set(REQUEST_ID_KEY, requestId);
    const seatToken = options.seatToken ?? this.seatToken;
    if (seatToken) {
      headers.set(SEAT_TOKEN_KEY, seatToken);
    }
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
