"""Seat tokens required: every call that carries a state answers only what its token's seat may
know, over both doors, in every game; the game's own bots still play."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from engines import registry
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.replay import DIGEST_BYTES, FORMAT_VERSION, state_digest
from service.trust.seat_tokens import SeatTokens
from tests.seat_calls import SERVICE, STATE_METHODS, Caller, hostile
from tests.state_keys import OTHER_KEY

GAMES = sorted(registry.ENGINES)
STEPS = 6  # moves played before the checks: hands dealt, cards drawn, a turn or two
SPECTATOR = common.Viewer(spectator=True)
OK = grpc.StatusCode.OK
DENIED = grpc.StatusCode.PERMISSION_DENIED
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED


@dataclass
class Table:
    """A game of the token server: seat 1 a bot, the other seats people; its latest state."""

    game: str
    dealt: api.NewGameResponse
    state: common.GameState
    status: common.GameStatus

    @property
    def tokens(self) -> list[str]:
        return list(self.dealt.seat_tokens)

    def action_of(self, caller: Caller, seat: int) -> common.Action:
        """A legal action of a person's ``seat`` now, asked with its own token."""
        request = api.ListLegalActionsRequest(state=self.state, seat=seat)
        return caller.ok("ListLegalActions", request, self.tokens[seat]).actions[0]


def deal(caller: Caller, game: str, seats: int | None = None) -> Table:
    """A new game with seat 1 played by the heuristic bot, the others by people."""
    seats = seats or max(3, registry.get(game).info.min_seats)
    if seats not in registry.get(game).info.seat_counts:
        seats = registry.get(game).info.min_seats
    request = api.NewGameRequest(
        seats=seats,
        options=common.GameOptions(**{game: {}}),
        bots=[common.BotSeat(seat=1, policy="heuristic")],
    )
    dealt = caller.ok("NewGame", request)
    return Table(game, dealt, dealt.state, dealt.status)


def step(caller: Caller, table: Table) -> None:
    """One move: the first seat to act, a person with its first legal action, the bot with a
    bot move asked with seat 0's token."""
    seat = table.status.seats_to_act[0]
    if seat == 1:
        request = api.ApplyActionRequest(state=table.state, bot=api.BotMove(seat=1))
        applied = caller.ok("ApplyAction", request, table.tokens[0])
    else:
        action = table.action_of(caller, seat)
        request = api.ApplyActionRequest(state=table.state, action=action)
        applied = caller.ok("ApplyAction", request, table.tokens[seat])
    table.state, table.status = applied.state, applied.status


def mid_game(caller: Caller, game: str) -> Table:
    """A game ``STEPS`` moves in, not over."""
    table = deal(caller, game)
    for _ in range(STEPS):
        step(caller, table)
    assert not table.status.finished
    return table


def refused(reply: Any, code: grpc.StatusCode, reason: str) -> None:
    """``reply`` is a refusal with ``code`` and ``reason``."""
    assert (reply.code, reply.reason) == (code, reason), reply.message


class TestDealing:
    """NewGame gives each person a token, and nothing that tells a hidden card."""

    def test_each_person_gets_a_token_and_bots_none(self, caller: Caller) -> None:
        """Tokens for the people's seats, an empty string for the bot's, one for spectators;
        no seed."""
        table = deal(caller, "six_nimmt", seats=4)
        tokens = table.tokens
        assert len(tokens) == 4
        assert tokens[1] == ""
        assert all(tokens[seat].startswith("o1.") for seat in (0, 2, 3))
        assert len(set(tokens)) == 4
        assert table.dealt.spectator_token.startswith("o1.")
        assert table.dealt.seed == 0
        assert table.state.sealed
        assert len(table.state.match_id) == 16
        assert [(bot.seat, bot.policy) for bot in table.state.bots] == [(1, "heuristic")]

    def test_without_the_flag_tokens_are_given_and_nothing_else_changes(
        self, sealed_stub: Any, stub: Any
    ) -> None:
        """A server with keys that does not require tokens gives them, and the seed, and
        answers calls without a token for any seat, as before; one without keys gives none."""
        request = api.NewGameRequest(
            seats=3,
            seed=11,
            options=common.GameOptions(six_nimmt={}),
            bots=[common.BotSeat(seat=1)],
        )
        dealt = sealed_stub.NewGame(request)
        assert dealt.seed == 11
        assert [bool(token) for token in dealt.seat_tokens] == [True, False, True]
        other = api.GetViewRequest(state=dealt.state, viewer=common.Viewer(seat=1))
        assert sealed_stub.GetView(other).view.six_nimmt.hand
        plain = stub.NewGame(request)
        assert (list(plain.seat_tokens), plain.spectator_token) == ([], "")
        assert (plain.state.match_id, [bot.seat for bot in plain.state.bots]) == (b"", [1])

    def test_a_seed_is_refused(self, caller: Caller) -> None:
        """A seed chosen by the caller would tell every hidden card: SEED_NOT_PERMITTED."""
        request = api.NewGameRequest(seats=2, seed=7, options=common.GameOptions(up_or_down={}))
        refused(caller("NewGame", request), DENIED, "SEED_NOT_PERMITTED")

    def test_games_get_tokens_of_their_own(self, caller: Caller) -> None:
        """Two games have two match ids and different tokens."""
        first, second = deal(caller, "up_or_down"), deal(caller, "up_or_down")
        assert first.state.match_id != second.state.match_id
        assert set(first.tokens).isdisjoint(set(second.tokens) - {""})

    @pytest.mark.parametrize(
        ("bots", "reason"),
        [
            ([common.BotSeat(seat=3)], "INVALID_SEAT"),
            ([common.BotSeat(seat=1), common.BotSeat(seat=1)], "INVALID_SEAT"),
            ([common.BotSeat(seat=1, policy="oracle")], "UNKNOWN_POLICY"),
        ],
        ids=["seat-out-of-range", "seat-twice", "unknown-policy"],
    )
    def test_bad_bot_seats_are_refused(
        self, caller: Caller, bots: list[common.BotSeat], reason: str
    ) -> None:
        """Bots name each seat of the game once, with one of its policies."""
        request = api.NewGameRequest(seats=3, options=common.GameOptions(six_nimmt={}), bots=bots)
        refused(caller("NewGame", request), grpc.StatusCode.INVALID_ARGUMENT, reason)


