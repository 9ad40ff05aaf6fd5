// Up or Down?: a turn plays a card from hand into the circle of six, takes one of its neighbours
// into the seat's display (extending a row, starting one, or abandoning one), then draws.
import { drawing, group, rect, svgEl, text } from "../svg.ts";
import { list, num, nums, type DrawContext, type GameUi } from "../ui.ts";
import type { Json } from "../types.ts";

// Every colour also has its own symbol, so colour is never the only cue.
const COLOURS: Record<string, { name: string; fill: string; symbol: string }> = {
  UP_OR_DOWN_COLOUR_YELLOW: { name: "yellow", fill: "#f6d743", symbol: "●" },
  UP_OR_DOWN_COLOUR_BLUE: { name: "blue", fill: "#6fa8ff", symbol: "■" },
  UP_OR_DOWN_COLOUR_RED: { name: "red", fill: "#f17a6f", symbol: "▲" },
  UP_OR_DOWN_COLOUR_GREEN: { name: "green", fill: "#79cf8a", symbol: "◆" },
  UP_OR_DOWN_COLOUR_PURPLE: { name: "purple", fill: "#c59af0", symbol: "★" },
  UP_OR_DOWN_COLOUR_ORANGE: { name: "orange", fill: "#f9a65a", symbol: "✚" },
};
const W = 50;
const H = 70;

function colourOf(view: Json, card: number) {
  const colours = (view.cardColours ?? []) as string[];
  return COLOURS[colours[card - 1] ?? ""] ?? { name: "", fill: "#ddd", symbol: "?" };
}

function cardLabel(view: Json, card: number): string {
  return `${card} ${colourOf(view, card).name}`;
}

function card(
  parent: Element,
  x: number,
  y: number,
  view: Json,
  value: number,
  fresh = false,
  w = W,
  h = H,
): SVGGElement {
  const c = colourOf(view, value);
  const g = group(parent, x, y, `card ${value}, ${c.name}`);
  if (fresh) g.classList.add("fresh");
  rect(g, w, h, c.fill);
  text(g, w / 2, h * 0.42, String(value), {
    "font-size": Math.round(h * 0.32),
    "font-weight": 700,
  });
  text(g, w / 2, h * 0.8, c.symbol, { "font-size": Math.round(h * 0.2) });
  return g;
}

/** The circle card a played card takes: LOWER the next lower, HIGHER the next higher, wrapping. */
export function neighbour(circle: number[], played: number, take: string): number | undefined {
  const sorted = [...circle].sort((a, b) => a - b);
  const lower = sorted.filter((c) => c < played);
  const higher = sorted.filter((c) => c > played);
  if (take.endsWith("LOWER"))
    return lower.length && higher.length ? lower[lower.length - 1] : sorted[sorted.length - 1];
  return lower.length && higher.length ? higher[0] : sorted[0];
}

const PLACE_WORDS: Record<string, string> = {
  EXTEND: "extend row",
  NEW_ROW: "start row",
  ABANDON: "abandon and restart row",
};
const DRAW_WORDS: Record<string, string> = {
  FACE_UP: "draw the face-up card",
  FACE_DOWN: "draw from the face-down pile",
  NONE: "draw nothing (both piles are empty)",
};
const short = (value: unknown, prefix: string): string => String(value ?? "").replace(prefix, "");

