// The playground: a game is set up from ListGames, people act by pointing at legal moves, the
// server plays the bot seats (ApplyAction with `bot`), and each person sees only their own
// GetView. With a server that gives seat tokens, the page holds only its people's (a spectator's
// when nobody plays), and makes each call with the token of the seat it is made for.
import * as api from "./api.ts";
import { preferredLanguage } from "./language.ts";
import { MovePicker, type Candidate } from "./moves.ts";
import { capital, seatText } from "./notation.ts";
import * as saved from "./saved.ts";
import { UIS } from "./games/index.ts";
import { joinTable, leaveTable, pageLink, showInvites } from "./friends.ts";
import { initReplay } from "./replay.ts";
import {
  $,
  PLAYER_KINDS,
  type PlayerKind,
  type Session,
  SPECTATOR,
  phase,
  record,
  seatName,
  show,
  showOutcome,
  showsResults,
  token,
  viewOf,
} from "./session.ts";
import { jsonKey, type GameId, type GameInfo, type OptionInfo, type Json } from "./types.ts";

declare const RULES_SUMMARIES: Record<string, string>;

const FIRST_GAME: GameId = "six_nimmt"; // what the page opens on

let games: GameInfo[] = [];
let current: Session | null = null;
let generation = 0;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function selectedGame(): GameInfo {
  return games.find((g) => g.id === $<HTMLSelectElement>("game").value) ?? games[0]!;
}

function option(label: string, value: string, selected = false): HTMLOptionElement {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = label;
  el.selected = selected;
  return el;
}

function fillSetup(): void {
  const info = selectedGame();
  const seats = $<HTMLSelectElement>("seats");
  const previous = Number(seats.value);
  const counts = info.seatCounts?.length ? info.seatCounts : [info.minSeats];
  seats.replaceChildren(
    ...counts.map((n) =>
      option(String(n), String(n), n === (counts.includes(previous) ? previous : counts[0])),
    ),
  );
  const options = $<HTMLFieldSetElement>("options");
  options.replaceChildren(options.querySelector("legend")!);
  for (const opt of info.options ?? []) {
    if (opt.defaultValue === undefined || opt.defaultValue === "") continue;
    const label = document.createElement("label");
    label.title = opt.description ?? "";
    label.append(`${opt.name.replace(/_/g, " ")} `);
    let input: HTMLInputElement | HTMLSelectElement;
    if (opt.allowedValues?.length) {
      input = document.createElement("select");
      const chosen = preferredLanguage(opt) ?? opt.defaultValue;
      input.append(...opt.allowedValues.map((v) => option(valueLabel(opt, v), v, v === chosen)));
    } else if (opt.defaultValue === "true" || opt.defaultValue === "false") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = opt.defaultValue === "true";
    } else {
      input = document.createElement("input");
      input.type = "number";
      input.min = "0";
      input.value = opt.defaultValue;
    }
    input.name = opt.name;
    input.dataset.option = opt.name;
    label.append(input);
    options.append(label);
  }
  fillPlayers();
  $("rules").innerHTML = RULES_SUMMARIES[info.id] ?? "";
  $<HTMLAnchorElement>("rules-link").href = `rules/${info.id}.html`;
}

/** An option's value for people: "take cheapest row"; a 0 the description calls the usual
 * choice ("0 = the usual: ...") reads "usual". */
function valueLabel(opt: OptionInfo, value: string): string {
  if (value === "0" && /\b0 = the usual\b/.test(opt.description ?? "")) return "usual";
  return value.toLowerCase().replace(/_/g, " ");
}

function fillPlayers(): void {
  const players = $<HTMLFieldSetElement>("players");
  const old = [...players.querySelectorAll("select")].map((s) => s.value);
  players.replaceChildren(players.querySelector("legend")!);
  const policies = selectedGame().policies ?? ["heuristic"];
  for (let seat = 0; seat < Number($<HTMLSelectElement>("seats").value); seat++) {
    const label = document.createElement("label");
    label.append(`${capital(seatText(seat))} `);
    const select = document.createElement("select");
    select.name = `seat-${seat}`;
    select.dataset.seat = String(seat);
    const kinds = PLAYER_KINDS.filter((k) => k === "person" || policies.includes(k));
    const wanted = old[seat] ?? (seat === 0 ? "person" : "heuristic");
    select.append(
      ...kinds.map((k) => option(k === "person" ? "person" : `bot: ${k}`, k, k === wanted)),
    );
    label.append(select);
    players.append(label);
  }
}

