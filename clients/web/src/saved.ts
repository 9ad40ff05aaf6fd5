// A game survives a reload: the page keeps it in the browser's session storage (this tab only,
// gone when the tab closes), as the server gave it. The state goes as the client's message in
// proto3 JSON, sealed or not: the page never reads a sealed one, it only sends it back.
import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { GameStateSchema } from "../../node/src/gen/ordo/v1/common_pb.ts";
import type { GameState } from "./api.ts";
import type { GameId, GameStatus, Json } from "./types.ts";

const KEY = "ordo-playground-game";
const VERSION = 1;

/** What the page needs to go on with a game after a reload. */
export interface SavedGame {
  game: GameId;
  kinds: string[];
  names: string[];
  state: GameState;
  status: GameStatus;
  /** Each viewer's log lines and the game parts of the events they saw, by seat (-1 spectator). */
  logs: [number, string[]][];
  history: [number, Json[]][];
  shown: number;
  delay: number;
  /** Anything else a part of the page keeps with the game, e.g. its people's seat tokens. */
  extra?: Json;
}

interface Stored extends Omit<SavedGame, "state"> {
  version: number;
  state: JsonValue;
}

/** Keeps `game` for a reload of this tab; a browser that refuses storage keeps nothing. */
export function save(game: SavedGame): void {
  const stored: Stored = { ...game, version: VERSION, state: toJson(GameStateSchema, game.state) };
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
    return { ...stored, state: fromJson(GameStateSchema, stored.state) };
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
