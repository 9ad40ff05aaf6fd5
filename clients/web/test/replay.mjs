// Opens a saved game in the playground, in Debian's Chromium, and steps through it as a person
// would: forward, back, last, first, the slider; then as a seat and, for a finished game, with
// every card shown. Prints one JSON line with what it saw; exits non-zero when a check fails.
//
//   node test/replay.mjs --url http://127.0.0.1:8080/ --file GAME.ordo.json [--chromium PATH]
import { chromium } from "playwright-core";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    file: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});

const failures = [];
const check = (ok, message) => ok || failures.push(message);

const profile = await mkdtemp(join(tmpdir(), "ordo-web-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: args.chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
  viewport: { width: 1400, height: 1000 },
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  await page.goto(args.url);
  await page.waitForSelector("body[data-ready=true]");
  const ready = () => page.waitForSelector("body[data-replay=ready]", { timeout: 60_000 });
  await page.setInputFiles("#open-game", args.file);
  await ready();
  const at = async () => Number(await page.getAttribute("body", "data-replay-step"));
  const text = () => page.locator("#replay-step").innerText();
  const drawn = async () => page.locator("#replay-table svg *").count();
  check((await text()).startsWith("Step 0 of "), `the first step reads ${await text()}`);
  const last = Number((await text()).match(/^Step 0 of (\d+)/)?.[1] ?? 0);
  check(last > 0, "the game has no moves");
  check((await drawn()) > 20, "the table is not drawn");
  check(await page.isDisabled("#replay-back"), "back is offered at the first step");
  await page.click("#replay-forward");
  check((await at()) === 1, "forward does not go to step 1");
  check((await text()).startsWith(`Step 1 of ${last}: Seat `), `step 1 reads ${await text()}`);
  await page.click("#replay-forward");
  await page.click("#replay-back");
  check((await at()) === 1, "back does not go back a step");
  await page.click("#replay-last");
  check((await at()) === last, "last does not go to the last step");
  check(await page.isDisabled("#replay-forward"), "forward is offered at the last step");
  const over = (await text()).endsWith("The game is over.");
  await page.click("#replay-first");
  check((await at()) === 0, "first does not go to step 0");
  const middle = Math.floor(last / 2);
  await page.locator("#replay-slider").fill(String(middle));
  check((await at()) === middle, "the slider does not go to its step");
  // As a seat: its hand is drawn, and the step stays where it was.
  await page.evaluate(() => (document.body.dataset.replay = "loading"));
  await page.selectOption("#replay-viewer", "0");
  await ready();
  check((await at()) === middle, "changing the viewer moved the step");
  const seatHands = await page.locator("#replay-hands figure").count();
  check(seatHands === 1, `a seat sees ${seatHands} hands`);
  let revealed = 0;
  if (over) {
    await page.evaluate(() => (document.body.dataset.replay = "loading"));
    await page.selectOption("#replay-viewer", "reveal");
    await ready();
    revealed = await page.locator("#replay-hands figure").count();
    const seats = (await page.locator("#replay-viewer option").count()) - 2;
    check(revealed === seats, `every card shows ${revealed} hands of ${seats} seats`);
  }
  console.log(JSON.stringify({ steps: last, over, revealed, failures }));
} finally {
  await context.close();
  await rm(profile, { recursive: true, force: true });
}
process.exit(failures.length ? 1 : 0);
