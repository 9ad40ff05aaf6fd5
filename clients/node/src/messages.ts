/** What the client builds from a caller's plain objects, and reads from states. */

import { create, type MessageInitShape } from "@bufbuild/protobuf";

import {
  type ActionSchema,
  type GameOptions,
  GameOptionsSchema,
  type GameState,
  type GameStateSchema,
} from "./gen/ordo/v1/common_pb.js";

/** A game id (`six_nimmt`), or a whole `GameOptions`. */
export type GameChoice = string | MessageInitShape<typeof GameOptionsSchema>;
/** A state as a response gave it (or any part of one: what is left out is its default). */
export type StateInput = MessageInitShape<typeof GameStateSchema>;
/**
 * A game a call is about: its state, or, on a server that hosts games, its table's id
 * (`NewGameResponse.tableId`).
 */
export type GameInput = StateInput | string;

/** The field a request names its game by: `state`, or `tableId` for a hosted table. */
export function gameField(game: GameInput): { state: StateInput } | { tableId: string } {
  return typeof game === "string" ? { tableId: game } : { state: game };
}
/**
 * An action; what is left out is its default. Seat 1 selecting card 17 in 6 nimmt!:
 * `{ seat: 1, game: { case: "sixNimmt", value: { move: { case: "selectCard", value: 17 } } } }`.
 */
export type ActionInput = MessageInitShape<typeof ActionSchema>;

/**
 * The `GameOptions` of a game id (with its options message, or its defaults). Throws a
 * `TypeError` for an id that is no game of `GameOptions`, or options given with a `GameOptions`.
 */
export function gameOptions(game: GameChoice, options?: object): GameOptions {
  if (typeof game !== "string") {
    if (options !== undefined) {
      throw new TypeError("give either a GameOptions or a game id with its options, not both");
    }
    return create(GameOptionsSchema, game);
  }
  // The fields of GameOptions' oneof are named by game id.
  const field = GameOptionsSchema.oneofs
    .find((oneof) => oneof.name === "game")
    ?.fields.find((candidate) => candidate.name === game);
  if (field?.message === undefined) {
    throw new TypeError(`unknown game ${JSON.stringify(game)}: not a field of GameOptions.game`);
  }
  const value = create(field.message, (options ?? {}) as Record<string, unknown>);
  return create(GameOptionsSchema, {
    game: { case: field.localName, value },
  } as MessageInitShape<typeof GameOptionsSchema>);
}

/** What a sealed state keeps in clear, and the id of the key that sealed it. */
export interface SealedInfo {
  /** The game id, e.g. `six_nimmt`. */
  gameId: string;
  /** The number of actions applied since NewGame. */
  revision: bigint;
  /** The version of the rules the state was produced under. */
  rulesVersion: number;
  /** The id of the server's key that sealed it (keys rotate). */
  keyId: string;
}

/**
 * Whether `state` is sealed (a server with state keys returned it: it can be neither read nor
 * forged, and goes back untouched) and, when it is, what it keeps in clear; `null` for a plain
 * state.
 */
export function sealedInfo(
  state: Pick<GameState, "sealed" | "gameId" | "revision" | "rulesVersion">,
): SealedInfo | null {
  const { sealed } = state;
  if (sealed.length === 0) {
    return null;
  }
  // The seal opens with its key id: its length in one byte, then the id in ASCII.
  const keyId = new TextDecoder().decode(sealed.subarray(1, 1 + sealed[0]));
  return {
    gameId: state.gameId,
    revision: state.revision,
    rulesVersion: state.rulesVersion,
    keyId,
  };
}
