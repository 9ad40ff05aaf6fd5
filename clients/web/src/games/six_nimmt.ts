// 6 nimmt!: four rows of up to five cards; the sixth card takes the row. Every seat selects a card
// at once; the selections are revealed together and placed lowest first.
import { drawing, group, rect, svgEl, text } from "../svg.ts";
import { list, num, nums, type DrawContext, type GameUi } from "../ui.ts";
import type { Json } from "../types.ts";

/** The bullheads printed on a card. */
export function bullheads(card: number): number {
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return card === 0 ? 0 : 1;
}

const HEAD_FILL = [
  "#ffffff",
  "#ffffff",
  "#cfe8ff",
  "#fff0a8",
  "#ffd0a0",
  "#ffb3b3",
  "#ffb3b3",
  "#e9b3ff",
];
const W = 58;
const H = 80;

function card(parent: Element, x: number, y: number, value: number, fresh: boolean): SVGGElement {
  const heads = bullheads(value);
  const g = group(
    parent,
    x,
    y,
    value === 0 ? "zero card" : `card ${value}, ${heads} bullhead${heads === 1 ? "" : "s"}`,
  );
  if (fresh) g.classList.add("fresh");
  rect(g, W, H, HEAD_FILL[heads] ?? "#fff");
  text(g, W / 2, 36, String(value), { "font-size": 24, "font-weight": 700 });
  for (let i = 0; i < heads; i++) {
    const cx = W / 2 + (i - (heads - 1) / 2) * 7.5;
    svgEl("path", { d: `M${cx - 3},${64} l3,-6 l3,6 z`, fill: "#7a2d00" }, g);
  }
  text(g, W / 2, 73, heads ? `${heads}` : "", { "font-size": 9, fill: "#7a2d00" });
  return g;
}