@pytest.mark.parametrize("game", GAMES)
class TestAnotherSeat:
    """With seat 0's token, nothing of another seat is answered, in every game."""

    def test_another_seats_view_is_refused(self, caller: Caller, game: str) -> None:
        """Seat 0's token sees its own view and a spectator's; the bot's and another person's
        are refused with SEAT_NOT_PERMITTED."""
        table = mid_game(caller, game)
        mine = table.tokens[0]
        for viewer in (common.Viewer(seat=0), SPECTATOR):
            request = api.GetViewRequest(state=table.state, viewer=viewer)
            assert caller("GetView", request, mine).code == OK
        for seat in (1, 2):
            request = api.GetViewRequest(state=table.state, viewer=common.Viewer(seat=seat))
            refused(caller("GetView", request, mine), DENIED, "SEAT_NOT_PERMITTED")

    def test_another_seats_legal_actions_and_suggestion_are_refused(
        self, caller: Caller, game: str
    ) -> None:
        """ListLegalActions and SuggestAction for another seat than the token's are refused."""
        table = mid_game(caller, game)
        mine = table.tokens[0]
        for seat in (1, 2):
            listed = api.ListLegalActionsRequest(state=table.state, seat=seat)
            refused(caller("ListLegalActions", listed, mine), DENIED, "SEAT_NOT_PERMITTED")
            suggested = api.SuggestActionRequest(state=table.state, seat=seat)
            refused(caller("SuggestAction", suggested, mine), DENIED, "SEAT_NOT_PERMITTED")

    def test_another_seats_validation_and_action_are_refused(
        self, caller: Caller, game: str
    ) -> None:
        """An action for another seat is neither validated (which would tell its cards) nor
        applied, whatever it holds."""
        table = mid_game(caller, game)
        seat = table.status.seats_to_act[0]
        action = table.action_of(caller, seat) if seat != 1 else None
        other = 2 if seat == 0 else 0
        if action is None:  # the bot is to act: any person's action message will do
            action = common.Action(seat=1, **{game: {}})
            other = 0
        mine = table.tokens[other]
        validate = api.ValidateActionRequest(state=table.state, action=action)
        refused(caller("ValidateAction", validate, mine), DENIED, "SEAT_NOT_PERMITTED")
        apply = api.ApplyActionRequest(state=table.state, action=action)
        refused(caller("ApplyAction", apply, mine), DENIED, "SEAT_NOT_PERMITTED")

    def test_events_are_those_of_the_tokens_seat(self, caller: Caller, game: str) -> None:
        """ApplyAction without a viewer answers with the token's seat's events (as with its
        own viewer), a spectator's viewer is allowed, another seat's refused."""
        table = mid_game(caller, game)
        seat = table.status.seats_to_act[0]
        token = table.tokens[0] if seat == 1 else table.tokens[seat]
        move: dict[str, Any] = (
            {"bot": api.BotMove(seat=1)} if seat == 1 else {"action": table.action_of(caller, seat)}
        )
        own = 0 if seat == 1 else seat
        plain = caller("ApplyAction", api.ApplyActionRequest(state=table.state, **move), token)
        viewed = caller(
            "ApplyAction",
            api.ApplyActionRequest(state=table.state, viewer=common.Viewer(seat=own), **move),
            token,
        )
        assert plain.code == viewed.code == OK
        assert plain.response == viewed.response
        spectator = api.ApplyActionRequest(state=table.state, viewer=SPECTATOR, **move)
        assert caller("ApplyAction", spectator, token).code == OK
        other = common.Viewer(seat=2 if own != 2 else 0)
        request = api.ApplyActionRequest(state=table.state, viewer=other, **move)
        refused(caller("ApplyAction", request, token), DENIED, "SEAT_NOT_PERMITTED")


