// The calls the page makes, through Ordo's TypeScript client for browsers (`@ordo/client/web`,
// Connect with JSON bodies to the page's own origin). States stay the client's messages, passed
// back untouched (sealed or not); what the page draws is turned into proto3 JSON (camelCase
// names, enums by name), the shapes proto/ordo/v1 documents. Every call that carries a state
// carries the seat token of the seat it is made for (none when the server gave no tokens).
import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { OrdoClient, OrdoError } from "../../node/src/web.ts";
import {
  ActionSchema,
  EventSchema,
  GameInfoSchema,
  GameOptionsSchema,
  GameStatusSchema,
  GameViewSchema,
  type Action as ActionMessage,
  type GameState,
} from "../../node/src/gen/ordo/v1/common_pb.ts";
import type { GameEvent, GameInfo, GameStatus, GameView, Json } from "./types.ts";

export { OrdoError };
export type { GameState };

/** A legal or suggested action: the message to send back, and its JSON to read. */
export interface Move {
  message: ActionMessage;
  json: Json;
}

const client = new OrdoClient(location.origin, { format: "json", timeoutMs: 15_000 });
const json = (value: JsonValue): Json => value as Json;

export async function listGames(): Promise<GameInfo[]> {
  const { games } = await client.listGames();
  return games.map((g) => json(toJson(GameInfoSchema, g)) as unknown as GameInfo);
}

/** A game dealt: its state, who acts first, its seed (0 when the server keeps it) and tokens. */
export interface Dealt {
  state: GameState;
  status: GameStatus;
  seed: string;
  /** Each seat's token, by seat ("" for a bot's seat); empty when the server gives none. */
  seatTokens: string[];
  /** The spectator's token ("" when the server gives none). */
  spectatorToken: string;
}

/** Deals a game whose `bots` (seat → policy) the server plays. */
export async function newGame(
  seats: number,
  seed: bigint,
  options: Json,
  bots: Record<number, string>,
): Promise<Dealt> {
  const game = fromJson(GameOptionsSchema, options as JsonValue);
  const dealt = await client.newGame(game, seats, { seed, bots });
  return {
    state: dealt.state!,
    status: status(dealt.status),
    seed: String(dealt.seed),
    seatTokens: dealt.seatTokens,
    spectatorToken: dealt.spectatorToken,
  };
}

function status(
  message: Parameters<typeof toJson<typeof GameStatusSchema>>[1] | undefined,
): GameStatus {
  return message ? (json(toJson(GameStatusSchema, message)) as GameStatus) : {};
}

/** What a move does, as one viewer may see it. */
export interface Applied {
  state: GameState;
  status: GameStatus;
  events: GameEvent[];
}

/**
 * A person's action, or the move of a bot seat of the game, chosen (with the game's policy) and
 * applied by the server, never shown here.
 */
export type Play = { action: ActionMessage } | { bot: number };

/**
 * Applies `play` with `token`; the events are only those `viewer` (a seat, or null: a spectator)
 * may see.
 */
export async function apply(
  state: GameState,
  play: Play,
  viewer: number | null,
  token: string,
): Promise<Applied> {
  const seen = { viewer: viewer ?? ("spectator" as const), seatToken: token };
  const done =
    "action" in play
      ? await client.applyAction(state, play.action, seen)
      : await client.playBot(state, play.bot, seen);
  return {
    state: done.state!,
    status: status(done.status),
    events: done.events.map((e) => json(toJson(EventSchema, e)) as GameEvent),
  };
}

export async function legalActions(state: GameState, seat: number, token: string): Promise<Move[]> {
  const { actions } = await client.listLegalActions(state, seat, { seatToken: token });
  return actions.map((message) => ({ message, json: json(toJson(ActionSchema, message)) }));
}

export async function getView(
  state: GameState,
  seat: number | null,
  token: string,
): Promise<GameView> {
  const { view } = await client.getView(state, seat, { seatToken: token });
  return view ? (json(toJson(GameViewSchema, view)) as GameView) : {};
}
