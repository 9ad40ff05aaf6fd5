/**
 * OrdoClient's retries and connections, Node.js's and the browser entry's, against a fake server
 * in this process (Connect-ES's Node.js handler, which speaks gRPC, gRPC-Web and Connect, on an
 * HTTP/2 or an HTTP/1.1 server): its `ListGames` fails as a test scripts (a status, with or
 * without Ordo's `ErrorInfo`, a reset HTTP/2 stream, or a dropped connection), then answers, and
 * it records what each call carried and which connection it came on.
 */

import assert from "node:assert/strict";
import * as http from "node:http";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, test } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { GameEngineService } from "../src/gen/ordo/v1/engine_service_pb.js";
import { type CommonOptions, OrdoClient, OrdoError, RETRYABLE } from "../src/index.js";
import { OrdoClient as WebClient } from "../src/web.js";

/**
 * A failure to answer with: a status (Ordo's reason makes it an answer), a reset of the call's
 * HTTP/2 stream, or (HTTP/1.1) its connection dropped.
 */
type Failure =
  | { code: Code; reason?: string; metadata?: Record<string, string> }
  | { reset: number }
  | { drop: true };

interface Received {
  requestId: string;
  tenant: string;
  seatToken: string;
  connection: number;
}

const {
  NGHTTP2_CANCEL,
  NGHTTP2_REFUSED_STREAM,
  NGHTTP2_ENHANCE_YOUR_CALM,
  NGHTTP2_INTERNAL_ERROR,
} = http2.constants;

/** A server whose ListGames fails with each failure of `script` in turn, then answers. */
class FakeServer {
  readonly received: Received[] = [];
  script: Failure[] = [];
  private readonly connections = new Map<object, number>();
  private readonly server: http.Server | http2.Http2Server;

  constructor(httpVersion: "1.1" | "2") {
    const adapter = connectNodeAdapter({
      routes: (router) =>
        router.service(GameEngineService, {
          listGames: () => {
            const failure = this.script.shift();
            if (failure !== undefined && "code" in failure) {
              const value = { reason: failure.reason, domain: "ordo", metadata: failure.metadata };
              const info = failure.reason ? [{ desc: ErrorInfoSchema, value }] : [];
              throw new ConnectError(`scripted ${Code[failure.code]}`, failure.code, {}, info);
            }
            return {};
          },
        }),
    });
    const handle = (
      request: http.IncomingMessage | http2.Http2ServerRequest,
      response: http.ServerResponse | http2.Http2ServerResponse,
      connection: object,
    ): void => {
      this.received.push({
        requestId: String(request.headers["x-request-id"]),
        tenant: String(request.headers["x-tenant"]),
        seatToken: String(request.headers["ordo-seat-token"] ?? ""),
        connection: this.connections.get(connection) ?? -1,
      });
      const next = this.script[0];
      if (next !== undefined && ("reset" in next || "drop" in next)) {
        this.script.shift();
        if ("reset" in next && request instanceof http2.Http2ServerRequest) {
          request.stream.close(next.reset);
        } else {
          request.socket.destroy();
        }
        return;
      }
      adapter(request, response);
    };
    if (httpVersion === "2") {
      this.server = http2.createServer((request, response) =>
        handle(request, response, request.stream.session!),
      );
      this.server.on("session", (session) => this.track(session));
    } else {
      this.server = http.createServer((request, response) =>
        handle(request, response, request.socket),
      );
      this.server.on("connection", (socket) => this.track(socket));
    }
  }

