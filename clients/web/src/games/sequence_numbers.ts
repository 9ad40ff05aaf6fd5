// Sequence Numbers: a 10×10 board of numbers; an equation card puts the team's chip on a cell
// showing its result, PLUS on any free cell, MINUS removes another team's chip. Five chips in a
// line make a sequence.
import { t } from "../i18n.ts";
import {
  BOARD_SIZE,
  capital,
  numberText,
  seatText,
  sequenceNumbersCardText,
  sequenceNumbersCellText as cellText,
  teamLetter,
  teamText,
} from "../notation.ts";
import { drawing, fit, group, rect, svgEl, text } from "../svg.ts";
import { list, num, nums, type DrawContext, type GameUi } from "../ui.ts";
import type { Json } from "../types.ts";

const TEAM_FILLS = ["#2f6fdf", "#d4453a", "#2e9b57"]; // teams A, B and C
const TEAM_TINTS = ["#dbe7fb", "#f8dcd9", "#d8efe0"]; // the cells of a team's sequences
const CELL = 54;
const AXIS = 18; // the margin of the rows' and columns' numbers, left of and above the board
const CW = 84;
const CH = 104;
const NUMBER_ROOM = 15; // the top of a cell, where its number is written
const WHOLE_CELL_CHIP = 44; // a cell smaller than this shows its chip as the whole cell
const SEAT_W = 250; // a seat's box right of the board
const NARROW_HAND = 420; // a hand narrower than this has smaller cards
const BESIDE_WIDTH = 640; // the narrowest drawing with the seats right of the board

const m = () => t().sequenceNumbers;
const isMinus = (card: Json | undefined): boolean =>
  card?.kind === "SEQUENCE_NUMBERS_CARD_KIND_MINUS";

/** How a card reads: "12 + 7 = 19" ("12 + 7" with its result hidden), "PLUS", "MINUS". */
export function cardText(card: Json | undefined, results = true): string {
  return card ? sequenceNumbersCardText(card, results) : m().aCard;
}

/** A cell with its number, "26 at r3c7", or the free corner; the cell alone without results. */
function cellName(cell: number, numbers: number[], results = true): string {
  const n = numbers[cell] ?? 0;
  if (!n) return m().freeCorner(cellText(cell));
  return results ? m().numberAt(n, cellText(cell)) : cellText(cell);
}

const fiveText = (cells: number[]): string => cells.map(cellText).join(" ");

/** A card's size: smaller in a narrow hand, so that five fit across a phone. */
const cardSize = (width: number) => (width < NARROW_HAND ? { w: 62, h: 78 } : { w: CW, h: CH });

function drawCard(
  parent: Element,
  x: number,
  y: number,
  card: Json,
  results: boolean,
  w = CW,
  h = CH,
): SVGGElement {
  const g = group(parent, x, y, cardText(card, results));
  const kind = String(card.kind ?? "");
  const special = kind.endsWith("PLUS") ? "+" : kind.endsWith("MINUS") ? "−" : "";
  const k = h / CH; // the card's scale
  rect(g, w, h, special === "+" ? "#e3f6e8" : special ? "#fde5e3" : "#fff");
  if (special) {
    text(g, w / 2, 44 * k, special, { "font-size": Math.round(46 * k), "font-weight": 700 });
    text(g, w / 2, 84 * k, special === "+" ? m().anyCell : m().removeWord, { "font-size": 12 });
  } else {
    text(g, w / 2, 26 * k, cardText(card, false), { "font-size": Math.round(18 * k) });
    svgEl("line", { x1: 10, x2: w - 10, y1: 46 * k, y2: 46 * k, stroke: "#888" }, g);
    text(g, w / 2, 72 * k, results ? String(num(card.result)) : "?", {
      "font-size": Math.round(30 * k),
      "font-weight": 700,
    });
  }
  return g;
}

/** The team of each seat: seats take turns by team (seat s plays for team s mod teams). */
const teamOf = (seat: number, teams: number): number => seat % teams;

