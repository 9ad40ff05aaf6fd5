// Play with friends: a game the server hosts (a table), each person on their own device. The host
// sets the game up as for one screen, choosing which seats are people and which are bots, and gets
// one link per person and one for spectators, each with its seat token in the URL's fragment
// (which browsers never send to a server: the page reads it and sends the token in its calls'
// header). A page opened on a link plays that seat: it follows the table through WatchGame, draws
// each move as its seat sees it, and asks for a move when its seat is to act, while the others
// choose theirs on their own devices. A reload, or a network lost for a while, watches again from
// the last revision the page drew (kept in the tab's session storage): nothing is missed, nothing
// is drawn twice. The page never holds another seat's token, view or hidden cards.
import * as api from "./api.ts";
import { bringIntoSight, drawLog, phase, show, showsResults, type Picker } from "./board.ts";
import { UIS } from "./games/index.ts";
import { t } from "./i18n.ts";
import { MovePicker, type Candidate } from "./moves.ts";
import { seatText } from "./notation.ts";
import { yourTurn } from "./notify.ts";
import { showOutcome } from "./outcome.ts";
import {
  record,
  SPECTATOR,
  TIMED_OUT,
  type PlayerKind,
  type Session,
  type Settings,
} from "./session.ts";
import { optionsJson } from "./setup.ts";
import { jsonKey, type GameInfo, type GameStatus, type GameView, type Json } from "./types.ts";
import { parseTableLink, tableLink, tokenSeat, type TableLink } from "../../node/src/tables.ts";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const KEPT = "ordo-table:"; // the session storage key of a table's page, before its id
const REJOIN_MS = 2_000; // the pause before watching again once the client gave up

/** What a table's page keeps for a reload: where it was, and what its seat saw. */
interface Kept {
  game: string;
  seats: number;
  revisions: number[];
  history: Json[];
}

/** A table being followed on this page: its link, its seat, and the move being sent. */
interface Following {
  link: TableLink;
  seat: number | null;
  session: Session<string> | null;
  picker: Picker | null;
  sending: boolean;
  /** The moves this page has sent: a move offered before the last one was sent is stale. */
  sent: number;
  /** The revision this seat's last move made: no move is asked for before it. */
  movedTo: number;
  /** The last revision drawn. */
  latest: number;
  kept: Kept | null;
  /** Told once the page knows the table's game. */
  onGame: () => void;
}

let watching: AbortController | null = null;
let following: Following | null = null;
/** The table this page hosted last, whose links it shows. */
let invited: api.Hosted | null = null;

/** The table the page's link opens, if it opens one. */
export function pageLink(): TableLink | null {
  return parseTableLink(location.href);
}

/** The hosted table this page plays or watches, if any. */
export const followed = (): Session<string> | null => following?.session ?? null;

/** Stops following a table and showing its links (another game starts on this page); the page's
 * address loses the table's link, so that a reload keeps the new game. */
export function leaveTable(): void {
  watching?.abort();
  watching = null;
  following = null;
  invited = null;
  $("invites-area").hidden = true;
  if (pageLink()) history.replaceState(null, "", location.pathname + location.search);
}

/** Has the server host the game `settings` set up (the seed is the server's), and shows a link
 * for each person at the table and one for spectators. */
export async function host(info: GameInfo, settings: Settings): Promise<void> {
  const bots: Record<number, string> = {};
  settings.kinds.forEach((k, seat) => k !== "person" && (bots[seat] = k));
  const options = { [jsonKey(info.id)]: optionsJson(info, settings.options) };
  // With a time limit the server plays for a person whose time is up (every page shows the
  // clocks; the server claims the timeout itself).
  const hosted = await api.hostTable(settings.seats, options, bots, settings.moveLimitMs ?? 0);
  leaveTable();
  invited = hosted;
  drawInvites();
  $("table-area").hidden = true;
  $<HTMLDetailsElement>("setup-box").open = false;
  $("invites-area").scrollIntoView({ block: "nearest" });
}

/** The links of the table hosted last, in the page's language: one per person (seats counted
 * from 1), one for spectators. */
function drawInvites(): void {
  if (!invited) return;
  const p = t().page.friends;
  const base = `${location.origin}${location.pathname}`;
  const { tableId, seatTokens, spectatorToken } = invited;
  const links = seatTokens.flatMap((token, seat) =>
    token ? [{ key: String(seat + 1), who: t().page.seatName(seatText(seat)), token }] : [],
  );
  links.push({ key: "spectators", who: p.spectators, token: spectatorToken });
  $("invites").replaceChildren(
    ...links.map(({ key, who, token }) => invite(key, who, tableLink(base, tableId, token))),
  );
  $("invites-area").hidden = false;
}