@pytest.mark.parametrize("game", GAMES)
class TestTokens:
    """A call whose token is not a seat token of this server is refused before anything of the
    state is looked at (no token, and another game's token: ``tests/service/test_access.py``)."""

    def requests(self, table: Table) -> list[tuple[str, Any]]:
        """A request of every method that carries a state, as the service's descriptor lists
        them (with seat 0's seat wherever a request names one)."""
        return [
            (method, request)
            for method in STATE_METHODS
            for request in hostile(SERVICE.methods_by_name[method].input_type, table.state)
        ]

    def test_a_changed_token_is_refused(self, caller: Caller, game: str) -> None:
        """The token's seat, game or MAC changed, or a token made under another deployment's
        key: SEAT_TOKEN_INVALID, one message for all."""
        table = deal(caller, game)
        version, key_id, match, _seat, mac = table.tokens[0].split(".")
        forged = [
            ".".join((version, key_id, match, "2", mac)),
            ".".join((version, key_id, match, "s", mac)),
            ".".join(
                (version, key_id, match, "0", mac[:-2] + ("AA" if mac[-2:] != "AA" else "AB"))
            ),
            ".".join((version, key_id, "A" * 22, "0", mac)),
            SeatTokens([OTHER_KEY]).issue(table.state.match_id, 0),
            "not a token",
        ]
        messages = set()
        for method, request in self.requests(table):
            for token in forged:
                reply = caller(method, request, token)
                refused(reply, UNAUTHENTICATED, "SEAT_TOKEN_INVALID")
                messages.add(reply.message)
        assert len(messages) == 1

    def test_refusals_say_nothing_of_the_state(self, caller: Caller, game: str) -> None:
        """The same refusal of two different states has the same message."""
        messages = set()
        for table in (mid_game(caller, game), deal(caller, game)):
            request = api.GetViewRequest(state=table.state, viewer=common.Viewer(seat=2))
            messages.add(caller("GetView", request, table.tokens[0]).message)
        assert len(messages) == 1


@pytest.mark.parametrize("game", GAMES)
class TestBotSeats:
    """The game's bots play with the game's policy, asked with any token of the game."""

    def test_a_whole_game_with_its_bot_is_played(self, caller: Caller, game: str) -> None:
        """People play with their own tokens, the bot seat's moves are asked with theirs, to the
        end of the game."""
        table = deal(caller, game, seats=registry.get(game).info.min_seats)
        for _ in range(5_000):
            if table.status.finished:
                break
            step(caller, table)
        assert table.status.finished

    def test_a_spectators_token_may_ask_for_the_bots_move(self, caller: Caller, game: str) -> None:
        """The spectator's token moves the bot, and gets the public events only."""
        table = deal(caller, game)
        while table.status.seats_to_act[0] != 1:
            step(caller, table)
        request = api.ApplyActionRequest(state=table.state, bot=api.BotMove(seat=1))
        applied = caller.ok("ApplyAction", request, table.dealt.spectator_token)
        assert applied.state.revision == table.state.revision + 1
        assert all(event.public for event in applied.events)

    def test_a_bot_move_for_a_persons_seat_is_refused(self, caller: Caller, game: str) -> None:
        """A bot move for a seat a person plays, the token's own included: NOT_A_BOT_SEAT."""
        table = deal(caller, game)
        for seat in (0, 2):
            request = api.ApplyActionRequest(state=table.state, bot=api.BotMove(seat=seat))
            refused(caller("ApplyAction", request, table.tokens[0]), DENIED, "NOT_A_BOT_SEAT")

    def test_a_bot_move_with_its_own_policy_or_seed_is_refused(
        self, caller: Caller, game: str
    ) -> None:
        """The caller picks neither the bot's policy nor its seed: BOT_SETTINGS_NOT_PERMITTED;
        the game's own policy, named, is taken."""
        table = deal(caller, game)
        while table.status.seats_to_act[0] != 1:
            step(caller, table)
        token = table.tokens[0]
        for bot in (api.BotMove(seat=1, policy="random"), api.BotMove(seat=1, seed=5)):
            request = api.ApplyActionRequest(state=table.state, bot=bot)
            refused(caller("ApplyAction", request, token), DENIED, "BOT_SETTINGS_NOT_PERMITTED")
        named = api.ApplyActionRequest(
            state=table.state, bot=api.BotMove(seat=1, policy="heuristic")
        )
        unnamed = api.ApplyActionRequest(state=table.state, bot=api.BotMove(seat=1))
        assert caller.ok("ApplyAction", named, token) == caller.ok("ApplyAction", unnamed, token)


