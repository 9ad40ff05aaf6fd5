// Fora de Ordem: a question card orders five items, one per side of the board. Seats play cards
// naming an item's rank (or judging the card beneath) onto the sides; at the end of the round
// each side is judged from the top, and the first wrong card takes the stack with its bombs.
import { drawing, group, rect, svgEl, text } from "../svg.ts";
import { list, num, nums, type DrawContext, type GameUi } from "../ui.ts";
import type { Json } from "../types.ts";

// Seat colours with a letter each, so the owner never shows by colour alone.
const SEAT_COLOURS: Record<string, { name: string; fill: string }> = {
  FORA_DE_ORDEM_COLOUR_YELLOW: { name: "yellow", fill: "#f6d743" },
  FORA_DE_ORDEM_COLOUR_PURPLE: { name: "purple", fill: "#c59af0" },
  FORA_DE_ORDEM_COLOUR_PINK: { name: "pink", fill: "#f7a8cf" },
  FORA_DE_ORDEM_COLOUR_BLUE: { name: "blue", fill: "#6fa8ff" },
  FORA_DE_ORDEM_COLOUR_GREEN: { name: "green", fill: "#79cf8a" },
  FORA_DE_ORDEM_COLOUR_ORANGE: { name: "orange", fill: "#f9a65a" },
};
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

const ordinal = (n: number): string =>
  `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`;

/** How a card reads: "2nd/3rd", "previous is correct", with its bombs. */
export function cardText(card: Json | undefined): string {
  if (!card) return "a card";
  const kind = String(card.kind ?? "");
  const face = kind.endsWith("PREVIOUS_CORRECT")
    ? "previous is correct"
    : kind.endsWith("PREVIOUS_WRONG")
      ? "previous is wrong"
      : nums(card.ranks).map(ordinal).join("/");
  return `${face} (${num(card.bombs)} bomb${num(card.bombs) === 1 ? "" : "s"})`;
}

function face(card: Json): string {
  const kind = String(card.kind ?? "");
  if (kind.endsWith("PREVIOUS_CORRECT")) return "✓ prev";
  if (kind.endsWith("PREVIOUS_WRONG")) return "✗ prev";
  return nums(card.ranks).join("/");
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
  const colour = SEAT_COLOURS[colours[owner] ?? ""] ?? { name: "", fill: "#ddd" };
  const g = group(parent, x, y, `${cardText(card)}, ${names[owner] ?? ""}'s ${colour.name} card`);
  rect(g, w, h, colour.fill);
  text(g, w / 2, h * 0.4, face(card), { "font-size": Math.round(h * 0.26), "font-weight": 700 });
  text(g, w / 2, h * 0.78, "✹".repeat(num(card.bombs)), {
    "font-size": Math.round(h * 0.14),
    fill: "#7a1b00",
  });
  text(g, w - 8, 9, String(owner + 1), { "font-size": 9 });
  return g;
}

