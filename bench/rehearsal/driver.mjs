// The rehearsal's TypeScript-client driver: the same callers as bench/rehearsal/driver.py, with
// the Node.js client (clients/node, built by `make node`) over Connect and HTTP/1.1 to the
// balancer's HTTP port, and one caller playing hosted tables watched from every seat (as
// bench/rehearsal/table_play.py). It takes the same orders on standard input (phase, probe,
// epoch, tables, end) and prints the same figures as one JSON line, `report {...}`; its games'
// last revisions go to the file named by `--games` for the audit.
//
// node bench/rehearsal/driver.mjs --target http://HOST:8080 --callers 4 --games FILE

import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

import {
  OrdoClient,
  OrdoError,
  RetryPolicy,
} from "../../clients/node/dist/src/index.js";

const MAX_MOVES = 40;
const PROBE_EVERY = 7;
const ATTEMPT_MS = 10_000;
const GIVE_UP_MS = 90_000;
const SUPERSEDED = "STATE_SUPERSEDED";
const GAMES = ["six_nimmt", "sequence_numbers", "up_or_down", "fora_de_ordem"];
const SEATS = 2;
const CODE_NAMES = {
  1: "CANCELLED",
  2: "UNKNOWN",
  3: "INVALID_ARGUMENT",
  4: "DEADLINE_EXCEEDED",
  5: "NOT_FOUND",
  6: "ALREADY_EXISTS",
  7: "PERMISSION_DENIED",
  8: "RESOURCE_EXHAUSTED",
  9: "FAILED_PRECONDITION",
  10: "ABORTED",
  11: "OUT_OF_RANGE",
  12: "UNIMPLEMENTED",
  13: "INTERNAL",
  14: "UNAVAILABLE",
  15: "DATA_LOSS",
  16: "UNAUTHENTICATED",
};

const { values: options } = parseArgs({
  options: {
    target: { type: "string", default: "http://localhost:8080" },
    callers: { type: "string", default: "4" },
    games: { type: "string", default: "games-node.jsonl" },
  },
});

const policy = new RetryPolicy();
const state = {
  phase: "start",
  stopping: false,
  probeRound: 0,
  epoch: 0,
  hosting: true,
};
const TABLE_CALLERS = 1;
const WATCH_JOIN_MS = 60_000;
// The codes a watch is taken up again after: UNAVAILABLE, CANCELLED, INTERNAL, UNKNOWN, and
// DEADLINE_EXCEEDED (the balancer's timeout of an idle stream).
const WATCH_AGAIN = new Set([14, 1, 13, 2, 4]);
const tablesInPlay = new Set();
const figures = new Map();
const playing = new Map();
const finishedGames = [];

function now() {
  return figures.get(state.phase) ?? newFigures(state.phase);
}

function newFigures(phase) {
  const made = {
    calls: 0,
    failures: {},
    samples: {},
    refused: {},
    retried: 0,
    gave_up: 0,
    moves: 0,
    games: 0,
    probes: 0,
    stale_accepted: 0,
    revision_skips: 0,
    tables: 0,
    table_moves_lost: 0,
    table_moves_twice: 0,
    watchers: 0,
    watchers_missed: 0,
    watch_failures: {},
    latencies_ms: [],
  };
  figures.set(phase, made);
  return made;
}

function reasonOf(error) {
  return error.reason || CODE_NAMES[error.code] || String(error.code);
}

function bump(table, name) {
  table[name] = (table[name] ?? 0) + 1;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Send a call until it goes through or fails for good; a stale probe's refusal is returned. */
async function call(send, stale = false) {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    let failure;
    try {
      const result = await send();
      count(started, attempt, undefined, stale);
      return result;
    } catch (error) {
      failure = OrdoError.from(error);
    }
    if (stale && failure.reason === SUPERSEDED) {
      count(started, attempt, failure, stale);
      return failure;
    }
    bump(now().failures, reasonOf(failure));
    now().samples[reasonOf(failure)] ??= failure.details.slice(0, 200);
    if (
      !policy.retryable(failure) ||
      performance.now() - started > GIVE_UP_MS
    ) {
      count(started, attempt, failure, stale);
      return failure;
    }
    await sleep(policy.pause(attempt, failure));
  }
}

