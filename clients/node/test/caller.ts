/**
 * A load of callers through the TypeScript client with its default settings, for the
 * end-to-end tests (`tests/e2e/test_failover.py`), with the command line and output of
 * `tests/e2e/caller.py`: `node dist/test/caller.js --target T --callers 16 --prefix P`.
 *
 * `T` is `host:port`, or `ipv4:host:port,host:port` as gRPC names several addresses: the client
 * takes them in turn, a retried call going to the next. Each caller loops on its own client:
 * NewGame (6 nimmt!, four seats), then ApplyAction (the first seat to act plays its lowest
 * card), every call with the request id `<prefix>-<caller>-<number>`. The callers run until
 * standard input ends, then the command prints one JSON object: `calls`, `failed`, `failures`
 * (the first few, as text) and `answered`, `[request_id, unix_time_sent]` of every call answered.
 */

import { parseArgs } from "node:util";

import { OrdoClient, OrdoError, v1 } from "../src/index.js";

const GAME = "six_nimmt";
const SEATS = 4;
const HAND_SIZE = 10; // cards per hand: a seat's cards follow the seats before it in handCards
const FAILURES_SHOWN = 10;

/** What every caller did. */
class Tally {
  calls = 0;
  readonly failures: string[] = [];
  readonly answered: [string, number][] = [];

  /** Make one call with `requestId`; its response, or undefined when it failed. */
  async call<T>(
    requestId: string,
    send: (requestId: string) => Promise<T>,
  ): Promise<T | undefined> {
    const sent = Date.now() / 1000;
    try {
      const response = await send(requestId);
      this.calls += 1;
      this.answered.push([requestId, sent]);
      return response;
    } catch (error) {
      if (!(error instanceof OrdoError)) {
        throw error;
      }
      this.calls += 1;
      this.failures.push(`${requestId}: ${error.message}`);
      return undefined;
    }
  }
}

/** The addresses of a target as gRPC names them (`ipv4:a:1,b:2`), or the one `host:port`. */
function targets(target: string): string[] {
  return target.replace(/^ipv[46]:/, "").split(",");
}

/** Loop NewGame and ApplyAction until `stopped` says so. */
async function caller(
  target: string[],
  name: string,
  tally: Tally,
  stopped: () => boolean,
): Promise<void> {
  using ordo = new OrdoClient(target);
  let number = 0;
  while (!stopped()) {
    number += 1;
    const seed = number;
    const started = await tally.call(`${name}-${number}`, (requestId) =>
      ordo.newGame(GAME, SEATS, { seed, requestId }),
    );
    if (started === undefined) {
      continue;
    }
    const seat = started.status!.seatsToAct[0];
    const hand = (started.state!.game.value as v1.SixNimmtState).handCards;
    const move = { case: "selectCard" as const, value: hand[seat * HAND_SIZE] };
    const action = { seat, game: { case: "sixNimmt" as const, value: { move } } };
    number += 1;
    await tally.call(`${name}-${number}`, (requestId) =>
      ordo.applyAction(started.state!, action, { requestId }),
    );
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      callers: { type: "string", default: "16" },
      prefix: { type: "string", default: "call" },
    },
  });
  if (values.target === undefined) {
    throw new Error("--target is required");
  }
  const tally = new Tally();
  let stop = false;
  const running = Array.from({ length: Number(values.callers) }, (_, index) =>
    caller(targets(values.target!), `${values.prefix}-${index}`, tally, () => stop),
  );
  console.log(JSON.stringify({ started: running.length }));
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.on("end", resolve));
  stop = true;
  await Promise.all(running);
  console.log(
    JSON.stringify({
      calls: tally.calls,
      failed: tally.failures.length,
      failures: tally.failures.slice(0, FAILURES_SHOWN),
      answered: tally.answered,
    }),
  );
}

await main();
