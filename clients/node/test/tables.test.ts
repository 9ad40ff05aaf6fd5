/**
 * The TypeScript client on a real server that hosts tables, over gRPC (`ORDO_HOSTING_TARGET`),
 * Connect on HTTP/1.1 and HTTP/2 and the browser entry (`ORDO_HOSTING_HTTP_TARGET`): a game
 * hosted and played by table id, `for await` over its stream, a cut stream taken up again from
 * its last revision, its record. `tests/clients/test_node_client.py` starts the server; without
 * those addresses this file is skipped.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { ConnectError, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";

import { ClientCore } from "../src/core.js";
import type { GameStatus } from "../src/gen/ordo/v1/common_pb.js";
import { Code, OrdoClient, parseTableLink, tableLink, tokenSeat } from "../src/index.js";
import { nodeErrorCodes } from "../src/node-errors.js";
import { OrdoClient as WebClient } from "../src/web.js";

const GRPC = process.env.ORDO_HOSTING_TARGET ?? "";
const HTTP = process.env.ORDO_HOSTING_HTTP_TARGET ?? "";
const skip = GRPC && HTTP ? false : "no server that hosts tables was given";
const ONE_HAND = { sixNimmt: { end: 2, hands: 1 } }; // SIX_NIMMT_END_RULE_FIXED_HANDS

type Client = OrdoClient | WebClient;
const CLIENTS: [string, () => Client][] = [
  ["gRPC", () => new OrdoClient(GRPC)],
  ["Connect over HTTP/1.1", () => new OrdoClient(HTTP, { protocol: "connect" })],
  ["Connect over HTTP/2", () => new OrdoClient(HTTP, { protocol: "connect", httpVersion: "2" })],
  ["the browser entry", () => new WebClient(`http://${HTTP}`)],
  ["gRPC-Web", () => new WebClient(`http://${HTTP}`, { protocol: "grpc-web" })],
];

/** A hosted one-hand table of 6 nimmt! with a bot on seat 1. */
async function host(client: Client, seats = 3) {
  return client.newGame({ game: { case: "sixNimmt", value: ONE_HAND.sixNimmt } }, seats, {
    bots: { 1: "" },
    host: true,
  });
}

/** Play a table to its end, each person's first legal action; its last revision. */
async function playOut(
  client: Client,
  tableId: string,
  tokens: string[],
  status: GameStatus,
): Promise<bigint> {
  let revision = 0n;
  while (!status.finished) {
    const seat = status.seatsToAct[0];
    const seatToken = tokens[seat];
    const legal = await client.listLegalActions(tableId, seat, { seatToken });
    const answer = await client.applyAction(tableId, legal.actions[0], {
      seatToken,
      tableRevision: revision,
    });
    status = answer.status!;
    revision = answer.tableRevision;
  }
  return revision;
}

for (const [name, make] of CLIENTS) {
  describe(`hosted tables through ${name}`, { skip }, () => {
    test("a table played by its id, watched live with for await, to its end", async () => {
      using client = make();
      const dealt = await host(client);
      assert.equal(dealt.state, undefined);
      const seen: bigint[] = [];
      const watching = (async () => {
        for await (const message of client.watchGame(dealt.tableId, {
          seatToken: dealt.seatTokens[0],
        })) {
          seen.push(message.revision);
        }
      })();
      const last = await playOut(client, dealt.tableId, dealt.seatTokens, dealt.status!);
      await watching;
      assert.deepEqual(seen, range(seen[0], last));
      const record = await client.getRecord(dealt.tableId, { seatToken: dealt.seatTokens[2] });
      assert.equal(BigInt(record.record!.moves.length), last);
    });

    test("a watch from a revision gives the moves after it, once each", async () => {
      using client = make();
      const dealt = await host(client, 2);
      const last = await playOut(client, dealt.tableId, dealt.seatTokens, dealt.status!);
      const seen: bigint[] = [];
      for await (const message of client.watchGame(dealt.tableId, {
        afterRevision: 3,
        seatToken: dealt.spectatorToken,
      })) {
        seen.push(message.revision);
      }
      assert.deepEqual(seen, range(4n, last));
    });
  });
}

