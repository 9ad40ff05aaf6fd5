/**
 * The codes of Node.js's own network failures, as gRPC gives them: Connect-ES reports some as
 * INTERNAL, which says nothing of where the call failed, and a connection lost under a call as
 * ABORTED, a code a server may answer with.
 */

import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

/**
 * HTTP/2 stream resets that Node.js reports as a plain stream error. `REFUSED_STREAM` is a
 * server refusing a call it never started (past its limit of concurrent streams, or after its
 * GOAWAY).
 */
const RESETS: Readonly<Record<string, Code>> = {
  NGHTTP2_REFUSED_STREAM: Code.Unavailable,
  NGHTTP2_CANCEL: Code.Canceled,
  NGHTTP2_ENHANCE_YOUR_CALM: Code.ResourceExhausted,
};
/** Node.js's codes of a TLS connection that failed: the server cannot be reached safely. */
const TLS_FAILURE =
  /^(ERR_SSL_|ERR_TLS_|EPROTO$|UNABLE_TO_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;

/**
 * Node.js's codes of a connection or stream that went away under a call (the peer reset it, or
 * the stream was destroyed with its connection): the call is lost on the way, `UNAVAILABLE`.
 */
const LOST = new Set(["ECONNRESET", "ERR_STREAM_DESTROYED", "ERR_HTTP2_INVALID_STREAM"]);

/** The Node.js error codes among an error's causes. */
function causeCodes(error: ConnectError): string[] {
  const codes: string[] = [];
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") {
      codes.push(code);
    }
  }
  return codes;
}

/** The code gRPC gives a failure Connect-ES calls INTERNAL or ABORTED, or its code as it is. */
function codeOf(error: ConnectError): Code {
  if (error.code === Code.Aborted) {
    return causeCodes(error).some((code) => LOST.has(code)) ? Code.Unavailable : error.code;
  }
  if (error.code !== Code.Internal) {
    return error.code;
  }
  const reset = /\bNGHTTP2_[A-Z_]+/.exec(error.rawMessage)?.[0];
  if (reset !== undefined && RESETS[reset] !== undefined) {
    return RESETS[reset];
  }
  return causeCodes(error).some((code) => TLS_FAILURE.test(code)) ? Code.Unavailable : error.code;
}

/** `error` as a `ConnectError` with its code as gRPC names it. */
function grpcCoded(error: unknown): ConnectError {
  const failure = ConnectError.from(error);
  const code = codeOf(failure);
  if (code === failure.code) {
    return failure;
  }
  const mapped = new ConnectError(failure.rawMessage, code, failure.metadata, undefined, failure);
  mapped.details = failure.details;
  return mapped;
}

/** A stream's messages, its failure (a connection lost while it is read) coded as gRPC's. */
async function* coded<T>(messages: AsyncIterable<T>): AsyncIterable<T> {
  try {
    yield* messages;
  } catch (error) {
    throw grpcCoded(error);
  }
}

/**
 * Give every failure of a call its code as gRPC names it (UNAVAILABLE for a bad TLS peer or a
 * connection lost), a stream's too: one cut while its messages are read (a balancer's timeout, a
 * server gone) is then taken up again as a lost connection, not given up as ABORTED.
 */
export const nodeErrorCodes: Interceptor = (next) => async (request) => {
  try {
    const response = await next(request);
    return response.stream ? { ...response, message: coded(response.message) } : response;
  } catch (error) {
    throw grpcCoded(error);
  }
};
