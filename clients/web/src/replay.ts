// Saved games: "Save game" downloads the record of the game being played; "Open a saved game"
// loads a record, has the server check it and play it through (ReplayGame), and shows it step by
// step (first, back, forward, last, a slider) as its saver saw it, a seat or a spectator, or with
// every card shown once the game is over. The game being played stays where it was, out of sight
// with its log: leaving the saved game returns to it.
import * as api from "./api.ts";
import { UIS } from "./games/index.ts";
import { t } from "./i18n.ts";
import { seatText } from "./notation.ts";
import { jsonKey, type GameId, type Json } from "./types.ts";
import type { DrawContext } from "./ui.ts";

const SPECTATOR = "spectator";
const REVEAL = "reveal";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

interface Watching {
  text: string;
  replayed: api.Replayed;
  at: number;
}

let watching: Watching | null = null;

/** Wires the buttons: call once the page is set up; `save` gives the file of the game played. */
export function initReplay(save: () => { name: string; text: string } | null): void {
  $<HTMLButtonElement>("save-game").onclick = () => download(save());
  $<HTMLInputElement>("open-game").onchange = (event) => {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = ""; // the same file may be opened again
    if (file) void file.text().then((text) => open(text, null));
  };
  $<HTMLSelectElement>("replay-viewer").onchange = (event) => {
    if (watching) void open(watching.text, (event.target as HTMLSelectElement).value);
  };
  const moves: [string, (at: number, last: number) => number][] = [
    ["replay-first", () => 0],
    ["replay-back", (at) => at - 1],
    ["replay-forward", (at) => at + 1],
    ["replay-last", (_at, last) => last],
  ];
  for (const [id, to] of moves) {
    $<HTMLButtonElement>(id).onclick = () => {
      if (watching) go(to(watching.at, watching.replayed.steps.length - 1));
    };
  }
  $<HTMLInputElement>("replay-slider").oninput = (event) =>
    go(Number((event.target as HTMLInputElement).value));
  $<HTMLButtonElement>("replay-leave").onclick = leave;
}

/** Downloads the record of the game played so far. */
function download(saved: { name: string; text: string } | null): void {
  if (!saved) return;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([saved.text], { type: "application/json" }));
  link.download = saved.name;
  link.click();
  URL.revokeObjectURL(link.href);
}

/** Replays the record in `text` as `viewer` (a seat's number, "spectator" or "reveal") sees it;
 * null for the record's keeper (a spectator when it names none). */
async function open(text: string, viewer: string | null): Promise<void> {
  const error = $("replay-error");
  error.textContent = "";
  document.body.dataset.replay = "loading";
  try {
    const keeper = viewer === null ? api.recordKeeper(text) : undefined;
    const wanted = viewer ?? (keeper == null ? SPECTATOR : String(keeper));
    const who = wanted === REVEAL ? REVEAL : wanted === SPECTATOR ? null : Number(wanted);
    const replayed = await api.replay(text, who);
    const keep = watching?.text === text ? watching.at : 0;
    watching = { text, replayed, at: Math.min(keep, replayed.steps.length - 1) };
    document.body.dataset.watching = "true";
    $("replay-area").hidden = false;
    fillViewers(replayed, wanted);
    const slider = $<HTMLInputElement>("replay-slider");
    slider.max = String(replayed.steps.length - 1);
    go(watching.at);
    document.body.dataset.replay = "ready";
  } catch (failure) {
    const why =
      failure instanceof SyntaxError
        ? t().page.replay.notAFile
        : failure instanceof Error
          ? failure.message
          : String(failure);
    error.textContent = t().page.replay.cannot(why);
    document.body.dataset.replay = "failed";
  }
}

/** Leaves the saved game: the game being played, if any, is on the table again. */
function leave(): void {
  watching = null;
  $("replay-area").hidden = true;
  delete document.body.dataset.watching;
  document.body.dataset.replay = "closed";
}

