"""The terminal game reads as the page does: seats, rows and sides counted from 1, colour letters
with their legend, an end told in words, cards without internal ids, the terminal's language,
results a player may hide; and a command without a server says how to get one. In a
pseudo-terminal against the session's server, as a person meets it."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from ordo.client import Client
from ordo.render import renderer, termination_text
from ordo.v1 import common_pb2 as common
from ordo.v1 import fora_de_ordem_pb2
from ordo.v1 import sequence_numbers_pb2 as sequence_numbers
from tests.clients.test_play import PROMPT, SECONDS, Terminal

ENGLISH = fora_de_ordem_pb2.FORA_DE_ORDEM_LANGUAGE_EN
PORTUGUESE = fora_de_ordem_pb2.FORA_DE_ORDEM_LANGUAGE_PT_BR


@pytest.fixture
def opened() -> Iterator[list[Terminal]]:
    """The terminals a test opens; any program still running at its end is killed."""
    terminals: list[Terminal] = []
    yield terminals
    for terminal in terminals:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait()


def first_turn(opened: list[Terminal], server_address: str, *args: str) -> str:
    """What ``ordo play`` shows up to its first question, then leaves."""
    terminal = Terminal("--target", server_address, "play", *args)
    opened.append(terminal)
    shown = terminal.wait(PROMPT)
    terminal.type("q")
    terminal.wait()
    assert terminal.close() == 0
    return shown


def category(server_address: str, language: int) -> str:
    """The first question of Fora de Ordem's seed 5 in ``language``, as the server deals it."""
    options = common.GameOptions()
    options.fora_de_ordem.language = language  # type: ignore[assignment]
    with Client(server_address) as client:
        state = client.new_game(options, 2, 5).state
        return client.get_view(state, 0).view.fora_de_ordem.category


class TestCountedFromOne:
    """Seats, rows, cells and sides are counted from 1, as on the page."""

    def test_six_nimmt(self, opened: list[Terminal], server_address: str) -> None:
        """Rows 1 to 4, seat 1 to move, row codes from r1."""
        shown = first_turn(opened, server_address, "six_nimmt", "--seed", "3")
        assert re.findall(r"^  row (\d):", shown, re.MULTILINE) == ["1", "2", "3", "4"]
        assert "Seat 1, your move." in shown
        assert "seat 0" not in shown

    def test_fora_de_ordem_sides(self, opened: list[Terminal], server_address: str) -> None:
        """The five sides are side 1 to side 5, and a side is chosen by those numbers."""
        shown = first_turn(opened, server_address, "fora_de_ordem", "--seed", "5", "--lang", "en")
        table = shown.split("Choose")[0]
        assert re.findall(r"^  side (\d)  ", table, re.MULTILINE) == ["1", "2", "3", "4", "5"]

    def test_sequence_numbers_cells(self, opened: list[Terminal], server_address: str) -> None:
        """The board's rows and columns are numbered 1 to 10."""
        shown = first_turn(opened, server_address, "sequence_numbers", "--seed", "7")
        assert re.search(r"^\s+1\s+2 .*\s10$", shown, re.MULTILINE)
        assert re.search(r"^ 10 ", shown, re.MULTILINE)


class TestReadable:
    """What a table shows needs no knowledge of the messages behind it."""

    def test_up_or_down_colour_legend(self, opened: list[Terminal], server_address: str) -> None:
        """Every colour letter a card shows is named in the legend below the table."""
        shown = first_turn(opened, server_address, "up_or_down", "--seed", "11")
        (legend,) = re.findall(r"^colours\s+(.*)$", shown, re.MULTILINE)
        named = dict(part.split(" ") for part in legend.split(", "))
        letters = set(re.findall(r"\b\d+([a-z])\b", shown.split("colours")[0]))
        assert letters
        assert letters <= set(named)
        assert set(named.values()) <= {"yellow", "blue", "red", "green", "purple", "orange"}

    def test_fora_de_ordem_hand_has_no_card_ids(
        self, opened: list[Terminal], server_address: str
    ) -> None:
        """The hand lists cards as printed (ranks and bombs), not by their ids."""
        shown = first_turn(opened, server_address, "fora_de_ordem", "--seed", "5", "--lang", "en")
        (hand,) = re.findall(r"^Hand: (.*)$", shown, re.MULTILINE)
        assert hand
        assert not re.search(r"\d+: ", hand)
        assert re.fullmatch(r"(.+? \[\d+b\])(, .+? \[\d+b\])*", hand)

    def test_the_end_in_words(self) -> None:
        """Every way a game ends is told in words; an unknown one in lower case."""
        for word in ("PENALTY_THRESHOLD", "FIXED_HANDS", "SEQUENCES", "TURN_LIMIT"):
            assert not re.search(r"[A-Z_]{4}", termination_text(word))
        assert termination_text("OUT_OF_TIME") == "out of time"


