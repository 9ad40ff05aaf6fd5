// Saved games: "Save game" downloads the record of the game being played; "Open game" loads a
// record, has the server check it and play it through (ReplayGame), and shows it step by step
// (first, back, forward, last, a slider) as a seat or a spectator sees it, or with every card
// shown once the game is over.
import * as api from "./api.ts";
import { UIS } from "./games/index.ts";
import { capital, seatText } from "./notation.ts";
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

/** Wires the buttons: call once the page is set up. */
export function initReplay(): void {
  $<HTMLButtonElement>("save-game").onclick = save;
  $<HTMLInputElement>("open-game").onchange = (event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) void file.text().then((text) => open(text, SPECTATOR));
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
}

/** Downloads the record of the game played so far. */
function save(): void {
  const saved = api.savedGame();
  if (!saved) return;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([saved.text], { type: "application/json" }));
  link.download = saved.name;
  link.click();
  URL.revokeObjectURL(link.href);
}

/** Replays the record in `text` as `viewer` (a seat's number, "spectator" or "reveal") sees it. */
async function open(text: string, viewer: string): Promise<void> {
  const error = $("replay-error");
  error.textContent = "";
  document.body.dataset.replay = "loading";
  try {
    const who = viewer === REVEAL ? REVEAL : viewer === SPECTATOR ? null : Number(viewer);
    const replayed = await api.replay(text, who);
    const keep = watching?.text === text ? watching.at : 0;
    watching = { text, replayed, at: Math.min(keep, replayed.steps.length - 1) };
    $("replay-area").hidden = false;
    $("table-area").hidden = true;
    fillViewers(replayed, viewer);
    const slider = $<HTMLInputElement>("replay-slider");
    slider.max = String(replayed.steps.length - 1);
    go(watching.at);
    document.body.dataset.replay = "ready";
  } catch (failure) {
    error.textContent = `Cannot replay this game: ${failure instanceof Error ? failure.message : String(failure)}`;
    document.body.dataset.replay = "failed";
  }
}

function fillViewers(replayed: api.Replayed, chosen: string): void {
  const select = $<HTMLSelectElement>("replay-viewer");
  const choices: [string, string][] = [[SPECTATOR, "a spectator"]];
  for (let seat = 0; seat < replayed.seats; seat++)
    choices.push([String(seat), capital(seatText(seat))]);
  if (replayed.finished) choices.push([REVEAL, "every card (game over)"]);
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

/** Shows step `at` (kept within the game). */
function go(at: number): void {
  if (!watching) return;
  const { replayed } = watching;
  const last = replayed.steps.length - 1;
  watching.at = Math.max(0, Math.min(last, at));
  const step = replayed.steps[watching.at]!;
  const ui = UIS[replayed.game as GameId];
  const key = jsonKey(replayed.game as GameId);
  const names = Array.from({ length: replayed.seats }, (_, seat) => capital(seatText(seat)));
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
    caption.textContent = `${names[each]}: hand`;
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
  const who = step.seat === undefined ? "the deal" : `${names[step.seat]} moved`;
  const over = step.view.status?.finished ? " The game is over." : "";
  $("replay-step").textContent = `Step ${watching.at} of ${last}: ${who}.${over}`;
  $<HTMLInputElement>("replay-slider").value = String(watching.at);
  $<HTMLButtonElement>("replay-first").disabled = watching.at === 0;
  $<HTMLButtonElement>("replay-back").disabled = watching.at === 0;
  $<HTMLButtonElement>("replay-forward").disabled = watching.at === last;
  $<HTMLButtonElement>("replay-last").disabled = watching.at === last;
  document.body.dataset.replayStep = String(watching.at);
}
