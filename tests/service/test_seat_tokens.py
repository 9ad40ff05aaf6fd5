"""Seat tokens on their own: what a token grants, under which keys it is valid, and that any
change to it is refused the same way."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from service.trust.seat_tokens import MATCH_ID_BYTES, SeatToken, SeatTokenInvalidError, SeatTokens
from tests.state_keys import NEXT_KEY, OTHER_KEY, TEST_KEY

MATCH = bytes(range(MATCH_ID_BYTES))


class TestIssuing:
    """A token grants one seat (or a spectator) of one game."""

    @pytest.mark.parametrize("seat", [0, 1, 9, None])
    def test_a_token_opens_to_its_game_and_seat(self, seat: int | None) -> None:
        """The token of a seat opens to that game and seat."""
        tokens = SeatTokens([TEST_KEY])
        assert tokens.open(tokens.issue(MATCH, seat)) == SeatToken(MATCH, seat)

    def test_tokens_are_versioned_and_name_their_key(self) -> None:
        """A token reads ``o1.KEY_ID.MATCH.SEAT.MAC``."""
        token = SeatTokens([TEST_KEY]).issue(MATCH, 3)
        version, key_id, _match, seat, mac = token.split(".")
        assert (version, key_id, seat, len(mac)) == ("o1", TEST_KEY[0], "3", 43)

    def test_match_ids_follow_the_deal(self) -> None:
        """The same deal has the same match id under the same keys; another deal, or another
        deployment's keys, another one."""
        tokens = SeatTokens([TEST_KEY])
        assert tokens.match_id(b"deal") == SeatTokens([TEST_KEY]).match_id(b"deal")
        assert len(tokens.match_id(b"deal")) == MATCH_ID_BYTES
        assert tokens.match_id(b"deal") != tokens.match_id(b"deal 2")
        assert tokens.match_id(b"deal") != SeatTokens([OTHER_KEY]).match_id(b"deal")

    def test_tokens_and_match_ids_are_not_macs_under_the_state_key(self) -> None:
        """Tokens and match ids come from keys derived for each purpose, never from the state
        key as it is."""
        tokens = SeatTokens([TEST_KEY])
        signed, _, mac = tokens.issue(MATCH, 0).rpartition(".")
        direct = hmac.new(TEST_KEY[1], signed.encode(), hashlib.sha256).digest()
        assert base64.urlsafe_b64decode(mac + "=") != direct
        deal = hmac.new(TEST_KEY[1], b"deal", hashlib.sha256).digest()
        assert tokens.match_id(b"deal") != deal[:MATCH_ID_BYTES]


class TestKeys:
    """A token is valid wherever its key is listed, as a sealed state is."""

    def test_a_token_survives_rotation(self) -> None:
        """Listed second after a new key, the old key still checks the tokens it made."""
        old = SeatTokens([TEST_KEY]).issue(MATCH, 1)
        rotated = SeatTokens([NEXT_KEY, TEST_KEY])
        assert rotated.open(old) == SeatToken(MATCH, 1)
        assert rotated.issue(MATCH, 1).split(".")[1] == NEXT_KEY[0]

    def test_a_removed_key_refuses_its_tokens(self) -> None:
        """Once its key is no longer listed, a token is refused."""
        old = SeatTokens([TEST_KEY]).issue(MATCH, 1)
        with pytest.raises(SeatTokenInvalidError):
            SeatTokens([NEXT_KEY]).open(old)

    def test_another_deployment_with_the_same_key_id_refuses(self) -> None:
        """Another key under the same id does not check the token."""
        with pytest.raises(SeatTokenInvalidError):
            SeatTokens([OTHER_KEY]).open(SeatTokens([TEST_KEY]).issue(MATCH, 1))


class TestChangedTokens:
    """Any change to a token is refused, with one message whatever the change."""

    def test_every_changed_character_is_refused(self) -> None:
        """Each character of a token changed to each other character of its alphabet, one at
        a time: every such token is refused with SEAT_TOKEN_INVALID and the same message."""
        tokens = SeatTokens([TEST_KEY])
        token = tokens.issue(MATCH, 2)
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.s"
        messages = set()
        for index, original in enumerate(token):
            for other in alphabet.replace(original, ""):
                changed = token[:index] + other + token[index + 1 :]
                with pytest.raises(SeatTokenInvalidError) as refused:
                    tokens.open(changed)
                messages.add(refused.value.message)
        assert len(messages) == 1

    @pytest.mark.parametrize(
        "token",
        ["", "o1", "o2" + "x" * 70, "o1.test-1..0.", "x" * 10_000, "o1.test-1.é.0.mac"],
        ids=["empty", "version", "other-version", "empty-parts", "long", "not-ascii"],
    )
    def test_malformed_tokens_are_refused(self, token: str) -> None:
        """Text that is no token at all is refused as invalid."""
        with pytest.raises(SeatTokenInvalidError) as refused:
            SeatTokens([TEST_KEY]).open(token)
        assert refused.value.reason == "SEAT_TOKEN_INVALID"

    def test_a_token_cut_or_lengthened_is_refused(self) -> None:
        """A token with a character less or more is refused."""
        tokens = SeatTokens([TEST_KEY])
        token = tokens.issue(MATCH, 2)
        for changed in (token[:-1], token + "A", token[1:], "0" + token):
            with pytest.raises(SeatTokenInvalidError):
                tokens.open(changed)
