// 6 nimmt!: four rows of up to five cards; the sixth card takes the row. Every seat selects a card
// at once; the selections are revealed together and placed lowest first.
import {
  bullheads,
  capital,
  numberText,
  rowText,
  seatText,
  sixNimmtCardText as cardText,
  ZERO_CARD,
} from "../notation.ts";
import { drawing, fit, group, rect, text } from "../svg.ts";
import { count, list, num, nums, type DrawContext, type GameUi } from "../ui.ts";
import type { Json } from "../types.ts";

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
const W = 58; // a card's size at full width
const H = 80;
const GAP = 8;

/** The card size for a drawing `width` units across: six cards and the rows' labels fit. */
function cardSize(width: number): { w: number; h: number; label: number } {
  const label = width < 520 ? 46 : 84;
  const w = Math.min(W, Math.floor((width - label - 12) / 6) - 4);
  return { w, h: Math.round((w * H) / W), label };
}

function card(
  parent: Element,
  x: number,
  y: number,
  value: number,
  fresh: boolean,
  w = W,
  h = H,
): SVGGElement {
  const heads = bullheads(value);
  const g = group(
    parent,
    x,
    y,
    value === ZERO_CARD ? cardText(value) : `${cardText(value)}, ${count(heads, "bullhead")}`,
  );
  if (fresh) g.classList.add("fresh");
  rect(g, w, h, HEAD_FILL[heads] ?? "#fff");
  text(g, w / 2, h * 0.42, String(value), {
    "font-size": Math.max(16, Math.round(w * 0.42)),
    "font-weight": 700,
  });
  text(g, w / 2, h * 0.82, heads > 3 ? `${heads} ✱` : "✱".repeat(heads), {
    "font-size": 12,
    fill: "#7a2d00",
  });
  return g;
}

