// The calls the page makes, through Ordo's TypeScript client for browsers (`@ordo/client/web`,
// Connect with JSON bodies to the page's own origin). States stay the client's messages, passed
// back untouched (sealed or not); what the page draws is turned into proto3 JSON (camelCase
// names, enums by name), the shapes proto/ordo/v1 documents. Every call that carries a state
// carries the seat token of the seat it is made for (none when the server gave no tokens). On a
// server that hosts tables, a hosted game is named by its table id instead of its state, and its
// moves come from WatchGame, each with the view and the events of the page's seat.
import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import {
  OrdoClient,
  OrdoError,
  Recorder,
  RECORD_SUFFIX,
  recordFromJson,
  recordToJson,
  replaySteps,
} from "../../node/src/web.ts";
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
/** A game the page plays: its state (on one screen), or its hosted table's id. */
export type GameInput = GameState | string;

/** A legal or suggested action: the message to send back, and its JSON to read. */
export interface Move {
  message: ActionMessage;
  json: Json;
}

const client = new OrdoClient(location.origin, { format: "json", timeoutMs: 15_000 });
const json = (value: JsonValue): Json => value as Json;
/** The record of the game being played: its deal and every move, as "Save game" downloads it. */
let recorder: Recorder | null = null;
/** Whether the server hosts tables (ListGames says so). */
let hosting = false;

export async function listGames(): Promise<GameInfo[]> {
  const answer = await client.listGames();
  hosting = answer.hosting;
  return answer.games.map((g) => json(toJson(GameInfoSchema, g)) as unknown as GameInfo);
}

