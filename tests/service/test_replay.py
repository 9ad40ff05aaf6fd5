"""``ReplayGame`` against a real server: a record plays through to its last state, shows each
viewer what it saw and no more, pages its steps, and refuses every record it must not play."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from engines import registry
from ordo import records
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.replay import DEFAULT_PAGE_STEPS, MAX_PAGE_STEPS
from service.trust.sealing import Sealer
from tests.conformance.drivers import reason_of
from tests.service.recorded import CASES, Case
from tests.state_keys import TEST_KEY

Stub = rpc.GameEngineServiceStub
SERVICE = "ordo.v1.GameEngineService"


def case(game: str, name: str) -> Case:
    return next(each for each in CASES if each.game == game and each.name == name)


def loaded(game: str, name: str) -> api.GameRecord:
    """A recorded game (``tests/service/records``)."""
    return records.load(case(game, name).path)


def replay(stub: Stub, record: api.GameRecord, **fields: object) -> api.ReplayGameResponse:
    response: api.ReplayGameResponse = stub.ReplayGame(
        api.ReplayGameRequest(record=record, **fields)  # type: ignore[arg-type]
    )
    return response


def refusal(
    stub: Stub, record: api.GameRecord, **fields: object
) -> tuple[str, str, dict[str, str]]:
    """The reason, message and ErrorInfo metadata of a refused replay."""
    with pytest.raises(grpc.RpcError) as caught:
        replay(stub, record, **fields)
    error = caught.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return reason_of(error), error.details() or "", dict(info.metadata)


def changed(record: api.GameRecord, change: Callable[[api.GameRecord], None]) -> api.GameRecord:
    copy = api.GameRecord()
    copy.CopyFrom(record)
    change(copy)
    return copy


def walk(stub: Stub, record: api.GameRecord, **fields: object) -> list[api.ReplayStep]:
    """Every step, page after page."""
    steps: list[api.ReplayStep] = []
    first = 0
    while True:
        page = replay(stub, record, first_step=first, **fields)
        steps.extend(page.steps)
        if not page.next_step:
            return steps
        first = page.next_step


class TestReplay:
    """A record plays through to the state it was recorded with."""

    def test_a_record_verifies_without_steps(self, stub: Stub) -> None:
        """Without viewer or reveal, the answer is the last state and status, no steps."""
        record = loaded("up_or_down", "short")
        answer = replay(stub, record)
        assert records.state_digest(answer.final_state) == record.final_digest
        assert answer.final_status.finished
        assert answer.move_count == len(record.moves)
        assert not answer.steps
        assert answer.next_step == 0

    def test_a_seat_sees_what_get_view_and_apply_action_showed_it(self, stub: Stub) -> None:
        """Each step's view is GetView's for that seat, its events ApplyAction's for it."""
        record = loaded("six_nimmt", "fixed_hands")
        steps = walk(stub, record, viewer=common.Viewer(seat=1))
        assert [step.step for step in steps] == list(range(len(record.moves) + 1))
        state = record.initial_state
        assert (
            steps[0].view
            == stub.GetView(api.GetViewRequest(state=state, viewer=common.Viewer(seat=1))).view
        )
        for move, step in zip(record.moves, steps[1:], strict=True):
            applied = stub.ApplyAction(
                api.ApplyActionRequest(
                    state=state,
                    action=move.action if move.HasField("action") else None,
                    bot=move.bot if move.HasField("bot") else None,
                    viewer=common.Viewer(seat=1),
                )
            )
            state = applied.state
            assert list(step.events) == list(applied.events)
            assert (
                step.view
                == stub.GetView(api.GetViewRequest(state=state, viewer=common.Viewer(seat=1))).view
            )
            assert not step.seat_views

    def test_a_spectator_sees_public_events_only(self, stub: Stub) -> None:
        """A spectator's steps hold public events only and views without a hand."""
        steps = walk(stub, loaded("six_nimmt", "fixed_hands"), viewer=common.Viewer(spectator=True))
        assert all(event.public for step in steps for event in step.events)
        assert all(not step.view.six_nimmt.hand for step in steps)

    def test_reveal_shows_every_seat(self, stub: Stub) -> None:
        """With reveal, a finished game's steps hold every seat's view and every event."""
        record = loaded("fora_de_ordem", "english_two_rounds")
        steps = walk(stub, record, reveal=True)
        assert all(len(step.seat_views) == 4 for step in steps)
        assert all(view.fora_de_ordem.hand for view in steps[0].seat_views)
        assert any(not event.public for step in steps for event in step.events)

    def test_pages(self, stub: Stub) -> None:
        """Steps come in pages of the size asked for (64 by default, 256 at most)."""
        record = loaded("sequence_numbers", "three_teams")
        moves = len(record.moves)
        assert moves > MAX_PAGE_STEPS
        first = replay(stub, record, viewer=common.Viewer(seat=0))
        assert len(first.steps) == DEFAULT_PAGE_STEPS
        assert first.next_step == DEFAULT_PAGE_STEPS
        big = replay(stub, record, viewer=common.Viewer(seat=0), page_size=10_000)
        assert len(big.steps) == MAX_PAGE_STEPS
        last = replay(stub, record, viewer=common.Viewer(seat=0), first_step=moves, page_size=5)
        assert [step.step for step in last.steps] == [moves]
        assert last.next_step == 0

    def test_pages_from_the_state_the_last_one_ended_on(self, stub: Stub) -> None:
        """A page asked from the previous page's next_state holds the very steps a page of the
        whole record holds, without the last state (it plays its own moves only)."""
        record = loaded("six_nimmt", "to_66")
        viewer = common.Viewer(seat=3)
        first = replay(stub, record, viewer=viewer, page_size=50)
        assert first.next_step == 50
        second = replay(
            stub, record, viewer=viewer, page_size=50, first_step=50, from_state=first.next_state
        )
        whole = replay(stub, record, viewer=viewer, page_size=50, first_step=50)
        assert list(second.steps) == list(whole.steps)
        assert (second.next_step, second.next_state) == (whole.next_step, whole.next_state)
        assert not second.HasField("final_state")
        assert not second.HasField("final_status")
        assert whole.HasField("final_state")

    def test_a_resumed_page_plays_only_its_moves(self, stub: Stub) -> None:
        """From a page's next_state, the moves after the page are not played: a record whose
        end is cut still shows the page, while the whole replay refuses it."""
        record = loaded("six_nimmt", "to_66")
        viewer = common.Viewer(seat=0)
        first = replay(stub, record, viewer=viewer, page_size=20)
        del record.moves[60:]
        page = replay(
            stub, record, viewer=viewer, page_size=20, first_step=20, from_state=first.next_state
        )
        assert [step.step for step in page.steps] == list(range(20, 40))
        assert refusal(stub, record, viewer=viewer, first_step=20)[0] == "RECORD_MISMATCH"

    def test_a_sealed_record_replays_sealed(self, sealed_stub: Stub) -> None:
        """A sealed record replays on a server with its key, to a sealed last state."""
        record = loaded("six_nimmt", "sealed")
        answer = replay(sealed_stub, record, viewer=common.Viewer(seat=2))
        assert answer.final_state.sealed
        assert records.state_digest(answer.final_state) == record.final_digest


