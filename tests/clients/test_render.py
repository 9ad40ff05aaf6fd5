"""Text renderings: the renderer lookup, the generic fallback, and each game's renderer."""

from __future__ import annotations

from pathlib import Path

import pytest

from ordo import notation, render
from ordo.render import fora_de_ordem as fora_de_ordem_render
from ordo.render import sequence_numbers as sequence_numbers_render
from ordo.render import six_nimmt as six_nimmt_render
from ordo.render import up_or_down as up_or_down_render
from ordo.v1 import common_pb2 as common
from ordo.v1 import fora_de_ordem_pb2 as fora_de_ordem
from ordo.v1 import sequence_numbers_pb2 as sequence_numbers
from ordo.v1 import six_nimmt_pb2 as six_nimmt
from ordo.v1 import up_or_down_pb2 as up_or_down

HIGHEST_CARD = 104
DECK_BULLHEADS = 171  # the printed total of the 104 cards


def _view(**fields: object) -> common.GameView:
    return common.GameView(six_nimmt=six_nimmt.SixNimmtView(**fields))  # type: ignore[arg-type]


def _event(**kind: object) -> common.Event:
    return common.Event(public=True, six_nimmt=six_nimmt.SixNimmtEvent(**kind))  # type: ignore[arg-type]


class TestLookup:
    """renderer() finds a game's module by id, else falls back to the generic rendering."""

    def test_finds_the_game_module(self) -> None:
        """six_nimmt renders with ordo.render.six_nimmt."""
        found = render.renderer("six_nimmt")
        assert found.render_view is six_nimmt_render.render_view
        assert found.render_events is six_nimmt_render.render_events

    def test_falls_back_without_a_module(self) -> None:
        """A game without a renderer module gets the generic rendering."""
        assert render.renderer("no_such_game") == render.GENERIC

    def test_falls_back_for_a_non_identifier(self) -> None:
        """An id that cannot be a module name is never imported."""
        assert render.renderer("..six_nimmt") == render.GENERIC

    def test_a_module_that_fails_to_import_is_no_fallback(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A game's module that exists but cannot import what it needs fails loudly, instead of
        hiding behind the generic rendering."""
        tmp_path.joinpath("broken_game.py").write_text("import ordo_no_such_dependency\n")
        monkeypatch.setattr(render, "__path__", [*render.__path__, str(tmp_path)])
        with pytest.raises(ModuleNotFoundError) as caught:
            render.renderer("broken_game")
        assert caught.value.name == "ordo_no_such_dependency"

    def test_generic_view_is_compact_text(self) -> None:
        """The generic view is the game message on one line of protobuf text."""
        text = render.generic_view(_view(hand_number=2, rows=[six_nimmt.SixNimmtRow(cards=[7])]))
        assert text == "rows { cards: 7 } hand_number: 2"

    def test_generic_events_one_line_each(self) -> None:
        """The generic events are one compact line per event."""
        lines = render.generic_events([_event(hand_ended=six_nimmt.SixNimmtHandEnded())] * 2)
        assert lines == ["hand_ended { }"] * 2


class TestSixNimmtView:
    """The 6 nimmt! view: rows with bullheads, penalties, selections and reveals."""

    def test_bullheads_of_the_deck(self) -> None:
        """The 104 cards carry 171 bullheads, 55 alone carrying 7."""
        cards = range(1, HIGHEST_CARD + 1)
        assert sum(notation.bullheads(card) for card in cards) == DECK_BULLHEADS
        assert notation.bullheads(55) == 7
        assert notation.bullheads(0) == 0

    def test_rows_with_bullheads(self) -> None:
        """Each row lists its cards and their total bullheads."""
        rows = [six_nimmt.SixNimmtRow(cards=cards) for cards in ([3], [10, 55], [22], [104])]
        text = six_nimmt_render.render_view(_view(rows=rows, hand_number=1, turn=2))
        lines = text.splitlines()
        assert lines[0] == "hand 1, 2 turns played"
        assert lines[2].startswith("  row 2:  10  55")
        assert lines[2].endswith(" 10 bullheads")
        assert lines[1].endswith(" 1 bullhead")

    def test_penalties_and_taken(self) -> None:
        """Penalties per seat, and the cards taken this hand by the seats that took any."""
        taken = [six_nimmt.SixNimmtCards(), six_nimmt.SixNimmtCards(cards=[5, 6])]
        text = six_nimmt_render.render_view(_view(penalties=[0, 3], taken=taken))
        assert "  penalties: seat 1: 0, seat 2: 3" in text
        assert "  taken this hand: seat 2: 5 6" in text

    def test_selected_seats_before_the_reveal(self) -> None:
        """Before the reveal the view says which seats have selected."""
        text = six_nimmt_render.render_view(
            _view(selected=[True, False, True], revealed=[-1, -1, -1])
        )
        assert "  selected a card: seats 1 and 3" in text
        assert "revealed" not in text

    def test_revealed_cards(self) -> None:
        """After the reveal the view lists each seat's card, the zero card by name."""
        text = six_nimmt_render.render_view(
            _view(selected=[True, True], revealed=[17, 0], penalties=[0, 0])
        )
        assert "  revealed: seat 1: 17, seat 2: the zero card" in text
        assert "selected a card" not in text

    def test_own_hand(self) -> None:
        """A seat's view shows its hand; a spectator's shows none."""
        assert "  hand: 4 8 15" in six_nimmt_render.render_view(_view(hand=[4, 8, 15]))
        assert "hand:" not in six_nimmt_render.render_view(_view())


class TestSixNimmtEvents:
    """One line per event worth telling."""

    def test_each_kind(self) -> None:
        """Reveals, placements, row choices, rows taken, hand ends and deals each get a line."""
        events = [
            _event(cards_revealed=six_nimmt.SixNimmtCardsRevealed(cards=[12, 40])),
            _event(card_placed=six_nimmt.SixNimmtCardPlaced(seat=1, card=40, row=2)),
            _event(row_choice_required=six_nimmt.SixNimmtRowChoiceRequired(seat=0, card=12)),
            _event(
                row_taken=six_nimmt.SixNimmtRowTaken(seat=0, row=3, cards=[50, 55], bullheads=10)
            ),
            _event(hand_ended=six_nimmt.SixNimmtHandEnded(hand_number=1, penalties=[10, 0])),
            _event(hand_dealt=six_nimmt.SixNimmtHandDealt(hand_number=2, rows=[1, 2, 3, 4])),
        ]
        assert six_nimmt_render.render_events(events) == [
            "revealed: seat 1: 12, seat 2: 40",
            "seat 2 places 40 on row 3",
            "seat 1's 12 is lower than every row: it must take a row",
            "seat 1 takes row 4 (50 55): 10 bullheads",
            "hand 1 ends; penalties: seat 1: 10, seat 2: 0",
            "hand 2 dealt; the rows start with 1 2 3 4",
        ]

    def test_public_selection_is_left_to_the_view(self) -> None:
        """A public selection (card -1) gets no line; a seat's own selection does."""
        public = _event(card_selected=six_nimmt.SixNimmtCardSelected(seat=2, card=-1))
        own = _event(card_selected=six_nimmt.SixNimmtCardSelected(seat=2, card=33))
        assert six_nimmt_render.render_events([public, own]) == ["seat 3 selects 33"]


# Up or Down?: cards 1..42 with colours yellow, blue, red, green, purple, orange in turn.
UP_OR_DOWN_COLOURS = [
    up_or_down.UP_OR_DOWN_COLOUR_YELLOW,
    up_or_down.UP_OR_DOWN_COLOUR_BLUE,
    up_or_down.UP_OR_DOWN_COLOUR_RED,
    up_or_down.UP_OR_DOWN_COLOUR_GREEN,
    up_or_down.UP_OR_DOWN_COLOUR_PURPLE,
    up_or_down.UP_OR_DOWN_COLOUR_ORANGE,
] * 7


def _turn(**fields: object) -> common.Event:
    turn = up_or_down.UpOrDownTurnPlayed(**fields)  # type: ignore[arg-type]
    return common.Event(public=True, up_or_down=up_or_down.UpOrDownEvent(turn_played=turn))


class TestUpOrDownView:
    """The Up or Down? view: circle, piles, each seat's display with its rows' directions."""

    def test_row_directions(self) -> None:
        """A row is open with one card; its second card makes it up or down for good."""
        rows = [up_or_down.UpOrDownCards(cards=cards) for cards in ([12], [12, 21, 27], [32, 24])]
        game = up_or_down.UpOrDownView(
            circle=[10, 15, 20, 25, 30, 35],
            displays=[
                up_or_down.UpOrDownDisplay(rows=rows),
                up_or_down.UpOrDownDisplay(rows=[up_or_down.UpOrDownCards(cards=[40, 33, 31, 2])]),
            ],
            card_colours=UP_OR_DOWN_COLOURS,
        )
        view = common.GameView(status=common.GameStatus(seats_to_act=[0]), up_or_down=game)
        lines = up_or_down_render.render_view(view).splitlines()
        assert "    row 1 open  12o" in lines
        assert "    row 2 up    12o 21r 27r" in lines
        assert "    row 3 down  32b 24o" in lines
        assert "    row 1 down  40g 33r 31y 2b" in lines
        assert lines[1] == "seat 1 to act"

    def test_piles_and_scores(self) -> None:
        """The piles' sizes and the face-up top, and each seat's score, hand and discards."""
        game = up_or_down.UpOrDownView(
            face_down_size=9,
            face_up_size=1,
            face_up_top=7,
            displays=[up_or_down.UpOrDownDisplay(), up_or_down.UpOrDownDisplay()],
            scores=[15, 13],
            hand_sizes=[3, 2],
            discard_sizes=[2, 4],
            abandoned_rows=[1, 1],
            hand=[5, 22, 40],
            card_colours=UP_OR_DOWN_COLOURS,
        )
        text = up_or_down_render.render_view(common.GameView(up_or_down=game))
        assert "piles      face down 9 cards, face up 1 card, top 7y" in text
        assert (
            "seat 1     score 15, hand 3 cards, discard pile 2 cards from 1 abandoned row" in text
        )
        assert (
            "seat 2     score 13, hand 2 cards, discard pile 4 cards from 1 abandoned row" in text
        )
        assert "your hand  5p 22g 40g" in text


class TestUpOrDownEvents:
    """One line per Up or Down? event."""

    def test_extend_names_its_row(self) -> None:
        """A turn extending a row names the row it extended."""
        lines = up_or_down_render.render_events(
            [
                _turn(
                    seat=1,
                    card=22,
                    taken=25,
                    placement=up_or_down.UP_OR_DOWN_PLACEMENT_EXTEND,
                    row=row,
                    draw=up_or_down.UP_OR_DOWN_DRAW_FACE_DOWN,
                    face_up_top=8,
                )
                for row in (1, 2)
            ]
        )
        assert lines == [
            f"seat 2 plays 22 and takes 25 onto row {row + 1}; draws from the face-down pile; "
            "face-up top 8"
            for row in (1, 2)
        ]

    def test_each_kind(self) -> None:
        """New rows, abandoned rows, each draw, private draws and the final scores get a line."""
        events = [
            _turn(
                seat=0,
                card=5,
                taken=35,
                placement=up_or_down.UP_OR_DOWN_PLACEMENT_NEW_ROW,
                row=1,
                draw=up_or_down.UP_OR_DOWN_DRAW_FACE_UP,
                drawn=7,
                face_up_top=0,
            ),
            _turn(
                seat=1,
                card=22,
                taken=20,
                placement=up_or_down.UP_OR_DOWN_PLACEMENT_ABANDON,
                row=2,
                discarded=3,
                draw=up_or_down.UP_OR_DOWN_DRAW_NONE,
            ),
            common.Event(
                up_or_down=up_or_down.UpOrDownEvent(
                    card_drawn=up_or_down.UpOrDownCardDrawn(seat=1, card=9)
                )
            ),
            common.Event(
                up_or_down=up_or_down.UpOrDownEvent(
                    game_scored=up_or_down.UpOrDownGameScored(scores=[15, 13])
                )
            ),
        ]
        assert up_or_down_render.render_events(events) == [
            "seat 1 plays 5 and takes 35 to start row 2; draws 7 from the face-up pile; "
            "face-up top empty",
            "seat 2 plays 22 and takes 20 abandoning row 3 (3 cards to the discard pile) to "
            "restart it; draws nothing (both piles are empty)",
            "seat 2 drew 9 from the face-down pile",
            "every hand is empty: final scores seat 1 15, seat 2 13",
        ]


CORNERS = (0, 9, 90, 99)  # the free corners of the Sequence Numbers board
LOCKED = (11, 21, 31, 41, 51)  # team A's completed sequence


class TestSequenceNumbersView:
    """The Sequence Numbers view: the board with its chips, the teams and the seats."""

    @staticmethod
    def view() -> common.GameView:
        """Four seats in two teams; team A has completed a sequence and has one more chip,
        team B has one chip."""
        chips = [-1] * 100
        for cell in LOCKED:
            chips[cell] = 0
        chips[12], chips[22] = 1, 0
        game = sequence_numbers.SequenceNumbersView(
            options=sequence_numbers.SequenceNumbersOptions(teams=2),
            numbers=[0 if cell in CORNERS else cell % 48 + 1 for cell in range(100)],
            chips=chips,
            sequences=[sequence_numbers.SequenceNumbersSequence(team=0, cells=LOCKED)],
            hand_sizes=[5, 5, 5, 5],
            sequences_to_win=2,
            deck_size=50,
            turn=9,
        )
        status = common.GameStatus(seats_to_act=[1])
        return common.GameView(status=status, sequence_numbers=game)

    def test_chips_on_the_board(self) -> None:
        """A chip in a completed sequence is a capital letter, any other a small one; a free
        corner is a star."""
        lines = sequence_numbers_render.render_view(self.view()).splitlines()
        assert lines[1] == "  1   *   2   3   4   5   6   7   8   9   *"
        assert lines[2] == "  2  11   A   b  14  15  16  17  18  19  20"
        assert lines[3] == "  3  21   A   a  24  25  26  27  28  29  30"

    def test_teams_and_seats(self) -> None:
        """Seats alternate between the teams; each team has its sequences, each seat its
        cards; the seat to act is named last."""
        text = sequence_numbers_render.render_view(self.view())
        assert "team A (seats 1 and 3): 1 of 2 sequences" in text
        assert "team B (seats 2 and 4): 0 of 2 sequences" in text
        assert "seat 4 (B): 5 cards in hand, 0 discarded" in text
        assert text.endswith("deck: 50 cards; turn 9\nseat 2 to act")


DIAGONAL = (9, 18, 27, 36, 45, 54)  # team A's chips (the corner 9 aside) on one diagonal


class TestSequenceNumbersChoice:
    """A pending choice of five: in the view, in its event and as a move."""

    @staticmethod
    def game() -> sequence_numbers.SequenceNumbersView:
        """Two seats; seat 0's chip on 36 completed the corner five and the lower five."""
        chips = [-1] * 100
        for cell in DIAGONAL[1:]:
            chips[cell] = 0
        fives = [
            sequence_numbers.SequenceNumbersSequence(team=0, cells=DIAGONAL[:5]),
            sequence_numbers.SequenceNumbersSequence(team=0, cells=DIAGONAL[1:]),
        ]
        return sequence_numbers.SequenceNumbersView(
            options=sequence_numbers.SequenceNumbersOptions(teams=2),
            numbers=[0 if cell in CORNERS else cell % 48 + 1 for cell in range(100)],
            chips=chips,
            hand_sizes=[4, 5],
            sequences_to_win=1,
            deck_size=60,
            turn=12,
            sequence_choice=sequence_numbers.SequenceNumbersSequenceChoice(
                seat=0, team=0, cell=36, choices=fives
            ),
        )

    def test_the_view_lists_the_fives_and_what_each_leaves_unlocked(self) -> None:
        """Each five is listed with the chips it would leave open to a MINUS card."""
        view = common.GameView(
            status=common.GameStatus(seats_to_act=[0]), sequence_numbers=self.game()
        )
        text = sequence_numbers_render.render_view(view)
        assert text.endswith(
            "seat 1 (A) chooses the five its chip at r4c7 locks:\n"
            "  1. lock r1c10 r2c9 r3c8 r4c7 r5c6 (leaves r6c5 unlocked)\n"
            "  2. lock r2c9 r3c8 r4c7 r5c6 r6c5\n"
            "seat 1 to act"
        )

    def test_the_event_names_the_fives(self) -> None:
        """The event that asks for the choice names the seat, the chip and the fives."""
        choice = self.game().sequence_choice
        event = common.Event(
            sequence_numbers=sequence_numbers.SequenceNumbersEvent(sequence_choice_required=choice)
        )
        assert sequence_numbers_render.render_events([event]) == [
            "seat 1's chip at r4c7 completes fives that exclude one another: it chooses "
            "r1c10 r2c9 r3c8 r4c7 r5c6 or r2c9 r3c8 r4c7 r5c6 r6c5"
        ]

    def test_a_five_as_a_move_and_its_code(self) -> None:
        """A five reads as the cells it locks; its code is its two end cells."""
        assert sequence_numbers_render.choose_sequence_text(DIAGONAL[1:]) == (
            "lock r2c9 r3c8 r4c7 r5c6 r6c5"
        )
        assert sequence_numbers_render.five_code(DIAGONAL[1:]) == "r2c9-r6c5"


def _side_resolved(**fields: object) -> common.Event:
    resolved = fora_de_ordem.ForaDeOrdemSideResolved(**fields)  # type: ignore[arg-type]
    event = fora_de_ordem.ForaDeOrdemEvent(side_resolved=resolved)
    return common.Event(public=True, fora_de_ordem=event)


class TestForaDeOrdemEvents:
    """A side resolved: each card judged, then who takes them."""

    def test_a_wrong_card_is_taken(self) -> None:
        """Each card is told right or WRONG; the taker takes the side's cards and bombs."""
        cards = [
            fora_de_ordem.ForaDeOrdemCard(owner=0, ranks=[1]),
            fora_de_ordem.ForaDeOrdemCard(owner=1, ranks=[2, 3], bombs=1),
        ]
        event = _side_resolved(
            side=2, item="Mercury", cards=cards, correct=[True, False], taker=1, taken=[4, 9],
            bombs=1,
        )  # fmt: skip
        assert fora_de_ordem_render.render_events([event]) == [
            "side 3 (Mercury): yellow 1st [0b] right, purple 2nd/3rd [1b] WRONG "
            "-> seat 2 (purple) takes 2 cards, 1 bomb"
        ]

    def test_every_card_right(self) -> None:
        """A side whose cards are all right is discarded."""
        card = fora_de_ordem.ForaDeOrdemCard(owner=2, ranks=[1])
        event = _side_resolved(side=0, item="Venus", cards=[card], correct=[True], taker=-1)
        assert fora_de_ordem_render.render_events([event]) == [
            "side 1 (Venus): pink 1st [0b] right -> all discarded"
        ]
