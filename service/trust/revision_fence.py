"""The revision fence: an older state of a game cannot be played again.

A stateless server cannot tell a game's latest state from an older one that a player kept: both
are states it sealed. With a revision store (Redis or Valkey, ``--revision-store``), the server
keeps each game's latest revision there, under its match id, and ``ApplyAction`` succeeds only
on a state at that revision, moving it on in the same step: one Lua script compares and sets,
so two replicas that apply two moves to the same state at once cannot both succeed.

The store also keeps the digest of the move that moved the game on: its state and the action
applied (the bot's choice, for a bot move), not its viewer. The same request sent again, as a
client does when the answer was lost on the way, is recognised and answered again when its
answer is the same (answers are pure functions of the request, so the server computes the same
bytes again): a search capped by time may choose otherwise the second time, and is then
another move, refused with ``STATE_SUPERSEDED`` like any other request on an older state. So
the fence never takes two states at one revision. A move of a game with a clock is stamped with
the server's time, which the store keeps with its digest: a retry is answered with the first
try's stamp, the same bytes again.

An entry idle for ``idle_seconds`` expires; the next state sent for that game is then taken as
its latest. So is a game's first state sent after the store lost its data: a store that keeps
its data (persistence on) keeps the fence closed across its restarts. A store that cannot be
reached refuses the call with ``UNAVAILABLE`` (``REVISION_STORE_UNAVAILABLE``: the move was
not applied), which clients retry: the server never applies a move unfenced. A store that took
the move but whose reply did not come in time (or whose connection broke after the move was
sent) leaves its outcome unknown, and the call says so (``UNAVAILABLE``,
``REVISION_STORE_OUTCOME_UNKNOWN``): sending the same request again settles it, as a retry of
the move that went through or as the move itself.
"""

from __future__ import annotations

import hashlib
from typing import Any

from engines.errors import RulesError

KEY_PREFIX = b"ordo:revision:"
CONNECT_SECONDS = 1.0  # how long a call waits for a connection to the store
REPLY_SECONDS = 1.0  # and for its reply: a store slower than that is as good as unreachable
# KEYS[1]: the game's entry, "REVISION DIGEST" (the revision of its latest state, and the digest
# of the request that made it), and " AT" after them for a game with a clock (the time the
# server stamped that move). ARGV: the state's revision, the next revision, the request's
# digest, the idle time in ms, the move's stamp (0: no clock). Returns 1 when the request moves
# the game on, {2, AT} when it is the request that moved it on last (a retry; AT is "0" without
# a clock), 0 when the state is older than the latest.
ADVANCE = """
local entry = redis.call('GET', KEYS[1])
if entry then
  local space = string.find(entry, ' ', 1, true)
  local latest = tonumber(string.sub(entry, 1, space - 1))
  local revision = tonumber(ARGV[1])
  if revision < latest then
    local rest = string.sub(entry, space + 1)
    local gap = string.find(rest, ' ', 1, true)
    local digest = gap and string.sub(rest, 1, gap - 1) or rest
    if revision + 1 == latest and digest == ARGV[3] then
      redis.call('PEXPIRE', KEYS[1], ARGV[4])
      return {2, gap and string.sub(rest, gap + 1) or '0'}
    end
    return 0
  end
end
local stamped = ARGV[5] ~= '0' and (' ' .. ARGV[5]) or ''
redis.call('SET', KEYS[1], ARGV[2] .. ' ' .. ARGV[3] .. stamped, 'PX', ARGV[4])
return 1
"""
MOVED_ON = 1
RETRIED = 2


class StateSupersededError(RulesError):
    """A move on a state older than its game's latest (the revision fence's refusal)."""

    default_reason = "STATE_SUPERSEDED"

    def __init__(self) -> None:
        super().__init__(
            "this game has moved on since this state: send its latest state (the one the last "
            "move returned)"
        )


class RevisionStoreUnavailableError(RulesError):
    """The revision store could not be reached: the move was not applied; safe to send again."""

    default_reason = "REVISION_STORE_UNAVAILABLE"

    def __init__(self) -> None:
        super().__init__(
            "the server cannot reach its revision store: the move was not applied; try again "
            "shortly"
        )