/** `messages` cut after two: `failure()` is thrown in place of the third. */
async function* cutAfterTwo<T>(messages: AsyncIterable<T>, failure: () => Error): AsyncIterable<T> {
  let given = 0;
  for await (const message of messages) {
    if (given++ === 2) {
      throw failure();
    }
    yield message;
  }
}

/** A client whose first stream is cut after two messages, as a lost connection cuts it. */
class CutOnce extends ClientCore {
  constructor(transport: Transport) {
    let cut = false;
    const cutting: Transport = {
      unary: (...args) => transport.unary(...args),
      stream: async (...args) => {
        const response = await transport.stream(...args);
        if (cut) {
          return response;
        }
        cut = true;
        const lost = () => new ConnectError("the connection was lost", Code.Unavailable);
        return { ...response, message: cutAfterTwo(response.message, lost) };
      },
    };
    super([{ transport: cutting, close: () => undefined }], { backoffMs: 1 });
  }
}

/**
 * An interceptor that cuts the first stream after two messages as Node.js reports a connection
 * reset under it (a balancer's timeout, a server gone): Connect-ES's ABORTED, caused by
 * ECONNRESET.
 */
function cutOnceAsNode(): Interceptor {
  let cut = false;
  return (next) => async (request) => {
    const response = await next(request);
    if (!response.stream || cut) {
      return response;
    }
    cut = true;
    const reset = () =>
      new ConnectError(
        "aborted",
        Code.Aborted,
        undefined,
        undefined,
        Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
      );
    return { ...response, message: cutAfterTwo(response.message, reset) };
  };
}

/** A client over one transport, retrying at once. */
class Over extends ClientCore {
  constructor(transport: Transport) {
    super([{ transport, close: () => undefined }], { backoffMs: 1 });
  }
}

/** A table played out, then watched by `watcher` from revision 0: it sees every revision. */
async function watchesEveryRevision(watcher: ClientCore): Promise<void> {
  using client = new OrdoClient(GRPC);
  const dealt = await host(client);
  const last = await playOut(client, dealt.tableId, dealt.seatTokens, dealt.status!);
  const seen: bigint[] = [];
  for await (const message of watcher.watchGame(dealt.tableId, {
    afterRevision: 0,
    seatToken: dealt.seatTokens[2],
  })) {
    seen.push(message.revision);
  }
  assert.deepEqual(seen, range(1n, last));
}

describe("a cut stream", { skip }, () => {
  test("is taken up again from the last revision given", async () => {
    const cutting = new CutOnce(
      createConnectTransport({ baseUrl: `http://${HTTP}`, httpVersion: "1.1" }),
    );
    await watchesEveryRevision(cutting);
  });

  test("is taken up again when Node.js reports its connection lost (ABORTED)", async () => {
    const transport = createConnectTransport({
      baseUrl: `http://${HTTP}`,
      httpVersion: "1.1",
      interceptors: [nodeErrorCodes, cutOnceAsNode()],
    });
    await watchesEveryRevision(new Over(transport));
  });
});

describe("table links", () => {
  test("a link reads back, its token's seat too", () => {
    const token = `o1.test-1.${"A".repeat(22)}.2.${"B".repeat(43)}`;
    const link = parseTableLink(tableLink("http://play.example:8080/", "T".repeat(22), token));
    assert.deepEqual(link, {
      baseUrl: "http://play.example:8080",
      tableId: "T".repeat(22),
      token,
    });
    assert.equal(tokenSeat(token), 2);
    assert.equal(parseTableLink("http://play.example:8080/#table=x"), null);
  });
});

function range(first: bigint, last: bigint): bigint[] {
  const all: bigint[] = [];
  for (let revision = first; revision <= last; revision++) {
    all.push(revision);
  }
  return all;
}
