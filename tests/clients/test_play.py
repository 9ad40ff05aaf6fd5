"""``ordo play`` in a pseudo-terminal, as a person at a keyboard meets it, against the session's
server: whole games of each kind, hot seat, help, taking back a part of a move, leaving."""

from __future__ import annotations

import os
import pty
import random
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from ordo.client import Client
from ordo.play import HELP, choose
from ordo.render import generic_action_steps, renderer
from ordo.v1 import common_pb2 as common
from ordo.v1 import sequence_numbers_pb2

PROMPT = "> "
CHOOSE = "Choose"
ENTER_PROMPT = "then press Enter. "
KEY = re.compile(r"^  \[([^\]]+)\] (.*)$", re.MULTILINE)
SECONDS = 60  # far more than any of these games takes; only stops a hung run
MOVES = 2_000  # more answers than any of these games asks for
GAMES = {
    "six_nimmt": ("--option", "end=FIXED_HANDS", "--option", "hands=1"),
    "sequence_numbers": (),
    "up_or_down": (),
    "fora_de_ordem": ("--option", "rounds=1", "--lang", "en"),
}


class Terminal:
    """``ordo play`` with a pseudo-terminal for its standard input, output and error."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ordo.cli", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        self.screen = ""  # everything shown so far
        self.seen = 0  # how much of it ``wait`` has returned

    def wait(self, *endings: str) -> str:
        """What is shown from the last wait until the output ends with one of ``endings`` or
        the program exits (every ending when there are none)."""
        deadline = time.monotonic() + SECONDS
        while not (endings and self.screen[self.seen :].endswith(endings)):
            left = deadline - time.monotonic()
            assert left > 0, f"no {endings} after:\n{self.screen[-2000:]}"
            ready, _, _ = select.select([self.master], [], [], left)
            try:
                chunk = os.read(self.master, 65536) if ready else b""
            except OSError:  # the program exited and closed the terminal
                break
            if ready and not chunk:
                break
            self.screen += chunk.decode().replace("\r\n", "\n")
        shown, self.seen = self.screen[self.seen :], len(self.screen)
        return shown

    def type(self, line: str) -> None:
        os.write(self.master, f"{line}\n".encode())

    def close(self) -> int:
        """Wait for the program to exit; its exit code."""
        code = self.process.wait(timeout=SECONDS)
        os.close(self.master)
        return code


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    """The terminals a test opens; any program still running at its end is killed."""
    opened: list[Terminal] = []
    yield opened
    for terminal in opened:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait()


def play(terminals: list[Terminal], server_address: str, *args: str) -> Terminal:
    terminal = Terminal("--target", server_address, "play", *args)
    terminals.append(terminal)
    return terminal


def choices(shown: str) -> list[tuple[str, str]]:
    """The keys and texts of the last list of choices shown (a table may hold such lines too)."""
    return KEY.findall(shown[shown.rfind(CHOOSE) :])


def play_to_the_end(terminal: Terminal, seed: int) -> str:
    """Answer every question with a key picked at random among those listed; all shown."""
    pick = random.Random(seed)
    for _ in range(MOVES):
        shown = terminal.wait(PROMPT, ENTER_PROMPT)
        if shown.endswith(ENTER_PROMPT):
            terminal.type("")
        elif shown.endswith(PROMPT):
            keys = choices(shown)
            assert keys, f"a question without choices:\n{shown}"
            terminal.type(pick.choice(keys)[0])
        else:
            return terminal.screen
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_against_a_bot(
    terminals: list[Terminal], server_address: str, game: str
) -> None:
    """A person plays seat 1 to the end of a game of each kind: the outcome closes it, saying
    why the game ended in words."""
    terminal = play(terminals, server_address, game, "--seed", "7", *GAMES[game])
    screen = play_to_the_end(terminal, seed=7)
    assert terminal.close() == 0, screen[-2000:]
    assert "You play seat 1; a heuristic bot plays seat 2." in screen
    assert re.search(r"Game over: [a-z' ]+\.\nScores \(\w+ is better\): seat 1 \(you\): ", screen)
    assert not re.search(r"Game over.*[A-Z]{2,}_[A-Z]", screen)
    assert "Winners: " in screen
    assert "Traceback" not in screen


def test_a_hot_seat_game(terminals: list[Terminal], server_address: str) -> None:
    """Two people share the terminal: each turn waits for the next person, who sees their own
    seat's hand."""
    terminal = play(
        terminals,
        server_address,
        "fora_de_ordem",
        "--people",
        "1,2",
        "--seed",
        "5",
        *GAMES["fora_de_ordem"],
    )
    screen = play_to_the_end(terminal, seed=5)
    assert terminal.close() == 0
    assert "You play seats 1 and 2 in turn (hot seat)." in screen
    assert "pass the keyboard to seat 1" in screen
    assert "pass the keyboard to seat 2" in screen
    assert "Seat 2, your move." in screen
    assert "Scores (lower is better): seat 1 (you): " in screen


def test_help_unknown_keys_and_leaving(terminals: list[Terminal], server_address: str) -> None:
    """``?`` explains the keys, an unknown key is refused with a hint, ``q`` leaves with exit
    code 0."""
    terminal = play(terminals, server_address, "six_nimmt", "--seed", "3")
    shown = terminal.wait(PROMPT)
    assert "Seat 1, your move." in shown
    terminal.type("?")
    assert HELP.splitlines()[0] in terminal.wait(PROMPT)
    terminal.type("zz")
    assert "No choice 'zz': type a key in brackets" in terminal.wait(PROMPT)
    terminal.type("q")
    assert "You left the game." in terminal.wait()
    assert terminal.close() == 0