class TestLanguage:
    """A game with a language speaks the terminal's, English when it is not Portuguese."""

    @pytest.mark.parametrize(
        ("locale", "language"),
        [("en_GB.UTF-8", ENGLISH), ("C.UTF-8", ENGLISH), ("pt_BR.UTF-8", PORTUGUESE)],
    )
    def test_from_the_locale(
        self,
        opened: list[Terminal],
        server_address: str,
        monkeypatch: pytest.MonkeyPatch,
        locale: str,
        language: int,
    ) -> None:
        """Without --lang, Fora de Ordem's questions are in the locale's language."""
        for name in ("LC_ALL", "LC_MESSAGES"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("LANG", locale)
        shown = first_turn(opened, server_address, "fora_de_ordem", "--seed", "5")
        assert category(server_address, language) in shown
        other = PORTUGUESE if language == ENGLISH else ENGLISH
        assert category(server_address, other) not in shown


class TestHiddenResults:
    """``--hide-results`` leaves an equation card's result for the player to work out."""

    def test_the_hand_shows_equations_only(
        self, opened: list[Terminal], server_address: str
    ) -> None:
        """With the option no card in the hand or the choices shows ``= result``; without it,
        the equations are solved."""
        hidden = first_turn(
            opened, server_address, "sequence_numbers", "--seed", "7", "--hide-results"
        )
        shown = first_turn(opened, server_address, "sequence_numbers", "--seed", "7")
        (hand,) = re.findall(r"^hand: (.*)$", hidden, re.MULTILINE)
        assert re.search(r"\d+ [+-] \d+", hand)
        assert " = " not in hidden.split("hand: ")[1]
        assert " = " in shown.split("hand: ")[1]

    def test_a_played_cell_is_not_named_by_its_number(self) -> None:
        """The cell of a play is named by its place, not by the number that is the result."""
        card = sequence_numbers.SequenceNumbersCard(
            id=4,
            left=17,
            right=9,
            result=26,
            operator=sequence_numbers.SEQUENCE_NUMBERS_OPERATOR_ADD,
        )
        game = sequence_numbers.SequenceNumbersView(hand=[card], numbers=list(range(100)))
        view = common.GameView(sequence_numbers=game)
        action = common.Action(seat=0)
        action.sequence_numbers.play.card = 4
        action.sequence_numbers.play.cell = 26
        assert renderer("sequence_numbers").action_text(action, view) == (
            "play 17 + 9 = 26, on 26 at r3c7"
        )
        assert renderer("sequence_numbers", results=False).action_text(action, view) == (
            "play 17 + 9, on r3c7"
        )


class TestNoServer:
    """A command with no server to talk to says where it looked and what to do."""

    @pytest.mark.parametrize("command", [("games",), ("play", "six_nimmt"), ("demo", "up_or_down")])
    def test_the_hint(self, command: tuple[str, ...]) -> None:
        """Exit 1, naming the address tried, how to start a server and how to name another."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "ordo.cli",
                "--target",
                f"127.0.0.1:{port}",
                "--timeout",
                "2",
                *command,
            ],
            capture_output=True,
            text=True,
            timeout=SECONDS,
            check=False,
        )
        assert done.returncode == 1
        assert f"cannot reach a server at 127.0.0.1:{port}" in done.stderr
        assert "make run" in done.stderr
        assert "Traceback" not in done.stderr
