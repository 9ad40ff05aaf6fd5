// A game on the page: what it holds (its session), and how it is drawn: the table and the hand as
// one seat (or a spectator) sees them, the move being built, whose turn it is, the log and the
// outcome. A game on one screen (main.ts) and a hosted table (friends.ts) draw the same way.
import * as api from "./api.ts";
import type { MovePicker } from "./moves.ts";
import { capital, seatText } from "./notation.ts";
import type { DrawContext, GameUi } from "./ui.ts";
import type { GameEvent, GameInfo, GameStatus, GameView, Json } from "./types.ts";

export const PLAYER_KINDS = ["person", "search", "heuristic", "random"] as const;
export type PlayerKind = (typeof PLAYER_KINDS)[number];
export const SPECTATOR = -1;
export const LOG_LINES = 150; // the last lines of a log shown, numbered as in the whole log
export type Picker = MovePicker<api.Move>;

export const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

export interface Session {
  info: GameInfo;
  ui: GameUi;
  key: string;
  kinds: PlayerKind[];
  names: string[];
  /** The game's state, or the id of the hosted table that keeps it. */
  state: api.GameInput;
  status: GameStatus;
  /** Each person's seat token (the spectator's under SPECTATOR when nobody plays); no bot's. */
  tokens: Map<number, string>;
  /** Each person's log (and the spectators', under SPECTATOR): only events they may see. */
  logs: Map<number, string[]>;
  /** The game parts of the events each of them saw, for drawings that show what happened. */
  history: Map<number, Json[]>;
  /** What the latest events placed or took, per seat that saw them. */
  fresh: Map<number, Set<string>>;
  /** The seat whose view is shown, SPECTATOR when nobody plays. */
  shown: number;
  /** The last view fetched, kept while the state and the seat stay the same. */
  view: { state: api.GameInput; seat: number; view: GameView } | null;
  delay: number;
}

export function seatName(seat: number, kind: PlayerKind, people: number): string {
  const name = capital(seatText(seat));
  if (kind !== "person") return `${name} (bot)`;
  return people === 1 ? `${name} (you)` : name;
}

/**
 * Adds to the logs of `seats` the events they may see, and what the events placed or took to
 * `fresh`.
 */
export function record(
  session: Session,
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
      const viewer = seat === SPECTATOR ? null : seat;
      const line = session.ui.describe(part, session.names, viewer, showsResults());
      if (line) session.logs.get(seat)!.push(line);
      session.history.get(seat)?.push(part);
      const keys = fresh.get(seat) ?? new Set<string>();
      for (const k of session.ui.fresh(part)) keys.add(k);
      fresh.set(seat, keys);
    }
  }
}

/** The token of the calls made for `seat` (SPECTATOR: a spectator's); "" without tokens. */
export function token(session: Session, seat: number): string {
  return session.tokens.get(seat) ?? "";
}

/** What `seat` (or a spectator) may see now; asked once per state and seat. */
export async function viewOf(session: Session, seat: number): Promise<GameView> {
  const cached = session.view;
  if (cached && cached.state === session.state && cached.seat === seat) return cached.view;
  const view = await api.getView(
    session.state,
    seat === SPECTATOR ? null : seat,
    token(session, seat),
  );
  session.view = { state: session.state, seat, view };
  return view;
}

/** Tells tests and assistive tools whether the page waits for a person: busy, input or over. */
export function phase(value: "busy" | "input" | "over"): void {
  document.body.dataset.phase = value;
  $("table-area").setAttribute("aria-busy", String(value === "busy"));
}

