"""Typed rules errors, each with a stable reason.

Every error the engines raise is a ``RulesError``. Its ``reason`` is a stable UPPER_SNAKE word that
callers may branch on (it travels as the gRPC ``ErrorInfo.reason``); its message is for people.
The subclass says what kind of problem it is, and the service maps each kind to a status code in
one table.
"""

from __future__ import annotations

from typing import ClassVar

QUOTED_CHARACTERS = 40  # the most of a caller's text an error quotes


def quoted(text: str, limit: int = QUOTED_CHARACTERS) -> str:
    """``text`` quoted for an error message, cut to ``limit`` characters. A caller's text may
    be of any length, and the message goes back in the status's trailing metadata, whose size
    clients cap."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


class RulesError(Exception):
    """A request the rules cannot accept; ``reason`` is stable, the message is for people."""

    default_reason: ClassVar[str] = "RULES_ERROR"

    def __init__(self, message: str, reason: str | None = None, **metadata: str) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.metadata = metadata

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason}: {self.message})"


class IllegalActionError(RulesError):
    """The action is well formed but the rules forbid it now (wrong turn, card not in hand…)."""

    default_reason = "ILLEGAL_ACTION"


class MalformedActionError(RulesError):
    """The action is not an action of this game at all (no move set, wrong game)."""

    default_reason = "MALFORMED_ACTION"


class InvalidStateError(RulesError):
    """The state is inconsistent: it could not have been produced by the rules."""

    default_reason = "INVALID_STATE"


class UnsupportedRulesVersionError(InvalidStateError):
    """The state was produced under another version of the rules."""

    default_reason = "UNSUPPORTED_RULES_VERSION"


class InvalidOptionsError(RulesError):
    """The options of a new game are out of range or contradict each other."""

    default_reason = "INVALID_OPTIONS"


class InvalidSeatsError(RulesError):
    """The seat count of a new game is outside the game's range."""

    default_reason = "INVALID_SEAT_COUNT"


class InvalidSeatError(RulesError):
    """A seat number that the game does not have."""

    default_reason = "INVALID_SEAT"


class UnknownGameError(RulesError):
    """No game with that id is registered."""

    default_reason = "UNKNOWN_GAME"


class UnknownPolicyError(RulesError):
    """No bot policy with that name exists for the game."""

    default_reason = "UNKNOWN_POLICY"


# Stable reasons shared by every game.
NOT_SEATS_TURN = "NOT_SEATS_TURN"
GAME_FINISHED = "GAME_FINISHED"
