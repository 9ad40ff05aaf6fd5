/**
 * OrdoClient's retries and connections, against a fake server in this process (Connect-ES's
 * Node.js handler on an HTTP/2 server, which speaks gRPC and Connect): its `ListGames` fails as
 * a test scripts (a status, with or without Ordo's `ErrorInfo`, or a reset HTTP/2 stream), then
 * answers, and it records what each call carried and which connection it came on.
 */

import assert from "node:assert/strict";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, test } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { GameEngineService } from "../src/gen/ordo/v1/engine_service_pb.js";
import { type ClientOptions, OrdoClient, OrdoError, RETRYABLE } from "../src/index.js";

/** A failure to answer with: a status (Ordo's reason makes it an answer), or a stream reset. */
type Failure = { code: Code; reason?: string } | { reset: number };

interface Received {
  requestId: string;
  tenant: string;
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
  private readonly sessions = new Map<http2.Http2Session, number>();
  private readonly server: http2.Http2Server;

  constructor() {
    const adapter = connectNodeAdapter({
      routes: (router) =>
        router.service(GameEngineService, {
          listGames: () => {
            const failure = this.script.shift();
            if (failure !== undefined && "code" in failure) {
              const info = failure.reason
                ? [{ desc: ErrorInfoSchema, value: { reason: failure.reason, domain: "ordo" } }]
                : [];
              throw new ConnectError(`scripted ${Code[failure.code]}`, failure.code, {}, info);
            }
            return {};
          },
        }),
    });
    this.server = http2.createServer((request, response) => {
      this.received.push({
        requestId: String(request.headers["x-request-id"]),
        tenant: String(request.headers["x-tenant"]),
        connection: this.sessions.get(request.stream.session!) ?? -1,
      });
      const next = this.script[0];
      if (next !== undefined && "reset" in next) {
        this.script.shift();
        request.stream.close(next.reset);
        return;
      }
      adapter(request, response);
    });
    this.server.on("session", (session) => this.sessions.set(session, this.sessions.size));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  get target(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): void {
    this.server.close();
    for (const session of this.sessions.keys()) {
      session.destroy();
    }
  }
}

const PROTOCOLS: ClientOptions[] = [
  { protocol: "grpc" },
  { protocol: "connect", httpVersion: "2" },
];

for (const options of PROTOCOLS) {
  describe(`OrdoClient's retries over ${options.protocol}`, () => {
    // A server of its own for each test: a late attempt of one test never reaches another's.
    let fake: FakeServer;
    const quick = { ...options, backoffMs: 1, maxBackoffMs: 5 };
    beforeEach(async () => {
      fake = new FakeServer();
      await fake.start();
    });
    afterEach(() => fake.stop());

    test("retries UNAVAILABLE with the same request id, and answers", async () => {
      fake.script = [{ code: Code.Unavailable }, { code: Code.Unavailable }];
      using client = new OrdoClient(fake.target, { retries: 2, ...quick });
      await client.listGames({ requestId: "again" });
      assert.deepEqual(
        fake.received.map((call) => call.requestId),
        ["again", "again", "again"],
      );
    });

    test("gives up after its retries, with the last failure", async () => {
      fake.script = Array<Failure>(3).fill({ code: Code.Unavailable });
      using client = new OrdoClient(fake.target, { retries: 1, ...quick });
      const error = await client.listGames().catch((failure: unknown) => failure);
      assert.ok(error instanceof OrdoError);
      assert.equal(error.code, Code.Unavailable);
      assert.equal(fake.received.length, 2);
    });

    test("retries by default what failed on the way, not in the service", async () => {
      const failures: [Failure, Code][] = [
        [{ code: Code.Canceled }, Code.Canceled],
        [{ code: Code.ResourceExhausted }, Code.ResourceExhausted],
        [{ code: Code.Internal }, Code.Internal],
        [{ code: Code.Aborted }, Code.Aborted],
        [{ reset: NGHTTP2_CANCEL }, Code.Canceled],
        [{ reset: NGHTTP2_REFUSED_STREAM }, Code.Unavailable],
        [{ reset: NGHTTP2_ENHANCE_YOUR_CALM }, Code.ResourceExhausted],
        [{ reset: NGHTTP2_INTERNAL_ERROR }, Code.Internal],
      ];
      for (const [failure, code] of failures) {
        fake.received.length = 0;
        fake.script = [failure];
        using client = new OrdoClient(fake.target, quick);
        await client.listGames();
        assert.equal(fake.received.length, 2, JSON.stringify(failure));
        fake.script = [failure];
        using once = new OrdoClient(fake.target, { ...quick, retries: 0 });
        const error = await once.listGames().catch((thrown: unknown) => thrown);
        assert.ok(error instanceof OrdoError && error.code === code, String(error));
      }
    });

    test("never retries an answer of the service, nor the codes only an answer carries", async () => {
      const answers: Failure[] = [
        { code: Code.InvalidArgument, reason: "CARD_NOT_IN_HAND" },
        { code: Code.Internal, reason: "INTERNAL" },
        { code: Code.Unavailable, reason: "SOME_REASON" },
        { code: Code.InvalidArgument },
        { code: Code.DeadlineExceeded },
        { code: Code.Unknown },
        { code: Code.FailedPrecondition },
      ];
      for (const answer of answers) {
        fake.received.length = 0;
        fake.script = [answer];
        using client = new OrdoClient(fake.target, { retries: 3, ...quick });
        const error = await client.listGames().catch((failure: unknown) => failure);
        assert.ok(error instanceof OrdoError);
        assert.equal(error.code, (answer as { code: Code }).code);
        assert.equal(error.reason, (answer as { reason?: string }).reason ?? "");
        assert.equal(fake.received.length, 1, JSON.stringify(answer));
      }
    });

    test("retries only the codes it is given", async () => {
      fake.script = [{ code: Code.Canceled }];
      const retryCodes = RETRYABLE.filter((code) => code !== Code.Canceled);
      using client = new OrdoClient(fake.target, { ...quick, retryCodes });
      const error = await client.listGames().catch((failure: unknown) => failure);
      assert.ok(error instanceof OrdoError && error.code === Code.Canceled);
      assert.equal(fake.received.length, 1);
    });

    test("stops retrying at the deadline", async () => {
      fake.script = Array<Failure>(1_000).fill({ code: Code.Unavailable });
      using client = new OrdoClient(fake.target, {
        ...options,
        retries: 1_000,
        backoffMs: 20,
        maxBackoffMs: 20,
        timeoutMs: 300,
      });
      const started = Date.now();
      const error = await client.listGames().catch((failure: unknown) => failure);
      assert.ok(error instanceof OrdoError);
      assert.ok(Date.now() - started < 2_000);
      assert.ok(fake.received.length < 100, `${fake.received.length} attempts`);
    });

    test("sends its metadata and a fresh request id with every call", async () => {
      using client = new OrdoClient(fake.target, { ...options, metadata: { "x-tenant": "t1" } });
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

    test("spreads its calls over its connections, one each", async () => {
      for (const channels of [1, 3]) {
        fake.received.length = 0;
        using client = new OrdoClient(fake.target, { ...options, channels });
        for (let call = 0; call < 2 * channels; call += 1) {
          await client.listGames();
        }
        const connections = new Set(fake.received.map((call) => call.connection));
        assert.equal(connections.size, channels);
      }
    });

    test("takes several servers in turn, and retries a failed call on the next", async () => {
      const other = new FakeServer();
      await other.start();
      try {
        fake.script = Array<Failure>(10).fill({ reset: NGHTTP2_REFUSED_STREAM });
        using client = new OrdoClient([fake.target, other.target], quick);
        for (let call = 0; call < 5; call += 1) {
          await client.listGames();
        }
        assert.equal(fake.received.length, 5);
        assert.equal(other.received.length, 5);
      } finally {
        other.stop();
      }
    });
  });
}
