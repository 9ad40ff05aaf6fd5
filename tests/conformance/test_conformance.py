"""The conformance suite: every registered game, several seat counts and seeds, run in-process and
again over gRPC against a real server, with plain and with sealed states, and against a server
that requires seat tokens (each call with the token of its seat). A game that registers must
pass it unchanged."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from engines import registry
from engines.errors import InvalidStateError
from engines.prng import Rng
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.config import Settings
from service.process.worker import create_server, new_servicer
from service.trust.sealing import Sealer
from service.trust.seat_tokens import SeatTokens
from tests.conformance.corruptions import CORRUPTIONS, STEPS_PER_SEAT
from tests.conformance.drivers import Driver, InProcess, OverGrpc, RefusedError
from tests.fake_clock import FakeClock
from tests.state_keys import TEST_KEY

GAMES = sorted(registry.ENGINES)
MAX_ACTIONS = 20_000  # no game may run longer in a random playout
CHECK_EVERY = 7  # the costlier checks (views, illegal actions) run on every 7th step
SENTINEL = 0x5EED_0BAD_F00D_CAFE  # a generator state to search views for
SEEDS_IN_PROCESS = (1, 2, 3)
SEEDS_OVER_GRPC = (4,)
CLOCKED_LIMIT_MS = 60_000  # a minute a move
SEARCH_ITERATIONS = 2  # a small budget for the search bot where every checkpoint asks it
SEARCH_SEED = 77  # the search bot's fixed seed in the re-deal test
#: Per game with one: the move that answers a pending choice (a row to take, a five to lock).
CHOICE_MOVES = {"six_nimmt": "choose_row", "sequence_numbers": "choose_sequence"}


def seat_counts(game_id: str) -> tuple[int, ...]:
    """The fewest and the most seats of a game."""
    info = registry.get(game_id).info
    return tuple(sorted({info.min_seats, info.max_seats}))


def cases(seeds: tuple[int, ...]) -> list[Any]:
    """(game, seats, seed) for every game and seat count."""
    return [
        pytest.param(game, seats, seed, id=f"{game}-{seats}seats-seed{seed}")
        for game in GAMES
        for seats in seat_counts(game)
        for seed in seeds
    ]


def key(message: Any) -> bytes:
    """A message's canonical bytes."""
    return message.SerializeToString(deterministic=True)  # type: ignore[no-any-return]


@pytest.fixture(params=["in_process", "grpc", "grpc_sealed", "grpc_tokens"])
def make_driver(request: pytest.FixtureRequest) -> Any:
    """A factory of drivers of the parametrized kind: over gRPC to a server with state keys,
    the states are sealed; to one that requires seat tokens (and suggests with every policy),
    each call carries its seat's."""
    if request.param == "in_process":
        return InProcess
    if request.param == "grpc":
        stub = request.getfixturevalue("stub")
        return lambda game_id: OverGrpc(game_id, stub)
    if request.param == "grpc_tokens":
        seated_stub = request.getfixturevalue("seated_searching_stub")
        tokens = SeatTokens([TEST_KEY])
        return lambda game_id: OverGrpc(game_id, seated_stub, Sealer([TEST_KEY]), tokens)
    sealed_stub = request.getfixturevalue("sealed_stub")
    return lambda game_id: OverGrpc(game_id, sealed_stub, Sealer([TEST_KEY]))


@pytest.fixture(scope="module")
def clocked_sealed_stub() -> Iterator[rpc.GameEngineServiceStub]:
    """A stub of a server with the test state key whose clock stands still: every view of a
    game with a time control shows the same clocks."""
    settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0, state_keys=(TEST_KEY,))
    servicer = new_servicer(settings, clock=FakeClock())
    server, port, _health = create_server(settings, servicer=servicer)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
        yield rpc.GameEngineServiceStub(chan)
    server.stop(None)


