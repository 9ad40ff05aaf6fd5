/**
 * Plays one game through the TypeScript client's `Recorder` and saves its record, for the
 * record tests (`tests/service/test_records_clients.py`):
 * `node dist/test/record.js --target T --protocol grpc|connect --game G --seats N --seed S --out F`.
 *
 * The first seat to act moves, turn after turn: a bot's move (`playBot`) on odd turns, the
 * heuristic's suggestion applied as an action on even ones, so a record holds both kinds. Then
 * the record is read back from its file and replayed (`replaySteps`, as seat 0); the command
 * prints one JSON object: the last state in base64, the moves, and the steps replayed.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";

import { toBinary } from "@bufbuild/protobuf";

import {
  OrdoClient,
  Recorder,
  recordFromJson,
  recordToJson,
  replaySteps,
  v1,
} from "../src/index.js";

const { values } = parseArgs({
  options: {
    target: { type: "string" },
    protocol: { type: "string", default: "grpc" },
    game: { type: "string" },
    seats: { type: "string" },
    seed: { type: "string" },
    out: { type: "string" },
  },
});
const protocol = values.protocol === "connect" ? "connect" : "grpc";
using client = new OrdoClient(values.target ?? "", { protocol });
const recorder = new Recorder(client);
const started = await recorder.newGame(values.game ?? "", Number(values.seats), {
  seed: BigInt(values.seed ?? "0"),
});
let { state, status } = started;
for (let turn = 0; !status?.finished; turn++) {
  const seat = status?.seatsToAct[0] ?? 0;
  const applied =
    turn % 2
      ? await recorder.playBot(state!, seat)
      : await recorder.applyAction(state!, (await client.suggestAction(state!, seat)).action!);
  ({ state, status } = applied);
}
writeFileSync(values.out ?? "", recordToJson(recorder.record));
const record = recordFromJson(readFileSync(values.out ?? "", "utf8"));
let steps = 0;
for await (const step of replaySteps(client, record, { viewer: 0 })) {
  steps += step.step === steps ? 1 : 0;
}
console.log(
  JSON.stringify({
    state: Buffer.from(toBinary(v1.GameStateSchema, state!)).toString("base64"),
    moves: record.moves.length,
    steps,
  }),
);
