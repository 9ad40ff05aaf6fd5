// Fora de Ordem: a question card orders five items, one per side of the board. Seats play cards
// naming an item's rank (or judging the card beneath) onto the sides; at the end of the round
// each side is judged from the top, and the first wrong card takes the stack with its bombs.
import { t } from "../i18n.ts";
import {
  capital,
  foraDeOrdemCardText,
  numberText,
  ordinalText,
  seatText,
  sideText,
} from "../notation.ts";
import { drawing, fit, group, rect, svgEl, text } from "../svg.ts";
import { list, num, nums, type DrawContext, type GameUi } from "../ui.ts";
import type { Json } from "../types.ts";

// Seat colours with a number each, so the owner never shows by colour alone.
const SEAT_COLOURS: Record<string, { key: string; fill: string }> = {
  FORA_DE_ORDEM_COLOUR_YELLOW: { key: "YELLOW", fill: "#f6d743" },
  FORA_DE_ORDEM_COLOUR_PURPLE: { key: "PURPLE", fill: "#c59af0" },
  FORA_DE_ORDEM_COLOUR_PINK: { key: "PINK", fill: "#f7a8cf" },
  FORA_DE_ORDEM_COLOUR_BLUE: { key: "BLUE", fill: "#6fa8ff" },
  FORA_DE_ORDEM_COLOUR_GREEN: { key: "GREEN", fill: "#79cf8a" },
  FORA_DE_ORDEM_COLOUR_ORANGE: { key: "ORANGE", fill: "#f9a65a" },
};
const NO_COLOUR = { key: "", fill: "#ddd" };
const REVEAL_W = 300; // the answer of the last round, right of the board
const REVEAL_BESIDE = 760; // the narrowest table with the answer right of the board
const SIDES = 5; // one item a side of the board

const m = () => t().foraDeOrdem;
const colourOf = (colours: string[], seat: number) =>
  SEAT_COLOURS[colours[seat] ?? ""] ?? NO_COLOUR;
const colourName = (key: string): string => m().colours[key] ?? key.toLowerCase();
const W = 64;
const H = 76;
/** Text cut into lines of at most `width` characters, at spaces. */
function wrap(value: string, width: number): string[] {
  const lines: string[] = [""];
  for (const word of value.split(" ")) {
    const last = lines[lines.length - 1]!;
    if (last && (last + " " + word).length > width) lines.push(word);
    else lines[lines.length - 1] = last ? `${last} ${word}` : word;
  }
  return lines;
}

/** How a card reads: "2nd/3rd [3b]", "previous is correct [3b]" (with its bombs). */
export function cardText(card: Json | undefined): string {
  return card ? foraDeOrdemCardText(card) : m().aCard;
}

/** A side with its item: side 1 (“Harp”). */
const sideItem = (side: number, item: unknown): string =>
  m().sideItem(sideText(side), String(item ?? ""));

/** A card's face, in lines: its ranks ("2/3"), or a judgement of the card beneath ("✓", "prev"). */
function face(card: Json): string[] {
  const kind = String(card.kind ?? "");
  if (kind.endsWith("PREVIOUS_CORRECT")) return ["✓", m().prev];
  if (kind.endsWith("PREVIOUS_WRONG")) return ["✗", m().prev];
  return [nums(card.ranks).join("/")];
}

function drawCard(
  parent: Element,
  x: number,
  y: number,
  card: Json,
  colours: string[],
  names: string[],
  w = W,
  h = H,
): SVGGElement {
  const owner = num(card.owner);
  const colour = colourOf(colours, owner);
  const g = group(
    parent,
    x,
    y,
    m().cardAria(cardText(card), names[owner] ?? "", colourName(colour.key)),
  );
  rect(g, w, h, colour.fill);
  const lines = face(card);
  // The face fits the card: its size follows the longest line ("1/2/3") and the card's width.
  const size = Math.min(
    Math.round(h * 0.26),
    Math.floor((w * 1.6) / Math.max(2, lines[0]!.length)),
  );
  lines.forEach((line, i) =>
    text(g, w / 2, h * (lines.length > 1 ? 0.24 + i * 0.26 : 0.38), line, {
      "font-size": lines.length > 1 && i > 0 ? 12 : size,
      "font-weight": 700,
    }),
  );
  text(g, w / 2, h * 0.82, num(card.bombs) ? `${num(card.bombs)} ✹` : "", {
    "font-size": 12,
    fill: "#7a1b00",
  });
  return g;
}