export const sequenceNumbers: GameUi = {
  unit: () => m().unit,

  prompt(kind, view, chosen) {
    const card = list(view.hand).find((c) => num(c.id) === Number(chosen[0]?.value));
    if (kind === "cell" && isMinus(card)) return m().prompts.removal ?? "";
    return m().prompts[kind] ?? "";
  },

  hidesResults: true,

  // Only six seats choose between 2 and 3 teams; the other counts have one way to sit.
  applies: (name, _chosen, seats) => name !== "teams" || seats === 6,

  steps(move, view, results = true) {
    const hand = list(view.hand);
    const numbers = nums(view.numbers);
    const cardStep = (id: unknown) => {
      const c = hand.find((h) => num(h.id) === num(id));
      return { kind: "card", value: String(num(id)), label: m().card(cardText(c, results)) };
    };
    if (move.chooseSequence !== undefined) {
      const cells = nums((move.chooseSequence as Json).cells);
      return [{ kind: "five", value: cells.join("-"), label: m().lock(fiveText(cells)) }];
    }
    if (move.exchangeDeadCard !== undefined)
      return [
        cardStep(move.exchangeDeadCard),
        { kind: "exchange", value: "dead", label: m().exchange },
      ];
    if (move.discard !== undefined)
      return [cardStep(move.discard), { kind: "discard", value: "card", label: m().discard }];
    const play = (move.play ?? {}) as Json;
    const cell = num(play.cell);
    const card = hand.find((h) => num(h.id) === num(play.card));
    const where = cellName(cell, numbers, results);
    return [
      cardStep(play.card),
      {
        kind: "cell",
        value: String(cell),
        label: isMinus(card) ? m().remove(where) : m().place(where),
      },
    ];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const numbers = nums(v.numbers);
    const chips = nums(v.chips);
    const teams = num((v.options as Json | undefined)?.teams) || 2;
    const sequences = list(v.sequences);
    const tinted = new Map<number, number>(); // cell → the team of a sequence through it
    for (const s of sequences) for (const c of nums(s.cells)) tinted.set(c, num(s.team));
    const choices = list(((v.sequenceChoice ?? {}) as Json).choices).map((c) => nums(c.cells));
    const width = ctx.width;
    // Wide: the seats in a column right of the board; else under it, in two columns or one.
    const beside = width >= BESIDE_WIDTH;
    const boardW = beside ? width - SEAT_W - 10 : width;
    const cellSize = Math.min(CELL, Math.floor((boardW - 12 - AXIS) / BOARD_SIZE));
    const side = BOARD_SIZE * cellSize + 12 + AXIS;
    const left = (boardW - side) / 2 + 6 + AXIS;
    const boardTop = 6 + AXIS;
    const columns = beside ? 1 : width >= 560 ? 2 : 1;
    const seatW = beside ? SEAT_W : (width - 12 - (columns - 1) * 10) / columns;
    const seatX = (s: number) => (beside ? boardW : 6 + (s % columns) * (seatW + 10));
    const seatH = beside || columns > 1 ? 62 : 48;
    const seatY = (s: number) => (beside ? 8 : side + 32) + Math.floor(s / columns) * seatH;
    const seatsH = Math.ceil(ctx.seats / columns) * seatH;
    const height = beside ? Math.max(side + 26, seatsH + 10) : side + 40 + seatsH;
    const svg = drawing(width, height, m().board);
    // A chip sits under the cell's number, as large as the room left allows.
    const radius = Math.min(15, (cellSize - 4 - NUMBER_ROOM) / 2);
    const chipY = cellSize - 3 - radius;
    // Rows and columns are numbered from 1, as a cell is named: r3c7 is row 3, column 7.
    for (let i = 0; i < BOARD_SIZE; i++) {
      const axis = { "font-size": 12, fill: "#5d6675", "aria-hidden": "true" };
      const at = i * cellSize + cellSize / 2 - 1;
      text(svg, left + at, boardTop - AXIS / 2 - 1, numberText(i), axis);
      text(svg, left - AXIS / 2 - 2, boardTop + at, numberText(i), axis);
    }
    for (let cell = 0; cell < BOARD_SIZE * BOARD_SIZE; cell++) {
      const x = left + (cell % BOARD_SIZE) * cellSize;
      const y = boardTop + Math.floor(cell / BOARD_SIZE) * cellSize;
      const n = numbers[cell] ?? 0;
      const team = chips[cell] ?? -1;
      const line = tinted.get(cell);
      const label = [
        cellName(cell, numbers),
        ...(team >= 0 ? [m().chipOf(teamText(team))] : []),
        ...(line !== undefined ? [m().inSequence] : []),
      ].join(", ");
      const g = group(svg, x, y, label);
      // A small cell has no room for a chip beside its number: its chip is the whole cell, in
      // the team's colour, the number and the team's letter on it.
      const whole = team >= 0 && cellSize < WHOLE_CELL_CHIP;
      const fill = whole
        ? TEAM_FILLS[team]
        : line !== undefined
          ? TEAM_TINTS[line]
          : n
            ? "#fffdf6"
            : "#efe6cf";
      const face = rect(g, cellSize - 2, cellSize - 2, fill ?? "#fffdf6", { rx: 3 });
      if (whole && line !== undefined) face.setAttribute("stroke-width", "3");
      const ink = whole ? "#fff" : "#3d4656";
      // In a small cell the number is smaller and the letter at the foot, clear of each other.
      const size = whole ? 12 : 14;
      text(g, cellSize / 2 - 1, whole ? 7 : 8, n ? String(n) : "★", {
        "font-size": size,
        fill: ink,
      });
      if (whole) {
        text(g, cellSize / 2 - 1, cellSize - 8, teamLetter(team), {
          "font-size": 12,
          "font-weight": 700,
          fill: ink,
        });
        if (ctx.fresh.has(`cell:${cell}`)) g.classList.add("fresh");
      } else if (team >= 0) {
        const chip = svgEl("g", {}, g);
        if (ctx.fresh.has(`cell:${cell}`)) chip.classList.add("fresh");
        svgEl(
          "circle",
          {
            cx: cellSize / 2 - 1,
            cy: chipY,
            r: radius,
            fill: TEAM_FILLS[team] ?? "#555",
            stroke: line !== undefined ? "#111" : "#fff",
            "stroke-width": line !== undefined ? 3 : 2,
          },
          chip,
        );
        text(chip, cellSize / 2 - 1, chipY, teamLetter(team), {
          "font-size": 12,
          "font-weight": 700,
          fill: "#fff",
        });
      }
      ctx.target(g, "cell", cell, label);
    }
    // A chip that completes two fives: each five it may lock, outlined.
    for (const five of choices) {
      const [first, last] = [five[0] ?? 0, five[five.length - 1] ?? 0];
      const at = (c: number) => [
        left + (c % BOARD_SIZE) * cellSize + cellSize / 2 - 1,
        boardTop + Math.floor(c / BOARD_SIZE) * cellSize + chipY,
      ];
      const [x1, y1] = at(first);
      const [x2, y2] = at(last);
      svgEl(
        "line",
        {
          x1: x1!,
          y1: y1!,
          x2: x2!,
          y2: y2!,
          stroke: "#f2a900",
          "stroke-width": 4,
          "stroke-dasharray": "6 5",
          "stroke-linecap": "round",
          "aria-hidden": "true",
        },
        svg,
      );
    }
    // Under the board: the card being played, while a move is built, else the deck and the goal.
    const chosen = ctx.picker?.steps[0];
    const playing = list(v.hand).find((c) => chosen && num(c.id) === Number(chosen.value));
    if (playing) {
      const line = `${m().playing}: ${cardText(playing, ctx.results)}`;
      const g = group(svg, boardW / 2 - 110, side - 2, line);
      g.classList.add("playing");
      rect(g, 220, 28, "#fff6d6", { rx: 6, stroke: "#9a6700" });
      text(g, 110, 14, line, { "font-size": 14, "font-weight": 700 });
    } else {
      text(svg, boardW * 0.25, side + 12, m().deck(num(v.deckSize)), { "font-size": 14 });
      text(svg, boardW * 0.7, side + 12, m().toWin(num(v.sequencesToWin)), { "font-size": 14 });
    }
    const perTeam = new Array(teams).fill(0) as number[];
    for (const s of sequences) perTeam[num(s.team)] = (perTeam[num(s.team)] ?? 0) + 1;
    const handSizes = nums(v.handSizes);
    const discards = list(v.discards);
    for (let s = 0; s < ctx.seats; s++) {
      const team = teamOf(s, teams);
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const top = (discards[s]?.top ?? undefined) as Json | undefined;
      const g = group(
        svg,
        seatX(s),
        seatY(s),
        m().seatLabel(
          ctx.names[s] ?? "",
          teamText(team),
          t().count.sequences(perTeam[team] ?? 0),
          t().count.cards(handSizes[s] ?? 0),
          toAct,
        ),
      );
      rect(g, seatW, seatH - 6, toAct ? "#fff6d6" : "#fff", { rx: 5 });
      const line = seatH > 50 ? 18 : 13;
      svgEl("circle", { cx: 18, cy: line, r: 10, fill: TEAM_FILLS[team] ?? "#555" }, g);
      text(g, 18, line, teamLetter(team), { fill: "#fff", "font-size": 12, "font-weight": 700 });
      text(g, 36, line, `${ctx.names[s]}${toAct ? " ◀" : ""}`, {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": s === ctx.viewer ? 700 : 400,
      });
      const last = top ? cardText(top, ctx.results) : "—";
      text(
        g,
        36,
        seatH > 50 ? 40 : 30,
        m().seatStats(perTeam[team] ?? 0, handSizes[s] ?? 0, last),
        {
          "text-anchor": "start",
          "font-size": 12,
        },
      );
    }
    return svg;
  },

  hand(ctx) {
    if (ctx.viewer === null) return null;
    const hand = list(ctx.view.hand);
    const { w, h } = cardSize(ctx.width);
    const gap = ctx.width < NARROW_HAND ? 6 : 10;
    const across = fit(ctx.width - 16, w, gap);
    const lines = Math.max(1, Math.ceil(hand.length / across));
    const svg = drawing(ctx.width, lines * (h + gap) + 12, t().page.yourHand);
    hand.forEach((c, i) => {
      const x = 8 + (i % across) * (w + gap);
      const g = drawCard(svg, x, 8 + Math.floor(i / across) * (h + gap), c, ctx.results, w, h);
      ctx.target(g, "card", num(c.id), m().card(cardText(c, ctx.results)));
    });
    return svg;
  },

  describe(e, names, _viewer, results = true) {
    const seat = (s: unknown): string => names[num(s)] ?? capital(seatText(num(s)));
    const card = (c: unknown): string => cardText(c as Json, results);
    if (e.chipPlaced) {
      const c = e.chipPlaced as Json;
      const where = results
        ? m().numberAt(num(c.number), cellText(num(c.cell)))
        : cellText(num(c.cell));
      return m().chipPlaced(seat(c.seat), card(c.card), teamText(num(c.team)), where);
    }
    if (e.chipRemoved) {
      const c = e.chipRemoved as Json;
      return m().chipRemoved(seat(c.seat), teamText(num(c.team)), cellText(num(c.cell)));
    }
    if (e.deadCardExchanged) {
      const d = e.deadCardExchanged as Json;
      return m().exchanged(seat(d.seat), card(d.card));
    }
    if (e.cardDrawn) {
      const d = e.cardDrawn as Json;
      return d.card ? m().drew(seat(d.seat), card(d.card)) : null;
    }
    if (e.cardDiscarded) {
      const d = e.cardDiscarded as Json;
      return m().discarded(seat(d.seat), card(d.card));
    }
    if (e.sequenceCompleted) {
      const s = e.sequenceCompleted as Json;
      return m().completed(capital(teamText(num(s.team))), fiveText(nums(s.cells)));
    }
    if (e.deckReshuffled) return m().reshuffled(num((e.deckReshuffled as Json).size));
    if (e.teamWon) {
      const won = e.teamWon as Json;
      return m().teamWon(capital(teamText(num(won.team))), nums(won.seats).map(seat));
    }
    if (e.turnLimitReached) return m().turnLimit;
    return null;
  },

  fresh(e) {
    if (e.chipPlaced) return [`cell:${num((e.chipPlaced as Json).cell)}`];
    return [];
  },

  outcome({ view, status, names }) {
    const teams = num((view.options as Json | undefined)?.teams) || teamCount(names.length);
    const sequences = list(view.sequences);
    const ofTeam = (team: number) =>
      sequences.filter((s) => num(s.team) === team).map((s) => fiveText(nums(s.cells)));
    const details = names.map((_, seat) => {
      const team = teamOf(seat, teams);
      return m().teamSequences(capital(teamText(team)), ofTeam(team));
    });
    const winners = status.outcome?.winners ?? [];
    if (!winners.length) return { why: m().endTurnLimit(num(view.turn)), details };
    const team = teamOf(winners[0]!, teams);
    const members = winners.map((s) => names[s] ?? "");
    return {
      why: m().endSequences(capital(teamText(team)), ofTeam(team).length),
      details,
      winners: [`${capital(teamText(team))} (${t().listed(members)})`],
    };
  },
};

/** The teams of a game of `seats` when its options leave them to the usual: 4 and 6 seats play
 * as 2 teams, 2 and 3 seats one a seat. */
function teamCount(seats: number): number {
  return seats === 4 || seats === 6 ? 2 : seats;
}