def playout(
    driver: Driver, seats: int, seed: int, checks: bool = True
) -> Iterator[tuple[common.GameState, common.GameStatus, int]]:
    """Play random legal actions to the end, yielding (state, status, step) before each action."""
    rng = Rng(seed * 7919 + seats)
    state = driver.new_game(seats, seed)
    status = driver.status(state)
    for step in range(MAX_ACTIONS):
        yield state, status, step
        if status.finished:
            return
        seat = rng.choice(list(status.seats_to_act))
        legal = driver.legal(state, seat)
        assert legal, f"seat {seat} is to act but has no legal action"
        action = rng.choice(legal)
        if checks:
            assert driver.validate(state, action) == (True, "")
        response = driver.apply(state, action)
        assert response.state.revision == state.revision + 1
        state, status = response.state, response.status
    pytest.fail(f"no end within {MAX_ACTIONS} actions")


def checkpoints(
    driver: Driver, seats: int, seed: int, *, finished: bool = False
) -> Iterator[tuple[common.GameState, common.GameStatus, int]]:
    """Every ``CHECK_EVERY``-th state of a playout (the finished one too when ``finished``)."""
    for state, status, step in playout(driver, seats, seed, checks=False):
        if step % CHECK_EVERY == 0 and (finished or not status.finished):
            yield state, status, step


def mutations(action: common.Action, game_id: str) -> Iterator[common.Action]:
    """Actions near a legal one: every number in its move changed to other values."""
    move = getattr(action, game_id)
    for field, value in _numbers(move):
        for other in (value + 1, value + 1000, 0, 2**31 - 1):
            if other != value:
                mutated = common.Action()
                mutated.CopyFrom(action)
                _set_number(getattr(mutated, game_id), field, other)
                yield mutated


def _numbers(message: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], int]]:
    for descriptor, value in message.ListFields():
        if descriptor.message_type is not None and not _is_repeated(descriptor):
            yield from _numbers(value, (*path, descriptor.name))
        elif (
            isinstance(value, int) and not isinstance(value, bool) and descriptor.enum_type is None
        ) and not _is_repeated(descriptor):
            yield (*path, descriptor.name), value


def _is_repeated(descriptor: Any) -> bool:
    return bool(descriptor.is_repeated)


def _set_number(message: Any, path: tuple[str, ...], value: int) -> None:
    for name in path[:-1]:
        message = getattr(message, name)
    field = message.DESCRIPTOR.fields_by_name[path[-1]]
    limit = 2**32 - 1 if field.cpp_type in (field.CPPTYPE_UINT32,) else 2**31 - 1
    setattr(message, path[-1], min(value, limit))


class TestSeats:
    """A game is dealt for exactly the seat counts it lists."""

    @pytest.mark.parametrize("game", GAMES)
    def test_new_game_takes_exactly_the_listed_seat_counts(
        self, make_driver: Any, game: str
    ) -> None:
        """NewGame deals every listed count and refuses every other one with
        INVALID_SEAT_COUNT, including the gaps between the fewest and the most."""
        driver = make_driver(game)
        info = registry.get(game).info
        for seats in range(info.max_seats + 3):
            if seats in info.seat_counts:
                assert len(driver.view(driver.new_game(seats, 3), None).status.seats_to_act) >= 1
            else:
                with pytest.raises(RefusedError) as refused:
                    driver.new_game(seats, 3)
                assert refused.value.reason == "INVALID_SEAT_COUNT", seats

    def test_seat_counts_run_from_the_fewest_to_the_most(self) -> None:
        """Every game's seat counts start at its min_seats and end at its max_seats."""
        for game in GAMES:
            info = registry.get(game).info
            assert (info.seat_counts[0], info.seat_counts[-1]) == (info.min_seats, info.max_seats)
        assert registry.get("sequence_numbers").info.seat_counts == (2, 3, 4, 6)


