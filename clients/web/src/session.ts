// A game in the page: who plays each seat, the latest state the server returned, what each
// person saw, the tokens of the people's seats, and where a take-back returns to. Kept in the
// tab's session storage at every move, so that a reload goes on with it (src/saved.ts), and its
// record with it, so that "Save game" still saves the whole game. A table the server hosts
// (src/friends.ts) is a session too, named by its table id instead of a state, and holding its
// one seat's token, view and events.
import type * as api from "./api.ts";
import { t } from "./i18n.ts";
import { seatText } from "./notation.ts";
import type { GameEvent, GameInfo, GameStatus, GameView, Json } from "./types.ts";
import type { GameUi } from "./ui.ts";

export const PLAYER_KINDS = ["person", "search", "heuristic", "random"] as const;
export type PlayerKind = (typeof PLAYER_KINDS)[number];
/** The seat under which a spectator's log and token are kept: nobody plays. */
export const SPECTATOR = -1;

/** What a game was started with, as the form held it: "Play again" starts the same. */
export interface Settings {
  game: string;
  seats: number;
  seed: string;
  /** The options by name, as the form holds them. */
  options: Record<string, string>;
  kinds: PlayerKind[];
  delay: number;
}

/** Where a take-back returns: the state a person was asked to move in, and what had been seen
 * by then. */
export interface Checkpoint {
  /** The moves of the record up to that state. */
  moves: number;
  state: api.GameState;
  status: GameStatus;
  /** Per viewer, how many events they had seen. */
  seen: [number, number][];
}

/** A game on the page: `S` is its state on one screen, or its table's id (a string) when the
 * server hosts it. */
export interface Session<S extends api.GameInput = api.GameState> {
  info: GameInfo;
  ui: GameUi;
  key: string;
  settings: Settings;
  kinds: PlayerKind[];
  /** The deal's seed as the server gave it ("0" when it keeps it). */
  seed: string;
  state: S;
  status: GameStatus;
  /** Each person's seat token (the spectator's under SPECTATOR); no bot's. Empty without tokens. */
  tokens: Map<number, string>;
  /** The game parts of the events each viewer saw (a spectator's under SPECTATOR), oldest first:
   * the log is written from them in the page's language. */
  history: Map<number, Json[]>;
  /** What the latest events placed or took, per seat that saw them. */
  fresh: Map<number, Set<string>>;
  /** The seat whose view is shown, SPECTATOR when nobody plays. */
  shown: number;
  /** The last view fetched, kept while the state and the seat stay the same. */
  view: { state: S; seat: number; view: GameView } | null;
  delay: number;
  /** The person's moves a take-back returns to, latest last (practice games only). */
  checkpoints: Checkpoint[];
  /** Whether the server refused a take-back (it fences revisions): none is offered again. */
  noTakeBack: boolean;
}

/** How many people play: the page hides their hands from each other when more than one does. */
export const people = (kinds: readonly PlayerKind[]): number =>
  kinds.filter((k) => k === "person").length;

/** A practice game: one person against bots only, who may take their moves back. */
export const practice = (session: Session): boolean => people(session.kinds) === 1;

/** A session of either kind, as the table area draws it. */
export type AnySession = Session<api.GameInput>;

/** Whether `session` is a table the server hosts, played from this device. */
export const hosted = (session: AnySession): session is Session<string> =>
  typeof session.state === "string";

/** How each seat is named on the page: "Seat 2 (bot)", "Seat 1 (you)" (one person), "Seat 1". On
 * a hosted table the device's own seat is "(you)" and the others plain: a person or a bot there
 * is not this device's to know. */
export function names(session: AnySession): string[] {
  const p = t().page;
  const { kinds } = session;
  return kinds.map((kind, seat) => {
    const name = p.seatName(seatText(seat));
    if (hosted(session)) return seat === session.shown ? p.you(name) : name;
    if (kind !== "person") return p.botName(name);
    return people(kinds) === 1 ? p.you(name) : name;
  });
}

/** The log of `viewer`: the game's first line, then a line per event they saw that tells
 * something. */
export function logLines(session: AnySession, viewer: number, results: boolean): string[] {
  const named = names(session);
  const seat = viewer === SPECTATOR ? null : viewer;
  const lines = (session.history.get(viewer) ?? []).map((part) =>
    session.ui.describe(part, named, seat, results),
  );
  return [firstLine(session), ...lines.filter((line): line is string => Boolean(line))];
}

/** The log's first line: the game dealt, or the table joined. */
function firstLine(session: AnySession): string {
  const p = t().page;
  const { title } = session.info;
  const seats = session.kinds.length;
  if (hosted(session)) {
    const seat = session.shown === SPECTATOR ? null : seatText(session.shown);
    return p.friends.tableLine(title, seats, seat);
  }
  const seed = session.seed === "0" ? p.seedKept : p.seedShown(session.seed);
  return p.newGameLine(title, seats, seed);
}

/**
 * Adds to the histories of `seats` the events they may see, and what the events placed or took
 * to `fresh`.
 */
export function record(
  session: AnySession,
  events: GameEvent[],
  seats: number[],
  fresh: Map<number, Set<string>>,
): void {
  for (const event of events) {
    const part = (event[session.key] ?? {}) as Json;
    const audience = event.public
      ? seats
      : (event.visibleToSeats ?? []).filter((s) => seats.includes(s));
    for (const seat of audience) {
      session.history.get(seat)?.push(part);
      const keys = fresh.get(seat) ?? new Set<string>();
      for (const k of session.ui.fresh(part)) keys.add(k);
      fresh.set(seat, keys);
    }
  }
}
