"""One list of games: every list that names the games agrees with the registry.

``engines/registry.py`` is the list of games. What names them elsewhere either comes from it (the
conformance suite, the golden digests, the node client's generated exports) or is a list of its
own, kept for what it says about each game (a codec, a part of the page, the options a test plays
with); each such list is checked here, and a test that fails names the list that disagrees, so
that adding a game (docs/architecture.md, "Adding a game") cannot leave one behind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from bench.arena import MATCHES
from engines import registry
from ordo.v1 import common_pb2
from ordo_agents.games import ENCODINGS
from service.codecs import CODECS
from tests.clients.test_node_client import GAMES as NODE_CLIENT_GAMES
from tests.clients.test_play import GAMES as PLAY_GAMES
from tests.clients.test_records import GAMES as RECORDS_GAMES
from tests.conformance.corruptions import CORRUPTIONS
from tests.service.recorded import CASES as RECORDED_CASES
from tests.service.test_sealing import GAMES as SEALING_GAMES
from tests.web import sources
from tests.web.test_playground import GAMES as PLAYGROUND_GAMES
from tests.web.test_playground import HANDS as PLAYGROUND_HANDS

ROOT = Path(__file__).resolve().parents[1]
#: The proto files of the contract that are no game's.
SHARED_PROTOS = frozenset({"common", "engine_service"})


def _game_oneof(message: str) -> Callable[[], Iterable[str]]:
    """The fields of the ``game`` oneof of a message of common.proto."""
    descriptor = common_pb2.DESCRIPTOR.message_types_by_name[message]
    return lambda: [field.name for field in descriptor.oneofs_by_name["game"].fields]


def _files(
    folder: str, pattern: str, leave_out: frozenset[str] = frozenset()
) -> Callable[[], set[str]]:
    """The names (without suffix) of the files of ``folder`` that match ``pattern``."""
    return lambda: {path.stem for path in (ROOT / folder).glob(pattern)} - leave_out


#: Every list of the games but the registry, by where it is and what it is called.
LISTS: dict[str, Callable[[], Iterable[str]]] = {
    **{
        f"proto/ordo/v1/common.proto: the game oneof of {message}": _game_oneof(message)
        for message in ("GameOptions", "GameState", "Action", "GameView", "Event")
    },
    "proto/ordo/v1/: a proto file per game": _files("proto/ordo/v1", "*.proto", SHARED_PROTOS),
    "docs/rules/: the rules for players of each game": _files("docs/rules", "*.md"),
    "service/codecs/__init__.py: CODECS": lambda: CODECS,
    "clients/web/src/games/index.ts: UIS": lambda: sources.games()["uis"],
    "clients/web/build.mjs: GAMES": lambda: sources.games()["build"],
    "tests/conformance/corruptions.py: CORRUPTIONS": lambda: CORRUPTIONS,
    "tests/service/recorded.py: CASES": lambda: {case.game for case in RECORDED_CASES},
    "tests/service/test_sealing.py: GAMES": lambda: SEALING_GAMES,
    "tests/clients/test_play.py: GAMES": lambda: PLAY_GAMES,
    "tests/clients/test_records.py: GAMES": lambda: {game for game, _ in RECORDS_GAMES},
    "tests/clients/test_node_client.py: GAMES": lambda: {game for game, _ in NODE_CLIENT_GAMES},
    "tests/web/test_playground.py: GAMES": lambda: PLAYGROUND_GAMES,
    "tests/web/test_playground.py: HANDS": lambda: PLAYGROUND_HANDS,
    "bench/arena.py: MATCHES": lambda: {match[0] for match in MATCHES},
    "clients/agents/ordo_agents/games/__init__.py: ENCODINGS": lambda: ENCODINGS,
}


class TestGameLists:
    """Each list of the games names the registry's games, no more and no fewer."""

    @pytest.mark.parametrize("name", list(LISTS))
    def test_the_list_names_the_registered_games(self, name: str) -> None:
        """The list holds every registered game, and no other."""
        found = list(LISTS[name]())
        registered = sorted(registry.ENGINES)
        assert len(found) == len(set(found)), f"{name} names a game twice: {found}"
        assert sorted(found) == registered, (
            f"{name} disagrees with engines/registry.py: it lacks "
            f"{sorted(set(registered) - set(found)) or 'none'}, and names "
            f"{sorted(set(found) - set(registered)) or 'none'} that the registry does not"
        )
