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
  /** The unit of the outcome's scores. */
  scoreUnit: string;
}

export const num = (value: unknown): number => Number(value ?? 0);
export const nums = (value: unknown): number[] => ((value ?? []) as unknown[]).map(num);
export const list = <T = Json>(value: unknown): T[] => (value ?? []) as T[];

/** A count with its noun, singular or plural: "1 card", "3 bombs". */
export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;
