"""Who a call speaks for: a game's bot seats, and what a seat token lets a call see and do.

A game's seating travels in its state, beside the game's own state: its match id and the seats
bots play (``GameState.match_id`` and ``bots``), which a sealed state binds to its seal. With
seat tokens required, ``SeatGuard`` answers for every call that carries a state: the token must
be one of that game's (else refused before anything of the state is looked at), and then the
call may only look at what the token's seat may see and act for that seat, or ask for a bot
seat's move, with the game's policy and seed. A spectator's token sees what spectators see and
may ask for the bots' moves. Every refusal says what to send instead, never anything of the
state.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engines.errors import QUOTED_CHARACTERS, InvalidSeatError, UnknownPolicyError, quoted
from ordo.v1 import common_pb2 as common
from service.trust.seat_tokens import (
    HEADER,
    SeatNotPermittedError,
    SeatToken,
    SeatTokenMissingError,
    SeatTokens,
)

DEFAULT_POLICY = "heuristic"
SEATINGS_KEPT = 4096  # a few hundred bytes each: about a megabyte at most
_STATE_FIELDS = common.GameState.DESCRIPTOR.fields_by_name
MATCH_ID_NUMBER = _STATE_FIELDS["match_id"].number
BOTS_NUMBER = _STATE_FIELDS["bots"].number


@dataclass(frozen=True, slots=True)
class Seating:
    """A game's match id (empty without state keys) and its bot seats with their policies, and
    their ``match_id`` and ``bots`` fields of a ``GameState`` serialized as protobuf writes
    them (``encoded``: the bytes a sealed state binds, and carries after its other fields)."""

    match_id: bytes = b""
    bots: tuple[tuple[int, str], ...] = ()
    encoded: bytes = field(default=b"", compare=False)

    @property
    def bot_policies(self) -> dict[int, str]:
        """The policy of each bot seat."""
        return dict(self.bots)

    def fields(self) -> bytes:
        """The serialized ``match_id`` and ``bots`` fields."""
        return self.encoded


NO_SEATING = Seating()


@functools.lru_cache(maxsize=SEATINGS_KEPT)
def seating(match_id: bytes, bots: tuple[tuple[int, str], ...]) -> Seating:
    """The seating of a game: ``match_id`` and ``bots`` (seat, policy), in seat order; the
    seatings of the games in play are kept, each made once."""
    if not match_id and not bots:
        return NO_SEATING
    message = common.GameState(
        match_id=match_id,
        bots=[common.BotSeat(seat=seat, policy=policy) for seat, policy in bots],
    )
    return Seating(match_id, bots, message.SerializeToString(deterministic=True))


def seating_of(state: common.GameState) -> Seating:
    """The seating a state message carries."""
    if not state.match_id and not state.bots:
        return NO_SEATING
    return seating(state.match_id, tuple((bot.seat, bot.policy) for bot in state.bots))


def bot_seats(
    bots: Iterable[common.BotSeat], seats: int, policies: Collection[str]
) -> tuple[tuple[int, str], ...]:
    """The bot seats of a ``NewGameRequest``, in seat order, each with its policy (the empty one
    is ``heuristic``); raises ``InvalidSeatError`` for a seat out of range or named twice,
    ``UnknownPolicyError`` for a policy the game has not."""
    chosen: dict[int, str] = {}
    for bot in bots:
        if bot.seat >= seats or bot.seat in chosen:
            raise InvalidSeatError(
                f"bots name each seat at most once, each below the game's {seats} seats",
                seat=str(bot.seat),
            )
        policy = bot.policy or DEFAULT_POLICY
        if policy not in policies:
            raise UnknownPolicyError(
                f"no bot policy {quoted(policy)}; choose one of {', '.join(sorted(policies))}",
                policy=policy[:QUOTED_CHARACTERS],
            )
        chosen[bot.seat] = policy
    return tuple(sorted(chosen.items()))


def _seat_words(seat: int | None) -> str:
    return "a spectator's" if seat is None else f"seat {seat}'s"


class SeatGuard:
    """The checks of a server that requires seat tokens, each refusing with a reason."""

    def __init__(self, tokens: SeatTokens) -> None:
        self.tokens = tokens

    def token(self, text: str) -> SeatToken:
        """What the seat token ``text`` grants; raises ``SeatTokenMissingError`` or
        ``SeatTokenInvalidError``."""
        if not text:
            raise SeatTokenMissingError
        return self.tokens.open(text)

    @staticmethod
    def holder(granted: SeatToken, seating: Seating) -> int | None:
        """The seat (None: a spectator) that ``granted`` grants in the game of ``seating``;
        raises ``SeatNotPermittedError`` for a token of another game."""
        if granted.match_id != seating.match_id:
            raise SeatNotPermittedError(
                f"this seat token is for another game: send, in {HEADER}, the token NewGame "
                "returned with this game"
            )
        return granted.seat

    @staticmethod
    def own_seat(holder: int | None, seat: int, doing: str) -> None:
        """Refuse ``doing`` (e.g. "list the legal actions") for ``seat`` unless it is the
        token's."""
        if holder != seat:
            raise SeatNotPermittedError(
                f"this seat token is {_seat_words(holder)}: it may {doing} of its own seat only"
            )

    @staticmethod
    def viewer(holder: int | None, seat: int | None) -> None:
        """Refuse the view of ``seat`` (None: a spectator's) unless the token's seat may see it:
        its own, or a spectator's."""
        if seat is not None and seat != holder:
            raise SeatNotPermittedError(
                f"this seat token is {_seat_words(holder)}: ask for its own view, or a spectator's"
            )

    @staticmethod
    def bot_move(holder: int | None, seating: Seating, bot: Any) -> str:
        """The policy of the bot move ``bot`` (a ``BotMove``) asked for with the token of
        ``holder``: the seat must be one the game's bots play, with the game's policy and seed
        (an empty policy and seed 0)."""
        policy = seating.bot_policies.get(bot.seat)
        if policy is None:
            raise SeatNotPermittedError(
                f"seat {bot.seat} is not a bot seat of this game: only the seats NewGame gave "
                "to bots take bot moves; send your own seat's action instead",
                "NOT_A_BOT_SEAT",
            )
        asked_budget = bot.search_iterations or bot.search_time_limit_ms
        if (bot.policy and bot.policy != policy) or bot.seed or asked_budget:
            raise SeatNotPermittedError(
                "a bot of this game plays the game's policy, seed and search budget: leave "
                "bot.policy, bot.seed, bot.search_iterations and bot.search_time_limit_ms unset",
                "BOT_SETTINGS_NOT_PERMITTED",
            )
        return policy

    @staticmethod
    def no_seed(seed: int) -> None:
        """Refuse a seed chosen by the caller: it would tell every hidden card."""
        if seed:
            raise SeatNotPermittedError(
                "this server requires seat tokens and picks every seed itself (a seed tells "
                "every hidden card): leave seed unset",
                "SEED_NOT_PERMITTED",
            )


def policy_of(seating: Seating, seat: int, asked: str) -> str:
    """The policy of a bot move for ``seat``: the one asked for, else the game's for a bot seat,
    else ``heuristic``."""
    if asked:
        return asked
    policies: Mapping[int, str] = seating.bot_policies
    return policies.get(seat, DEFAULT_POLICY)
