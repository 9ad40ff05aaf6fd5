// The messages the page handles, in their proto3 JSON form (camelCase names, enums by name,
// 64-bit integers as strings). The page passes states back untouched, sealed or not.

import type { UIS } from "./games/index.ts";

export type Json = Record<string, unknown>;

export interface OptionInfo {
  name: string;
  description?: string;
  defaultValue?: string;
  allowedValues?: string[];
}

export interface GameInfo {
  id: GameId;
  title: string;
  minSeats: number;
  maxSeats: number;
  simultaneous?: boolean;
  options?: OptionInfo[];
  policies?: string[];
  seatCounts?: number[];
}

/** A game the page has a part for: a key of UIS (src/games/index.ts). */
export type GameId = keyof typeof UIS;

export interface Outcome {
  scores?: (string | number)[];
  winners?: number[];
  lowerIsBetter?: boolean;
  termination?: string;
}

export interface GameStatus {
  seatsToAct?: number[];
  finished?: boolean;
  outcome?: Outcome;
}

/** A state as the server gave it: sealed (opaque) or plain. */
export type GameState = Json;

export interface Action extends Json {
  seat?: number;
}

export interface GameEvent extends Json {
  visibleToSeats?: number[];
  public?: boolean;
}

export interface GameView extends Json {
  status?: GameStatus;
}

/** The JSON key of a game id inside the oneofs (six_nimmt → sixNimmt). */
export function jsonKey(game: GameId): string {
  return game.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}
