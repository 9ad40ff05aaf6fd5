// Up or Down?: a turn plays a card from hand into the circle of six, takes one of its neighbours
// into the seat's display (extending a row, starting one, or abandoning one), then draws. While a
// turn is built, its parts are drawn where they go: the card played in the circle's middle, the
// neighbour taken marked, the taken card at the end of its row.
import { t } from "../i18n.ts";
import { capital, rowText, seatText } from "../notation.ts";
import { drawing, fit, group, rect, svgEl, text } from "../svg.ts";
import { list, num, nums, type DrawContext, type GameUi } from "../ui.ts";
import type { Json } from "../types.ts";

// Every colour also has its own symbol, so colour is never the only cue.
const COLOURS: Record<string, { key: string; fill: string; symbol: string }> = {
  UP_OR_DOWN_COLOUR_YELLOW: { key: "YELLOW", fill: "#f6d743", symbol: "●" },
  UP_OR_DOWN_COLOUR_BLUE: { key: "BLUE", fill: "#6fa8ff", symbol: "■" },
  UP_OR_DOWN_COLOUR_RED: { key: "RED", fill: "#f17a6f", symbol: "▲" },
  UP_OR_DOWN_COLOUR_GREEN: { key: "GREEN", fill: "#79cf8a", symbol: "◆" },
  UP_OR_DOWN_COLOUR_PURPLE: { key: "PURPLE", fill: "#c59af0", symbol: "★" },
  UP_OR_DOWN_COLOUR_ORANGE: { key: "ORANGE", fill: "#f9a65a", symbol: "✚" },
};
const W = 50;
const H = 70;
const KEY_W = 110; // a colour of the key, with its name
const KEY_W_NARROW = 76; // the same on a narrow table
const ROWS = 3; // a display holds at most three rows

const m = () => t().upOrDown;
const colourName = (key: string): string => m().colours[key] ?? key.toLowerCase();

function colourOf(view: Json, card: number) {
  const colours = (view.cardColours ?? []) as string[];
  return COLOURS[colours[card - 1] ?? ""] ?? { key: "", fill: "#ddd", symbol: "?" };
}

function cardLabel(view: Json, card: number): string {
  return `${card} ${colourName(colourOf(view, card).key)}`;
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
  const g = group(parent, x, y, m().cardAria(value, colourName(c.key)));
  if (fresh) g.classList.add("fresh");
  rect(g, w, h, c.fill);
  text(g, w / 2, h * 0.42, String(value), {
    "font-size": Math.round(h * 0.32),
    "font-weight": 700,
  });
  text(g, w / 2, h * 0.8, c.symbol, { "font-size": Math.round(h * 0.2) });
  return g;
}

