// Playing a game: people act by pointing at legal moves, the server plays the bot seats
// (ApplyAction with `bot`), and each person sees only their own GetView. With a server that gives
// seat tokens, the page holds only its people's (a spectator's when nobody plays), and makes each
// call with the token of the seat it is made for. One person against bots may take their moves
// back; a reload goes on with the game (src/saved.ts).
import * as api from "./api.ts";
import { bringIntoSight, phase, show, viewOf, watch, type Picker } from "./board.ts";
import { UIS } from "./games/index.ts";
import { t } from "./i18n.ts";
import { MovePicker, type Candidate } from "./moves.ts";
import { yourTurn } from "./notify.ts";
import { showOutcome } from "./outcome.ts";
import * as saved from "./saved.ts";
import {
  names,
  people,
  practice,
  record,
  SPECTATOR,
  type Checkpoint,
  type Session,
  type Settings,
} from "./session.ts";
import { optionsJson } from "./setup.ts";
import { jsonKey, type GameInfo, type Json } from "./types.ts";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const CHECKPOINTS = 20; // the moves a person may take back, latest first
const STAGE_PAUSE = 2; // a moment to watch lasts this many bot moves
const SUPERSEDED = "STATE_SUPERSEDED"; // the revision fence's refusal of an older state

let current: Session | null = null;
let generation = 0;
let spectatorToken = "";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The game on the table, if any. */
export const playing = (): Session | null => current;

/** Deals a game as `settings` say, and plays it. */
export async function start(info: GameInfo, settings: Settings): Promise<void> {
  const bots: Record<number, string> = {};
  settings.kinds.forEach((k, seat) => k !== "person" && (bots[seat] = k));
  const key = jsonKey(info.id);
  const options = { [key]: optionsJson(info, settings.options) };
  const dealt = await api.newGame(settings.seats, BigInt(settings.seed), options, bots);
  const shown = settings.kinds.indexOf("person");
  // Only the people's tokens are kept: a bot's seat has none, and nobody here plays it.
  const tokens = new Map<number, string>();
  if (dealt.spectatorToken || dealt.seatTokens.length) {
    settings.kinds.forEach(
      (k, seat) => k === "person" && tokens.set(seat, dealt.seatTokens[seat] ?? ""),
    );
    if (!people(settings.kinds)) tokens.set(SPECTATOR, dealt.spectatorToken);
  }
  spectatorToken = dealt.spectatorToken;
  const viewers = [
    SPECTATOR,
    ...settings.kinds.flatMap((k, seat) => (k === "person" ? [seat] : [])),
  ];
  begin({
    info,
    ui: UIS[info.id],
    key,
    settings,
    kinds: settings.kinds,
    seed: dealt.seed,
    state: dealt.state,
    status: dealt.status,
    tokens,
    history: new Map(viewers.map((seat) => [seat, []])),
    fresh: new Map(),
    shown: shown >= 0 ? shown : SPECTATOR,
    view: null,
    delay: settings.delay,
    checkpoints: [],
    noTakeBack: false,
  });
  // The form folds away; on a narrow screen the table comes into sight.
  $<HTMLDetailsElement>("setup-box").open = false;
  bringIntoSight();
}

/** Whether a Start may go on: a game in progress with people in it is abandoned only when they
 * say so. */
export function abandonRunningGame(): boolean {
  const running = current && !current.status.finished && people(current.kinds) > 0;
  return !running || window.confirm(t().page.abandon);
}

/** Shows a game's table, a fresh one (no cover, no outcome), and plays it from where it is. */
export function begin(session: Session): void {
  current = session;
  phase("busy");
  $("cover").hidden = true;
  $("table").hidden = false;
  $("hand").hidden = false;
  $("table-area").hidden = false;
  $("outcome").hidden = true;
  $("refused").textContent = "";
  $("table-title").textContent = session.info.title;
  $("results-toggle").hidden = !session.ui.hidesResults;
  $("take-back").hidden = true;
  $("play-again").hidden = true;
  $("save-game").hidden = false;
  document.body.dataset.game = String(++generation);
  keep(session);
  void play(session, generation);
}

/** Leaves the game on this screen (the page hosts or joins a table): it is played no further,
 * and a reload does not bring it back. */
export function leave(): void {
  current = null;
  generation++;
  saved.forget();
}

/** Plays the game on the table again from where it stands (a language or a setting changed). */
export function redraw(): void {
  if (current) void play(current, ++generation);
}

/** Keeps the game in this tab's session storage, for a reload. */
function keep(session: Session): void {
  saved.save({
    settings: session.settings,
    kinds: session.kinds,
    seed: session.seed,
    state: session.state,
    status: session.status,
    history: [...session.history],
    shown: session.shown,
    delay: session.delay,
    tokens: [...session.tokens],
    spectatorToken,
    record: api.recordText(),
    checkpoints: session.checkpoints,
    noTakeBack: session.noTakeBack,
  });
}

