/**
 * The TypeScript client against a real server that requires seat tokens, over gRPC
 * (`ORDO_SEATED_TARGET`) and Connect (`ORDO_SEATED_HTTP_TARGET`): a client's token and a call's
 * own, the game's bot seats, and the refusals with their codes and reasons.
 * `tests/clients/test_node_client.py` starts the server and runs this file with `node --test`;
 * without those addresses (another run of the suite, against another server) it is skipped.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  Code,
  OrdoClient,
  OrdoError,
  Recorder,
  recordFromJson,
  recordToJson,
  replaySteps,
} from "../src/index.js";
import { OrdoClient as WebClient } from "../src/web.js";

const GRPC = process.env.ORDO_SEATED_TARGET ?? "";
const HTTP = process.env.ORDO_SEATED_HTTP_TARGET ?? "";
const skip = GRPC && HTTP ? false : "no server that requires seat tokens was given";

const CLIENTS: [string, (token?: string) => OrdoClient | WebClient][] = [
  ["gRPC", (seatToken) => new OrdoClient(GRPC, { seatToken })],
  ["Connect", (seatToken) => new OrdoClient(HTTP, { protocol: "connect", seatToken })],
  ["the browser entry", (seatToken) => new WebClient(`http://${HTTP}`, { seatToken })],
];

async function refusal(promise: Promise<unknown>): Promise<OrdoError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OrdoError, String(error));
    return error;
  }
  assert.fail("the call succeeded");
}

for (const [name, make] of CLIENTS) {
  describe(`seat tokens through ${name}`, { skip }, () => {
    test("a game with a bot seat gives a token to each person, none to the bot", async () => {
      using client = make();
      const dealt = await client.newGame("up_or_down", 3, { bots: { 1: "random" } });
      assert.equal(dealt.seatTokens.length, 3);
      assert.equal(dealt.seatTokens[1], "");
      assert.match(dealt.seatTokens[0], /^o1\./);
      assert.equal(dealt.seed, 0n);
      assert.deepEqual(
        dealt.state!.bots.map((bot) => [bot.seat, bot.policy]),
        [[1, "random"]],
      );
    });

    test("the client's token and a call's own are sent; another seat's view is refused", async () => {
      using dealer = make();
      const dealt = await dealer.newGame("six_nimmt", 3, { bots: { 1: "heuristic" } });
      const state = dealt.state!;
      using client = make(dealt.seatTokens[0]);
      const own = await client.getView(state, 0);
      assert.ok(own.view);
      const other = await refusal(client.getView(state, 2));
      assert.equal(other.code, Code.PermissionDenied);
      assert.equal(other.reason, "SEAT_NOT_PERMITTED");
      const theirs = await client.getView(state, 2, { seatToken: dealt.seatTokens[2] });
      assert.ok(theirs.view);
      const none = await refusal(client.getView(state, 0, { seatToken: "" }));
      assert.equal(none.code, Code.Unauthenticated);
      assert.equal(none.reason, "SEAT_TOKEN_MISSING");
    });

    test("the game's bot plays its own policy; another is refused", async () => {
      using dealer = make();
      const dealt = await dealer.newGame("six_nimmt", 2, { bots: { 1: "heuristic" } });
      using client = make(dealt.seatTokens[0]);
      const moved = await client.playBot(dealt.state!, 1, { viewer: 0 });
      assert.equal(moved.state!.revision, 1n);
      const chosen = await refusal(client.playBot(dealt.state!, 1, { policy: "random" }));
      assert.equal(chosen.reason, "BOT_SETTINGS_NOT_PERMITTED");
      const person = await refusal(client.playBot(dealt.state!, 0));
      assert.equal(person.reason, "NOT_A_BOT_SEAT");
    });

    test("a record kept by a seat replays with its token; a take-back rewinds it", async () => {
      using dealer = make();
      const recorder = new Recorder(dealer);
      const options = { end: 2, hands: 1 }; // one hand
      const dealt = await recorder.newGame("six_nimmt", 2, { options, bots: { 1: "random" } });
      const token = dealt.seatTokens[0]!;
      let { state, status } = dealt;
      const states = [state!];
      while (!status!.finished) {
        for (const seat of status!.seatsToAct) {
          const played =
            seat === 0
              ? await recorder.applyAction(
                  state!,
                  (await dealer.listLegalActions(state!, 0, { seatToken: token })).actions[0]!,
                  { seatToken: token },
                )
              : await recorder.playBot(state!, seat, { seatToken: token });
          ({ state, status } = played);
          states.push(state!);
        }
      }
      recorder.keptBy(0, token);
      const record = recordFromJson(recordToJson(recorder.record));
      assert.equal(record.seatToken, token);
      const steps = [];
      for await (const step of replaySteps(dealer, record, { reveal: true })) steps.push(step);
      assert.equal(steps.length, states.length);
      const resumed = await Recorder.resume(dealer, record, states.at(-1)!);
      assert.equal(resumed.record.moves.length, states.length - 1);
      await assert.rejects(Recorder.resume(dealer, record, states[1]!), /not the record's last/);
      await recorder.rewind(2, states[2]!);
      assert.equal(recorder.record.moves.length, 2);
      assert.equal(recorder.state, states[2]);
      await assert.rejects(recorder.rewind(1, states[2]!), /not the one move 1 led to/);
      const back = await dealer.replayGame(recorder.record, { viewer: 0 });
      assert.equal(back.moveCount, 2);
    });
  });
}
