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
import { UIS } from "./games/index.ts";
import { MovePicker, type Candidate } from "./moves.ts";
import { capital, seatText } from "./notation.ts";
import {
  $,
  SPECTATOR,
  type Picker,
  type Session,
  phase,
  record,
  show,
  showOutcome,
  showsResults,
} from "./session.ts";
import { jsonKey, type GameInfo, type GameView, type Json } from "./types.ts";
import { parseTableLink, tableLink, tokenSeat, type TableLink } from "../../node/src/tables.ts";

const KEPT = "ordo-table:"; // the session storage key of a table's page, before its id
const REJOIN_MS = 2_000; // the pause before watching again once the client gave up

/** What a table's page keeps for a reload: where it was, and what its seat saw. */
interface Kept {
  game: string;
  seats: number;
  revisions: number[];
  logs: string[];
  history: Json[];
}

/** A table being followed on this page: its link, its seat, and the move being sent. */
interface Following {
  link: TableLink;
  seat: number | null;
  session: Session | null;
  picker: Picker | null;
  sending: boolean;
  /** The revision this seat's last move made: no move is asked for before it. */
  movedTo: number;
  /** The last revision drawn. */
  latest: number;
  kept: Kept | null;
}

let watching: AbortController | null = null;

/** The table the page's link opens, if it opens one. */
export function pageLink(): TableLink | null {
  return parseTableLink(location.href);
}

/** Stops following a table (another game starts on this page). */
export function leaveTable(): void {
  watching?.abort();
  watching = null;
}

/** Shows the links of a new hosted table: one per person, one for spectators. */
export function showInvites(hosted: api.Hosted): void {
  const base = `${location.origin}${location.pathname}`;
  const list = $("invites");
  list.replaceChildren();
  const links: [string, string][] = hosted.seatTokens.flatMap((token, seat) =>
    token ? [[`Seat ${seat + 1}`, tableLink(base, hosted.tableId, token)] as [string, string]] : [],
  );
  links.push(["Spectators", tableLink(base, hosted.tableId, hosted.spectatorToken)]);
  for (const [who, link] of links) {
    const item = document.createElement("li");
    const input = document.createElement("input");
    input.readOnly = true;
    input.value = link;
    input.dataset.invite = who;
    input.setAttribute("aria-label", `${who}'s link`);
    const copy = document.createElement("button");
    copy.type = "button";
    copy.textContent = "Copy";
    copy.onclick = () => void navigator.clipboard?.writeText(link);
    const open = document.createElement("a");
    open.href = link;
    open.target = "_blank";
    open.rel = "noopener";
    open.textContent = "Open";
    item.append(`${who}: `, input, copy, open);
    list.append(item);
  }
  $("invites-area").hidden = false;
}