/** The game this tab kept before a reload, with its record; null when there is none to go on. */
export async function restored(games: GameInfo[]): Promise<Session | null> {
  const kept = saved.restore();
  const info = games.find((g) => g.id === kept?.settings.game);
  if (!kept || !info) return null;
  try {
    await api.resumeRecord(kept.record, kept.state);
  } catch {
    saved.forget();
    return null;
  }
  spectatorToken = kept.spectatorToken;
  return {
    info,
    ui: UIS[info.id],
    key: jsonKey(info.id),
    settings: kept.settings,
    kinds: kept.kinds,
    seed: kept.seed,
    state: kept.state,
    status: kept.status,
    tokens: new Map(kept.tokens),
    history: new Map(kept.history),
    fresh: new Map(),
    shown: kept.shown,
    view: null,
    delay: kept.delay,
    checkpoints: kept.checkpoints,
    noTakeBack: kept.noTakeBack,
  };
}

/** The record of the game, as a file kept by its one person (a spectator when several people
 * or none play), with their token: what its saver needs to open it again on this server. */
export function savedGame(): { name: string; text: string } | null {
  if (!current) return null;
  const person = people(current.kinds) === 1 ? current.kinds.indexOf("person") : null;
  const token = person === null ? spectatorToken : (current.tokens.get(person) ?? "");
  return api.savedGame(person, token);
}

/**
 * Applies a move. The page asks only for the events its people may see (a spectator's when
 * nobody plays): once per person, as the contract names one viewer; the moves are pure, so every
 * answer holds the same state (and the revision fence takes the same move again as a retry).
 * With seat tokens a person's own move is asked with their token alone: the others get its
 * public events. Returns the events the seat shown saw.
 */
async function apply(session: Session, play: api.Play): Promise<Json[]> {
  const watchers = [...session.history.keys()].filter((seat) => seat !== SPECTATOR);
  const mover = "action" in play && session.tokens.size ? play.action.seat : null;
  const viewers = mover !== null ? [mover] : watchers.length ? watchers : [SPECTATOR];
  const answers = await Promise.all(
    viewers.map((seat, i) =>
      api.apply(
        session.state,
        play,
        seat === SPECTATOR ? null : seat,
        session.tokens.get(seat) ?? "",
        i === 0,
      ),
    ),
  );
  const seen = session.history.get(session.shown)?.length ?? 0;
  const fresh = new Map<number, Set<string>>();
  answers.forEach((done, i) => {
    const seats =
      mover !== null
        ? [SPECTATOR, ...watchers]
        : i === 0 && viewers[0] !== SPECTATOR
          ? [SPECTATOR, viewers[0]!]
          : [viewers[i]!];
    record(session, done.events, seats, fresh);
  });
  session.state = answers[0]!.state;
  session.status = answers[0]!.status;
  session.fresh = fresh;
  keep(session);
  return (session.history.get(session.shown) ?? []).slice(seen);
}

/** Plays until the game ends or another game starts: people first, then bots. */
async function play(session: Session, run: number): Promise<void> {
  while (run === generation) {
    const toAct = session.status.seatsToAct ?? [];
    const person = toAct.find((s) => session.kinds[s] === "person");
    const bot = toAct.find((s) => session.kinds[s] !== "person");
    try {
      if (session.status.finished) {
        $("take-back").hidden = true;
        await show(session, null);
        showOutcome(session);
        return;
      }
      let events: Json[];
      if (person !== undefined) {
        const action = await personMove(session, person, run);
        if (action === null) return;
        events = await apply(session, { action });
      } else if (bot !== undefined) {
        // At full speed the bots' moves are not drawn one by one, only their result.
        if (session.delay) {
          await show(session, null);
          await sleep(session.delay);
        }
        if (run !== generation) return;
        events = await apply(session, { bot });
      } else {
        return;
      }
      if (ahead && api.recordMoves() >= ahead.moves) ahead = null;
      $("refused").textContent = "";
      await watchStages(session, events, run);
    } catch (error) {
      if (await undoTakeBack(session, error)) {
        $("refused").textContent = t().page.takeBackRefused;
        continue;
      }
      $("refused").textContent = t().page.refused(
        error instanceof Error ? error.message : String(error),
      );
      if (person === undefined) return;
    }
  }
}

/** Lets people watch the moments of the last move the game makes worth watching. */
async function watchStages(session: Session, events: Json[], run: number): Promise<void> {
  const before = session.view;
  if (!session.ui.stages || !session.delay || !before || run !== generation) return;
  if (before.seat !== session.shown) return;
  const part = (before.view[session.key] ?? {}) as Json;
  await watch(session, session.ui.stages(part, events), session.delay * STAGE_PAUSE);
}

