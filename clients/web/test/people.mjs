// What people meet in the playground, checked in Debian's Chromium: one scenario a run. Prints one
// JSON line, {scenario, failures, ...}; exits non-zero when a check fails.
//
//   node test/people.mjs --url http://127.0.0.1:8080/ --scenario cover [--shots DIR]
//
// Scenarios: clock, cover, log, reveal, reload, language, phone, results, rules.
import { chromium } from "playwright-core";
import { mkdtemp, rm } from "node:fs/promises";
import {
  clipping,
  logLines,
  move,
  ONE_HAND,
  openSetup,
  playToTheEnd,
  settle,
  setUp,
  start,
  textSizes,
} from "./page.mjs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    scenario: { type: "string" },
    shots: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});

const MIN_TEXT_PX = 11;
const PHONE = { width: 390, height: 844 };
const failures = [];
const report = { scenario: args.scenario };
const check = (ok, message) => ok || failures.push(message);

const profile = await mkdtemp(join(tmpdir(), "ordo-people-"));
const browser = await chromium.launch({
  executablePath: args.chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
});

/** A page of the playground in a fresh context (its own session storage). */
async function open(options = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...options });
  const page = await context.newPage();
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  page.dialogs = [];
  page.on("dialog", (dialog) => {
    page.dialogs.push(dialog.message());
    void dialog.accept();
  });
  await page.goto(`${args.url}${options.query ?? ""}`);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

/** The games the page offers, as the server lists them: every game of the server's registry. */
async function games() {
  const page = await open();
  const ids = await page
    .locator("#game option")
    .evaluateAll((options) => options.map((option) => option.value));
  await page.context().close();
  return ids;
}

