// A game survives a reload: the page keeps it in the browser's session storage (this tab only,
// gone when the tab closes), as the server gave it, with its record so far, so that "Save game"
// saves the whole game after a reload too. States go as the client's messages in proto3 JSON,
// sealed or not: the page never reads a sealed one, it only sends it back.
import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { GameStateSchema } from "../../node/src/gen/ordo/v1/common_pb.ts";
import type { GameState } from "./api.ts";
import type { Checkpoint, PlayerKind, Settings } from "./session.ts";
import type { GameStatus, Json } from "./types.ts";

const KEY = "ordo-playground-game";
const VERSION = 2;

/** What the page needs to go on with a game after a reload. */
export interface SavedGame {
  settings: Settings;
  kinds: PlayerKind[];
  seed: string;
  state: GameState;
  status: GameStatus;
  /** The game parts of the events each viewer saw, by seat (-1: a spectator). */
  history: [number, Json[]][];
  shown: number;
  delay: number;
  /** The people's seat tokens by seat (-1: the spectator's), and the spectator's token. */
  tokens: [number, string][];
  spectatorToken: string;
  /** The game's record so far, as its file's text. */
  record: string;
  checkpoints: Checkpoint[];
  noTakeBack: boolean;
}

type StoredCheckpoint = Omit<Checkpoint, "state"> & { state: JsonValue };

interface Stored extends Omit<SavedGame, "state" | "checkpoints"> {
  version: number;
  state: JsonValue;
  checkpoints: StoredCheckpoint[];
}

const stateJson = (state: GameState): JsonValue => toJson(GameStateSchema, state);
const stateOf = (json: JsonValue): GameState => fromJson(GameStateSchema, json);

/** Keeps `game` for a reload of this tab; a browser that refuses storage keeps nothing. */
export function save(game: SavedGame): void {
  const stored: Stored = {
    ...game,
    version: VERSION,
    state: stateJson(game.state),
    checkpoints: game.checkpoints.map((c) => ({ ...c, state: stateJson(c.state) })),
  };
  try {
    sessionStorage.setItem(KEY, JSON.stringify(stored));
  } catch {
    // Storage full or disabled: the game goes on, it only will not survive a reload.
  }
}

/** The game this tab kept, or null (none, or one an older page wrote). */
export function restore(): SavedGame | null {
  try {
    const text = sessionStorage.getItem(KEY);
    if (!text) return null;
    const stored = JSON.parse(text) as Stored;
    if (stored.version !== VERSION) return null;
    return {
      ...stored,
      state: stateOf(stored.state),
      checkpoints: stored.checkpoints.map((c) => ({ ...c, state: stateOf(c.state) })),
    };
  } catch {
    return null;
  }
}

/** Forgets the kept game (a new one starts, or the one kept could not go on). */
export function forget(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing kept, nothing to forget.
  }
}