/** One person's line: who it is for, the link to copy, and a way to open it. */
function invite(key: string, who: string, link: string): HTMLLIElement {
  const p = t().page.friends;
  const item = document.createElement("li");
  const name = document.createElement("span");
  name.textContent = who;
  const input = document.createElement("input");
  input.readOnly = true;
  input.value = link;
  input.dataset.invite = key;
  input.setAttribute("aria-label", p.linkOf(who));
  input.onfocus = () => input.select();
  const copy = document.createElement("button");
  copy.type = "button";
  copy.textContent = p.copy;
  copy.onclick = () => {
    void navigator.clipboard?.writeText(link).then(() => (copy.textContent = p.copied));
  };
  const open = document.createElement("a");
  open.href = link;
  open.target = "_blank";
  open.rel = "noopener";
  open.textContent = p.open;
  item.append(name, input, copy, open);
  return item;
}

/** Draws the table's page again in the page's language (its links, its table, its end). */
export async function redrawTable(): Promise<void> {
  drawInvites();
  const f = following;
  const session = f?.session;
  if (!f || !session) return;
  $("table-title").textContent = t().page.friends.tableTitle(session.info.title);
  drawLog(session);
  if (session.status.finished) {
    await show(session, null);
    showOutcome(session);
    return;
  }
  // A move half built was offered in the other language: it is offered again.
  if (f.picker) f.picker = await pick(f, f.latest);
  await show(session, f.picker);
}

/** Follows the table of `link` on this page, as its seat (or a spectator), to its end; `onGame`
 * is told once the page knows the table's game. */
export async function joinTable(
  link: TableLink,
  games: GameInfo[],
  onGame: () => void,
): Promise<void> {
  watching?.abort();
  const controller = new AbortController();
  watching = controller;
  const f: Following = {
    link,
    seat: tokenSeat(link.token),
    session: null,
    picker: null,
    sending: false,
    sent: 0,
    movedTo: -1,
    latest: -1,
    kept: restore(link),
    onGame,
  };
  following = f;
  invited = null;
  $("invites-area").hidden = true;
  while (!controller.signal.aborted) {
    try {
      await follow(f, games, controller.signal);
      return;
    } catch (error) {
      if (controller.signal.aborted) return;
      const why = error instanceof Error ? error.message : String(error);
      $("refused").textContent = t().page.friends.rejoining(why);
      await new Promise((resolve) => setTimeout(resolve, REJOIN_MS));
    }
  }
}

/** Watches the table from where the page was, drawing each revision. */
async function follow(f: Following, games: GameInfo[], signal: AbortSignal): Promise<void> {
  const { link } = f;
  const shown = f.seat ?? SPECTATOR;
  const after = f.kept?.revisions.at(-1) ?? null;
  if (f.kept && !f.session) {
    f.session = tableSession(f, games, f.kept.game, f.kept.seats);
    draw(f.session, await api.getView(link.tableId, f.seat, link.token));
    // A move sent as the page reloaded may never have reached the server: the seat is asked
    // again, if the table still waits for it.
    f.latest = after ?? -1;
    await ask(f, f.session.status, f.latest);
    await show(f.session, f.picker);
  }
  for await (const step of api.watchTable(link.tableId, link.token, after, signal)) {
    $("refused").textContent = "";
    f.session ??= tableSession(f, games, gameOf(step.view, games), step.seats);
    const session = f.session;
    draw(session, step.view);
    session.status = step.status;
    if (step.seat !== undefined) {
      if (step.timedOut) {
        session.history.get(shown)?.push({ [TIMED_OUT]: step.seat });
        // The move this page offered its person was made for them: it offers the next afresh.
        if (step.seat === f.seat) f.picker = null;
      }
      const fresh = new Map<number, Set<string>>();
      record(session, step.events, [shown], fresh);
      session.fresh = fresh;
    }
    f.latest = step.revision;
    if (step.status.finished) {
      f.picker = null;
      await show(session, null);
      showOutcome(session);
    } else {
      await ask(f, step.status, step.revision);
      await show(session, f.picker);
    }
    // Kept once drawn, so that the revisions the page names are those it shows.
    keep(f, step.revision);
  }
}

/** Offers the seat its move, when `status` (at `revision`) has it act and it is not offered
 * one already, nor sending one. */
async function ask(f: Following, status: GameStatus, revision: number): Promise<void> {
  const toAct = f.seat !== null && (status.seatsToAct ?? []).includes(f.seat);
  if (toAct && !f.picker && !f.sending && revision >= f.movedTo) {
    f.picker = await pick(f, revision);
    yourTurn();
  }
}

