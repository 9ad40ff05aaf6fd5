/** What both entries export besides their `OrdoClient`: the platform-free part of the client. */

export { Code, ConnectError } from "@connectrpc/connect";
export {
  type CallOptions,
  type CommonOptions,
  type NewGameOptions,
  type ReplayOptions,
  type PlayBotOptions,
  type ApplyOptions,
  type SuggestOptions,
  type WatchOptions,
} from "./core.js";
export { codeName, ERROR_DOMAIN, OrdoError } from "./errors.js";
export {
  type ActionInput,
  type GameChoice,
  type GameInput,
  gameOptions,
  type SealedInfo,
  sealedInfo,
  type StateInput,
} from "./messages.js";
export {
  DIGEST_BYTES,
  FORMAT_VERSION,
  Recorder,
  RECORD_SUFFIX,
  recordFromJson,
  recordToJson,
  replaySteps,
  stateDigest,
} from "./records.js";
export { REQUEST_ID_KEY, SEAT_TOKEN_KEY } from "./request-id.js";
export {
  MAX_RECONNECTS,
  RECONNECT_REASONS,
  RETRIED_REASONS,
  RETRYABLE,
  type RetryOptions,
  RetryPolicy,
} from "./retry.js";
export { parseTableLink, type TableLink, tableLink, tokenSeat } from "./tables.js";
export * as v1 from "./v1.js";
