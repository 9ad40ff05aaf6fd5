// The playground: a game is set up from ListGames (src/setup.ts) and played (src/play.ts) on a
// table that fits the screen (src/board.ts), in the page's language (src/i18n.ts); saved games
// open beside it (src/replay.ts). On a server that hosts tables, a game may be played with
// friends, each on their own device (src/friends.ts): a page opened on a table's link plays its
// seat there. This module starts the page and wires its parts together.
import * as api from "./api.ts";
import { drawLog } from "./board.ts";
import { followed, host, joinTable, leaveTable, pageLink, redrawTable } from "./friends.ts";
import { initialLanguage, LANGUAGES, setLanguage, t, type Messages } from "./i18n.ts";
import { seen, setTitle, soundWanted, wantSound } from "./notify.ts";
import {
  abandonRunningGame,
  begin,
  leave,
  playing,
  redraw,
  restored,
  savedGame,
  start,
  takeBack,
} from "./play.ts";
import { initReplay, redrawReplay } from "./replay.ts";
import { fillSetup, initSetup, option, readSettings, selectedGame } from "./setup.ts";
import type { GameInfo } from "./types.ts";

declare const RULES_SUMMARIES: Record<string, Record<string, string>>;

const FIRST_GAME = "six_nimmt"; // what the page opens on
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

let games: GameInfo[] = [];

/** Writes the page's own texts (the elements marked data-i18n="page.key") in its language. */
function translate(): void {
  const messages = t();
  document.documentElement.lang = messages.code;
  setTitle(messages.page.title);
  const text = (path: string): unknown =>
    path.split(".").reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], messages);
  for (const el of document.querySelectorAll<HTMLElement>("[data-i18n]")) {
    const found = text(el.dataset.i18n ?? "");
    if (typeof found === "string") el.textContent = found;
  }
  for (const el of document.querySelectorAll<HTMLElement>("[data-i18n-label]")) {
    const found = text(el.dataset.i18nLabel ?? "");
    if (typeof found === "string") el.setAttribute("aria-label", found);
  }
  showRules();
}

/** The rules summary of the game chosen (or played), in the page's language when there is one. */
function showRules(): void {
  if (!games.length) return;
  const game = (playing() ?? followed())?.info.id ?? selectedGame().id;
  const summaries = RULES_SUMMARIES[game] ?? {};
  const rules = $("rules");
  rules.innerHTML = summaries[t().code] ?? summaries.en ?? "";
  rules.scrollTop = 0;
  moreBelow(rules);
  $<HTMLAnchorElement>("rules-link").href = `rules/${game}.html`;
}

/** Marks a box that scrolls while more of it is below (it fades out at its foot). */
function moreBelow(box: HTMLElement): void {
  box.dataset.more = String(box.scrollTop + box.clientHeight < box.scrollHeight - 2);
}

/** The language switch: the page, the form and the table speak the one chosen. */
function initLanguages(): void {
  const select = $<HTMLSelectElement>("language");
  select.replaceChildren(
    ...LANGUAGES.map((lang: Messages) => option(lang.name, lang.code, lang.code === t().code)),
  );
  select.onchange = () => {
    setLanguage(select.value, true);
    translate();
    fillSetup();
    const session = playing();
    if (session) {
      drawLog(session);
      redraw();
    }
    void redrawTable();
    redrawReplay();
  };
}

async function onStart(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!abandonRunningGame()) return;
  $("setup-error").textContent = "";
  // A game on one screen: the page follows no table any more.
  leaveTable();
  try {
    await start(selectedGame(), readSettings());
    showRules();
  } catch (error) {
    $("setup-error").textContent = error instanceof Error ? error.message : String(error);
  }
}

/** Play with friends: the server hosts the game set up, and the page shows its links. */
async function onHost(): Promise<void> {
  if (!abandonRunningGame()) return;
  $("setup-error").textContent = "";
  try {
    await host(selectedGame(), readSettings());
    leave();
    showRules();
  } catch (error) {
    $("setup-error").textContent = error instanceof Error ? error.message : String(error);
  }
}

/** Plays the table of the page's link, leaving any game on this screen. */
function onLink(): void {
  const link = pageLink();
  if (!link) return;
  leave();
  void joinTable(link, games, showRules);
}

async function onPlayAgain(): Promise<void> {
  const session = playing();
  if (!session) return;
  $("play-again").hidden = true;
  try {
    await start(session.info, session.settings);
  } catch (error) {
    $("refused").textContent = t().page.refused(
      error instanceof Error ? error.message : String(error),
    );
  }
}

async function init(): Promise<void> {
  initialLanguage();
  translate();
  initLanguages();
  try {
    games = await api.listGames();
  } catch (error) {
    $("setup-error").textContent = t().page.unreachable(
      error instanceof Error ? error.message : String(error),
    );
    return;
  }
  const resumed = await restored(games);
  const wanted = resumed?.info.id ?? new URLSearchParams(location.search).get("game") ?? FIRST_GAME;
  initSetup(games, wanted, showRules);
  showRules();
  $<HTMLInputElement>("hide-results").onchange = redraw;
  $<HTMLFormElement>("setup").addEventListener("submit", (e) => void onStart(e));
  $<HTMLButtonElement>("take-back").onclick = () => void takeBack();
  $<HTMLButtonElement>("play-again").onclick = () => void onPlayAgain();
  $("host").hidden = !api.hosts();
  $("host").onclick = () => void onHost();
  window.addEventListener("hashchange", onLink);
  const sound = $<HTMLInputElement>("sound");
  sound.checked = soundWanted();
  sound.onchange = () => wantSound(sound.checked);
  document.addEventListener("visibilitychange", seen);
  $("rules").onscroll = () => moreBelow($("rules"));
  window.addEventListener("resize", () => moreBelow($("rules")));
  initReplay(savedGame);
  document.body.dataset.ready = "true";
  if (pageLink()) onLink();
  else if (resumed) {
    begin(resumed);
    showRules();
  }
}

void init();