class TestPlayouts:
    """Random legal playouts: who acts, what is legal, and that every game ends."""

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_random_playout_reaches_the_end(
        self, make_driver: Any, game: str, seats: int, seed: int
    ) -> None:
        """A random legal playout ends with an outcome, only to-act seats have legal actions."""
        self.check_playout(make_driver(game), seats, seed)

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_IN_PROCESS))
    def test_more_seeds_in_process(self, game: str, seats: int, seed: int) -> None:
        """More seeds of the same playout checks, in-process where they are cheap."""
        self.check_playout(InProcess(game), seats, seed)

    @staticmethod
    def check_playout(driver: Driver, seats: int, seed: int) -> None:
        """Play to the end, checking who may act and the outcome."""
        status = common.GameStatus()
        for state, status, step in playout(driver, seats, seed):
            if status.finished or step % CHECK_EVERY:
                continue
            to_act = set(status.seats_to_act)
            for seat in range(seats):
                legal = driver.legal(state, seat)
                if seat not in to_act:
                    assert legal == [], f"seat {seat} is not to act but has legal actions"
                else:
                    assert [key(a) for a in legal] == [key(a) for a in driver.legal(state, seat)]
                    assert len({key(a) for a in legal}) == len(legal), "duplicate legal actions"
        assert status.finished
        assert not status.seats_to_act
        assert len(status.outcome.scores) == seats
        assert set(status.outcome.winners) <= set(range(seats))
        assert list(status.outcome.winners) == sorted(status.outcome.winners)
        assert status.outcome.termination

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_every_listed_action_validates_and_applies(
        self, make_driver: Any, game: str, seats: int, seed: int
    ) -> None:
        """Every action ListLegalActions lists is legal for ValidateAction and ApplyAction."""
        driver = make_driver(game)
        for state, status, _step in checkpoints(driver, seats, seed):
            for seat in status.seats_to_act:
                for action in driver.legal(state, seat)[:40]:
                    assert driver.validate(state, action) == (True, "")
                    assert driver.apply(state, action).state.revision == state.revision + 1

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_unlisted_actions_are_rejected_with_a_reason(
        self, make_driver: Any, game: str, seats: int, seed: int
    ) -> None:
        """Actions not listed (other seats', changed numbers, no seat) are refused, input kept."""
        driver = make_driver(game)
        for state, status, _step in checkpoints(driver, seats, seed):
            before = key(state)
            seat = status.seats_to_act[0]
            legal = driver.legal(state, seat)
            listed = {key(a) for a in legal}
            candidates = list(mutations(legal[0], game))
            for other in set(range(seats)) - set(status.seats_to_act):
                moved = common.Action()
                moved.CopyFrom(legal[0])
                moved.seat = other
                candidates.append(moved)
            absent = common.Action()
            absent.CopyFrom(legal[0])
            absent.seat = seats + 3
            candidates.append(absent)
            empty = common.Action(seat=seat)
            candidates.append(empty)
            for action in candidates:
                if key(action) in listed:
                    continue
                legal_now, reason = driver.validate(state, action)
                assert not legal_now, f"unlisted action accepted: {action}"
                assert reason
                assert reason == reason.upper()
                with pytest.raises(RefusedError) as refused:
                    driver.apply(state, action)
                assert refused.value.code == "INVALID_ARGUMENT"
                assert refused.value.reason == reason
            assert key(state) == before

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_bots_suggest_legal_actions(
        self, make_driver: Any, game: str, seats: int, seed: int
    ) -> None:
        """Every bot policy suggests one of the listed actions."""
        driver = make_driver(game)
        for state, status, _step in checkpoints(driver, seats, seed):
            seat = status.seats_to_act[-1]
            listed = {key(a) for a in driver.legal(state, seat)}
            for policy in ("random", "heuristic"):
                assert key(driver.suggest(state, seat, policy)) in listed
            assert (
                key(driver.suggest(state, seat, "search", iterations=SEARCH_ITERATIONS)) in listed
            )

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_search_suggests_legal_actions_on_its_default_budget(
        self, game: str, seats: int, seed: int
    ) -> None:
        """The search bot with its default budget suggests one of the listed actions."""
        driver = InProcess(game)
        for state, status, step in checkpoints(driver, seats, seed):
            if step % (CHECK_EVERY * 3):
                continue
            seat = status.seats_to_act[0]
            listed = {key(a) for a in driver.legal(state, seat)}
            assert key(driver.suggest(state, seat, "search")) in listed