export const sixNimmt: GameUi = {
  scoreUnit: "bullheads taken",

  steps(move) {
    if (move.chooseRow !== undefined) {
      const row = num(move.chooseRow);
      return [{ kind: "row", value: String(row), label: `take ${rowText(row)}` }];
    }
    const c = num(move.selectCard);
    return [{ kind: "card", value: String(c), label: `select ${cardText(c)}` }];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const width = ctx.width;
    const { w, h, label } = cardSize(width);
    const narrow = width < 520;
    const rows = list(v.rows).map((r) => nums(r.cards));
    const rowH = h + 16;
    const top = 4 * rowH + 14;
    const seatH = narrow ? 44 : 30;
    const svg = drawing(
      width,
      top + 30 + ctx.seats * seatH + 6,
      "6 nimmt! table: four rows and the seats",
    );
    rows.forEach((cards, r) => {
      const y = 6 + r * rowH;
      const heads = cards.reduce((a, c) => a + bullheads(c), 0);
      const row = group(svg, 4, y);
      rect(row, width - 8, h + 10, "transparent", {
        stroke: "#c9c2b0",
        "stroke-dasharray": "4 4",
      });
      ctx.target(
        row,
        "row",
        r,
        `take ${rowText(r)} (${count(cards.length, "card")}, ${count(heads, "bullhead")})`,
      );
      text(row, label / 2, h / 2 - 4, narrow ? numberText(r) : capital(rowText(r)), {
        "font-size": 14,
        "font-weight": 600,
      });
      text(row, label / 2, h / 2 + 14, `${heads} ✱`, { "font-size": 12, fill: "#7a2d00" });
      cards.forEach((c, i) =>
        card(row, label + i * (w + 4), 5, c, ctx.fresh.has(`card:${c}`), w, h),
      );
      if (cards.length === 5) {
        const g = group(row, label + 5 * (w + 4), 5);
        rect(g, w, h, "#fff", { stroke: "#b42318", "stroke-dasharray": "5 3" });
        text(g, w / 2, h / 2 - 8, "6th", { fill: "#b42318", "font-size": 13 });
        text(g, w / 2, h / 2 + 8, "takes", { fill: "#b42318", "font-size": 12 });
      }
    });
    text(svg, width / 2, top + 8, `Hand ${num(v.handNumber)}, turn ${num(v.turn) + 1}`, {
      "font-size": 14,
      "font-weight": 600,
    });
    const selected = (v.selected ?? []) as boolean[];
    const revealed = nums(v.revealed);
    const penalties = nums(v.penalties);
    const taken = list(v.taken).map((t) => nums(t.cards));
    const handSizes = nums(v.handSizes);
    const own = num(v.ownSelection ?? -1);
    for (let s = 0; s < ctx.seats; s++) {
      const y = top + 26 + s * seatH;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const shown = revealed[s] ?? -1;
      // The viewer sees the card they selected before the reveal; the others only that they did.
      const what =
        shown >= 0
          ? `revealed ${shown}`
          : selected[s] && s === ctx.viewer && own >= 0
            ? `✓ selected ${own}`
            : selected[s]
              ? "✓ selected"
              : toAct
                ? "… choosing"
                : "";
      const g = group(
        svg,
        4,
        y,
        `${ctx.names[s]}: ${penalties[s] ?? 0} bullheads, ${handSizes[s] ?? 0} cards in hand${what ? `, ${what}` : ""}`,
      );
      rect(g, width - 8, seatH - 4, s === ctx.viewer ? "#e6f0ff" : "#fff", { rx: 4 });
      const line = narrow ? 12 : (seatH - 4) / 2;
      text(g, 8, line, ctx.names[s] ?? "", {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": s === ctx.viewer ? 700 : 400,
      });
      const stats = `${penalties[s] ?? 0} ✱ total · ${(taken[s] ?? []).length} taken · ${handSizes[s] ?? 0} in hand`;
      text(g, narrow ? 8 : width * 0.32, narrow ? 30 : line, stats, {
        "text-anchor": "start",
        "font-size": 12,
      });
      text(g, width - 16, line, what, {
        "text-anchor": "end",
        "font-size": 13,
        "font-weight": shown >= 0 || s === ctx.viewer ? 700 : 400,
        fill: shown >= 0 ? "#7a2d00" : "#1d2430",
      });
    }
    return svg;
  },

  hand(ctx) {
    if (ctx.viewer === null) return null;
    const v = ctx.view;
    const cards = nums(v.hand);
    if ((v.zeroCardAvailable as boolean[] | undefined)?.[ctx.viewer] && !cards.includes(ZERO_CARD))
      cards.unshift(ZERO_CARD);
    const own = num(v.ownSelection ?? -1);
    // The card selected this turn stays in sight, marked, until the reveal.
    if (own >= 0 && !cards.includes(own)) cards.push(own);
    const width = ctx.width;
    const { w, h } = cardSize(Math.min(width, 760));
    const across = fit(width - 12, w, GAP);
    const lines = Math.max(1, Math.ceil(cards.length / across));
    const svg = drawing(width, lines * (h + GAP) + 14, "your hand");
    cards.forEach((c, i) => {
      const x = 6 + (i % across) * (w + GAP);
      const y = 8 + Math.floor(i / across) * (h + GAP);
      const g = card(svg, x, y, c, false, w, h);
      if (c === own) {
        g.classList.add("chosen");
        g.setAttribute("aria-label", `${cardText(c)}, selected`);
        text(g, w / 2, -1, "selected", { "font-size": 12, "font-weight": 700, fill: "#9a6700" });
      }
      ctx.target(
        g,
        "card",
        c,
        c === ZERO_CARD
          ? `select ${cardText(c)}`
          : `select ${cardText(c)}, ${count(bullheads(c), "bullhead")}`,
      );
    });
    if (!cards.length) text(svg, width / 2, 40, "no cards in hand", { fill: "#5d6675" });
    return svg;
  },

  describe(e, names, viewer) {
    const seat = (s: unknown): string => names[num(s)] ?? capital(seatText(num(s)));
    if (e.cardSelected) {
      const c = e.cardSelected as Json;
      const card = num(c.card ?? -1);
      // The selecting seat also gets its own event naming the card: the public one is left out.
      if (card < 0 && num(c.seat) === viewer) return null;
      return card >= 0
        ? `${seat(c.seat)} selected ${cardText(card)}.`
        : `${seat(c.seat)} selected a card.`;
    }
    if (e.cardsRevealed)
      return `Revealed: ${nums((e.cardsRevealed as Json).cards)
        .map((c, s) => `${names[s]} ${cardText(c)}`)
        .join(", ")}.`;
    if (e.cardPlaced) {
      const c = e.cardPlaced as Json;
      return `${seat(c.seat)}'s ${num(c.card)} goes to ${rowText(num(c.row))}.`;
    }
    if (e.rowTaken) {
      const t = e.rowTaken as Json;
      return `${seat(t.seat)} takes ${rowText(num(t.row))}: ${nums(t.cards).join(", ")} (${count(num(t.bullheads), "bullhead")}).`;
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
