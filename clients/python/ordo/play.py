"""``ordo play``: people play seats of a game against bots, in a terminal.

Each person's turn shows what happened since their last one and the table as their seat sees it
(``GetView``), then asks for a move among the seat's legal actions (``ListLegalActions``). A move
made of several choices (an Up or Down? turn: card, neighbour, place, pile) is asked one choice
at a time, each offering only what some legal action still allows; a choice that is the only one
left is made without asking. The choices come from the game's renderer (``ordo.render``), so a
move the renderer does not know still appears, as its generic text. The server plays the other
seats (``NewGame``'s ``bots``, each of their moves ``ApplyAction`` with ``bot``), so that the
game plays on a server that requires seat tokens too, each person asking with their own seat's
token. A move is final once applied: the new state is the server's answer. With ``save_to``,
the game is recorded as it is played (``ordo.records.Recorder``) and its record saved there,
with its keeper's seat and token, when it ends or the people leave.

Several people share one terminal in turn (hot seat): before each of their turns the screen is
cleared and the next person is asked to take the keyboard, so no one sees another's hand. Seats
are counted from 1, as the playground counts them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from ordo.client import Client
from ordo.notation import seat_text, seats_text
from ordo.records import Recorder, save
from ordo.render import Renderer, Step, termination_text
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api

__all__ = [
    "QuitRequestedError",
    "Table",
    "ask",
    "choose",
    "option_keys",
    "outcome_lines",
    "play_game",
]

QUIT_WORDS = ("q", "quit")
HELP_WORDS = ("?", "help")
BACK_WORDS = ("b", "back")
CLEAR_SCREEN = "\x1b[2J\x1b[H"
RULE = "-" * 72  # above each turn of a person
NO_MORE = Step("end the move here")  # a move that is a prefix of another, longer one
HELP = """\
Type the key in brackets of a choice, then Enter. A move of several parts is chosen one part at
a time: each list offers only what some legal move still allows, and a part with one possibility
left is chosen for you.
  back (b)   take back the last part chosen of the move not yet made
  quit (q)   leave the game
  help (?)   this text
A move is final once made: the state is the server's answer, there is no undo."""


class QuitRequestedError(Exception):
    """A person asked to leave the game (or their input ended)."""


@dataclass
class Table:
    """A game in progress with the seats people play; each person's events not yet shown."""

    client: Client
    info: common.GameInfo
    render: Renderer
    people: Sequence[int]
    bots: str
    inp: TextIO
    out: TextIO
    unseen: dict[int, list[common.Event]] = field(default_factory=dict)
    last_person: int | None = None  # the seat of the person who moved last
    moved: set[int] = field(default_factory=set)  # the people's seats that have moved
    save_to: str | None = None  # the file the game's record is saved to
    # Each person's seat token, and the spectator's under None; empty without seat tokens.
    tokens: dict[int | None, str] = field(default_factory=dict)

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        """One line typed by the person; ``QuitRequestedError`` when the input has ended."""
        return ask(self.inp, self.out, prompt)

    @property
    def hot_seat(self) -> bool:
        return len(self.people) > 1


def ask(inp: TextIO, out: TextIO, prompt: str) -> str:
    """One line typed by a person after ``prompt``; ``QuitRequestedError`` when the input has
    ended."""
    out.write(prompt)
    out.flush()
    line = inp.readline()
    if not line:
        print(file=out, flush=True)
        raise QuitRequestedError
    return line.strip()


def option_keys(options: Sequence[Step]) -> list[str]:
    """What a person types for each option: the short codes when every option has its own (and
    none is a command word), else the numbers 1, 2, 3…"""
    codes = [step.code.lower() for step in options]
    commands = {*QUIT_WORDS, *HELP_WORDS, *BACK_WORDS}
    if all(codes) and len(set(codes)) == len(codes) and not commands & set(codes):
        return codes
    return [str(number) for number in range(1, len(options) + 1)]


