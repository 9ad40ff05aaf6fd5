// What the table area shows: the game's drawing of the table and of the hand, laid out to fit
// the screen, the move's steps as buttons, whose turn it is and what is asked, the log and the
// last few events beside the table.
import * as api from "./api.ts";
import { t } from "./i18n.ts";
import type { MovePicker } from "./moves.ts";
import { logLines, names, SPECTATOR, type AnySession } from "./session.ts";
import type { GameView, Json } from "./types.ts";
import type { DrawContext, Stage } from "./ui.ts";

export type Picker = MovePicker<api.Move>;

const LOG_LINES = 150; // the last lines of a log shown, numbered as in the whole log
const RECENT_LINES = 3; // the events under the table on a narrow screen
const MIN_WIDTH = 300; // the narrowest a drawing is laid out
const GAP = 8; // CSS pixels between the parts of the table area
const FIT_STEP = 40; // CSS pixels of width a table gives up at a time to fit the screen
/** A screen narrow enough for one column: the table area first, scrolled to at a game's start. */
export const NARROW = "(max-width: 1000px)";
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

let scrollToTable = false;

/** Brings the table area into sight once it is next drawn (a new game on a narrow screen, where
 * it comes before the form). */
export function bringIntoSight(): void {
  scrollToTable = window.matchMedia(NARROW).matches;
}

/** Tells tests and assistive tools whether the page waits for a person: busy, input or over. */
export function phase(value: "busy" | "input" | "over"): void {
  document.body.dataset.phase = value;
  $("table-area").setAttribute("aria-busy", String(value === "busy"));
}

/** Whether cards print their results (a person may hide them, to work them out). */
export function showsResults(): boolean {
  return !$<HTMLInputElement>("hide-results").checked;
}

/** What `seat` (or a spectator) may see now; asked once per state and seat. */
export async function viewOf(session: AnySession, seat: number): Promise<GameView> {
  const cached = session.view;
  if (cached && cached.state === session.state && cached.seat === seat) return cached.view;
  const token = session.tokens.get(seat) ?? "";
  const view = await api.getView(session.state, seat === SPECTATOR ? null : seat, token);
  session.view = { state: session.state, seat, view };
  return view;
}

/** The CSS pixels a drawing has across: drawings are laid out at that width, one unit a pixel,
 * so that their text keeps its size on any screen. */
function drawingWidth(): number {
  return Math.max(MIN_WIDTH, Math.floor($("table").clientWidth || $("hand").clientWidth));
}

/** The context a drawing of `session`'s table is made in, for `view` (the game's part). */
function context(
  session: AnySession,
  view: GameView,
  part: Json,
  picker: Picker | null,
): DrawContext {
  const seat = session.shown;
  return {
    view: part,
    status: view.status ?? session.status,
    width: drawingWidth(),
    results: showsResults(),
    history: session.history.get(seat) ?? [],
    seats: session.kinds.length,
    viewer: seat === SPECTATOR ? null : seat,
    names: names(session),
    picker,
    fresh: session.fresh.get(seat) ?? new Set(),
    target(el, kind, value, label) {
      const v = String(value);
      el.dataset.step = kind;
      el.dataset.value = v;
      if (picker?.isChosen(kind, v)) el.classList.add("chosen");
      if (!picker?.isOffered(kind, v)) return;
      el.classList.add("target");
      el.setAttribute("role", "button");
      el.setAttribute("tabindex", "0");
      el.setAttribute("aria-label", label);
      const choose = (): void => picker.choose(kind, v);
      el.addEventListener("click", choose);
      el.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          choose();
        }
      });
    },
  };
}

/** Draws the table as `seat` sees it, with the move being built when `picker` is given. */
export async function show(session: AnySession, picker: Picker | null): Promise<void> {
  phase("busy");
  const seat = session.shown;
  const view = await viewOf(session, seat);
  const ctx = context(session, view, (view[session.key] ?? {}) as Json, picker);
  const focused = document.activeElement as HTMLElement | null;
  const focusKey = focused?.dataset?.step ? [focused.dataset.step, focused.dataset.value] : null;
  const hand = session.ui.hand(ctx);
  $("hand").replaceChildren(...(hand ? [hand] : []));
  $("hand-title").hidden = !hand;
  $("hand-title").textContent = seat === SPECTATOR ? "" : t().page.hand(names(session)[seat] ?? "");
  drawChoices(picker);
  drawTurn(session, picker, view);
  drawLog(session);
  drawTable(session, ctx);
  if (scrollToTable) {
    scrollToTable = false;
    $("table-area").scrollIntoView();
  }
  if (focusKey) {
    const [step, value] = focusKey;
    const again = document.querySelector<HTMLElement>(
      `[data-step="${step}"][data-value="${CSS.escape(value ?? "")}"].target`,
    );
    (again ?? document.querySelector<HTMLElement>(".target"))?.focus({ preventScroll: true });
  }
  if (picker) phase("input");
}