export const foraDeOrdem: GameUi = {
  scoreUnit: "bombs",

  steps(move, view) {
    const play = (move.play ?? {}) as Json;
    const card = list(view.hand).find((c) => num(c.id) === num(play.card));
    const side = num(play.side);
    const item = String(((view.items ?? []) as string[])[side] ?? `side ${side + 1}`);
    return [
      { kind: "card", value: String(num(play.card)), label: `card ${cardText(card)}` },
      { kind: "side", value: String(side), label: `on “${item}”` },
    ];
  },

  table(ctx: DrawContext) {
    const v = ctx.view;
    const items = (v.items ?? []) as string[];
    const sides = list(v.sides).map((s) => list(s.cards));
    const colours = (v.colours ?? []) as string[];
    const cx = 430;
    const cy = 290;
    const svg = drawing(
      860,
      600 + 40 * Math.ceil(ctx.seats / 2),
      "Fora de Ordem board: the question, its five sides and the stacks",
    );
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
    const lines = wrap(String(v.category ?? ""), 18);
    text(
      svg,
      cx,
      cy - 34,
      `Round ${num(v.round)} of ${num((v.options as Json | undefined)?.rounds)}`,
      { fill: "#fff", "font-size": 13 },
    );
    lines
      .slice(0, 4)
      .forEach((l, i) =>
        text(svg, cx, cy - 10 + i * 18, l, { fill: "#fff", "font-size": 15, "font-weight": 600 }),
      );
    for (let side = 0; side < 5; side++) {
      const a = -Math.PI / 2 + (side * 2 * Math.PI) / 5;
      const bx = cx + 300 * Math.cos(a) - 110;
      const by = cy + 205 * Math.sin(a) - 62;
      const stack = sides[side] ?? [];
      const label = `side ${side + 1}: ${items[side] ?? ""}, ${stack.length} card${stack.length === 1 ? "" : "s"}${stack.length ? `, top ${cardText(stack[stack.length - 1])}` : ""}`;
      const g = group(svg, bx, by, label);
      rect(g, 220, 124, "#fffdf6", { rx: 8 });
      wrap(`${side + 1}. ${items[side] ?? ""}`, 30)
        .slice(0, 2)
        .forEach((line, i) =>
          text(g, 110, 13 + i * 14, line, { "font-size": 12, "font-weight": 600 }),
        );
      stack.forEach((c, i) => {
        const el = drawCard(g, 10 + Math.min(i, 6) * 22, 36, c, colours, ctx.names, 46, 56);
        if (ctx.fresh.has(`card:${num(c.id)}`)) el.classList.add("fresh");
      });
      if (!stack.length) text(g, 110, 66, "no cards", { "font-size": 12, fill: "#5d6675" });
      text(
        g,
        110,
        108,
        stack.length ? `${stack.length} card${stack.length === 1 ? "" : "s"}` : "",
        { "font-size": 11, fill: "#5d6675" },
      );
      ctx.target(g, "side", side, `play on side ${side + 1}, ${items[side] ?? ""}`);
    }
    const bombs = nums(v.bombs);
    const handSizes = nums(v.handSizes);
    const deckSizes = nums(v.deckSizes);
    for (let s = 0; s < ctx.seats; s++) {
      const x = 10 + (s % 2) * 425;
      const y = 560 + Math.floor(s / 2) * 40;
      const toAct = (ctx.status.seatsToAct ?? []).includes(s);
      const colour = SEAT_COLOURS[colours[s] ?? ""] ?? { name: "", fill: "#ddd" };
      const g = group(
        svg,
        x,
        y,
        `${ctx.names[s]} (${colour.name}): ${bombs[s] ?? 0} bombs, ${handSizes[s] ?? 0} in hand, ${deckSizes[s] ?? 0} in deck${toAct ? ", to act" : ""}`,
      );
      rect(g, 415, 34, toAct ? "#fff6d6" : s === ctx.viewer ? "#e6f0ff" : "#fff", { rx: 5 });
      svgEl(
        "rect",
        { x: 8, y: 7, width: 20, height: 20, rx: 4, fill: colour.fill, stroke: "#555" },
        g,
      );
      text(g, 18, 17, String(s + 1), { "font-size": 11 });
      text(g, 36, 17, `${ctx.names[s]}${toAct ? " ◀" : ""}`, {
        "text-anchor": "start",
        "font-size": 13,
        "font-weight": s === ctx.viewer ? 700 : 400,
      });
      text(
        g,
        405,
        17,
        `${bombs[s] ?? 0} bombs · ${handSizes[s] ?? 0} in hand · ${deckSizes[s] ?? 0} in deck`,
        { "text-anchor": "end", "font-size": 12 },
      );
    }
    return svg;
  },

  hand(ctx) {
    if (ctx.viewer === null) return null;
    const hand = list(ctx.view.hand);
    const colours = (ctx.view.colours ?? []) as string[];
    const svg = drawing(760, H + 20, "your hand");
    hand.forEach((c, i) =>
      ctx.target(
        drawCard(svg, 10 + i * (W + 12), 10, c, colours, ctx.names),
        "card",
        num(c.id),
        `card ${cardText(c)}`,
      ),
    );
    if (!hand.length) text(svg, 380, 48, "no cards in hand", { fill: "#5d6675" });
    return svg;
  },

  describe(e, names) {
    const seat = (s: unknown): string => names[num(s)] ?? `Seat ${num(s) + 1}`;
    if (e.cardPlayed) {
      const p = e.cardPlayed as Json;
      return `${seat(p.seat)} plays ${cardText(p.card as Json)} on “${String(p.item ?? "")}”.`;
    }
    if (e.ranksRevealed) {
      const r = e.ranksRevealed as Json;
      const items = (r.items ?? []) as string[];
      return `The answer: ${nums(r.ranks)
        .map((rank, i) => `${ordinal(rank)} ${items[i] ?? ""}`)
        .join("; ")}.`;
    }
    if (e.sideResolved) {
      const r = e.sideResolved as Json;
      const taker = num(r.taker ?? -1);
      return taker >= 0
        ? `“${String(r.item ?? "")}”: ${seat(taker)} takes ${nums(r.taken).length} card(s) with ${num(r.bombs)} bombs.`
        : `“${String(r.item ?? "")}”: every card was right.`;
    }
    if (e.handsRefilled) return `Every seat draws ${num((e.handsRefilled as Json).count)} card(s).`;
    if (e.cardsDrawn) {
      const d = e.cardsDrawn as Json;
      return `${seat(d.seat)} draws ${list(d.cards).map(cardText).join(", ")}.`;
    }
    if (e.roundStarted) {
      const r = e.roundStarted as Json;
      return `Round ${num(r.round)}: ${String(r.category ?? "")}; ${seat(r.startingSeat)} starts.`;
    }
    if (e.gameEnded)
      return `The game ends: ${nums((e.gameEnded as Json).bombs)
        .map((b, s) => `${names[s]} ${b} bombs`)
        .join(", ")}.`;
    return null;
  },

  fresh(e) {
    if (e.cardPlayed) return [`card:${num(((e.cardPlayed as Json).card as Json | undefined)?.id)}`];
    return [];
  },
};