function count(started, attempt, failure, stale) {
  const phase = now();
  phase.calls += 1;
  phase.retried += attempt > 0 ? 1 : 0;
  if (failure === undefined) {
    phase.latencies_ms.push(
      Math.round((performance.now() - started) * 100) / 100,
    );
    phase.stale_accepted += stale ? 1 : 0;
  } else if (!(stale && failure.reason === SUPERSEDED)) {
    bump(phase.refused, reasonOf(failure));
    phase.gave_up += attempt > 0 && policy.retryable(failure) ? 1 : 0;
  }
}

async function probe(client, tokens, previous) {
  const [sent, seat, actions, choice] = previous;
  const others = actions.filter((_, index) => index !== choice);
  if (others.length === 0) {
    return;
  }
  now().probes += 1;
  await call(
    () => client.applyAction(sent, others[0], { seatToken: tokens[seat] }),
    true,
  );
}

async function play(client, game) {
  const dealt = await call(() => client.newGame(game, SEATS));
  if (dealt instanceof OrdoError) {
    return;
  }
  const tokens = dealt.seatTokens;
  let current = dealt.state;
  let status = dealt.status;
  let previous;
  let probed = state.probeRound;
  let moves = 0;
  while (!status.finished && moves < MAX_MOVES && !state.stopping) {
    if (
      previous !== undefined &&
      (moves % PROBE_EVERY === 0 || probed !== state.probeRound)
    ) {
      probed = state.probeRound;
      await probe(client, tokens, previous);
    }
    const seat = status.seatsToAct[0];
    const sent = current;
    const listed = await call(() =>
      client.listLegalActions(sent, seat, { seatToken: tokens[seat] }),
    );
    if (listed instanceof OrdoError) {
      break;
    }
    const actions = listed.actions;
    const choice = Math.floor(Math.random() * actions.length);
    const applied = await call(() =>
      client.applyAction(sent, actions[choice], { seatToken: tokens[seat] }),
    );
    if (applied instanceof OrdoError) {
      break;
    }
    moves += 1;
    now().moves += 1;
    now().revision_skips +=
      applied.state.revision !== sent.revision + 1n ? 1 : 0;
    previous = [sent, seat, actions, choice];
    current = applied.state;
    status = applied.status;
  }
  now().games += 1;
  finishedGames.push({
    phase: state.phase,
    match_id: Buffer.from(current.matchId).toString("hex"),
    revision: Number(current.revision),
  });
}

/** Follow a table from one seat until its game ends (or `signal`), into `seen`. */
async function watch(table, token, seen, signal) {
  const client = new OrdoClient(options.target, {
    protocol: "connect",
    timeoutMs: 30_000,
  });
  try {
    while (!signal.aborted) {
      const after = seen.length ? BigInt(seen[seen.length - 1]) : undefined;
      try {
        for await (const message of client.watchGame(table, {
          seatToken: token,
          afterRevision: after,
          signal,
        })) {
          seen.push(Number(message.revision));
          if (message.status?.finished) {
            return;
          }
        }
        return;
      } catch (error) {
        if (signal.aborted) {
          return;
        }
        const failure = OrdoError.from(error);
        bump(now().watch_failures, reasonOf(failure));
        const causes = [];
        for (
          let cause = error?.cause;
          cause instanceof Error;
          cause = cause.cause
        ) {
          causes.push(`${cause.code ?? ""} ${cause.message}`);
        }
        process.stderr.write(
          `watch cut: ${failure.message} [${causes.join(" | ")}]\n`,
        );
        if (!WATCH_AGAIN.has(failure.code)) {
          return;
        }
        await sleep(200);
      }
    }
  } finally {
    client.close();
  }
}

/** Whether a watcher missed a revision from its first to `final` (its last when undefined). */
function missed(seen, final) {
  if (seen.length === 0) {
    return final !== undefined;
  }
  const unique = [...new Set(seen)].sort((a, b) => a - b);
  const last = final ?? unique[unique.length - 1];
  return (
    unique.length !== last - unique[0] + 1 || unique[unique.length - 1] !== last
  );
}

