// The new-game form: the game, its seats and seed, its options as ListGames describes them (in
// the page's language, an option that does not apply with the others hidden, a seat counted
// from 1), who plays each seat, and the bots' speed.
import { UIS } from "./games/index.ts";
import { t } from "./i18n.ts";
import { seatText } from "./notation.ts";
import { PLAYER_KINDS, type PlayerKind, type Settings } from "./session.ts";
import { jsonKey, type GameId, type GameInfo, type Json, type OptionInfo } from "./types.ts";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
/** An option whose value is a seat: shown as the seats are, from 1. */
const SEAT_OPTION = /(^|_)seat$/;

let games: GameInfo[] = [];

export function option(label: string, value: string, selected = false): HTMLOptionElement {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = label;
  el.selected = selected;
  return el;
}

/** The game the form has chosen. */
export function selectedGame(): GameInfo {
  return games.find((g) => g.id === $<HTMLSelectElement>("game").value) ?? games[0]!;
}

/** Fills the form for `list` (the server's games), `wanted` chosen, and wires its parts. */
export function initSetup(list: GameInfo[], wanted: string, onGame: () => void): void {
  games = list;
  const select = $<HTMLSelectElement>("game");
  select.replaceChildren(...games.map((g) => option(g.title, g.id, g.id === wanted)));
  select.onchange = () => {
    fillSetup();
    onGame();
  };
  $<HTMLSelectElement>("seats").onchange = () => {
    fillPlayers();
    fillOptions(readChosen());
  };
  $("options").onchange = () => showApplicable();
  fillSetup();
}

/** Fills the seats, options and players of the game chosen (after a change of game or
 * language), keeping what can be kept. */
export function fillSetup(): void {
  const info = selectedGame();
  const seats = $<HTMLSelectElement>("seats");
  const previous = Number(seats.value);
  const counts = info.seatCounts?.length ? info.seatCounts : [info.minSeats];
  const kept = counts.includes(previous) ? previous : counts[0];
  seats.replaceChildren(...counts.map((n) => option(String(n), String(n), n === kept)));
  fillOptions(readChosen());
  fillPlayers();
}

/** The options of the game chosen, as inputs; `chosen` values kept where they still fit. */
function fillOptions(chosen: Record<string, string>): void {
  const info = selectedGame();
  const seats = Number($<HTMLSelectElement>("seats").value);
  const box = $<HTMLFieldSetElement>("options");
  box.replaceChildren(box.querySelector("legend")!);
  for (const opt of info.options ?? []) {
    if (opt.defaultValue === undefined || opt.defaultValue === "") continue;
    const label = document.createElement("label");
    label.title = opt.description ?? "";
    label.append(`${t().options.names[opt.name] ?? opt.name.replace(/_/g, " ")} `);
    const input = optionInput(opt, chosen[opt.name], seats);
    input.name = opt.name;
    input.dataset.option = opt.name;
    label.append(input);
    box.append(label);
  }
  box.hidden = !box.querySelector("[data-option]");
  showApplicable();
}

function optionInput(
  opt: OptionInfo,
  chosen: string | undefined,
  seats: number,
): HTMLInputElement | HTMLSelectElement {
  const fallback = opt.defaultValue ?? "";
  if (SEAT_OPTION.test(opt.name)) {
    const select = document.createElement("select");
    const wanted = Number(chosen ?? fallback) < seats ? (chosen ?? fallback) : fallback;
    for (let seat = 0; seat < seats; seat++)
      select.append(
        option(t().page.seatName(seatText(seat)), String(seat), String(seat) === wanted),
      );
    return select;
  }
  if (opt.allowedValues?.length) {
    const select = document.createElement("select");
    // Fora de Ordem's questions follow the page's language.
    const language = opt.name === "language" ? t().questionLanguage : undefined;
    const wanted = [language, chosen, fallback].find((v) => v && opt.allowedValues!.includes(v));
    select.append(...opt.allowedValues.map((v) => option(valueLabel(opt, v), v, v === wanted)));
    return select;
  }
  const input = document.createElement("input");
  if (fallback === "true" || fallback === "false") {
    input.type = "checkbox";
    input.checked = (chosen ?? fallback) === "true";
  } else {
    input.type = "number";
    input.min = "0";
    input.value = chosen ?? fallback;
  }
  return input;
}

