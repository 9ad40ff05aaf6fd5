/**
 * The TypeScript client against a real Ordo server, over gRPC (`ORDO_TARGET`, host:port of the
 * gRPC port) and over Connect (`ORDO_HTTP_TARGET`, host:port of the HTTP port); for TLS,
 * `ORDO_TLS_TARGET` with `ORDO_CA_FILE` (the PEM its certificate is signed with);
 * `ORDO_CLOSED_TARGET` is an address nothing listens on. `tests/clients/test_node_client.py`
 * starts the servers and runs this file with `node --test`.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as http2 from "node:http2";
import { after, before, describe, test } from "node:test";

import {
  create,
  type DescMessage,
  fromBinary,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";

import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { OrdoClient as WebClient } from "../src/web.js";
import {
  Code,
  type CommonOptions,
  gameOptions,
  OrdoClient,
  OrdoError,
  RETRYABLE,
  sealedInfo,
  v1,
} from "../src/index.js";

function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: run these tests through tests/clients/test_node_client.py`,
    );
  }
  return value;
}

const CLOSED_TARGET = env("ORDO_CLOSED_TARGET");
const MAX_ACTIONS = 5_000;
const FIRST_ACTIONS = 30;
type Protocol = "grpc" | "connect";
const HTTP_TARGET = process.env.ORDO_HTTP_TARGET;

/** A way to the server: a client of one entry over one protocol, and its door. */
interface Door {
  name: string;
  /** The protocol of the raw calls that check the bytes (none through gRPC-Web). */
  raw?: Protocol;
  target: string | undefined;
  /** Node.js's client, which opens connections of its own. */
  node: boolean;
  client(target: string, options?: CommonOptions & { channels?: number }): OrdoClient | WebClient;
}

const DOORS: Door[] = [
  {
    name: "gRPC",
    raw: "grpc",
    target: env("ORDO_TARGET"),
    node: true,
    client: (target, options) => new OrdoClient(target, options),
  },
  {
    name: "Connect",
    raw: "connect",
    target: HTTP_TARGET,
    node: true,
    client: (target, options) => new OrdoClient(target, { ...options, protocol: "connect" }),
  },
  {
    name: "Connect from the browser entry",
    raw: "connect",
    target: HTTP_TARGET,
    node: false,
    client: (target, options) => new WebClient(`http://${target}`, options),
  },
  {
    name: "gRPC-Web from the browser entry",
    target: HTTP_TARGET,
    node: false,
    client: (target, options) =>
      new WebClient(`http://${target}`, { ...options, protocol: "grpc-web" }),
  },
];

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

/**
 * One call made without the client: the request's bytes as given, the response's bytes as the
 * server wrote them (gRPC: HTTP/2 with gRPC's framing; Connect: a POST of binary protobuf).
 */
async function rawCall(
  protocol: Protocol,
  target: string,
  method: string,
  request: Uint8Array,
): Promise<Uint8Array> {
  const path = `/ordo.v1.GameEngineService/${method}`;
  if (protocol === "connect") {
    const response = await fetch(`http://${target}${path}`, {
      method: "POST",
      headers: { "content-type": "application/proto" },
      body: request,
    });
    assert.equal(response.status, 200);
    return new Uint8Array(await response.arrayBuffer());
  }
  const session = http2.connect(`http://${target}`);
  try {
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
    });
    const frame = Buffer.alloc(5 + request.length);
    frame.writeUInt32BE(request.length, 1);
    frame.set(request, 5);
    stream.end(frame);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    assert.equal(body.readUInt32BE(1), body.length - 5, "one whole uncompressed message");
    return new Uint8Array(body.subarray(5));
  } finally {
    session.close();
  }
}

/** The response a server wrote for `request`, decoded, with its bytes. */
async function rawMessage<I extends DescMessage, O extends DescMessage>(
  door: [Protocol, string],
  method: string,
  schemas: [I, O],
  request: MessageShape<I>,
): Promise<[MessageShape<O>, Uint8Array]> {
  const bytes = await rawCall(...door, method, toBinary(schemas[0], request));
  return [fromBinary(schemas[1], bytes), bytes];
}