def choose(
    steps: Sequence[Sequence[Step]], ask: Callable[[str], str], say: Callable[[str], None]
) -> int:
    """The index of the move a person picks among ``steps`` (each legal move as its steps),
    asking one step at a time; raises ``QuitRequestedError`` when they leave."""
    candidates = list(range(len(steps)))
    chosen: list[str] = []
    asked: list[tuple[list[int], int]] = []  # before each question: the candidates, the depth
    while True:
        depth = len(chosen)
        branches: dict[Step, list[int]] = {}
        for index in candidates:
            step = steps[index][depth] if depth < len(steps[index]) else NO_MORE
            branches.setdefault(step, []).append(index)
        if len(branches) == 1:
            ((step, candidates),) = branches.items()
            if step is NO_MORE:
                return candidates[0]
            chosen.append(step.text)
            continue
        options = list(branches)
        keys = option_keys(options)
        lines = [f"  [{key}] {step.text}" for key, step in zip(keys, options, strict=True)]
        so_far = f" (so far: {', '.join(chosen)})" if chosen else ""
        say(f"Choose{so_far}:\n" + "\n".join(lines))
        while True:
            answer = ask("> ").lower()
            if answer in keys:
                asked.append((candidates, depth))
                step = options[keys.index(answer)]
                candidates = branches[step]
                if step is not NO_MORE:
                    chosen.append(step.text)
                else:
                    return candidates[0]
                break
            if answer in QUIT_WORDS:
                raise QuitRequestedError
            if answer in HELP_WORDS:
                say(HELP)
            elif answer in BACK_WORDS:
                if not asked:
                    say("Nothing to take back: no part of this move is chosen yet.")
                    continue
                candidates, depth = asked.pop()
                del chosen[depth:]
                break
            elif answer:
                say(f"No choice {answer!r}: type a key in brackets (? for help, q to quit).")


def play_game(table: Table, options: common.GameOptions, seats: int, seed: int) -> int:
    """Deal a game and play it to the end (or until a person leaves); returns the exit code.
    With ``table.save_to``, the record is saved once the game ended or the people left, never
    on a failure (which is reported instead)."""
    recorder = Recorder(table.client) if table.save_to is not None else None
    code = _play(table, recorder or table.client, options, seats, seed)
    if recorder is not None and table.save_to is not None and recorder.state is not None:
        # The record opens again as its keeper saw the game: one person's seat, or a
        # spectator's when several people share the screen.
        keeper = table.people[0] if len(table.people) == 1 else None
        recorder.kept_by(keeper, table.tokens.get(keeper, ""))
        save(recorder.record, table.save_to)
        table.say(f"The game's record is saved in {table.save_to}.")
    return code


def _play(
    table: Table, moves: Client | Recorder, options: common.GameOptions, seats: int, seed: int
) -> int:
    """Play the game, dealing it and applying its moves through ``moves``; the server plays the
    bots' seats (``bots``), so each person asks only as their own seat."""
    info = table.info
    bots = [seat for seat in range(seats) if seat not in table.people]
    started = moves.new_game(options, seats, seed, bots=dict.fromkeys(bots, table.bots))
    state, status = started.state, started.status
    table.unseen = {seat: [] for seat in table.people}
    if started.spectator_token:
        table.tokens = {seat: started.seat_tokens[seat] for seat in table.people}
        table.tokens[None] = started.spectator_token
    seed_text = f"seed {started.seed}" if started.seed else "a seed the server keeps"
    table.say(f"{info.title}: {seats} seats, {seed_text}")
    table.say(
        f"You play {seats_text(table.people)}"
        + (" in turn (hot seat)" if table.hot_seat else "")
        + (f"; {bots_text(table.bots, bots)}" if bots else "")
        + ". Type ? for help, q to quit."
    )
    try:
        while not status.finished:
            acting = list(status.seats_to_act)
            if not acting:
                table.say("ordo: the game is not over but no seat is to act")
                return 1
            for seat in acting if info.simultaneous else acting[:1]:
                if seat not in status.seats_to_act:  # an earlier action changed who acts
                    continue
                state, status = apply_move(table, moves, state, seat)
    except QuitRequestedError:
        table.say("You left the game.")
        return 0
    show_end(table, state, status.outcome)
    return 0


def apply_move(
    table: Table, moves: Client | Recorder, state: common.GameState, seat: int
) -> tuple[common.GameState, common.GameStatus]:
    """Apply ``seat``'s move (a person's choice, or the server's bot's) through ``moves``, and
    keep for each person the events they may see. Without seat tokens one answer holds every
    event with its audience. With them a call sees what its token's seat may: a person's move
    goes with their token, and the other people are told its public events; a bot's move goes
    with the first person's token, and is asked again with each other person's for their events
    (the rules are pure: the same state and move give the same answer, which the revision fence
    takes as a retry)."""
    action = person_move(table, state, seat) if seat in table.people else None
    if not table.tokens:
        applied = send_move(moves, state, seat, action)
        keep_events(table, applied.events, table.people)
        return applied.state, applied.status
    asker = seat if action is not None else table.people[0]
    applied = send_move(moves, state, seat, action, asker, table.tokens[asker])
    keep_events(table, applied.events, [asker])
    for person in table.people:
        if person == asker:
            continue
        if action is not None:
            keep_events(table, [e for e in applied.events if e.public], [person])
        else:
            again = send_move(table.client, state, seat, None, person, table.tokens[person])
            keep_events(table, again.events, [person])
    return applied.state, applied.status


