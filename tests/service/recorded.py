"""Recorded games: one game of each kind and option set, kept as a record under ``records/``.

Each record pins every state of its game: ``ReplayGame`` checks each move's digest against the
state the move leads to now, so a change that alters any state of a recorded game (the deal, a
rule, a bot, the wire format, sealing) fails its replay at the first step that differs. They sit
beside the golden digests (``golden.py``), which pin the answers of other calls.

A game is played through the Python client's ``Recorder`` against an in-process server: the
first seat to act moves, in turn an action (the random bot's suggestion, seeded), a heuristic
bot's move and a random bot's move with a seed, so records hold every kind of move. When a
change is meant, raise the game's rules version and write the records again with
``python -m tests.service.recorded``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from ordo import records
from ordo.client import Client
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.config import Settings
from service.process.worker import create_server
from tests.state_keys import TEST_KEY

RECORDS_DIR = Path(__file__).with_name("records")
SEED = 2026
QUESTION = {
    "id": "tiny",
    "category": "smallest numbers first",
    "items": ["one", "two", "three", "four", "five"],
    "ranks": [1, 2, 3, 4, 5],
}


@dataclass(frozen=True)
class Case:
    """A recorded game: its game, seats and options (proto JSON of the game's options)."""

    game: str
    name: str
    seats: int
    options: dict[str, Any] = field(default_factory=dict)
    sealed: bool = False

    @property
    def path(self) -> Path:
        return RECORDS_DIR / f"{self.game}-{self.name}{records.SUFFIX}"

    def game_options(self) -> common.GameOptions:
        return json_format.ParseDict({self.game: self.options}, common.GameOptions())


CASES = (
    Case("six_nimmt", "to_66", 5),
    Case(
        "six_nimmt",
        "take_cheapest_row",
        3,
        {"too_low_rule": "SIX_NIMMT_TOO_LOW_RULE_TAKE_CHEAPEST_ROW"},
    ),
    Case("six_nimmt", "fixed_hands", 4, {"end": "SIX_NIMMT_END_RULE_FIXED_HANDS", "hands": 2}),
    Case("six_nimmt", "tactical_deck", 6, {"tactical_deck": True, "threshold": 30}),
    Case("six_nimmt", "zero_card", 2, {"zero_card": True, "threshold": 20}),
    Case("six_nimmt", "sealed", 3, {"end": "SIX_NIMMT_END_RULE_FIXED_HANDS"}, sealed=True),
    Case("sequence_numbers", "two_seats", 2),
    Case("sequence_numbers", "two_teams", 4, {"teams": 2}),
    Case("sequence_numbers", "three_teams", 6, {"teams": 3}),
    Case(
        "sequence_numbers",
        "overlap_any",
        4,
        {"sequence_overlap": "SEQUENCE_NUMBERS_SEQUENCE_OVERLAP_ANY"},
    ),
    Case("sequence_numbers", "sealed", 3, sealed=True),
    Case("up_or_down", "short", 2),
    Case("up_or_down", "long", 4, {"length": "UP_OR_DOWN_LENGTH_LONG"}),
    Case("up_or_down", "per_row", 3, {"discard_scoring": "UP_OR_DOWN_DISCARD_SCORING_PER_ROW"}),
    Case("up_or_down", "sealed", 2, sealed=True),
    Case("fora_de_ordem", "pt_br", 3),
    Case(
        "fora_de_ordem",
        "english_two_rounds",
        4,
        {"language": "FORA_DE_ORDEM_LANGUAGE_EN", "rounds": 2, "starting_seat": 1},
    ),
    Case("fora_de_ordem", "custom_questions", 2, {"rounds": 1, "custom_questions": [QUESTION]}),
    Case("fora_de_ordem", "sealed", 2, {"rounds": 2}, sealed=True),
)


def record_game(client: Client, case: Case) -> api.GameRecord:
    """Play ``case``'s game to its end through a ``Recorder``; its record."""
    recorder = records.Recorder(client)
    started = recorder.new_game(case.game_options(), case.seats, SEED)
    state, status = started.state, started.status
    turn = 0
    while not status.finished:
        seat = status.seats_to_act[0]
        if turn % 3 == 0:
            action = client.suggest_action(state, seat, "random", seed=SEED + turn).action
            applied = recorder.apply_action(state, action)
        elif turn % 3 == 1:
            applied = recorder.play_bot(state, seat)
        else:
            applied = recorder.play_bot(state, seat, "random", SEED + turn)
        state, status = applied.state, applied.status
        turn += 1
    return recorder.record


def servers() -> Iterator[tuple[Client, Client]]:
    """Clients of a plain and of a sealing in-process server, for as long as they are needed."""
    started = []
    clients = []
    for keys in ((), (TEST_KEY,)):
        settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0, state_keys=keys)
        server, port, _health = create_server(settings)
        server.start()
        started.append(server)
        clients.append(Client(f"127.0.0.1:{port}"))
    try:
        yield clients[0], clients[1]
    finally:
        for client in clients:
            client.close()
        for server in started:
            server.stop(None)


def write() -> None:
    """Play every case again and write its record."""
    RECORDS_DIR.mkdir(exist_ok=True)
    for plain, sealed in servers():
        for case in CASES:
            records.save(record_game(sealed if case.sealed else plain, case), case.path)


if __name__ == "__main__":
    write()