function fillViewers(replayed: api.Replayed, chosen: string): void {
  const r = t().page.replay;
  const select = $<HTMLSelectElement>("replay-viewer");
  const choices: [string, string][] = [[SPECTATOR, r.spectator]];
  for (let seat = 0; seat < replayed.seats; seat++)
    choices.push([String(seat), t().page.seatName(seatText(seat))]);
  if (replayed.finished) choices.push([REVEAL, r.everyCard]);
  select.replaceChildren(
    ...choices.map(([value, label]) => {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = label;
      option.selected = value === chosen;
      return option;
    }),
  );
}

/** Draws the step shown again (the page's language changed). */
export function redrawReplay(): void {
  if (watching) {
    fillViewers(watching.replayed, $<HTMLSelectElement>("replay-viewer").value);
    go(watching.at);
  }
}

/** Shows step `at` (kept within the game). */
function go(at: number): void {
  if (!watching) return;
  const r = t().page.replay;
  const { replayed } = watching;
  const last = replayed.steps.length - 1;
  watching.at = Math.max(0, Math.min(last, at));
  const step = replayed.steps[watching.at]!;
  const ui = UIS[replayed.game as GameId];
  const key = jsonKey(replayed.game as GameId);
  const names = Array.from({ length: replayed.seats }, (_, seat) =>
    t().page.seatName(seatText(seat)),
  );
  const viewer = $<HTMLSelectElement>("replay-viewer").value;
  const seat = viewer === SPECTATOR || viewer === REVEAL ? null : Number(viewer);
  const fresh = new Set(step.events.flatMap((e) => ui.fresh((e[key] ?? {}) as Json)));
  const context = (view: api.ReplayStep["view"], looking: number | null): DrawContext => ({
    view: (view[key] ?? {}) as Json,
    status: view.status ?? {},
    // Laid out at the width the replay has, with what was seen up to this step.
    width: Math.max(300, $("replay-table").clientWidth || $("table").clientWidth),
    history: replayed.steps
      .slice(0, watching!.at + 1)
      .flatMap((s) => s.events.map((e) => (e[key] ?? {}) as Json)),
    results: true,
    seats: replayed.seats,
    viewer: looking,
    names,
    picker: null,
    fresh,
    target() {},
  });
  $("replay-table").replaceChildren(ui.table(context(step.view, seat)));
  const hands: HTMLElement[] = [];
  const views = step.seatViews.length
    ? step.seatViews.map((view, each) => [view, each] as const)
    : seat === null
      ? []
      : [[step.view, seat] as const];
  for (const [view, each] of views) {
    const drawn = ui.hand(context(view, each));
    if (!drawn) continue;
    const box = document.createElement("figure");
    const caption = document.createElement("figcaption");
    caption.textContent = t().page.hand(names[each] ?? "");
    box.append(caption, drawn);
    hands.push(box);
  }
  $("replay-hands").replaceChildren(...hands);
  const lines = step.events
    .map((e) => ui.describe((e[key] ?? {}) as Json, names, seat))
    .filter((line): line is string => Boolean(line));
  $("replay-events").replaceChildren(
    ...lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }),
  );
  const who = step.seat === undefined ? r.deal : r.moved(names[step.seat] ?? "");
  const over = step.view.status?.finished ? ` ${r.over}` : "";
  $("replay-step").textContent = `${r.at(watching.at, last, who)}${over}`;
  $<HTMLInputElement>("replay-slider").value = String(watching.at);
  $<HTMLButtonElement>("replay-first").disabled = watching.at === 0;
  $<HTMLButtonElement>("replay-back").disabled = watching.at === 0;
  $<HTMLButtonElement>("replay-forward").disabled = watching.at === last;
  $<HTMLButtonElement>("replay-last").disabled = watching.at === last;
  document.body.dataset.replayStep = String(watching.at);
}
