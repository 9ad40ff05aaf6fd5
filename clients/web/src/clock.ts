// Each seat's clock in a game with a time control: the server's view of them (GetView's
// `clock`), counted down here from the moment the view arrived, the shown person warned when
// their time runs short. When a person's time is up the page claims the timeout (play.ts): the
// game's bot then plays for them, and the log says so.
import { t } from "./i18n.ts";
import { names, type AnySession } from "./session.ts";
import type { GameView, Json } from "./types.ts";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const TICK_MS = 250; // the clocks' text is redrawn this often
const WARN_MS = 10_000; // a person is warned when this much time is left, or half of it
/** How long after a person's time is up the page claims, past the server's tolerance between
 * its replicas' clocks (250 ms by default): a claim sent earlier is refused as not yet due. */
export const CLAIM_MARGIN_MS = 400;

/** One seat's clock as the server showed it (proto3 JSON: 64-bit numbers as strings). */
interface SeatClock {
  remainingMs?: string;
  running?: boolean;
  absent?: boolean;
}

let ticking: ReturnType<typeof setInterval> | null = null;

/** The clocks of `view`, per seat; none for a game without a time control. */
export function clocksOf(view: GameView): SeatClock[] {
  const clock = view.clock as Json | undefined;
  return ((clock?.seats as SeatClock[] | undefined) ?? []).map((seat) => ({ ...seat }));
}

/** The time `seat` has left in `view` when the view arrived, in ms (null: no clock). */
export function timeLeft(view: GameView, seat: number): number | null {
  const clock = clocksOf(view)[seat];
  return clock ? Number(clock.remainingMs ?? 0) : null;
}

/** The half of a limit, or WARN_MS when less: the time left at which a person is warned. */
function warnAt(view: GameView): number {
  const control = ((view.clock as Json | undefined)?.control ?? {}) as Json;
  const limit = Number(control.moveLimitMs ?? control.baseMs ?? 0);
  return Math.min(WARN_MS, limit / 2);
}

const seconds = (ms: number): string => {
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

/** Draws every seat's clock from `view` and counts the running ones down; hides them for a game
 * without a time control. */
export function drawClocks(session: AnySession, view: GameView): void {
  stopClocks();
  const seats = clocksOf(view);
  const list = $("clocks");
  list.hidden = seats.length === 0;
  $("clock-note").textContent = "";
  if (!seats.length) return;
  const arrived = performance.now();
  const named = names(session);
  const warn = warnAt(view);
  const draw = (): void => {
    const passed = performance.now() - arrived;
    let short: number | null = null;
    list.replaceChildren(
      ...seats.map((clock, seat) => {
        const left = Math.max(0, Number(clock.remainingMs ?? 0) - (clock.running ? passed : 0));
        const item = document.createElement("li");
        item.dataset.seat = String(seat);
        item.classList.toggle("running", Boolean(clock.running));
        item.classList.toggle("absent", Boolean(clock.absent));
        const mine = seat === session.shown && session.kinds[seat] === "person";
        if (mine && clock.running && left <= warn) short = left;
        item.classList.toggle("short", mine && clock.running && left <= warn);
        const away = clock.absent ? ` ${t().page.clock.absent}` : "";
        item.textContent = `${named[seat] ?? ""}: ${seconds(left)}${away}`;
        return item;
      }),
    );
    $("clock-note").textContent = short === null ? "" : t().page.clock.short(seconds(short));
  };
  draw();
  ticking = setInterval(draw, TICK_MS);
}

/** Stops counting the clocks down (a move was made, or another game started). */
export function stopClocks(): void {
  if (ticking !== null) clearInterval(ticking);
  ticking = null;
}
