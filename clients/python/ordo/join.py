"""``ordo host`` and ``ordo join``: a game hosted by the server, each seat played from its own
device.

``ordo host GAME`` asks the server to keep a game (``NewGame`` with ``host``), bots on the seats
not named by ``--people``, and prints one link per person and one for spectators
(``ordo.tables.table_link``): each person opens theirs in the playground, or plays it in a
terminal with ``ordo join LINK``.

``ordo join LINK`` follows the table (``WatchGame``, taken up again by itself when cut) and
prints each move as the link's seat sees it; when that seat is to act, it shows the table and
asks for a move among its legal actions (as ``ordo play`` does, ``ordo.play.choose``), sent
with the revision it was chosen at. Moves that land meanwhile (other seats choosing at the same
time) are printed once the move is made. A spectator's link watches only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from ordo.client import Client
from ordo.notation import seat_text
from ordo.play import QuitRequestedError, ask, choose, outcome_lines
from ordo.render import Renderer, renderer
from ordo.tables import Link, table_link
from ordo.v1 import engine_service_pb2 as api

__all__ = ["Seat", "host_links", "join_table"]

RULE = "-" * 72  # above each move


@dataclass
class Seat:
    """One device at a table: its client (with the link's token), what it renders, its terminal."""

    client: Client
    link: Link
    inp: TextIO
    out: TextIO
    render: Renderer | None = None  # the table's game's, once its stream has said which

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        """One line typed by the person; ``QuitRequestedError`` once the input has ended."""
        return ask(self.inp, self.out, prompt)


def host_links(
    dealt: api.NewGameResponse, base_url: str, title: str, bots: Sequence[int], policy: str
) -> list[str]:
    """What ``ordo host`` prints: the table, then a link for each person and the spectators."""
    lines = [f"{title}: table {dealt.table_id}, {len(dealt.seat_tokens)} seats"]
    if bots:
        seats = ", ".join(str(seat + 1) for seat in bots)
        lines.append(f"{policy} bots play seat{'s' if len(bots) > 1 else ''} {seats}")
    for seat, token in enumerate(dealt.seat_tokens):
        if token:
            link = table_link(base_url, dealt.table_id, token)
            lines.append(f"{seat_text(seat).capitalize()}: {link}")
    lines.append(f"Spectators: {table_link(base_url, dealt.table_id, dealt.spectator_token)}")
    lines.append("Give each person their own link only. Play one here: ordo join LINK")
    return lines


def join_table(seat: Seat) -> int:
    """Follow the table as the link's seat, playing its moves, to the end of the game (or until
    the person leaves); returns the exit code."""
    link, client = seat.link, seat.client
    me = link.seat
    who = "a spectator" if me is None else seat_text(me)
    seat.say(f"Table {link.table_id}: you watch as {who}. Type ? for help, q to quit.")
    moved_to = -1  # the revision this seat's last move made: earlier ones ask nothing again
    last: api.WatchGameResponse | None = None
    stream = client.watch_game(link.table_id)
    try:
        for message in stream:
            last = message
            if seat.render is None:
                seat.render = renderer(message.view.WhichOneof("game") or "")
            show(seat, seat.render, message)
            if me is None or me not in message.status.seats_to_act:
                continue
            if message.revision < moved_to:
                continue
            moved_to = play_move(seat, seat.render, me, message)
    except QuitRequestedError:
        seat.say("You left the table.")
        return 0
    finally:
        stream.close()
    if last is not None and last.status.finished:
        for line in outcome_lines(last.status.outcome, () if me is None else (me,)):
            seat.say(line)
    return 0


def show(seat: Seat, render: Renderer, message: api.WatchGameResponse) -> None:
    """One revision: the events of its move this seat may see (or, first, the table)."""
    if not message.HasField("seat"):
        seat.say(render.render_view(message.view))
        return
    for line in render.render_events(message.events):
        seat.say(f"  {line}")


def play_move(seat: Seat, render: Renderer, me: int, message: api.WatchGameResponse) -> int:
    """Show the table, ask for this seat's move and send it; the revision it made."""
    client, table_id = seat.client, seat.link.table_id
    seat.say(RULE)
    seat.say(render.render_view(message.view))
    actions = list(client.list_legal_actions(table_id, me).actions)
    if not actions:
        return message.revision + 1
    steps = [render.action_steps(action, message.view) for action in actions]
    seat.say(f"\n{seat_text(me).capitalize()}, your move.")
    action = actions[choose(steps, seat.ask, seat.say)]
    seat.say(f"You: {render.action_text(action, message.view)}")
    answer = client.apply_action(table_id, action, table_revision=message.revision)
    return answer.table_revision