export async function show(session: Session, picker: Picker | null): Promise<void> {
  phase("busy");
  const seat = session.shown;
  const view = await viewOf(session, seat);
  const ctx: DrawContext = {
    view: (view[session.key] ?? {}) as Json,
    status: view.status ?? session.status,
    width: drawingWidth(),
    results: showsResults(),
    history: session.history.get(seat) ?? [],
    seats: session.kinds.length,
    viewer: seat === SPECTATOR ? null : seat,
    names: session.names,
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
  const focused = document.activeElement as HTMLElement | null;
  const focusKey = focused?.dataset?.step
    ? `${focused.dataset.step}:${focused.dataset.value}`
    : null;
  $("table").replaceChildren(session.ui.table(ctx));
  const hand = session.ui.hand(ctx);
  $("hand").replaceChildren(...(hand ? [hand] : []));
  $("hand-title").hidden = !hand;
  $("hand-title").textContent = seat === SPECTATOR ? "" : `${session.names[seat]}: hand`;
  drawChoices(picker);
  drawTurn(session, picker);
  drawLog(session);
  if (focusKey) {
    const again = document.querySelector<HTMLElement>(
      `[data-step="${focusKey.split(":")[0]}"][data-value="${focusKey.slice(focusKey.indexOf(":") + 1)}"].target`,
    );
    (again ?? document.querySelector<HTMLElement>(".target"))?.focus();
  }
  if (picker) phase("input");
}

/** Whether cards print their results (a person may hide them, to work them out). */
export function showsResults(): boolean {
  return !$<HTMLInputElement>("hide-results").checked;
}

/** The CSS pixels a drawing has across: drawings are laid out at that width, one unit a pixel,
 * so that their text keeps its size on any screen. */
export function drawingWidth(): number {
  return Math.max(300, Math.floor($("table").clientWidth || $("hand").clientWidth));
}

/** The same steps as buttons: for the keyboard, for readers, and for choices with no drawing. */
export function drawChoices(picker: Picker | null): void {
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
    back.textContent = "Back";
    back.className = "back";
    back.onclick = () => picker.back();
    box.append(back);
  }
}

export function drawTurn(session: Session, picker: Picker | null): void {
  const toAct = session.status.seatsToAct ?? [];
  let line: string;
  if (session.status.finished) line = "The game is over.";
  else if (picker) {
    const chosen = picker.steps.map((s) => s.label).join(", ");
    line = `${session.names[session.shown]}: your move${chosen ? ` (${chosen})` : ""}. Choose ${picker.offered()[0]?.kind ?? "a move"}.`;
  } else line = `Waiting for ${toAct.map((s) => session.names[s]).join(", ")}.`;
  $("turn").textContent = line;
}

export function drawLog(session: Session): void {
  const lines = session.logs.get(session.shown) ?? [];
  const first = Math.max(0, lines.length - LOG_LINES);
  const log = $("log");
  log.replaceChildren(
    ...lines.slice(first).map((line, i) => {
      const li = document.createElement("li");
      li.value = first + i + 1; // numbered as in the whole log, not from the first line shown
      li.textContent = line;
      return li;
    }),
  );
  log.scrollTop = log.scrollHeight;
}

export function showOutcome(session: Session): void {
  const outcome = session.status.outcome ?? {};
  const scores = (outcome.scores ?? []).map(Number);
  const winners = outcome.winners ?? [];
  const box = $("outcome");
  box.hidden = false;
  box.dataset.scores = JSON.stringify(scores);
  box.dataset.winners = JSON.stringify(winners);
  const rows = session.names
    .map(
      (name, seat) =>
        `<tr${winners.includes(seat) ? ' class="winner"' : ""}><td>${name}</td><td>${scores[seat] ?? 0}</td><td>${winners.includes(seat) ? "★ winner" : ""}</td></tr>`,
    )
    .join("");
  const who = winners.length ? winners.map((s) => session.names[s]).join(", ") : "nobody (a draw)";
  box.innerHTML =
    `<h3>Game over: ${who} ${winners.length === 1 ? "wins" : "win"}</h3>` +
    `<p>Ended by ${String(outcome.termination ?? "")
      .toLowerCase()
      .replace(
        /_/g,
        " ",
      )}; ${session.ui.scoreUnit}${outcome.lowerIsBetter ? " (lower is better)" : ""}.</p>` +
    `<table><thead><tr><th>Seat</th><th>Score</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  $("turn").textContent = "The game is over.";
  $("choices").replaceChildren();
  phase("over");
}
