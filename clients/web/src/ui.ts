// What each game gives the page: how its actions read as steps, how its view is drawn, and how
// its events read in the log.
import type { Step, StepQuery } from "./moves.ts";
import type { GameStatus, Json } from "./types.ts";

export interface DrawContext {
  /** The game's part of the view (e.g. view.sixNimmt). */
  view: Json;
  status: GameStatus;
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
   * with the help of the acting seat's view. */
  steps(move: Json, view: Json): Step[];
  table(ctx: DrawContext): SVGSVGElement;
  /** The viewer's hand, or null for a spectator. */
  hand(ctx: DrawContext): SVGSVGElement | null;
  /** One line of the log for one event (its game part) as `viewer` sees it, or null to leave it
   * out. */
  describe(event: Json, names: string[], viewer: number | null): string | null;
  /** What an event placed or took, as keys of DrawContext.fresh. */
  fresh(event: Json): string[];
  /** The unit of the outcome's scores. */
  scoreUnit: string;
}

export const num = (value: unknown): number => Number(value ?? 0);
export const nums = (value: unknown): number[] => ((value ?? []) as unknown[]).map(num);
export const list = <T = Json>(value: unknown): T[] => (value ?? []) as T[];