class TestRefusals:
    """A record that is not a game this server plays is refused, naming what is wrong."""

    def test_an_illegal_move_names_its_step_and_reason(self, stub: Stub) -> None:
        """A move the rules forbid at step k is refused with its own reason and k."""
        record = loaded("six_nimmt", "to_66")

        def play_a_card_not_in_hand(copy: api.GameRecord) -> None:
            move = copy.moves[9]
            move.ClearField("bot")
            move.action.seat = 0
            move.action.six_nimmt.select_card = 105

        reason, message, metadata = refusal(stub, changed(record, play_a_card_not_in_hand))
        assert metadata["step"] == "10"
        assert message.startswith("move 10: ")
        assert reason in {"CARD_NOT_IN_HAND", "NOT_SEATS_TURN"}

    def test_an_illegal_last_move(self, stub: Stub) -> None:
        """An illegal move at the very last step is refused with its step."""
        record = loaded("up_or_down", "short")
        last = len(record.moves)

        def repeat_a_move(copy: api.GameRecord) -> None:
            copy.moves[-1].CopyFrom(copy.moves[-2])

        reason, message, metadata = refusal(stub, changed(record, repeat_a_move))
        assert metadata["step"] == str(last)
        assert message.startswith(f"move {last}: ")
        assert reason in {"NOT_SEATS_TURN", "CARD_NOT_IN_HAND", "ILLEGAL_ACTION"}

    def test_a_move_of_nothing(self, stub: Stub) -> None:
        """A move that sets neither action nor bot is malformed, at its step."""
        record = changed(
            loaded("up_or_down", "short"), lambda copy: copy.moves[2].ClearField("bot")
        )
        record.moves[2].ClearField("action")
        reason, _message, metadata = refusal(stub, record)
        assert (reason, metadata["step"]) == ("MALFORMED_ACTION", "3")

    def test_an_unknown_policy(self, stub: Stub) -> None:
        """A bot move with a policy the game has not is refused at its step."""
        record = loaded("up_or_down", "short")
        step = next(k for k, move in enumerate(record.moves) if move.HasField("bot"))
        record.moves[step].bot.policy = "oracle"
        reason, _message, metadata = refusal(stub, record)
        assert (reason, metadata["step"]) == ("UNKNOWN_POLICY", str(step + 1))

    def test_a_changed_digest_names_its_step(self, stub: Stub) -> None:
        """A move's digest that is not its state's is RECORD_MISMATCH at that step."""
        record = loaded("sequence_numbers", "two_seats")
        digests = bytearray(record.move_digests)
        digests[16:20] = bytes(4)  # the fifth move's
        record.move_digests = bytes(digests)
        reason, _message, metadata = refusal(stub, record)
        assert (reason, metadata["step"]) == ("RECORD_MISMATCH", "5")

    def test_a_changed_move_is_the_first_step_that_differs(self, stub: Stub) -> None:
        """A legal move swapped for another: the digest of its step no longer matches."""
        record = loaded("fora_de_ordem", "pt_br")
        first = record.moves[0]
        seat = first.action.seat if first.HasField("action") else first.bot.seat
        first.ClearField("action")
        first.bot.CopyFrom(api.BotMove(seat=seat, policy="random", seed=99))
        reason, _message, metadata = refusal(stub, record)
        assert (reason, metadata["step"]) == ("RECORD_MISMATCH", "1")

    def test_a_record_cut_in_the_middle(self, stub: Stub) -> None:
        """A record whose last moves were cut off fails its final digest, at its last step."""
        record = loaded("six_nimmt", "zero_card")
        kept = len(record.moves) // 2
        del record.moves[kept:]
        reason, _message, metadata = refusal(stub, record)
        assert (reason, metadata["step"]) == ("RECORD_MISMATCH", str(kept))

    def test_record_bytes_cut_in_the_middle(self, channel: grpc.Channel) -> None:
        """A request whose bytes stop in the middle of the record is malformed."""
        data = api.ReplayGameRequest(record=loaded("six_nimmt", "zero_card")).SerializeToString()
        call = channel.unary_unary(f"/{SERVICE}/ReplayGame")
        with pytest.raises(grpc.RpcError) as caught:
            call(data[: len(data) // 2])
        assert reason_of(caught.value) == "MALFORMED_REQUEST"

    def test_digests_of_moves_that_are_not_there(self, stub: Stub) -> None:
        """A record with a digest more than it has moves misses a move: RECORD_MISMATCH at its
        last step."""
        record = loaded("up_or_down", "short")
        record.move_digests += bytes(4)
        reason, _message, metadata = refusal(stub, record)
        assert (reason, metadata["step"]) == ("RECORD_MISMATCH", str(len(record.moves)))

    def test_a_missing_final_digest(self, stub: Stub) -> None:
        """A record without its final digest is no record of a game."""
        record = loaded("up_or_down", "short")
        record.ClearField("final_digest")
        reason, _message, metadata = refusal(stub, record)
        assert (reason, metadata["step"]) == ("RECORD_MISMATCH", str(len(record.moves)))

    def test_another_rules_version(self, stub: Stub) -> None:
        """A plain record of another rules version is refused naming both versions."""
        record = loaded("sequence_numbers", "two_seats")
        server = registry.ENGINES["sequence_numbers"].info.rules_version
        record.initial_state.rules_version = server + 1
        reason, message, metadata = refusal(stub, record)
        assert reason == "RULES_VERSION_MISMATCH"
        assert metadata == {"record_version": str(server + 1), "server_version": str(server)}
        assert f"version {server + 1}" in message
        assert f"version {server}" in message

    def test_another_rules_version_sealed(self, sealed_stub: Stub) -> None:
        """A sealed record of another rules version, whose seal opens, is refused too."""
        record = loaded("six_nimmt", "sealed")
        state = record.initial_state
        server = registry.ENGINES["six_nimmt"].info.rules_version
        payload = Sealer([TEST_KEY]).unseal(state.sealed, "six_nimmt", server, state.revision)
        state.rules_version = server + 1
        state.sealed = Sealer([TEST_KEY]).seal("six_nimmt", server + 1, state.revision, payload)
        reason, _message, metadata = refusal(sealed_stub, record)
        assert reason == "RULES_VERSION_MISMATCH"
        assert metadata["record_version"] == str(server + 1)

    def test_a_tampered_sealed_initial_state(self, sealed_stub: Stub) -> None:
        """A sealed initial state with a byte changed is refused as any tampered state."""
        record = loaded("six_nimmt", "sealed")
        sealed = bytearray(record.initial_state.sealed)
        sealed[-1] ^= 1
        record.initial_state.sealed = bytes(sealed)
        reason, _message, _metadata = refusal(sealed_stub, record)
        assert reason == "STATE_SEAL_INVALID"

    def test_a_sealed_record_on_a_server_without_keys(self, stub: Stub) -> None:
        """A sealed record cannot be replayed where the keys are not."""
        reason, _message, _metadata = refusal(stub, loaded("six_nimmt", "sealed"))
        assert reason == "SEALING_NOT_CONFIGURED"

    def test_a_record_longer_than_any_game_is_refused_unplayed(self, stub: Stub) -> None:
        """More moves than a whole game can have is RECORD_TOO_LONG, before any is played."""
        record = loaded("fora_de_ordem", "custom_questions")
        most = 1 * 3 * 2  # one round, three cards each, two seats
        nothing = api.RecordedMove()  # would be MALFORMED_ACTION, were it played
        del record.moves[:]
        record.moves.extend([nothing] * (most + 1))
        reason, _message, metadata = refusal(stub, record)
        assert (reason, metadata) == ("RECORD_TOO_LONG", {"moves": "7", "most": "6"})

    def test_another_format_version(self, stub: Stub) -> None:
        """A record of a format this server does not know is refused, naming both."""
        record = loaded("up_or_down", "short")
        record.format_version = 2
        reason, _message, metadata = refusal(stub, record)
        assert reason == "RECORD_FORMAT_UNSUPPORTED"
        assert metadata == {"record_version": "2", "server_version": "1"}

    def test_reveal_of_an_unfinished_game(self, stub: Stub) -> None:
        """Every card is shown only once the game is over."""
        record = loaded("up_or_down", "short")
        del record.moves[3:]
        record.move_digests = record.move_digests[:12]
        record.final_digest = _digest_after(stub, record)
        reason, _message, _metadata = refusal(stub, record, reveal=True)
        assert reason == "REVEAL_NOT_FINISHED"
        assert replay(stub, record, viewer=common.Viewer(seat=0)).steps

    def test_a_from_state_of_another_step(self, stub: Stub) -> None:
        """A from_state that is not the record's state before first_step is RECORD_MISMATCH at
        that step."""
        record = loaded("up_or_down", "short")
        viewer = common.Viewer(seat=0)
        first = replay(stub, record, viewer=viewer, page_size=5)
        reason, _message, metadata = refusal(
            stub, record, viewer=viewer, first_step=6, from_state=first.next_state
        )
        assert (reason, metadata["step"]) == ("RECORD_MISMATCH", "5")
        reason, _message, metadata = refusal(
            stub, record, viewer=viewer, first_step=1, from_state=first.next_state
        )
        assert (reason, metadata["step"]) == ("RECORD_MISMATCH", "0")

    @pytest.mark.parametrize(
        "fields",
        [
            {"reveal": True, "first_step": 5},
            {"first_step": 5},
            {"viewer": common.Viewer(seat=0), "first_step": 0},
        ],
        ids=["reveal", "no-viewer", "step-0"],
    )
    def test_from_state_only_with_a_viewers_later_pages(
        self, stub: Stub, fields: dict[str, object]
    ) -> None:
        """reveal and a replay that only checks play the whole record: a from_state there, or
        before step 1, is a bad request (an unfinished game's cards stay hidden)."""
        record = loaded("up_or_down", "short")
        state = replay(stub, record, viewer=common.Viewer(seat=0), page_size=5).next_state
        assert refusal(stub, record, from_state=state, **fields)[0] == "MALFORMED_REQUEST"

    @pytest.mark.parametrize(
        ("fields", "expected"),
        [
            ({"viewer": common.Viewer(seat=0), "reveal": True}, "MALFORMED_REQUEST"),
            ({"viewer": common.Viewer()}, "VIEWER_NOT_SET"),
            ({"viewer": common.Viewer(seat=7)}, "INVALID_SEAT"),
            ({"first_step": 10_000}, "STEP_OUT_OF_RANGE"),
        ],
    )
    def test_bad_requests(self, stub: Stub, fields: dict[str, object], expected: str) -> None:
        """Both viewer and reveal, a viewer of nobody, a seat the game has not, a step beyond
        the last: each refused with its reason."""
        reason, _message, _metadata = refusal(stub, loaded("up_or_down", "short"), **fields)
        assert reason == expected

    def test_no_initial_state(self, stub: Stub) -> None:
        """A record without its initial state is refused as any request without a state."""
        record = api.GameRecord(format_version=1)
        assert refusal(stub, record)[0] == "STATE_NOT_SET"


def _digest_after(stub: Stub, record: api.GameRecord) -> bytes:
    """The final digest of a record's moves, played with ApplyAction."""
    state = record.initial_state
    for move in record.moves:
        state = stub.ApplyAction(
            api.ApplyActionRequest(
                state=state,
                action=move.action if move.HasField("action") else None,
                bot=move.bot if move.HasField("bot") else None,
            )
        ).state
    return records.state_digest(state)
