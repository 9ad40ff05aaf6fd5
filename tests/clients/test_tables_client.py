"""The Python client and the ``ordo`` command on hosted tables: hosting, acting by table id, a
watch that takes up a cut stream from its last revision, ``ordo host`` and ``ordo join``."""

from __future__ import annotations

import asyncio

from ordo import AsyncClient, Client
from ordo.tables import parse_link, table_link, token_seat
from ordo.v1 import common_pb2 as common
from service.tables.errors import TableStoreUnavailableError
from service.tables.watchers import End
from tests.clients.test_cli import ordo
from tests.clients.test_play import Terminal, play_to_the_end, terminals
from tests.conftest import Doors
from tests.tables import ONE_HAND

RUN_SECONDS = 120  # bound on a command's whole game
__all__ = ["terminals"]  # the fixture, shared with test_play


def play_to_end(client: Client, table_id: str, tokens: list[str], status: common.GameStatus) -> int:
    """Play a hosted table to its end, each person's first legal action; its last revision."""
    revision = 0
    while not status.finished:
        seat = status.seats_to_act[0]
        token = tokens[seat]
        action = client.list_legal_actions(table_id, seat, seat_token=token).actions[0]
        answer = client.apply_action(table_id, action, table_revision=revision, seat_token=token)
        status, revision = answer.status, answer.table_revision
    return revision


class TestClient:
    """``Client`` and ``AsyncClient`` host, act by table id and watch."""

    def test_host_play_and_record(self, hosting: Doors) -> None:
        """A hosted game played by table id to its end; its record replays."""
        with Client(hosting.grpc_address) as client:
            dealt = client.new_game(ONE_HAND, 3, bots={1: ""}, host=True)
            assert dealt.table_id
            assert not dealt.HasField("state")
            last = play_to_end(client, dealt.table_id, list(dealt.seat_tokens), dealt.status)
            record = client.get_record(dealt.table_id, seat_token=dealt.seat_tokens[0]).record
            replayed = client.replay_game(record, seat_token=dealt.spectator_token)
            assert replayed.move_count == last

    def test_a_cut_stream_is_taken_up_again(self, hosting: Doors) -> None:
        """A stream ended by the server (its store out of reach) is watched again from the
        last revision given: the caller sees every revision once, in order."""
        with Client(hosting.grpc_address, backoff=0.01) as client:
            dealt = client.new_game(ONE_HAND, 3, bots={1: ""}, host=True)
            tokens = list(dealt.seat_tokens)
            stream = client.watch_game(dealt.table_id, seat_token=tokens[2])
            first = next(stream)
            feed = hosting.servicer.hosting.feed  # type: ignore[union-attr]
            for watcher in feed.watchers.of(dealt.table_id):
                watcher.send(End(TableStoreUnavailableError()))
            last = play_to_end(client, dealt.table_id, tokens, dealt.status)
            revisions = [first.revision, *(message.revision for message in stream)]
            assert revisions == list(range(first.revision, last + 1))

    def test_async_for_over_a_table(self, hosting: Doors) -> None:
        """``async for`` over ``AsyncClient.watch_game``: every move, then the end."""
        with Client(hosting.grpc_address) as client:
            dealt = client.new_game(ONE_HAND, 2, bots={1: ""}, host=True)
            last = play_to_end(client, dealt.table_id, list(dealt.seat_tokens), dealt.status)

        async def watch() -> list[int]:
            async with AsyncClient(hosting.grpc_address) as ordo:
                stream = ordo.watch_game(
                    dealt.table_id, after_revision=0, seat_token=dealt.seat_tokens[0]
                )
                return [message.revision async for message in stream]

        assert asyncio.run(watch()) == list(range(1, last + 1))


class TestLinks:
    """A table's link: the token in the fragment, read back."""

    def test_a_link_reads_back(self) -> None:
        """``table_link`` and ``parse_link`` agree; the token's seat is read from it."""
        token = "o1.test-1." + "A" * 22 + ".2." + "B" * 43
        link = parse_link(table_link("http://play.example:8080/", "T" * 22, token))
        assert (link.base_url, link.table_id, link.token) == (
            "http://play.example:8080",
            "T" * 22,
            token,
        )
        assert link.seat == token_seat(token) == 2


class TestCommands:
    """``ordo host`` prints the links; ``ordo join`` plays one seat to the end."""

    def test_host_then_join(self, hosting: Doors, terminals: list[Terminal]) -> None:
        """A table hosted with one person and two bots; that person's link, joined in a
        terminal, plays the game to its end: a move asked every turn, then the outcome."""
        hosted = ordo(
            *("--target", hosting.grpc_address, "host", "six_nimmt", "--seats", "3"),
            *("--people", "2", "--option", "end=FIXED_HANDS", "--option", "hands=1"),
            *("--url", f"http://{hosting.http_address}"),
        )
        assert hosted.returncode == 0, hosted.stderr
        lines = hosted.stdout.splitlines()
        seat_line = next(line for line in lines if line.startswith("Seat 2: "))
        assert any(line.startswith("Spectators: ") for line in lines)
        link = seat_line.removeprefix("Seat 2: ")
        assert parse_link(link).seat == 1
        terminal = Terminal("--target", hosting.grpc_address, "join", link)
        terminals.append(terminal)
        screen = play_to_the_end(terminal, 5)
        assert terminal.close() == 0, screen[-2000:]
        assert "Game over" in screen
        assert screen.count("your move") >= 10  # a selection a turn, and any row choices
