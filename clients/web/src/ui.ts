// What each game gives the page: how its actions read as steps, how its view is drawn, and how
// its events read in the log.
import type { Step, StepQuery } from "./moves.ts";
import type { GameStatus, Json } from "./types.ts";

export interface DrawContext {
  /** The game's part of the view (e.g. view.sixNimmt). */
  view: Json;
  status: GameStatus;
  /** The CSS pixels the drawing has across: a drawing is laid out at that width, one unit a
   * pixel, so its text keeps its size (at least MIN_FONT) on any screen. */
  width: number;
  /** The height the drawing should keep within to stay in sight with the hand and the move (0:
   * none): a drawing may leave out there what the log tells too. */
  height?: number;
  /** The game parts of every event the viewer has seen, oldest first. */
  history: Json[];
  /** Whether cards print what players are meant to work out (see GameUi.hidesResults). */
  results: boolean;
  seats: number;
  /** The seat looking, or null for a spectator. */
  viewer: number | null;
  /** How each seat is named on the page. */
  names: string[];
  /** The move being built, when the viewer is to act. */
  picker: StepQuery | null;
  /** Keys of what the last events placed or took ("card:57", "cell:34"), to animate. */
  fresh: Set<string>;
  /** Makes a drawn part a target for a step when a legal action allows it. */
  target(el: SVGGElement, kind: string, value: string | number, label: string): void;
}

export interface GameUi {
  /** The steps that build this game's action (its part of Action, e.g. action.sixNimmt), named
   * with the help of the acting seat's view (and without results, when they are hidden). */
  steps(move: Json, view: Json, results?: boolean): Step[];
  /** What a person is asked at a step of `kind`, in players' words ("Choose the row you take."),
   * with the acting seat's view and the steps chosen so far. */
  prompt(kind: string, view: Json, chosen: readonly Step[]): string;
  /** Whether its cards print results a player may prefer to work out (Sequence Numbers'
   * equations): the page then offers to hide them. */
  hidesResults?: boolean;
  table(ctx: DrawContext): SVGSVGElement;
  /** The viewer's hand, or null for a spectator. */
  hand(ctx: DrawContext): SVGSVGElement | null;
  /** One line of the log for one event (its game part) as `viewer` sees it, or null to leave it
   * out. */
  describe(event: Json, names: string[], viewer: number | null, results?: boolean): string | null;
  /** What an event placed or took, as keys of DrawContext.fresh. */
  fresh(event: Json): string[];
  /** The unit of the outcome's scores: "bullheads". */
  unit(): string;
  /** Why the game ended, in the game's own terms, and where each seat's score came from. */
  outcome(end: EndContext): GameEnd;
  /** Whether option `name` applies with the other options `chosen` (by name, as the form holds
   * them) at `seats` seats; one that does not is hidden. Every option applies by default. */
  applies?(name: string, chosen: Record<string, string>, seats: number): boolean;
  /** The views to show one after the other, before the view after `events`, from the view
   * `before` them: a moment worth watching (6 nimmt!'s cards revealed together, then placed
   * lowest first). None when the events hold no such moment. */
  stages?(before: Json, events: Json[]): Stage[];
}

/** One moment of a move to watch: the game's part of a view as it stood, and what had just
 * arrived (as keys of DrawContext.fresh). */
export interface Stage {
  view: Json;
  fresh: string[];
}

/** What the end of a game is told from. */
export interface EndContext {
  /** The game's part of the last view. */
  view: Json;
  status: GameStatus;
  /** The game parts of every event the viewer saw, oldest first. */
  history: Json[];
  names: string[];
  seats: number;
}

/** The end of a game, told by the game. */
export interface GameEnd {
  /** Why the game ended, in a sentence. */
  why: string;
  /** Per seat: where its score came from ("hand 1: 12 · hand 2: 7"). */
  details: string[];
  /** Who won, when the game names winners otherwise than by seat (a team with its seats). */
  winners?: string[];
}

export const num = (value: unknown): number => Number(value ?? 0);
export const nums = (value: unknown): number[] => ((value ?? []) as unknown[]).map(num);
export const list = <T = Json>(value: unknown): T[] => (value ?? []) as T[];
