"""``ordo play --save`` and ``ordo replay`` in a pseudo-terminal, against the session's server: a
game saved, then watched again from a seat, as a spectator and with every card shown."""

from __future__ import annotations

from pathlib import Path

from ordo import records
from tests.clients.test_play import GAMES, PROMPT, Terminal, play_to_the_end, terminals
from tests.conftest import Doors

__all__ = ["terminals"]  # the fixture, shared with the play tests

GAME = "fora_de_ordem"


def saved_game(terminals: list[Terminal], server_address: str, path: Path) -> str:
    """Play a whole game with ``--save path``; the screen."""
    terminal = Terminal(
        "--target", server_address, "play", GAME, "--seed", "11", "--save", str(path), *GAMES[GAME]
    )
    terminals.append(terminal)
    screen = play_to_the_end(terminal, seed=11)
    assert terminal.close() == 0, screen[-2000:]
    return screen


def replay(terminals: list[Terminal], server_address: str, *args: str) -> Terminal:
    terminal = Terminal("--target", server_address, "replay", *args)
    terminals.append(terminal)
    return terminal


class TestSaveAndReplay:
    """A game played in the terminal is saved and watched again."""

    def test_play_saves_the_record(
        self, terminals: list[Terminal], server_address: str, tmp_path: Path
    ) -> None:
        """``--save`` writes the game's record when it ends, and says where."""
        path = tmp_path / f"game{records.SUFFIX}"
        screen = saved_game(terminals, server_address, path)
        assert f"The game's record is saved in {path}." in screen
        record = records.load(path)
        assert record.format_version == records.FORMAT_VERSION
        assert len(record.moves) > 0

    def test_stepping_forward_back_and_to_the_end(
        self, terminals: list[Terminal], server_address: str, tmp_path: Path
    ) -> None:
        """Enter steps forward, b back, l to the last step, f to the first, a number to that
        step, e runs to the end; q leaves with exit code 0."""
        path = tmp_path / f"game{records.SUFFIX}"
        saved_game(terminals, server_address, path)
        moves = len(records.load(path).moves)
        terminal = replay(terminals, server_address, str(path), "--seat", "1")
        shown = terminal.wait(PROMPT)
        assert f"A game of {moves} moves, checked by the server." in shown
        assert "Step 0 of" in shown
        terminal.type("")
        assert "Step 1 of" in terminal.wait(PROMPT)
        terminal.type("b")
        assert "Step 0 of" in terminal.wait(PROMPT)
        terminal.type("b")
        assert "Already at step 0." in terminal.wait(PROMPT)
        terminal.type("l")
        shown = terminal.wait(PROMPT)
        assert f"Step {moves} of {moves}" in shown
        assert "Game over." in shown
        terminal.type("3")
        assert "Step 3 of" in terminal.wait(PROMPT)
        terminal.type("f")
        assert "Step 0 of" in terminal.wait(PROMPT)
        terminal.type("e")
        shown = terminal.wait(PROMPT)
        assert shown.count("moved") == moves
        terminal.type("zz")
        assert "No command 'zz'" in terminal.wait(PROMPT)
        terminal.type("q")
        terminal.wait()
        assert terminal.close() == 0

    def test_reveal_shows_every_seat(
        self, terminals: list[Terminal], server_address: str, tmp_path: Path
    ) -> None:
        """``--reveal`` on a finished game shows each seat's table at each step."""
        path = tmp_path / f"game{records.SUFFIX}"
        saved_game(terminals, server_address, path)
        terminal = replay(terminals, server_address, str(path), "--reveal")
        shown = terminal.wait(PROMPT)
        assert "Seat 1:" in shown
        assert "Seat 2:" in shown
        terminal.type("q")
        terminal.wait()
        assert terminal.close() == 0

    def test_reveal_of_an_unfinished_game_is_refused(
        self, terminals: list[Terminal], server_address: str, tmp_path: Path
    ) -> None:
        """A game left before its end is saved, and ``--reveal`` of it is the server's refusal."""
        path = tmp_path / f"left{records.SUFFIX}"
        terminal = Terminal(
            "--target", server_address, "play", GAME, "--seed", "3", "--save", str(path)
        )
        terminals.append(terminal)
        terminal.wait(PROMPT)
        terminal.type("q")
        assert f"saved in {path}" in terminal.wait()
        assert terminal.close() == 0
        terminal = replay(terminals, server_address, str(path), "--reveal")
        assert "REVEAL_NOT_FINISHED" in terminal.wait()
        assert terminal.close() == 1

    def test_a_file_cut_short_is_a_usage_error(
        self, terminals: list[Terminal], server_address: str, tmp_path: Path
    ) -> None:
        """A record file cut in the middle is refused before any call, exit code 2."""
        path = tmp_path / f"game{records.SUFFIX}"
        saved_game(terminals, server_address, path)
        text = path.read_text()
        path.write_text(text[: len(text) // 2])
        terminal = replay(terminals, server_address, str(path))
        assert "not a game record" in terminal.wait()
        assert terminal.close() == 2


class TestWithSeatTokens:
    """Against a server that requires seat tokens: the demo watches with the spectator's
    token, a person plays with their seat's, and the saved record carries its keeper's seat and
    token, so that it replays there as they saw it, and with every card once it is over."""

    def test_demo_watches_with_the_spectators_token(
        self, terminals: list[Terminal], seated: Doors
    ) -> None:
        """``ordo demo`` plays a whole game there: the server's bots play every seat."""
        terminal = Terminal("--target", seated.grpc_address, "demo", "six_nimmt", "--seats", "3")
        terminals.append(terminal)
        screen = terminal.wait()
        assert terminal.close() == 0, screen[-2000:]
        assert screen.startswith("6 nimmt!: 3 seats, a seed the server keeps, heuristic bots")
        assert "winners: " in screen

    def test_play_saves_a_record_that_replays_as_its_keeper_saw_it(
        self, terminals: list[Terminal], seated: Doors, tmp_path: Path
    ) -> None:
        """``ordo play --save`` plays to the end and saves a record kept by seat 1 with its
        token; ``ordo replay`` shows it as seat 1 by default, and every card with --reveal."""
        path = tmp_path / f"game{records.SUFFIX}"
        terminal = Terminal(
            "--target", seated.grpc_address, "play", GAME, "--save", str(path), *GAMES[GAME]
        )
        terminals.append(terminal)
        screen = play_to_the_end(terminal, seed=4)
        assert terminal.close() == 0, screen[-2000:]
        assert f"The game's record is saved in {path}." in screen
        record = records.load(path)
        assert record.kept_by.seat == 0
        assert record.seat_token
        terminal = replay(terminals, seated.grpc_address, str(path))
        assert "the deal, as seat 1 sees it" in terminal.wait(PROMPT)
        terminal.type("q")
        terminal.wait()
        assert terminal.close() == 0
        terminal = replay(terminals, seated.grpc_address, str(path), "--reveal")
        assert "Seat 2:" in terminal.wait(PROMPT)
        terminal.type("q")
        terminal.wait()
        assert terminal.close() == 0

    def test_a_hot_seat_game_is_kept_by_a_spectator(
        self, terminals: list[Terminal], seated: Doors, tmp_path: Path
    ) -> None:
        """Two people share the terminal, each asking with their own seat's token (and each
        told what they may see of the other's moves); the record is kept by a spectator, whom
        nobody's hand is shown to."""
        path = tmp_path / f"game{records.SUFFIX}"
        terminal = Terminal(
            "--target", seated.grpc_address, "play", "up_or_down", "--people", "1,2",
            "--save", str(path),
        )  # fmt: skip
        terminals.append(terminal)
        screen = play_to_the_end(terminal, seed=6)
        assert terminal.close() == 0, screen[-2000:]
        assert "Since your last move:" in screen
        record = records.load(path)
        assert record.kept_by.spectator
        terminal = replay(terminals, seated.grpc_address, str(path))
        assert "the deal, as a spectator sees it" in terminal.wait(PROMPT)
        terminal.type("q")
        terminal.wait()
        assert terminal.close() == 0

    def test_a_refused_game_saves_nothing(
        self, terminals: list[Terminal], seated: Doors, tmp_path: Path
    ) -> None:
        """A game the server refuses to deal (a seed, where the server picks them) saves no
        record and says none is saved: the refusal is the last word."""
        path = tmp_path / f"game{records.SUFFIX}"
        terminal = Terminal(
            "--target", seated.grpc_address, "play", GAME, "--seed", "3", "--save", str(path)
        )
        terminals.append(terminal)
        screen = terminal.wait()
        assert terminal.close() == 1
        assert "SEED_NOT_PERMITTED" in screen
        assert "saved" not in screen
        assert not path.exists()