/** The game's options in JSON: enum options by number (their order in allowedValues from 1). */
function readOptions(info: GameInfo): Json {
  const out: Json = {};
  for (const input of $("options").querySelectorAll<HTMLInputElement | HTMLSelectElement>(
    "[data-option]",
  )) {
    const opt = info.options?.find((o) => o.name === input.dataset.option);
    if (!opt) continue;
    const name = jsonKey(opt.name as GameId);
    if (input instanceof HTMLInputElement && input.type === "checkbox") out[name] = input.checked;
    else if (opt.allowedValues?.length && !/^\d+$/.test(opt.allowedValues[0]!))
      out[name] = opt.allowedValues.indexOf(input.value) + 1;
    else out[name] = Number(input.value);
  }
  return out;
}

/** Has the server host the game set up, and shows a link for each person at the table. */
async function host(): Promise<void> {
  $("setup-error").textContent = "";
  const info = selectedGame();
  const seats = Number($<HTMLSelectElement>("seats").value);
  const kinds = [...$("players").querySelectorAll("select")].map((s) => s.value as PlayerKind);
  const bots: Record<number, string> = {};
  kinds.forEach((k, seat) => k !== "person" && (bots[seat] = k));
  try {
    showInvites(await api.hostTable(seats, { [jsonKey(info.id)]: readOptions(info) }, bots));
  } catch (error) {
    $("setup-error").textContent = error instanceof Error ? error.message : String(error);
  }
}

/** Plays the table of the page's link, leaving any game on this screen. */
function join(): void {
  const link = pageLink();
  if (!link) return;
  generation++;
  current = null;
  void joinTable(link, games);
}

async function start(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!abandonRunningGame()) return;
  // A game on one screen: the page follows no table any more, and a reload keeps this game.
  leaveTable();
  if (pageLink()) history.replaceState(null, "", location.pathname + location.search);
  $("invites-area").hidden = true;
  $("save-game").hidden = false;
  $("setup-error").textContent = "";
  const info = selectedGame();
  const seats = Number($<HTMLSelectElement>("seats").value);
  const kinds = [...$("players").querySelectorAll("select")].map((s) => s.value as PlayerKind);
  const people = kinds.filter((k) => k === "person").length;
  const seed = BigInt($<HTMLInputElement>("seed").value || "0");
  const key = jsonKey(info.id);
  const bots: Record<number, string> = {};
  kinds.forEach((k, seat) => k !== "person" && (bots[seat] = k));
  try {
    const dealt = await api.newGame(seats, seed, { [key]: readOptions(info) }, bots);

    const logs = new Map<number, string[]>([[SPECTATOR, []]]);
    kinds.forEach((k, seat) => k === "person" && logs.set(seat, []));
    const dealtFrom = dealt.seed === "0" ? "a seed the server keeps" : `seed ${dealt.seed}`;
    for (const lines of logs.values())
      lines.push(`${info.title}: a new game for ${seats} seats (${dealtFrom}).`);
    const shown = kinds.indexOf("person");
    // Only the people's tokens are kept: a bot's seat has none, and nobody here plays it.
    const tokens = new Map<number, string>();
    if (dealt.spectatorToken || dealt.seatTokens.length) {
      kinds.forEach((k, seat) => k === "person" && tokens.set(seat, dealt.seatTokens[seat] ?? ""));
      if (people === 0) tokens.set(SPECTATOR, dealt.spectatorToken);
    }
    begin({
      info,
      ui: UIS[info.id],
      key,
      kinds,
      names: kinds.map((k, seat) => seatName(seat, k, people)),
      state: dealt.state,
      status: dealt.status,
      tokens,
      logs,
      history: new Map([...logs.keys()].map((seat) => [seat, []])),
      fresh: new Map(),
      shown: shown >= 0 ? shown : SPECTATOR,
      view: null,
      delay: Number($<HTMLSelectElement>("speed").value),
    });
    // On a narrow screen the table is below the form: bring it into sight.
    if (window.matchMedia("(max-width: 1000px)").matches) $("table-area").scrollIntoView();
  } catch (error) {
    $("setup-error").textContent = error instanceof Error ? error.message : String(error);
  }
}

