/**
 * `@ordo/client/web`: the TypeScript client of Ordo for browsers (and any runtime with `fetch`),
 * the same `OrdoClient` as Node.js's, over Connect or gRPC-Web to the server's HTTP port.
 * Nothing here, nor in what it imports, needs Node.js.
 *
 * ```ts
 * const client = new OrdoClient("https://ordo.example.com");
 * const game = await client.newGame("six_nimmt", 4);
 * ```
 */

import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";

import { ClientCore, type CommonOptions } from "./core.js";

export * from "./common.js";

/** The settings of a browser client; every one has a default. */
export interface WebClientOptions extends CommonOptions {
  /** `connect` (the default) or `grpc-web`, both served on the server's HTTP port. */
  protocol?: "connect" | "grpc-web";
  /** The encoding: `binary` protobuf (the default), or `json` (Connect only). */
  format?: "binary" | "json";
  /** The `fetch` to call (the global one by default), e.g. one that adds credentials. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A client of an Ordo server's HTTP port at `baseUrl` (e.g. `http://localhost:8080`, or the
 * page's own origin). `close()` ends the calls in flight; the browser keeps its connections.
 */
export class OrdoClient extends ClientCore {
  readonly baseUrl: string;
  readonly protocol: "connect" | "grpc-web";

  constructor(baseUrl: string, options: WebClientOptions = {}) {
    const protocol = options.protocol ?? "connect";
    const common = {
      baseUrl,
      interceptors: [networkErrors],
      useBinaryFormat: protocol === "grpc-web" || options.format !== "json",
      ...(options.fetch ? { fetch: options.fetch } : {}),
    };
    const transport =
      protocol === "grpc-web" ? createGrpcWebTransport(common) : createConnectTransport(common);
    super([{ transport, close: () => undefined }], options);
    this.baseUrl = baseUrl;
    this.protocol = protocol;
  }
}

/**
 * A `fetch` that rejects with a `TypeError` met a network error (the Fetch standard says so): no
 * connection, a connection lost, a CORS refusal. Connect-ES calls it UNKNOWN; it is UNAVAILABLE,
 * a failure on the way to the service, retried as such.
 */
const networkErrors: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    const cause =
      error instanceof ConnectError && error.code === Code.Unknown ? error.cause : error;
    if (cause instanceof TypeError && !request.signal.aborted) {
      throw new ConnectError(cause.message, Code.Unavailable, undefined, undefined, cause);
    }
    throw error;
  }
};
