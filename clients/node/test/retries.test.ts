/**
 * OrdoClient's retries and connections, against a fake server in this process (grpc-js): it
 * answers `ListGames` with the codes a test scripts, and records what each call carried and
 * which connection it came on.
 */

import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";

import {
  Metadata,
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  status,
} from "@grpc/grpc-js";

import { GameEngineServiceService } from "../src/gen/ordo/v1/engine_service.js";
import { ALSO_RETRYABLE, OrdoClient, OrdoError, RETRYABLE, v1 } from "../src/index.js";

interface Received {
  requestId: string;
  tenant: string;
  peer: string;
}

/** A server whose ListGames fails with each code of `script` in turn, then answers. */
class FakeServer {
  readonly server = new Server();
  readonly received: Received[] = [];
  script: status[] = [];
  port = 0;

  async start(): Promise<void> {
    this.server.addService(GameEngineServiceService, {
      listGames: (
        call: ServerUnaryCall<v1.ListGamesRequest, v1.ListGamesResponse>,
        reply: sendUnaryData<v1.ListGamesResponse>,
      ) => {
        const [requestId] = call.metadata.get("x-request-id");
        const [tenant] = call.metadata.get("x-tenant");
        this.received.push({
          requestId: String(requestId),
          tenant: String(tenant),
          peer: call.getPeer(),
        });
        const code = this.script.shift();
        if (code === undefined) {
          reply(null, v1.ListGamesResponse.fromPartial({}));
        } else {
          reply({ code, details: `scripted ${status[code]}`, metadata: new Metadata() });
        }
      },
    });
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );
  }

  get target(): string {
    return `127.0.0.1:${this.port}`;
  }
}

describe("OrdoClient's retries", () => {
  // A server of its own for each test: a late attempt of one test never reaches another's.
  let fake: FakeServer;
  const quick = { backoffMs: 1, maxBackoffMs: 5 };
  beforeEach(async () => {
    fake = new FakeServer();
    await fake.start();
  });
  afterEach(() => fake.server.forceShutdown());

  test("retries UNAVAILABLE with the same request id, and answers", async () => {
    fake.script = [status.UNAVAILABLE, status.UNAVAILABLE];
    using client = new OrdoClient(fake.target, { retries: 2, ...quick });
    await client.listGames({ requestId: "again" });
    assert.deepEqual(
      fake.received.map((call) => call.requestId),
      ["again", "again", "again"],
    );
  });

  test("gives up after its retries, with the last failure", async () => {
    fake.script = [status.UNAVAILABLE, status.UNAVAILABLE, status.UNAVAILABLE];
    using client = new OrdoClient(fake.target, { retries: 1, ...quick });
    const error = await client.listGames().catch((failure: unknown) => failure);
    assert.ok(error instanceof OrdoError);
    assert.equal(error.code, status.UNAVAILABLE);
    assert.equal(fake.received.length, 2);
  });

  test("never retries a code a server answered with", async () => {
    for (const code of [status.INVALID_ARGUMENT, status.INTERNAL, status.DEADLINE_EXCEEDED]) {
      fake.received.length = 0;
      fake.script = [code];
      using client = new OrdoClient(fake.target, { retries: 3, ...quick });
      const error = await client.listGames().catch((failure: unknown) => failure);
      assert.ok(error instanceof OrdoError);
      assert.equal(error.code, code);
      assert.equal(fake.received.length, 1, status[code]);
    }
  });

  test("retries CANCELLED only when asked to", async () => {
    fake.script = [status.CANCELLED];
    using plain = new OrdoClient(fake.target, { retries: 3, ...quick });
    const error = await plain.listGames().catch((failure: unknown) => failure);
    assert.ok(error instanceof OrdoError && error.code === status.CANCELLED);
    assert.equal(fake.received.length, 1);
    fake.script = [status.CANCELLED];
    const retryCodes = [...RETRYABLE, ...ALSO_RETRYABLE];
    using asked = new OrdoClient(fake.target, { retries: 3, retryCodes, ...quick });
    await asked.listGames();
    assert.equal(fake.received.length, 3);
  });

  test("stops retrying at the deadline", async () => {
    fake.script = Array<status>(1_000).fill(status.UNAVAILABLE);
    using client = new OrdoClient(fake.target, {
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
    using client = new OrdoClient(fake.target, { metadata: { "x-tenant": "t1" } });
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
      using client = new OrdoClient(fake.target, { channels });
      for (let call = 0; call < 2 * channels; call += 1) {
        await client.listGames();
      }
      const peers = new Set(fake.received.map((call) => call.peer));
      assert.equal(peers.size, channels);
    }
  });
});
