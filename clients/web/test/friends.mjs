// Play with friends, checked in Debian's Chromium: a 6 nimmt! table hosted from one page, played
// to its end from three browser contexts (three people, one bot) and watched from a fourth (a
// spectator), the people choosing their cards at the same time, one context reloaded mid-game.
// The pages are a desktop's (1366×900) and a phone's (390×844), in English and in Brazilian
// Portuguese: each asked to move has its table, hand and move in sight. Every context is sent
// every move once, in order; no context's page ever holds another seat's hidden cards or token.
// Then a table with 5 s a move, whose person does nothing: the server's bot plays for them.
// Prints one JSON line, {failures, ...}; exits non-zero when a check fails.
//
//   node test/friends.mjs --url http://127.0.0.1:8080/ [--shots DIR]
import { chromium } from "playwright-core";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { clipping, dataset, move, ONE_HAND, outOfSight, setUp } from "./page.mjs";

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    shots: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});

const KINDS = ["person", "person", "heuristic", "person"]; // seat 3 is the bot
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
/** Who opens each link, on what screen and in what language; the keys are the links' seats,
 * counted from 1. */
const DEVICES = {
  1: { viewport: DESKTOP, locale: "en-US" },
  2: { viewport: PHONE, locale: "en-US" },
  4: { viewport: DESKTOP, locale: "pt-BR" },
  spectators: { viewport: PHONE, locale: "pt-BR" },
};
const RELOADED = "2"; // the seat whose page reloads mid-game
const RELOAD_AFTER_TURNS = 3; // the turns played before it does
const failures = [];
const report = {};
const check = (ok, message) => ok || failures.push(message);

const browser = await chromium.launch({
  executablePath: args.chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
});

/** A page at `url` in a fresh context (its own session storage, as another device has). */
async function open(url, device) {
  const context = await browser.newContext(device);
  const page = await context.newPage();
  page.device = device;
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

async function shot(page, name) {
  if (!args.shots) return;
  const size = page.device.viewport === PHONE ? "phone" : "desktop";
  await page.screenshot({ path: join(args.shots, `friends-${name}-${size}.png`) });
}

/** Hosts the table from the setup form; the links it shows, by the seat (from 1) they are for. */
async function host(page) {
  await setUp(page, "six_nimmt", KINDS, ONE_HAND);
  check(await page.locator("#host").isVisible(), "no Play with friends button");
  await page.click("#host");
  await page.waitForSelector("#invites-area:not([hidden])");
  check((await clipping(page)).overflow <= 0, "the links reach past the screen's side");
  await shot(page, "links");
  return Object.fromEntries(
    await page.$$eval("[data-invite]", (inputs) =>
      inputs.map((input) => [input.dataset.invite, input.value]),
    ),
  );
}

const phaseOf = (page) => page.getAttribute("body", "data-phase");
const revisions = async (page) =>
  ((await page.getAttribute("body", "data-revisions")) ?? "")
    .split(",")
    .filter(Boolean)
    .map(Number);

/** Waits until some person is asked to move, or every page shows the end. */
async function settle(people, everyone) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const phases = await Promise.all(everyone.map(phaseOf));
    if (phases.every((phase) => phase === "over")) return "over";
    const asked = await Promise.all(people.map(phaseOf));
    if (asked.includes("input")) return "input";
    if (Date.now() > deadline) throw new Error(`the table stalled: ${phases.join(", ")}`);
    await everyone[0].waitForTimeout(50);
  }
}

/** Waits until every page has drawn the same last revision; that revision. */
async function caughtUp(everyone) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const last = await Promise.all(everyone.map(async (page) => (await revisions(page)).at(-1)));
    if (last.every((revision) => revision !== undefined && revision === last[0])) return last[0];
    if (Date.now() > deadline) throw new Error(`the pages never caught up: ${last.join(", ")}`);
    await everyone[0].waitForTimeout(50);
  }
}

/** The cards a page draws (its table and its hand), and those of its hand: a card is a drawn
 * group whose first text is its number, in bold. */
