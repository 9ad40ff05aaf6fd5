/**
 * The Node.js client against a real Ordo server: `ORDO_TARGET` (host:port, plaintext) and, for
 * TLS, `ORDO_TLS_TARGET` with `ORDO_CA_FILE` (the PEM its certificate is signed with);
 * `ORDO_CLOSED_TARGET` is an address nothing listens on. `tests/clients/test_node_client.py`
 * starts the servers and runs this file with `node --test`.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import {
  Client as GrpcClient,
  credentials,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";

import { ErrorInfo } from "../src/gen/google/rpc/error_details.js";
import { Status } from "../src/gen/google/rpc/status.js";
import { ALSO_RETRYABLE, gameOptions, OrdoClient, OrdoError, RETRYABLE, v1 } from "../src/index.js";

function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: run these tests through tests/clients/test_node_client.py`,
    );
  }
  return value;
}

const TARGET = env("ORDO_TARGET");
const CLOSED_TARGET = env("ORDO_CLOSED_TARGET");
const MAX_ACTIONS = 5_000;

/** The error a promise is rejected with (the test fails when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("the call succeeded");
}

async function ordoError(promise: Promise<unknown>): Promise<OrdoError> {
  const error = await rejection(promise);
  assert.ok(error instanceof OrdoError, `not an OrdoError: ${String(error)}`);
  return error;
}

describe("OrdoClient against a real server", () => {
  let client: OrdoClient;
  let games: v1.GameInfo[];

  before(async () => {
    client = new OrdoClient(TARGET);
    games = (await client.listGames()).games;
  });
  after(() => client.close());

  test("lists the four games, each with its bot policies", () => {
    assert.deepEqual(games.map((game) => game.id).sort(), [
      "fora_de_ordem",
      "sequence_numbers",
      "six_nimmt",
      "up_or_down",
    ]);
    for (const game of games) {
      assert.ok(game.policies.includes("heuristic") && game.policies.includes("random"));
      assert.ok(game.minSeats >= 2 && game.maxSeats >= game.minSeats);
    }
  });

  test("keeps a 64-bit seed exact, beyond a JS number's precision", async () => {
    const seed = 2n ** 63n + 12_345n;
    const first = await client.newGame("six_nimmt", 4, { seed });
    const second = await client.newGame("six_nimmt", 4, { seed });
    assert.equal(first.seed, seed);
    assert.deepEqual(first.state, second.state);
    const other = await client.newGame("six_nimmt", 4, { seed: seed + 1n });
    assert.notDeepEqual(first.state, other.state);
  });

  test("lets the server pick the seed when it is 0", async () => {
    const game = await client.newGame("six_nimmt", 3);
    assert.ok(game.seed > 0n);
  });

  test("plays every game to its end with the bots, one revision per action", async () => {
    for (const info of games) {
      const seats = info.seatCounts[0] ?? info.minSeats;
      const started = await client.newGame(info.id, seats, { seed: 11n });
      let state = started.state!;
      let status = started.status!;
      let actions = 0;
      while (!status.finished) {
        assert.ok(actions < MAX_ACTIONS, `${info.id} does not end`);
        const seat = status.seatsToAct[0];
        const { action } = await client.suggestAction(state, seat, { policy: "random", seed: 5 });
        const applied = await client.applyAction(state, action!);
        assert.equal(applied.state!.revision, state.revision + 1n);
        state = applied.state!;
        status = applied.status!;
        actions += 1;
      }
      assert.ok(status.outcome!.winners.length >= 1, `${info.id} has no winner`);
      assert.equal(status.outcome!.scores.length, seats);
    }
  });

  test("sends a state back byte for byte as the server wrote it", async () => {
    // The server's state cache knows a state by its bytes: a client that re-encodes a state
    // differently would make every call decode and validate it again.
    const raw = new GrpcClient(TARGET, credentials.createInsecure());
    const call = (method: string, request: Uint8Array): Promise<Buffer> =>
      new Promise((resolve, reject) => {
        raw.makeUnaryRequest(
          `/ordo.v1.GameEngineService/${method}`,
          (bytes: Uint8Array) => Buffer.from(bytes),
          (bytes: Buffer) => bytes,
          request,
          (error: ServiceError | null, response?: Buffer) =>
            error ? reject(error) : resolve(response!),
        );
      });
    try {
      for (const info of games) {
        const seats = info.seatCounts.at(-1) ?? info.maxSeats;
        const newGame = v1.NewGameRequest.fromPartial({
          options: gameOptions(info.id),
          seats,
          seed: 3,
        });
        let bytes = await call("NewGame", v1.NewGameRequest.encode(newGame).finish());
        const started = v1.NewGameResponse.decode(bytes);
        assert.deepEqual(Buffer.from(v1.NewGameResponse.encode(started).finish()), bytes);
        let state = started.state!;
        let status = started.status!;
        for (let step = 0; step < 40 && !status.finished; step += 1) {
          const { action } = await client.suggestAction(state, status.seatsToAct[0]);
          const request = v1.ApplyActionRequest.fromPartial({ state, action });
          bytes = await call("ApplyAction", v1.ApplyActionRequest.encode(request).finish());
          const applied = v1.ApplyActionResponse.decode(bytes);
          assert.deepEqual(
            Buffer.from(v1.ApplyActionResponse.encode(applied).finish()),
            bytes,
            `${info.id}: the response re-encodes differently at step ${step}`,
          );
          state = applied.state!;
          status = applied.status!;
        }
      }
    } finally {
      raw.close();
    }
  });

  test("lists the legal actions, and each of them validates", async () => {
    const { state } = await client.newGame("six_nimmt", 4, { seed: 9 });
    const { actions } = await client.listLegalActions(state!, 2);
    assert.equal(actions.length, 10);
    for (const action of actions) {
      assert.equal(action.seat, 2);
      assert.deepEqual(
        await client.validateAction(state!, action),
        v1.ValidateActionResponse.fromPartial({ legal: true }),
      );
    }
  });

  test("shows a seat its own hand and a spectator no hand", async () => {
    const { state } = await client.newGame("six_nimmt", 4, { seed: 9 });
    const seat = await client.getView(state!, 1);
    const spectator = await client.getView(state!);
    assert.equal(seat.view?.game?.$case, "sixNimmt");
    assert.equal(spectator.view?.game?.$case, "sixNimmt");
    const own = seat.view!.game!.value as v1.SixNimmtView;
    const seen = spectator.view!.game!.value as v1.SixNimmtView;
    assert.equal(own.hand.length, 10);
    assert.equal(seen.hand.length, 0);
  });

  test("rejects an illegal action with its reason and the call's request id", async () => {
    const { state } = await client.newGame("six_nimmt", 4, { seed: 9 });
    const { actions } = await client.listLegalActions(state!, 0);
    const hand = new Set(
      actions.map((action) => (action.game!.value as v1.SixNimmtAction).move!.value),
    );
    const card = [...Array(104).keys()].map((index) => index + 1).find((card) => !hand.has(card));
    const move = { $case: "selectCard" as const, value: card! };
    const action = { seat: 0, game: { $case: "sixNimmt" as const, value: { move } } };
    const error = await ordoError(
      client.applyAction(state!, action, { requestId: "node-illegal-1" }),
    );
    assert.equal(error.code, status.INVALID_ARGUMENT);
    assert.equal(error.codeName, "INVALID_ARGUMENT");
    assert.equal(error.reason, "CARD_NOT_IN_HAND");
    assert.equal(error.requestId, "node-illegal-1");
    assert.match(error.message, /^INVALID_ARGUMENT CARD_NOT_IN_HAND: /);
    const verdict = await client.validateAction(state!, action);
    assert.equal(verdict.legal, false);
    assert.equal(verdict.reason, "CARD_NOT_IN_HAND");
  });

  test("rejects a tampered state, and options that select no game", async () => {
    const { state } = await client.newGame("six_nimmt", 4, { seed: 9 });
    const tampered = structuredClone(state!);
    (tampered.game!.value as v1.SixNimmtState).handCards[0] = 200;
    const bad = await ordoError(client.listLegalActions(tampered, 0));
    assert.equal(bad.code, status.INVALID_ARGUMENT);
    assert.ok(bad.reason.length > 0);
    const unselected = await ordoError(client.newGame({}, 4));
    assert.equal(unselected.reason, "GAME_NOT_SELECTED");
  });

  test("refuses an unknown game id before calling", () => {
    assert.throws(() => gameOptions("chess"), TypeError);
    assert.throws(() => gameOptions({ game: undefined }, {}), TypeError);
  });

  test("deals with a game's options", async () => {
    const options = { tacticalDeck: true, threshold: 40 };
    const { state } = await client.newGame("six_nimmt", 4, { seed: 9, options });
    const dealt = state!.game!.value as v1.SixNimmtState;
    assert.equal(dealt.options!.tacticalDeck, true);
    assert.equal(dealt.options!.threshold, 40);
  });

  test("spreads calls over several connections", async () => {
    const spread = new OrdoClient(TARGET, { channels: 3 });
    try {
      assert.equal(spread.channelCount, 3);
      for (let call = 0; call < 6; call += 1) {
        assert.equal((await spread.listGames()).games.length, games.length);
      }
    } finally {
      spread.close();
    }
  });
});

describe("OrdoClient's failures", () => {
  test("an unreachable server is UNAVAILABLE, after the retries", async () => {
    const unreachable = new OrdoClient(CLOSED_TARGET, {
      retries: 2,
      backoffMs: 1,
      maxBackoffMs: 5,
    });
    try {
      const error = await ordoError(unreachable.listGames({ requestId: "node-unreachable" }));
      assert.equal(error.code, status.UNAVAILABLE);
      assert.equal(error.reason, "");
      assert.equal(error.requestId, "node-unreachable");
    } finally {
      unreachable.close();
    }
  });

  test("with waitForReady, a call to an absent server waits until its deadline", async () => {
    const waiting = new OrdoClient(CLOSED_TARGET, { waitForReady: true, timeoutMs: 300 });
    try {
      const started = Date.now();
      const error = await ordoError(waiting.listGames());
      assert.equal(error.code, status.DEADLINE_EXCEEDED);
      assert.ok(Date.now() - started >= 250);
    } finally {
      waiting.close();
    }
  });

  test("a cancelled call is CANCELLED and never retried", async () => {
    const client = new OrdoClient(TARGET, { retryCodes: [...RETRYABLE, ...ALSO_RETRYABLE] });
    try {
      const aborted = new AbortController();
      aborted.abort();
      const error = await ordoError(client.listGames({ signal: aborted.signal }));
      assert.equal(error.code, status.CANCELLED);
      const waiting = new OrdoClient(CLOSED_TARGET, { waitForReady: true, timeoutMs: 10_000 });
      try {
        const later = new AbortController();
        const call = waiting.listGames({ signal: later.signal });
        setTimeout(() => later.abort(), 50);
        assert.equal((await ordoError(call)).code, status.CANCELLED);
      } finally {
        waiting.close();
      }
    } finally {
      client.close();
    }
  });

  test("closing the client ends its calls in flight with CANCELLED", async () => {
    for (const retries of [0, 3]) {
      const waiting = new OrdoClient(CLOSED_TARGET, {
        waitForReady: true,
        timeoutMs: 10_000,
        retries,
      });
      const started = Date.now();
      const call = waiting.listGames({ requestId: "node-closed" });
      setTimeout(() => waiting.close(), 50);
      const error = await ordoError(call);
      assert.equal(error.code, status.CANCELLED);
      assert.equal(error.requestId, "node-closed");
      assert.ok(Date.now() - started < 5_000);
    }
  });

  test("a request that cannot be encoded rejects with a RangeError, unsent", async () => {
    // Were it sent, the call would wait for the absent server until its deadline.
    const waiting = new OrdoClient(CLOSED_TARGET, { waitForReady: true, timeoutMs: 60_000 });
    const state = { revision: 1n };
    try {
      for (const call of [
        () => waiting.newGame("six_nimmt", -1),
        () => waiting.newGame("six_nimmt", 4, { seed: 2n ** 64n }),
        () => waiting.listLegalActions(state, 1.5),
        () => waiting.getView(state, -2),
      ]) {
        const error = await rejection(call());
        assert.ok(error instanceof RangeError, String(error));
        assert.match(error.message, /^the request cannot be encoded: /);
      }
      assert.ok((await rejection(waiting.newGame("chess", 2))) instanceof TypeError);
    } finally {
      waiting.close();
    }
  });

  test("a client declared with using is closed at the end of its block", async () => {
    let kept: OrdoClient;
    {
      using client = new OrdoClient(TARGET);
      kept = client;
      assert.equal((await client.listGames()).games.length, 4);
    }
    assert.equal(kept.closed, true);
  });

  test("a closed client refuses calls", async () => {
    const closed = new OrdoClient(TARGET);
    closed.close();
    assert.equal(closed.closed, true);
    const error = await rejection(closed.listGames());
    assert.ok(error instanceof Error && /closed/.test(error.message));
  });

  test("refuses settings that make no sense", () => {
    assert.throws(() => new OrdoClient(TARGET, { channels: 0 }), RangeError);
    assert.throws(() => new OrdoClient(TARGET, { timeoutMs: 0 }), RangeError);
    assert.throws(() => new OrdoClient(TARGET, { backoffMs: 10, maxBackoffMs: 5 }), RangeError);
    assert.throws(
      () => new OrdoClient(TARGET, { retryCodes: [status.INVALID_ARGUMENT] }),
      RangeError,
    );
  });

  test("reads ErrorInfo from a rich status, and ignores one that contradicts the code", () => {
    const metadata = new Metadata();
    const details = encodeStatus(status.INVALID_ARGUMENT, "bad", "SOME_REASON");
    metadata.set("grpc-status-details-bin", details);
    const error = Object.assign(new Error("bad"), {
      code: status.INVALID_ARGUMENT,
      details: "bad",
      metadata,
    });
    const read = OrdoError.fromServiceError(error, "rid");
    assert.equal(read.reason, "SOME_REASON");
    assert.deepEqual(read.metadata, { field: "seat" });
    assert.equal(read.requestId, "rid");
    const garbled = new Metadata(); // a status whose ErrorInfo is cut short
    const cut = Buffer.from([0x0a, 0xff, 0xff]);
    const garbledStatus = Status.encode({
      code: status.INVALID_ARGUMENT,
      message: "bad",
      details: [{ typeUrl: "type.googleapis.com/google.rpc.ErrorInfo", value: cut }],
    }).finish();
    garbled.set("grpc-status-details-bin", Buffer.from(garbledStatus));
    const unread = OrdoError.fromServiceError({ ...error, metadata: garbled });
    assert.equal(unread.reason, "");
    assert.equal(unread.details, "bad");
    const contradicting = OrdoError.fromServiceError({ ...error, code: status.INTERNAL });
    assert.equal(contradicting.reason, "");
    assert.equal(contradicting.code, status.INTERNAL);
  });
});

describe("OrdoClient over TLS", { skip: !process.env.ORDO_TLS_TARGET }, () => {
  test("plays with a client that trusts the server's CA, and fails in plaintext", async () => {
    const target = env("ORDO_TLS_TARGET");
    const trusted = new OrdoClient(target, {
      credentials: credentials.createSsl(readFileSync(env("ORDO_CA_FILE"))),
    });
    const plaintext = new OrdoClient(target, { retries: 0 });
    try {
      assert.equal((await trusted.listGames()).games.length, 4);
      assert.equal((await ordoError(plaintext.listGames())).code, status.UNAVAILABLE);
    } finally {
      trusted.close();
      plaintext.close();
    }
  });
});

function encodeStatus(code: status, message: string, reason: string): Buffer {
  const info = ErrorInfo.encode({ reason, domain: "ordo", metadata: { field: "seat" } }).finish();
  const rich = Status.encode({
    code,
    message,
    details: [{ typeUrl: "type.googleapis.com/google.rpc.ErrorInfo", value: Buffer.from(info) }],
  }).finish();
  return Buffer.from(rich);
}
