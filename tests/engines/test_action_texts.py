"""Every action has a text form for people (logs, the ``ordo`` command, error messages): one
of each kind, per game, as it reads."""

from __future__ import annotations

import pytest

from engines.errors import IllegalActionError
from engines.fora_de_ordem.rules import Play as ForaPlay
from engines.sequence_numbers.rules import ChooseSequence, Discard, Exchange, Play
from engines.six_nimmt.rules import ChooseRow, Select
from engines.up_or_down.rules import Draw, Neighbour, Placement, Turn


class TestActionTexts:
    """An action's text names the move the way the rules do."""

    @pytest.mark.parametrize(
        ("action", "text"),
        [
            (Select(5), "select 5"),
            (ChooseRow(2), "take row 2"),
            (Exchange(0), "exchange dead card 44 - 43 = 1"),
            (Play(96, 55), "play PLUS on r5c5"),
            (Discard(98), "discard MINUS"),
            (ChooseSequence((9, 18, 27, 36, 45)), "lock the sequence r0c9 r1c8 r2c7 r3c6 r4c5"),
            (
                Turn(12, Neighbour.LOWER, Placement.NEW_ROW, 1, Draw.NONE),
                "play 12, take lower, new row 1, draw none",
            ),
            (
                Turn(7, Neighbour.HIGHER, Placement.EXTEND, 0, Draw.FACE_DOWN),
                "play 7, take higher, extend 0, draw face-down",
            ),
            (ForaPlay(20, 3), "play 1st (card 20) on side 3"),
        ],
        ids=str,
    )
    def test_the_text_of_an_action(self, action: object, text: str) -> None:
        """The action reads as the rules name its move."""
        assert str(action) == text


class TestErrorTexts:
    """A rules error shows its kind, reason and message."""

    def test_the_repr_of_a_rules_error(self) -> None:
        """The repr names the error's class, its reason and its message."""
        error = IllegalActionError("the card is not in hand", "CARD_NOT_IN_HAND")
        assert repr(error) == "IllegalActionError(CARD_NOT_IN_HAND: the card is not in hand)"
