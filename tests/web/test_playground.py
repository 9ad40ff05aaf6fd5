"""The web playground in a real browser (Debian's Chromium driven by playwright-core): for each
game a person plays a whole game against bots by clicking legal moves, on a server started as
``make run`` starts it, with its HTTP door; the game saved with "Save game" replays over both
doors to the very state the page reached, and opens again in the page, step by step."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from ordo import records
from ordo.client import Client
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.trust.sealing import Sealer
from tests.conformance.drivers import Codecs
from tests.connect_calls import HttpDoor
from tests.e2e.server_process import ROOT, ServerProcess, free_port, running_server
from tests.redis_server import running_redis
from tests.state_keys import TEST_KEY, keys_file_text

WEB = ROOT / "clients" / "web"
DRIVER = WEB / "test" / "play.mjs"
REPLAY_DRIVER = WEB / "test" / "replay.mjs"
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = Path("/usr/bin/chromium")
PLAY_SECONDS = 600  # a bound on a hung browser, far above the seconds a game takes

# Small games, so the four stay within a minute or two: one hand, one round.
GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "six_nimmt": (3, {"end": "FIXED_HANDS", "hands": 1}),
    "sequence_numbers": (2, {}),
    "up_or_down": (2, {}),
    "fora_de_ordem": (3, {"rounds": 1, "language": "EN"}),
}
HANDS = {
    "six_nimmt": lambda v: {c for c in v.hand if c},
    "sequence_numbers": lambda v: {c.id for c in v.hand},
    "up_or_down": lambda v: set(v.hand),
    "fora_de_ordem": lambda v: {c.id for c in v.hand},
}

# The JSON fields of responses that hold cards (by number, or as messages with a numeric ``id``):
# any field named for cards or a hand, and the few named otherwise; not their counts.
CARD_FIELD = re.compile(r"card|hand|^(drawn|rows|discarded|faceUpTop|top)$", re.IGNORECASE)
NOT_CARDS = re.compile(r"(Sizes?|Lengths?|Number)$")
# Named for cards, a count where it is a number alone: Up or Down?'s turn tells how many cards an
# abandoned row sent to the discard pile (the lists of that name hold cards).
COUNT_WHEN_ALONE = frozenset({"discarded"})


def node_and_browser() -> str:
    """The ``node`` executable, once the playground is built and Chromium installed."""
    node = shutil.which("node")
    assert node, "Node.js is not installed: the playground's tests need it"
    built = ROOT / "service" / "playground" / "index.html"
    assert built.exists(), "the playground is not built: run 'make web'"
    assert (WEB / "node_modules" / "playwright-core").exists(), "run 'make web' first"
    assert CHROMIUM.exists(), f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    return node


@pytest.fixture(scope="module")
def sealed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    """One server sealing every state with the tests' key and refusing plain ones."""
    scratch = tmp_path_factory.mktemp("sealed")
    keys = scratch / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    http = free_port()
    with running_server(
        scratch, workers=1, http_port=str(http), state_keys_file=str(keys), require_sealed="true"
    ) as server:
        yield server, f"http://127.0.0.1:{http}/"


@pytest.fixture(scope="module")
def fair_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server as players holding their own games meet it: sealed states, seat tokens
    required, and a revision fence on a redis-server of its own; its playground's URL."""
    scratch = tmp_path_factory.mktemp("fair")
    keys = scratch / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    http = free_port()
    with (
        running_redis(scratch) as store,
        running_server(
            scratch,
            workers=1,
            http_port=str(http),
            state_keys_file=str(keys),
            require_seat_tokens="true",
            revision_store=store.url,
        ),
    ):
        yield f"http://127.0.0.1:{http}/"


def play(url: str, game: str, record: Path, *extra: str) -> dict[str, Any]:
    """Play one whole game in the browser; the driver's report."""
    seats, options = GAMES[game]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    command = [node_and_browser(), str(DRIVER), "--url", url, "--game", game]
    command += [
        "--seats",
        str(seats),
        "--options",
        json.dumps(options),
        "--chromium",
        str(CHROMIUM),
    ]
    return run_driver([*command, "--shots", str(ARTIFACTS), "--record", str(record), *extra])


def run_driver(command: list[str]) -> dict[str, Any]:
    """Run a browser driver; its report (its last line), once it found nothing wrong."""
    done = subprocess.run(
        command, cwd=WEB, capture_output=True, text=True, timeout=PLAY_SECONDS, check=False
    )
    lines = done.stdout.strip().splitlines()
    assert lines, f"the browser driver failed:\n{done.stderr}"
    report: dict[str, Any] = json.loads(lines[-1])
    assert not report["failures"], report["failures"]
    assert done.returncode == 0, done.stderr
    return report


