// What players of online board games expect of the playground, checked in Debian's Chromium at
// one screen size: every scenario named, one after the other, each in fresh pages. Prints one
// JSON line, {size, scenarios: {name: {failures, ...}}}; exits non-zero when a check fails.
//
//   node test/players.mjs --url URL --fair-url URL --size desktop|phone --saves DIR
//     [--shots DIR] [--only a,b] [--chromium PATH]
//
// --url is a server that seals its states; --fair-url one that requires seat tokens and fences
// revisions. Saved games go to --saves, for the Python test to replay.
import { chromium } from "playwright-core";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";

import {
  clipping,
  dataset,
  logLines,
  move,
  moveNoting,
  ONE_HAND,
  openSaved,
  openSetup,
  outOfSight,
  playToTheEnd,
  saveGame as saveIn,
  settle,
  setUp,
  start,
} from "./page.mjs";

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    "fair-url": { type: "string" },
    size: { type: "string", default: "desktop" },
    saves: { type: "string" },
    shots: { type: "string" },
    only: { type: "string", default: "" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});

const SIZES = { desktop: { width: 1366, height: 900 }, phone: { width: 390, height: 844 } };
const viewport = SIZES[args.size];
const SERVICE = "/ordo.v1.GameEngineService/";
const browser = await chromium.launch({
  executablePath: args.chromium,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--autoplay-policy=no-user-gesture-required",
  ],
});

let failures = [];
let report = {};
const check = (ok, message) => ok || failures.push(message);

/** A page of the playground in a fresh context; its NewGame requests are kept in `page.dealt`. */
async function open(options = {}) {
  const { url = args.url, query = "", ...context } = options;
  const made = await browser.newContext({ viewport, acceptDownloads: true, ...context });
  const page = await made.newPage();
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => void dialog.accept());
  page.dealt = [];
  page.on("request", (request) => {
    if (request.url().endsWith(`${SERVICE}NewGame`))
      page.dealt.push(JSON.parse(request.postData()));
  });
  await page.goto(`${url}${query}`);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

/** Saves the game being played, named for the scenario and the size; the file's path. */
const saveGame = (page, name) => saveIn(page, args.saves, `${name}-${args.size}`);

async function shot(page, name) {
  if (!args.shots) return;
  await page.screenshot({ path: join(args.shots, `${name}-${args.size}.png`) });
}

const turnText = (page) => page.innerText("#turn");