class TestPendingChoices:
    """Choices a play leaves to its seat: random playouts reach them, and they answer alone."""

    @pytest.mark.parametrize("game", sorted(CHOICE_MOVES))
    def test_random_playouts_reach_a_pending_choice(self, make_driver: Any, game: str) -> None:
        """Playouts of the in-process seeds meet the choice move; while it is listed nothing else
        is, and each listed answer validates and applies."""
        driver = make_driver(game)
        move = CHOICE_MOVES[game]
        met = 0
        for seats in seat_counts(game):
            for seed in SEEDS_IN_PROCESS:
                for state, status, _step in playout(driver, seats, seed, checks=False):
                    for seat in status.seats_to_act:
                        legal = driver.legal(state, seat)
                        moves = {getattr(action, game).WhichOneof("move") for action in legal}
                        if move not in moves:
                            continue
                        met += 1
                        assert moves == {move}
                        for action in legal:
                            assert driver.validate(state, action) == (True, "")
                            applied = driver.apply(state, action)
                            assert applied.state.revision == state.revision + 1
        assert met, f"no random playout of {game} reached {move}"


class TestDeterminism:
    """Same seed and same actions give the same bytes."""

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_same_seed_and_actions_give_identical_states(
        self, make_driver: Any, game: str, seats: int, seed: int
    ) -> None:
        """Two playouts from the same seed with the same choices end in byte-identical states."""
        first = [key(state) for state, _, _ in playout(make_driver(game), seats, seed, False)]
        second = [key(state) for state, _, _ in playout(make_driver(game), seats, seed, False)]
        assert first == second

    @pytest.mark.parametrize("game", GAMES)
    def test_different_seeds_deal_different_games(self, game: str) -> None:
        """Two seeds deal two different games."""
        driver = InProcess(game)
        seats = seat_counts(game)[0]
        assert key(driver.new_game(seats, 1)) != key(driver.new_game(seats, 2))


class TestSerialization:
    """States survive the wire unchanged."""

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_IN_PROCESS))
    def test_states_round_trip(self, game: str, seats: int, seed: int) -> None:
        """Every state of a playout decodes to an engine state that encodes to the same bytes."""
        driver = InProcess(game)
        for state, _status, _step in playout(driver, seats, seed, checks=False):
            engine_state = driver.to_engine(state)
            driver.engine.validate(engine_state)
            assert key(driver.to_message(engine_state)) == key(state)
            parsed = common.GameState.FromString(key(state))
            assert driver.to_engine(parsed) == engine_state