/** The last round resolved, as the viewer saw it: the items in rank order, and who took what. */
interface Reveal {
  round: number;
  order: { rank: string; item: string }[];
  takers: string[];
}

/** The answer of the last round resolved, from its events (ranks revealed, then each side). */
function lastReveal(history: Json[], names: string[]): Reveal | null {
  let at = history.length - 1;
  while (at >= 0 && history[at]!.ranksRevealed === undefined) at--;
  if (at < 0) return null;
  const revealed = history[at]!.ranksRevealed as Json;
  const ranks = nums(revealed.ranks);
  const items = (revealed.items ?? []) as string[];
  const order = items
    .map((item, i) => ({ item, rank: ranks[i] ?? 0 }))
    .sort((a, b) => a.rank - b.rank)
    .map(({ item, rank }) => ({ item, rank: ordinalText(rank) }));
  const takers: string[] = [];
  for (const e of history.slice(at + 1)) {
    if (e.ranksRevealed !== undefined || e.roundStarted !== undefined) break;
    const r = e.sideResolved as Json | undefined;
    if (!r) continue;
    const taken = nums(r.taken).length; // none when every card was right
    const taker = num(r.taker);
    const item = String(r.item ?? "");
    const who = names[taker] ?? capital(seatText(taker));
    takers.push(
      taken
        ? m().takes(item, who, t().count.cards(taken), t().count.bombs(num(r.bombs)))
        : m().allRight(item),
    );
  }
  return { round: num(revealed.round), order, takers };
}

/** The lines of the revealed answer at `width`: the items in rank order, then who took what. */
function revealLines(reveal: Reveal, width: number): { rank: string; line: string }[] {
  const chars = Math.floor((width - 70) / 7.4);
  const lines: { rank: string; line: string }[] = [];
  for (const { rank, item } of reveal.order)
    wrap(item, chars).forEach((line, i) => lines.push({ rank: i ? "" : rank, line }));
  for (const taker of reveal.takers)
    wrap(taker, chars + 6).forEach((line) => lines.push({ rank: "-", line }));
  return lines;
}

const revealHeight = (reveal: Reveal, width: number): number =>
  34 + revealLines(reveal, width).length * 21;

/** The revealed answer of the last round, under the board. */
function drawReveal(svg: SVGSVGElement, reveal: Reveal, x: number, y: number, width: number): void {
  const g = group(svg, x + 4, y, m().answerLabel(reveal.round));
  g.classList.add("reveal");
  rect(g, width - 8, revealHeight(reveal, width), "#fff6d6", { rx: 8, stroke: "#9a6700" });
  text(g, 10, 16, m().answerTitle(reveal.round), {
    "text-anchor": "start",
    "font-size": 14,
    "font-weight": 700,
  });
  revealLines(reveal, width).forEach(({ rank, line }, i) => {
    const taker = rank === "-";
    if (rank && !taker)
      text(g, 12, 40 + i * 21, rank, {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": 700,
      });
    text(g, taker ? 12 : 50, 40 + i * 21, line, {
      "text-anchor": "start",
      "font-size": taker ? 12 : 13,
    });
  });
}

