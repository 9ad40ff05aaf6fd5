/**
 * Game records: keep one as a game is played, write and read its file, replay it.
 *
 * A `GameRecord` (`ordo.v1`) is the state `newGame` returned and every move sent to
 * `applyAction` after it, the first `DIGEST_BYTES` of the SHA-256 of the state each move led to,
 * and the full SHA-256 of the last state. `Recorder` wraps a client's `newGame`,
 * `applyAction` and `playBot` and keeps the record of the game they play; `recordToJson` and
 * `recordFromJson` write and read its file (proto JSON, `.ordo.json`, one move a line), as the
 * Python client does; `replaySteps` walks every page of `ReplayGame`.
 */

import { create, fromJsonString, toBinary, toJson } from "@bufbuild/protobuf";

import type { ApplyOptions, ClientCore, NewGameOptions, PlayBotOptions } from "./core.js";
import { type GameState, GameStateSchema, ViewerSchema } from "./gen/ordo/v1/common_pb.js";
import {
  type ApplyActionResponse,
  type ClaimTimeoutResponse,
  type GameRecord,
  GameRecordSchema,
  type NewGameResponse,
  type ReplayStep,
} from "./gen/ordo/v1/engine_service_pb.js";
import type { ActionInput, GameChoice } from "./messages.js";

/** `GameRecord.format_version` of the records written here. */
export const FORMAT_VERSION = 1;
/** A move's digest: the first bytes of its state's SHA-256. */
export const DIGEST_BYTES = 4;
/** The name ending of a record's file. */
export const RECORD_SUFFIX = ".ordo.json";

