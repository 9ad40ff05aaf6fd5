// How people write seats, teams, rows, sides, cells and cards, counted from 1: the playground's
// copy of the notation of the server's messages, of the `ordo` command and of the rules for
// players (docs/clients.md, "Notation"). The wire counts from 0: seat 0 is "seat 1", and the
// Sequence Numbers cell 9 (row 0, column 9) is "r1c10". Cards come as the page gets them, in
// proto JSON. tests/web/test_notation.py checks every function here against the engines on every
// seat, cell and card. The words are the page's language's (src/messages/), English by default,
// which the tests read.
import { t } from "./i18n.ts";
import type { Json } from "./types.ts";

/** People count seats, rows, sides and cells from 1; the wire counts them from 0. */
export const FIRST = 1;
const TEAM_LETTERS = "ABC"; // teams 0, 1 and 2 on the wire
/** 6 nimmt!: the zero-card variant's card, which bears no bullhead. */
export const ZERO_CARD = 0;
/** Sequence Numbers: 10 × 10 cells; on the wire, cell = row × 10 + column. */
export const BOARD_SIZE = 10;

/** A text with its first letter in capitals, to open a sentence: "Seat 1". */
export const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** An index of the wire as people count it: 0 is "1". */
export const numberText = (index: number): string => String(index + FIRST);

/** A seat: 0 is "seat 1". */
export const seatText = (seat: number): string => t().notation.seat(numberText(seat));

/** The letter of a team: 0 is "A" (past the letters, its number). */
export const teamLetter = (team: number): string => TEAM_LETTERS[team] ?? numberText(team);

/** A team: 0 is "team A". */
export const teamText = (team: number): string => t().notation.team(teamLetter(team));

/** A row of the table or of a seat's display: 0 is "row 1". */
export const rowText = (row: number): string => t().notation.row(numberText(row));

/** A side of the Fora de Ordem board, a place and not a rank: 0 is "side 1". */
export const sideText = (side: number): string => t().notation.side(numberText(side));

/** A cell of a board by its row and column: (0, 9) is "r1c10". */
export const cellText = (row: number, column: number): string =>
  t().notation.cell(numberText(row), numberText(column));

/** A rank as an ordinal: 1 is "1st", 4 is "4th", 11 is "11th". */
export const ordinalText = (rank: number): string => t().notation.ordinal(rank);

/** The bullheads a 6 nimmt! card bears: 7 on 55, 5 on a multiple of 11, 3 on a multiple of 10,
 * 2 on a multiple of 5, else 1; none on the zero card. */
export function bullheads(card: number): number {
  if (card === ZERO_CARD) return 0;
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

/** A 6 nimmt! card: its number, "37", and "the zero card" for 0. */
export const sixNimmtCardText = (card: number): string =>
  card === ZERO_CARD ? t().notation.zeroCard : String(card);

/** A Sequence Numbers cell of the wire: 24 (row 2, column 4) is "r3c5". */
export const sequenceNumbersCellText = (cell: number): string =>
  cellText(Math.floor(cell / BOARD_SIZE), cell % BOARD_SIZE);

/** A Sequence Numbers card: "17 + 9 = 26" ("17 + 9" without results), "PLUS" or "MINUS". */
export function sequenceNumbersCardText(card: Json, results = true): string {
  if (card.kind === "SEQUENCE_NUMBERS_CARD_KIND_PLUS") return "PLUS";
  if (card.kind === "SEQUENCE_NUMBERS_CARD_KIND_MINUS") return "MINUS";
  const sign = card.operator === "SEQUENCE_NUMBERS_OPERATOR_SUBTRACT" ? "-" : "+";
  const equation = `${Number(card.left ?? 0)} ${sign} ${Number(card.right ?? 0)}`;
  return results ? `${equation} = ${Number(card.result ?? 0)}` : equation;
}

/** What a Fora de Ordem card names: "2nd/3rd", "previous is correct". */
export function foraDeOrdemCardLabel(card: Json): string {
  if (card.kind === "FORA_DE_ORDEM_CARD_KIND_PREVIOUS_CORRECT") return t().notation.previousCorrect;
  if (card.kind === "FORA_DE_ORDEM_CARD_KIND_PREVIOUS_WRONG") return t().notation.previousWrong;
  return ((card.ranks ?? []) as unknown[]).map((rank) => ordinalText(Number(rank))).join("/");
}

/** A Fora de Ordem card with its bombs: "2nd/3rd [3b]". */
export const foraDeOrdemCardText = (card: Json): string =>
  `${foraDeOrdemCardLabel(card)} ${t().notation.bombs(Number(card.bombs ?? 0))}`;