const cards = (page) =>
  page.evaluate(() => {
    const numbers = (selector) =>
      [...document.querySelectorAll(`${selector} svg g[role=img]`)]
        .map((g) => g.querySelector(":scope > text"))
        .filter((text) => text?.getAttribute("font-weight") === "700")
        .map((text) => text.textContent)
        .filter((text) => /^\d+$/.test(text))
        .map(Number);
    return {
      all: [...numbers("#table"), ...numbers("#hand")],
      hand: numbers("#hand"),
      revision: document.body.dataset.revisions?.split(",").at(-1),
    };
  });

/** No page draws a card that is neither public (the spectator's page draws it) nor its own; no
 * page keeps a token but its own. */
async function noLeaks(pages, spectator, tokens, when) {
  // The cards every page draws at one revision (the table goes on meanwhile: a bot may move).
  let drawn;
  for (let tries = 0; tries < 100; tries++) {
    drawn = await Promise.all([spectator, ...pages.values()].map(cards));
    if (drawn.every((page) => page.revision === drawn[0].revision)) break;
    await spectator.waitForTimeout(50);
  }
  const [watched, ...seats] = drawn;
  const seen = new Set(watched.all);
  check(watched.hand.length === 0, `${when}: the spectator's page has a hand`);
  for (const [index, [who, page]] of [...pages].entries()) {
    const { all, hand } = seats[index];
    check(all.length > 0, `${when}: seat ${who}'s page draws no card`);
    const foreign = all.filter((card) => !seen.has(card) && !hand.includes(card));
    check(!foreign.length, `${when}: seat ${who}'s page draws another seat's cards ${foreign}`);
    const kept = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + location.href);
    for (const [other, token] of tokens)
      check(
        other === who || !kept.includes(token),
        `${when}: ${who}'s page holds ${other}'s token`,
      );
  }
}

/** A page asked to move has its table, hand and move in sight (and, on a phone, the last events),
 * nothing wider than the screen, and asks in its language. */
async function inSight(who, page) {
  const phone = page.device.viewport === PHONE;
  const parts = ["table", "hand", "choices", ...(phone ? ["recent"] : [])];
  const hidden = await outOfSight(page, parts);
  check(!hidden.length, `seat ${who}: out of sight: ${hidden.join(", ")}`);
  check((await clipping(page)).overflow <= 0, `seat ${who}: the page is wider than the screen`);
  const turn = await page.innerText("#turn");
  const asked = page.device.locale === "pt-BR" ? `Lugar ${who} (você): sua vez.` : "your move.";
  check(turn.includes(asked), `seat ${who} is asked: ${turn}`);
}

/** Each page names its own seat as counted from 1, in its language, in its log's first line. */
async function firstLines(pages, spectator) {
  for (const [who, page] of pages) {
    const first = await page.locator("#log li").first().innerText();
    const own =
      page.device.locale === "pt-BR" ? `você joga no lugar ${who}.` : `you play seat ${who}.`;
    check(first.endsWith(own), `seat ${who}'s log begins: ${first}`);
  }
  const first = await spectator.locator("#log li").first().innerText();
  check(first.endsWith("você assiste."), `the spectator's log begins: ${first}`);
}

