// Plays one whole game of the playground in Debian's Chromium, as a person would: the first seat
// is a person who clicks legal moves (a card, then a row, cell or side), the other seats are bots.
// Prints one JSON line with what it saw; exits non-zero when a check fails.
//
//   node test/play.mjs --url http://127.0.0.1:8080/ --game six_nimmt --seats 3 \
//     --options '{"end":"FIXED_HANDS","hands":1}' --shots DIR [--sealed] [--record FILE]
//     [--save FILE] [--chromium PATH] [--fair]
//
// With --save, the game's record that "Save game" downloads is written to FILE.
// With --fair (a server that requires seat tokens, with a revision fence) the seed is left to
// the server, every call must carry the person's token, and a few moves in, the page sends the
// requests a cheating player would (fetch from the page, with the token and states it holds):
// each must be refused with its reason.
import { chromium } from "playwright-core";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    game: { type: "string" },
    seats: { type: "string", default: "2" },
    seed: { type: "string", default: "7" },
    options: { type: "string", default: "{}" },
    shots: { type: "string" },
    "shot-after": { type: "string", default: "6" },
    "max-moves": { type: "string", default: "2000" },
    sealed: { type: "boolean", default: false },
    fair: { type: "boolean", default: false },
    record: { type: "string" },
    save: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    width: { type: "string", default: "1400" },
    height: { type: "string", default: "1000" },
  },
});

const SERVICE = "/ordo.v1.GameEngineService/";
const CHEAT = "cheat-"; // the request ids of a cheater's requests, kept apart from the page's
// The game's field in a state's JSON (six_nimmt → sixNimmt): a sealed state has none.
const GAME_KEY = args.game.replace(/_([a-z])/g, (_m, c) => c.toUpperCase());
const failures = [];
const check = (ok, message) => ok || failures.push(message);

// A small seeded generator, so a run clicks the same moves every time.
let seed = 0x9e3779b9;
const random = (n) => {
  seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
  return seed % n;
};

/** Every GameState inside a message: the values of the "state" fields. */
function states(message) {
  const found = [];
  const walk = (value) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        if (key === "state" && inner && typeof inner === "object") found.push(inner);
        walk(inner);
      }
    }
  };
  walk(message);
  return found;
}

