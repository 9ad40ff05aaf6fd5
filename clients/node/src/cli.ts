#!/usr/bin/env node
/**
 * `ordo-node`: the Node.js client from the command line.
 *
 *     ordo-node games                                  the games the server runs, with options
 *     ordo-node play six_nimmt --seats 4 --seed 7      bots play a whole game through the server
 *
 * `play` prints JSON lines: the new game, each action applied (seat, action, revision after it)
 * and, last, the outcome with the final state (base64 of its `GameState` bytes). Each turn, the
 * first seat of `seats_to_act` asks `SuggestAction` (the `--policy` bot, seeded by the request
 * alone) and applies the answer: the same game from the same seed, whatever client plays it.
 */

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

import { create, toBinary, toJson } from "@bufbuild/protobuf";

import { ActionSchema, GameStateSchema, OutcomeSchema } from "./gen/ordo/v1/common_pb.js";
import { DEFAULT_TARGET, OrdoClient, OrdoError } from "./index.js";

const USAGE = `usage: ordo-node [options] games
       ordo-node [options] play GAME --seats N [--seed S] [--policy P]

options:
  --target HOST:PORT   the server (default ${DEFAULT_TARGET}, or ORDO_TARGET)
  --protocol P         grpc (the default, to the gRPC port) or connect (to the HTTP port)
  --timeout-ms MS      each call's deadline (default 10000)
  --wait-for-ready     wait for a server that is not reachable yet, up to the deadline
  --tls                TLS trusting gRPC's default roots (GRPC_DEFAULT_SSL_ROOTS_FILE_PATH,
                       else Node's bundled public authorities)
  --ca-file PEM        TLS trusting this CA file
  -h, --help           this text`;

const MAX_ACTIONS = 10_000; // a game that does not end by then is a server's fault

/** A command line that makes no sense: its message is printed with the usage, exit 2. */
class UsageError extends Error {}

function positive(option: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new UsageError(`${option} takes a positive whole number, not ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function protocolOf(text: string): "grpc" | "connect" {
  if (text !== "grpc" && text !== "connect") {
    throw new UsageError(`--protocol takes grpc or connect, not ${JSON.stringify(text)}`);
  }
  return text;
}

function readCa(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`cannot read --ca-file: ${error instanceof Error ? error.message : ""}`);
  }
}

function seedOf(text: string): bigint {
  if (!/^\d+$/.test(text) || BigInt(text) >= 2n ** 64n) {
    throw new UsageError(`--seed takes a whole number below 2^64, not ${JSON.stringify(text)}`);
  }
  return BigInt(text);
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        target: { type: "string" },
        protocol: { type: "string" },
        "timeout-ms": { type: "string" },
        "wait-for-ready": { type: "boolean" },
        tls: { type: "boolean" },
        "ca-file": { type: "string" },
        seats: { type: "string" },
        seed: { type: "string" },
        policy: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (command === undefined) {
    throw new UsageError("no command");
  }
  const caFile = values["ca-file"];
  const client = new OrdoClient(values.target ?? process.env.ORDO_TARGET ?? DEFAULT_TARGET, {
    timeoutMs:
      values["timeout-ms"] === undefined
        ? undefined
        : positive("--timeout-ms", values["timeout-ms"]),
    waitForReady: values["wait-for-ready"] ?? false,
    protocol: protocolOf(values.protocol ?? "grpc"),
    tls: caFile === undefined ? values.tls : { ca: readCa(caFile) },
  });
  try {
    if (command === "games" && rest.length === 0) {
      await games(client);
      return 0;
    }
    if (command === "play") {
      if (rest.length !== 1 || values.seats === undefined) {
        throw new UsageError("play takes one game id and --seats");
      }
      const seats = positive("--seats", values.seats);
      await play(client, rest[0], seats, seedOf(values.seed ?? "0"), values.policy);
      return 0;
    }
    throw new UsageError(`unknown command: ${positionals.join(" ")}`);
  } finally {
    client.close();
  }
}

async function games(client: OrdoClient): Promise<void> {
  const { games: found } = await client.listGames();
  for (const game of found) {
    const seats = game.seatCounts.length
      ? game.seatCounts.join(", ")
      : `${game.minSeats}-${game.maxSeats}`;
    console.log(`${game.id}\t${game.title}\t${seats} seats\tpolicies: ${game.policies.join(", ")}`);
    for (const option of game.options) {
      const allowed = option.allowedValues.length
        ? ` (one of ${option.allowedValues.join(", ")})`
        : "";
      console.log(`  ${option.name} = ${option.defaultValue}${allowed}: ${option.description}`);
    }
  }
}

async function play(
  client: OrdoClient,
  game: string,
  seats: number,
  seed: bigint,
  policy?: string,
): Promise<void> {
  const started = await client.newGame(game, seats, { seed });
  let state = started.state ?? create(GameStateSchema);
  let status = started.status;
  emit({ game, seats, seed: started.seed.toString(), seatsToAct: status?.seatsToAct ?? [] });
  for (let count = 0; !status?.finished; count += 1) {
    const seat = status?.seatsToAct[0];
    if (seat === undefined || count >= MAX_ACTIONS) {
      throw new Error(`the game does not go on after ${count} actions`);
    }
    const { action } = await client.suggestAction(state, seat, { policy });
    if (action === undefined) {
      throw new Error("SuggestAction answered without an action");
    }
    const applied = await client.applyAction(state, action);
    state = applied.state ?? state;
    status = applied.status;
    // Every field, zeros included: seat 0's actions name their seat.
    const json = toJson(ActionSchema, action, { alwaysEmitImplicit: true });
    emit({ seat, action: json, revision: state.revision.toString() });
  }
  emit({
    finished: true,
    outcome: status.outcome ? toJson(OutcomeSchema, status.outcome) : null,
    state: Buffer.from(toBinary(GameStateSchema, state)).toString("base64"),
  });
}

function emit(line: unknown): void {
  console.log(JSON.stringify(line));
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof OrdoError) {
      console.error(`ordo-node: ${error.message} (request ${error.requestId})`);
      process.exitCode = 1;
    } else if (error instanceof UsageError || error instanceof TypeError) {
      // A TypeError names a game id that is none of the contract's.
      console.error(`ordo-node: ${error.message}\n${USAGE}`);
      process.exitCode = 2;
    } else {
      throw error;
    }
  },
);