async function play() {
  const hostPage = await open(args.url, { viewport: PHONE, locale: "en-US" });
  const links = await host(hostPage);
  const people = ["1", "2", "4"];
  check(
    Object.keys(links).sort().join() === [...people, "spectators"].sort().join(),
    `the links are for ${Object.keys(links)}`,
  );
  check(
    Object.values(links).every((link) => /\/#table=[\w-]{22}&token=o1\./.test(link)),
    "a token is not in a link's fragment",
  );
  const tokens = people.map((who) => [who, new URL(links[who]).hash.split("token=")[1]]);
  const pages = new Map();
  for (const who of people) pages.set(who, await open(links[who], DEVICES[who]));
  const spectator = await open(links.spectators, DEVICES.spectators);
  const everyone = [...pages.values(), spectator];
  const pictured = new Set();
  let turns = 0;
  let reloaded = false;
  while ((await settle([...pages.values()], everyone)) === "input") {
    // Every person asked chooses at the same time, from their own device.
    const asked = [];
    for (const [who, page] of pages) if ((await phaseOf(page)) === "input") asked.push([who, page]);
    for (const [who, page] of asked) await inSight(who, page);
    // Each page asked to move after the first turn, once: the last events are under its table.
    for (const [who, page] of asked.filter(([who]) => turns > 0 && !pictured.has(who))) {
      await shot(page, `seat${who}`);
      pictured.add(who);
    }
    await Promise.all(asked.map(([, page]) => move(page)));
    turns += 1;
    if (asked.length === people.length) {
      await caughtUp(everyone);
      await noLeaks(pages, spectator, tokens, `turn ${turns}`);
      if (turns === 1) await firstLines(pages, spectator);
    }
    if (turns === RELOAD_AFTER_TURNS && !reloaded) {
      const page = pages.get(RELOADED);
      report.revisionsBeforeReload = (await revisions(page)).length;
      await page.reload();
      await page.waitForSelector("body[data-ready=true]");
      reloaded = true;
    }
  }
  const last = await caughtUp(everyone);
  report.lastRevision = last;
  report.turns = turns;
  check(reloaded, "no page was reloaded");
  for (const [who, page] of [...pages, ["spectators", spectator]]) {
    const seen = await revisions(page);
    const expected = Array.from({ length: last - seen[0] + 1 }, (_, i) => seen[0] + i);
    check(seen.join() === expected.join(), `${who} was not sent every revision once: ${seen}`);
    check((await phaseOf(page)) === "over", `${who}'s page does not show the end`);
    check(await page.locator("#play-again").isHidden(), `${who}'s page offers to play again alone`);
  }
  const scores = await Promise.all(
    everyone.map((page) => page.getAttribute("#outcome", "data-scores")),
  );
  check(new Set(scores).size === 1, `the pages show different outcomes: ${scores}`);
  await noLeaks(pages, spectator, tokens, "the end");
  for (const [who, page] of pages) await shot(page, `seat${who}-end`);
  await shot(spectator, "spectators-end");
}

/** A table hosted with 5 s a move: its page shows every seat's clock; a person who does nothing
 * has the bot play for them once their time is up (the server claims it: nobody's page does),
 * the page says so, and the game goes on. */
async function clocked() {
  const hostPage = await open(args.url, { viewport: DESKTOP, locale: "en-US" });
  await setUp(hostPage, "six_nimmt", ["person", "heuristic", "heuristic"], ONE_HAND);
  await hostPage.selectOption("#move-limit", "5000");
  await hostPage.click("#host");
  await hostPage.waitForSelector("#invites-area:not([hidden])");
  const link = await hostPage.$eval('[data-invite="1"]', (input) => input.value);
  const page = await open(link, DEVICES[1]);
  await page.waitForFunction(() => document.body.dataset.phase === "input");
  report.tableClocks = await page.locator("#clocks li").allInnerTexts();
  check(report.tableClocks.length === 3, "a clocked table's page does not show each clock");
  const timedOut = () =>
    [...document.querySelectorAll("#log li")].some((li) =>
      li.innerText.includes("ran out of time"),
    );
  await page.waitForFunction(timedOut, null, { timeout: 20_000 });
  await page.waitForFunction(() => document.body.dataset.phase === "input");
  check((await dataset(page, "moves")) === "", "the page moved for its person");
  const offered = await page.locator("#choices button:not(.back)").allInnerTexts();
  // A hand of ten, less the card played for the person: the page offers its cards afresh.
  check(offered.length === 9, `after the timeout the page offers ${offered}`);
  await shot(page, "clocked");
}

try {
  await play();
  await clocked();
} catch (error) {
  failures.push(`${error.message}`);
} finally {
  await browser.close();
}
console.log(JSON.stringify({ ...report, failures }));
process.exit(failures.length ? 1 : 0);