export const foraDeOrdem: GameUi = {
  unit: () => m().unit,

  prompt: (kind) => m().prompts[kind] ?? "",

  steps(move, view) {
    const play = (move.play ?? {}) as Json;
    const card = list(view.hand).find((c) => num(c.id) === num(play.card));
    const side = num(play.side);
    const item = ((view.items ?? []) as string[])[side];
    return [
      { kind: "card", value: String(num(play.card)), label: m().card(cardText(card)) },
      {
        kind: "side",
        value: String(side),
        label: m().on(item === undefined ? sideText(side) : sideItem(side, item)),
      },
    ];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const total = ctx.width;
    // The answer of the last round right of the board when both fit across, else under it.
    const reveal = lastReveal(ctx.history, ctx.names);
    const beside = reveal !== null && total >= REVEAL_BESIDE;
    const width = beside ? total - REVEAL_W : total; // the board's
    const items = (v.items ?? []) as string[];
    const sides = list(v.sides).map((s) => list(s.cards));
    const colours = (v.colours ?? []) as string[];
    // Wide: the question in a pentagon and a box per side around it. Narrow: the question, then
    // the sides one under the other. Items are in no order: the answer is the ranks.
    const wide = width >= 860;
    // A phone: each side one low box, its item and count on a line, its stack under them.
    const compact = width < 560;
    const boxW = wide ? 220 : width - 8;
    const boxH = wide ? 124 : compact ? 56 : 96;
    const columns = width >= 560 ? 2 : 1;
    const seatW = (width - 8 - (columns - 1) * 10) / columns;
    const questionH = wide ? 0 : compact ? 68 : 84;
    const gap = compact ? 4 : 6;
    const boardH = wide ? 560 : questionH + 5 * (boxH + gap) + gap;
    const seatH = compact ? 32 : 40;
    const seatsH = Math.ceil(ctx.seats / columns) * seatH;
    let revealH = reveal ? revealHeight(reveal, beside ? REVEAL_W : width) + 10 : 0;
    // Under a board that must stay in sight, the answer gives way: the log tells it too.
    const room = ctx.height ?? 0;
    if (!beside && room && boardH + seatsH + revealH + 16 > room) revealH = 0;
    const height = beside
      ? Math.max(boardH + seatsH + 16, revealH + 8)
      : boardH + seatsH + revealH + 16;
    const svg = drawing(total, height, m().board);
    const round = m().round(num(v.round), num((v.options as Json | undefined)?.rounds));
    const category = String(v.category ?? "");
    if (wide) {
      const cx = width / 2;
      const cy = 290;
      const corners = [0, 1, 2, 3, 4].map((i) => {
        const a = -Math.PI / 2 + (i * 2 * Math.PI) / 5 - Math.PI / 5;
        return [cx + 100 * Math.cos(a), cy + 100 * Math.sin(a)] as const;
      });
      svgEl(
        "polygon",
        {
          points: corners.map((p) => p.join(",")).join(" "),
          fill: "#18324f",
          stroke: "#0b1a2c",
          "stroke-width": 3,
        },
        svg,
      );
      text(svg, cx, cy - 34, round, { fill: "#fff", "font-size": 13 });
      wrap(category, 18)
        .slice(0, 4)
        .forEach((l, i) =>
          text(svg, cx, cy - 10 + i * 18, l, { fill: "#fff", "font-size": 15, "font-weight": 600 }),
        );
    } else {
      const g = group(svg, 4, 4);
      rect(g, width - 8, questionH - 8, "#18324f", { rx: 8 });
      text(g, 10, 16, round, { fill: "#fff", "font-size": 12, "text-anchor": "start" });
      wrap(category, Math.floor((width - 28) / 8.6))
        .slice(0, compact ? 2 : 3)
        .forEach((l, i) =>
          text(g, 10, (compact ? 31 : 36) + i * 17, l, {
            fill: "#fff",
            "font-size": 14,
            "font-weight": 600,
            "text-anchor": "start",
          }),
        );
    }
    const cardW = wide ? 46 : compact ? 32 : 40;
    const cardH = wide ? 56 : compact ? 38 : 48;
    // The card being played, while a move is built: in the middle of the board (wide), or at
    // the right of the question (narrow).
    const chosen = ctx.picker?.steps[0];
    const playing = list(v.hand).find((c) => chosen && num(c.id) === Number(chosen.value));
    if (playing) {
      const [gx, gy] = wide ? [width / 2 - cardW / 2, 290 + 30] : [width - cardW - 14, 8];
      drawCard(svg, gx, gy, playing, colours, ctx.names, cardW, cardH).classList.add("ghost");
    }
    for (let side = 0; side < SIDES; side++) {
      const a = -Math.PI / 2 + (side * 2 * Math.PI) / SIDES;
      const bx = wide ? width / 2 + 300 * Math.cos(a) - 110 : 4;
      const by = wide ? 290 + 205 * Math.sin(a) - 62 : questionH + side * (boxH + gap);
      const stack = sides[side] ?? [];
      const topCard = stack.length ? cardText(stack[stack.length - 1]) : "";
      const label = m().sideLabel(
        capital(sideItem(side, items[side])),
        t().count.cards(stack.length),
        topCard,
      );
      const g = group(svg, bx, by, label);
      rect(g, boxW, boxH, "#fffdf6", { rx: 8 });
      wrap(items[side] ?? "", Math.floor((compact ? boxW - 70 : boxW) / 7.6))
        .slice(0, wide ? 2 : 1)
        .forEach((line, i) =>
          text(g, compact ? 10 : boxW / 2, 12 + i * 15, line, {
            "font-size": 13,
            "font-weight": 600,
            ...(compact ? { "text-anchor": "start" } : {}),
          }),
        );
      const top = wide ? 36 : compact ? 21 : 26;
      // The stack from the bottom, the top card last: apart while they fit, overlapping after.
      const most = Math.max(1, Math.floor((boxW - 20 - cardW) / 22) + 1);
      const shown = stack.slice(-most);
      const step = Math.min(cardW + 3, (boxW - 20 - cardW) / Math.max(1, shown.length - 1));
      shown.forEach((c, i) => {
        const el = drawCard(g, 10 + i * step, top, c, colours, ctx.names, cardW, cardH);
        if (ctx.fresh.has(`card:${num(c.id)}`)) el.classList.add("fresh");
      });
      if (!stack.length)
        text(g, boxW / 2, top + cardH / 2, m().noCards, { "font-size": 12, fill: "#5d6675" });
      text(
        g,
        boxW - 10,
        compact ? 12 : boxH - 10,
        stack.length ? t().count.cards(stack.length) : "",
        {
          "font-size": 12,
          fill: "#5d6675",
          "text-anchor": "end",
        },
      );
      if (!compact)
        text(g, 10, boxH - 10, capital(sideText(side)), {
          "font-size": 12,
          fill: "#5d6675",
          "text-anchor": "start",
        });
      ctx.target(g, "side", side, m().playOn(sideItem(side, items[side])));
    }
    const bombs = nums(v.bombs);
    const handSizes = nums(v.handSizes);
    const deckSizes = nums(v.deckSizes);
    for (let s = 0; s < ctx.seats; s++) {
      const x = 4 + (s % columns) * (seatW + 10);
      const y = boardH + Math.floor(s / columns) * seatH;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const colour = colourOf(colours, s);
      const g = group(
        svg,
        x,
        y,
        m().seatLabel(
          ctx.names[s] ?? "",
          colourName(colour.key),
          bombs[s] ?? 0,
          handSizes[s] ?? 0,
          deckSizes[s] ?? 0,
        ),
      );
      rect(g, seatW, seatH - 6, toAct ? "#fff6d6" : s === ctx.viewer ? "#e6f0ff" : "#fff", {
        rx: 5,
      });
      const line = (seatH - 6) / 2;
      svgEl(
        "rect",
        { x: 8, y: line - 10, width: 20, height: 20, rx: 4, fill: colour.fill, stroke: "#555" },
        g,
      );
      text(g, 18, line, numberText(s), { "font-size": 12 });
      text(g, 36, line, `${ctx.names[s]}${toAct ? " ◀" : ""}`, {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": s === ctx.viewer ? 700 : 400,
      });
      text(
        g,
        seatW - 8,
        line,
        (seatW < 400 ? m().seatStatsShort : m().seatStats)(
          bombs[s] ?? 0,
          handSizes[s] ?? 0,
          deckSizes[s] ?? 0,
        ),
        { "text-anchor": "end", "font-size": 12 },
      );
    }
    if (reveal && beside) drawReveal(svg, reveal, width, 4, REVEAL_W);
    else if (reveal && revealH) drawReveal(svg, reveal, 0, boardH + seatsH + 8, width);
    return svg;
  },

  hand(ctx) {
    if (ctx.viewer === null) return null;
    const hand = list(ctx.view.hand);
    const colours = (ctx.view.colours ?? []) as string[];
    const across = fit(ctx.width - 16, W, 12);
    const lines = Math.max(1, Math.ceil(hand.length / across));
    const svg = drawing(ctx.width, lines * (H + 10) + 12, t().page.yourHand);
    hand.forEach((c, i) =>
      ctx.target(
        drawCard(
          svg,
          10 + (i % across) * (W + 12),
          8 + Math.floor(i / across) * (H + 10),
          c,
          colours,
          ctx.names,
        ),
        "card",
        num(c.id),
        m().card(cardText(c)),
      ),
    );
    if (!hand.length) text(svg, ctx.width / 2, 48, m().noCardsInHand, { fill: "#5d6675" });
    return svg;
  },

  describe(e, names) {
    const seat = (s: unknown): string => names[num(s)] ?? capital(seatText(num(s)));
    if (e.cardPlayed) {
      const p = e.cardPlayed as Json;
      return m().played(seat(p.seat), cardText(p.card as Json), sideItem(num(p.side), p.item));
    }
    if (e.ranksRevealed) {
      const r = e.ranksRevealed as Json;
      const items = (r.items ?? []) as string[];
      return m().answer(nums(r.ranks).map((rank, i) => `${ordinalText(rank)} ${items[i] ?? ""}`));
    }
    if (e.sideResolved) {
      const r = e.sideResolved as Json;
      const taken = nums(r.taken).length; // none when every card was right
      const where = capital(sideItem(num(r.side), r.item));
      const cards = t().count.cards(taken);
      return taken
        ? m().resolvedTaken(where, seat(r.taker), cards, t().count.bombs(num(r.bombs)))
        : m().resolvedRight(where);
    }
    if (e.handsRefilled) return m().refilled(num((e.handsRefilled as Json).count));
    if (e.cardsDrawn) {
      const d = e.cardsDrawn as Json;
      return m().drew(seat(d.seat), list(d.cards).map(cardText).join(", "));
    }
    if (e.roundStarted) {
      const r = e.roundStarted as Json;
      return m().roundStarted(num(r.round), String(r.category ?? ""), seat(r.startingSeat));
    }
    if (e.gameEnded)
      return m().gameEnded(
        nums((e.gameEnded as Json).bombs).map((b, s) => `${names[s]} ${t().count.bombs(b)}`),
      );
    return null;
  },

  fresh(e) {
    if (e.cardPlayed) return [`card:${num(((e.cardPlayed as Json).card as Json | undefined)?.id)}`];
    return [];
  },

  outcome({ view, history, seats }) {
    // The bombs each seat took, round by round, from the sides resolved after each reveal.
    const taken = Array.from({ length: seats }, () => new Map<number, number>());
    let round = 0;
    for (const e of history) {
      if (e.ranksRevealed) round = num((e.ranksRevealed as Json).round);
      const r = e.sideResolved as Json | undefined;
      if (!r || !nums(r.taken).length) continue;
      const seat = taken[num(r.taker)];
      seat?.set(round, (seat.get(round) ?? 0) + num(r.bombs));
    }
    const details = taken.map((rounds) =>
      rounds.size
        ? [...rounds].map(([n, bombs]) => m().perRound(n, bombs)).join(" · ")
        : m().noBombs,
    );
    return { why: m().end(num((view.options as Json | undefined)?.rounds)), details };
  },
};