def recorded(caller: Caller, game: str) -> tuple[Table, api.GameRecord]:
    """A game ``STEPS`` moves in, played with tokens, and its record as the moves were sent."""
    table = deal(caller, game)
    record = api.GameRecord(format_version=FORMAT_VERSION, initial_state=table.state)
    digests = b""
    for _ in range(STEPS):
        seat = table.status.seats_to_act[0]
        if seat == 1:
            record.moves.add(bot=api.BotMove(seat=1))
        else:
            record.moves.add(action=table.action_of(caller, seat))
        step(caller, table)
        digests += state_digest(table.state.SerializeToString())[:DIGEST_BYTES]
    record.move_digests = digests
    record.final_digest = state_digest(table.state.SerializeToString())
    return table, record


@pytest.mark.parametrize("game", GAMES)
class TestReplay:
    """ReplayGame with tokens required: the token's seat or a spectator watches, the game's own
    bots replay, and a move no seat could have made tells nothing of anyone's cards."""

    def test_the_tokens_seat_watches_its_game(self, caller: Caller, game: str) -> None:
        """A record replays with a token of its game, as that seat and as a spectator."""
        table, record = recorded(caller, game)
        for viewer in (common.Viewer(seat=0), SPECTATOR):
            request = api.ReplayGameRequest(record=record, viewer=viewer)
            replayed = caller.ok("ReplayGame", request, table.tokens[0])
            assert replayed.final_state == table.state

    def test_another_seat_no_token_and_another_games_token_are_refused(
        self, caller: Caller, game: str
    ) -> None:
        """Watching as another seat: SEAT_NOT_PERMITTED; no token: SEAT_TOKEN_MISSING; a token
        of another game: SEAT_NOT_PERMITTED."""
        table, record = recorded(caller, game)
        other = api.ReplayGameRequest(record=record, viewer=common.Viewer(seat=2))
        refused(caller("ReplayGame", other, table.tokens[0]), DENIED, "SEAT_NOT_PERMITTED")
        own = api.ReplayGameRequest(record=record, viewer=common.Viewer(seat=0))
        refused(caller("ReplayGame", own), UNAUTHENTICATED, "SEAT_TOKEN_MISSING")
        elsewhere = deal(caller, game)
        refused(caller("ReplayGame", own, elsewhere.tokens[0]), DENIED, "SEAT_NOT_PERMITTED")

    def test_a_move_no_seat_could_make_is_a_mismatch(self, caller: Caller, game: str) -> None:
        """A person's action played twice is RECORD_MISMATCH, not the rule it broke (which
        would tell whether a seat holds a card)."""
        table, record = recorded(caller, game)
        first = next(move for move in record.moves if move.HasField("action"))
        forged = api.GameRecord()
        forged.CopyFrom(record)
        del forged.moves[:]
        forged.moves.add().CopyFrom(first)
        forged.moves.add().CopyFrom(first)
        forged.move_digests = record.move_digests[: 2 * DIGEST_BYTES]
        request = api.ReplayGameRequest(record=forged, viewer=SPECTATOR)
        reply = caller("ReplayGame", request, table.tokens[0])
        refused(reply, grpc.StatusCode.INVALID_ARGUMENT, "RECORD_MISMATCH")

    def test_a_recorded_bot_move_with_its_own_policy_is_refused(
        self, caller: Caller, game: str
    ) -> None:
        """A record whose bot move names another policy: BOT_SETTINGS_NOT_PERMITTED."""
        table, record = recorded(caller, game)
        forged = api.GameRecord()
        forged.CopyFrom(record)
        for move in forged.moves:
            if move.HasField("bot"):
                move.bot.policy = "random"
        if not any(move.HasField("bot") for move in forged.moves):
            forged.moves.add(bot=api.BotMove(seat=1, policy="random"))
        request = api.ReplayGameRequest(record=forged, viewer=SPECTATOR)
        reply = caller("ReplayGame", request, table.tokens[0])
        refused(reply, DENIED, "BOT_SETTINGS_NOT_PERMITTED")
