// Sequence Numbers: a 10×10 board of numbers; an equation card puts the team's chip on a cell
// showing its result, PLUS on any free cell, MINUS removes another team's chip. Five chips in a
// line make a sequence.
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
const CELL = 54;
const AXIS = 18; // the margin of the rows' and columns' numbers, left of and above the board
const CW = 84;
const CH = 104;

/** How a card reads: "12 + 7 = 19" ("12 + 7" with its result hidden), "PLUS", "MINUS". */
export function cardText(card: Json | undefined, results = true): string {
  return card ? sequenceNumbersCardText(card, results) : "a card";
}

/** A cell with its number, "26 at r3c7", or the free corner; the cell alone without results. */
function cellName(cell: number, numbers: number[], results = true): string {
  const n = numbers[cell] ?? 0;
  if (!n) return `the free corner ${cellText(cell)}`;
  return results ? `${n} at ${cellText(cell)}` : cellText(cell);
}

function drawCard(
  parent: Element,
  x: number,
  y: number,
  card: Json,
  results: boolean,
): SVGGElement {
  const g = group(parent, x, y, cardText(card, results));
  const kind = String(card.kind ?? "");
  const special = kind.endsWith("PLUS") ? "+" : kind.endsWith("MINUS") ? "−" : "";
  rect(g, CW, CH, special === "+" ? "#e3f6e8" : special ? "#fde5e3" : "#fff");
  if (special) {
    text(g, CW / 2, 44, special, { "font-size": 46, "font-weight": 700 });
    text(g, CW / 2, 84, special === "+" ? "any cell" : "remove", { "font-size": 12 });
  } else {
    text(g, CW / 2, 28, cardText(card, false), { "font-size": 18 });
    svgEl("line", { x1: 14, x2: CW - 14, y1: 46, y2: 46, stroke: "#888" }, g);
    text(g, CW / 2, 72, results ? String(num(card.result)) : "?", {
      "font-size": 30,
      "font-weight": 700,
    });
  }
  return g;
}

