// 6 nimmt!: four rows of up to five cards; the sixth card takes the row. Every seat selects a card
// at once; the selections are revealed together and placed lowest first, which the page lets
// people watch (`stages`).
import { t } from "../i18n.ts";
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
import { list, num, nums, type DrawContext, type GameUi, type Stage } from "../ui.ts";
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
const ROW_LIMIT = 5; // the sixth card takes the row
const NOT_REVEALED = -1; // a seat's revealed card before the reveal

const m = () => t().sixNimmt;
const heads = (n: number): string => t().count.bullheads(n);

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
  const n = bullheads(value);
  const g = group(parent, x, y, value === ZERO_CARD ? cardText(value) : `${value}, ${heads(n)}`);
  if (fresh) g.classList.add("fresh");
  rect(g, w, h, HEAD_FILL[n] ?? "#fff");
  text(g, w / 2, h * 0.42, String(value), {
    "font-size": Math.max(16, Math.round(w * 0.42)),
    "font-weight": 700,
  });
  text(g, w / 2, h * 0.82, n > 3 ? `${n} ✱` : "✱".repeat(n), { "font-size": 12, fill: "#7a2d00" });
  return g;
}

/** Where the hand stands: its number and turn, counted from 1 (over once every card is played). */
function handLine(v: Json, finished: boolean): string {
  const hand = num(v.handNumber);
  return finished ? m().handOver(hand) : m().handTurn(hand, num(v.turn) + 1);
}

/** The cards revealed and not yet placed, lowest first, with their seats. */
function waiting(v: Json): { seat: number; card: number }[] {
  return list<number>(v.staged).length
    ? nums(v.staged)
        .map((c, seat) => ({ seat, card: c }))
        .filter((s) => s.card > ZERO_CARD)
        .sort((a, b) => a.card - b.card)
    : [];
}