/** Draws the table at the width it has, or narrower when that keeps it, the hand and the
 * move's buttons in sight together (a board's height follows its width). */
function drawTable(session: AnySession, ctx: DrawContext): void {
  const area = $("table");
  const room = Math.max(0, roomForTable());
  const layout = (width: number): SVGSVGElement => {
    const svg = session.ui.table({ ...ctx, width, height: room });
    area.replaceChildren(svg);
    return svg;
  };
  let drawn = layout(ctx.width);
  const fits = (svg: SVGSVGElement): boolean => svg.viewBox.baseVal.height <= room;
  // A drawing's height grows with its width, partly (a board) or not at all (a list of seats),
  // and may change its layout at some width: the widest layout that fits, found by steps down;
  // when none does, the lowest (the widest of those).
  if (room > 0 && !fits(drawn)) {
    let best = { width: ctx.width, height: drawn.viewBox.baseVal.height };
    for (
      let width = ctx.width - FIT_STEP;
      width >= MIN_WIDTH && best.height > room;
      width -= FIT_STEP
    ) {
      const height = layout(width).viewBox.baseVal.height;
      if (height < best.height) best = { width, height };
    }
    drawn = layout(best.width);
  }
  // One unit a CSS pixel: a table laid out narrower stays that narrow, centred.
  drawn.style.width = `${drawn.viewBox.baseVal.width}px`;
}

/** The height the table may take: the screen's, less what must be in sight with it (the title,
 * the turn line, the hand, the move's buttons, the last events), from where the table area
 * starts (the top of the screen on a narrow one, which the page scrolls to). */
function roomForTable(): number {
  const around = ["table-head", "results-toggle", "turn", "hand-title", "hand", "choices", "recent"]
    .map((id) => $(id))
    .filter((el) => el.offsetParent !== null)
    .reduce((sum, el) => sum + el.getBoundingClientRect().height + GAP, 0);
  const narrow = window.matchMedia(NARROW).matches;
  const top = narrow ? 0 : $("table-area").getBoundingClientRect().top + window.scrollY;
  return Math.floor(window.innerHeight - top - around - 2 * GAP);
}

/** Shows the moments of a move worth watching, one after the other, `pause` ms apart. */
export async function watch(session: AnySession, stages: Stage[], pause: number): Promise<void> {
  if (!stages.length || !pause) return;
  const view = await viewOf(session, session.shown);
  for (const stage of stages) {
    const ctx = context(session, view, stage.view, null);
    drawTable(session, { ...ctx, fresh: new Set(stage.fresh) });
    document.body.dataset.stage = String(Number(document.body.dataset.stage ?? "0") + 1);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** The same steps as buttons: for the keyboard, for readers, and for choices with no drawing. */
function drawChoices(picker: Picker | null): void {
  const box = $("choices");
  box.replaceChildren();
  if (!picker) return;
  for (const step of picker.offered()) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = step.label;
    button.dataset.step = step.kind;
    button.dataset.value = step.value;
    button.onclick = () => picker.choose(step.kind, step.value);
    box.append(button);
  }
  if (picker.steps.length) {
    const back = document.createElement("button");
    back.type = "button";
    back.textContent = t().page.back;
    back.className = "back";
    back.onclick = () => picker.back();
    box.append(back);
  }
}

/** Whose turn it is, and what the person is asked in the game's words. */
function drawTurn(session: AnySession, picker: Picker | null, view: GameView): void {
  const p = t().page;
  const named = names(session);
  const toAct = session.status.seatsToAct ?? [];
  const turn = $("turn");
  if (session.status.finished) turn.textContent = p.over;
  else if (picker) {
    const next = picker.offered()[0]?.kind ?? "";
    const part = (view[session.key] ?? {}) as Json;
    const asked = session.ui.prompt(next, part, picker.steps);
    const chosen = picker.steps.map((s) => s.label).join(", ");
    turn.textContent = [
      p.yourMove(named[session.shown] ?? ""),
      asked,
      chosen ? p.soFar(chosen) : "",
    ]
      .filter(Boolean)
      .join(" ");
  } else turn.textContent = p.waiting(toAct.map((s) => named[s] ?? ""));
}

/** The log of the seat shown, in the page's language, and its last lines under the table. */
export function drawLog(session: AnySession): void {
  const lines = logLines(session, session.shown, showsResults());
  const first = Math.max(0, lines.length - LOG_LINES);
  const log = $("log");
  log.replaceChildren(...lines.slice(first).map((line, i) => item(line, first + i + 1)));
  log.scrollTop = log.scrollHeight;
  const recent = Math.max(0, lines.length - RECENT_LINES);
  $("recent").replaceChildren(...lines.slice(recent).map((line, i) => item(line, recent + i + 1)));
}

/** A line of a log, numbered as in the whole log. */
function item(line: string, number: number): HTMLLIElement {
  const li = document.createElement("li");
  li.value = number;
  li.textContent = line;
  return li;
}
