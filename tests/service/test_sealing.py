"""Sealed states: a server with state keys returns states a caller can neither read nor forge,
and takes them back (see ``service.trust.sealing``). In-process through the servicer, and over gRPC
against real servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from engines.errors import RulesError
from engines.prng import Rng
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.servicer import GameEngineServicer
from service.codecs import wire
from service.config import Settings
from service.process.worker import create_server
from service.telemetry.observe import CallRecord
from service.trust.sealing import KEY_BYTES, Sealer, SealInvalidError
from tests.conformance.corruptions import CORRUPTIONS
from tests.conformance.drivers import Codecs, reason_of
from tests.state_keys import NEXT_KEY, OTHER_KEY, TEST_KEY

GAMES = ("fora_de_ordem", "sequence_numbers", "six_nimmt", "up_or_down")
ACTIONS_IN = 9  # the states under test are this many actions into a game: hands and piles set
SEAL_INVALID = "STATE_SEAL_INVALID"


def servicer(*keys: tuple[str, bytes], require_sealed: bool = False) -> GameEngineServicer:
    """A servicer sealing with the first of ``keys`` (none: plain states)."""
    return GameEngineServicer(sealer=Sealer(keys) if keys else None, require_sealed=require_sealed)


def call(target: GameEngineServicer, method: str, request: Any) -> Any:
    """Call a servicer method as the server does (ApplyAction with the request's bytes)."""
    if method == "ApplyAction":
        answer = target.ApplyAction(request.SerializeToString(), CallRecord(method))
        return api.ApplyActionResponse.FromString(answer)
    return getattr(target, method)(request, CallRecord(method))


def refusal(target: GameEngineServicer, method: str, request: Any) -> str:
    """The reason ``method`` refuses ``request`` with; fails when it is answered."""
    with pytest.raises(RulesError) as refused:
        call(target, method, request)
    return refused.value.reason


def play(target: GameEngineServicer, game: str, actions: int = ACTIONS_IN) -> common.GameState:
    """The state after ``actions`` random legal actions of a seeded two- or three-seat game."""
    seats = 3 if game == "six_nimmt" else 2
    started = call(
        target,
        "NewGame",
        api.NewGameRequest(seats=seats, seed=26, options=common.GameOptions(**{game: {}})),
    )
    state, status = started.state, started.status
    rng = Rng(26)
    for _ in range(actions):
        seat = rng.choice(list(status.seats_to_act))
        legal = call(
            target, "ListLegalActions", api.ListLegalActionsRequest(state=state, seat=seat)
        )
        answer = call(
            target,
            "ApplyAction",
            api.ApplyActionRequest(state=state, action=rng.choice(list(legal.actions))),
        )
        state, status = answer.state, answer.status
    return state  # type: ignore[no-any-return]


def requests(state: common.GameState, game: str) -> dict[str, Any]:
    """A request of every method that takes a state, about ``state``."""
    seat = common.Action(seat=0, **{game: {}})
    return {
        "ApplyAction": api.ApplyActionRequest(state=state, action=seat),
        "ValidateAction": api.ValidateActionRequest(state=state, action=seat),
        "ListLegalActions": api.ListLegalActionsRequest(state=state, seat=0),
        "GetView": api.GetViewRequest(state=state, viewer=common.Viewer(spectator=True)),
        "SuggestAction": api.SuggestActionRequest(state=state, seat=0),
    }


def with_sealed(state: common.GameState, sealed: bytes) -> common.GameState:
    """``state`` with its ``sealed`` field replaced."""
    changed = common.GameState()
    changed.CopyFrom(state)
    changed.sealed = sealed
    return changed


def altered(state: common.GameState) -> Iterator[common.GameState]:
    """Every single-byte change of a sealed state's seal (each byte's low and high bit
    flipped), every truncation of it, and every change of the fields it keeps in clear."""
    sealed = state.sealed
    for position in range(len(sealed)):
        for flip in (0x01, 0x80):
            changed = bytearray(sealed)
            changed[position] ^= flip
            yield with_sealed(state, bytes(changed))
    for length in range(len(sealed)):
        yield with_sealed(state, sealed[:length])
    for field, values in (
        ("revision", (state.revision + 1, max(state.revision - 1, 0), 2**64 - 2)),
        ("rules_version", (state.rules_version + 1, 0)),
        ("game_id", tuple(game for game in GAMES if game != state.game_id)),
    ):
        for value in values:
            changed = common.GameState()
            changed.CopyFrom(state)
            setattr(changed, field, value)
            if changed != state:
                yield changed


class TestSealedStates:
    """What a server with keys returns."""

    @pytest.mark.parametrize("game", GAMES)
    def test_a_sealed_state_keeps_only_the_public_fields_in_clear(self, game: str) -> None:
        """A sealed state sets sealed and game_id, its rules version and revision, no game."""
        state = play(servicer(TEST_KEY), game)
        assert state.WhichOneof("game") is None
        assert (state.game_id, state.revision) == (game, ACTIONS_IN)
        assert state.rules_version >= 1
        assert state.sealed.startswith(bytes((len(TEST_KEY[0]),)) + TEST_KEY[0].encode())

    @pytest.mark.parametrize("game", GAMES)
    def test_the_sealed_bytes_hold_none_of_the_card_lists(self, game: str) -> None:
        """No list of the plain state (hands, deck, rows, piles…) appears in the sealed bytes:
        neither its packed items nor the field as a whole."""
        sealed = play(servicer(TEST_KEY), game)
        plain = Codecs(game, Sealer([TEST_KEY])).unsealed(sealed)
        data = sealed.SerializeToString()
        lists = list(packed_lists(getattr(plain, game)))
        assert len(lists) >= 3, "the state under test should hold several lists"
        for name, items in lists:
            assert items not in data, f"{name} shows in the sealed state"

    @pytest.mark.parametrize("game", GAMES)
    def test_sealing_is_deterministic(self, game: str) -> None:
        """Two servers with the same key seal the same state to the same bytes; the plain
        answers are those of a server without keys."""
        first, second = servicer(TEST_KEY), servicer(TEST_KEY)
        assert play(first, game) == play(second, game)
        sealed = play(first, game)
        plain = play(servicer(), game)
        assert Codecs(game, Sealer([TEST_KEY])).unsealed(sealed) == plain

    @pytest.mark.parametrize("game", GAMES)
    def test_a_sealed_state_is_not_validated_again(self, game: str) -> None:
        """A state whose seal opens is taken as the rules produced it, on a server that never
        saw it: a state the validation would refuse, sealed with the key, is answered."""
        codecs = Codecs(game, Sealer([TEST_KEY]))
        engine_state = codecs.to_engine(play(servicer(TEST_KEY), game))
        forged = next(iter(CORRUPTIONS[game].values())).corrupt(engine_state)
        with pytest.raises(RulesError):
            codecs.engine.validate(forged)
        view = call(
            servicer(TEST_KEY),
            "GetView",
            api.GetViewRequest(state=codecs.to_message(forged), viewer=common.Viewer(seat=0)),
        )
        assert view.view.WhichOneof("game") == game


def packed_lists(message: Any, path: str = "") -> Iterator[tuple[str, bytes]]:
    """The packed items of every repeated number field of ``message`` with three or more
    entries, nested messages included, with the field's name."""
    for descriptor, value in message.ListFields():
        name = f"{path}{descriptor.name}"
        if descriptor.message_type is not None:
            for each in value if descriptor.is_repeated else (value,):
                yield from packed_lists(each, name + ".")
        elif descriptor.is_repeated and len(value) >= 3:
            alone = type(message)()
            getattr(alone, descriptor.name).extend(value)
            key = wire.key(descriptor.number, wire.LENGTH_DELIMITED)
            split = wire.leading_field(alone.SerializeToString(), key)
            assert split is not None, name
            yield name, split[0]


class TestRefusals:
    """Sealed states that do not open, plain ones where sealed ones are required, sealed ones
    where there are no keys: each refused with its reason by every method."""

    @pytest.mark.parametrize("game", GAMES)
    def test_every_byte_changed_or_cut_is_refused(self, game: str) -> None:
        """Every single-byte change and every truncation of the seal, and every change of a
        field it keeps in clear, is refused with STATE_SEAL_INVALID."""
        target = servicer(TEST_KEY)
        state = play(target, game)
        count = 0
        for changed in altered(state):
            request = api.GetViewRequest(state=changed, viewer=common.Viewer(seat=0))
            assert refusal(target, "GetView", request) == SEAL_INVALID, changed
            count += 1
        assert count > 2 * len(state.sealed)

    @pytest.mark.parametrize("game", GAMES)
    def test_every_method_refuses_a_broken_seal(self, game: str) -> None:
        """Every method that takes a state refuses a broken seal the same way."""
        target = servicer(TEST_KEY)
        state = play(target, game)
        broken = with_sealed(state, state.sealed[:-1] + bytes((state.sealed[-1] ^ 1,)))
        for method, request in requests(broken, game).items():
            assert refusal(target, method, request) == SEAL_INVALID, method

    @pytest.mark.parametrize(
        "keys",
        [(OTHER_KEY,), (NEXT_KEY,), (NEXT_KEY, OTHER_KEY)],
        ids=["another-deployments-key-same-id", "another-key-id", "neither"],
    )
    def test_a_key_this_server_has_not(self, keys: tuple[tuple[str, bytes], ...]) -> None:
        """A state sealed under a key the server does not list is refused with
        STATE_SEAL_INVALID, and the message does not say why."""
        state = play(servicer(TEST_KEY), "six_nimmt")
        target = servicer(*keys)
        for method, request in requests(state, "six_nimmt").items():
            with pytest.raises(SealInvalidError) as refused:
                call(target, method, request)
            assert refused.value.message == "the sealed state does not open with this server's keys"

    def test_a_sealed_state_that_also_sets_a_game(self) -> None:
        """A sealed state with a plain game beside it is refused: which would it be?"""
        target = servicer(TEST_KEY)
        sealed = play(target, "up_or_down")
        both = common.GameState()
        both.CopyFrom(play(servicer(), "up_or_down"))
        both.sealed, both.game_id = sealed.sealed, sealed.game_id
        request = api.GetViewRequest(state=both, viewer=common.Viewer(seat=0))
        assert refusal(target, "GetView", request) == SEAL_INVALID

    @pytest.mark.parametrize("game", GAMES)
    def test_require_sealed_refuses_plain_states(self, game: str) -> None:
        """With sealed states required, every method refuses a plain state with
        STATE_NOT_SEALED, and takes the sealed one."""
        target = servicer(TEST_KEY, require_sealed=True)
        plain = play(servicer(), game)
        for method, request in requests(plain, game).items():
            assert refusal(target, method, request) == "STATE_NOT_SEALED", method
        sealed = play(target, game)
        call(target, "GetView", requests(sealed, game)["GetView"])

    @pytest.mark.parametrize("game", GAMES)
    def test_plain_states_are_taken_unless_sealed_ones_are_required(self, game: str) -> None:
        """A server with keys takes plain states (validated as always) and answers sealed."""
        target = servicer(TEST_KEY)
        plain = play(servicer(), game)
        status = call(target, "GetView", requests(plain, game)["GetView"]).view.status
        seat = status.seats_to_act[0]
        legal = call(
            target, "ListLegalActions", api.ListLegalActionsRequest(state=plain, seat=seat)
        )
        answer = call(
            target, "ApplyAction", api.ApplyActionRequest(state=plain, action=legal.actions[0])
        )
        assert answer.state.sealed
        assert answer.state.revision == plain.revision + 1

    @pytest.mark.parametrize("game", GAMES)
    def test_a_server_without_keys_refuses_sealed_states(self, game: str) -> None:
        """A sealed state sent to a server without keys is refused with
        SEALING_NOT_CONFIGURED by every method."""
        sealed = play(servicer(TEST_KEY), game)
        for method, request in requests(sealed, game).items():
            assert refusal(servicer(), method, request) == "SEALING_NOT_CONFIGURED", method

    def test_keys_are_required_to_require_sealed_states(self) -> None:
        """A servicer cannot require sealed states without a key to seal them."""
        with pytest.raises(ValueError, match="keys"):
            GameEngineServicer(require_sealed=True)

    def test_a_sealer_takes_only_keys_of_the_right_length(self) -> None:
        """AES-256-SIV keys are 64 bytes; the sealer needs at least one."""
        assert len(TEST_KEY[1]) == KEY_BYTES
        with pytest.raises(ValueError, match="key"):
            Sealer([])
        with pytest.raises(ValueError, match="key"):
            Sealer([("short", bytes(16))])


class TestRotation:
    """Keys rotate: a new first key seals, the old one still opens."""

    def test_the_old_key_still_opens_and_the_new_one_seals(self) -> None:
        """A server with a new key first and the old one after takes states sealed under the
        old one and answers under the new one; without the old one it refuses them."""
        old = play(servicer(TEST_KEY), "sequence_numbers")
        rotated = servicer(NEXT_KEY, TEST_KEY)
        legal = call(rotated, "ListLegalActions", api.ListLegalActionsRequest(state=old, seat=0))
        seat = 0 if legal.actions else 1
        legal = call(rotated, "ListLegalActions", api.ListLegalActionsRequest(state=old, seat=seat))
        answer = call(
            rotated, "ApplyAction", api.ApplyActionRequest(state=old, action=legal.actions[0])
        )
        assert answer.state.sealed.startswith(b"\x06" + NEXT_KEY[0].encode())
        assert old.sealed.startswith(b"\x06" + TEST_KEY[0].encode())
        request = api.GetViewRequest(state=answer.state, viewer=common.Viewer(seat=0))
        call(servicer(NEXT_KEY), "GetView", request)
        stale = api.GetViewRequest(state=old, viewer=common.Viewer(seat=0))
        assert refusal(servicer(NEXT_KEY), "GetView", stale) == SEAL_INVALID
        assert refusal(servicer(TEST_KEY), "GetView", request) == SEAL_INVALID


# ----------------------------------------------------------------- over gRPC, real servers
Start = Callable[..., rpc.GameEngineServiceStub]


@pytest.fixture
def start() -> Iterator[Start]:
    """Start in-process servers on free loopback ports with the given keys; each returns a
    stub."""
    running: list[tuple[grpc.Server, grpc.Channel]] = []

    def started(
        *keys: tuple[str, bytes], require_sealed: bool = False
    ) -> rpc.GameEngineServiceStub:
        settings = Settings(
            host="127.0.0.1",
            port=0,
            workers=1,
            metrics_port=0,
            state_keys=keys,
            require_sealed=require_sealed,
        )
        server, port, _health = create_server(settings)
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        running.append((server, channel))
        return rpc.GameEngineServiceStub(channel)

    yield started
    for server, channel in running:
        channel.close()
        server.stop(None)


def rpc_reason(stub: rpc.GameEngineServiceStub, method: str, request: Any) -> str:
    """The reason the server refuses ``request`` with (INVALID_ARGUMENT, one ErrorInfo)."""
    with pytest.raises(grpc.RpcError) as refused:
        getattr(stub, method)(request, timeout=30)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return reason_of(refused.value)


class TestOverGrpc:
    """The same over gRPC, against real servers."""

    def test_two_servers_with_one_key_answer_byte_for_byte_alike(self, start: Start) -> None:
        """Two servers with the same keys give identical answers along a game played on both
        in turns, each taking the states the other sealed."""
        servers = [start(TEST_KEY), start(TEST_KEY)]
        request = api.NewGameRequest(seats=4, seed=77, options=common.GameOptions(six_nimmt={}))
        answers = [server.NewGame(request).SerializeToString() for server in servers]
        assert answers[0] == answers[1]
        started = api.NewGameResponse.FromString(answers[0])
        state, status = started.state, started.status
        rng = Rng(77)
        for step in range(40):
            if status.finished:
                break
            here, there = servers[step % 2], servers[1 - step % 2]
            seat = rng.choice(list(status.seats_to_act))
            legal = here.ListLegalActions(api.ListLegalActionsRequest(state=state, seat=seat))
            assert legal == there.ListLegalActions(
                api.ListLegalActionsRequest(state=state, seat=seat)
            )
            apply = api.ApplyActionRequest(state=state, action=rng.choice(list(legal.actions)))
            answer = here.ApplyAction(apply)
            assert answer.SerializeToString() == there.ApplyAction(apply).SerializeToString()
            state, status = answer.state, answer.status
        assert state.sealed
        assert state.revision == 40

    def test_every_byte_changed_or_cut_is_refused(self, start: Start) -> None:
        """Over gRPC too, every single-byte change and truncation of a sealed state's seal,
        and every change of its clear fields, is refused with STATE_SEAL_INVALID."""
        stub = start(TEST_KEY)
        response = stub.NewGame(
            api.NewGameRequest(seats=2, seed=5, options=common.GameOptions(up_or_down={}))
        )
        for changed in altered(response.state):
            request = api.GetViewRequest(state=changed, viewer=common.Viewer(spectator=True))
            assert rpc_reason(stub, "GetView", request) == SEAL_INVALID

    def test_rotation(self, start: Start) -> None:
        """A server rolled out with a new first key takes the old key's states and seals
        under the new one."""
        old = start(TEST_KEY)
        new = start(NEXT_KEY, TEST_KEY)
        state = old.NewGame(
            api.NewGameRequest(seats=2, seed=5, options=common.GameOptions(fora_de_ordem={}))
        ).state
        view = api.GetViewRequest(state=state, viewer=common.Viewer(seat=0))
        assert new.GetView(view) == old.GetView(view)
        legal = new.ListLegalActions(api.ListLegalActionsRequest(state=state, seat=0))
        answer = new.ApplyAction(api.ApplyActionRequest(state=state, action=legal.actions[0]))
        assert answer.state.sealed.startswith(b"\x06" + NEXT_KEY[0].encode())
        later = api.GetViewRequest(state=answer.state, viewer=common.Viewer(seat=0))
        assert rpc_reason(old, "GetView", later) == SEAL_INVALID
        assert rpc_reason(start(NEXT_KEY), "GetView", view) == SEAL_INVALID

    def test_require_sealed_and_no_keys(
        self, start: Start, stub: rpc.GameEngineServiceStub
    ) -> None:
        """A server that requires sealed states refuses plain ones with STATE_NOT_SEALED; a
        server without keys refuses sealed ones with SEALING_NOT_CONFIGURED."""
        strict = start(TEST_KEY, require_sealed=True)
        options = common.GameOptions(sequence_numbers={})
        plain = stub.NewGame(api.NewGameRequest(seats=2, seed=3, options=options)).state
        sealed = strict.NewGame(api.NewGameRequest(seats=2, seed=3, options=options)).state
        for method, request in requests(plain, "sequence_numbers").items():
            assert rpc_reason(strict, method, request) == "STATE_NOT_SEALED", method
        for method, request in requests(sealed, "sequence_numbers").items():
            assert rpc_reason(stub, method, request) == "SEALING_NOT_CONFIGURED", method
        strict.GetView(requests(sealed, "sequence_numbers")["GetView"])