class RevisionStoreOutcomeUnknownError(RevisionStoreUnavailableError):
    """The move was sent to the revision store, whose reply never came: whether it moved the
    game on is unknown; the same request sent again settles it."""

    default_reason = "REVISION_STORE_OUTCOME_UNKNOWN"

    def __init__(self) -> None:
        RulesError.__init__(
            self,
            "the revision store did not answer in time: the move may or may not have been "
            "applied; send the same request again, which settles it (a different one may be "
            "refused as STATE_SUPERSEDED)",
        )


def store_address(url: str) -> str:
    """``url`` without its credentials (``redis://:secret@host:6379/0`` is
    ``redis://host:6379/0``), for logs."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        return url
    return f"{scheme}://{rest.rpartition('@')[2]}"


def request_digest(state: bytes, move: bytes) -> str:
    """The digest (hex) that recognises a move again: its state's seal (which binds the whole
    state) and the encoding of the action applied."""
    hasher = hashlib.sha256(len(state).to_bytes(8, "big"))
    hasher.update(state)
    hasher.update(move)
    return hasher.hexdigest()


class RevisionFence:
    """A game's latest revision, kept in the Redis or Valkey at ``url``
    (``redis://HOST:PORT/DB``), each entry for ``idle_seconds`` after its game's last move."""

    def __init__(self, url: str, idle_seconds: float) -> None:
        import redis  # noqa: PLC0415 - only a server with a revision store needs it
        from redis.backoff import NoBackoff  # noqa: PLC0415
        from redis.retry import Retry  # noqa: PLC0415

        self.url = url
        self.idle_ms = max(1, round(idle_seconds * 1000))
        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)
        # No retries of its own: a call fails at once, and the client retries UNAVAILABLE with
        # its backoff, within its deadline.
        client: Any = redis.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_SECONDS,
            socket_timeout=REPLY_SECONDS,
            retry=Retry(NoBackoff(), 0),
        )
        self._client = client
        self._advance = client.register_script(ADVANCE)

    def advance(self, match_id: bytes, revision: int, digest: str) -> bool:
        """Move the game ``match_id`` on from ``revision`` by the move of ``digest``; True when
        that move had moved it on already (a retry). Raises ``StateSupersededError``,
        ``RevisionStoreUnavailableError`` (not applied) or ``RevisionStoreOutcomeUnknownError``
        (sent, and not answered)."""
        return self._moved_on(match_id, revision, digest, 0) is not None

    def advance_stamped(self, match_id: bytes, revision: int, digest: str, at_ms: int) -> int:
        """``advance``, for a move the server stamped ``at_ms`` (0: a game without a clock);
        returns the stamp of the move as it first moved the game on: ``at_ms``, or, for a
        retry, the first try's, so that the retry's answer is the first's, byte for byte."""
        first = self._moved_on(match_id, revision, digest, at_ms)
        return at_ms if first is None else first

    def _moved_on(self, match_id: bytes, revision: int, digest: str, at_ms: int) -> int | None:
        """The store's script: None when the move moved the game on, the first try's stamp (0
        without a clock) when it is a retry; raises as ``advance`` says."""
        pool = self._client.connection_pool
        try:
            # A connection, connected here: a failure until then sent nothing to the store.
            pool.release(pool.get_connection())
        except self._errors:
            raise RevisionStoreUnavailableError from None
        try:
            result = self._advance(
                keys=[KEY_PREFIX + match_id],
                args=[revision, revision + 1, digest, self.idle_ms, at_ms],
            )
        except self._errors:
            raise RevisionStoreOutcomeUnknownError from None
        if result == MOVED_ON:
            return None
        if isinstance(result, list) and result[0] == RETRIED:
            return int(result[1])
        raise StateSupersededError

    def check(self) -> None:
        """Raise ``RevisionStoreUnavailableError`` unless the store answers now."""
        try:
            self._client.ping()
        except self._errors:
            raise RevisionStoreUnavailableError from None

    def close(self) -> None:
        """Close the connections to the store."""
        self._client.close()
