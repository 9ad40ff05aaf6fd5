"""What people meet in the playground, in a real browser (Debian's Chromium driven by
playwright-core, ``clients/web/test/people.mjs``), on a server that seals its states: a new game
never shows the last one's cover, the log keeps its numbers, Fora de Ordem shows the answer of a
round, a reload keeps the game, the page speaks the browser's language, a phone shows every game
legibly and whole, equation results can be hidden, and the full rules open from the table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engines import registry
from tests.e2e.server_process import free_port, running_server
from tests.state_keys import TEST_KEY, keys_file_text
from tests.web.test_playground import ARTIFACTS, CHROMIUM, WEB, node_and_browser, run_driver

DRIVER = WEB / "test" / "people.mjs"
GAMES = sorted(registry.ENGINES)  # the page offers every game the server lists


def scenario(url: str, name: str) -> dict[str, Any]:
    """Run one scenario of the driver; its report, once every check of it has passed."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return run_driver(
        [
            *(node_and_browser(), str(DRIVER), "--url", url, "--scenario", name),
            *("--chromium", str(CHROMIUM), "--shots", str(ARTIFACTS)),
        ]
    )


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The playground of a server that seals every state and refuses plain ones."""
    scratch = tmp_path_factory.mktemp("people")
    keys = scratch / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    http = free_port()
    with running_server(
        scratch, workers=1, http_port=str(http), state_keys_file=str(keys), require_sealed="true"
    ):
        yield f"http://127.0.0.1:{http}/"


class TestGames:
    """Starting, abandoning and resuming games."""

    def test_a_new_game_shows_no_old_cover(self, url: str) -> None:
        """A game started after a hot-seat cover, or of bots only, shows its table uncovered;
        Start asks before abandoning a game in progress."""
        report = scenario(url, "cover")
        assert len(report["dialogs"]) == 2

    def test_a_reload_keeps_the_game(self, url: str) -> None:
        """After a reload the same game goes on, from the session storage, its state sealed."""
        scenario(url, "reload")


class TestClocks:
    """A person with a time per move who does not move."""

    def test_the_bot_plays_for_a_person_whose_time_is_up(self, url: str) -> None:
        """At a 6 nimmt! table with 5 s a move, a person who does nothing is warned, the page
        claims the timeout when the time is up, the game's bot plays for them, the log says who
        ran out of time, and the game goes on to its end (a real wait of about 5 s)."""
        report = scenario(url, "clock")
        assert report["timedOut"] == ["Seat 1 (you) ran out of time: a bot played for them."]


class TestWhatHappened:
    """The log and the board tell what happened."""

    def test_the_log_keeps_its_numbers(self, url: str) -> None:
        """A log of hundreds of lines shows its last 150, numbered as in the whole log, every
        digit in sight, and counts in good English."""
        report = scenario(url, "log")
        assert report["last"] > 150

    def test_fora_de_ordem_reveals_the_round(self, url: str) -> None:
        """Once a round is resolved the board shows its answer, ranks and who pays; the sides
        carry no numbers that read as ranks."""
        report = scenario(url, "reveal")
        assert "Round 2: the answer" in report["answer"]


class TestPeople:
    """The page suits the person in front of it."""

    def test_the_language(self, url: str) -> None:
        """The page opens on 6 nimmt!; Fora de Ordem is in the browser's language, English when
        it offers none that matches."""
        report = scenario(url, "language")
        assert report["languages"] == {
            "pt-BR": "PT_BR",
            "pt-PT": "PT_BR",
            "en-GB": "EN",
            "fr-FR": "EN",
        }

    def test_a_phone_shows_every_game_legibly_and_whole(self, url: str) -> None:
        """At 390×844 with six seats no drawn text is under 11 CSS pixels and nothing is drawn
        outside its drawing or off the screen; a screenshot of each game is kept."""
        report = scenario(url, "phone")
        assert set(report["smallest"]) == set(GAMES)
        for game in GAMES:
            assert (ARTIFACTS / f"{game}-phone.png").stat().st_size > 20_000

    def test_equation_results_can_be_hidden(self, url: str) -> None:
        """Sequence Numbers offers to hide its cards' results, in the hand and the moves."""
        scenario(url, "results")

    def test_the_full_rules_open_from_the_table(self, url: str) -> None:
        """Each game's table links to the whole of its rules, tables and worked example
        included."""
        scenario(url, "rules")