/** Deal a hosted table, watch it from every seat, play it to its end, check its record. */
async function playTable(client, game) {
  const dealt = await call(() => client.newGame(game, SEATS, { host: true }));
  if (dealt instanceof OrdoError) {
    return;
  }
  const table = dealt.tableId;
  const tokens = dealt.seatTokens;
  const stop = new AbortController();
  const seen = tokens.map(() => []);
  const watchers = tokens.map((token, seat) =>
    watch(table, token, seen[seat], stop.signal),
  );
  let status = dealt.status;
  let revision = 0n;
  let moves = 0;
  while (!status.finished && !state.stopping) {
    const seat = status.seatsToAct[0];
    const listed = await call(() =>
      client.listLegalActions(table, seat, { seatToken: tokens[seat] }),
    );
    if (listed instanceof OrdoError) {
      break;
    }
    const action =
      listed.actions[Math.floor(Math.random() * listed.actions.length)];
    const sentAt = revision;
    const applied = await call(() =>
      client.applyAction(table, action, {
        seatToken: tokens[seat],
        tableRevision: sentAt,
      }),
    );
    if (applied instanceof OrdoError) {
      break;
    }
    moves += 1;
    now().moves += 1;
    now().revision_skips += applied.tableRevision !== sentAt + 1n ? 1 : 0;
    status = applied.status;
    revision = applied.tableRevision;
  }
  if (status.finished) {
    await Promise.race([Promise.all(watchers), sleep(WATCH_JOIN_MS)]);
  }
  stop.abort();
  await Promise.all(watchers);
  const phase = now();
  if (status.finished) {
    const record = await call(() =>
      client.getRecord(table, { seatToken: tokens[0] }),
    );
    if (!(record instanceof OrdoError)) {
      const recorded = record.record.moves.length;
      phase.table_moves_lost += Math.max(moves - recorded, 0);
      phase.table_moves_twice += Math.max(recorded - moves, 0);
    }
  }
  const final = status.finished ? Number(revision) : undefined;
  phase.tables += 1;
  phase.watchers += seen.length;
  phase.watchers_missed += seen.filter((revisions) =>
    missed(revisions, final),
  ).length;
}

async function tableCaller(number) {
  const client = new OrdoClient(options.target, {
    protocol: "connect",
    retries: 0,
    timeoutMs: ATTEMPT_MS,
  });
  const key = -1 - number;
  try {
    while (!state.stopping) {
      if (!state.hosting) {
        await sleep(100);
        continue;
      }
      playing.set(key, state.epoch);
      tablesInPlay.add(number);
      await playTable(client, GAMES[Math.floor(Math.random() * GAMES.length)]);
      tablesInPlay.delete(number);
      playing.delete(key);
    }
  } finally {
    client.close();
  }
}

async function tablesOff() {
  state.hosting = false;
  while (tablesInPlay.size > 0) {
    await sleep(50);
  }
  process.stdout.write("tables off\n");
}

async function caller(number) {
  const client = new OrdoClient(options.target, {
    protocol: "connect",
    retries: 0,
    timeoutMs: ATTEMPT_MS,
  });
  try {
    while (!state.stopping) {
      playing.set(number, state.epoch);
      await play(client, GAMES[Math.floor(Math.random() * GAMES.length)]);
      playing.delete(number);
    }
  } finally {
    client.close();
  }
}

async function drained(epoch) {
  while ([...playing.values()].some((played) => played < epoch)) {
    await sleep(50);
  }
  process.stdout.write(`drained ${epoch}\n`);
}

const callers = Array.from({ length: Number(options.callers) }, (_, number) =>
  caller(number),
);
callers.push(
  ...Array.from({ length: TABLE_CALLERS }, (_, number) => tableCaller(number)),
);
process.stdout.write("started\n");
for await (const line of createInterface({ input: process.stdin })) {
  const [word, argument] = line.trim().split(" ");
  if (word === "phase") {
    state.phase = argument;
  } else if (word === "probe") {
    state.probeRound += 1;
  } else if (word === "epoch") {
    state.epoch = Number(argument);
    await drained(state.epoch);
  } else if (word === "tables") {
    if (argument === "on") {
      state.hosting = true;
    } else {
      await tablesOff();
    }
  } else if (word === "end") {
    break;
  }
}
state.stopping = true;
await Promise.all(callers);
writeFileSync(
  options.games,
  finishedGames.map((game) => JSON.stringify(game) + "\n").join(""),
);
// A pipe is written asynchronously: exit once the report has left.
process.stdout.write(
  `report ${JSON.stringify(Object.fromEntries(figures))}\n`,
  () => process.exit(0),
);
