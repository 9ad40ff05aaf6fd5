"""Fixed state keys for the tests (never keys to deploy): sealed answers the tests can pin."""

from __future__ import annotations

import base64

from service.trust.sealing import StateKey

TEST_KEY: StateKey = ("test-1", bytes(range(64)))
NEXT_KEY: StateKey = ("test-2", bytes(range(64, 128)))
OTHER_KEY: StateKey = ("test-1", bytes(range(128, 192)))  # another deployment's, same id


def keys_file_text(*keys: StateKey) -> str:
    """A keys file listing ``keys``, the sealing one first."""
    return "".join(f"{key_id} {base64.b64encode(key).decode()}\n" for key_id, key in keys)
