"""The ``ordo`` command, run as a subprocess against the in-process server."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message

from ordo.cli import UsageError, print_outcome, set_language
from ordo.v1 import common_pb2 as common
from ordo.v1 import six_nimmt_pb2 as six_nimmt
from tests.clients.fakes import CERTIFICATE

GAME = "six_nimmt"
RUN_SECONDS = 120  # a whole demo game takes about a second; this only stops a hung run


def ordo(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ordo.cli`` with the arguments (in ``env``, else this environment); never
    raises on a non-zero exit."""
    return subprocess.run(
        [sys.executable, "-m", "ordo.cli", *args],
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
        env=env,
    )


@pytest.fixture(scope="module")
def games(server_address: str) -> subprocess.CompletedProcess[str]:
    """The output of ``ordo games``."""
    return ordo("--target", server_address, "games")


@pytest.fixture(scope="module")
def demo(server_address: str) -> subprocess.CompletedProcess[str]:
    """The output of ``ordo demo six_nimmt --seats 4 --seed 3``."""
    return ordo("--target", server_address, "demo", GAME, "--seats", "4", "--seed", "3")


class TestPipes:
    """The output may go to a reader that stops early."""

    def test_a_reader_that_stops_early(self, server_address: str) -> None:
        """``ordo demo … | head -1``: the demo stops quietly when its reader has gone."""
        command = ["--target", server_address, "demo", GAME, "--seats", "10", "--seed", "3"]
        process = subprocess.Popen(
            [sys.executable, "-m", "ordo.cli", *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None
        assert process.stderr is not None
        assert process.stdout.readline()
        process.stdout.close()
        assert process.wait(timeout=RUN_SECONDS) == 0
        assert process.stderr.read() == b""


class TestGames:
    """``ordo games`` lists every game with its seats, policies and options."""

    def test_target_from_the_environment(
        self, server_address: str, games: subprocess.CompletedProcess[str]
    ) -> None:
        """Without --target, ORDO_TARGET names the server."""
        run = ordo("games", env={**os.environ, "ORDO_TARGET": server_address})
        assert run.returncode == 0, run.stderr
        assert run.stdout == games.stdout

    def test_exits_zero(self, games: subprocess.CompletedProcess[str]) -> None:
        """The command succeeds and writes nothing to stderr."""
        assert games.returncode == 0
        assert games.stderr == ""

    def test_game_summary(self, games: subprocess.CompletedProcess[str]) -> None:
        """Each game shows its id, title, seat range, turn kind and policies."""
        assert "six_nimmt: 6 nimmt!" in games.stdout
        assert "seats: 2-10" in games.stdout
        assert "seats: 2, 3, 4, 6" in games.stdout  # Sequence Numbers: no 5 seats
        assert "simultaneous turns: yes" in games.stdout
        assert "policies: heuristic, random, search" in games.stdout
        assert "search: " in games.stdout
        assert " iterations by default, at most 256" in games.stdout

    def test_options_with_defaults(self, games: subprocess.CompletedProcess[str]) -> None:
        """Each option shows its default, its allowed values and its description."""
        assert "threshold = 66" in games.stdout
        assert "too_low_rule = CHOOSE_ROW (one of CHOOSE_ROW, TAKE_CHEAPEST_ROW)" in games.stdout
        assert "total bullheads that end the game" in games.stdout


class TestDemo:
    """``ordo demo`` plays a whole game with bots and prints it as a spectator sees it."""

    def test_game_finishes(self, demo: subprocess.CompletedProcess[str]) -> None:
        """The game is played to its end and the command exits 0."""
        assert demo.returncode == 0, demo.stderr
        assert "game over after" in demo.stdout
        assert "a seat's penalties reached the threshold" in demo.stdout
        assert "PENALTY_THRESHOLD" not in demo.stdout

    def test_outcome_is_printed(self, demo: subprocess.CompletedProcess[str]) -> None:
        """The last lines give every seat's score and the winners."""
        scores, winners = demo.stdout.strip().splitlines()[-2:]
        assert scores.startswith("scores (lower is better): seat 1: ")
        assert scores.count("seat ") == 4
        assert winners.startswith("winners: seat ")

    def test_header_names_the_deal(self, demo: subprocess.CompletedProcess[str]) -> None:
        """The first line names the game, the seats, the seed and the policy."""
        assert demo.stdout.splitlines()[0] == "6 nimmt!: 4 seats, seed 3, heuristic bots"

    def test_a_sequence_numbers_choice_of_five_is_shown(self, server_address: str) -> None:
        """A seeded Sequence Numbers game whose random bots complete a diagonal of six tells the
        choice, lists each five in the view, then locks the one chosen."""
        shown = ordo(
            "--target", server_address, "demo", "sequence_numbers", "--seats", "2", "--seed", "5",
            "--policy", "random",
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert "seat 2's chip at r2c9 completes fives that exclude one another" in shown.stdout
        assert (
            "seat 2 (B) chooses the five its chip at r2c9 locks:\n"
            "  1. lock r1c10 r2c9 r3c8 r4c7 r5c6 (leaves r6c5 unlocked)\n"
            "  2. lock r2c9 r3c8 r4c7 r5c6 r6c5\n"
            "seat 2 to act"
        ) in shown.stdout
        assert "team B completes a sequence: r2c9 r3c8 r4c7 r5c6 r6c5" in shown.stdout

    def test_every_seat_acts_before_a_turn_is_printed(
        self, demo: subprocess.CompletedProcess[str]
    ) -> None:
        """A simultaneous turn is printed once all four seats have selected: the reveal."""
        lines = demo.stdout.splitlines()
        first = lines.index("turn 1: seats 1, 2, 3 and 4")
        assert lines[first + 1].startswith("  revealed: seat 1: ")

    def test_public_events_are_told(self, demo: subprocess.CompletedProcess[str]) -> None:
        """Placements, rows taken with their bullheads and hand ends are printed."""
        assert " places " in demo.stdout
        assert " takes row " in demo.stdout
        assert " bullhead" in demo.stdout
        assert "hand 1 ends; penalties: " in demo.stdout

    def test_spectator_sees_no_hand(self, demo: subprocess.CompletedProcess[str]) -> None:
        """The views are a spectator's: no hand and no private selection is ever printed."""
        assert "  hand: " not in demo.stdout
        assert " selects " not in demo.stdout

    def test_same_seed_same_game(
        self, server_address: str, demo: subprocess.CompletedProcess[str]
    ) -> None:
        """Replaying the seed prints the same game."""
        again = ordo("--target", server_address, "demo", GAME, "--seats", "4", "--seed", "3")
        assert again.stdout == demo.stdout

    def test_max_turns_stops_early(self, server_address: str) -> None:
        """--max-turns stops the game after that many turns, without an outcome."""
        run = ordo("--target", server_address, "demo", GAME, "--seats", "3", "--max-turns", "2")
        assert run.returncode == 0
        assert "stopped after 2 turns" in run.stdout
        assert "turn 3:" not in run.stdout
        assert "game over" not in run.stdout

    def test_random_policy(self, server_address: str) -> None:
        """The random policy plays too."""
        args = ("demo", GAME, "--seats", "2", "--seed", "9", "--policy", "random")
        run = ordo("--target", server_address, *args)
        assert run.returncode == 0
        assert "random bots" in run.stdout
        assert "game over after" in run.stdout

    def test_lang_ignored_without_language_option(self, server_address: str) -> None:
        """--lang for a game without a language option is ignored with a note."""
        args = ("demo", GAME, "--seats", "2", "--lang", "pt_br", "--max-turns", "1")
        run = ordo("--target", server_address, *args)
        assert run.returncode == 0
        assert "no language option; --lang ignored" in run.stderr


class TestEveryGame:
    """The demo of each game, as docs/clients.md shows it, plays a whole game through the server."""

    @pytest.mark.parametrize(
        "args",
        [
            ("six_nimmt", "--seats", "4"),
            ("sequence_numbers", "--seats", "4"),
            ("up_or_down", "--seats", "3"),
            ("fora_de_ordem", "--seats", "3", "--lang", "en"),
        ],
        ids=lambda args: args[0],
    )
    def test_demo_plays_to_the_end(self, server_address: str, args: tuple[str, ...]) -> None:
        """The demo ends with the outcome, drawn from a spectator's view."""
        run = ordo("--target", server_address, "demo", *args, "--seed", "11")
        assert run.returncode == 0, run.stderr
        assert "game over after" in run.stdout
        assert "winners:" in run.stdout


class TestExitCodes:
    """0 done, 1 a server error with its reason, 2 bad usage."""

    def test_no_command(self) -> None:
        """A missing command is a usage error."""
        assert ordo().returncode == 2

    def test_demo_without_seats(self, server_address: str) -> None:
        """demo without --seats deals the fewest seats the game takes, as play does."""
        run = ordo("--target", server_address, "demo", GAME, "--max-turns", "1")
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("6 nimmt!: 2 seats, ")

    def test_unknown_policy_choice(self, server_address: str) -> None:
        """A policy outside the known ones is a usage error."""
        run = ordo("--target", server_address, "demo", GAME, "--seats", "2", "--policy", "x")
        assert run.returncode == 2

    def test_unknown_game(self, server_address: str) -> None:
        """A game the server does not run is a usage error naming the games it runs."""
        run = ordo("--target", server_address, "demo", "chess", "--seats", "2")
        assert run.returncode == 2
        assert "unknown game 'chess'; the server runs " in run.stderr
        assert "six_nimmt" in run.stderr

    @pytest.mark.parametrize(
        ("game", "seats", "message"),
        [
            (GAME, "1", "six_nimmt takes 2-10 seats, not 1"),
            ("sequence_numbers", "5", "sequence_numbers takes 2, 3, 4, 6 seats, not 5"),
        ],
    )
    def test_a_seat_count_the_game_does_not_take(
        self, server_address: str, game: str, seats: str, message: str
    ) -> None:
        """A seat count outside the game's (as ListGames gives them) is a usage error."""
        run = ordo("--target", server_address, "demo", game, "--seats", seats)
        assert run.returncode == 2
        assert message in run.stderr

    @pytest.mark.parametrize(
        "args",
        [
            ("--timeout", "0", "games"),
            ("demo", GAME, "--seats", "2", "--seed", str(2**64)),
            ("demo", GAME, "--seats", "2", "--seed", "-1"),
            ("demo", GAME, "--seats", "2", "--max-turns", "0"),
        ],
    )
    def test_values_out_of_range(self, server_address: str, args: tuple[str, ...]) -> None:
        """A timeout that is not positive, a seed outside uint64 or no turn to play is a usage
        error naming the bound, not a traceback."""
        run = ordo("--target", server_address, *args)
        assert run.returncode == 2, run.stderr
        assert "Traceback" not in run.stderr
        assert "must be" in run.stderr

    def test_unreachable_server(self) -> None:
        """No server at the target exits 1 with UNAVAILABLE, the address tried and how to start
        a server or name another."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        run = ordo("--target", f"127.0.0.1:{port}", "--timeout", "2", "games")
        assert run.returncode == 1
        assert "UNAVAILABLE" in run.stderr
        assert f"cannot reach a server at 127.0.0.1:{port}" in run.stderr
        assert "make run" in run.stderr
        assert "--target HOST:PORT or ORDO_TARGET" in run.stderr


class TestOutcome:
    """The last lines of a demo: how the game ended, the scores and the winners."""

    def test_a_draw(self) -> None:
        """A game without winners is told as a draw, its scores higher-is-better unless the
        outcome says otherwise."""
        out = io.StringIO()
        print_outcome(common.Outcome(scores=[3, 3], termination="TURN_LIMIT"), 40, out)
        assert out.getvalue().splitlines() == [
            "",
            "game over after 40 turns: the turn limit was reached without a winner",
            "scores (higher is better): seat 1: 3, seat 2: 3",
            "winners: none (a draw)",
        ]


def _options_with_language() -> Message:
    """An options message with a ``language`` enum field, like Fora de Ordem's."""
    field = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(
        name="ordo_test_language.proto", package="ordo.test", syntax="proto3"
    )
    enum = proto.enum_type.add(name="TestLanguage")
    for number, name in enumerate(("UNSPECIFIED", "EN", "PT_BR")):
        enum.value.add(name=f"TEST_LANGUAGE_{name}", number=number)
    proto.message_type.add(name="TestOptions").field.add(
        name="language",
        number=1,
        label=field.LABEL_OPTIONAL,
        type=field.TYPE_ENUM,
        type_name=".ordo.test.TestLanguage",
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("ordo.test.TestOptions"))()


class TestLanguage:
    """--lang sets the enum value of a ``language`` field whose name ends with the language."""

    def test_sets_the_matching_value(self) -> None:
        """pt_br picks the value named *_PT_BR."""
        options = _options_with_language()
        assert set_language(options, "pt_br")
        assert options.language == 2  # type: ignore[attr-defined]

    def test_no_language_field(self) -> None:
        """Options without a language field are left alone."""
        options = six_nimmt.SixNimmtOptions()
        assert not set_language(options, "en")
        assert options == six_nimmt.SixNimmtOptions()

    def test_unknown_language(self) -> None:
        """A language the enum does not have is a usage error listing the known ones."""
        with pytest.raises(UsageError, match="TEST_LANGUAGE_EN, TEST_LANGUAGE_PT_BR"):
            set_language(_options_with_language(), "fr")


class TestTLS:
    """--ca-file and --tls connect with TLS."""

    def test_ca_file_trusts_the_servers_certificate(self, tls_server_address: str) -> None:
        """With the test certificate as the root, the games are listed over TLS."""
        run = ordo("--target", tls_server_address, "--ca-file", str(CERTIFICATE), "games")
        assert run.returncode == 0, run.stderr
        assert GAME in run.stdout

    def test_tls_trusts_the_default_roots(self, tls_server_address: str) -> None:
        """--tls trusts gRPC's default roots: with the test certificate among them (gRPC reads
        them from GRPC_DEFAULT_SSL_ROOTS_FILE_PATH), the games are listed over TLS."""
        env = {**os.environ, "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(CERTIFICATE)}
        run = ordo("--target", tls_server_address, "--tls", "games", env=env)
        assert run.returncode == 0, run.stderr
        assert GAME in run.stdout

    @pytest.mark.parametrize("args", [(), ("--tls",)], ids=["plaintext", "default-roots"])
    def test_without_the_right_roots_the_server_is_unavailable(
        self, tls_server_address: str, args: tuple[str, ...]
    ) -> None:
        """Plaintext, or TLS trusting only gRPC's default roots, does not reach the server."""
        run = ordo("--target", tls_server_address, "--timeout", "3", *args, "games")
        assert run.returncode == 1
        assert "UNAVAILABLE" in run.stderr

    def test_a_missing_ca_file_is_a_usage_error(self, tmp_path: Path) -> None:
        """A CA file that cannot be read exits 2, naming it."""
        missing = tmp_path / "missing.pem"
        run = ordo("--ca-file", str(missing), "games")
        assert run.returncode == 2
        assert str(missing) in run.stderr


def test_version() -> None:
    """``ordo --version`` prints the installed client's version and exits 0."""
    run = ordo("--version")
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"ordo {metadata.version('ordo-client')}\n"