const profile = await mkdtemp(join(tmpdir(), "ordo-web-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: args.chromium,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: Number(args.width), height: Number(args.height) },
});
const exchanges = [];
const pending = [];
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    const url = response.url();
    if (!url.includes(SERVICE)) return;
    const method = url.slice(url.indexOf(SERVICE) + SERVICE.length);
    const request = response.request().postData();
    const headers = response.request().headers();
    if ((headers["x-request-id"] ?? "").startsWith(CHEAT)) return;
    pending.push(
      response.text().then((body) => {
        exchanges.push({
          method,
          status: response.status(),
          request: JSON.parse(request ?? "{}"),
          token: headers["ordo-seat-token"] ?? "",
          body: JSON.parse(body),
        });
      }),
    );
  });
  await page.goto(`${args.url}?game=${args.game}`);
  await page.waitForSelector("body[data-ready=true]");
  await page.selectOption("#seats", args.seats);
  await page.fill("#seed", args.fair ? "" : args.seed);
  await page.selectOption("#speed", "0");
  for (const [name, value] of Object.entries(JSON.parse(args.options))) {
    const input = page.locator(`[data-option="${name}"]`);
    if (typeof value === "boolean") await input.setChecked(value);
    else if ((await input.evaluate((el) => el.tagName)) === "SELECT")
      await input.selectOption(String(value));
    else await input.fill(String(value));
  }
  // The bot menu offers every policy: seat 1 searches, the others alternate.
  const kinds = ["search", "random", "heuristic"];
  for (let seat = 1; seat < Number(args.seats); seat++) {
    await page.selectOption(`select[data-seat="${seat}"]`, kinds[(seat - 1) % kinds.length]);
  }
  check((await page.locator("#rules li, #rules p").count()) > 0, "the rules summary is not shown");
  await page.click("#start");

  let clicks = 0;
  let shot = false;
  let cheats = null;
  const shotAfter = Number(args["shot-after"]);
  for (;;) {
    await page.waitForSelector("body[data-phase=input], body[data-phase=over]", {
      state: "attached",
      timeout: 60_000,
    });
    if ((await page.getAttribute("body", "data-phase")) === "over") break;
    if (args.fair && cheats === null) {
      // Once the game has moved on twice, the first state is an older one.
      await Promise.all(pending);
      const moved = exchanges.filter((e) => e.method === "ApplyAction" && e.status === 200);
      if (moved.length >= 2) cheats = await cheat(page);
    }
    // The table is drawn, not empty, whenever the person is to act.
    const drawn = await page.locator("#table svg *").count();
    check(drawn > 20, `the table has only ${drawn} drawn elements`);
    if (!shot && clicks >= shotAfter && args.shots) {
      await page.screenshot({ path: join(args.shots, `${args.game}.png`), fullPage: true });
      shot = true;
    }
    // Point at the drawing when it offers something; otherwise use the buttons of the move.
    const drawnTargets = page.locator("#table .target, #hand .target");
    const count = await drawnTargets.count();
    const steps = await page.locator("#choices button:not(.back)").count();
    check(steps > 0, "the person is to act but no move is offered");
    if (count && clicks === 0) {
      // The first step by keyboard alone: a drawn target takes the focus, Enter chooses it.
      await drawnTargets.first().focus();
      await page.keyboard.press("Enter");
    } else if (count && random(5)) {
      await drawnTargets.nth(random(count)).click();
    } else {
      await page.locator("#choices button:not(.back)").nth(random(steps)).click();
    }
    clicks++;
    if (clicks > Number(args["max-moves"])) throw new Error("the game did not end");
  }
  if (!shot && args.shots)
    await page.screenshot({ path: join(args.shots, `${args.game}.png`), fullPage: true });
  await Promise.all(pending);
  const shown = {
    scores: JSON.parse((await page.getAttribute("#outcome", "data-scores")) ?? "[]"),
    winners: JSON.parse((await page.getAttribute("#outcome", "data-winners")) ?? "[]"),
  };
  const last = exchanges.filter((e) => e.method === "ApplyAction" && e.body.status?.finished).pop();
  const outcome = last?.body.status?.outcome ?? {};
  const server = { scores: (outcome.scores ?? []).map(Number), winners: outcome.winners ?? [] };
  check(
    JSON.stringify(shown) === JSON.stringify(server),
    `the page shows ${JSON.stringify(shown)}, the server said ${JSON.stringify(server)}`,
  );
  const moves = exchanges.filter(
    (e) => e.method === "ApplyAction" && e.request.action && (e.request.action.seat ?? 0) === 0,
  ).length;
  check(moves > 0, "the person made no move");
  const refused = exchanges.filter((e) => e.status !== 200);
  check(
    refused.length === 0,
    `the server refused ${refused.length} call(s): ${JSON.stringify(refused[0]?.body)}`,
  );
  // Hidden stays hidden: the person is seat 0, so the page asks only for seat 0's view and
  // moves; with sealing, every state it sends or receives is sealed, with no game field in clear.
  for (const e of exchanges) {
    if (e.method === "GetView")
      check(
        e.request.viewer?.seat === undefined ||
          e.request.viewer.seat === 0 ||
          e.request.viewer.spectator,
        `the page asked for seat ${e.request.viewer?.seat}'s view`,
      );
    if (e.method === "ListLegalActions")
      check((e.request.seat ?? 0) === 0, `the page listed seat ${e.request.seat}'s moves`);
    if (e.method === "SuggestAction")
      check((e.request.seat ?? 0) === 0, `the page asked for seat ${e.request.seat}'s bot move`);
    if (e.method === "ApplyAction")
      check(e.request.viewer !== undefined, "the page asked for every seat's events");
    if (args.sealed) {
      for (const state of [...states(e.request), ...states(e.body)]) {
        check(
          typeof state.sealed === "string" && state.sealed.length > 0,
          `${e.method} carried a state that is not sealed`,
        );
        check(!(GAME_KEY in state), `${e.method} carried a state with its game in clear`);
      }
    }
  }
  if (args.fair) {
    // Every call the page made carried the person's token (seat 0's), never a bot's.
    const dealt = exchanges.find((e) => e.method === "NewGame")?.body ?? {};
    const mine = dealt.seatTokens?.[0];
    check(typeof mine === "string" && mine.length > 0, "NewGame gave the person no token");
    check(dealt.seed === undefined, `NewGame gave the seed ${dealt.seed}`);
    for (const e of exchanges.filter((e) => e.method !== "NewGame" && e.method !== "ListGames"))
      check(e.token === mine, `${e.method} was sent with another token than the person's`);
    check(cheats !== null, "no cheating request was sent");
    for (const tried of cheats ?? [])
      check(
        tried.status !== 200 &&
          tried.code === tried.expected[0] &&
          tried.reasons.includes(tried.expected[1]),
        `${tried.name}: expected ${tried.expected.join(" ")}, got ${tried.status} ${tried.code}`,
      );
  }
  if (args.record) await writeFile(args.record, JSON.stringify(exchanges));
  if (args.save) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#save-game")]);
    await download.saveAs(args.save);
  }
  const text = await page.locator("#outcome").innerText();
  console.log(
    JSON.stringify({
      game: args.game,
      moves,
      clicks,
      calls: exchanges.length,
      shown,
      server,
      outcome: text,
      cheats: cheats?.map((tried) => [tried.name, tried.code, tried.expected[1]]) ?? [],
      failures,
    }),
  );
} finally {
  await context.close();
  await rm(profile, { recursive: true, force: true });
}
process.exit(failures.length ? 1 : 0);