export const upOrDown: GameUi = {
  scoreUnit: "points",

  steps(move, view) {
    const played = num(move.card);
    const take = short(move.take, "UP_OR_DOWN_NEIGHBOUR_");
    const taken = neighbour(nums(view.circle), played, take);
    const placement = short(move.placement, "UP_OR_DOWN_PLACEMENT_");
    const row = num(move.row);
    const draw = short(move.draw, "UP_OR_DOWN_DRAW_");
    return [
      { kind: "card", value: String(played), label: `play ${cardLabel(view, played)}` },
      {
        kind: "take",
        value: take,
        label: `take ${taken === undefined ? take.toLowerCase() : cardLabel(view, taken)} (${take.toLowerCase()})`,
      },
      {
        kind: "place",
        value: `${placement}:${row}`,
        label: `${PLACE_WORDS[placement] ?? placement} ${row + 1}`,
      },
      { kind: "draw", value: draw, label: DRAW_WORDS[draw] ?? draw },
    ];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const circle = nums(v.circle);
    const displays = list(v.displays).map((d) => list(d.rows).map((r) => nums(r.cards)));
    const scores = nums(v.scores);
    const discardSizes = nums(v.discardSizes);
    const abandoned = nums(v.abandonedRows);
    const handSizes = nums(v.handSizes);
    const rowH = 3 * 58 + 44;
    const svg = drawing(
      860,
      270 + ctx.seats * rowH,
      "Up or Down? table: the circle, the piles and every display",
    );
    // The circle of six, ascending clockwise from the top.
    const chosenCard = ctx.picker?.steps.find((s) => s.kind === "card");
    const cx = 190;
    const cy = 140;
    svgEl(
      "circle",
      {
        cx,
        cy,
        r: 92,
        fill: "none",
        stroke: "#c9c2b0",
        "stroke-width": 2,
        "stroke-dasharray": "6 5",
      },
      svg,
    );
    text(svg, cx, cy - 8, "circle", { "font-size": 13, fill: "#5d6675" });
    text(svg, cx, cy + 10, "low → high ↻", { "font-size": 11, fill: "#5d6675" });
    const sorted = [...circle].sort((a, b) => a - b);
    sorted.forEach((c, i) => {
      const angle = -Math.PI / 2 + (i * 2 * Math.PI) / Math.max(1, sorted.length);
      const g = card(
        svg,
        cx + 92 * Math.cos(angle) - W / 2,
        cy + 92 * Math.sin(angle) - H / 2,
        v,
        c,
        ctx.fresh.has(`card:${c}`),
      );
      if (chosenCard) {
        for (const take of ["UP_OR_DOWN_NEIGHBOUR_LOWER", "UP_OR_DOWN_NEIGHBOUR_HIGHER"]) {
          const t = short(take, "UP_OR_DOWN_NEIGHBOUR_");
          if (
            neighbour(circle, Number(chosenCard.value), t) === c &&
            ctx.picker?.isOffered("take", t)
          ) {
            ctx.target(g, "take", t, `take ${cardLabel(v, c)} (${t.toLowerCase()} neighbour)`);
          }
        }
      }
    });
    // The piles.
    const down = group(svg, 420, 70, `face-down pile, ${num(v.faceDownSize)} cards`);
    rect(down, W + 10, H + 10, "#3d4f73");
    text(down, (W + 10) / 2, (H + 10) / 2, String(num(v.faceDownSize)), {
      fill: "#fff",
      "font-size": 18,
    });
    text(svg, 420 + (W + 10) / 2, 170, "face down", { "font-size": 12 });
    ctx.target(down, "draw", "FACE_DOWN", "draw from the face-down pile");
    const top = num(v.faceUpTop);
    const up = top
      ? card(svg, 500, 60, v, top, false, W + 10, H + 10)
      : group(svg, 500, 60, "face-up pile, empty");
    if (!top) rect(up, W + 10, H + 10, "#fff", { "stroke-dasharray": "4 4" });
    text(svg, 500 + (W + 10) / 2, 170, `face up (${num(v.faceUpSize)})`, { "font-size": 12 });
    ctx.target(up, "draw", "FACE_UP", `draw the face-up ${top ? cardLabel(v, top) : "card"}`);
    // The key of colours and symbols.
    Object.values(COLOURS).forEach((c, i) => {
      const g = group(svg, 610 + (i % 2) * 120, 60 + Math.floor(i / 2) * 30);
      svgEl("rect", { width: 22, height: 22, rx: 4, fill: c.fill, stroke: "#555" }, g);
      text(g, 11, 11, c.symbol, { "font-size": 12 });
      text(g, 30, 11, c.name, { "text-anchor": "start", "font-size": 12 });
    });
    // Every seat's display.
    for (let s = 0; s < ctx.seats; s++) {
      const y = 285 + s * rowH;
      const mine = s === ctx.viewer;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const head = group(
        svg,
        10,
        y,
        `${ctx.names[s]}: ${scores[s] ?? 0} points, ${handSizes[s] ?? 0} cards in hand, ${discardSizes[s] ?? 0} discarded`,
      );
      rect(head, 840, rowH - 10, mine ? "#e6f0ff" : toAct ? "#fff6d6" : "#fff", { rx: 6 });
      text(head, 12, 16, `${ctx.names[s]}${toAct ? " ◀ to act" : ""}`, {
        "text-anchor": "start",
        "font-size": 14,
        "font-weight": mine ? 700 : 500,
      });
      text(
        head,
        828,
        16,
        `${scores[s] ?? 0} points · ${handSizes[s] ?? 0} in hand · discard ${discardSizes[s] ?? 0} · abandoned ${abandoned[s] ?? 0}`,
        { "text-anchor": "end", "font-size": 12 },
      );
      const rows = displays[s] ?? [];
      for (let r = 0; r < 3; r++) {
        const ry = y + 28 + r * 58;
        const cards = rows[r];
        const rowGroup = group(
          svg,
          20,
          ry,
          cards ? `row ${r + 1}: ${cards.join(", ")}` : `row ${r + 1}: empty`,
        );
        rect(rowGroup, 700, 54, "transparent", {
          stroke: cards ? "#d8d2c0" : "#ece7da",
          "stroke-dasharray": cards ? "" : "4 4",
        });
        text(rowGroup, 30, 27, `Row ${r + 1}`, { "font-size": 11, fill: "#5d6675" });
        const direction =
          cards && cards.length > 1 ? (cards[1]! > cards[0]! ? "↑ up" : "↓ down") : "";
        text(rowGroup, 30, 42, direction, { "font-size": 11 });
        (cards ?? []).forEach((c, i) =>
          card(
            rowGroup,
            60 + i * 36,
            4,
            v,
            c,
            ctx.fresh.has(`card:${c}`) && i === cards!.length - 1,
            34,
            46,
          ),
        );
        if (mine) {
          ctx.target(
            rowGroup,
            "place",
            cards ? `EXTEND:${r}` : `NEW_ROW:${r}`,
            cards ? `extend row ${r + 1}` : `start row ${r + 1}`,
          );
          if (cards) {
            const ab = group(svg, 730, ry + 8);
            rect(ab, 100, 38, "#fff", { rx: 5 });
            text(ab, 50, 19, "✕ abandon", { "font-size": 12 });
            ctx.target(ab, "place", `ABANDON:${r}`, `abandon row ${r + 1} and restart it`);
            if (!ab.classList.contains("target")) ab.setAttribute("visibility", "hidden");
          }
        }
      }
    }
    return svg;
  },

  hand(ctx) {
    if (ctx.viewer === null) return null;
    const hand = nums(ctx.view.hand);
    const svg = drawing(760, H + 20, "your hand");
    hand.forEach((c, i) =>
      ctx.target(
        card(svg, 10 + i * (W + 14), 10, ctx.view, c),
        "card",
        c,
        `play ${cardLabel(ctx.view, c)}`,
      ),
    );
    if (!hand.length) text(svg, 380, 45, "no cards in hand", { fill: "#5d6675" });
    return svg;
  },

  describe(e, names) {
    const seat = (s: unknown): string => names[num(s)] ?? `Seat ${num(s) + 1}`;
    if (e.turnPlayed) {
      const t = e.turnPlayed as Json;
      const placement = short(t.placement, "UP_OR_DOWN_PLACEMENT_");
      const where = `${PLACE_WORDS[placement] ?? placement} ${num(t.row) + 1}${num(t.discarded) ? ` (${num(t.discarded)} cards discarded)` : ""}`;
      const draw = short(t.draw, "UP_OR_DOWN_DRAW_");
      const drew =
        draw === "FACE_UP"
          ? `, draws ${num(t.drawn)} face up`
          : draw === "FACE_DOWN"
            ? ", draws face down"
            : "";
      return `${seat(t.seat)} plays ${num(t.card)}, takes ${num(t.taken)}: ${where}${drew}.`;
    }
    if (e.cardDrawn) {
      const d = e.cardDrawn as Json;
      return `${seat(d.seat)} draws ${num(d.card)}.`;
    }
    if (e.gameScored)
      return `Final scores: ${nums((e.gameScored as Json).scores)
        .map((p, s) => `${names[s]} ${p}`)
        .join(", ")}.`;
    return null;
  },

  fresh(e) {
    if (e.turnPlayed) {
      const t = e.turnPlayed as Json;
      return [`card:${num(t.card)}`, `card:${num(t.taken)}`];
    }
    return [];
  },
};