/** Whether a Start may go on: a game in progress with people in it is abandoned only when they
 * say so. */
function abandonRunningGame(): boolean {
  const running = current && !current.status.finished && current.kinds.includes("person");
  return !running || window.confirm("Abandon the game in progress and start a new one?");
}

/** Shows a game's table, a fresh one (no cover, no outcome), and plays it from where it is. */
function begin(session: Session): void {
  current = session;
  phase("busy");
  $("cover").hidden = true;
  $("table").hidden = false;
  $("hand").hidden = false;
  $("table-area").hidden = false;
  $("replay-area").hidden = true;
  $("outcome").hidden = true;
  $("refused").textContent = "";
  $("table-title").textContent = session.info.title;
  $("results-toggle").hidden = !session.ui.hidesResults;
  keep(session);
  void play(session, ++generation);
  // Tells tests and assistive tools that another game is on the table.
  document.body.dataset.game = String(generation);
}

/** The state of a game on one screen (a hosted table is named by its id instead). */
function stateOf(session: Session): api.GameState {
  if (typeof session.state === "string") throw new Error("a hosted table keeps its own state");
  return session.state;
}

/** Keeps the game in this tab's session storage, for a reload. */
function keep(session: Session): void {
  saved.save({
    game: session.info.id,
    kinds: session.kinds,
    names: session.names,
    state: stateOf(session),
    status: session.status,
    logs: [...session.logs],
    history: [...session.history],
    shown: session.shown,
    delay: session.delay,
    extra: { tokens: [...session.tokens] },
  });
}

/** The game this tab kept before a reload, as a session; null when there is none to go on. */
function restored(): Session | null {
  const kept = saved.restore();
  const info = games.find((g) => g.id === kept?.game);
  if (!kept || !info) return null;
  return {
    info,
    ui: UIS[info.id],
    key: jsonKey(info.id),
    kinds: kept.kinds as PlayerKind[],
    names: kept.names,
    state: kept.state,
    status: kept.status,
    tokens: new Map((kept.extra?.tokens ?? []) as [number, string][]),
    logs: new Map(kept.logs),
    history: new Map(kept.history),
    fresh: new Map(),
    shown: kept.shown,
    view: null,
    delay: kept.delay,
  };
}

/**
 * Applies a move. The page asks only for the events its people may see (a spectator's when
 * nobody plays): once per person, as the contract names one viewer; the moves are pure, so every
 * answer holds the same state (and the revision fence takes the same move again as a retry).
 * With seat tokens a person's own move is asked with their token alone: the others get its
 * public events.
 */
async function apply(session: Session, play: api.Play): Promise<void> {
  const people = [...session.logs.keys()].filter((seat) => seat !== SPECTATOR);
  const mover = "action" in play && session.tokens.size ? play.action.seat : null;
  const viewers = mover !== null ? [mover] : people.length ? people : [SPECTATOR];
  const answers = await Promise.all(
    viewers.map((seat, i) =>
      api.apply(
        stateOf(session),
        play,
        seat === SPECTATOR ? null : seat,
        token(session, seat),
        i === 0,
      ),
    ),
  );
  const fresh = new Map<number, Set<string>>();
  answers.forEach((done, i) => {
    const seats =
      mover !== null
        ? [SPECTATOR, ...people]
        : i === 0 && viewers[0] !== SPECTATOR
          ? [SPECTATOR, viewers[0]!]
          : [viewers[i]!];
    record(session, done.events, seats, fresh);
  });
  session.state = answers[0]!.state;
  session.status = answers[0]!.status;
  session.fresh = fresh;
  keep(session);
}

