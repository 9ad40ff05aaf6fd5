// Play with friends, checked in Debian's Chromium: a 6 nimmt! table hosted from one page, played
// to its end from three browser contexts (three people, one bot) and watched from a fourth (a
// spectator), the people choosing their cards at the same time, one context reloaded mid-game.
// Every context is sent every move once, in order; no context's page ever holds another seat's
// hidden cards or token. Prints one JSON line, {failures, ...}; exits non-zero when a check fails.
//
//   node test/friends.mjs --url http://127.0.0.1:8080/ [--shots DIR]
import { chromium } from "playwright-core";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    shots: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});

const KINDS = ["person", "person", "heuristic", "person"]; // seat 3 is the bot
const RELOAD_AFTER_TURNS = 3; // the turns played before one context reloads
const failures = [];
const report = {};
const check = (ok, message) => ok || failures.push(message);

const browser = await chromium.launch({
  executablePath: args.chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
});

/** A page at `url` in a fresh context (its own session storage, as another device has). */
async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

/** Hosts the table from the setup form; the links it shows, by who they are for. */
async function host(page) {
  await page.selectOption("#game", "six_nimmt");
  await page.selectOption("#seats", String(KINDS.length));
  await page.selectOption('[data-option="end"]', "FIXED_HANDS");
  await page.fill('[data-option="hands"]', "1");
  for (const [seat, kind] of KINDS.entries())
    await page.selectOption(`select[data-seat="${seat}"]`, kind);
  check(await page.locator("#host").isVisible(), "no Play with friends button");
  await page.click("#host");
  await page.waitForSelector("#invites-area:not([hidden])");
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

/** Makes the first move offered, step by step, until it is sent. */
async function move(page) {
  for (let step = 0; step < 4; step++) {
    if ((await phaseOf(page)) !== "input") return;
    const before = await page.locator("#choices button").allInnerTexts();
    await page.locator("#choices button:not(.back)").first().click();
    await page.waitForFunction(
      (old) =>
        document.body.dataset.phase !== "input" ||
        [...document.querySelectorAll("#choices button")].map((b) => b.innerText).join("|") !== old,
      before.join("|"),
    );
  }
}

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

/** The cards a page draws (its table and its hand), and those of its hand. */
const cards = (page) =>
  page.evaluate(() => {
    const number = (el) => Number(/card (\d+)/.exec(el.getAttribute("aria-label") ?? "")?.[1]);
    const all = [...document.querySelectorAll('[aria-label^="card "]')].map(number);
    const hand = [...document.querySelectorAll('#hand [aria-label^="card "]')].map(number);
    return { all, hand };
  });

/** No page draws a card that is neither public (the spectator's page draws it) nor its own; no
 * page keeps a token but its own. */
async function noLeaks(pages, spectator, tokens, when) {
  const seen = new Set((await cards(spectator)).all);
  check((await cards(spectator)).hand.length === 0, `${when}: the spectator's page has a hand`);
  for (const [who, page] of pages) {
    const { all, hand } = await cards(page);
    const foreign = all.filter((card) => !seen.has(card) && !hand.includes(card));
    check(!foreign.length, `${when}: ${who}'s page draws another seat's cards ${foreign}`);
    const kept = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + location.href);
    for (const [other, token] of tokens)
      check(
        other === who || !kept.includes(token),
        `${when}: ${who}'s page holds ${other}'s token`,
      );
  }
}

async function play() {
  const hostPage = await open(args.url);
  const links = await host(hostPage);
  const people = ["Seat 1", "Seat 2", "Seat 4"];
  check(
    Object.keys(links).sort().join() === [...people, "Spectators"].sort().join(),
    `the links are for ${Object.keys(links)}`,
  );
  check(
    Object.values(links).every((link) => /#table=[\w-]{22}&token=o1\./.test(link)),
    "a token is not in a link's fragment",
  );
  const tokens = people.map((who) => [who, new URL(links[who]).hash.split("token=")[1]]);
  const pages = new Map();
  for (const who of people) pages.set(who, await open(links[who]));
  const spectator = await open(links.Spectators);
  const everyone = [...pages.values(), spectator];
  let turns = 0;
  let reloaded = false;
  while ((await settle([...pages.values()], everyone)) === "input") {
    // Every person asked chooses at the same time, from their own device.
    const asked = [];
    for (const page of pages.values()) if ((await phaseOf(page)) === "input") asked.push(page);
    await Promise.all(asked.map(move));
    turns += 1;
    if (asked.length === people.length) {
      await caughtUp(everyone);
      await noLeaks(pages, spectator, tokens, `turn ${turns}`);
    }
    if (turns === RELOAD_AFTER_TURNS && !reloaded) {
      const page = pages.get("Seat 2");
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
  for (const [who, page] of [...pages, ["Spectators", spectator]]) {
    const seen = await revisions(page);
    const expected = Array.from({ length: last - seen[0] + 1 }, (_, i) => seen[0] + i);
    check(seen.join() === expected.join(), `${who} was not sent every revision once: ${seen}`);
    check((await phaseOf(page)) === "over", `${who}'s page does not show the end`);
  }
  const scores = await Promise.all(
    everyone.map((page) => page.getAttribute("#outcome", "data-scores")),
  );
  check(new Set(scores).size === 1, `the pages show different outcomes: ${scores}`);
  await noLeaks(pages, spectator, tokens, "the end");
  if (args.shots) {
    for (const [who, page] of pages)
      await page.screenshot({ path: join(args.shots, `friends-${who.replace(" ", "")}.png`) });
  }
}

try {
  await play();
} catch (error) {
  failures.push(`${error.message}`);
} finally {
  await browser.close();
}
console.log(JSON.stringify({ ...report, failures }));
process.exit(failures.length ? 1 : 0);