/** The session of a table's page: its seat's view, events and token alone. */
function tableSession(
  f: Following,
  games: GameInfo[],
  game: string,
  seats: number,
): Session<string> {
  const info = games.find((g) => g.id === game) ?? games[0]!;
  const shown = f.seat ?? SPECTATOR;
  f.kept ??= { game: info.id, seats, revisions: [], history: [] };
  // Every seat is somebody's: this device knows its own only (a person, or a spectator's).
  const kinds: PlayerKind[] = Array.from({ length: seats }, () => "person");
  const settings = { game: info.id, seats, seed: "0", options: {}, kinds, delay: 0 };
  showTable(info, f.link.tableId);
  const session: Session<string> = {
    info,
    ui: UIS[info.id],
    key: jsonKey(info.id),
    settings,
    kinds,
    seed: "0",
    state: f.link.tableId,
    status: {},
    tokens: new Map([[shown, f.link.token]]),
    history: new Map([[shown, f.kept.history]]),
    fresh: new Map(),
    shown,
    view: null,
    delay: 0,
    checkpoints: [],
    noTakeBack: true,
  };
  f.session = session;
  f.onGame();
  return session;
}

/** Shows the table area for a hosted table: no cover, no take-back, no saving, no Play again. */
function showTable(info: GameInfo, tableId: string): void {
  for (const id of ["cover", "outcome", "take-back", "play-again", "save-game", "invites-area"])
    $(id).hidden = true;
  for (const id of ["table-area", "table", "hand"]) $(id).hidden = false;
  $("table-title").textContent = t().page.friends.tableTitle(info.title);
  $("results-toggle").hidden = !UIS[info.id].hidesResults;
  $<HTMLDetailsElement>("setup-box").open = false;
  document.body.dataset.game = `table-${tableId}`;
  document.body.dataset.table = tableId;
  bringIntoSight();
}

/** The game of a view: the one whose field it sets. */
function gameOf(view: GameView, games: GameInfo[]): string {
  return games.find((g) => jsonKey(g.id) in view)?.id ?? "";
}

/** Takes `view` as the seat's view now. */
function draw(session: Session<string>, view: GameView): void {
  session.view = { state: session.state, seat: session.shown, view };
  if (view.status) session.status = view.status;
}

/** Keeps where the page is, for a reload; tells tests the revisions drawn. */
function keep(f: Following, revision: number): void {
  if (!f.kept) return;
  f.kept.revisions.push(revision);
  try {
    sessionStorage.setItem(KEPT + f.link.tableId, JSON.stringify(f.kept));
  } catch {
    // Storage full or disabled: the table goes on, a reload watches it from its start.
  }
  document.body.dataset.revisions = f.kept.revisions.join(",");
}

/** What the page kept of this table before a reload, if anything. */
function restore(link: TableLink): Kept | null {
  try {
    const text = sessionStorage.getItem(KEPT + link.tableId);
    if (!text) return null;
    const kept = JSON.parse(text) as Kept;
    document.body.dataset.revisions = kept.revisions.join(",");
    return kept.revisions.length ? kept : null;
  } catch {
    return null;
  }
}

/** The move the seat builds from its legal actions now (chosen at `revision`), sent once
 * chosen. */
async function pick(f: Following, revision: number): Promise<Picker | null> {
  const session = f.session!;
  const { tableId, token } = f.link;
  const sent = f.sent;
  const actions = await api.legalActions(tableId, f.seat!, token);
  // A move sent meanwhile (from a move offered by another call): the seat's move is made.
  if (f.sent !== sent || f.sending) return f.picker;
  if (!actions.length) return null;
  const view = ((session.view?.view ?? {})[session.key] ?? {}) as Json;
  const candidates: Candidate<api.Move>[] = actions.map((move) => ({
    action: move,
    steps: session.ui.steps((move.json[session.key] ?? {}) as Json, view, showsResults()),
  }));
  const picker: Picker = new MovePicker(
    candidates,
    (move) => {
      // Tells tests how many moves the seat made: a move may be made of several steps.
      document.body.dataset.moves = String(Number(document.body.dataset.moves ?? "0") + 1);
      void send(f, move.message, revision);
    },
    () => void show(session, picker),
  );
  return picker;
}

/** Sends the seat's move; its own revision comes back through the table's stream. */
async function send(f: Following, action: api.Move["message"], revision: number): Promise<void> {
  phase("busy");
  f.sending = true;
  f.sent += 1;
  f.picker = null;
  try {
    f.movedTo = await api.applyToTable(f.link.tableId, action, revision, f.link.token);
    $("refused").textContent = "";
  } catch (error) {
    $("refused").textContent = t().page.refused(
      error instanceof Error ? error.message : String(error),
    );
  } finally {
    f.sending = false;
  }
  const session = f.session;
  if (!session || session.status.finished || following !== f) return;
  // The stream may have drawn this move, and asked this seat again (a row to choose), meanwhile;
  // a refused move is offered again.
  const toAct = (session.status.seatsToAct ?? []).includes(f.seat!);
  if (toAct && !f.picker && f.latest >= f.movedTo) f.picker = await pick(f, f.latest);
  await show(session, f.picker);
}
