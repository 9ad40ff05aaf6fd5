"""Every action has a text form for people (logs, the ``ordo`` command, error messages), in the
notation of ``engines.notation``: one of each kind, per game, as it reads."""

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
            (Select(0), "select the zero card"),
            (ChooseRow(2), "take row 3"),
            (Exchange(0), "exchange dead card 44 - 43 = 1"),
            (Play(96, 55), "play PLUS on r6c6"),
            (Discard(98), "discard MINUS"),
            (ChooseSequence((9, 18, 27, 36, 45)), "lock the sequence r1c10 r2c9 r3c8 r4c7 r5c6"),
            (
                Turn(12, Neighbour.LOWER, Placement.NEW_ROW, 1, Draw.NONE),
                "play 12, take lower, start row 2, draw none",
            ),
            (
                Turn(7, Neighbour.HIGHER, Placement.EXTEND, 0, Draw.FACE_DOWN),
                "play 7, take higher, extend row 1, draw face-down",
            ),
            (ForaPlay(20, 3), "play 1st [2b] (card=20) on side 4"),
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