/**
 * The requests a cheating player sends from the page, with what the page holds: the person's
 * token, the latest state, an older one, a legal action of its own; each with the refusal it
 * must get.
 */
async function cheat(page) {
  const applied = exchanges.filter((e) => e.method === "ApplyAction" && e.status === 200);
  const latest = applied[applied.length - 1].body.state;
  const older = applied[0].request;
  const token = applied[applied.length - 1].token;
  const listed = exchanges.filter((e) => e.method === "ListLegalActions" && e.status === 200);
  const own = listed[listed.length - 1].body.actions[0];
  const theirs = { ...own, seat: 1 };
  const denied = (reason) => ["permission_denied", reason];
  const tries = [
    [
      "a bot's view",
      "GetView",
      { state: latest, viewer: { seat: 1 } },
      denied("SEAT_NOT_PERMITTED"),
    ],
    [
      "a bot's legal actions",
      "ListLegalActions",
      { state: latest, seat: 1 },
      denied("SEAT_NOT_PERMITTED"),
    ],
    [
      "a bot's suggested move",
      "SuggestAction",
      { state: latest, seat: 1 },
      denied("SEAT_NOT_PERMITTED"),
    ],
    [
      "a bot's card checked",
      "ValidateAction",
      { state: latest, action: theirs },
      denied("SEAT_NOT_PERMITTED"),
    ],
    [
      "a move for a bot seat",
      "ApplyAction",
      { state: latest, action: theirs },
      denied("SEAT_NOT_PERMITTED"),
    ],
    [
      "a bot's events",
      "ApplyAction",
      { state: latest, bot: { seat: 1 }, viewer: { seat: 1 } },
      denied("SEAT_NOT_PERMITTED"),
    ],
    [
      "a bot move with its own policy",
      "ApplyAction",
      { state: latest, bot: { seat: 1, policy: "random" } },
      denied("BOT_SETTINGS_NOT_PERMITTED"),
    ],
    [
      "a bot move with its own seed",
      "ApplyAction",
      { state: latest, bot: { seat: 1, seed: "5" } },
      denied("BOT_SETTINGS_NOT_PERMITTED"),
    ],
    ["the previous state again", "ApplyAction", older, ["failed_precondition", "STATE_SUPERSEDED"]],
    [
      "no token",
      "GetView",
      { state: latest, viewer: { seat: 0 } },
      ["unauthenticated", "SEAT_TOKEN_MISSING"],
      "",
    ],
  ];
  const results = [];
  for (const [name, method, body, expected, sent = token] of tries) {
    const answer = await page.evaluate(
      async ({ path, body, token, id }) => {
        const headers = { "content-type": "application/json", "x-request-id": id };
        if (token) headers["ordo-seat-token"] = token;
        const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
        const error = await response.json();
        const reasons = (error.details ?? []).map((detail) => atob(detail.value)).join(" ");
        return { status: response.status, code: error.code ?? "", reasons };
      },
      { path: SERVICE + method, body, token: sent, id: `${CHEAT}${results.length}` },
    );
    results.push({ name, expected, ...answer });
  }
  return results;
}
