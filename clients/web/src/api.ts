// The calls the page makes, over the HTTP door's Connect protocol with JSON bodies.
import type {
  Action,
  GameEvent,
  GameInfo,
  GameState,
  GameStatus,
  GameView,
  Json,
} from "./types.ts";

const SERVICE = "ordo.v1.GameEngineService";

/** A refusal from the server: its Connect code, the stable reason and the message for people. */
export class OrdoError extends Error {
  constructor(
    readonly code: string,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, request: Json): Promise<T> {
  const response = await fetch(`${SERVICE}/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
    body: JSON.stringify(request),
  });
  const body = (await response.json()) as Json;
  if (!response.ok) {
    const details = (body.details ?? []) as { debug?: { reason?: string } }[];
    const reason = details.map((d) => d.debug?.reason ?? "").find((r) => r) ?? "";
    throw new OrdoError(String(body.code ?? "unknown"), reason, String(body.message ?? ""));
  }
  return body as T;
}

export async function listGames(): Promise<GameInfo[]> {
  return (await call<{ games?: GameInfo[] }>("ListGames", {})).games ?? [];
}

export function newGame(
  seats: number,
  seed: string,
  options: Json,
): Promise<{ state: GameState; status?: GameStatus; seed?: string }> {
  return call("NewGame", { seats, seed, options });
}

export function applyAction(
  state: GameState,
  action: Action,
): Promise<{ state: GameState; status?: GameStatus; events?: GameEvent[] }> {
  return call("ApplyAction", { state, action });
}

export async function legalActions(state: GameState, seat: number): Promise<Action[]> {
  return (await call<{ actions?: Action[] }>("ListLegalActions", { state, seat })).actions ?? [];
}

export async function getView(state: GameState, seat: number | null): Promise<GameView> {
  const viewer = seat === null ? { spectator: true } : { seat };
  return (await call<{ view?: GameView }>("GetView", { state, viewer })).view ?? {};
}

export async function suggestAction(
  state: GameState,
  seat: number,
  policy: string,
): Promise<Action> {
  return (await call<{ action: Action }>("SuggestAction", { state, seat, policy })).action;
}