export const sixNimmt: GameUi = {
  unit: () => m().unit,

  prompt: (kind) => m().prompts[kind] ?? "",

  // The threshold ends a game by bullheads; a number of hands, one by hands.
  applies(name, chosen) {
    if (name === "threshold") return chosen.end !== "FIXED_HANDS";
    if (name === "hands") return chosen.end === "FIXED_HANDS";
    return true;
  },

  steps(move) {
    if (move.chooseRow !== undefined) {
      const row = num(move.chooseRow);
      return [{ kind: "row", value: String(row), label: m().take(rowText(row)) }];
    }
    const c = num(move.selectCard);
    return [{ kind: "card", value: String(c), label: m().play(cardText(c)) }];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const width = ctx.width;
    const { w, h, label } = cardSize(width);
    const narrow = width < 520;
    const rows = list(v.rows).map((r) => nums(r.cards));
    const rowH = h + 16;
    const top = 4 * rowH + 14;
    const seatH = narrow ? 38 : 30;
    const pending = waiting(v);
    const stripH = pending.length ? h + 30 : 0;
    const svg = drawing(width, top + 30 + stripH + ctx.seats * seatH + 6, m().table);
    rows.forEach((cards, r) => {
      const y = 6 + r * rowH;
      const total = cards.reduce((a, c) => a + bullheads(c), 0);
      const row = group(svg, 4, y);
      rect(row, width - 8, h + 10, "transparent", {
        stroke: "#c9c2b0",
        "stroke-dasharray": "4 4",
      });
      ctx.target(
        row,
        "row",
        r,
        m().rowTarget(rowText(r), t().count.cards(cards.length), heads(total)),
      );
      text(row, label / 2, h / 2 - 4, narrow ? numberText(r) : capital(rowText(r)), {
        "font-size": 14,
        "font-weight": 600,
      });
      text(row, label / 2, h / 2 + 14, `${total} ✱`, { "font-size": 12, fill: "#7a2d00" });
      cards.forEach((c, i) =>
        card(row, label + i * (w + 4), 5, c, ctx.fresh.has(`card:${c}`), w, h),
      );
      if (cards.length === ROW_LIMIT) {
        const g = group(row, label + ROW_LIMIT * (w + 4), 5);
        rect(g, w, h, "#fff", { stroke: "#b42318", "stroke-dasharray": "5 3" });
        text(g, w / 2, h / 2 - 8, m().sixth, { fill: "#b42318", "font-size": 13 });
        text(g, w / 2, h / 2 + 8, m().takes, { fill: "#b42318", "font-size": 12 });
      }
    });
    text(svg, width / 2, top + 8, handLine(v, Boolean(ctx.status.finished)), {
      "font-size": 14,
      "font-weight": 600,
    });
    // The cards revealed together, waiting to be placed lowest first.
    if (pending.length) {
      const strip = group(svg, 4, top + 22, m().revealing);
      strip.classList.add("reveal");
      rect(strip, width - 8, stripH - 6, "#fff6d6", { rx: 8, stroke: "#9a6700" });
      text(strip, 10, 12, m().revealing, { "text-anchor": "start", "font-size": 12 });
      const step = Math.min(w + 6, (width - 24 - w) / Math.max(1, pending.length - 1));
      pending.forEach(({ seat, card: c }, i) => {
        const g = card(strip, 10 + i * step, 22, c, false, w, h);
        g.setAttribute("aria-label", `${ctx.names[seat] ?? ""}: ${c}`);
        text(strip, 10 + i * step + w / 2, 22 + h + 2, numberText(seat), { "font-size": 12 });
      });
    }
    const selected = (v.selected ?? []) as boolean[];
    const revealed = nums(v.revealed);
    const penalties = nums(v.penalties);
    const taken = list(v.taken).map((t) => nums(t.cards));
    const handSizes = nums(v.handSizes);
    const own = num(v.ownSelection ?? NOT_REVEALED);
    for (let s = 0; s < ctx.seats; s++) {
      const y = top + 26 + stripH + s * seatH;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const shown = revealed[s] ?? NOT_REVEALED;
      // The viewer sees the card they selected before the reveal; the others only that they did.
      const what =
        shown >= 0
          ? m().revealedCard(cardText(shown))
          : selected[s] && s === ctx.viewer && own >= 0
            ? m().ownSelection(cardText(own))
            : selected[s]
              ? m().selected
              : toAct
                ? m().choosing
                : "";
      const g = group(
        svg,
        4,
        y,
        m().seatLabel(
          ctx.names[s] ?? "",
          heads(penalties[s] ?? 0),
          String(handSizes[s] ?? 0),
          what,
        ),
      );
      rect(g, width - 8, seatH - 4, s === ctx.viewer ? "#e6f0ff" : "#fff", { rx: 4 });
      const line = narrow ? 12 : (seatH - 4) / 2;
      text(g, 8, line, ctx.names[s] ?? "", {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": s === ctx.viewer ? 700 : 400,
      });
      const stats = m().stats(penalties[s] ?? 0, (taken[s] ?? []).length, handSizes[s] ?? 0);
      text(g, narrow ? 8 : width * 0.32, narrow ? 26 : line, stats, {
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
    const own = num(v.ownSelection ?? NOT_REVEALED);
    // The card selected this turn stays in sight, marked, until the reveal.
    if (own >= 0 && !cards.includes(own)) cards.push(own);
    const width = ctx.width;
    const { w, h } = cardSize(Math.min(width, 760));
    const across = fit(width - 12, w, GAP);
    const lines = Math.max(1, Math.ceil(cards.length / across));
    const svg = drawing(width, lines * (h + GAP) + 14, t().page.yourHand);
    cards.forEach((c, i) => {
      const x = 6 + (i % across) * (w + GAP);
      const y = 8 + Math.floor(i / across) * (h + GAP);
      const g = card(svg, x, y, c, false, w, h);
      if (c === own) {
        g.classList.add("chosen");
        g.setAttribute("aria-label", `${cardText(c)}, ${m().selectedMark}`);
        text(g, w / 2, -1, m().selectedMark, {
          "font-size": 12,
          "font-weight": 700,
          fill: "#9a6700",
        });
      }
      const named = c === ZERO_CARD ? cardText(c) : `${cardText(c)}, ${heads(bullheads(c))}`;
      ctx.target(g, "card", c, m().play(named));
    });
    if (!cards.length) text(svg, width / 2, 40, m().noCards, { fill: "#5d6675" });
    return svg;
  },

  describe(e, names, viewer) {
    const seat = (s: unknown): string => names[num(s)] ?? capital(seatText(num(s)));
    if (e.cardSelected) {
      const c = e.cardSelected as Json;
      const chosen = num(c.card ?? NOT_REVEALED);
      // The selecting seat also gets its own event naming the card: the public one is left out.
      if (chosen < 0 && num(c.seat) === viewer) return null;
      return chosen >= 0
        ? m().selectedCard(seat(c.seat), cardText(chosen))
        : m().selectedACard(seat(c.seat));
    }
    if (e.cardsRevealed)
      return m().revealed(
        nums((e.cardsRevealed as Json).cards).map((c, s) => `${names[s]} ${cardText(c)}`),
      );
    if (e.cardPlaced) {
      const c = e.cardPlaced as Json;
      return m().placed(seat(c.seat), cardText(num(c.card)), rowText(num(c.row)));
    }
    if (e.rowTaken) {
      const r = e.rowTaken as Json;
      const cards = nums(r.cards).join(", ");
      return m().tookRow(seat(r.seat), rowText(num(r.row)), cards, heads(num(r.bullheads)));
    }
    if (e.rowChoiceRequired) {
      const r = e.rowChoiceRequired as Json;
      return m().tooLow(seat(r.seat), cardText(num(r.card)));
    }
    if (e.handEnded) {
      const h = e.handEnded as Json;
      const totals = nums(h.penalties).map((p, s) => `${names[s]} ${p}`);
      return m().handEnded(num(h.handNumber), totals);
    }
    if (e.handDealt) return m().handDealt(num((e.handDealt as Json).handNumber));
    return null;
  },

  fresh(e) {
    if (e.cardPlaced) return [`card:${num((e.cardPlaced as Json).card)}`];
    if (e.handDealt) return nums((e.handDealt as Json).rows).map((c) => `card:${c}`);
    return [];
  },

  // The selections turned up together, then placed one by one, lowest first: each placement a
  // stage, the rows as they stood after it. A row choice or the end of the hand stops them.
  stages(before, events) {
    const at = events.findIndex((e) => e.cardsRevealed !== undefined);
    if (at < 0) return [];
    const revealed = nums((events[at]!.cardsRevealed as Json).cards);
    const rows = list(before.rows).map((r) => nums(r.cards));
    const staged = [...revealed];
    const view = (): Json => ({
      ...before,
      rows: rows.map((cards) => ({ cards: [...cards] })),
      revealed,
      staged: [...staged],
    });
    const stages: Stage[] = [{ view: view(), fresh: [] }];
    for (const e of events.slice(at + 1)) {
      if (e.rowTaken) rows[num((e.rowTaken as Json).row)] = [];
      else if (e.cardPlaced) {
        const placed = e.cardPlaced as Json;
        rows[num(placed.row)]!.push(num(placed.card));
        staged[num(placed.seat)] = NOT_REVEALED;
        stages.push({ view: view(), fresh: [`card:${num(placed.card)}`] });
      } else if (e.rowChoiceRequired || e.handEnded) break;
    }
    return stages;
  },

  outcome({ view, status, history, names }) {
    const options = (view.options ?? {}) as Json;
    const totals = nums(view.penalties);
    const ended = history
      .filter((e) => e.handEnded)
      .map((e) => nums((e.handEnded as Json).penalties));
    const details = totals.map((total, seat) => {
      if (ended.length < 2) return heads(total);
      return ended
        .map((after, i) => m().perHand(i + 1, (after[seat] ?? 0) - (ended[i - 1]?.[seat] ?? 0)))
        .join(" · ");
    });
    if (status.outcome?.termination === "FIXED_HANDS")
      return { why: m().endHands(num(options.hands) || ended.length), details };
    const threshold = num(options.threshold);
    const over = totals.flatMap((total, seat) => (total >= threshold ? [names[seat] ?? ""] : []));
    return { why: m().endThreshold(over, threshold), details };
  },
};
