"""A game's seating: its match id and the seats bots play, with their policies.

A game's seating travels in its state, beside the game's own state (``GameState.match_id`` and
``bots``), which a sealed state binds to its seal. What a seat token lets a call see and do,
given the seating, is decided in ``service.trust.access``.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from engines.errors import QUOTED_CHARACTERS, InvalidSeatError, UnknownPolicyError, quoted
from ordo.v1 import common_pb2 as common

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


def policy_of(seating: Seating, seat: int, asked: str) -> str:
    """The policy of a bot move for ``seat``: the one asked for, else the game's for a bot seat,
    else ``heuristic``."""
    if asked:
        return asked
    policies: Mapping[int, str] = seating.bot_policies
    return policies.get(seat, DEFAULT_POLICY)