export const sequenceNumbers: GameUi = {
  scoreUnit: "sequences completed",

  hidesResults: true,

  steps(move, view, results = true) {
    const hand = list(view.hand);
    const numbers = nums(view.numbers);
    const cardStep = (id: unknown) => {
      const c = hand.find((h) => num(h.id) === num(id));
      return { kind: "card", value: String(num(id)), label: `card ${cardText(c, results)}` };
    };
    if (move.exchangeDeadCard !== undefined)
      return [
        cardStep(move.exchangeDeadCard),
        { kind: "exchange", value: "dead", label: "exchange this dead card" },
      ];
    if (move.discard !== undefined)
      return [
        cardStep(move.discard),
        { kind: "discard", value: "card", label: "discard it (no playable card)" },
      ];
    const play = (move.play ?? {}) as Json;
    const cell = num(play.cell);
    const card = hand.find((h) => num(h.id) === num(play.card));
    const verb =
      card?.kind === "SEQUENCE_NUMBERS_CARD_KIND_MINUS" ? "remove the chip on" : "place a chip on";
    return [
      cardStep(play.card),
      {
        kind: "cell",
        value: String(cell),
        label: `${verb} ${cellName(cell, numbers, results)}`,
      },
    ];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const numbers = nums(v.numbers);
    const chips = nums(v.chips);
    const teams = num((v.options as Json | undefined)?.teams) || 2;
    const sequences = list(v.sequences);
    const inSequence = new Set(sequences.flatMap((s) => nums(s.cells)));
    const width = ctx.width;
    const cellSize = Math.min(CELL, Math.floor((width - 12 - AXIS) / BOARD_SIZE));
    const side = BOARD_SIZE * cellSize + 12 + AXIS;
    const left = (width - side) / 2 + 6 + AXIS;
    const boardTop = 6 + AXIS;
    const columns = width >= 560 ? 2 : 1;
    const seatW = (width - 12 - (columns - 1) * 10) / columns;
    const svg = drawing(
      width,
      side + 40 + Math.ceil(ctx.seats / columns) * 62,
      "Sequence Numbers board and seats",
    );
    const scale = cellSize / CELL;
    // Rows and columns are numbered from 1, as a cell is named: r3c7 is row 3, column 7.
    for (let i = 0; i < BOARD_SIZE; i++) {
      const axis = { "font-size": 12, fill: "#5d6675", "aria-hidden": "true" };
      text(
        svg,
        left + i * cellSize + cellSize / 2 - 1,
        boardTop - AXIS / 2 - 1,
        numberText(i),
        axis,
      );
      text(
        svg,
        left - AXIS / 2 - 2,
        boardTop + i * cellSize + cellSize / 2 - 1,
        numberText(i),
        axis,
      );
    }
    for (let cell = 0; cell < BOARD_SIZE * BOARD_SIZE; cell++) {
      const x = left + (cell % BOARD_SIZE) * cellSize;
      const y = boardTop + Math.floor(cell / BOARD_SIZE) * cellSize;
      const n = numbers[cell] ?? 0;
      const team = chips[cell] ?? -1;
      const label = `${cellName(cell, numbers)}${team >= 0 ? `, chip of ${teamText(team)}` : ""}${inSequence.has(cell) ? ", in a sequence" : ""}`;
      const g = group(svg, x, y, label);
      rect(g, cellSize - 2, cellSize - 2, n ? "#fffdf6" : "#efe6cf", { rx: 3 });
      text(g, cellSize / 2 - 1, 10 * scale + 2, n ? String(n) : "★", {
        "font-size": 14,
        fill: "#3d4656",
      });
      if (team >= 0) {
        const chip = svgEl("g", {}, g);
        if (ctx.fresh.has(`cell:${cell}`)) chip.classList.add("fresh");
        svgEl(
          "circle",
          {
            cx: cellSize / 2 - 1,
            cy: 32 * scale,
            r: 15 * scale,
            fill: TEAM_FILLS[team] ?? "#555",
            stroke: inSequence.has(cell) ? "#111" : "#fff",
            "stroke-width": inSequence.has(cell) ? 4 : 2,
          },
          chip,
        );
        text(chip, cellSize / 2 - 1, 32 * scale, teamLetter(team), {
          "font-size": 14,
          "font-weight": 700,
          fill: "#fff",
        });
      }
      ctx.target(g, "cell", cell, label);
    }
    for (const s of sequences) {
      const cells = nums(s.cells);
      const at = (c: number) => [
        left + (c % BOARD_SIZE) * cellSize + cellSize / 2 - 1,
        boardTop + Math.floor(c / BOARD_SIZE) * cellSize + 32 * scale,
      ];
      const [x1, y1] = at(cells[0]!);
      const [x2, y2] = at(cells[cells.length - 1]!);
      svgEl(
        "line",
        {
          x1: x1!,
          y1: y1!,
          x2: x2!,
          y2: y2!,
          stroke: "#111",
          "stroke-width": 5,
          "stroke-linecap": "round",
          opacity: 0.55,
          "aria-hidden": "true",
        },
        svg,
      );
    }
    text(svg, width * 0.25, side + 12, `Deck: ${num(v.deckSize)} cards`, { "font-size": 14 });
    const perTeam = new Array(teams).fill(0) as number[];
    for (const s of sequences) perTeam[num(s.team)] = (perTeam[num(s.team)] ?? 0) + 1;
    text(svg, width * 0.7, side + 12, `Sequences to win: ${num(v.sequencesToWin)}`, {
      "font-size": 14,
    });
    const handSizes = nums(v.handSizes);
    const discards = list(v.discards);
    for (let s = 0; s < ctx.seats; s++) {
      const team = s % teams;
      const y = side + 32 + Math.floor(s / columns) * 62;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const top = (discards[s]?.top ?? undefined) as Json | undefined;
      const g = group(
        svg,
        6 + (s % columns) * (seatW + 10),
        y,
        `${ctx.names[s]}, ${teamText(team)} with ${perTeam[team]} sequences, ${handSizes[s] ?? 0} cards${toAct ? ", to act" : ""}`,
      );
      rect(g, seatW, 56, toAct ? "#fff6d6" : "#fff", { rx: 5 });
      svgEl("circle", { cx: 18, cy: 18, r: 11, fill: TEAM_FILLS[team] ?? "#555" }, g);
      text(g, 18, 18, teamLetter(team), {
        fill: "#fff",
        "font-size": 12,
        "font-weight": 700,
      });
      text(g, 36, 18, `${ctx.names[s]}${toAct ? " ◀" : ""}`, {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": s === ctx.viewer ? 700 : 400,
      });
      text(
        g,
        36,
        40,
        `${perTeam[team]} seq · ${handSizes[s] ?? 0} cards · last: ${top ? cardText(top, ctx.results) : "—"}`,
        { "text-anchor": "start", "font-size": 12 },
      );
    }
    return svg;
  },

  hand(ctx) {
    if (ctx.viewer === null) return null;
    const hand = list(ctx.view.hand);
    const across = fit(ctx.width - 16, CW, 10);
    const lines = Math.max(1, Math.ceil(hand.length / across));
    const svg = drawing(ctx.width, lines * (CH + 10) + 12, "your hand");
    hand.forEach((c, i) => {
      const x = 10 + (i % across) * (CW + 10);
      const g = drawCard(svg, x, 8 + Math.floor(i / across) * (CH + 10), c, ctx.results);
      ctx.target(g, "card", num(c.id), `card ${cardText(c, ctx.results)}`);
    });
    return svg;
  },

  describe(e, names, _viewer, results = true) {
    const seat = (s: unknown): string => names[num(s)] ?? capital(seatText(num(s)));
    if (e.chipPlaced) {
      const c = e.chipPlaced as Json;
      const where = results
        ? `${num(c.number)} at ${cellText(num(c.cell))}`
        : cellText(num(c.cell));
      return `${seat(c.seat)} plays ${cardText(c.card as Json, results)}: a chip of ${teamText(num(c.team))} on ${where}.`;
    }
    if (e.chipRemoved) {
      const c = e.chipRemoved as Json;
      return `${seat(c.seat)} plays MINUS: ${teamText(num(c.team))}'s chip leaves ${cellText(num(c.cell))}.`;
    }
    if (e.deadCardExchanged) {
      const d = e.deadCardExchanged as Json;
      return `${seat(d.seat)} exchanges the dead card ${cardText(d.card as Json, results)}.`;
    }
    if (e.cardDrawn) {
      const d = e.cardDrawn as Json;
      return d.card ? `${seat(d.seat)} draws ${cardText(d.card as Json, results)}.` : null;
    }
    if (e.cardDiscarded) {
      const d = e.cardDiscarded as Json;
      return `${seat(d.seat)} has no playable card and discards ${cardText(d.card as Json, results)}.`;
    }
    if (e.sequenceCompleted)
      return `${capital(teamText(num((e.sequenceCompleted as Json).team)))} completes a sequence!`;
    if (e.deckReshuffled)
      return `The discard piles are shuffled into a new deck of ${num((e.deckReshuffled as Json).size)} cards.`;
    if (e.teamWon) return `${capital(teamText(num((e.teamWon as Json).team)))} wins.`;
    if (e.turnLimitReached) return `The turn limit is reached: a draw.`;
    return null;
  },

  fresh(e) {
    if (e.chipPlaced) return [`cell:${num((e.chipPlaced as Json).cell)}`];
    return [];
  },
};