def send_move(
    client: Client | Recorder,
    state: common.GameState,
    seat: int,
    action: common.Action | None,
    viewer: int | None = None,
    token: str | None = None,
) -> api.ApplyActionResponse:
    """Apply ``action``, or the bot's move for ``seat`` when it is None, answered with the
    events ``viewer`` may see (every event with its audience when None)."""
    shown = None if viewer is None else common.Viewer(seat=viewer)
    if action is not None:
        return client.apply_action(state, action, viewer=shown, seat_token=token)
    return client.play_bot(state, seat, viewer=shown, seat_token=token)


def keep_events(table: Table, events: Sequence[common.Event], people: Sequence[int]) -> None:
    """Keep, for each of ``people``, the events they may see, until their next turn."""
    for person in people:
        table.unseen[person].extend(e for e in events if e.public or person in e.visible_to_seats)


def bots_text(policy: str, seats: Sequence[int]) -> str:
    """``a heuristic bot plays seat 1``, or ``random bots play seats 1 and 2``."""
    if len(seats) == 1:
        article = "an" if policy[:1] in "aeiou" else "a"
        return f"{article} {policy} bot plays {seats_text(seats)}"
    return f"{policy} bots play {seats_text(seats)}"


def person_move(table: Table, state: common.GameState, seat: int) -> common.Action:
    """Show a person their seat's table and what happened since their last move; their move."""
    if table.hot_seat and table.last_person != seat:
        if table.out.isatty() and table.last_person is not None:
            table.out.write(CLEAR_SCREEN)  # the last person's hand goes out of sight
        who = seat_text(seat)
        table.ask(f"{who.capitalize()}'s turn: pass the keyboard to {who}, then press Enter. ")
    table.last_person = seat
    table.say(RULE)
    show_events(table, seat)
    token = table.tokens.get(seat)
    view = table.client.get_view(state, seat, seat_token=token).view
    table.say(table.render.render_view(view))
    actions = list(table.client.list_legal_actions(state, seat, seat_token=token).actions)
    steps = [table.render.action_steps(action, view) for action in actions]
    who = seat_text(seat).capitalize()
    table.say(f"\n{who}, your move.")
    action = actions[choose(steps, table.ask, table.say)]
    table.say(f"{who}: {table.render.action_text(action, view)}\n")
    table.moved.add(seat)
    return action


def show_events(table: Table, seat: int) -> None:
    """Print, and forget, what ``seat`` may see of what happened since its last move."""
    lines = table.render.render_events(table.unseen[seat])
    table.unseen[seat] = []
    if lines:
        table.say("Since your last move:" if seat in table.moved else "Before your first move:")
        for line in lines:
            table.say(f"  {line}")
        table.say()


def show_end(table: Table, state: common.GameState, outcome: common.Outcome) -> None:
    """The last events, the table as a spectator sees it and the outcome."""
    public: list[common.Event] = []
    for events in table.unseen.values():
        public.extend(event for event in events if event.public and event not in public)
    if not table.hot_seat and table.people:
        public = table.unseen[table.people[0]]  # one person: their own events too
    table.say("\nThe last moves:")
    for line in table.render.render_events(public):
        table.say(f"  {line}")
    table.say()
    spectator = table.client.get_view(state, seat_token=table.tokens.get(None))
    table.say(table.render.render_view(spectator.view))
    for line in outcome_lines(outcome, table.people):
        table.say(line)


def outcome_lines(outcome: common.Outcome, people: Sequence[int]) -> list[str]:
    """How a game ended, its scores and its winners, the ``people``'s seats marked (you)."""
    better = "lower" if outcome.lower_is_better else "higher"

    def name(seat: int) -> str:
        return f"{seat_text(seat)} (you)" if seat in people else seat_text(seat)

    scores = ", ".join(f"{name(seat)}: {score}" for seat, score in enumerate(outcome.scores))
    winners = ", ".join(name(seat) for seat in outcome.winners) or "none (a draw)"
    return [
        f"\nGame over: {termination_text(outcome.termination)}.",
        f"Scores ({better} is better): {scores}",
        f"Winners: {winners}",
    ]
