/** The request id every call carries, the same for all its attempts, and the seat token header. */

/** The header that carries it; the server's log lines name it. */
export const REQUEST_ID_KEY = "x-request-id";

/** The header that carries a seat token, to a server that requires them. */
export const SEAT_TOKEN_KEY = "ordo-seat-token";

/** A fresh request id: 32 random hex digits (a page on plain HTTP has no `randomUUID`). */
export function newRequestId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
