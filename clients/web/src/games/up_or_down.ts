// Up or Down?: a turn plays a card from hand into the circle of six, takes one of its neighbours
// into the seat's display (extending a row, starting one, or abandoning one), then draws.
import { capital, rowText, seatText } from "../notation.ts";
import { drawing, fit, group, rect, svgEl, text } from "../svg.ts";
import { count, list, num, nums, type DrawContext, type GameUi } from "../ui.ts";
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
  EXTEND: "extend",
  NEW_ROW: "start",
  ABANDON: "abandon and restart",
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
        label: `${PLACE_WORDS[placement] ?? placement} ${rowText(row)}`,
      },
      { kind: "draw", value: draw, label: DRAW_WORDS[draw] ?? draw },
    ];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const width = ctx.width;
    const narrow = width < 560;
    const circle = nums(v.circle);
    const displays = list(v.displays).map((d) => list(d.rows).map((r) => nums(r.cards)));
    const scores = nums(v.scores);
    const discardSizes = nums(v.discardSizes);
    const abandoned = nums(v.abandonedRows);
    const handSizes = nums(v.handSizes);
    // The circle, then the piles beside it and the key of colours below (beside, when wide).
    const cw = narrow ? 42 : W;
    const ch = narrow ? 58 : H;
    const radius = narrow ? 76 : 92;
    const cx = radius + cw / 2 + 6;
    const cy = radius + ch / 2 + 6;
    const topH = 2 * cy + (narrow ? 90 : 0);
    const rowH = 50;
    const headH = narrow ? 40 : 26;
    const displayH = (s: number) =>
      headH + 2 + (s === ctx.viewer ? 3 : Math.max(1, (displays[s] ?? []).length)) * rowH + 8;
    // The viewer's own display comes first, under the circle and the piles it plays with.
    const order = [...Array(ctx.seats).keys()].sort(
      (a, b) => Number(b === ctx.viewer) - Number(a === ctx.viewer),
    );
    const height = topH + 10 + order.reduce((sum, s) => sum + displayH(s) + 8, 0);
    const svg = drawing(
      width,
      height,
      "Up or Down? table: the circle, the piles and every display",
    );
    const chosenCard = ctx.picker?.steps.find((s) => s.kind === "card");
    svgEl(
      "circle",
      {
        cx,
        cy,
        r: radius,
        fill: "none",
        stroke: "#c9c2b0",
        "stroke-width": 2,
        "stroke-dasharray": "6 5",
      },
      svg,
    );
    text(svg, cx, cy - 8, "circle", { "font-size": 13, fill: "#5d6675" });
    text(svg, cx, cy + 10, "low → high ↻", { "font-size": 12, fill: "#5d6675" });
    const sorted = [...circle].sort((a, b) => a - b);
    sorted.forEach((c, i) => {
      const angle = -Math.PI / 2 + (i * 2 * Math.PI) / Math.max(1, sorted.length);
      const g = card(
        svg,
        cx + radius * Math.cos(angle) - cw / 2,
        cy + radius * Math.sin(angle) - ch / 2,
        v,
        c,
        ctx.fresh.has(`card:${c}`),
        cw,
        ch,
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
    const px = 2 * cx + (narrow ? 4 : 40);
    const pw = narrow ? 50 : W + 10;
    const ph = narrow ? 70 : H + 10;
    const py = cy - ph / 2 - 10;
    const down = group(svg, px, py, `face-down pile, ${num(v.faceDownSize)} cards`);
    rect(down, pw, ph, "#3d4f73");
    text(down, pw / 2, ph / 2, String(num(v.faceDownSize)), { fill: "#fff", "font-size": 18 });
    text(svg, px + pw / 2, py + ph + 12, narrow ? "down" : "face down", { "font-size": 12 });
    ctx.target(down, "draw", "FACE_DOWN", "draw from the face-down pile");
    const top = num(v.faceUpTop);
    const ux = px + pw + (narrow ? 8 : 20);
    const up = top
      ? card(svg, ux, py, v, top, false, pw, ph)
      : group(svg, ux, py, "face-up pile, empty");
    if (!top) rect(up, pw, ph, "#fff", { "stroke-dasharray": "4 4" });
    text(svg, ux + pw / 2, py + ph + 12, `${narrow ? "up" : "face up"} (${num(v.faceUpSize)})`, {
      "font-size": 12,
    });
    ctx.target(up, "draw", "FACE_UP", `draw the face-up ${top ? cardLabel(v, top) : "card"}`);
    // The key of colours and symbols.
    const keyX = narrow ? 6 : ux + pw + 40;
    const keyY = narrow ? 2 * cy + 6 : 30;
    const columns = narrow ? 3 : 2;
    const keyW = narrow ? (width - 12) / 3 : 110;
    Object.values(COLOURS).forEach((c, i) => {
      const g = group(svg, keyX + (i % columns) * keyW, keyY + Math.floor(i / columns) * 28);
      svgEl("rect", { width: 22, height: 22, rx: 4, fill: c.fill, stroke: "#555" }, g);
      text(g, 11, 11, c.symbol, { "font-size": 12 });
      text(g, 30, 11, c.name, { "text-anchor": "start", "font-size": 12 });
    });
    // Every seat's display, the viewer's first; another seat's shows only the rows it has.
    let y = topH + 10;
    for (const s of order) {
      const mine = s === ctx.viewer;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const rows = displays[s] ?? [];
      const boxH = displayH(s);
      const head = group(
        svg,
        4,
        y,
        `${ctx.names[s]}: ${scores[s] ?? 0} points, ${handSizes[s] ?? 0} cards in hand, ${discardSizes[s] ?? 0} discarded`,
      );
      rect(head, width - 8, boxH, mine ? "#e6f0ff" : toAct ? "#fff6d6" : "#fff", { rx: 6 });
      text(head, 10, 14, `${ctx.names[s]}${toAct ? " ◀ to act" : ""}`, {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": mine ? 700 : 500,
      });
      text(
        head,
        narrow ? 10 : width - 18,
        narrow ? 32 : 14,
        narrow
          ? `${scores[s] ?? 0} pts · ${handSizes[s] ?? 0} in hand · discard ${discardSizes[s] ?? 0}`
          : `${scores[s] ?? 0} points · ${handSizes[s] ?? 0} in hand · discard ${discardSizes[s] ?? 0} · abandoned ${abandoned[s] ?? 0}`,
        { "text-anchor": narrow ? "start" : "end", "font-size": 12 },
      );
      const shownRows = mine ? 3 : Math.max(1, rows.length);
      const abandonW = mine ? (narrow ? 78 : 100) : 0;
      const rowW = width - 24 - abandonW;
      for (let r = 0; r < shownRows; r++) {
        const ry = y + headH + r * rowH;
        const cards = rows[r];
        const rowGroup = group(svg, 12, ry, `${rowText(r)}: ${cards ? cards.join(", ") : "empty"}`);
        rect(rowGroup, rowW, rowH - 4, "transparent", {
          stroke: cards ? "#d8d2c0" : "#ece7da",
          "stroke-dasharray": cards ? "" : "4 4",
        });
        if (!cards && !mine) {
          text(rowGroup, 10, (rowH - 4) / 2, "no rows yet", {
            "text-anchor": "start",
            "font-size": 12,
            fill: "#5d6675",
          });
          continue;
        }
        text(rowGroup, 24, 14, capital(rowText(r)), { "font-size": 12, fill: "#5d6675" });
        const direction =
          cards && cards.length > 1 ? (cards[1]! > cards[0]! ? "↑ up" : "↓ down") : "";
        text(rowGroup, 24, 32, direction, { "font-size": 12 });
        const count = (cards ?? []).length;
        const step = Math.min(36, (rowW - 52 - 34) / Math.max(1, count - 1));
        (cards ?? []).forEach((c, i) =>
          card(
            rowGroup,
            50 + i * step,
            2,
            v,
            c,
            ctx.fresh.has(`card:${c}`) && i === cards!.length - 1,
            34,
            rowH - 8,
          ),
        );
        if (mine) {
          ctx.target(
            rowGroup,
            "place",
            cards ? `EXTEND:${r}` : `NEW_ROW:${r}`,
            `${cards ? "extend" : "start"} ${rowText(r)}`,
          );
          if (cards) {
            const ab = group(svg, width - 8 - abandonW, ry + 4);
            rect(ab, abandonW - 6, rowH - 12, "#fff", { rx: 5 });
            text(ab, (abandonW - 6) / 2, (rowH - 12) / 2, "✕ abandon", { "font-size": 12 });
            ctx.target(ab, "place", `ABANDON:${r}`, `abandon ${rowText(r)} and restart it`);
            if (!ab.classList.contains("target")) ab.setAttribute("visibility", "hidden");
          }
        }
      }
      y += boxH + 8;
    }
    return svg;
  },

  hand(ctx) {
    if (ctx.viewer === null) return null;
    const hand = nums(ctx.view.hand);
    const width = ctx.width;
    const across = fit(width - 16, W, 14);
    const lines = Math.max(1, Math.ceil(hand.length / across));
    const svg = drawing(width, lines * (H + 10) + 12, "your hand");
    hand.forEach((c, i) =>
      ctx.target(
        card(svg, 10 + (i % across) * (W + 14), 8 + Math.floor(i / across) * (H + 10), ctx.view, c),
        "card",
        c,
        `play ${cardLabel(ctx.view, c)}`,
      ),
    );
    if (!hand.length) text(svg, width / 2, 45, "no cards in hand", { fill: "#5d6675" });
    return svg;
  },

  describe(e, names) {
    const seat = (s: unknown): string => names[num(s)] ?? capital(seatText(num(s)));
    if (e.turnPlayed) {
      const t = e.turnPlayed as Json;
      const placement = short(t.placement, "UP_OR_DOWN_PLACEMENT_");
      const where = `${PLACE_WORDS[placement] ?? placement} ${rowText(num(t.row))}${num(t.discarded) ? ` (${count(num(t.discarded), "card")} discarded)` : ""}`;
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
