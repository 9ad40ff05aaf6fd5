/**
 * The links of hosted tables: the address of the server's HTTP port (its playground) with the
 * table's id and one seat's token in the URL's fragment, which browsers never send to a server:
 * `http://host:8080/#table=TABLE_ID&token=TOKEN`.
 */

/** What a table's link holds. */
export interface TableLink {
  /** The server's HTTP address (`http://host:8080`). */
  baseUrl: string;
  /** The hosted table (`NewGameResponse.tableId`). */
  tableId: string;
  /** One seat's token, or the spectator's. */
  token: string;
}

/** The seat word of a spectator's token (`o1.KEY.MATCH.SEAT.MAC`). */
const SPECTATOR_SEAT = "s";

/** The link that seats the holder of `token` at a table: the token in the fragment. */
export function tableLink(baseUrl: string, tableId: string, token: string): string {
  const fragment = new URLSearchParams({ table: tableId, token });
  return `${baseUrl.replace(/\/+$/, "")}/#${fragment.toString()}`;
}

/** The table and token of a link (or of a page's `location.hash`); `null` for anything else. */
export function parseTableLink(link: string): TableLink | null {
  const at = link.indexOf("#");
  const fragment = new URLSearchParams(at < 0 ? "" : link.slice(at + 1));
  const tableId = fragment.get("table") ?? "";
  const token = fragment.get("token") ?? "";
  if (!tableId || !token) {
    return null;
  }
  return { baseUrl: at <= 0 ? "" : link.slice(0, at).replace(/\/+$/, ""), tableId, token };
}

/** The seat a seat token plays (its fourth word): `null` for a spectator's, or no token. */
export function tokenSeat(token: string): number | null {
  const words = token.split(".");
  if (words.length !== 5 || words[3] === SPECTATOR_SEAT || !/^\d+$/.test(words[3])) {
    return null;
  }
  return Number(words[3]);
}