/** Follows the table of `link` on this page, as its seat (or a spectator), to its end. */
export async function joinTable(link: TableLink, games: GameInfo[]): Promise<void> {
  leaveTable();
  const controller = new AbortController();
  watching = controller;
  const seat = tokenSeat(link.token);
  const following: Following = {
    link,
    seat,
    session: null,
    picker: null,
    sending: false,
    movedTo: -1,
    latest: -1,
    kept: restore(link),
  };
  $("invites-area").hidden = true;
  $("save-game").hidden = true;
  while (!controller.signal.aborted) {
    try {
      await follow(following, games, controller.signal);
      return;
    } catch (error) {
      if (controller.signal.aborted) return;
      $("refused").textContent =
        `Connection lost (${error instanceof Error ? error.message : String(error)}): joining again…`;
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
    const view = await api.getView(link.tableId, f.seat, link.token);
    draw(f.session, view);
    await show(f.session, null);
  }
  for await (const step of api.watchTable(link.tableId, link.token, after, signal)) {
    $("refused").textContent = "";
    f.session ??= tableSession(f, games, gameOf(step.view, games), step.seats);
    const session = f.session;
    draw(session, step.view);
    session.status = step.status;
    if (step.seat !== undefined) {
      const fresh = new Map<number, Set<string>>();
      record(session, step.events, [shown], fresh);
      session.fresh = fresh;
    }
    keep(f, step.revision);
    f.latest = step.revision;
    if (step.status.finished) {
      f.picker = null;
      await show(session, null);
      showOutcome(session);
      continue;
    }
    const toAct = f.seat !== null && (step.status.seatsToAct ?? []).includes(f.seat);
    if (toAct && !f.picker && !f.sending && step.revision >= f.movedTo)
      f.picker = await pick(f, step.revision);
    await show(session, f.picker);
  }
}

/** The session of a table's page: its seat's view, log and token alone. */
function tableSession(f: Following, games: GameInfo[], game: string, seats: number): Session {
  const info = games.find((g) => g.id === game) ?? games[0]!;
  const shown = f.seat ?? SPECTATOR;
  const kept = f.kept;
  const names = Array.from({ length: seats }, (_, s) =>
    s === f.seat ? `${capital(seatText(s))} (you)` : capital(seatText(s)),
  );
  const first = `${info.title}: a table for ${seats} seats; you ${f.seat === null ? "watch" : `play seat ${f.seat + 1}`}.`;
  f.kept = kept ?? { game: info.id, seats, revisions: [], logs: [first], history: [] };
  $("table-area").hidden = false;
  $("replay-area").hidden = true;
  $("outcome").hidden = true;
  $("cover").hidden = true;
  $("table-title").textContent = `${info.title}: a table with friends`;
  $("results-toggle").hidden = !UIS[info.id].hidesResults;
  document.body.dataset.table = f.link.tableId;
  return {
    info,
    ui: UIS[info.id],
    key: jsonKey(info.id),
    kinds: names.map(() => "person"),
    names,
    state: f.link.tableId,
    status: {},
    tokens: new Map([[shown, f.link.token]]),
    logs: new Map([[shown, f.kept.logs]]),
    history: new Map([[shown, f.kept.history]]),
    fresh: new Map(),
    shown,
    view: null,
    delay: 0,
  };
}

/** The game of a view: the one whose field it sets. */
function gameOf(view: GameView, games: GameInfo[]): string {
  return games.find((g) => jsonKey(g.id) in view)?.id ?? "";
}

/** Takes `view` as the seat's view now. */
function draw(session: Session, view: GameView): void {
  session.view = { state: session.state, seat: session.shown, view };
  if (view.status) session.status = view.status;
}

/** Keeps where the page is, for a reload; tells tests the revisions drawn. */
function keep(f: Following, revision: number): void {
  if (!f.kept) return;
  f.kept.revisions.push(revision);
  sessionStorage.setItem(KEPT + f.link.tableId, JSON.stringify(f.kept));
  document.body.dataset.revisions = f.kept.revisions.join(",");
}

/** What the page kept of this table before a reload (for this very token), if anything. */
function restore(link: TableLink): Kept | null {
  const text = sessionStorage.getItem(KEPT + link.tableId);
  if (!text) return null;
  try {
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
  const seat = f.seat!;
  const { tableId, token } = f.link;
  const actions = await api.legalActions(tableId, seat, token);
  if (!actions.length) return null;
  const view = ((session.view?.view ?? {})[session.key] ?? {}) as Json;
  const candidates: Candidate<api.Move>[] = actions.map((move) => ({
    action: move,
    steps: session.ui.steps((move.json[session.key] ?? {}) as Json, view, showsResults()),
  }));
  const picker: Picker = new MovePicker(
    candidates,
    (move) => void send(f, move.message, revision),
    () => void show(session, picker),
  );
  return picker;
}

/** Sends the seat's move; its own revision comes back through the table's stream. */
async function send(f: Following, action: api.Move["message"], revision: number): Promise<void> {
  phase("busy");
  f.sending = true;
  f.picker = null;
  try {
    f.movedTo = await api.applyToTable(f.link.tableId, action, revision, f.link.token);
    $("refused").textContent = "";
  } catch (error) {
    $("refused").textContent = `Refused: ${error instanceof Error ? error.message : String(error)}`;
    f.picker = await pick(f, revision);
  } finally {
    f.sending = false;
  }
  const session = f.session;
  if (!session || session.status.finished) return;
  // The stream may have drawn this move, and asked this seat again (a row to choose), meanwhile.
  const toAct = (session.status.seatsToAct ?? []).includes(f.seat!);
  if (toAct && !f.picker && f.latest >= f.movedTo) f.picker = await pick(f, f.latest);
  await show(session, f.picker);
}