def last_state(record: Path) -> bytes:
    """The state of the last ApplyAction answer the page got, serialized."""
    moves = [e for e in json.loads(record.read_text()) if e["method"] == "ApplyAction"]
    state = json_format.ParseDict(moves[-1]["body"]["state"], common.GameState())
    return state.SerializeToString(deterministic=True)


def replayed_over_both_doors(server: ServerProcess, http_url: str, saved: Path) -> bytes:
    """The last state of the saved game, replayed over gRPC and over the HTTP door (the same
    bytes both ways)."""
    record = records.load(saved)
    with Client(f"127.0.0.1:{server.port}") as client:
        over_grpc = client.replay_game(record).final_state.SerializeToString(deterministic=True)
    door = HttpDoor(http_url.removeprefix("http://").rstrip("/"))
    try:
        request = api.ReplayGameRequest(record=record).SerializeToString()
        answer = door.call("connect-proto", "ReplayGame", request)
    finally:
        door.close()
    assert answer.reason == ""
    over_http = api.ReplayGameResponse.FromString(answer.body).final_state
    assert over_http.SerializeToString(deterministic=True) == over_grpc
    return over_grpc


def open_saved_game(url: str, saved: Path) -> dict[str, Any]:
    """Open a saved game in the browser and step through it; the driver's report."""
    command = [node_and_browser(), str(REPLAY_DRIVER), "--url", url, "--file", str(saved)]
    return run_driver([*command, "--chromium", str(CHROMIUM)])


def views_of_seat_zero(record: Path, game: str) -> Iterator[tuple[set[int], set[int]]]:
    """Per GetView the page made: the hand shown, and seat 0's real hand (from the unsealed
    state, which only the server and the tests can open)."""
    codecs = Codecs(game, Sealer([TEST_KEY]))
    for exchange in json.loads(record.read_text()):
        if exchange["method"] != "GetView":
            continue
        state = json_format.ParseDict(exchange["request"]["state"], common.GameState())
        truth = codecs.unsealed(state)
        view = json_format.ParseDict(exchange["body"]["view"], common.GameView())
        shown = HANDS[game](getattr(view, view.WhichOneof("game")))
        yield shown, seat_zero_hand(truth, game)


def seat_zero_hand(state: common.GameState, game: str) -> set[int]:
    """Seat 0's hand in a plain state."""
    part = getattr(state, game)
    size = part.hand_lengths[0] if game == "six_nimmt" else part.hand_sizes[0]
    return {c for c in part.hand_cards[:size] if c}


def per_seat(cards: Sequence[int], sizes: Sequence[int]) -> list[set[int]]:
    """Flat card lists (every seat's cards one seat after the other) split by seat."""
    split, start = [], 0
    for size in sizes:
        split.append(set(cards[start : start + size]))
        start += size
    return split


def hidden_from_seat_zero(state: common.GameState, game: str) -> set[int]:
    """The cards of a plain state that seat 0 may not know: the other seats' hands, the piles
    nobody sees, and 6 nimmt!'s other selections before they are revealed (card 0, 6 nimmt!'s
    zero card or "no card", left out)."""
    part = getattr(state, game)
    if game == "six_nimmt":
        hidden = set().union(*per_seat(part.hand_cards, part.hand_lengths)[1:], part.deck)
        if not part.revealed:
            hidden |= {card for card in part.selections[1:] if card > 0}
    elif game == "fora_de_ordem":
        hidden = set().union(*per_seat(part.hand_cards, part.hand_sizes)[1:], part.deck_cards)
    else:
        deck = part.deck if game == "sequence_numbers" else part.face_down
        hidden = set().union(*per_seat(part.hand_cards, part.hand_sizes)[1:], deck)
    return hidden - {0}