/** The SHA-256 of `state` as the server returned it (its fields in number order). */
export async function stateDigest(state: GameState): Promise<Uint8Array> {
  const bytes = toBinary(GameStateSchema, state);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/**
 * Plays one game through `client` and keeps its record: call `newGame` once, then `applyAction`,
 * `playBot` and `claimTimeout` with the latest state, as the client's own methods.
 */
export class Recorder {
  readonly record: GameRecord = create(GameRecordSchema, { formatVersion: FORMAT_VERSION });
  /** The latest state (undefined before `newGame`). */
  state: GameState | undefined;

  constructor(readonly client: ClientCore) {}

  /**
   * Go on recording a game recorded before (a page reloaded, say): `record` as it was kept, and
   * `state`, the latest state it led to, as the server returned it (its digest is checked).
   */
  static async resume(client: ClientCore, record: GameRecord, state: GameState): Promise<Recorder> {
    const digest = await stateDigest(state);
    const same = record.finalDigest.length === digest.length;
    if (!same || !record.finalDigest.every((byte, i) => byte === digest[i])) {
      throw new Error("the state given is not the record's last");
    }
    const recorder = new Recorder(client);
    Object.assign(recorder.record, record);
    recorder.state = state;
    return recorder;
  }

  /** Deal the game (`newGame`'s arguments) and start the record with it. */
  async newGame(
    game: GameChoice,
    seats: number,
    init: NewGameOptions = {},
  ): Promise<NewGameResponse> {
    if (this.state !== undefined) {
      throw new Error("this recorder already holds a game: use a new one per game");
    }
    const response = await this.client.newGame(game, seats, init);
    this.record.initialState = response.state;
    if (response.state === undefined) {
      throw new Error("the server returned no state");
    }
    this.state = response.state;
    this.record.finalDigest = await stateDigest(response.state);
    return response;
  }

  /** Apply `action` (`applyAction`) and record it. */
  async applyAction(
    state: GameState,
    action: ActionInput,
    init: ApplyOptions = {},
  ): Promise<ApplyActionResponse> {
    this.check(state);
    const response = await this.client.applyAction(state, action, init);
    const sent = create(GameRecordSchema, { moves: [{ move: { case: "action", value: action } }] });
    await this.moved(sent.moves[0]!, response);
    return response;
  }

  /** Apply a bot's move (`playBot`) and record it as it was sent. */
  async playBot(
    state: GameState,
    seat: number,
    init: PlayBotOptions = {},
  ): Promise<ApplyActionResponse> {
    this.check(state);
    const response = await this.client.playBot(state, seat, init);
    const bot = {
      seat,
      policy: init.policy ?? "",
      seed: BigInt(init.seed ?? 0),
      searchIterations: init.searchIterations ?? 0,
      searchTimeLimitMs: init.searchTimeLimitMs ?? 0,
    };
    const sent = create(GameRecordSchema, { moves: [{ move: { case: "bot", value: bot } }] });
    await this.moved(sent.moves[0]!, response);
    return response;
  }

  /**
   * Claim that `seat`'s time is up (`claimTimeout`) and record the timeout when a move was played
   * for it (a claim that found the seat no longer to act leaves the game, and the record, as
   * they were).
   */
  async claimTimeout(
    state: GameState,
    seat: number,
    init: ApplyOptions = {},
  ): Promise<ClaimTimeoutResponse> {
    this.check(state);
    const response = await this.client.claimTimeout(state, seat, init);
    if (response.timedOut) {
      const sent = create(GameRecordSchema, {
        moves: [{ move: { case: "timeout", value: { seat } } }],
      });
      await this.moved(sent.moves[0]!, response);
    }
    return response;
  }

  /**
   * Name who keeps the record: a seat, or "spectator", and their seat token on a server that
   * requires them, which a replay of the record then sends. A record holding the token of a game
   * still in play lets whoever holds it act as that seat.
   */
  keptBy(viewer: number | "spectator", seatToken = ""): void {
    this.record.keptBy = create(ViewerSchema, {
      viewer:
        viewer === "spectator"
          ? { case: "spectator", value: true }
          : { case: "seat", value: viewer },
    });
    this.record.seatToken = seatToken;
  }

  /**
   * Take moves back: the record goes back to its first `moves` moves, and `state`, the state
   * they led to as the server returned it, becomes the latest (a take-back in a practice game).
   */
  async rewind(moves: number, state: GameState): Promise<void> {
    if (this.state === undefined || moves < 0 || moves > this.record.moves.length) {
      throw new RangeError(`the record has no move ${moves} to go back to`);
    }
    const digest = await stateDigest(state);
    const recorded =
      moves === 0
        ? await stateDigest(this.record.initialState!)
        : this.record.moveDigests.slice((moves - 1) * DIGEST_BYTES, moves * DIGEST_BYTES);
    if (!recorded.length || !recorded.every((byte, i) => byte === digest[i])) {
      throw new Error(`the state given is not the one move ${moves} led to`);
    }
    this.record.moves.splice(moves);
    this.record.moveDigests = this.record.moveDigests.slice(0, moves * DIGEST_BYTES);
    this.record.finalDigest = digest;
    this.state = state;
  }

  private check(state: GameState): void {
    if (this.state === undefined) {
      throw new Error("the record has no game yet: call newGame first");
    }
    if (state !== this.state) {
      throw new Error("a recorded game goes on from its latest state only");
    }
  }

  private async moved(
    move: GameRecord["moves"][number],
    response: ApplyActionResponse | ClaimTimeoutResponse,
  ): Promise<void> {
    if (response.state === undefined) {
      throw new Error("the server returned no state");
    }
    // The time the server stamped the move with (a game with a clock): the replay stamps it again.
    move.atMs = response.atMs;
    const digest = await stateDigest(response.state);
    const digests = new Uint8Array(this.record.moveDigests.length + DIGEST_BYTES);
    digests.set(this.record.moveDigests);
    digests.set(digest.slice(0, DIGEST_BYTES), this.record.moveDigests.length);
    this.record.moves.push(move);
    this.record.moveDigests = digests;
    this.record.finalDigest = digest;
    this.state = response.state;
  }
}

/** The file text of `record`: proto JSON, one move a line. */
export function recordToJson(record: GameRecord): string {
  const fields = toJson(GameRecordSchema, record) as Record<string, unknown>;
  const lines = Object.entries(fields).map(([name, value]) => {
    if (name === "moves" && Array.isArray(value)) {
      const moves = value.map((move) => JSON.stringify(move)).join(",\n");
      return `  "moves": [\n${moves}\n  ]`;
    }
    return `  ${JSON.stringify(name)}: ${JSON.stringify(value)}`;
  });
  return `{\n${lines.join(",\n")}\n}\n`;
}

/** The record of a file's text; throws a `SyntaxError` when it is not one (cut short, say). */
export function recordFromJson(text: string): GameRecord {
  try {
    return fromJsonString(GameRecordSchema, text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SyntaxError(`not a game record: ${reason}`);
  }
}

/**
 * Every step of `record` as `viewer` saw it (every seat with `reveal`), page after page of
 * `ReplayGame`: the first page checks the whole record, each next one replays its own moves from
 * the state the page before ended on (with `reveal`, the whole record).
 */
export async function* replaySteps(
  client: ClientCore,
  record: GameRecord,
  init: { viewer?: number | "spectator"; reveal?: boolean; pageSize?: number } = {},
): AsyncGenerator<ReplayStep> {
  let page = await client.replayGame(record, init);
  yield* page.steps;
  while (page.nextStep) {
    const fromState = init.reveal ? undefined : page.nextState;
    page = await client.replayGame(record, { ...init, firstStep: page.nextStep, fromState });
    yield* page.steps;
  }
}