/** Whether the server hosts tables: "Play with friends" is offered then. */
export function hosts(): boolean {
  return hosting;
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

/** Deals a game whose `bots` (seat → policy) the server plays, each move limited to
 * `moveLimitMs` (0: no limit). */
export async function newGame(
  seats: number,
  seed: bigint,
  options: Json,
  bots: Record<number, string>,
  moveLimitMs = 0,
): Promise<Dealt> {
  const game = fromJson(GameOptionsSchema, options as JsonValue);
  recorder = new Recorder(client);
  const timeControl = moveLimitMs ? { moveLimitMs } : undefined;
  const dealt = await recorder.newGame(game, seats, { seed, bots, timeControl });
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
 * may see. The game's record keeps the move when `recorded` (once per move, whoever looks).
 */
export async function apply(
  state: GameState,
  play: Play,
  viewer: number | null,
  token: string,
  recorded = true,
): Promise<Applied> {
  const seen = { viewer: viewer ?? ("spectator" as const), seatToken: token };
  const mover = recorded && recorder ? recorder : client;
  const done =
    "action" in play
      ? await mover.applyAction(state, play.action, seen)
      : await mover.playBot(state, play.bot, seen);
  return {
    state: done.state!,
    status: status(done.status),
    events: done.events.map((e) => json(toJson(EventSchema, e)) as GameEvent),
  };
}

/** A timeout claimed against `seat`, as `apply` applies a move: `timedOut` when the game's bot
 * played for the seat, else (it had moved) the game as it is. */
export async function claimTimeout(
  state: GameState,
  seat: number,
  viewer: number | null,
  token: string,
  recorded = true,
): Promise<Applied & { timedOut: boolean }> {
  const seen = { viewer: viewer ?? ("spectator" as const), seatToken: token };
  const claimer = recorded && recorder ? recorder : client;
  const done = await claimer.claimTimeout(state, seat, seen);
  return {
    state: done.state!,
    status: status(done.status),
    events: done.events.map((e) => json(toJson(EventSchema, e)) as GameEvent),
    timedOut: done.timedOut,
  };
}

export async function legalActions(state: GameInput, seat: number, token: string): Promise<Move[]> {
  const { actions } = await client.listLegalActions(state, seat, { seatToken: token });
  return actions.map((message) => ({ message, json: json(toJson(ActionSchema, message)) }));
}

export async function getView(
  state: GameInput,
  seat: number | null,
  token: string,
): Promise<GameView> {
  const { view } = await client.getView(state, seat, { seatToken: token });
  return view ? (json(toJson(GameViewSchema, view)) as GameView) : {};
}

/** A table the server hosts: its id, who acts first, and each person's token. */
export interface Hosted {
  tableId: string;
  status: GameStatus;
  /** Each seat's token, by seat ("" for a bot's seat). */
  seatTokens: string[];
  spectatorToken: string;
}

/** Has the server host a game whose `bots` (seat → policy) it plays by itself, each move limited
 * to `moveLimitMs` (0: no limit). */
export async function hostTable(
  seats: number,
  options: Json,
  bots: Record<number, string>,
  moveLimitMs = 0,
): Promise<Hosted> {
  const game = fromJson(GameOptionsSchema, options as JsonValue);
  const timeControl = moveLimitMs ? { moveLimitMs } : undefined;
  const dealt = await client.newGame(game, seats, { bots, host: true, timeControl });
  return {
    tableId: dealt.tableId,
    status: status(dealt.status),
    seatTokens: dealt.seatTokens,
    spectatorToken: dealt.spectatorToken,
  };
}

/** One revision of a hosted table as the page's seat sees it. */
export interface Watched {
  revision: number;
  /** The seat that moved (none for the view a stream starts with). */
  seat?: number;
  view: GameView;
  events: GameEvent[];
  status: GameStatus;
  /** The number of seats of the game. */
  seats: number;
  /** Whether the move was the game's bot playing for `seat`, whose time was up. */
  timedOut: boolean;
}

/**
 * The revisions of a hosted table as `token`'s seat sees them, from after `after` (the view now
 * when null), to the end of the game; a cut stream is taken up again by the client.
 */
export async function* watchTable(
  tableId: string,
  token: string,
  after: number | null,
  signal: AbortSignal,
): AsyncGenerator<Watched> {
  const init = { seatToken: token, signal, ...(after === null ? {} : { afterRevision: after }) };
  for await (const message of client.watchGame(tableId, init)) {
    yield {
      revision: Number(message.revision),
      ...(message.seat === undefined ? {} : { seat: message.seat }),
      view: message.view ? (json(toJson(GameViewSchema, message.view)) as GameView) : {},
      events: message.events.map((e) => json(toJson(EventSchema, e)) as GameEvent),
      status: status(message.status),
      seats: message.seats,
      timedOut: message.timedOut,
    };
  }
}

/** Applies a person's action to a hosted table, chosen at `revision`; the new revision. */
export async function applyToTable(
  tableId: string,
  action: ActionMessage,
  revision: number,
  token: string,
): Promise<number> {
  const done = await client.applyAction(tableId, action, {
    seatToken: token,
    tableRevision: revision,
    viewer: action.seat,
  });
  return Number(done.tableRevision);
}

/** The record of the game played so far, as its file's text ("" before a game). */
export function recordText(): string {
  return recorder?.state ? recordToJson(recorder.record) : "";
}

/** How many moves the record holds. */
export const recordMoves = (): number => recorder?.record.moves.length ?? 0;

/** Goes on recording a game kept before a reload: its record's text, and its latest state. */
export async function resumeRecord(text: string, state: GameState): Promise<void> {
  recorder = text ? await Recorder.resume(client, recordFromJson(text), state) : null;
}

/** Takes the record back to its first `moves` moves, which led to `state` (a take-back). */
export async function rewindRecord(moves: number, state: GameState): Promise<void> {
  await recorder?.rewind(moves, state);
}

/** The record of the game played so far, as a file kept by `viewer` (a seat, or null for a
 * spectator) with their seat token ("" without tokens): its name and text (null before a game). */
export function savedGame(
  viewer: number | null,
  token: string,
): { name: string; text: string } | null {
  if (!recorder?.state) return null;
  recorder.keptBy(viewer ?? "spectator", token);
  const state = recorder.record.initialState;
  const game = state?.game.case ?? state?.gameId ?? "game";
  const name = `${game.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}-${Date.now()}${RECORD_SUFFIX}`;
  return { name, text: recordToJson(recorder.record) };
}

/** One step of a replayed game, as a viewer saw it: JSON to draw. */
export interface ReplayStep {
  step: number;
  seat?: number;
  view: GameView;
  events: GameEvent[];
  seatViews: GameView[];
}

/** A saved game, checked and played through by the server. */
export interface Replayed {
  /** The game's id (six_nimmt…), from its initial state. */
  game: string;
  finished: boolean;
  /** The seats the game has (as far as its moves and its outcome tell). */
  seats: number;
  steps: ReplayStep[];
}

/** Who kept the record in `text`: a seat, null for a spectator, undefined when it does not say.
 * Throws a SyntaxError for a text that is no record. */
export function recordKeeper(text: string): number | null | undefined {
  const kept = recordFromJson(text).keptBy?.viewer;
  return kept?.case === "seat" ? kept.value : kept?.case === "spectator" ? null : undefined;
}

/**
 * Replays the record in `text` for `viewer`: a seat, null for a spectator, or "reveal" for every
 * seat (a finished game only), with the seat token the record holds, if any (a server that
 * requires tokens replays a record for a token of its game). A text that is no record throws a
 * SyntaxError; a record the server refuses, an OrdoError.
 */
export async function replay(text: string, viewer: number | null | "reveal"): Promise<Replayed> {
  const record = recordFromJson(text);
  const init =
    viewer === "reveal" ? { reveal: true } : { viewer: viewer ?? ("spectator" as const) };
  const steps: ReplayStep[] = [];
  for await (const step of replaySteps(client, record, init)) {
    steps.push({
      step: step.step,
      ...(step.seat === undefined ? {} : { seat: step.seat }),
      view: step.view ? (json(toJson(GameViewSchema, step.view)) as GameView) : {},
      events: step.events.map((e) => json(toJson(EventSchema, e)) as GameEvent),
      seatViews: step.seatViews.map((v) => json(toJson(GameViewSchema, v)) as GameView),
    });
  }
  const state = record.initialState;
  const game = state?.game.case ?? state?.gameId ?? "";
  const last = steps[steps.length - 1]?.view.status ?? {};
  const seats = Math.max(
    last.outcome?.scores?.length ?? 0,
    ...steps.map((s) => (s.seat ?? 0) + 1),
    ...steps.flatMap((s) => (s.view.status?.seatsToAct ?? []).map((seat) => seat + 1)),
  );
  return {
    game: game.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    finished: Boolean(last.finished),
    seats,
    steps,
  };
}
