/**
 * When a failed call is tried again, and after how long.
 *
 * Every Ordo RPC is a pure function of its request, so a call that failed before the service
 * answered it is always safe to send again. The service answers a refusal with its
 * `google.rpc.ErrorInfo` (domain `ordo`): such a call would fail again, and is never retried,
 * save the answers of `RETRIED_REASONS` (`UNAVAILABLE` `REVISION_STORE_UNAVAILABLE`: the move
 * was not applied, its revision store out of reach; `UNAVAILABLE`
 * `REVISION_STORE_OUTCOME_UNKNOWN`: the same request settles the move; `RESOURCE_EXHAUSTED`
 * `SERVER_BUSY`: a worker busy with heavy calls, retried after the delay it names). The refusals of seat tokens
 * (`UNAUTHENTICATED` `SEAT_TOKEN_MISSING`, `SEAT_TOKEN_INVALID`; `PERMISSION_DENIED`
 * `SEAT_NOT_PERMITTED`, `NOT_A_BOT_SEAT`, `BOT_SETTINGS_NOT_PERMITTED`, `SEED_NOT_PERMITTED`)
 * and of the revision fence (`FAILED_PRECONDITION` `STATE_SUPERSEDED`) are never retried: they
 * need another token, or the game's latest state. Nor is a call the caller ended: its `signal`,
 * `close()`, or its deadline.
 *
 * The other failures come from the way to the service, and are retried by default, the same
 * codes as the Python client's:
 * - `UNAVAILABLE`: no connection, a connection refused or lost (`ECONNRESET`, which Connect-ES
 *   calls `ABORTED`: the client names it as gRPC does), a stream the server refused (HTTP/2
 *   `REFUSED_STREAM`, e.g. past its limit of concurrent streams, or after its GOAWAY), or a
 *   proxy's 429, 502, 503 or 504;
 * - `CANCELLED`: a stream the server reset (HTTP/2 `CANCEL`), as a stopping worker does with the
 *   calls it received but had not started;
 * - `INTERNAL`: an HTTP/2 protocol or stream error, or a response that ended with no status;
 * - `UNKNOWN`: an HTTP status that names no code (a proxy's 500), or a failure Connect-ES cannot
 *   name.
 *
 * Never retried: `DEADLINE_EXCEEDED` (the caller's deadline), `RESOURCE_EXHAUSTED` (a limit of
 * the server, such as its calls at once or HTTP/2's `ENHANCE_YOUR_CALM`: a retry would add to
 * the load it refused), and every other code, which only an answer carries.
 */

import { Code } from "@connectrpc/connect";

import type { OrdoError } from "./errors.js";

/** The codes retried by default, when the failure carries no `ErrorInfo`. */
export const RETRYABLE: readonly Code[] = [
  Code.Unavailable,
  Code.Canceled,
  Code.Internal,
  Code.Unknown,
];

/**
 * The reasons of the service's answers that are retried, whatever `retryCodes` holds: a revision
 * store or a table store out of reach, or a table too busy (the move not applied), a move whose
 * outcome is unknown (the same request settles it), a worker busy with heavy calls (retried no
 * sooner than its `retry_after_ms`).
 */
export const RETRIED_REASONS: readonly string[] = [
  "REVISION_STORE_UNAVAILABLE",
  "REVISION_STORE_OUTCOME_UNKNOWN",
  "SERVER_BUSY",
  "TABLE_STORE_UNAVAILABLE",
  "TABLE_BUSY",
];

/** The `ErrorInfo` metadata of the delay, in ms, a retry of the answer waits at least. */
export const RETRY_AFTER_KEY = "retry_after_ms";

/**
 * The reasons of the service's answers that end a table's stream it can take up again: a server
 * that stops, a store out of reach, a watcher that fell behind.
 */
export const RECONNECT_REASONS: readonly string[] = [
  "SERVER_DRAINING",
  "TABLE_STORE_UNAVAILABLE",
  "WATCHER_TOO_SLOW",
];
/** Attempts in a row without a message before `watchGame` gives up. */
export const MAX_RECONNECTS = 10;

/** How a client retries; every field has a default. */
export interface RetryOptions {
  /** How many times a failed call is tried again (3); `waitForReady` waits beyond them. */
  retries?: number;
  /** The first retry's largest pause in ms, doubled at each retry up to `maxBackoffMs` (50). */
  backoffMs?: number;
  /** The largest pause between two attempts, in ms (2,000). */
  maxBackoffMs?: number;
  /** The codes retried, some of `RETRYABLE` (all of them by default). */
  retryCodes?: readonly Code[];
  /**
   * Wait, up to the deadline, for a server not reachable yet (one still starting): `UNAVAILABLE`
   * is then tried again, with backoff, for as long as the deadline allows, whatever `retries`
   * says, and a server that never came ends the call with `DEADLINE_EXCEEDED`.
   */
  waitForReady?: boolean;
}

/** A client's retry settings, checked, with their defaults filled in. */
export class RetryPolicy {
  readonly retries: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly retryCodes: ReadonlySet<Code>;
  readonly waitForReady: boolean;

  constructor(options: RetryOptions = {}) {
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 50;
    this.maxBackoffMs = options.maxBackoffMs ?? 2_000;
    this.waitForReady = options.waitForReady ?? false;
    const codes = options.retryCodes ?? RETRYABLE;
    if (!(this.retries >= 0 && this.backoffMs >= 0 && this.maxBackoffMs >= this.backoffMs)) {
      throw new RangeError("need retries >= 0 and 0 <= backoffMs <= maxBackoffMs");
    }
    if (!codes.every((code) => RETRYABLE.includes(code))) {
      throw new RangeError(
        "retryCodes may hold only codes of RETRYABLE: other codes come from calls a server " +
          "has answered, and would fail again",
      );
    }
    this.retryCodes = new Set(codes);
  }

  /** Whether `failure` may be tried again at all, retries and deadline aside. */
  retryable(failure: OrdoError): boolean {
    if (failure.answered) {
      return RETRIED_REASONS.includes(failure.reason);
    }
    return this.retryCodes.has(failure.code);
  }

  /** Whether a table's stream cut by `failure` is taken up again. */
  reconnects(failure: OrdoError): boolean {
    if (failure.answered) {
      return RECONNECT_REASONS.includes(failure.reason);
    }
    return this.retryCodes.has(failure.code);
  }

  /** Whether a call that waits for a server not reachable yet goes on waiting after `failure`. */
  waits(failure: OrdoError): boolean {
    return this.waitForReady && !failure.answered && failure.code === Code.Unavailable;
  }

  /**
   * The pause before retry number `retry` (0 for the first) after `failure`: full jitter,
   * doubling, capped; no shorter than the delay the failure's answer names.
   */
  pause(retry: number, failure?: OrdoError): number {
    const drawn = Math.random() * Math.min(this.maxBackoffMs, this.backoffMs * 2 ** retry);
    const asked = Number(failure?.metadata[RETRY_AFTER_KEY] ?? "");
    return Number.isFinite(asked) && asked > 0 ? Math.max(drawn, asked) : drawn;
  }
}

/** Resolve after `ms`, or reject with `signal`'s reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const done = (): void => {
      signal.removeEventListener("abort", aborted);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const aborted = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", aborted, { once: true });
  });
}