const scenarios = {
  /** A person with a time per move who does nothing: the page warns them, claims the timeout
   * when their time is up, the bot plays for them, the log says so, and the game goes on. */
  async clock() {
    const page = await open();
    await setUp(page, "six_nimmt", ["person", "heuristic", "heuristic"], ONE_HAND);
    await page.selectOption("#move-limit", "5000");
    await start(page);
    check((await settle(page)) === "input", "seat 1 is not asked to move");
    report.clocks = await page.locator("#clocks li").allInnerTexts();
    check(report.clocks.length === 3, "the page does not show each seat's clock");
    await page.waitForSelector("#clocks li.short", { timeout: 10_000 });
    report.warning = await page.locator("#clock-note").innerText();
    check(report.warning.includes("Hurry"), "the person is not warned that time runs short");
    await page.waitForFunction(() => document.body.dataset.timeouts === "1", null, {
      timeout: 15_000,
    });
    check((await settle(page)) === "input", "the game does not go on after the timeout");
    const lines = await logLines(page);
    report.timedOut = lines.filter((line) => line.includes("ran out of time"));
    check(report.timedOut.length === 1, "the log does not say who ran out of time");
    check(
      (await page.evaluate(() => document.body.dataset.moves ?? "0")) === "0",
      "a move was made for the person by the page, not the server",
    );
    await playToTheEnd(page);
    check((await settle(page)) === "over", "the game did not end");
  },

  /** A new game never shows the last game's cover, with people or with bots only. */
  async cover() {
    const page = await open();
    await setUp(page, "six_nimmt", ["person", "person", "heuristic"]);
    await start(page);
    check((await settle(page)) === "input", "seat 1 is not asked to move");
    await move(page);
    check((await settle(page)) === "cover", "the screen is not covered for seat 2");
    check(page.dialogs.length === 0, "a confirmation was asked before any game ran");
    await openSetup(page);
    await page.selectOption('select[data-seat="1"]', "heuristic");
    await start(page);
    check(page.dialogs.length === 1, "Start abandoned a game in progress without asking");
    const phase = await settle(page);
    check(phase === "input", `the new game does not ask seat 1 to move (${phase})`);
    check(await page.locator("#cover").isHidden(), "the new game shows the old cover");
    check(await page.locator("#table svg").isVisible(), "the new game's table is hidden");
    await setUp(page, "six_nimmt", ["heuristic", "heuristic", "heuristic"], ONE_HAND);
    await start(page);
    check(page.dialogs.length === 2, "Start did not ask before abandoning the second game");
    check((await settle(page)) === "over", "the game of bots did not end");
    check(await page.locator("#cover").isHidden(), "a game of bots shows a cover");
    report.dialogs = page.dialogs;
  },

  /** A long log keeps its numbers (the whole log's, every digit) and counts in good English. */
  async log() {
    const page = await open();
    await setUp(page, "six_nimmt", Array(10).fill("heuristic"));
    await start(page);
    check((await settle(page)) === "over", "the game did not end");
    const numbers = await page.$$eval("#log li", (items) => items.map((li) => li.value));
    const lines = await logLines(page);
    report.shown = numbers.length;
    report.last = numbers[numbers.length - 1];
    check(numbers.length === 150, `the log shows ${numbers.length} lines, not the last 150`);
    check(report.last > 150, "the game's log is not longer than 150 lines");
    check(
      numbers.every((n, i) => i === 0 || n === numbers[i - 1] + 1),
      "the log's numbers are not consecutive",
    );
    // The room left of the items holds the widest number shown, with its dot.
    const fits = await page.evaluate((last) => {
      const log = document.getElementById("log");
      const probe = document.createElement("span");
      probe.textContent = `${last}. `;
      probe.style.font = getComputedStyle(log).font;
      document.body.append(probe);
      const width = probe.getBoundingClientRect().width;
      probe.remove();
      return width <= parseFloat(getComputedStyle(log).paddingLeft);
    }, report.last);
    check(fits, `the number ${report.last}. does not fit left of the log`);
    const all = await plurals(page);
    check(all.length === 0, `miscounted: ${all.join(" | ")}`);
    check(lines.length > 0, "the log is empty");
  },

  /** Fora de Ordem shows the resolved round's answer on the board, and items carry no numbers. */
  async reveal() {
    const page = await open();
    await setUp(page, "fora_de_ordem", ["heuristic", "heuristic", "heuristic"], {
      rounds: 2,
      language: "EN",
    });
    await start(page);
    check((await settle(page)) === "over", "the game did not end");
    const answer = page.locator("#table .reveal");
    check((await answer.count()) === 1, "the board shows no answer of the last round");
    const text = (await answer.locator("text").allTextContents()).join(" | ");
    report.answer = text;
    check(/Round 2: the answer/.test(text), "the answer is not the last round's");
    for (const rank of ["1st", "2nd", "3rd", "4th", "5th"])
      check(text.includes(rank), `the answer has no ${rank}`);
    check(/takes|every card was right/.test(text), "the answer does not say who takes what");
    const lines = await logLines(page);
    const told = lines.find((line) => line.startsWith("The answer:")) ?? "";
    const items = [...(text.matchAll(/(?:1st|2nd|3rd|4th|5th) \| ([^|]+)/g) ?? [])].map((m) =>
      m[1].trim(),
    );
    check(items.length === 5, `the answer lists ${items.length} items`);
    const labels = await page.locator("#table text").allTextContents();
    check(!labels.some((l) => /^\d\.\s/.test(l)), "a side is labelled with a number");
    const all = await plurals(page);
    check(all.length === 0, `miscounted: ${all.join(" | ")}`);
    report.told = told;
  },

  /** A reload keeps the game: the same table, log and turn, its state still sealed. */
  async reload() {
    const page = await open();
    await setUp(page, "six_nimmt", ["person", "heuristic", "heuristic"], ONE_HAND);
    await start(page);
    await settle(page);
    await move(page);
    await settle(page);
    await move(page);
    check((await settle(page)) === "input", "the person is not to act after two moves");
    const before = { log: await logLines(page), turn: await page.innerText("#turn") };
    const kept = await page.evaluate(() => sessionStorage.getItem("ordo-playground-game"));
    check(kept !== null, "nothing is kept in the session storage");
    const state = JSON.parse(kept ?? "{}").state ?? {};
    check(
      typeof state.sealed === "string" && state.sealed.length > 0,
      "the kept state is not sealed",
    );
    check(!("sixNimmt" in state), "the kept state holds the game in clear");
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    check((await settle(page)) === "input", "after the reload the person is not to act");
    check(
      JSON.stringify(await logLines(page)) === JSON.stringify(before.log),
      "the log is not the same after the reload",
    );
    check(
      (await page.innerText("#turn")) === before.turn,
      "the turn is not the same after the reload",
    );
    check((await page.inputValue("#game")) === "six_nimmt", "the form does not name the game kept");
    await playToTheEnd(page);
    check(await page.locator("#outcome").isVisible(), "the game kept does not play to its end");
  },

  /** The page opens on 6 nimmt!, and Fora de Ordem in the browser's language (else English). */
  async language() {
    const seen = {};
    for (const [locale, wanted] of [
      ["pt-BR", "PT_BR"],
      ["pt-PT", "PT_BR"],
      ["en-GB", "EN"],
      ["fr-FR", "EN"],
    ]) {
      const page = await open({ locale });
      check((await page.inputValue("#game")) === "six_nimmt", `${locale}: opens on another game`);
      await page.selectOption("#game", "fora_de_ordem");
      const language = await page.inputValue('[data-option="language"]');
      seen[locale] = language;
      check(language === wanted, `${locale}: Fora de Ordem in ${language}, not ${wanted}`);
      await page.context().close();
    }
    report.languages = seen;
  },

  /** On a phone, every game at six seats: no text under 11 CSS pixels, nothing drawn outside
   * its drawing, no sideways scrolling; a screenshot of each. */
  async phone() {
    report.smallest = {};
    for (const game of await games()) {
      const page = await open({ viewport: PHONE, query: `?game=${game}` });
      await setUp(page, game, ["person", ...Array(5).fill("heuristic")], {
        ...(game === "fora_de_ordem" ? { language: "EN" } : {}),
      });
      await start(page);
      for (let i = 0; i < 3; i++) {
        check((await settle(page)) === "input", `${game}: the person is not to act`);
        await move(page);
      }
      await settle(page);
      const sizes = await textSizes(page);
      const small = sizes.filter((t) => t.px < MIN_TEXT_PX - 0.01);
      report.smallest[game] = Math.min(...sizes.map((t) => t.px));
      check(sizes.length > 20, `${game}: only ${sizes.length} texts drawn`);
      check(
        small.length === 0,
        `${game}: ${small.length} texts under ${MIN_TEXT_PX} px, e.g. ${JSON.stringify(small.slice(0, 3))}`,
      );
      const { outside, overflow } = await clipping(page);
      check(outside.length === 0, `${game}: drawn outside the drawing: ${outside.slice(0, 3)}`);
      check(overflow <= 0, `${game}: the page scrolls ${overflow} px sideways`);
      const seats = await page.locator("#table [aria-label^='Seat 6']").count();
      check(seats > 0, `${game}: seat 6 is not drawn`);
      if (args.shots) {
        await page.locator("#table-area").scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(args.shots, `${game}-phone.png`), fullPage: true });
      }
      await page.context().close();
    }
  },

  /** Equation cards can hide their results: the hand, the moves offered and the log. */
  async results() {
    const page = await open();
    await setUp(page, "sequence_numbers", ["person", "heuristic"]);
    await start(page);
    await settle(page);
    const shown = await page.locator("#hand text").allTextContents();
    check(await page.locator("#results-toggle").isVisible(), "no way to hide the results");
    await page.check("#hide-results");
    // The hand is drawn again once the move being built is asked again: wait for that redraw.
    await page
      .waitForFunction(
        () => [...document.querySelectorAll("#hand text")].some((t) => t.textContent === "?"),
        null,
        { timeout: 30_000 },
      )
      .catch(() => undefined);
    await settle(page);
    const hidden = await page.locator("#hand text").allTextContents();
    const choices = await page.locator("#choices button").allInnerTexts();
    check(
      shown.some((t) => /^\d+$/.test(t)),
      "the results are not shown by default",
    );
    check(hidden.includes("?"), "the hand still shows the results");
    check(!choices.some((c) => / = \d+/.test(c)), `a move names a result: ${choices}`);
    await page.locator("#choices button:not(.back)").first().click();
    const cells = await page.locator("#choices button:not(.back)").allInnerTexts();
    check(!cells.some((c) => /\(\d+\)/.test(c)), `a cell names its number: ${cells}`);
    await setUp(page, "up_or_down", ["person", "heuristic"]);
    await start(page);
    await settle(page);
    check(await page.locator("#results-toggle").isHidden(), "a game without results offers it");
  },

  /** The table links to the whole of the game's rules, on a page of their own. */
  async rules() {
    const page = await open();
    for (const game of await games()) {
      await setUp(page, game, ["person", "heuristic"]);
      await start(page);
      await settle(page);
      const [rules] = await Promise.all([
        page.context().waitForEvent("page"),
        page.click("#rules-link"),
      ]);
      await rules.waitForLoadState();
      const headings = await rules.locator("h2").allTextContents();
      check(headings.includes("Summary"), `${game}: the rules page has no Summary`);
      check(headings.includes("Worked example"), `${game}: the rules page is not the whole`);
      check((await rules.locator("table").count()) > 0, `${game}: the rules' tables are lost`);
      await rules.close();
    }
  },
};

/** Log lines that count in bad English: "1 cards", "1 bombs", "card(s)". */
async function plurals(page) {
  return (await logLines(page)).filter((line) => /\b1 (cards|bombs|points)\b|\(s\)/.test(line));
}

try {
  const scenario = scenarios[args.scenario];
  if (!scenario) throw new Error(`no scenario ${args.scenario}`);
  await scenario();
} catch (error) {
  failures.push(`${error.message}`);
} finally {
  await browser.close();
  await rm(profile, { recursive: true, force: true });
}
console.log(JSON.stringify({ ...report, failures }));
process.exit(failures.length ? 1 : 0);