/** Waits for the person at `seat` to build a legal move; null when another game started. */
async function personMove(
  session: Session,
  seat: number,
  run: number,
): Promise<api.Move["message"] | null> {
  if (session.shown !== seat && people(session.kinds) > 1) {
    await coverFor(session, seat);
    if (run !== generation) return null;
  }
  session.shown = seat;
  checkpoint(session);
  keep(session);
  const token = session.tokens.get(seat) ?? "";
  const actions = await api.legalActions(session.state, seat, token);
  const view = ((await viewOf(session, seat))[session.key] ?? {}) as Json;
  $("take-back").hidden =
    !practice(session) || session.noTakeBack || session.checkpoints.length < 2;
  yourTurn();
  return new Promise<api.Move["message"] | null>((resolve) => {
    const candidates: Candidate<api.Move>[] = actions.map((move) => ({
      action: move,
      steps: session.ui.steps((move.json[session.key] ?? {}) as Json, view, showsResultsNow()),
    }));
    const picker: Picker = new MovePicker(
      candidates,
      (move) => {
        phase("busy");
        $("take-back").hidden = true;
        // Tells tests how many moves people made: a move may be made of several steps.
        document.body.dataset.moves = String(Number(document.body.dataset.moves ?? "0") + 1);
        resolve(move.message);
      },
      () => void show(session, picker),
    );
    void show(session, picker);
  });
}

const showsResultsNow = (): boolean => !$<HTMLInputElement>("hide-results").checked;

/** Remembers where the person is asked to move, for a take-back (practice games only). */
function checkpoint(session: Session): void {
  if (!practice(session)) return;
  const moves = api.recordMoves();
  if (session.checkpoints.at(-1)?.moves === moves) return;
  const seen: [number, number][] = [...session.history].map(([seat, parts]) => [
    seat,
    parts.length,
  ]);
  session.checkpoints.push({ moves, state: session.state, status: session.status, seen });
  session.checkpoints.splice(0, Math.max(0, session.checkpoints.length - CHECKPOINTS));
}

/**
 * Takes the person's last move back, and the bots' moves after it: the table returns to the
 * state they were last asked to move in before this one. A server that fences revisions refuses
 * the next move from that older state: the game then returns to where it was, and no take-back
 * is offered again.
 */
export async function takeBack(): Promise<void> {
  const session = current;
  if (!session || session.checkpoints.length < 2) return;
  phase("busy");
  $("take-back").hidden = true;
  ahead = {
    moves: api.recordMoves(),
    record: api.recordText(),
    state: session.state,
    status: session.status,
    history: [...session.history].map(([seat, parts]) => [seat, [...parts]]),
    checkpoints: [...session.checkpoints],
  };
  session.checkpoints.pop();
  const back = session.checkpoints.at(-1)!;
  await api.rewindRecord(back.moves, back.state);
  session.state = back.state;
  session.status = back.status;
  for (const [seat, count] of back.seen) session.history.get(seat)?.splice(count);
  session.fresh = new Map();
  session.view = null;
  document.body.dataset.takeBacks = String(Number(document.body.dataset.takeBacks ?? "0") + 1);
  keep(session);
  void play(session, ++generation);
}

/** The game as it stood before a take-back, until the game is past that point again. A server
 * that fences revisions takes the moves taken back again as retries (the same state and move),
 * and refuses any other from the older state. */
let ahead: {
  moves: number;
  record: string;
  state: api.GameState;
  status: Session["status"];
  history: [number, Json[]][];
  checkpoints: Checkpoint[];
} | null = null;

/** The server refused a move from a state older than its game's latest (a revision fence): after
 * a take-back, the game returns to where it was, and no take-back is offered again. */
async function undoTakeBack(session: Session, error: unknown): Promise<boolean> {
  if (!ahead || !(error instanceof api.OrdoError) || error.reason !== SUPERSEDED) return false;
  const { record: text, state, status, history, checkpoints } = ahead;
  ahead = null;
  await api.resumeRecord(text, state);
  Object.assign(session, { state, status, history: new Map(history), checkpoints, view: null });
  session.noTakeBack = true;
  keep(session);
  return true;
}

/** Hides the table between two people sharing the screen until the next one is ready. */
function coverFor(session: Session, seat: number): Promise<void> {
  $("table").hidden = true;
  $("hand").hidden = true;
  $("cover").hidden = false;
  const name = names(session)[seat] ?? "";
  $("cover-text").textContent = t().page.cover(name);
  const button = $<HTMLButtonElement>("cover-button");
  button.textContent = t().page.showHand(name);
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