def test_a_time_limit_shows_every_seats_clock(
    terminals: list[Terminal], server_address: str
) -> None:
    """With ``--move-limit``, each turn shows every seat's clock, the person's running."""
    terminal = play(terminals, server_address, "up_or_down", "--seed", "3", "--move-limit", "90")
    shown = terminal.wait(PROMPT)
    assert re.search(r"Clocks: seat 1 1:[23]\d \(running\), seat 2 1:30\n", shown), shown
    terminal.type("q")
    assert "You left the game." in terminal.wait()
    assert terminal.close() == 0


def test_a_compound_move_step_by_step(terminals: list[Terminal], server_address: str) -> None:
    """An Up or Down? turn is asked part by part, each list holding what some legal turn still
    allows; ``back`` takes back the last part chosen, and the turn is played once complete."""
    terminal = play(terminals, server_address, "up_or_down", "--seed", "11")
    cards = choices(terminal.wait(PROMPT))
    assert [text.split()[0] for _, text in cards] == ["play"] * len(cards)
    card = cards[0][0]
    terminal.type(card)
    shown = terminal.wait(PROMPT)
    assert f"(so far: play {card}" in shown
    takes = choices(shown)
    assert [key for key, _ in takes] == ["l", "h"]
    terminal.type("back")
    assert choices(terminal.wait(PROMPT)) == cards
    terminal.type(card)
    terminal.wait(PROMPT)
    terminal.type("h")
    shown = terminal.wait(PROMPT)
    assert re.search(rf"so far: play {card}\w*, take the higher neighbour", shown)
    for _ in range(3):  # the place and the pile, as long as they are questions
        if "Seat 1: play" in shown:
            break
        terminal.type(choices(shown)[0][0])
        shown = terminal.wait(PROMPT)
    assert re.search(rf"Seat 1: play {card}\w*, take the higher neighbour \w+, ", shown)
    terminal.type("q")
    terminal.wait()
    assert terminal.close() == 0


class Person:
    """Answers ``choose``'s questions with a key picked at random; remembers each question's
    options and the text of the option picked."""

    def __init__(self, seed: int) -> None:
        self.pick = random.Random(seed)
        self.questions: list[list[str]] = []
        self.answers: list[str] = []
        self.keys: list[str] = []

    def say(self, text: str) -> None:
        if KEY.search(text):
            self.questions.append([line for _, line in KEY.findall(text)])
            self.keys = [key for key, _ in KEY.findall(text)]

    def ask(self, prompt: str) -> str:
        index = self.pick.randrange(len(self.keys))
        self.answers.append(self.questions[-1][index])
        return self.keys[index]


@pytest.mark.parametrize("game", ["up_or_down", "sequence_numbers", "fora_de_ordem"])
def test_each_step_offers_what_some_legal_move_allows(server_address: str, game: str) -> None:
    """Choosing part by part, each list offered holds exactly the next parts of the legal moves
    that agree with the parts chosen so far, and the move chosen is one of them."""
    with Client(server_address) as client:
        render = renderer(game)
        state = client.new_game(game, 2, seed=13).state
        view = client.get_view(state, 0).view
        actions = list(client.list_legal_actions(state, 0).actions)
    steps = [render.action_steps(action, view) for action in actions]
    paths = [[step.text for step in move] for move in steps]
    for seed in range(20):
        person = Person(seed)
        path = paths[choose(steps, person.ask, person.say)]
        depth = 0
        for options, answer in zip(person.questions, person.answers, strict=True):
            depth = path.index(answer, depth)  # the part this question decided
            agreeing = [other for other in paths if other[:depth] == path[:depth]]
            assert sorted(options) == sorted({other[depth] for other in agreeing})
            depth += 1


def test_a_move_no_renderer_knows_is_offered_as_its_text() -> None:
    """A move the game's renderer does not know (one a newer server added) is still offered,
    as the generic text of its message: a single step."""
    action = common.Action(seat=0, sequence_numbers=sequence_numbers_pb2.SequenceNumbersAction())
    (step,) = renderer("sequence_numbers").action_steps(action, None)
    assert step == generic_action_steps(action, None)[0]
    assert renderer("sequence_numbers").action_text(action) == step.text


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("--people", "1,1"), "--people must name distinct seats of 1..2"),
        (("--people", "0"), "--people must name distinct seats of 1..2"),
        (("--people", "3"), "--people must name distinct seats of 1..2"),
        (("--people", "me"), "--people takes seat numbers separated by commas"),
        (("--option", "hands=many"), "--option hands: 'many' is not a whole number"),
        (
            ("--option", "end=SOMETIMES"),
            "--option end: 'SOMETIMES' is not one of PENALTY_THRESHOLD, FIXED_HANDS",
        ),
        (("--option", "zero_card=maybe"), "--option zero_card: 'maybe' is not true or false"),
        (("--option", "colour=red"), "--option takes NAME=VALUE with a NAME of too_low_rule, end"),
    ],
)
def test_bad_seats_and_options_are_usage_errors(
    server_address: str, args: tuple[str, ...], error: str
) -> None:
    """Seats people cannot play and options the game does not have stop ``ordo play`` with
    exit code 2 and the reason, before any game is dealt."""
    done = subprocess.run(
        [sys.executable, "-m", "ordo.cli", "--target", server_address, "play", "six_nimmt", *args],
        capture_output=True,
        text=True,
        timeout=SECONDS,
        check=False,
    )
    assert done.returncode == 2
    assert error in done.stderr
