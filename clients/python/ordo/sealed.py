"""What a caller without keys can tell of a state: whether the server sealed it and, when it did,
the fields a sealed state keeps in clear (its game, revision, rules version, match id and bot
seats) and the id of the key that sealed it. The rest of a sealed state only the server that
sealed it can read: a caller passes it back untouched."""

from __future__ import annotations

from dataclasses import dataclass

from ordo.v1 import common_pb2


@dataclass(frozen=True, slots=True)
class SealedInfo:
    """The clear fields of a sealed state."""

    game_id: str  # e.g. "six_nimmt"
    revision: int  # the number of actions applied since NewGame
    rules_version: int
    key_id: str  # the id of the server's key that sealed it (keys rotate)
    match_id: bytes = b""  # the game's id (16 bytes), which its seat tokens are bound to
    bots: tuple[tuple[int, str], ...] = ()  # the seats bots play (0-based), with their policies


def sealed_info(state: common_pb2.GameState) -> SealedInfo | None:
    """The clear fields of ``state`` when it is sealed; None for a plain state."""
    if not state.sealed:
        return None
    sealed = state.sealed
    # The seal opens with its key id: its length in one byte, then the id in ASCII.
    key_id = sealed[1 : 1 + sealed[0]].decode("ascii", errors="replace")
    bots = tuple((bot.seat, bot.policy) for bot in state.bots)
    return SealedInfo(
        state.game_id, state.revision, state.rules_version, key_id, state.match_id, bots
    )