const scenarios = {
  /** The table, the hand, the move's buttons and (narrow) the last events in sight together
   * during a turn, in every game, without scrolling. */
  async layout() {
    report.games = {};
    for (const game of ["six_nimmt", "sequence_numbers", "up_or_down", "fora_de_ordem"]) {
      const page = await open({ query: `?game=${game}` });
      await setUp(
        page,
        game,
        ["person", "heuristic"],
        game === "fora_de_ordem" ? { language: "EN" } : {},
      );
      await start(page);
      const parts = ["table", "hand", "choices", ...(args.size === "phone" ? ["recent"] : [])];
      for (let turn = 0; turn < 3; turn++) {
        check((await settle(page)) === "input", `${game}: the person is not to act`);
        const hidden = await outOfSight(page, parts);
        check(hidden.length === 0, `${game}, turn ${turn + 1}: out of sight: ${hidden.join(", ")}`);
        if (turn === 1) await shot(page, `layout-${game}`);
        await move(page);
      }
      report.games[game] = await page.evaluate(() => window.scrollY);
      await page.context().close();
    }
  },

  /** Prompts in players' words, a step with one option made for the person, the move being
   * built drawn on the table. */
  async prompts() {
    const page = await open({ query: "?game=up_or_down" });
    await setUp(page, "up_or_down", ["person", "heuristic"]);
    await start(page);
    await settle(page);
    check(
      (await turnText(page)).includes("Choose the card you play into the circle."),
      "no prompt for the card",
    );
    const internal = /Choose (card|take|place|draw|side|row)\./;
    await page.locator("#hand .target").first().click();
    await page.waitForSelector("#table svg .ghost");
    const asked = await turnText(page);
    check(!internal.test(asked), `an internal word: ${asked}`);
    check(/So far: play \d+ \w+\./.test(asked), `the move built is not told: ${asked}`);
    check(
      (await page.locator("#table svg .ghost").count()) === 1,
      "the card played is not drawn in the circle",
    );
    await shot(page, "prompts-building");
    report.filledIn = 0;
    for (let moves = 0; moves < 200; moves++) {
      const phase = await settle(page);
      if (phase === "over") break;
      const kinds = await moveNoting(page);
      if (kinds.length && kinds.length < 4) report.filledIn++;
      check(
        kinds.every((k) => ["card", "take", "place", "draw"].includes(k)),
        `steps ${kinds}`,
      );
    }
    check(report.filledIn > 0, "no step with one option was made for the person");
    const why = await page.innerText("#outcome .why");
    check(/most points win/.test(why), `the end does not say why in the game's terms: ${why}`);
    await page.context().close();
  },

  /** The end of a game: why, in the game's terms, each seat's score and where it came from, the
   * last hand over (not a turn past it), and Play again with the same settings. */
  async outcome() {
    const page = await open();
    await setUp(page, "six_nimmt", ["person", "heuristic", "random"], ONE_HAND);
    await start(page);
    await playToTheEnd(page);
    const why = await page.innerText("#outcome .why");
    report.why = why;
    check(why === "The one hand is played; the fewest bullheads win.", `why: ${why}`);
    const details = await page.locator("#outcome tbody td:nth-child(3)").allInnerTexts();
    check(details.length === 3 && details.every(Boolean), `details: ${details}`);
    const drawn = (await page.locator("#table svg text").allTextContents()).join(" | ");
    check(drawn.includes("Hand 1 is over"), "the last hand is not told over");
    check(!/turn 11/.test(drawn), "a turn past the last is shown");
    await shot(page, "outcome");
    const game = await dataset(page, "game");
    await page.click("#play-again");
    await page.waitForFunction((old) => document.body.dataset.game !== old, game);
    check(page.dealt.length === 2, `${page.dealt.length} games dealt`);
    check(
      JSON.stringify(page.dealt[0]?.options) === JSON.stringify(page.dealt[1]?.options) &&
        JSON.stringify(page.dealt[0]?.bots) === JSON.stringify(page.dealt[1]?.bots),
      "Play again changed the settings",
    );
    await page.context().close();
    // Teams: the winners are told as the team with its seats, in the box as in the log.
    const teams = await open({ query: "?game=sequence_numbers" });
    await setUp(teams, "sequence_numbers", ["heuristic", "random", "heuristic", "random"]);
    await start(teams);
    await settle(teams);
    const title = await teams.innerText("#outcome h3");
    const won = (await logLines(teams)).find((line) => / wins\.$/.test(line)) ?? "";
    report.teams = [title, won];
    check(
      /^Team [AB] \(Seat \d \(bot\) and Seat \d \(bot\)\) wins!$/.test(title),
      `title: ${title}`,
    );
    check(won.startsWith(title.replace(/ wins!$/, "")), `the log says ${won}, the box ${title}`);
    await teams.context().close();
  },

  /** A whole game in Portuguese (the browser's language): the page, the questions, the log and
   * the end; then the switch to English. */
  async portuguese() {
    const page = await open({ locale: "pt-BR" });
    check((await page.getAttribute("html", "lang")) === "pt-BR", "the page is not in Portuguese");
    check((await page.innerText("#start")) === "Começar", "the Start button is not in Portuguese");
    await setUp(page, "fora_de_ordem", ["person", "heuristic", "random"], { rounds: 1 });
    check(
      (await page.inputValue('[data-option="language"]')) === "PT_BR",
      "the questions are not in Portuguese",
    );
    await start(page);
    await settle(page);
    check((await turnText(page)).includes("sua vez"), "the turn is not in Portuguese");
    await shot(page, "portuguese");
    await playToTheEnd(page);
    const lines = await logLines(page);
    check(
      lines.some((line) => / joga .* em /.test(line)),
      "the log is not in Portuguese",
    );
    check(
      (await page.innerText("#outcome h3")).match(/vencem?!$/) !== null,
      "the end is not in Portuguese",
    );
    check(
      (await page.innerText("#outcome .why")).includes("rodada"),
      "the reason is not in Portuguese",
    );
    report.dealt = page.dealt[0]?.options;
    await shot(page, "portuguese-end");
    await page.selectOption("#language", "en");
    check((await page.textContent("#start")) === "Start", "the switch left the page in Portuguese");
    check(
      (await logLines(page)).some((line) => / plays .* on /.test(line)),
      "the log stayed in Portuguese",
    );
    await openSetup(page);
    check(
      (await page.inputValue('[data-option="language"]')) === "EN",
      "the questions did not follow",
    );
    await page.context().close();
  },

  /** Every number a person reads counts from 1: the starting seat is chosen among the seats. */
  async numbers() {
    const page = await open({ query: "?game=fora_de_ordem" });
    await setUp(page, "fora_de_ordem", ["heuristic", "heuristic", "heuristic"], {
      language: "EN",
      rounds: 1,
    });
    const labels = await page.locator('[data-option="starting_seat"] option').allInnerTexts();
    check(
      JSON.stringify(labels) === JSON.stringify(["Seat 1", "Seat 2", "Seat 3"]),
      `seats: ${labels}`,
    );
    await page.selectOption('[data-option="starting_seat"]', { label: "Seat 2" });
    await start(page);
    await settle(page);
    const dealt = page.dealt[0]?.options?.foraDeOrdem ?? {};
    check(dealt.startingSeat === 1, `Seat 2 was sent as ${dealt.startingSeat}`);
    const [, first] = await logLines(page);
    check(first?.startsWith("Seat 2 (bot) plays") ?? false, `seat 2 did not start: ${first}`);
    await page.context().close();
  },

  /** Options that do not apply are hidden. */
  async options() {
    const page = await open({ query: "?game=six_nimmt" });
    const shown = (name) => page.locator(`[data-option="${name}"]`).isVisible();
    check(
      (await shown("threshold")) && !(await shown("hands")),
      "threshold and hands as the end says",
    );
    await page.selectOption('[data-option="end"]', "FIXED_HANDS");
    check(
      !(await shown("threshold")) && (await shown("hands")),
      "the end by hands hides the threshold",
    );
    await page.selectOption("#game", "sequence_numbers");
    await page.selectOption("#seats", "2");
    check(!(await shown("teams")), "teams shown for 2 seats");
    await page.selectOption("#seats", "6");
    check(await shown("teams"), "teams hidden for 6 seats");
    await page.context().close();
  },

  /** The nits: Up or Down?'s key whole, Sequence Numbers' chips beside their numbers, a long
   * file name inside the form, the rules box telling there is more below. */
  async nits() {
    const page = await open({ query: "?game=up_or_down" });
    await setUp(page, "up_or_down", ["person", "heuristic"]);
    await start(page);
    await settle(page);
    const { outside, overflow } = await clipping(page);
    check(outside.length === 0, `drawn outside: ${outside.slice(0, 3)}`);
    check(overflow <= 0, `the page scrolls ${overflow} px sideways`);
    const rules = page.locator("#rules");
    check(
      (await rules.getAttribute("data-more")) === "true",
      "the rules box does not tell there is more",
    );
    await rules.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await page.waitForFunction(() => document.getElementById("rules").dataset.more === "false");
    await openSetup(page);
    const long = `${"a very long name of a saved game ".repeat(8).replace(/ /g, "-")}.ordo.json`;
    await page.setInputFiles("#open-game", {
      name: long,
      mimeType: "application/json",
      buffer: Buffer.from("{"),
    });
    await page.waitForFunction(() => document.body.dataset.replay === "failed");
    const fits = await page.evaluate(() => {
      const form = document.getElementById("setup").getBoundingClientRect();
      const error = document.getElementById("replay-error");
      return (
        [...document.querySelectorAll("#setup *")].every(
          (el) => el.getBoundingClientRect().right <= form.right + 1,
        ) && error.textContent.length > 0
      );
    });
    check(fits, "the form overflows with a long file name");
    await page.context().close();
    const board = await open({ query: "?game=sequence_numbers" });
    await setUp(board, "sequence_numbers", ["person", "heuristic"]);
    await start(board);
    for (let i = 0; i < 3; i++) {
      await settle(board);
      await move(board);
    }
    await settle(board);
    const overlaps = await board.evaluate(() => {
      const found = [];
      for (const cell of document.querySelectorAll("#table [data-step=cell]")) {
        const texts = [...cell.querySelectorAll("text")].map((t) => t.getBoundingClientRect());
        for (let i = 1; i < texts.length; i++)
          if (texts[i].top < texts[0].bottom - 1) found.push(cell.getAttribute("aria-label"));
      }
      return found;
    });
    check(overlaps.length === 0, `chips over numbers: ${overlaps.slice(0, 3)}`);
    await shot(board, "chips");
    await board.context().close();
  },

  /** A game survives a reload, its record with it: "Save game" saves every move. */
  async reload() {
    const page = await open();
    await setUp(page, "six_nimmt", ["person", "heuristic", "heuristic"], ONE_HAND);
    await start(page);
    for (let i = 0; i < 3; i++) {
      await settle(page);
      await move(page);
    }
    report.before = await page.evaluate(() => {
      const kept = JSON.parse(sessionStorage.getItem("ordo-playground-game") ?? "{}");
      return JSON.parse(kept.record ?? "{}").moves?.length ?? 0;
    });
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    await playToTheEnd(page);
    report.saved = await saveGame(page, "reloaded");
    await page.context().close();
  },

  /** On a server that requires seat tokens, a saved game opens again in a new page: mid-game
   * as its saver saw it, and once over with every card. */
  async fairOpen() {
    const page = await open({ url: args["fair-url"], query: "?game=fora_de_ordem" });
    await setUp(page, "fora_de_ordem", ["person", "heuristic"], { language: "EN", rounds: 1 });
    await page.fill("#seed", "");
    await start(page);
    await settle(page);
    await move(page);
    await settle(page);
    report.middle = await saveGame(page, "fair-middle");
    await playToTheEnd(page);
    report.end = await saveGame(page, "fair-end");
    await page.context().close();
    const again = await open({ url: args["fair-url"] });
    check(
      (await openSaved(again, report.middle)) === "ready",
      "a game saved in the middle does not open",
    );
    check(
      (await again.inputValue("#replay-viewer")) === "0",
      "it does not open as its saver, seat 1",
    );
    const choices = await again
      .locator("#replay-viewer option")
      .evaluateAll((os) => os.map((o) => o.value));
    check(!choices.includes("reveal"), "every card is offered before the end");
    const opened = await openSaved(again, report.end);
    check(
      opened === "ready",
      `a finished game does not open: ${await again.innerText("#replay-error")}`,
    );
    await again.selectOption("#replay-viewer", "reveal");
    await again.waitForFunction(() => document.body.dataset.replay === "ready");
    check((await again.locator("#replay-hands figure").count()) === 2, "not every hand is shown");
    await shot(again, "fair-open");
    await again.context().close();
  },

  /** A saved game opened in the middle of another: the game and its log out of sight, and back
   * as they were when the saved game is closed. */
  async replayReturn() {
    const page = await open();
    await setUp(page, "six_nimmt", ["person", "heuristic"], ONE_HAND);
    await start(page);
    await settle(page);
    await move(page);
    await settle(page);
    const saved = await saveGame(page, "return");
    const turn = await turnText(page);
    check((await openSaved(page, saved)) === "ready", "the saved game does not open");
    check(
      await page.locator("#table-area").isHidden(),
      "the game stays in sight beside the replay",
    );
    check(await page.locator("#log").isHidden(), "the game's log stays beside the replay");
    await shot(page, "replay-open");
    await page.click("#replay-leave");
    check(await page.locator("#table-area").isVisible(), "the game does not come back");
    check((await turnText(page)) === turn, "the game is not as it was");
    await move(page);
    check(["input", "over"].includes(await settle(page)), "the game does not go on");
    await page.context().close();
  },

  /** One person against bots takes a move back; a server that fences revisions refuses it and
   * the game goes on from where it was. */
  async takeBack() {
    const page = await open();
    await setUp(page, "six_nimmt", ["person", "heuristic"], ONE_HAND);
    await start(page);
    await settle(page);
    check(await page.locator("#take-back").isHidden(), "a take-back before any move");
    await move(page);
    await settle(page);
    const after = { log: await logLines(page), turn: await turnText(page) };
    await move(page);
    await settle(page);
    check(await page.locator("#take-back").isVisible(), "no take-back in a practice game");
    await page.click("#take-back");
    await page.waitForFunction(() => document.body.dataset.takeBacks === "1");
    await settle(page);
    const log = await logLines(page);
    check(
      log.length === after.log.length,
      `the log is not as it was: ${after.log.slice(-3)} | ${log.slice(-3)}`,
    );
    check((await turnText(page)) === after.turn, "the turn is not as it was");
    await playToTheEnd(page);
    report.saved = await saveGame(page, "taken-back");
    await page.context().close();
    const fenced = await open({ url: args["fair-url"] });
    await setUp(fenced, "six_nimmt", ["person", "heuristic"], ONE_HAND);
    await fenced.fill("#seed", "");
    await start(fenced);
    for (let i = 0; i < 2; i++) {
      await settle(fenced);
      await move(fenced);
    }
    await settle(fenced);
    await fenced.click("#take-back");
    await settle(fenced);
    // Another card than the one taken back: the same one would be the same request again, which
    // the fence answers as a retry.
    await fenced.locator("#choices button:not(.back)").last().click();
    check(["input", "over"].includes(await settle(fenced)), "the fenced game does not go on");
    check(
      (await fenced.innerText("#refused")).includes("cannot be taken back"),
      "no word of the fence",
    );
    check(await fenced.locator("#take-back").isHidden(), "a take-back is offered again");
    await fenced.context().close();
  },

  /** 6 nimmt!'s selections turned up together, then placed one by one, lowest first. */
  async reveal() {
    const page = await open();
    await setUp(page, "six_nimmt", ["person", "heuristic", "heuristic"], ONE_HAND);
    await page.selectOption("#speed", "250");
    await start(page);
    await settle(page);
    const before = Number((await dataset(page, "stage")) || 0);
    await page.locator("#choices button").first().click();
    await page.waitForSelector("#table .reveal", { timeout: 30_000 });
    const cards = await page.locator("#table .reveal [role=img]").count();
    report.revealed = cards;
    check(cards === 3, `${cards} cards turned up together`);
    await shot(page, "reveal");
    await settle(page);
    report.stages = Number(await dataset(page, "stage")) - before;
    check(report.stages >= 2, `only ${report.stages} moments to watch`);
    await page.context().close();
  },

  /** A turn in a background tab: the title says so, and a sound plays when asked for. */
  async background() {
    const page = await open();
    await page.check("#sound");
    await setUp(page, "six_nimmt", ["person", "heuristic"], ONE_HAND);
    await start(page);
    await settle(page);
    const own = await page.title();
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", {
        get: () => "hidden",
        configurable: true,
      });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    await move(page);
    await page.waitForFunction(() => Number(document.body.dataset.notified ?? "0") >= 1);
    const title = await page.title();
    report.title = title;
    check(title.startsWith("● Your turn"), `the title says ${title}`);
    check(Number(await dataset(page, "sounds")) >= 1, "no sound played");
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", {
        get: () => "visible",
        configurable: true,
      });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    check((await page.title()) === own, "the title stays changed once looked at");
    await page.context().close();
  },

  /** A dark theme when the system asks for one. */
  async dark() {
    const colours = {};
    for (const scheme of ["light", "dark"]) {
      const page = await open({ colorScheme: scheme });
      await setUp(page, "six_nimmt", ["person", "heuristic"]);
      await start(page);
      await settle(page);
      colours[scheme] = await page.evaluate(() => {
        const rgb = (el, what) => getComputedStyle(el)[what].match(/\d+/g).slice(0, 3).map(Number);
        const light = ([r, g, b]) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
        return {
          page:
            light(rgb(document.body, "backgroundColor")) ||
            light(rgb(document.documentElement, "backgroundColor")),
          text: light(rgb(document.getElementById("turn"), "color")),
        };
      });
      await shot(page, `theme-${scheme}`);
      await page.context().close();
    }
    report.colours = colours;
    check(colours.light.page > 0.8 && colours.light.text < 0.3, "the light theme is not light");
    check(colours.dark.page < 0.2 && colours.dark.text > 0.7, "the dark theme is not dark");
  },
};

const wanted = args.only ? args.only.split(",") : Object.keys(scenarios);
const results = {};
try {
  for (const name of wanted) {
    failures = [];
    report = {};
    try {
      await scenarios[name]();
    } catch (error) {
      failures.push(`${error.message}`.split("\n")[0]);
    }
    results[name] = { ...report, failures };
  }
} finally {
  await browser.close();
}
if (args.saves)
  await writeFile(join(args.saves, `report-${args.size}.json`), JSON.stringify(results));
console.log(JSON.stringify({ size: args.size, scenarios: results }));
process.exit(Object.values(results).some((r) => r.failures.length) ? 1 : 0);