/** A card of the move being built, drawn where it goes. */
function ghost(parent: Element, x: number, y: number, view: Json, value: number, w = W, h = H) {
  card(parent, x, y, view, value, false, w, h).classList.add("ghost");
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

const short = (value: unknown, prefix: string): string => String(value ?? "").replace(prefix, "");
const placementText = (placement: string, row: number): string =>
  (m().placement[placement] ?? ((r: string) => `${placement} ${r}`))(rowText(row));

/** The parts of the move being built: the card played, the neighbour taken, its place. */
function building(ctx: DrawContext) {
  const step = (kind: string) => ctx.picker?.steps.find((s) => s.kind === kind)?.value;
  const played = step("card");
  const take = step("take");
  const place = step("place");
  const taken =
    played !== undefined && take !== undefined
      ? neighbour(nums(ctx.view.circle), Number(played), take)
      : undefined;
  const [placement, row] = (place ?? ":").split(":");
  return {
    played: played === undefined ? undefined : Number(played),
    taken,
    placement: placement ?? "",
    row: place === undefined ? -1 : Number(row),
  };
}

/** A row's score: its length times the cards of its most common colour. */
function rowScore(view: Json, cards: number[]): { colour: number; points: number } {
  const counts = new Map<string, number>();
  for (const c of cards)
    counts.set(colourOf(view, c).key, (counts.get(colourOf(view, c).key) ?? 0) + 1);
  const colour = Math.max(0, ...counts.values());
  return { colour, points: cards.length * colour };
}

export const upOrDown: GameUi = {
  unit: () => m().unit,

  prompt: (kind) => m().prompts[kind] ?? "",

  steps(move, view) {
    const played = num(move.card);
    const take = short(move.take, "UP_OR_DOWN_NEIGHBOUR_");
    const taken = neighbour(nums(view.circle), played, take);
    const placement = short(move.placement, "UP_OR_DOWN_PLACEMENT_");
    const row = num(move.row);
    const draw = short(move.draw, "UP_OR_DOWN_DRAW_");
    const takenText = taken === undefined ? take.toLowerCase() : cardLabel(view, taken);
    return [
      { kind: "card", value: String(played), label: m().play(cardLabel(view, played)) },
      { kind: "take", value: take, label: m().takeNeighbour(takenText, take === "LOWER") },
      { kind: "place", value: `${placement}:${row}`, label: placementText(placement, row) },
      { kind: "draw", value: draw, label: m().draw[draw] ?? draw },
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
    const move = building(ctx);
    // The circle, then the piles beside it and the key of colours beside them (below, when it
    // does not fit across).
    const cw = narrow ? 38 : W;
    const ch = narrow ? 52 : H;
    const radius = narrow ? 64 : 92;
    const cx = radius + cw / 2 + 6;
    const cy = radius + ch / 2 + 6;
    const pw = narrow ? 44 : W + 10;
    const ph = narrow ? 60 : H + 10;
    const px = 2 * cx + (narrow ? 2 : 40);
    const ux = px + pw + (narrow ? 6 : 20);
    const keyX = ux + pw + (narrow ? 8 : 30);
    const keyW = narrow ? KEY_W_NARROW : KEY_W;
    const keyColumns = Math.min(2, Math.floor((width - keyX - 4) / keyW));
    const keyBeside = keyColumns >= 1;
    const keyLine = narrow ? 24 : 28;
    const keyRows = Math.ceil(6 / (keyBeside ? keyColumns : 3));
    const topH = keyBeside
      ? Math.max(2 * cy, keyRows * keyLine + 8)
      : 2 * cy + keyRows * keyLine + 6;
    // Rows: the viewer's, where cards go, at full height; another seat's lower.
    const rowH = (s: number) => (s === ctx.viewer ? (narrow ? 42 : 50) : narrow ? 34 : 42);
    const headH = narrow ? 36 : 26;
    const displayH = (s: number) =>
      headH + 2 + (s === ctx.viewer ? ROWS : Math.max(1, (displays[s] ?? []).length)) * rowH(s) + 6;
    // The viewer's own display comes first, under the circle and the piles it plays with.
    const order = [...Array(ctx.seats).keys()].sort(
      (a, b) => Number(b === ctx.viewer) - Number(a === ctx.viewer),
    );
    const height = topH + 10 + order.reduce((sum, s) => sum + displayH(s) + 8, 0);
    const svg = drawing(width, height, m().table);
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
    if (move.played !== undefined) ghost(svg, cx - cw / 2, cy - ch / 2, v, move.played, cw, ch);
    else {
      text(svg, cx, cy - 8, m().circle, { "font-size": 13, fill: "#5d6675" });
      text(svg, cx, cy + 10, m().circleOrder, { "font-size": 12, fill: "#5d6675" });
    }
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
      if (c === move.taken) g.classList.add("chosen");
      if (move.played === undefined) return;
      for (const take of ["LOWER", "HIGHER"]) {
        if (neighbour(circle, move.played, take) === c && ctx.picker?.isOffered("take", take))
          ctx.target(g, "take", take, m().takeNeighbour(cardLabel(v, c), take === "LOWER"));
      }
    });
    // The piles.
    const py = cy - ph / 2 - 10;
    const down = group(svg, px, py, m().faceDownPile(num(v.faceDownSize)));
    rect(down, pw, ph, "#3d4f73");
    text(down, pw / 2, ph / 2, String(num(v.faceDownSize)), { fill: "#fff", "font-size": 18 });
    text(svg, px + pw / 2, py + ph + 12, narrow ? m().faceDownShort : m().faceDown, {
      "font-size": 12,
    });
    ctx.target(down, "draw", "FACE_DOWN", m().draw.FACE_DOWN ?? "");
    const top = num(v.faceUpTop);
    const up = top ? card(svg, ux, py, v, top, false, pw, ph) : group(svg, ux, py, m().faceUpEmpty);
    if (!top) rect(up, pw, ph, "#fff", { "stroke-dasharray": "4 4" });
    const upLabel = narrow ? m().faceUpShort : m().faceUp;
    text(svg, ux + pw / 2, py + ph + 12, upLabel(num(v.faceUpSize)), { "font-size": 12 });
    ctx.target(up, "draw", "FACE_UP", m().draw.FACE_UP ?? "");
    // The key of colours and symbols.
    const columns = keyBeside ? keyColumns : 3;
    const columnW = keyBeside ? keyW : (width - 12) / 3;
    Object.values(COLOURS).forEach((c, i) => {
      const g = group(
        svg,
        (keyBeside ? keyX : 6) + (i % columns) * columnW,
        (keyBeside ? (narrow ? 6 : 30) : 2 * cy + 6) + Math.floor(i / columns) * keyLine,
      );
      svgEl("rect", { width: 22, height: 22, rx: 4, fill: c.fill, stroke: "#555" }, g);
      text(g, 11, 11, c.symbol, { "font-size": 12 });
      text(g, 30, 11, colourName(c.key), { "text-anchor": "start", "font-size": 12 });
    });
    // Every seat's display, the viewer's first; another seat's shows only the rows it has.
    let y = topH + 10;
    for (const s of order) {
      const mine = s === ctx.viewer;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const rows = displays[s] ?? [];
      const boxH = displayH(s);
      const points = t().count.points(scores[s] ?? 0);
      const head = group(
        svg,
        4,
        y,
        m().seatLabel(ctx.names[s] ?? "", points, handSizes[s] ?? 0, discardSizes[s] ?? 0),
      );
      rect(head, width - 8, boxH, mine ? "#e6f0ff" : toAct ? "#fff6d6" : "#fff", { rx: 6 });
      text(head, 10, 14, `${ctx.names[s]}${toAct ? ` ${m().toAct}` : ""}`, {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": mine ? 700 : 500,
      });
      text(
        head,
        narrow ? 10 : width - 18,
        narrow ? 28 : 14,
        narrow
          ? m().seatStatsShort(scores[s] ?? 0, handSizes[s] ?? 0, discardSizes[s] ?? 0)
          : m().seatStats(
              scores[s] ?? 0,
              handSizes[s] ?? 0,
              discardSizes[s] ?? 0,
              abandoned[s] ?? 0,
            ),
        { "text-anchor": narrow ? "start" : "end", "font-size": 12 },
      );
      const shownRows = mine ? ROWS : Math.max(1, rows.length);
      const abandonW = mine ? (narrow ? 78 : 100) : 0;
      const rowW = width - 24 - abandonW;
      const rh = rowH(s);
      for (let r = 0; r < shownRows; r++) {
        const ry = y + headH + r * rh;
        const cards = rows[r];
        const rowGroup = group(
          svg,
          12,
          ry,
          m().rowLabel(rowText(r), cards ? cards.join(", ") : m().empty),
        );
        rect(rowGroup, rowW, rh - 4, "transparent", {
          stroke: cards ? "#d8d2c0" : "#ece7da",
          "stroke-dasharray": cards ? "" : "4 4",
        });
        if (!cards && !mine) {
          text(rowGroup, 10, (rh - 4) / 2, m().noRows, {
            "text-anchor": "start",
            "font-size": 12,
            fill: "#5d6675",
          });
          continue;
        }
        text(rowGroup, 24, rh / 2 - 8, capital(rowText(r)), { "font-size": 12, fill: "#5d6675" });
        const direction =
          cards && cards.length > 1 ? (cards[1]! > cards[0]! ? m().up : m().down) : "";
        text(rowGroup, 24, rh / 2 + 8, direction, { "font-size": 12 });
        // The taken card of the move being built, at the end of the row it goes to (alone
        // when the row starts again).
        const placing = mine && move.row === r && move.taken !== undefined;
        const kept = placing && move.placement !== "EXTEND" ? [] : (cards ?? []);
        const count = kept.length + (placing ? 1 : 0);
        const step = Math.min(36, (rowW - 52 - 34) / Math.max(1, count - 1));
        kept.forEach((c, i) =>
          card(
            rowGroup,
            50 + i * step,
            2,
            v,
            c,
            ctx.fresh.has(`card:${c}`) && i === kept.length - 1,
            34,
            rh - 8,
          ),
        );
        if (placing) ghost(rowGroup, 50 + kept.length * step, 2, v, move.taken!, 34, rh - 8);
        if (mine) {
          const value = cards ? `EXTEND:${r}` : `NEW_ROW:${r}`;
          ctx.target(rowGroup, "place", value, placementText(cards ? "EXTEND" : "NEW_ROW", r));
          if (cards) {
            const ab = group(svg, width - 8 - abandonW, ry + 4);
            rect(ab, abandonW - 6, rh - 12, "#fff", { rx: 5 });
            text(ab, (abandonW - 6) / 2, (rh - 12) / 2, m().abandonButton, { "font-size": 12 });
            ctx.target(ab, "place", `ABANDON:${r}`, placementText("ABANDON", r));
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
    const svg = drawing(width, lines * (H + 10) + 12, t().page.yourHand);
    hand.forEach((c, i) =>
      ctx.target(
        card(svg, 10 + (i % across) * (W + 14), 8 + Math.floor(i / across) * (H + 10), ctx.view, c),
        "card",
        c,
        m().play(cardLabel(ctx.view, c)),
      ),
    );
    if (!hand.length) text(svg, width / 2, 45, m().noCards, { fill: "#5d6675" });
    return svg;
  },

  describe(e, names) {
    const seat = (s: unknown): string => names[num(s)] ?? capital(seatText(num(s)));
    if (e.turnPlayed) {
      const p = e.turnPlayed as Json;
      const placement = short(p.placement, "UP_OR_DOWN_PLACEMENT_");
      const discarded = num(p.discarded) ? m().discardedCards(num(p.discarded)) : "";
      const where = `${placementText(placement, num(p.row))}${discarded}`;
      const draw = short(p.draw, "UP_OR_DOWN_DRAW_");
      const drew =
        draw === "FACE_UP"
          ? m().drewFaceUp(num(p.drawn))
          : draw === "FACE_DOWN"
            ? m().drewFaceDown
            : "";
      return m().turnPlayed(seat(p.seat), num(p.card), num(p.taken), where, drew);
    }
    if (e.cardDrawn) {
      const d = e.cardDrawn as Json;
      return m().drew(seat(d.seat), num(d.card));
    }
    if (e.gameScored)
      return m().finalScores(nums((e.gameScored as Json).scores).map((p, s) => `${names[s]} ${p}`));
    return null;
  },

  fresh(e) {
    if (e.turnPlayed) {
      const p = e.turnPlayed as Json;
      return [`card:${num(p.card)}`, `card:${num(p.taken)}`];
    }
    return [];
  },

  outcome({ view }) {
    const perRow =
      short((view.options as Json | undefined)?.discardScoring, "UP_OR_DOWN_DISCARD_SCORING_") ===
      "PER_ROW";
    const discards = perRow ? nums(view.abandonedRows) : nums(view.discardSizes);
    const details = list(view.displays).map((display, seat) => {
      const rows = list(display.rows).map((r) => nums(r.cards));
      const parts = rows.map((cards) => {
        const { colour, points } = rowScore(view, cards);
        return m().rowScore(cards.length, colour, points);
      });
      return [
        parts.length ? parts.join(" + ") : m().noRowsScore,
        m().discardScore(discards[seat] ?? 0),
      ].join(" + ");
    });
    return { why: m().end, details };
  },
};