class TestViews:
    """Views never show what their viewer may not know."""

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_views_do_not_change_when_hidden_cards_are_redealt(
        self, make_driver: Any, game: str, seats: int, seed: int
    ) -> None:
        """Re-dealing what a seat cannot see leaves its view (and a spectator's) byte-identical."""
        driver = make_driver(game)
        for state, _status, step in checkpoints(driver, seats, seed, finished=True):
            spectator = key(driver.view(state, None))
            for seat in range(seats):
                own = key(driver.view(state, seat))
                for redeal_seed in (11, 12):
                    redealt = driver.redeal(state, seat, redeal_seed + step)
                    assert key(driver.view(redealt, seat)) == own, f"seat {seat}'s view leaks"
                    assert key(driver.view(redealt, None)) == spectator, "spectator view leaks"

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_views_with_clocks_do_not_change_when_hidden_cards_are_redealt(
        self, clocked_sealed_stub: rpc.GameEngineServiceStub, game: str, seats: int, seed: int
    ) -> None:
        """With a time control, re-dealing what a seat cannot see (the clock sealed beside
        the cards, as the server stamped it) leaves its view and a spectator's, clocks
        included, byte-identical."""
        control = common.TimeControl(move_limit_ms=CLOCKED_LIMIT_MS)
        driver = OverGrpc(game, clocked_sealed_stub, Sealer([TEST_KEY]), time_control=control)
        for state, _status, step in checkpoints(driver, seats, seed, finished=True):
            spectator = driver.view(state, None)
            assert spectator.HasField("clock")
            for seat in range(seats):
                own = key(driver.view(state, seat))
                redealt = driver.redeal(state, seat, 31 + step)
                assert key(driver.view(redealt, seat)) == own, f"seat {seat}'s view leaks"
                assert key(driver.view(redealt, None)) == key(spectator), "spectator view leaks"

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_search_moves_do_not_change_when_hidden_cards_are_redealt(
        self, make_driver: Any, game: str, seats: int, seed: int
    ) -> None:
        """With a fixed seed, the search bot's move is the same whatever the cards its seat
        cannot see are: it samples from the seat's view, never from the hidden cards."""
        driver = make_driver(game)
        for state, status, step in checkpoints(driver, seats, seed):
            seat = status.seats_to_act[0]
            move = key(driver.suggest(state, seat, "search", SEARCH_SEED, SEARCH_ITERATIONS))
            for redeal_seed in (21, 22):
                redealt = driver.redeal(state, seat, redeal_seed + step)
                again = driver.suggest(redealt, seat, "search", SEARCH_SEED, SEARCH_ITERATIONS)
                assert key(again) == move, f"seat {seat}'s search move depends on hidden cards"

    @pytest.mark.parametrize(("game", "seats", "seed"), cases(SEEDS_OVER_GRPC))
    def test_views_never_contain_the_generator_state(
        self, make_driver: Any, game: str, seats: int, seed: int
    ) -> None:
        """A sentinel generator state appears in no view, and changing it changes no view."""
        driver = make_driver(game)
        varint = common.GameState(revision=SENTINEL).SerializeToString()[1:]
        for state, _status, _step in checkpoints(driver, seats, seed, finished=True):
            planted = driver.with_rng_state(state, SENTINEL)
            for seat in (None, *range(seats)):
                view = key(driver.view(planted, seat))
                assert varint not in view
                assert view == key(driver.view(state, seat))

    @pytest.mark.parametrize("game", GAMES)
    def test_a_seat_the_game_does_not_have_sees_nothing(self, make_driver: Any, game: str) -> None:
        """A view for a seat past the last is refused with INVALID_SEAT."""
        driver = make_driver(game)
        seats = seat_counts(game)[0]
        state = driver.new_game(seats, 6)
        for seat in (seats, seats + 7):
            with pytest.raises(RefusedError) as refused:
                driver.view(state, seat)
            assert refused.value.reason == "INVALID_SEAT"

    @pytest.mark.parametrize("game", GAMES)
    def test_a_negative_viewer_sees_nothing(self, game: str) -> None:
        """The engine refuses a negative viewer (the wire cannot send one): it would index the
        hands from the end and show the last seat's."""
        driver = InProcess(game)
        state = driver.new_game(seat_counts(game)[0], 6)
        with pytest.raises(RefusedError) as refused:
            driver.view(state, -1)
        assert refused.value.reason == "INVALID_SEAT"


def state_to_corrupt(driver: Driver) -> tuple[common.GameState, common.GameStatus]:
    """A state of a game with the fewest seats ``STEPS_PER_SEAT`` actions a seat in (so that
    more of it is filled), and its status."""
    seats = seat_counts(driver.game_id)[0]
    for state, status, step in playout(driver, seats, 9, checks=False):
        if step == STEPS_PER_SEAT * seats:
            return state, status
    raise AssertionError(f"a {driver.game_id} game ended within {step} actions")


