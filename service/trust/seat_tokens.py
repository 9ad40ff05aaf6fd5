"""Seat tokens: a capability to play one seat of one game, checked with no storage.

A server with state keys gives each game a match id (16 bytes, ``GameState.match_id``) and each
seat a person plays a token. A token says which game and which seat it is for, and carries an
HMAC-SHA256 of those words under a key derived for this purpose (HKDF-SHA256, its own ``info``)
from a state key: never the sealing key as it is, so a token and a seal share nothing an
attacker could move from one to the other. Any replica with the same keys file checks it, in
constant time, with no storage; a token names its key, so it is checked under that key while
the keys file lists it, as a sealed state is opened (``service.trust.sealing``).

The format is versioned and plain text, for a header::

    o1.KEY_ID.MATCH.SEAT.MAC

``o1`` the version, ``KEY_ID`` the state key's id, ``MATCH`` the match id and ``MAC`` the 32
bytes of the HMAC, both in unpadded base64url, and ``SEAT`` the seat in decimal, or ``s`` for a
spectator. The MAC is of everything before its dot. A token that does not parse, names a key
this server has not, or whose MAC does not match is refused with one message, whatever the
cause.

The match id comes from the same kind of derived key, as an HMAC of the deal (game, seats,
seed, options, bots): the same deal on any replica has the same id, so a game replays to the
same bytes, and the id tells nothing of the seed. Two games dealt from the same seed and
settings are one game to the tokens and the revision fence; a server that requires tokens picks
every seed itself.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from engines.errors import RulesError
from service.trust.sealing import StateKey

VERSION = "o1"
#: What each derived key is for: a key derived for one purpose is useless for the other.
TOKEN_PURPOSE = b"ordo.v1.seat-token"
MATCH_PURPOSE = b"ordo.v1.match-id"
DERIVED_KEY_BYTES = 32  # HMAC-SHA256's block-sized key
MATCH_ID_BYTES = 16
MAC_BYTES = 32
SPECTATOR = "s"  # the seat word of a spectator's token
MAX_TOKEN_CHARACTERS = 160  # o1 + a key id of 32 + 22 + 3 + 43 and the dots, with room
TOKEN = re.compile(
    r"o1\.([a-z0-9-]{1,32})\.([A-Za-z0-9_-]{22})\.(0|[1-9][0-9]{0,2}|s)\.([A-Za-z0-9_-]{43})"
)  # a seat of up to three digits: far more than any game's
HEADER = "ordo-seat-token"  # the request metadata key (HTTP header) that carries a token
# Tokens checked already, kept so that a game's next calls do not check them again: valid ones
# only (a caller cannot fill the table with made-up tokens), dropped all at once when full.
OPENED_KEPT = 4096  # a few hundred bytes each


class SeatTokenMissingError(RulesError):
    """A call that carries a state, with no seat token, to a server that requires them."""

    default_reason = "SEAT_TOKEN_MISSING"

    def __init__(self) -> None:
        super().__init__(
            f"this server requires a seat token: send the token NewGame returned for your seat "
            f"in the {HEADER} header (metadata)"
        )


class SeatTokenInvalidError(RulesError):
    """A seat token this server did not issue: malformed, changed, or under a key it has not."""

    default_reason = "SEAT_TOKEN_INVALID"

    def __init__(self) -> None:
        # One message for every cause: which one it was would only help a forger.
        super().__init__(
            f"the {HEADER} is not a seat token of this server: send the token NewGame returned "
            f"for your seat, unchanged"
        )


class SeatNotPermittedError(RulesError):
    """A valid token used for what its seat may not see or do."""

    default_reason = "SEAT_NOT_PERMITTED"


@dataclass(frozen=True, slots=True)
class SeatToken:
    """What a valid token grants: one game (its match id) and one seat, None for a spectator."""

    match_id: bytes
    seat: int | None


def _derived(key: bytes, purpose: bytes) -> hmac.HMAC:
    """An HMAC-SHA256 keyed with the key HKDF derives from ``key`` for ``purpose``."""
    derived = HKDF(
        algorithm=hashes.SHA256(), length=DERIVED_KEY_BYTES, salt=None, info=purpose
    ).derive(key)
    return hmac.HMAC(derived, hashes.SHA256())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SeatTokens:
    """Issues tokens and match ids under the first of ``keys``; checks tokens under any."""

    def __init__(self, keys: Sequence[StateKey]) -> None:
        if not keys:
            raise ValueError("seat tokens need at least one key")
        self.key_id = keys[0][0]
        self._macs = {key_id: _derived(key, TOKEN_PURPOSE) for key_id, key in keys}
        self._match = _derived(keys[0][1], MATCH_PURPOSE)
        self._opened: dict[str, SeatToken] = {}

    def match_id(self, deal: bytes) -> bytes:
        """The match id of a game dealt as ``deal`` says (its game, seats, seed, options and
        bots, serialized deterministically)."""
        mac = self._match.copy()
        mac.update(deal)
        return mac.finalize()[:MATCH_ID_BYTES]

    def issue(self, match_id: bytes, seat: int | None) -> str:
        """The token of ``seat`` (None: a spectator) in the game ``match_id``."""
        if len(match_id) != MATCH_ID_BYTES:
            raise ValueError(f"a match id is {MATCH_ID_BYTES} bytes")
        word = SPECTATOR if seat is None else str(seat)
        signed = f"{VERSION}.{self.key_id}.{_b64(match_id)}.{word}"
        mac = self._macs[self.key_id].copy()
        mac.update(signed.encode())
        return f"{signed}.{_b64(mac.finalize())}"

    def open(self, token: str) -> SeatToken:
        """The game and seat ``token`` grants; raises ``SeatTokenInvalidError``."""
        opened = self._opened.get(token)
        if opened is not None:
            return opened
        found = TOKEN.fullmatch(token) if len(token) <= MAX_TOKEN_CHARACTERS else None
        keyed = self._macs.get(found[1]) if found else None
        if found is None or keyed is None:
            raise SeatTokenInvalidError
        signed, _, tag = token.rpartition(".")
        given = _unb64(tag)
        mac = keyed.copy()
        mac.update(signed.encode())
        try:
            mac.verify(given)  # constant time
        except InvalidSignature:
            raise SeatTokenInvalidError from None
        if _b64(given) != tag:  # the MAC's one spelling: a token is not changed and still valid
            raise SeatTokenInvalidError
        word = found[3]
        opened = SeatToken(_unb64(found[2]), None if word == SPECTATOR else int(word))
        if len(self._opened) >= OPENED_KEPT:
            self._opened.clear()
        self._opened[token] = opened
        return opened
