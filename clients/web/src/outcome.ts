// The end of a game: who won and why, in the game's own terms, each seat's score and where it
// came from, and "Play again" with the same settings (src/main.ts wires the button).
import { phase } from "./board.ts";
import { t } from "./i18n.ts";
import { hosted, names, type AnySession } from "./session.ts";
import type { Json } from "./types.ts";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

function cell(tag: "td" | "th", text: string): HTMLTableCellElement {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

/** Shows the end of `session`'s game, told from the last view of the seat shown. */
export function showOutcome(session: AnySession): void {
  const p = t().page;
  const outcome = session.status.outcome ?? {};
  const scores = (outcome.scores ?? []).map(Number);
  const winners = outcome.winners ?? [];
  const named = names(session);
  const view = (session.view?.view[session.key] ?? {}) as Json;
  const end = session.ui.outcome({
    view,
    status: session.status,
    history: session.history.get(session.shown) ?? [],
    names: named,
    seats: session.kinds.length,
  });
  const box = $("outcome");
  box.hidden = false;
  box.dataset.scores = JSON.stringify(scores);
  box.dataset.winners = JSON.stringify(winners);
  const title = document.createElement("h3");
  const who = end.winners ?? winners.map((s) => named[s] ?? "");
  title.textContent = who.length ? p.outcome.wins(who) : p.outcome.draw;
  const why = document.createElement("p");
  why.className = "why";
  why.textContent = end.why;
  const unit = session.ui.unit();
  const better = outcome.lowerIsBetter
    ? p.outcome.lowerIsBetter(unit)
    : p.outcome.higherIsBetter(unit);
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  head.append(cell("th", p.outcome.seat), cell("th", p.outcome.score), cell("th", p.outcome.from));
  const body = table.createTBody();
  named.forEach((name, seat) => {
    const row = body.insertRow();
    if (winners.includes(seat)) row.className = "winner";
    const won = winners.includes(seat) ? ` ${p.outcome.winner}` : "";
    row.append(
      cell("td", `${name}${won}`),
      cell("td", String(scores[seat] ?? 0)),
      cell("td", end.details[seat] ?? ""),
    );
  });
  const caption = table.createCaption();
  caption.textContent = better;
  box.replaceChildren(title, why, table);
  // Play again deals the same settings on this screen: a hosted table's page has none.
  $("play-again").hidden = hosted(session);
  // The hands are played out: the end takes their place, in sight.
  $("hand").hidden = true;
  $("hand-title").hidden = true;
  box.scrollIntoView({ block: "nearest" });
  $("turn").textContent = p.over;
  $("choices").replaceChildren();
  phase("over");
}