for (const door of DOORS) {
  const { raw, target } = door;
  const tag = door.name.toLowerCase().replaceAll(" ", "-");
  describe(`OrdoClient over ${door.name}`, { skip: target === undefined }, () => {
    let client: OrdoClient | WebClient;
    let games: v1.GameInfo[];

    before(async () => {
      client = door.client(target!);
      games = (await client.listGames()).games;
    });
    after(() => client.close());

    test("lists every game of the contract, each with its bot policies and options", () => {
      // The contract's games are the fields of the `game` oneof of GameOptions.
      const contract = v1.GameOptionsSchema.oneofs.find((oneof) => oneof.name === "game")!;
      assert.deepEqual(
        games.map((game) => game.id).sort(),
        contract.fields.map((field) => field.name).sort(),
      );
      for (const game of games) {
        assert.ok(game.policies.includes("heuristic") && game.policies.includes("random"));
        assert.ok(game.minSeats >= 2 && game.maxSeats >= game.minSeats);
        const search = game.policyDetails.find((policy) => policy.name === "search")!;
        assert.ok(search.defaultSearchIterations > 0);
        assert.ok(search.maxSearchIterations >= search.defaultSearchIterations);
      }
      const sixNimmt = games.find((game) => game.id === "six_nimmt")!;
      assert.ok(sixNimmt.options.some((option) => option.name === "threshold"));
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

    test("plays the games with the bots, one revision per action", async () => {
      // Every game to its end over gRPC; through the HTTP door, whose calls reach the same
      // handlers, 6 nimmt! to its end and the first actions of the others, as they take long.
      const ending = (game: string): boolean => raw === "grpc" || game === "six_nimmt";
      for (const info of games) {
        const seats = info.seatCounts[0] ?? info.minSeats;
        const started = await client.newGame(info.id, seats, { seed: 11n });
        let state = started.state!;
        let status = started.status!;
        let actions = 0;
        while (!status.finished && (ending(info.id) || actions < FIRST_ACTIONS)) {
          assert.ok(actions < MAX_ACTIONS, `${info.id} does not end`);
          const seat = status.seatsToAct[0];
          const suggested = await client.suggestAction(state, seat, { policy: "random", seed: 5 });
          const applied = await client.applyAction(state, suggested.action!);
          assert.equal(applied.state!.revision, state.revision + 1n);
          state = applied.state!;
          status = applied.status!;
          actions += 1;
        }
        assert.equal(sealedInfo(state), null, "a state of a server without keys is plain");
        if (ending(info.id)) {
          assert.ok(status.outcome!.winners.length >= 1, `${info.id} has no winner`);
          assert.equal(status.outcome!.scores.length, seats);
        }
      }
    });

    test("plays a bot's move unseen, with only the events a viewer may see", async () => {
      const started = await client.newGame("six_nimmt", 3, { seed: 29n });
      const state = started.state!;
      const suggested = await client.suggestAction(state, 2, { policy: "random", seed: 5 });
      const applied = await client.applyAction(state, suggested.action!);
      assert.ok(
        applied.events.some((event) => !event.public),
        "the bot's selection is private",
      );
      const played = await client.playBot(state, 2, { policy: "random", seed: 5, viewer: 0 });
      assert.deepEqual(played.state, applied.state);
      assert.ok(played.events.length > 0);
      assert.ok(played.events.every((event) => event.public));
      const seen = await client.applyAction(state, suggested.action!, { viewer: "spectator" });
      assert.deepEqual(seen.events, played.events);
    });

    test("asks the search bot for a budget, refused beyond the server's maximum", async () => {
      const started = await client.newGame("up_or_down", 2, { seed: 31n });
      const state = started.state!;
      const budget = { policy: "search", seed: 3, searchIterations: 2 };
      const suggested = await client.suggestAction(state, 0, budget);
      const applied = await client.applyAction(state, suggested.action!);
      const played = await client.playBot(state, 0, budget);
      assert.deepEqual(played.state, applied.state);
      const error = await ordoError(
        client.suggestAction(state, 0, { policy: "search", searchIterations: 1_000_000 }),
      );
      assert.equal(error.reason, "SEARCH_BUDGET_TOO_LARGE");
    });

    // gRPC-Web's framing is not read here: the other doors check the bytes.
    if (raw) {
      test("sends a state back byte for byte as the server wrote it", async () => {
        // The server's state cache knows a state by its bytes: a client that re-encodes a state
        // differently would make every call decode and validate it again.
        const way: [Protocol, string] = [raw!, target!];
        for (const info of games) {
          const seats = info.seatCounts.at(-1) ?? info.maxSeats;
          const newGame = create(v1.NewGameRequestSchema, {
            options: gameOptions(info.id),
            seats,
            seed: 3n,
          });
          const [started, bytes] = await rawMessage(
            way,
            "NewGame",
            [v1.NewGameRequestSchema, v1.NewGameResponseSchema],
            newGame,
          );
          assert.deepEqual(toBinary(v1.NewGameResponseSchema, started), bytes);
          let state = started.state!;
          let status = started.status!;
          for (let step = 0; step < (raw === "grpc" ? 40 : 10) && !status.finished; step += 1) {
            const { action } = await client.suggestAction(state, status.seatsToAct[0]);
            const request = create(v1.ApplyActionRequestSchema, { state, action });
            const [applied, written] = await rawMessage(
              way,
              "ApplyAction",
              [v1.ApplyActionRequestSchema, v1.ApplyActionResponseSchema],
              request,
            );
            assert.deepEqual(
              toBinary(v1.ApplyActionResponseSchema, applied),
              written,
              `${info.id}: the response re-encodes differently at step ${step}`,
            );
            state = applied.state!;
            status = applied.status!;
          }
        }
      });
    }

    test("lists the legal actions, and each of them validates", async () => {
      const { state } = await client.newGame("six_nimmt", 4, { seed: 9 });
      const { actions } = await client.listLegalActions(state!, 2);
      assert.equal(actions.length, 10);
      for (const action of actions) {
        assert.equal(action.seat, 2);
        assert.deepEqual(
          await client.validateAction(state!, action),
          create(v1.ValidateActionResponseSchema, { legal: true }),
        );
      }
    });

    test("shows a seat its own hand and a spectator no hand", async () => {
      const { state } = await client.newGame("six_nimmt", 4, { seed: 9 });
      const seat = await client.getView(state!, 1);
      const spectator = await client.getView(state!);
      assert.equal(seat.view?.game.case, "sixNimmt");
      assert.equal(spectator.view?.game.case, "sixNimmt");
      const own = seat.view!.game.value as v1.SixNimmtView;
      const seen = spectator.view!.game.value as v1.SixNimmtView;
      assert.equal(own.hand.length, 10);
      assert.equal(seen.hand.length, 0);
    });

    test("rejects an illegal action with its reason and the call's request id", async () => {
      const { state } = await client.newGame("six_nimmt", 4, { seed: 9 });
      const { actions } = await client.listLegalActions(state!, 0);
      const hand = new Set(
        actions.map((action) => (action.game.value as v1.SixNimmtAction).move.value),
      );
      const card = [...Array(104).keys()].map((index) => index + 1).find((card) => !hand.has(card));
      const move = { case: "selectCard" as const, value: card! };
      const action = { seat: 0, game: { case: "sixNimmt" as const, value: { move } } };
      const error = await ordoError(
        client.applyAction(state!, action, { requestId: `node-illegal-${tag}` }),
      );
      assert.equal(error.code, Code.InvalidArgument);
      assert.equal(error.codeName, "INVALID_ARGUMENT");
      assert.equal(error.reason, "CARD_NOT_IN_HAND");
      assert.equal(error.requestId, `node-illegal-${tag}`);
      assert.match(error.message, /^INVALID_ARGUMENT CARD_NOT_IN_HAND: /);
      const verdict = await client.validateAction(state!, action);
      assert.equal(verdict.legal, false);
      assert.equal(verdict.reason, "CARD_NOT_IN_HAND");
    });

    test("rejects a tampered state, and options that select no game", async () => {
      const { state } = await client.newGame("six_nimmt", 4, { seed: 9 });
      const tampered = fromBinary(v1.GameStateSchema, toBinary(v1.GameStateSchema, state!));
      (tampered.game.value as v1.SixNimmtState).handCards[0] = 200;
      const bad = await ordoError(client.listLegalActions(tampered, 0));
      assert.equal(bad.code, Code.InvalidArgument);
      assert.ok(bad.reason.length > 0);
      const unselected = await ordoError(client.newGame({}, 4));
      assert.equal(unselected.reason, "GAME_NOT_SELECTED");
    });

    test("deals with a game's options", async () => {
      const settings = { tacticalDeck: true, threshold: 40 };
      const { state } = await client.newGame("six_nimmt", 4, { seed: 9, options: settings });
      const dealt = state!.game.value as v1.SixNimmtState;
      assert.equal(dealt.options!.tacticalDeck, true);
      assert.equal(dealt.options!.threshold, 40);
    });

    // Only Node.js's client opens connections of its own.
    if (door.node) {
      test("spreads calls over several connections", async () => {
        using spread = door.client(target!, { channels: 3 }) as OrdoClient;
        assert.equal(spread.channelCount, 3);
        for (let call = 0; call < 6; call += 1) {
          assert.equal((await spread.listGames()).games.length, games.length);
        }
      });
    }

    test("an unreachable server is UNAVAILABLE, after the retries", async () => {
      using unreachable = door.client(CLOSED_TARGET, {
        retries: 2,
        backoffMs: 1,
        maxBackoffMs: 5,
      });
      const error = await ordoError(unreachable.listGames({ requestId: "node-unreachable" }));
      assert.equal(error.code, Code.Unavailable);
      assert.equal(error.reason, "");
      assert.equal(error.requestId, "node-unreachable");
    });
  });
}

describe("OrdoClient's failures", () => {
  const TARGET = env("ORDO_TARGET");

  test("with waitForReady, a call to an absent server waits until its deadline", async () => {
    using waiting = new OrdoClient(CLOSED_TARGET, { waitForReady: true, timeoutMs: 300 });
    const started = Date.now();
    const error = await ordoError(waiting.listGames());
    assert.equal(error.code, Code.DeadlineExceeded);
    assert.ok(Date.now() - started >= 250);
  });

  test("a cancelled call is CANCELLED and never retried", async () => {
    using client = new OrdoClient(TARGET);
    const aborted = new AbortController();
    aborted.abort();
    const error = await ordoError(client.listGames({ signal: aborted.signal }));
    assert.equal(error.code, Code.Canceled);
    using waiting = new OrdoClient(CLOSED_TARGET, { waitForReady: true, timeoutMs: 10_000 });
    const later = new AbortController();
    const started = Date.now();
    const call = waiting.listGames({ signal: later.signal });
    setTimeout(() => later.abort(), 50);
    assert.equal((await ordoError(call)).code, Code.Canceled);
    assert.ok(Date.now() - started < 5_000);
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
      assert.equal(error.code, Code.Canceled);
      assert.equal(error.requestId, "node-closed");
      assert.ok(Date.now() - started < 5_000);
    }
  });

  test("a request that cannot be encoded rejects with a RangeError, unsent", async () => {
    // Were it sent, the call would wait for the absent server until its deadline.
    using waiting = new OrdoClient(CLOSED_TARGET, { waitForReady: true, timeoutMs: 60_000 });
    const state = { revision: 1n };
    for (const call of [
      () => waiting.newGame("six_nimmt", -1),
      () => waiting.newGame("six_nimmt", 4, { seed: 2n ** 64n }),
      () => waiting.newGame("six_nimmt", 4, { seed: 0.5 }),
      () => waiting.listLegalActions(state, 1.5),
      () => waiting.getView(state, -2),
    ]) {
      const error = await rejection(call());
      assert.ok(error instanceof RangeError, String(error));
      assert.match(error.message, /^the request cannot be encoded: /);
    }
    assert.ok((await rejection(waiting.newGame("chess", 2))) instanceof TypeError);
  });

  test("refuses an unknown game id before calling", () => {
    assert.throws(() => gameOptions("chess"), TypeError);
    assert.throws(() => gameOptions({}, {}), TypeError);
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
    assert.throws(() => new OrdoClient(TARGET, { retryCodes: [Code.InvalidArgument] }), RangeError);
  });

  test("reads the reason of Ordo's ErrorInfo, and no other domain's", () => {
    const info = (domain: string) => ({
      desc: ErrorInfoSchema,
      value: { reason: "SOME_REASON", domain, metadata: { field: "seat" } },
    });
    const ordo = new ConnectError("bad", Code.InvalidArgument, undefined, [info("ordo")]);
    const read = OrdoError.from(ordo, "rid");
    assert.equal(read.reason, "SOME_REASON");
    assert.equal(read.details, "bad");
    assert.deepEqual(read.metadata, { field: "seat" });
    assert.equal(read.requestId, "rid");
    assert.equal(read.message, "INVALID_ARGUMENT SOME_REASON: bad");
    const other = new ConnectError("bad", Code.InvalidArgument, undefined, [info("elsewhere")]);
    assert.equal(OrdoError.from(other).reason, "");
    assert.equal(OrdoError.from(new Error("boom")).code, Code.Unknown);
  });

  test("tells a sealed state by its bytes, with its game and revision", () => {
    const plain = create(v1.GameStateSchema, { revision: 3n });
    assert.equal(sealedInfo(plain), null);
    const sealed = create(v1.GameStateSchema, {
      rulesVersion: 2,
      revision: 12n,
      sealed: new Uint8Array([3, ...new TextEncoder().encode("k-1"), 0xfe, 0x01]),
      gameId: "six_nimmt",
    });
    assert.deepEqual(sealedInfo(sealed), {
      gameId: "six_nimmt",
      revision: 12n,
      rulesVersion: 2,
      keyId: "k-1",
    });
  });
});

describe("OrdoClient over TLS", { skip: !process.env.ORDO_TLS_TARGET }, () => {
  test("plays with a client that trusts the server's CA, and fails in plaintext", async () => {
    const target = env("ORDO_TLS_TARGET");
    using trusted = new OrdoClient(target, { tls: { ca: readFileSync(env("ORDO_CA_FILE")) } });
    using plaintext = new OrdoClient(target, { retries: 0 });
    assert.equal((await trusted.listGames()).games.length, 4);
    // The connection fails on the way: a code retried by default, no reason.
    const failure = await ordoError(plaintext.listGames());
    assert.ok(RETRYABLE.includes(failure.code), failure.message);
    assert.equal(failure.reason, "");
  });
});
