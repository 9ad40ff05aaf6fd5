// What the browser drivers of the playground do with a page, as a person would: set a game up,
// start it, wait for the person's turn, make the first move offered, play to the end; and what
// they measure of it (the text sizes of the drawings, what reaches outside them).
import { mkdir } from "node:fs/promises";
import { join } from "node:path";

/** 6 nimmt!'s options for a game of one hand, the shortest there is. */
export const ONE_HAND = { end: "FIXED_HANDS", hands: 1 };

/** Sets up a game: `kinds` per seat ("person", "heuristic", "random"), options by name. */
export async function setUp(page, game, kinds, options = {}) {
  await openSetup(page);
  await page.selectOption("#game", game);
  await page.selectOption("#seats", String(kinds.length));
  await page.fill("#seed", "7");
  await page.selectOption("#speed", "0");
  for (const [name, value] of Object.entries(options)) {
    const input = page.locator(`[data-option="${name}"]`);
    if (typeof value === "boolean") await input.setChecked(value);
    else if ((await input.evaluate((el) => el.tagName)) === "SELECT")
      await input.selectOption(String(value));
    else await input.fill(String(value));
  }
  for (const [seat, kind] of kinds.entries())
    await page.selectOption(`select[data-seat="${seat}"]`, kind);
}

/** Opens the new-game form, which folds away once a game starts. */
export const openSetup = (page) =>
  page.evaluate(() => (document.getElementById("setup-box").open = true));

/** Starts the game set up, and waits until its table is shown. */
export async function start(page) {
  const shown = (await page.getAttribute("body", "data-game")) ?? "0";
  await page.click("#start");
  await page.waitForFunction((old) => (document.body.dataset.game ?? "0") !== old, shown);
}

/** Waits until a person is to act (or the game is over, or the cover asks for the next one). */
export async function settle(page) {
  await page.waitForFunction(
    () =>
      ["input", "over"].includes(document.body.dataset.phase ?? "") ||
      !document.getElementById("cover").hidden,
    null,
    { timeout: 60_000 },
  );
  return page.evaluate(() =>
    document.getElementById("cover").hidden ? document.body.dataset.phase : "cover",
  );
}

/** Makes the first move offered, step by step, until the move is sent (one move: the next
 * person's turn may come at once). */
export async function move(page) {
  const made = await page.evaluate(() => document.body.dataset.moves ?? "0");
  for (let step = 0; step < 6; step++) {
    if ((await page.getAttribute("body", "data-phase")) !== "input") return;
    await clickFirst(page, made);
    if ((await page.evaluate(() => document.body.dataset.moves ?? "0")) !== made) return;
  }
}

/** Clicks the first choice offered until the page changes: a click may land as the page draws
 * another seat's move (on a hosted table), and a person then clicks again. */
async function clickFirst(page, made) {
  const before = await page.locator("#choices button").allInnerTexts();
  const changed = ([old, moves]) =>
    (document.body.dataset.moves ?? "0") !== moves ||
    [...document.querySelectorAll("#choices button")].map((b) => b.innerText).join("|") !== old;
  for (let click = 0; click < 3; click++) {
    await page.locator("#choices button:not(.back)").first().click();
    const seen = await page
      .waitForFunction(changed, [before.join("|"), made], { timeout: 5_000 })
      .then(() => true)
      .catch(() => false);
    if (seen) return;
  }
  const shown = await page.evaluate(() => ({
    phase: document.body.dataset.phase,
    moves: document.body.dataset.moves,
    choices: [...document.querySelectorAll("#choices button")].map((b) => b.innerText),
    refused: document.getElementById("refused")?.textContent,
  }));
  throw new Error(`three clicks on ${before[0]} changed nothing: ${JSON.stringify(shown)}`);
}

/** Plays the person's seat with the first move offered until the game is over. */
export async function playToTheEnd(page) {
  for (let moves = 0; moves < 3000; moves++) {
    const phase = await settle(page);
    if (phase === "over") return;
    if (phase === "cover") await page.click("#cover-button");
    else await move(page);
  }
  throw new Error("the game did not end");
}

export const logLines = (page) => page.locator("#log li").allInnerTexts();

/** Every SVG text of the table and the hand, with its size on screen and what it says. */
export const textSizes = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll("#table svg text, #hand svg text")]
      .filter((t) => t.textContent)
      .map((t) => ({
        text: t.textContent,
        px: (t.getScreenCTM()?.a ?? 1) * parseFloat(t.getAttribute("font-size") ?? "16"),
      })),
  );

/** Drawn parts that reach outside their drawing, and how far the page scrolls sideways. */
export const clipping = (page) =>
  page.evaluate(() => {
    const outside = [];
    for (const svg of document.querySelectorAll("#table svg, #hand svg")) {
      const box = svg.viewBox.baseVal;
      for (const el of svg.querySelectorAll("rect, text, circle, polygon")) {
        const b = el.getBBox();
        const m = el.getCTM();
        const s = svg.getCTM();
        if (!m || !s || !b.width) continue;
        // The part's box in the drawing's units.
        const x = (m.e - s.e) / s.a + b.x * (m.a / s.a);
        const y = (m.f - s.f) / s.d + b.y * (m.d / s.d);
        const w = b.width * (m.a / s.a);
        const h = b.height * (m.d / s.d);
        if (x < box.x - 1 || y < box.y - 1 || x + w > box.width + 1 || y + h > box.height + 1)
          outside.push(
            `${el.tagName} "${el.textContent ?? ""}" at ${Math.round(x)},${Math.round(y)}`,
          );
      }
    }
    return { outside, overflow: document.documentElement.scrollWidth - window.innerWidth };
  });

/** A value the page tells tests on its body (`data-*`), "" when it has not. */
export const dataset = (page, key) => page.evaluate((key) => document.body.dataset[key] ?? "", key);

/** Saves the game being played ("Save game") as `name` in `folder`; the file's path. */
export async function saveGame(page, folder, name) {
  await mkdir(folder, { recursive: true });
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#save-game")]);
  const path = join(folder, `${name}.ordo.json`);
  await download.saveAs(path);
  return path;
}

/** Opens a saved game from a file, and waits until the replay is shown or refused. */
export async function openSaved(page, path) {
  await openSetup(page);
  await page.evaluate(() => delete document.body.dataset.replay);
  await page.setInputFiles("#open-game", path);
  await page.waitForFunction(() => ["ready", "failed"].includes(document.body.dataset.replay));
  return page.getAttribute("body", "data-replay");
}

/** The parts of the table area not wholly on the screen, as the page stands. */
export const outOfSight = (page, ids) =>
  page.evaluate((ids) => {
    return ids.filter((id) => {
      const el = document.getElementById(id);
      if (!el || el.offsetParent === null) return false;
      const box = el.getBoundingClientRect();
      return box.top < -1 || box.bottom > window.innerHeight + 1 || box.height === 0;
    });
  }, ids);

/** Clicks the first move's buttons until the move is made; the kinds of step offered on the way. */
export async function moveNoting(page) {
  const made = await dataset(page, "moves");
  const kinds = [];
  for (let step = 0; step < 6 && (await dataset(page, "moves")) === made; step++) {
    kinds.push(await page.getAttribute("#choices button:not(.back)", "data-step"));
    const before = await page.locator("#choices button").allInnerTexts();
    await page.locator("#choices button:not(.back)").first().click();
    await page.waitForFunction(
      ([old, moves]) =>
        (document.body.dataset.moves ?? "") !== moves ||
        [...document.querySelectorAll("#choices button")].map((b) => b.innerText).join("|") !== old,
      [before.join("|"), made],
    );
  }
  return kinds;
}
