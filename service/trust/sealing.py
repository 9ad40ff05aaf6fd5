"""Sealed states: a state a caller carries that it can neither read nor forge.

A server given state keys seals every state it returns. The ``sealed`` field of ``GameState``
holds the id of the key that sealed it and the AES-SIV encryption (RFC 5297, from the
``cryptography`` library) of the game's state message; ``rules_version``, ``revision`` and
``game_id`` stay in clear, bound to the seal as associated data, and so do the game's seating,
``match_id`` and ``bots`` (``service.trust.seats``), when it has one: changing any of them, or
adding
or removing a seating, breaks the seal just as changing a byte of the encryption does. A state
whose seal opens was sealed by a server holding the key: it is one the rules produced, and is
not validated again.

AES-SIV is deterministic: one state sealed under one key always gives the same bytes, so
replicas with the same keys give byte-identical answers. What that reveals: two sealed states
are equal exactly when the plain states (and the key) are, which anyone may already tell of
the states they hold; nothing of what they contain.

A keys file has one key per line, ``KEY_ID BASE64_KEY``: the first line's key seals, every
listed key unseals, so a key rotates without refusing a state in play: listed second
everywhere, then first, then the old line removed once no state sealed under it is in play
(docs/operations.md). Blank lines and lines opening with ``#`` are skipped.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV

from engines.errors import RulesError

KEY_ID = re.compile(r"[a-z0-9-]{1,32}")
KEY_BYTES = 64  # AES-SIV with AES-256: two 256-bit keys, one to authenticate, one to encrypt
#: Binds a seal to what it seals: an AES-SIV output made for another purpose under the same
#: key does not open as a state.
PURPOSE = b"ordo.v1.GameState"

#: A state key: its id and its bytes.
StateKey = tuple[str, bytes]


class KeysFileError(ValueError):
    """A keys file that cannot be used: unreadable, empty or malformed (a usage error)."""


class SealInvalidError(RulesError):
    """A sealed state whose seal does not open with this server's keys."""

    default_reason = "STATE_SEAL_INVALID"

    def __init__(self) -> None:
        # One message for every cause (a changed byte, a key this server has not, another
        # deployment's key): which one it was would only help whoever tries to forge a state.
        super().__init__("the sealed state does not open with this server's keys")


def parse_keys(text: str, source: str) -> tuple[StateKey, ...]:
    """The keys of a keys file's ``text``, the sealing one first; ``source`` names the file
    in the errors. Raises ``KeysFileError``, which names the line, never a key."""
    keys: dict[str, bytes] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        where = f"{source}, line {number}"
        if len(words) != 2:  # an id and a key
            raise KeysFileError(f"{where}: expected 'KEY_ID BASE64_KEY'")
        key_id, encoded = words
        if not KEY_ID.fullmatch(key_id):
            raise KeysFileError(f"{where}: a key id is 1 to 32 of a-z, 0-9 and '-'")
        if key_id in keys:
            raise KeysFileError(f"{where}: key id {key_id!r} is listed twice")
        try:
            key = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            raise KeysFileError(f"{where}: the key is not valid base64") from None
        if len(key) != KEY_BYTES:
            raise KeysFileError(
                f"{where}: the key is {len(key)} bytes; AES-256-SIV takes {KEY_BYTES}"
            )
        keys[key_id] = key
    if not keys:
        raise KeysFileError(f"{source}: no key (one 'KEY_ID BASE64_KEY' per line)")
    return tuple(keys.items())


def load_keys(path: str) -> tuple[StateKey, ...]:
    """The keys in the file at ``path``; raises ``KeysFileError``."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        raise KeysFileError(f"cannot read the state keys file {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise KeysFileError(f"{path}: not a text file") from None
    return parse_keys(text, path)


def associated_data(
    key_id: bytes, game_id: str, rules_version: int, revision: int, seating: bytes = b""
) -> list[bytes]:
    """What a seal binds besides the state it encrypts: what travels in clear beside it
    (``seating``: the serialized seating fields, when the state has them)."""
    data = [
        PURPOSE,
        key_id,
        game_id.encode(),
        rules_version.to_bytes(4, "big"),
        revision.to_bytes(8, "big"),
    ]
    if seating:
        data.append(seating)
    return data


class Sealer:
    """Seals states under the first of ``keys`` and opens those sealed under any of them.

    A seal is the key id's length (one byte), the key id, and the AES-SIV output (its 16-byte
    synthetic IV, then the encryption, as long as the state).
    """

    def __init__(self, keys: Sequence[StateKey]) -> None:
        if not keys:
            raise ValueError("a sealer needs at least one key")
        key_id = keys[0][0].encode()
        self.key_id = keys[0][0]
        self._header = bytes((len(key_id),)) + key_id
        self._sealing = AESSIV(keys[0][1])
        self._opening = {name.encode(): AESSIV(key) for name, key in keys}

    def seal(
        self, game_id: str, rules_version: int, revision: int, payload: bytes, seating: bytes = b""
    ) -> bytes:
        """The ``sealed`` field's bytes of a state: ``payload`` is its game's state message,
        ``seating`` its seating fields."""
        data = associated_data(self._header[1:], game_id, rules_version, revision, seating)
        return self._header + self._sealing.encrypt(payload, data)

    def unseal(
        self,
        sealed: bytes,
        game_id: str,
        rules_version: int,
        revision: int,
        seating: bytes = b"",
    ) -> bytes:
        """The game's state message sealed in ``sealed``, with the clear fields it came with;
        raises ``SealInvalidError``."""
        end = 1 + sealed[0] if sealed else 0
        aead = self._opening.get(sealed[1:end]) if end > 1 else None
        if aead is None or len(sealed) < end:
            raise SealInvalidError
        try:
            return aead.decrypt(
                sealed[end:],
                associated_data(sealed[1:end], game_id, rules_version, revision, seating),
            )
        except (InvalidTag, ValueError, OverflowError):
            raise SealInvalidError from None