/** Plays until the game ends or another game starts: people first, then bots. */
async function play(session: Session, run: number): Promise<void> {
  while (run === generation) {
    const toAct = session.status.seatsToAct ?? [];
    const person = toAct.find((s) => session.kinds[s] === "person");
    const bot = toAct.find((s) => session.kinds[s] !== "person");
    try {
      if (session.status.finished) {
        await show(session, null);
        showOutcome(session);
        return;
      }
      if (person !== undefined) {
        const action = await personMove(session, person, run);
        if (action === null) return;
        await apply(session, { action });
      } else if (bot !== undefined) {
        // At full speed the bots' moves are not drawn one by one, only their result.
        if (session.delay) {
          await show(session, null);
          await sleep(session.delay);
        }
        if (run !== generation) return;
        await apply(session, { bot });
      } else {
        return;
      }
      $("refused").textContent = "";
    } catch (error) {
      $("refused").textContent =
        `Refused: ${error instanceof Error ? error.message : String(error)}`;
      if (person === undefined) return;
    }
  }
}

/** Waits for the person at `seat` to build a legal move; null when another game started. */
async function personMove(
  session: Session,
  seat: number,
  run: number,
): Promise<api.Move["message"] | null> {
  const people = session.kinds.filter((k) => k === "person").length;
  if (session.shown !== seat && people > 1) {
    await coverFor(session, seat);
    if (run !== generation) return null;
  }
  session.shown = seat;
  keep(session);
  const actions = await api.legalActions(session.state, seat, token(session, seat));
  const view = ((await viewOf(session, seat))[session.key] ?? {}) as Json;
  return new Promise<api.Move["message"] | null>((resolve) => {
    const candidates: Candidate<api.Move>[] = actions.map((move) => ({
      action: move,
      steps: session.ui.steps((move.json[session.key] ?? {}) as Json, view, showsResults()),
    }));
    const picker = new MovePicker(
      candidates,
      (move) => {
        phase("busy");
        resolve(move.message);
      },
      () => void show(session, picker),
    );
    void show(session, picker);
  });
}

/** Hides the table between two people sharing the screen until the next one is ready. */
function coverFor(session: Session, seat: number): Promise<void> {
  $("table").hidden = true;
  $("hand").hidden = true;
  $("cover").hidden = false;
  $("cover-text").textContent = `${session.names[seat]} is to act: pass the screen.`;
  const button = $<HTMLButtonElement>("cover-button");
  button.textContent = `Show ${session.names[seat]}'s hand`;
  button.focus();
  return new Promise((resolve) => {
    button.onclick = () => {
      $("cover").hidden = true;
      $("table").hidden = false;
      $("hand").hidden = false;
      resolve();
    };
  });
}

async function init(): Promise<void> {
  try {
    games = await api.listGames();
  } catch (error) {
    $("setup-error").textContent =
      `Cannot reach the server: ${error instanceof Error ? error.message : String(error)}`;
    return;
  }
  const select = $<HTMLSelectElement>("game");
  const resumed = restored();
  const wanted = resumed?.info.id ?? new URLSearchParams(location.search).get("game") ?? FIRST_GAME;
  select.replaceChildren(...games.map((g) => option(g.title, g.id, g.id === wanted)));
  select.onchange = fillSetup;
  $<HTMLInputElement>("hide-results").onchange = () => {
    // The move being built is asked again, its steps named with or without the results.
    if (current && document.body.dataset.phase === "input") void play(current, ++generation);
  };
  $<HTMLSelectElement>("seats").onchange = fillPlayers;
  $<HTMLFormElement>("setup").addEventListener("submit", (e) => void start(e));
  $("host").hidden = !api.hosts();
  $("host").onclick = () => void host();
  window.addEventListener("hashchange", join);
  fillSetup();
  initReplay();
  document.body.dataset.ready = "true";
  if (pageLink()) join();
  else if (resumed) begin(resumed);
}

void init();