/** An option's value for people: "the cheapest row is taken"; a 0 the description calls the
 * usual choice ("0 = the usual: ...") reads "usual". */
function valueLabel(opt: OptionInfo, value: string): string {
  if (value === "0" && /\b0 = the usual\b/.test(opt.description ?? "")) return t().page.usual;
  return t().options.values[value] ?? value.toLowerCase().replace(/_/g, " ");
}

/** Hides the options that do not apply with the others chosen (the game says which). */
function showApplicable(): void {
  const ui = UIS[selectedGame().id];
  const chosen = readChosen();
  const seats = Number($<HTMLSelectElement>("seats").value);
  for (const input of optionInputs()) {
    const name = input.dataset.option ?? "";
    input.closest("label")!.hidden = !(ui.applies?.(name, chosen, seats) ?? true);
  }
}

const optionInputs = (): (HTMLInputElement | HTMLSelectElement)[] => [
  ...$("options").querySelectorAll<HTMLInputElement | HTMLSelectElement>("[data-option]"),
];

/** The options as the form holds them, by name (a checkbox "true" or "false"). */
function readChosen(): Record<string, string> {
  const chosen: Record<string, string> = {};
  for (const input of optionInputs()) {
    const checkbox = input instanceof HTMLInputElement && input.type === "checkbox";
    chosen[input.dataset.option ?? ""] = checkbox ? String(input.checked) : input.value;
  }
  return chosen;
}

/** Who plays each seat: a person, or a bot of one of the game's policies. */
export function fillPlayers(): void {
  const players = $<HTMLFieldSetElement>("players");
  const old = [...players.querySelectorAll("select")].map((s) => s.value);
  players.replaceChildren(players.querySelector("legend")!);
  const policies = selectedGame().policies ?? ["heuristic"];
  const p = t().page;
  for (let seat = 0; seat < Number($<HTMLSelectElement>("seats").value); seat++) {
    const label = document.createElement("label");
    label.append(`${p.seatName(seatText(seat))} `);
    const select = document.createElement("select");
    select.name = `seat-${seat}`;
    select.dataset.seat = String(seat);
    const kinds = PLAYER_KINDS.filter((k) => k === "person" || policies.includes(k));
    const wanted = old[seat] ?? (seat === 0 ? "person" : "heuristic");
    select.append(
      ...kinds.map((k) =>
        option(k === "person" ? p.person : p.bot(p.policies[k] ?? k), k, k === wanted),
      ),
    );
    label.append(select);
    players.append(label);
  }
}

/** What the form says to start. */
export function readSettings(): Settings {
  const chosen = readChosen();
  const hidden = new Set(
    optionInputs()
      .filter((i) => i.closest("label")!.hidden)
      .map((i) => i.dataset.option),
  );
  return {
    game: selectedGame().id,
    seats: Number($<HTMLSelectElement>("seats").value),
    seed: $<HTMLInputElement>("seed").value || "0",
    options: Object.fromEntries(Object.entries(chosen).filter(([name]) => !hidden.has(name))),
    kinds: [...$("players").querySelectorAll("select")].map((s) => s.value as PlayerKind),
    delay: Number($<HTMLSelectElement>("speed").value),
    moveLimitMs: Number($<HTMLSelectElement>("move-limit").value),
  };
}

/** The game's options of `settings` in proto JSON: enum options by number (their order in
 * allowedValues from 1), numbers and booleans as such. */
export function optionsJson(info: GameInfo, options: Record<string, string>): Json {
  const out: Json = {};
  for (const [name, value] of Object.entries(options)) {
    const opt = info.options?.find((o) => o.name === name);
    if (!opt) continue;
    const key = jsonKey(name as GameId);
    if (value === "true" || value === "false") out[key] = value === "true";
    else if (opt.allowedValues?.length && !/^\d+$/.test(opt.allowedValues[0]!))
      out[key] = opt.allowedValues.indexOf(value) + 1;
    else out[key] = Number(value);
  }
  return out;
}
