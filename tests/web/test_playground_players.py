"""What players of online board games expect of the playground, in a real browser (Debian's
Chromium driven by playwright-core, ``clients/web/test/players.mjs``) at a desktop's size
(1366×900) and a phone's (390×844), with screenshots kept in ``test-artifacts/web``: the table,
the hand and the move in sight together, prompts in players' words, the end told in the game's
terms with Play again, a whole game in Portuguese, numbers from 1, options that apply, the
drawings' nits fixed, a game and its record kept across a reload, saved games that open again
on a server that requires seat tokens and close back to the game, take-backs against bots,
6 nimmt!'s reveal to watch, a sign of the turn in a background tab, and a dark theme.

The driver runs every scenario at one size in one browser; each test reads its scenario's
report, and the records the page saved are replayed here through the server."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ordo import records
from ordo.client import Client
from ordo.v1 import engine_service_pb2 as api
from tests.e2e.server_process import ServerProcess, free_port, running_server
from tests.redis_server import running_redis
from tests.state_keys import TEST_KEY, keys_file_text
from tests.web.test_playground import ARTIFACTS, CHROMIUM, WEB, node_and_browser

DRIVER = WEB / "test" / "players.mjs"
SIZES = ("desktop", "phone")
RUN_SECONDS = 1200  # every scenario at one size, on a busy machine; only stops a hung run


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str, str]]:
    """A server that seals its states, and one that requires seat tokens with a revision fence
    (on a redis-server of its own): the first, and both playgrounds' URLs."""
    scratch = tmp_path_factory.mktemp("players")
    keys = scratch / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    sealed_http, fair_http = free_port(), free_port()
    for room in ("sealed", "fair"):
        (scratch / room).mkdir()
    with (
        running_redis(scratch) as store,
        running_server(
            scratch / "sealed",
            workers=1,
            http_port=str(sealed_http),
            state_keys_file=str(keys),
            require_sealed="true",
        ) as sealed,
        running_server(
            scratch / "fair",
            workers=1,
            http_port=str(fair_http),
            state_keys_file=str(keys),
            require_seat_tokens="true",
            revision_store=store.url,
        ),
    ):
        yield sealed, f"http://127.0.0.1:{sealed_http}/", f"http://127.0.0.1:{fair_http}/"