export const sixNimmt: GameUi = {
  scoreUnit: "bullheads taken",

  steps(move) {
    if (move.chooseRow !== undefined) {
      const row = num(move.chooseRow);
      return [{ kind: "row", value: String(row), label: `take row ${row + 1}` }];
    }
    const c = num(move.selectCard);
    return [
      { kind: "card", value: String(c), label: c === 0 ? "select the zero card" : `select ${c}` },
    ];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const rows = list(v.rows).map((r) => nums(r.cards));
    const seatsH = 40 + ctx.seats * 30;
    const svg = drawing(760, 4 * 96 + 20 + seatsH, "6 nimmt! table: four rows and the seats");
    rows.forEach((cards, r) => {
      const y = 10 + r * 96;
      const heads = cards.reduce((a, c) => a + bullheads(c), 0);
      const row = group(svg, 6, y);
      rect(row, 6 * (W + 8) + 90, H + 8, "transparent", {
        stroke: "#c9c2b0",
        "stroke-dasharray": "4 4",
      });
      ctx.target(row, "row", r, `take row ${r + 1} (${cards.length} cards, ${heads} bullheads)`);
      text(row, 40, H / 2 + 4, `Row ${r + 1}`, { "font-size": 14, "font-weight": 600 });
      text(row, 40, H / 2 + 22, `${heads} ✱`, { "font-size": 12, fill: "#7a2d00" });
      cards.forEach((c, i) => card(row, 84 + i * (W + 8), 4, c, ctx.fresh.has(`card:${c}`)));
      if (cards.length === 5) {
        const g = group(row, 84 + 5 * (W + 8), 4);
        rect(g, W, H, "#fff", { stroke: "#b42318", "stroke-dasharray": "5 3" });
        text(g, W / 2, H / 2, "6th", { fill: "#b42318", "font-size": 14 });
        text(g, W / 2, H / 2 + 16, "takes", { fill: "#b42318", "font-size": 11 });
      }
    });
    const top = 4 * 96 + 20;
    text(svg, 380, top + 6, `Hand ${num(v.handNumber)}, turn ${num(v.turn) + 1}`, {
      "font-size": 14,
      "font-weight": 600,
    });
    const selected = (v.selected ?? []) as boolean[];
    const revealed = nums(v.revealed);
    const penalties = nums(v.penalties);
    const taken = list(v.taken).map((t) => nums(t.cards));
    const handSizes = nums(v.handSizes);
    for (let s = 0; s < ctx.seats; s++) {
      const y = top + 26 + s * 30;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const shown = revealed[s] ?? -1;
      const what =
        shown >= 0 ? `revealed ${shown}` : selected[s] ? "✓ selected" : toAct ? "… choosing" : "";
      const g = group(
        svg,
        6,
        y,
        `${ctx.names[s]}: ${penalties[s] ?? 0} bullheads, ${handSizes[s] ?? 0} cards in hand${what ? `, ${what}` : ""}`,
      );
      rect(g, 748, 26, s === ctx.viewer ? "#e6f0ff" : "#fff", { rx: 4 });
      text(g, 10, 13, ctx.names[s] ?? "", {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": s === ctx.viewer ? 700 : 400,
      });
      text(g, 230, 13, `${penalties[s] ?? 0} ✱ total`, { "font-size": 13 });
      text(g, 340, 13, `${(taken[s] ?? []).length} taken this hand`, { "font-size": 12 });
      text(g, 470, 13, `${handSizes[s] ?? 0} in hand`, { "font-size": 12 });
      text(g, 640, 13, what, {
        "font-size": 13,
        "font-weight": shown >= 0 ? 700 : 400,
        fill: shown >= 0 ? "#7a2d00" : "#1d2430",
      });
    }
    return svg;
  },

  hand(ctx) {
    if (ctx.viewer === null) return null;
    const v = ctx.view;
    const cards = nums(v.hand);
    if ((v.zeroCardAvailable as boolean[] | undefined)?.[ctx.viewer] && !cards.includes(0))
      cards.unshift(0);
    const own = num(v.ownSelection ?? -1);
    const svg = drawing(Math.max(760, 10 + cards.length * (W + 8)), H + 20, "your hand");
    cards.forEach((c, i) => {
      const g = card(svg, 8 + i * (W + 8), 10, c, false);
      if (c === own) g.classList.add("chosen");
      ctx.target(
        g,
        "card",
        c,
        c === 0 ? "select the zero card" : `select card ${c}, ${bullheads(c)} bullheads`,
      );
    });
    if (!cards.length) text(svg, 380, 50, "no cards in hand", { fill: "#5d6675" });
    return svg;
  },

  describe(e, names, viewer) {
    const seat = (s: unknown): string => names[num(s)] ?? `Seat ${num(s) + 1}`;
    if (e.cardSelected) {
      const c = e.cardSelected as Json;
      const card = num(c.card ?? -1);
      // The selecting seat also gets its own event naming the card: the public one is left out.
      if (card < 0 && num(c.seat) === viewer) return null;
      return card >= 0 ? `${seat(c.seat)} selected ${card}.` : `${seat(c.seat)} selected a card.`;
    }
    if (e.cardsRevealed)
      return `Revealed: ${nums((e.cardsRevealed as Json).cards)
        .map((c, s) => `${names[s]} ${c}`)
        .join(", ")}.`;
    if (e.cardPlaced) {
      const c = e.cardPlaced as Json;
      return `${seat(c.seat)}'s ${num(c.card)} goes to row ${num(c.row) + 1}.`;
    }
    if (e.rowTaken) {
      const t = e.rowTaken as Json;
      return `${seat(t.seat)} takes row ${num(t.row) + 1}: ${nums(t.cards).join(", ")} (${num(t.bullheads)} bullheads).`;
    }
    if (e.rowChoiceRequired) {
      const r = e.rowChoiceRequired as Json;
      return `${seat(r.seat)}'s ${num(r.card)} is lower than every row: they choose a row to take.`;
    }
    if (e.handEnded) {
      const h = e.handEnded as Json;
      return `Hand ${num(h.handNumber)} ends: ${nums(h.penalties)
        .map((p, s) => `${names[s]} ${p}`)
        .join(", ")}.`;
    }
    if (e.handDealt) return `Hand ${num((e.handDealt as Json).handNumber)} is dealt.`;
    return null;
  },

  fresh(e) {
    if (e.cardPlaced) return [`card:${num((e.cardPlaced as Json).card)}`];
    if (e.handDealt) return nums((e.handDealt as Json).rows).map((c) => `card:${c}`);
    return [];
  },
};
