/**
 * `OrdoError`, the single error of every failed call, in Node.js and in browsers alike.
 */

import { Code, ConnectError } from "@connectrpc/connect";

import { type ErrorInfo, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";

/** The `ErrorInfo.domain` of every refusal of Ordo's rules. */
export const ERROR_DOMAIN = "ordo";

/** A status code's name as gRPC spells it, e.g. `INVALID_ARGUMENT` for `Code.InvalidArgument`. */
export function codeName(code: Code): string {
  const name = Code[code] as string | undefined;
  return name === undefined
    ? String(code)
    : name.replace(/(?<=[a-z])(?=[A-Z])/g, "_").toUpperCase();
}

/**
 * A failed call: its status code and the stable reason and metadata of its `ErrorInfo`.
 * `message` reads `INVALID_ARGUMENT CARD_NOT_IN_HAND: <the server's message>`.
 */
export class OrdoError extends Error {
  /** The status code (gRPC's numbers: `Code.InvalidArgument` is 3). */
  readonly code: Code;
  /** `ErrorInfo.reason`, e.g. `CARD_NOT_IN_HAND`; empty when Ordo's rules did not fail it. */
  readonly reason: string;
  /** The message for people (the status message). */
  readonly details: string;
  /** `ErrorInfo.metadata`. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The `x-request-id` the call was sent with (every attempt). */
  readonly requestId: string;

  constructor(
    code: Code,
    reason: string,
    details: string,
    metadata: Readonly<Record<string, string>> = {},
    requestId = "",
  ) {
    const head = reason ? `${codeName(code)} ${reason}` : codeName(code);
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
    return codeName(this.code);
  }

  /** Whether the service answered the call (its refusal carries Ordo's `ErrorInfo`). */
  get answered(): boolean {
    return this.reason !== "";
  }

  /**
   * The `OrdoError` of any failure of a call: a `ConnectError` keeps its code, and the reason and
   * metadata of its `ErrorInfo` of Ordo's domain when it has one; anything else is `UNKNOWN`.
   */
  static from(error: unknown, requestId = ""): OrdoError {
    if (error instanceof OrdoError) {
      return error;
    }
    const failure = ConnectError.from(error);
    const info = ordoErrorInfo(failure);
    return new OrdoError(
      failure.code,
      info?.reason ?? "",
      failure.rawMessage,
      info ? { ...info.metadata } : {},
      requestId,
    );
  }
}

/** The `ErrorInfo` of Ordo's domain among an error's details, if there is one that decodes. */
function ordoErrorInfo(error: ConnectError): ErrorInfo | undefined {
  try {
    return error
      .findDetails(ErrorInfoSchema)
      .find((info) => info.domain === ERROR_DOMAIN && info.reason !== "");
  } catch {
    return undefined; // details that do not decode say nothing
  }
}