def cards_in(value: Any, cards: bool = False) -> Iterator[int]:
    """The card numbers a response's JSON holds (see ``CARD_FIELD``); its states are sealed, and
    its options hold no cards."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "id" and isinstance(inner, int):
                yield inner
            elif key not in ("state", "options"):
                named = bool(CARD_FIELD.search(key)) and not NOT_CARDS.search(key)
                if key in COUNT_WHEN_ALONE and not isinstance(inner, list):
                    named = False
                yield from cards_in(inner, named)
    elif isinstance(value, list):
        for inner in value:
            yield from cards_in(inner, cards)
    elif cards and not isinstance(value, bool) and str(value).isdigit():
        yield int(value)


def leaks(record: Path, game: str) -> Iterator[str]:
    """Every card of another seat that a response the browser got holds: the cards hidden from
    seat 0 both in the state the call was about and in the state it answered with (a card the
    call made public, or dealt to seat 0, may show; once the game is over, any may)."""
    codecs = Codecs(game, Sealer([TEST_KEY]))
    for exchange in json.loads(record.read_text()):
        if exchange["body"].get("status", {}).get("finished"):
            continue
        sent = [exchange["request"].get("state"), exchange["body"].get("state")]
        truths = [codecs.unsealed(json_format.ParseDict(s, common.GameState())) for s in sent if s]
        if not truths:
            continue
        forbidden = set.intersection(*(hidden_from_seat_zero(t, game) for t in truths))
        for card in sorted(forbidden & set(cards_in(exchange["body"]))):
            yield f"{exchange['method']} gave the page card {card} of another seat"


@pytest.mark.parametrize("game", list(GAMES))
def test_a_person_plays_a_whole_sealed_game_and_sees_only_their_hand(
    game: str, sealed_server: tuple[ServerProcess, str], tmp_path: Path
) -> None:
    """A whole game is played by clicking legal moves; the outcome shown is the server's, every
    state the browser holds is sealed, every view it gets shows the person's own hand, and no
    response it gets holds a card another seat holds or will draw unseen."""
    record = tmp_path / "calls.json"
    saved = tmp_path / f"{game}{records.SUFFIX}"
    report = play(sealed_server[1], game, record, "--sealed", "--save", str(saved))
    assert report["shown"] == report["server"]
    assert replayed_over_both_doors(*sealed_server, saved) == last_state(record)
    assert report["server"]["scores"]
    assert (ARTIFACTS / f"{game}.png").stat().st_size > 20_000
    hands = list(views_of_seat_zero(record, game))
    assert hands
    assert all(shown == truth for shown, truth in hands)
    assert list(leaks(record, game)) == []


@pytest.mark.parametrize("game", list(GAMES))
def test_the_playground_plays_fair_and_a_cheater_is_refused(
    game: str, fair_server: str, tmp_path: Path
) -> None:
    """Against a server that requires seat tokens, with a revision fence, a person plays a
    whole game; the page holds and sends only the person's token, and what a cheater sends from
    the page (a bot's view, legal actions, suggestion, card checked or events, a move for the
    bot's seat, a bot move with its own policy or seed, the previous state again, no token) is
    each refused with its reason."""
    record = tmp_path / "calls.json"
    report = play(fair_server, game, record, "--sealed", "--fair")
    assert report["shown"] == report["server"]
    assert [name for name, _code, _reason in report["cheats"]] == [
        "a bot's view",
        "a bot's legal actions",
        "a bot's suggested move",
        "a bot's card checked",
        "a move for a bot seat",
        "a bot's events",
        "a bot move with its own policy",
        "a bot move with its own seed",
        "the previous state again",
        "no token",
    ]
    assert list(leaks(record, game)) == []


def test_the_playground_plays_on_plain_states(tmp_path: Path) -> None:
    """Without keys (as ``make run`` starts the server) the page plays a whole game too."""
    http = free_port()
    url = f"http://127.0.0.1:{http}/"
    record, saved = tmp_path / "calls.json", tmp_path / f"six_nimmt{records.SUFFIX}"
    with running_server(tmp_path, workers=1, http_port=str(http)) as server:
        report = play(url, "six_nimmt", record, "--save", str(saved))
        assert replayed_over_both_doors(server, url, saved) == last_state(record)
        opened = open_saved_game(url, saved)
    assert report["shown"] == report["server"]
    assert opened["over"]
    assert opened["revealed"] == GAMES["six_nimmt"][0]


def test_a_saved_sealed_game_opens_and_steps_in_the_page(
    sealed_server: tuple[ServerProcess, str], tmp_path: Path
) -> None:
    """A sealed game saved from the page opens again: first, back, forward, last and the slider
    step through it, as a spectator, a seat, and with every card shown once it is over."""
    saved = tmp_path / f"fora_de_ordem{records.SUFFIX}"
    play(
        sealed_server[1], "fora_de_ordem", tmp_path / "calls.json", "--sealed", "--save", str(saved)
    )
    opened = open_saved_game(sealed_server[1], saved)
    assert opened["steps"] == len(records.load(saved).moves)
    assert opened["over"]
    assert opened["revealed"] == GAMES["fora_de_ordem"][0]