class TestCorruptedStates:
    """States the rules could not have produced are refused with a reason."""

    def test_every_game_has_corruptions(self) -> None:
        """Each registered game lists the corruptions its validation must catch."""
        assert set(CORRUPTIONS) == set(GAMES)
        assert all(len(corruptions) >= 2 for corruptions in CORRUPTIONS.values())

    @pytest.mark.parametrize("game", GAMES)
    def test_another_rules_version_is_refused(self, make_driver: Any, game: str) -> None:
        """A state of another rules version gets UNSUPPORTED_RULES_VERSION (sealed too: a state
        sealed before an upgrade of the rules)."""
        driver = make_driver(game)
        new = driver.to_engine(driver.new_game(seat_counts(game)[0], 5))
        state = driver.to_message(dataclasses.replace(new, rules_version=new.rules_version + 1))
        with pytest.raises(RefusedError) as refused:
            driver.view(state, None)
        assert refused.value.reason == "UNSUPPORTED_RULES_VERSION"

    @pytest.mark.parametrize("game", GAMES)
    @pytest.mark.parametrize("revision", [2**64 - 1, 2**64 - 2], ids=["last", "last-but-one"])
    def test_the_last_revisions_are_refused(
        self, make_driver: Any, game: str, revision: int
    ) -> None:
        """Revisions are 64-bit: a state at the last one could not count another action, and
        one at the last but one is refused too, as the state an action made from it would be
        (a state the server returns is always taken back)."""
        driver = make_driver(game)
        new = driver.to_engine(driver.new_game(seat_counts(game)[0], 5))
        state = driver.to_plain_message(dataclasses.replace(new, revision=revision))
        with pytest.raises(RefusedError) as refused:
            driver.view(state, None)
        assert refused.value.reason == (
            "STATE_NOT_SEALED" if driver.refuses_plain else "INVALID_STATE"
        )

    @pytest.mark.parametrize(
        ("game", "name"),
        [(game, name) for game in GAMES for name in CORRUPTIONS.get(game, {})],
    )
    def test_corrupted_state_is_refused(self, make_driver: Any, game: str, name: str) -> None:
        """A corrupted state is refused by every RPC that reads it, with INVALID_ARGUMENT and
        INVALID_STATE (ValidateAction too: the state is not the action it answers about)."""
        driver = make_driver(game)
        state, status = state_to_corrupt(driver)
        seat = status.seats_to_act[0]
        action = driver.legal(state, seat)[0]
        # Plain, as anyone may forge it: only a server's keys seal a state.
        corrupted = driver.to_plain_message(
            CORRUPTIONS[game][name].corrupt(driver.to_engine(state))
        )
        calls = {
            "GetView": lambda: driver.view(corrupted, None),
            "ListLegalActions": lambda: driver.legal(corrupted, seat),
            "ApplyAction": lambda: driver.apply(corrupted, action),
            "ValidateAction": lambda: driver.validate(corrupted, action),
            "SuggestAction": lambda: driver.suggest(corrupted, seat, "random"),
        }
        expected = "STATE_NOT_SEALED" if driver.refuses_plain else "INVALID_STATE"
        for method, call in calls.items():
            with pytest.raises(RefusedError) as refused:
                call()
            assert (refused.value.code, refused.value.reason) == (
                "INVALID_ARGUMENT",
                expected,
            ), method

    @pytest.mark.parametrize(
        ("game", "name"),
        [(game, name) for game in GAMES for name in CORRUPTIONS.get(game, {})],
    )
    def test_corruption_is_refused_by_its_check(self, game: str, name: str) -> None:
        """The check a corruption names is the one that refuses it: a corruption that also
        broke what an earlier check counts would not show that its own check works."""
        driver = InProcess(game)
        corruption = CORRUPTIONS[game][name]
        state = driver.to_engine(state_to_corrupt(driver)[0])
        driver.engine.validate(state)
        with pytest.raises(InvalidStateError, match=corruption.refused_by):
            driver.engine.validate(corruption.corrupt(state))