@pytest.fixture(scope="module", params=SIZES)
def size(
    request: pytest.FixtureRequest,
    servers: tuple[ServerProcess, str, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    """Every scenario run at one size: the size, its reports by scenario, and the server."""
    sealed, url, fair_url = servers
    saves = tmp_path_factory.mktemp(f"saves-{request.param}")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    command = [
        *(node_and_browser(), str(DRIVER), "--url", url, "--fair-url", fair_url),
        *("--size", request.param, "--saves", str(saves), "--shots", str(ARTIFACTS)),
        *("--chromium", str(CHROMIUM)),
    ]
    done = subprocess.run(
        command, cwd=WEB, capture_output=True, text=True, timeout=RUN_SECONDS, check=False
    )
    lines = done.stdout.strip().splitlines()
    assert lines, f"the browser driver failed:\n{done.stderr}"
    reports: dict[str, Any] = json.loads(lines[-1])["scenarios"]
    return {"size": request.param, "reports": reports, "server": sealed}


def passed(size: dict[str, Any], scenario: str) -> dict[str, Any]:
    """The report of `scenario`, once every check of it passed."""
    report: dict[str, Any] = size["reports"][scenario]
    assert not report["failures"], f"{scenario} at {size['size']}: {report['failures']}"
    return report


def replays(size: dict[str, Any], path: str) -> api.GameRecord:
    """The record saved at `path`, once the server that dealt it replayed it to its end."""
    record = records.load(Path(path))
    server: ServerProcess = size["server"]
    with Client(f"127.0.0.1:{server.port}") as client:
        replayed = client.replay_game(record)
    assert replayed.move_count == len(record.moves)
    assert replayed.final_status.finished
    return record


class TestTheTable:
    """What a person sees during a turn, and the words they are asked in."""

    def test_the_table_hand_move_and_events_in_sight(self, size: dict[str, Any]) -> None:
        """In every game, at each of the person's first turns, the table, the hand, the move's
        buttons and (on a phone) the last events are on the screen together."""
        passed(size, "layout")

    def test_prompts_in_players_words(self, size: dict[str, Any]) -> None:
        """Up or Down? asks in players' words, draws the move being built on the table, and
        makes a step with one option for the person; its end says why in its terms."""
        assert passed(size, "prompts")["filledIn"] > 0

    def test_the_drawings_nits(self, size: dict[str, Any]) -> None:
        """Up or Down?'s key inside its drawing, nothing wider than the page, Sequence Numbers'
        chips clear of their numbers, a long file name inside the form, and a rules box that
        tells there is more below."""
        passed(size, "nits")


class TestTheEnd:
    """How a game ends, and starts again."""

    def test_why_the_scores_and_play_again(self, size: dict[str, Any]) -> None:
        """6 nimmt! says why it ended and where each score came from, its last hand over, and
        Play again deals the same settings; a team game names the winning team with its seats,
        the same in the box and in the log."""
        report = passed(size, "outcome")
        assert report["teams"][1].startswith(report["teams"][0].removesuffix(" wins!"))


class TestLanguageAndNumbers:
    """The page's language, its numbers and its options."""

    def test_a_whole_game_in_portuguese(self, size: dict[str, Any]) -> None:
        """A browser in Brazilian Portuguese plays Fora de Ordem to its end in Portuguese, its
        questions too; the switch turns the page, its log and the questions to English."""
        report = passed(size, "portuguese")
        assert report["dealt"]["foraDeOrdem"]["language"] == "FORA_DE_ORDEM_LANGUAGE_PT_BR"

    def test_seats_count_from_one(self, size: dict[str, Any]) -> None:
        """Fora de Ordem's starting seat is chosen as Seat 1 to 3; Seat 2 is sent as 1."""
        passed(size, "numbers")

    def test_options_that_do_not_apply_are_hidden(self, size: dict[str, Any]) -> None:
        """6 nimmt!'s threshold and hands follow its end rule; Sequence Numbers' teams show
        for six seats only."""
        passed(size, "options")


class TestSavedGames:
    """Records: kept across a reload, opened again, closed back to the game."""

    def test_a_reload_keeps_the_record(self, size: dict[str, Any]) -> None:
        """A game reloaded after three moves plays to its end, and Save game saves every move:
        the record replays to the end on the server."""
        report = passed(size, "reload")
        record = replays(size, report["saved"])
        assert len(record.moves) > report["before"] > 0
        assert record.kept_by.seat == 0

    def test_a_saved_game_opens_on_a_server_with_seat_tokens(self, size: dict[str, Any]) -> None:
        """On a server that requires seat tokens, a game saved in the middle opens in a new
        page as its saver saw it, and a finished one with every card; each file carries its
        keeper's seat and token."""
        report = passed(size, "fairOpen")
        for saved in (report["middle"], report["end"]):
            record = records.load(Path(saved))
            assert record.kept_by.seat == 0
            assert record.seat_token

    def test_closing_a_saved_game_returns_to_the_game(self, size: dict[str, Any]) -> None:
        """A saved game opened mid-game hides the game and its log, and closing it shows them
        again as they were; the game goes on."""
        passed(size, "replayReturn")


class TestWhatPlayersExpect:
    """Take-backs, the reveal, the background tab, the dark theme."""

    def test_a_take_back_against_bots(self, size: dict[str, Any]) -> None:
        """One person against a bot takes a move back (the log and the turn as they were) and
        plays on: the record saved replays; a fenced server refuses it, says so, and the game
        goes on."""
        report = passed(size, "takeBack")
        replays(size, report["saved"])

    def test_the_reveal_can_be_watched(self, size: dict[str, Any]) -> None:
        """6 nimmt!'s three selections are turned up together, then placed one by one."""
        report = passed(size, "reveal")
        assert report["revealed"] == 3
        assert report["stages"] >= 2

    def test_a_turn_in_a_background_tab(self, size: dict[str, Any]) -> None:
        """In a hidden tab the title says it is the person's turn and a sound plays; looked at
        again, the title is the page's."""
        assert passed(size, "background")["title"].startswith("● Your turn")

    def test_a_dark_theme_follows_the_system(self, size: dict[str, Any]) -> None:
        """A system that asks for dark colours gets a dark page with light text."""
        passed(size, "dark")