  private track(connection: object): void {
    this.connections.set(connection, this.connections.size);
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  get target(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): void {
    this.server.close();
    for (const connection of this.connections.keys()) {
      (connection as { destroy(): void }).destroy();
    }
  }
}

/** A client under test: one protocol of one entry, and the server it needs. */
interface Variant {
  name: string;
  httpVersion: "1.1" | "2";
  /** Node.js's client, which takes several connections and targets. */
  node: boolean;
  client(target: string | string[], options: CommonOptions & { channels?: number }): Client;
}
type Client = Pick<OrdoClient, "listGames" | typeof Symbol.dispose>;

const VARIANTS: Variant[] = [
  {
    name: "gRPC",
    httpVersion: "2",
    node: true,
    client: (target, options) => new OrdoClient(target, { ...options, protocol: "grpc" }),
  },
  {
    name: "Connect over HTTP/2",
    httpVersion: "2",
    node: true,
    client: (target, options) =>
      new OrdoClient(target, { ...options, protocol: "connect", httpVersion: "2" }),
  },
  {
    name: "Connect over HTTP/1.1",
    httpVersion: "1.1",
    node: true,
    client: (target, options) => new OrdoClient(target, { ...options, protocol: "connect" }),
  },
  {
    name: "Connect from the browser entry",
    httpVersion: "1.1",
    node: false,
    client: (target, options) => new WebClient(`http://${String(target)}`, options),
  },
  {
    name: "gRPC-Web from the browser entry",
    httpVersion: "1.1",
    node: false,
    client: (target, options) =>
      new WebClient(`http://${String(target)}`, { ...options, protocol: "grpc-web" }),
  },
];

for (const variant of VARIANTS) {
  describe(`OrdoClient's retries over ${variant.name}`, () => {
    // A server of its own for each test: a late attempt of one test never reaches another's.
    let fake: FakeServer;
    const quick = { backoffMs: 1, maxBackoffMs: 5 };
    const connect = (options: CommonOptions & { channels?: number } = {}): Client =>
      variant.client(fake.target, { ...quick, ...options });
    // What a call meets when its connection goes away under it.
    const lost: Failure =
      variant.httpVersion === "2" ? { reset: NGHTTP2_REFUSED_STREAM } : { drop: true };
    beforeEach(async () => {
      fake = new FakeServer(variant.httpVersion);
      await fake.start();
    });
    afterEach(() => fake.stop());

    test("retries UNAVAILABLE with the same request id, and answers", async () => {
      fake.script = [{ code: Code.Unavailable }, { code: Code.Unavailable }];
      using client = connect({ retries: 2 });
      await client.listGames({ requestId: "again" });
      assert.deepEqual(
        fake.received.map((call) => call.requestId),
        ["again", "again", "again"],
      );
    });

    test("gives up after its retries, with the last failure", async () => {
      fake.script = Array<Failure>(3).fill({ code: Code.Unavailable });
      using client = connect({ retries: 1 });
      const error = await client.listGames().catch((failure: unknown) => failure);
      assert.ok(error instanceof OrdoError);
      assert.equal(error.code, Code.Unavailable);
      assert.equal(fake.received.length, 2);
    });

    test("retries by default what failed on the way, not in the service", async () => {
      // Each failure, and the code it fails the call with when not retried.
      const failures: [Failure, Code][] = [
        [{ code: Code.Unavailable }, Code.Unavailable],
        [{ code: Code.Canceled }, Code.Canceled],
        [{ code: Code.Internal }, Code.Internal],
        [{ code: Code.Unknown }, Code.Unknown],
        [lost, Code.Unavailable],
      ];
      if (variant.httpVersion === "2") {
        failures.push(
          [{ reset: NGHTTP2_CANCEL }, Code.Canceled],
          [{ reset: NGHTTP2_REFUSED_STREAM }, Code.Unavailable],
          [{ reset: NGHTTP2_INTERNAL_ERROR }, Code.Internal],
        );
      }
      for (const [failure, code] of failures) {
        fake.received.length = 0;
        fake.script = [failure];
        using client = connect();
        await client.listGames();
        assert.equal(fake.received.length, 2, JSON.stringify(failure));
        fake.script = [failure];
        using once = connect({ retries: 0 });
        const error = await once.listGames().catch((thrown: unknown) => thrown);
        assert.ok(error instanceof OrdoError, String(error));
        assert.equal(error.reason, "");
        assert.equal(error.code, code, error.message);
      }
    });

    test("never retries an answer of the service, a limit, nor the codes only an answer carries", async () => {
      // Each failure, and the code it fails the call with.
      const answers: [Failure, Code][] = [
        [{ code: Code.InvalidArgument, reason: "CARD_NOT_IN_HAND" }, Code.InvalidArgument],
        [{ code: Code.Internal, reason: "INTERNAL" }, Code.Internal],
        [{ code: Code.Unavailable, reason: "SOME_REASON" }, Code.Unavailable],
        [{ code: Code.Unknown, reason: "SOME_REASON" }, Code.Unknown],
        [{ code: Code.InvalidArgument }, Code.InvalidArgument],
        [{ code: Code.DeadlineExceeded }, Code.DeadlineExceeded],
        [{ code: Code.ResourceExhausted }, Code.ResourceExhausted],
        [{ code: Code.Aborted }, Code.Aborted],
        [{ code: Code.FailedPrecondition }, Code.FailedPrecondition],
        [{ code: Code.Unauthenticated, reason: "SEAT_TOKEN_MISSING" }, Code.Unauthenticated],
        [{ code: Code.Unauthenticated, reason: "SEAT_TOKEN_INVALID" }, Code.Unauthenticated],
        [{ code: Code.PermissionDenied, reason: "SEAT_NOT_PERMITTED" }, Code.PermissionDenied],
        [{ code: Code.PermissionDenied, reason: "NOT_A_BOT_SEAT" }, Code.PermissionDenied],
        [
          { code: Code.PermissionDenied, reason: "BOT_SETTINGS_NOT_PERMITTED" },
          Code.PermissionDenied,
        ],
        [{ code: Code.PermissionDenied, reason: "SEED_NOT_PERMITTED" }, Code.PermissionDenied],
        [{ code: Code.FailedPrecondition, reason: "STATE_SUPERSEDED" }, Code.FailedPrecondition],
      ];
      if (variant.httpVersion === "2") {
        answers.push([{ reset: NGHTTP2_ENHANCE_YOUR_CALM }, Code.ResourceExhausted]);
      }
      for (const [answer, code] of answers) {
        fake.received.length = 0;
        fake.script = [answer];
        using client = connect({ retries: 3 });
        const error = await client.listGames().catch((failure: unknown) => failure);
        assert.ok(error instanceof OrdoError, String(error));
        assert.equal(error.code, code, error.message);
        assert.equal(error.reason, ("reason" in answer && answer.reason) || "");
        assert.equal(fake.received.length, 1, JSON.stringify(answer));
      }
    });

    test("retries the revision store's unavailability, an answer a retry may change", async () => {
      const unavailable = { code: Code.Unavailable, reason: "REVISION_STORE_UNAVAILABLE" };
      fake.script = [unavailable, unavailable];
      using client = connect({ retries: 3 });
      await client.listGames();
      assert.equal(fake.received.length, 3);
    });

    test("retries a move whose outcome is unknown, which the same request settles", async () => {
      fake.script = [{ code: Code.Unavailable, reason: "REVISION_STORE_OUTCOME_UNKNOWN" }];
      using client = connect({ retries: 3 });
      await client.listGames();
      assert.equal(fake.received.length, 2);
    });

    test("retries a busy worker no sooner than the delay it names", async () => {
      const busy = {
        code: Code.ResourceExhausted,
        reason: "SERVER_BUSY",
        metadata: { retry_after_ms: "150" },
      };
      fake.script = [busy];
      using client = connect({ retries: 3 });
      const started = Date.now();
      await client.listGames();
      assert.equal(fake.received.length, 2);
      assert.ok(Date.now() - started >= 150);
    });

    test("sends its seat token with every call, and a call's own in its place", async () => {
      using client = connect({ seatToken: "o1.k.m.0.mac" });
      await client.listGames();
      await client.listGames({ seatToken: "o1.k.m.2.mac" });
      await client.listGames({ seatToken: "" });
      using without = connect();
      await without.listGames();
      assert.deepEqual(
        fake.received.map((call) => call.seatToken),
        ["o1.k.m.0.mac", "o1.k.m.2.mac", "", ""],
      );
    });

    test("retries only the codes it is given", async () => {
      fake.script = [{ code: Code.Canceled }];
      using client = connect({ retryCodes: RETRYABLE.filter((code) => code !== Code.Canceled) });
      const error = await client.listGames().catch((failure: unknown) => failure);
      assert.ok(error instanceof OrdoError && error.code === Code.Canceled);
      assert.equal(fake.received.length, 1);
    });

    test("stops retrying at the deadline", async () => {
      fake.script = Array<Failure>(1_000).fill({ code: Code.Unavailable });
      using client = connect({ retries: 1_000, backoffMs: 20, maxBackoffMs: 20, timeoutMs: 300 });
      const started = Date.now();
      const error = await client.listGames().catch((failure: unknown) => failure);
      assert.ok(error instanceof OrdoError);
      assert.ok(Date.now() - started < 2_000);
      assert.ok(fake.received.length < 100, `${fake.received.length} attempts`);
    });

    test("sends its metadata and a fresh request id with every call", async () => {
      using client = connect({ metadata: { "x-tenant": "t1" } });
      await client.listGames();
      await client.listGames();
      const [first, second] = fake.received.map((call) => call.requestId);
      assert.match(first, /^[0-9a-f]{32}$/);
      assert.notEqual(first, second);
      assert.deepEqual(
        fake.received.map((call) => call.tenant),
        ["t1", "t1"],
      );
    });

    // Only Node.js's client opens connections of its own, to one or several servers.
    if (variant.node) {
      test("spreads its calls over its connections, one each", async () => {
        for (const channels of [1, 3]) {
          fake.received.length = 0;
          using client = connect({ channels });
          for (let call = 0; call < 2 * channels; call += 1) {
            await client.listGames();
          }
          const connections = new Set(fake.received.map((call) => call.connection));
          assert.equal(connections.size, channels);
        }
      });

      test("takes several servers in turn, and retries a failed call on the next", async () => {
        const other = new FakeServer(variant.httpVersion);
        await other.start();
        try {
          fake.script = Array<Failure>(10).fill(lost);
          using client = variant.client([fake.target, other.target], quick);
          for (let call = 0; call < 5; call += 1) {
            await client.listGames();
          }
          assert.equal(fake.received.length, 5);
          assert.equal(other.received.length, 5);
        } finally {
          other.stop();
        }
      });
    }
  });
}
