/**
 * A thin, typed client of `ordo.v1.GameEngineService` for Node.js: one method per RPC, one
 * error type. The Python client's twin (`ordo.client.Client`), with the same settings.
 *
 * Every method sends one request and resolves to the response message unchanged; the client
 * keeps no game state and knows no game. What it adds to a bare stub:
 *
 * - `OrdoError`, the single error of every failed call, carrying the status code and the stable
 *   `reason` of the server's `google.rpc.ErrorInfo`;
 * - retries of calls that failed with UNAVAILABLE (and only those, unless the caller names
 *   CANCELLED too), with exponential backoff and full jitter, within the call's deadline: safe
 *   because every RPC is pure, ApplyAction included;
 * - an `x-request-id` on every call (the caller's, or a fresh one), the same for all attempts;
 * - several connections on demand (`channels`), used round-robin, call by call and attempt by
 *   attempt, so that one client reaches every worker of a server whose workers share a port.
 */

import { randomUUID } from "node:crypto";

import {
  type ChannelCredentials,
  type ChannelOptions,
  Client as GrpcClient,
  credentials as grpcCredentials,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";

import { ErrorInfo } from "./gen/google/rpc/error_details.js";
import { Status } from "./gen/google/rpc/status.js";
import { type Action, GameOptions, type GameState } from "./gen/ordo/v1/common.js";
import {
  ApplyActionRequest,
  type ApplyActionResponse,
  type DeepPartial,
  GameEngineServiceService as Service,
  GetViewRequest,
  type GetViewResponse,
  ListGamesRequest,
  type ListGamesResponse,
  ListLegalActionsRequest,
  type ListLegalActionsResponse,
  NewGameRequest,
  type NewGameResponse,
  SuggestActionRequest,
  type SuggestActionResponse,
  ValidateActionRequest,
  type ValidateActionResponse,
} from "./gen/ordo/v1/engine_service.js";

export const DEFAULT_TARGET = "localhost:50051";
export const REQUEST_ID_KEY = "x-request-id";
/** The code retried by default: the server was not reached, so trying again is safe. */
export const RETRYABLE: readonly status[] = [status.UNAVAILABLE];
/**
 * What a call may also be retried on: a worker that stops cancels the calls gRPC had received
 * but not yet handed to it. Calls this client cancels itself (`signal`) are never retried.
 */
export const ALSO_RETRYABLE: readonly status[] = [status.CANCELLED];
const STATUS_DETAILS_KEY = "grpc-status-details-bin";
const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";

/** The settings of a client; every one has a default. */
export interface ClientOptions {
  /** Each call's deadline in milliseconds, retries included (10 s). */
  timeoutMs?: number;
  /** How many times a call that failed with a retry code is tried again (3). */
  retries?: number;
  /** Distinct connections to open, used round-robin (1). */
  channels?: number;
  /** Metadata sent with every call. */
  metadata?: Readonly<Record<string, string>>;
  /** The first retry's largest pause in ms, doubled at each retry up to `maxBackoffMs` (50). */
  backoffMs?: number;
  /** The largest pause between two attempts, in ms (2,000). */
  maxBackoffMs?: number;
  /** The codes retried: UNAVAILABLE by default; CANCELLED may be added (`ALSO_RETRYABLE`). */
  retryCodes?: readonly status[];
  /**
   * gRPC channel arguments given to every channel, e.g.
   * `{"grpc.service_config": ...}` or `{"grpc.lb_policy_name": "round_robin"}` with a `dns:///`
   * target to spread the calls over every address it resolves to.
   */
  channelOptions?: ChannelOptions;
  /**
   * TLS for a server behind a gateway or mesh that terminates it, e.g.
   * `credentials.createSsl()` (gRPC's default roots: the file `GRPC_DEFAULT_SSL_ROOTS_FILE_PATH`
   * names, else Node's bundled public authorities) or `credentials.createSsl(caPem)`.
   * Plaintext without them.
   */
  credentials?: ChannelCredentials;
  /**
   * Wait, up to the deadline, for a server not reachable yet (one still starting), where by
   * default a call fails at once with UNAVAILABLE (and is retried).
   */
  waitForReady?: boolean;
}

/** What any one call may set. */
export interface CallOptions {
  /** This call's deadline in ms, retries included (the client's `timeoutMs` by default). */
  timeoutMs?: number;
  /** The `x-request-id` to send (a fresh one by default); the server's log lines carry it. */
  requestId?: string;
  /** Cancels the call: it fails with CANCELLED, and is not retried. */
  signal?: AbortSignal;
}

/** A failed call: its status code and the stable reason and metadata of its `ErrorInfo`. */
export class OrdoError extends Error {
  /** The gRPC status code. */
  readonly code: status;
  /** `ErrorInfo.reason`, e.g. `CARD_NOT_IN_HAND`; empty when Ordo's rules did not fail it. */
  readonly reason: string;
  /** The message for people (the status message). */
  readonly details: string;
  /** `ErrorInfo.metadata`. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The `x-request-id` the call was sent with (every attempt). */
  readonly requestId: string;

  constructor(
    code: status,
    reason: string,
    details: string,
    metadata: Readonly<Record<string, string>> = {},
    requestId = "",
  ) {
    const name = status[code] ?? String(code);
    const head = reason ? `${name} ${reason}` : name;
    super(details ? `${head}: ${details}` : head);
    this.name = "OrdoError";
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.metadata = metadata;
    this.requestId = requestId;
  }

  /** The status code's name, e.g. `INVALID_ARGUMENT`. */
  get codeName(): string {
    return status[this.code] ?? String(this.code);
  }

  /** Read the code, and the `ErrorInfo` of the rich status when there is one. */
  static fromServiceError(error: ServiceError, requestId = ""): OrdoError {
    const details = error.details ?? "";
    const [raw] = error.metadata?.get(STATUS_DETAILS_KEY) ?? [];
    if (!(raw instanceof Buffer)) {
      return new OrdoError(error.code, "", details, {}, requestId);
    }
    let rich: Status;
    let info: ErrorInfo | undefined;
    try {
      rich = Status.decode(raw);
      const detail = rich.details.find((any) => any.typeUrl === ERROR_INFO_TYPE);
      info = detail && ErrorInfo.decode(detail.value);
    } catch {
      return new OrdoError(error.code, "", details, {}, requestId); // not a status: ignore it
    }
    if (rich.code !== error.code) {
      // A rich status that contradicts the call's own code is not to be trusted.
      return new OrdoError(error.code, "", details, {}, requestId);
    }
    return new OrdoError(error.code, info?.reason ?? "", rich.message, info?.metadata, requestId);
  }
}

/** A game id (`six_nimmt`), or a whole `GameOptions`. */
export type GameChoice = string | DeepPartial<GameOptions>;
/** A state as a response gave it (or any part of one: what is left out is its default). */
export type StateInput = DeepPartial<GameState>;
/**
 * An action; what is left out is its default. Seat 1 selecting card 17 in 6 nimmt!:
 * `{ seat: 1, game: { $case: "sixNimmt", value: { move: { $case: "selectCard", value: 17 } } } }`.
 */
export type ActionInput = DeepPartial<Action>;

/** `newGame`'s optional arguments. */
export interface NewGameOptions extends CallOptions {
  /** The deal's seed; 0 (the default) lets the server pick one (the response says which). */
  seed?: bigint | number;
  /** The game's options message (with a game id): its defaults when left out. */
  options?: object;
}

/** `suggestAction`'s optional arguments. */
export interface SuggestOptions extends CallOptions {
  /** The bot policy, one of the game's `policies` (`heuristic` by default). */
  policy?: string;
  /** The bot's seed; 0 (the default) makes the answer depend on the request alone. */
  seed?: bigint | number;
}

/** A method of the service, as the generated service definition describes it. */
interface Method<Request, Response> {
  path: string;
  requestSerialize(request: Request): Buffer;
  responseDeserialize(bytes: Buffer): Response;
}

/**
 * A connection to an Ordo server; call `close()` when done, or declare it with `using`.
 *
 * ```ts
 * using client = new OrdoClient("localhost:50051");
 * const game = await client.newGame("six_nimmt", 4, { seed: 7n });
 * ```
 */
export class OrdoClient {
  readonly target: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly retryCodes: ReadonlySet<status>;
  readonly waitForReady: boolean;
  private readonly metadata: Readonly<Record<string, string>>;
  private readonly channels: GrpcClient[];
  private next = 0;
  private isClosed = false;
  private readonly inFlight = new Set<{ cancel(): void }>(); // cancelled by close()

  constructor(target: string = DEFAULT_TARGET, options: ClientOptions = {}) {
    const channels = options.channels ?? 1;
    const timeoutMs = options.timeoutMs ?? 10_000;
    const retries = options.retries ?? 3;
    const backoffMs = options.backoffMs ?? 50;
    const maxBackoffMs = options.maxBackoffMs ?? 2_000;
    const retryCodes = options.retryCodes ?? RETRYABLE;
    if (!Number.isInteger(channels) || channels < 1) {
      throw new RangeError(`channels must be a whole number of at least 1, not ${channels}`);
    }
    if (!(retries >= 0 && timeoutMs > 0 && backoffMs >= 0 && maxBackoffMs >= backoffMs)) {
      throw new RangeError("need retries >= 0, timeoutMs > 0 and 0 <= backoffMs <= maxBackoffMs");
    }
    const allowed = new Set([...RETRYABLE, ...ALSO_RETRYABLE]);
    if (!retryCodes.every((code) => allowed.has(code))) {
      throw new RangeError(
        "retryCodes may hold only UNAVAILABLE and CANCELLED: other codes come from calls a " +
          "server has answered, and would fail again",
      );
    }
    this.target = target;
    this.timeoutMs = timeoutMs;
    this.retries = retries;
    this.backoffMs = backoffMs;
    this.maxBackoffMs = maxBackoffMs;
    this.retryCodes = new Set(retryCodes);
    this.waitForReady = options.waitForReady ?? false;
    this.metadata = { ...options.metadata };
    // A local subchannel pool gives each channel its own connection: without it, channels to
    // the same target share one, and every call lands on the same server worker.
    const channelOptions: ChannelOptions = {
      ...(channels > 1 ? { "grpc.use_local_subchannel_pool": 1 } : {}),
      ...options.channelOptions,
    };
    const creds = options.credentials ?? grpcCredentials.createInsecure();
    this.channels = Array.from(
      { length: channels },
      () => new GrpcClient(target, creds, channelOptions),
    );
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** The number of distinct connections this client spreads its calls over. */
  get channelCount(): number {
    return this.channels.length;
  }

  /** `using client = new OrdoClient(...)` closes it at the end of the block. */
  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * Close every channel; the client cannot be used afterwards. Calls still in flight end with
   * CANCELLED.
   */
  close(): void {
    this.isClosed = true;
    for (const call of this.inFlight) {
      call.cancel();
    }
    for (const channel of this.channels) {
      channel.close();
    }
  }

  // ------------------------------------------------------------------ RPCs
  /** Every game the server runs, with seat ranges, options and bot policies. */
  listGames(call: CallOptions = {}): Promise<ListGamesResponse> {
    return this.call(Service.listGames, () => ListGamesRequest.fromPartial({}), call);
  }

  /**
   * Deal a new game: `game` is a `GameOptions`, or a game id with its `options` (its defaults
   * without them).
   */
  newGame(game: GameChoice, seats: number, init: NewGameOptions = {}): Promise<NewGameResponse> {
    const request = (): NewGameRequest =>
      NewGameRequest.fromPartial({
        options: gameOptions(game, init.options),
        seats,
        seed: init.seed ?? 0,
      });
    return this.call(Service.newGame, request, init);
  }

  /** Apply one seat's action: the new state, the status and the events. */
  applyAction(
    state: StateInput,
    action: ActionInput,
    call: CallOptions = {},
  ): Promise<ApplyActionResponse> {
    const request = (): ApplyActionRequest => ApplyActionRequest.fromPartial({ state, action });
    return this.call(Service.applyAction, request, call);
  }

  /** Whether `applyAction` would accept the action, and why not. */
  validateAction(
    state: StateInput,
    action: ActionInput,
    call: CallOptions = {},
  ): Promise<ValidateActionResponse> {
    const request = (): ValidateActionRequest =>
      ValidateActionRequest.fromPartial({ state, action });
    return this.call(Service.validateAction, request, call);
  }

  /** Every legal action of `seat` now (none when it is not to act). */
  listLegalActions(
    state: StateInput,
    seat: number,
    call: CallOptions = {},
  ): Promise<ListLegalActionsResponse> {
    const request = (): ListLegalActionsRequest =>
      ListLegalActionsRequest.fromPartial({ state, seat });
    return this.call(Service.listLegalActions, request, call);
  }

  /** What `seat` may see of the game; a spectator's view when `seat` is null or left out. */
  getView(
    state: StateInput,
    seat: number | null = null,
    call: CallOptions = {},
  ): Promise<GetViewResponse> {
    const viewer =
      seat === null
        ? { viewer: { $case: "spectator" as const, value: true } }
        : { viewer: { $case: "seat" as const, value: seat } };
    const request = (): GetViewRequest => GetViewRequest.fromPartial({ state, viewer });
    return this.call(Service.getView, request, call);
  }

  /** A bot's action for `seat`. */
  suggestAction(
    state: StateInput,
    seat: number,
    init: SuggestOptions = {},
  ): Promise<SuggestActionResponse> {
    const request = (): SuggestActionRequest =>
      SuggestActionRequest.fromPartial({
        state,
        seat,
        policy: init.policy ?? "heuristic",
        seed: init.seed ?? 0,
      });
    return this.call(Service.suggestAction, request, init);
  }

  // ------------------------------------------------------------------ calls
  /**
   * Encode the request once, then send it, retrying the retry codes within the deadline. A
   * request that cannot be encoded (a negative seat, a seed past 64 bits) rejects with a
   * `RangeError` before anything is sent.
   */
  private async call<Request, Response>(
    method: Method<Request, Response>,
    request: () => Request,
    options: CallOptions,
  ): Promise<Response> {
    if (this.isClosed) {
      throw new Error("the client is closed");
    }
    let bytes: Buffer;
    try {
      bytes = method.requestSerialize(request());
    } catch (error) {
      if (error instanceof TypeError) {
        throw error; // an unknown game id, or options given twice
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new RangeError(`the request cannot be encoded: ${reason}`);
    }
    const requestId = options.requestId || randomUUID().replaceAll("-", "");
    const metadata = new Metadata();
    metadata.set(REQUEST_ID_KEY, requestId);
    for (const [key, value] of Object.entries(this.metadata)) {
      metadata.add(key, value);
    }
    if (this.waitForReady) {
      metadata.setOptions({ waitForReady: true });
    }
    const deadline = Date.now() + (options.timeoutMs ?? this.timeoutMs);
    for (let attempt = 0; ; attempt += 1) {
      if (this.isClosed) {
        throw new OrdoError(status.CANCELLED, "", "the client was closed", {}, requestId);
      }
      const channel = this.channels[this.next++ % this.channels.length];
      const attempted = { channel, method, bytes, metadata, deadline, signal: options.signal };
      try {
        return await once(attempted, this.inFlight);
      } catch (error) {
        if (!isServiceError(error)) {
          throw error;
        }
        const failure = OrdoError.fromServiceError(error, requestId);
        await sleep(this.pause(failure, attempt, deadline, options.signal));
      }
    }
  }

  /**
   * The pause in ms before trying a failed call again, drawn below a bound that doubles at each
   * retry (full jitter); throws `failure` when the call is not to be tried again: a code not
   * to retry, no retry left, a pause that would end past the deadline, or a cancelled call.
   */
  private pause(
    failure: OrdoError,
    attempt: number,
    deadline: number,
    signal?: AbortSignal,
  ): number {
    if (!this.retryCodes.has(failure.code) || attempt >= this.retries || signal?.aborted) {
      throw failure;
    }
    const pause = Math.random() * Math.min(this.maxBackoffMs, this.backoffMs * 2 ** attempt);
    if (Date.now() + pause >= deadline) {
      throw failure;
    }
    return pause;
  }
}

/**
 * The `GameOptions` of a game id (with its options message, or its defaults). Throws a
 * `TypeError` for an id that is no game of `GameOptions`, or options given with a `GameOptions`.
 */
export function gameOptions(game: GameChoice, options?: object): GameOptions {
  if (typeof game !== "string") {
    if (options !== undefined) {
      throw new TypeError("give either a GameOptions or a game id with its options, not both");
    }
    return GameOptions.fromPartial(game);
  }
  // GameOptions' JSON form names the game by its field name, which is the game id.
  const selected = GameOptions.fromJSON({ [game]: {} });
  if (selected.game === undefined) {
    throw new TypeError(`unknown game ${JSON.stringify(game)}: not a field of GameOptions.game`);
  }
  if (options === undefined) {
    return selected;
  }
  return GameOptions.fromPartial({
    game: { $case: selected.game.$case, value: options },
  } as DeepPartial<GameOptions>);
}

// ------------------------------------------------------------------ helpers
/** One attempt of a call: its channel, its method, the request's bytes and the call's settings. */
interface Attempt<Request, Response> {
  channel: GrpcClient;
  method: Method<Request, Response>;
  bytes: Buffer;
  metadata: Metadata;
  deadline: number;
  signal: AbortSignal | undefined;
}

/** Make one attempt, kept in `inFlight` while it runs; its `signal` cancels it. */
function once<Request, Response>(
  attempt: Attempt<Request, Response>,
  inFlight: Set<{ cancel(): void }>,
): Promise<Response> {
  const { channel, method, bytes, metadata, deadline, signal } = attempt;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled("the call was cancelled before it started"));
      return;
    }
    const call = channel.makeUnaryRequest(
      method.path,
      (sent: Buffer) => sent, // encoded once, before the first attempt
      method.responseDeserialize,
      bytes,
      metadata,
      { deadline },
      (error: ServiceError | null, response?: Response) => {
        inFlight.delete(call);
        signal?.removeEventListener("abort", abort);
        if (error) {
          reject(error);
        } else {
          resolve(response as Response);
        }
      },
    );
    inFlight.add(call);
    const abort = (): void => call.cancel();
    signal?.addEventListener("abort", abort, { once: true });
  });
}

function cancelled(details: string): ServiceError {
  return Object.assign(new Error(details), {
    code: status.CANCELLED,
    details,
    metadata: new Metadata(),
  });
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === "number";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
