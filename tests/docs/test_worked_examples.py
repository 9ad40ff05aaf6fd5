"""The worked example of each game's rules for players, played through the engine.

Each ``docs/rules/<game>.md`` ends its worked example with a fenced ``example`` block: the
situation, the moves and what the prose says follows from them. These tests read the block,
build the situation, play the moves in-process and check every outcome it states, so the doc and
the engine cannot drift apart. The blocks count seats, rows and cells from 1, as people do
(``engines.notation``); ``wire`` turns such a number into the engines' index.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from engines import registry
from engines.fora_de_ordem import ENGINE as FORA_DE_ORDEM
from engines.fora_de_ordem import Options as ForaOptions
from engines.fora_de_ordem import data as fora_data
from engines.fora_de_ordem import rules as fora_rules
from engines.fora_de_ordem.rules import Play as ForaPlay
from engines.notation import FIRST
from engines.sequence_numbers import ENGINE as SEQUENCE_NUMBERS
from engines.sequence_numbers.rules import (
    DECK_SIZE,
    ChipRemoved,
    Play,
    SequenceCompleted,
    TeamWon,
    card_text,
    cell_text,
)
from engines.six_nimmt import ENGINE as SIX_NIMMT
from engines.six_nimmt.rules import ChooseRow, RowTaken
from engines.up_or_down import ENGINE as UP_OR_DOWN
from engines.up_or_down.rules import Draw, Neighbour, Placement, Turn
from tests.engines.test_sequence_numbers import table
from tests.engines.test_six_nimmt import build, select_all
from tests.engines.test_up_or_down import arrange

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"
CELLS = [cell_text(cell) for cell in range(100)]  # r1c1 .. r10c10, as the docs name cells
CELL = r"r\d+c\d+"  # a cell as the docs write it


def example(game: str) -> list[str]:
    """The lines of the one ``example`` block of a game's rules."""
    text = (RULES / f"{game}.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```example\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, f"{game}.md needs exactly one example block"
    return blocks[0].splitlines()


def wire(number: str) -> int:
    """A seat or row as the docs count it (from 1), as the engines index it (from 0)."""
    return int(number) - FIRST


def numbers(text: str) -> tuple[int, ...]:
    """The whole numbers in a piece of text."""
    return tuple(int(n) for n in re.findall(r"\d+", text))


def rows_of(text: str) -> tuple[tuple[int, ...], ...]:
    """Rows written as ``12 14 | 37 | 43``."""
    return tuple(numbers(row) for row in text.split("|"))


def expect(pattern: str, line: str) -> re.Match[str]:
    """The match of a line against the form it must have."""
    match = re.fullmatch(pattern, line)
    assert match, f"unexpected line in the example: {line!r}"
    return match


def test_six_nimmt() -> None:
    """6 nimmt!: the rows after each turn, the rows taken and the totals are as written."""
    lines = example("six_nimmt")
    start = rows_of(expect(r"rows (.*)", lines[0])[1])
    plays = [numbers(line) for line in lines if line.startswith("play ")]
    state = build(start, [[turn[seat] for turn in plays] for seat in range(len(plays[0]))])
    events: list[object] = []
    for line in lines[1:]:
        if line.startswith("play "):
            state, played = select_all(state, numbers(line))
            events = [event.body for event in played]
        elif match := re.fullmatch(r"choose seat (\d+) row (\d+)", line):
            seat, row = wire(match[1]), wire(match[2])
            assert SIX_NIMMT.seats_to_act(state) == (seat,)
            transition = SIX_NIMMT.apply(state, seat, ChooseRow(row))
            state, events = transition.state, [event.body for event in transition.events]
        elif match := re.fullmatch(r"take seat (\d+) row (\d+): ([\d ]+) = (\d+) bullheads?", line):
            seat, row, cards, bullheads = match.groups()
            taken = RowTaken(wire(seat), wire(row), numbers(cards), int(bullheads))
            assert taken in events, f"{line!r} did not happen: {events}"
        elif line.startswith("rows "):
            assert state.rows == rows_of(line[len("rows ") :]), line
        else:
            assert state.penalties == numbers(expect(r"totals ([\d ]+)", line)[1])


def test_sequence_numbers() -> None:
    """Sequence Numbers: the chip removed, the sequence completed and the winner are as written."""
    lines = example("sequence_numbers")
    teams = "AB"
    chips: dict[int, int] = {}
    for team, cells in re.findall(
        rf"([AB]) on ((?:{CELL} ?)+)", expect(r"board: (.*)", lines[0])[1]
    ):
        chips.update(dict.fromkeys(map(CELLS.index, cells.split()), teams.index(team)))
    by_text = {card_text(card): card for card in range(DECK_SIZE)}
    moves = [expect(rf"seat (\d) plays (.+?) on ({CELL})(?:: (.*))?", line) for line in lines[1:-1]]
    held: dict[int, list[int]] = {}
    for move in moves:
        held.setdefault(wire(move[1]), []).append(by_text[move[2]])
    spare = iter(card for card in range(DECK_SIZE) if all(card not in c for c in held.values()))
    hands = {
        seat: (*cards, *(next(spare) for _ in range(5 - len(cards))))
        for seat, cards in held.items()
    }
    state = table(chips=chips, hands=hands)
    for move in moves:
        seat, card, cell, said = wire(move[1]), by_text[move[2]], CELLS.index(move[3]), move[4]
        assert SEQUENCE_NUMBERS.seats_to_act(state) == (seat,)
        transition = SEQUENCE_NUMBERS.apply(state, seat, Play(card, cell))
        state, events = transition.state, [event.body for event in transition.events]
        if said and (removed := re.fullmatch(r"([AB])'s chip is removed", said)):
            assert ChipRemoved(seat, card, cell, teams.index(removed[1])) in events
        elif said:
            team, cells = expect(rf"([AB]) completes ((?:{CELL} ?)+)", said).groups()
            completed = tuple(CELLS.index(c) for c in cells.split())
            assert SequenceCompleted(teams.index(team), completed) in events
        else:
            assert not [e for e in events if isinstance(e, (ChipRemoved, SequenceCompleted))]
    winner = teams.index(expect(r"([AB]) wins", lines[-1])[1])
    assert [e for e in events if isinstance(e, TeamWon)] == [TeamWon(winner, (winner,))]
    outcome = SEQUENCE_NUMBERS.outcome(state)
    assert outcome is not None
    assert outcome.winners == (winner,)


TAKES = {"higher": Neighbour.HIGHER, "lower": Neighbour.LOWER}
PLACES = {"extends": Placement.EXTEND, "abandons": Placement.ABANDON, "starts": Placement.NEW_ROW}
DRAWS = {"face up": Draw.FACE_UP, "face down": Draw.FACE_DOWN, "nothing": Draw.NONE}
UP_OR_DOWN_SEAT = r"seat (\d): (?:hand ([\d ]+); )?rows ([\d |]+)(?:; discard pile (\d+) cards?)?"
UP_OR_DOWN_TURN = (
    r"seat (\d) plays (\d+), takes (\d+) \((higher|lower)\), (extends|abandons|starts) row (\d), "
    r"draws (face up|face down|nothing)"
)


def test_up_or_down() -> None:
    """Up or Down?: the circle and the rows after each turn and the scores are as written."""
    lines = example("up_or_down")
    circle, top = expect(r"circle ([\d ]+); face-up top (\d+)", lines[0]).groups()
    seats = [expect(UP_OR_DOWN_SEAT, line) for line in lines[1:3]]
    named = numbers(" ".join(lines))
    spare = iter(card for card in range(42, 0, -1) if card not in named)
    state = arrange(
        circle=numbers(circle),
        face_up=(int(top),),
        hands={wire(seat[1]): numbers(seat[2]) for seat in seats},
        hand=numbers(seats[0][2]),
        displays={wire(seat[1]): rows_of(seat[3]) for seat in seats},
        discards={wire(s[1]): tuple(next(spare) for _ in range(int(s[4] or 0))) for s in seats},
    )
    for line in lines[3:]:
        if turn := re.fullmatch(UP_OR_DOWN_TURN, line):
            seat, card, taken, take, place, row, draw = turn.groups()
            assert UP_OR_DOWN.seats_to_act(state) == (wire(seat),)
            action = Turn(int(card), TAKES[take], PLACES[place], wire(row), DRAWS[draw])
            transition = UP_OR_DOWN.apply(state, wire(seat), action)
            state = transition.state
            assert transition.events[0].body.taken == int(taken), line
        elif line.startswith("circle "):
            assert state.circle == numbers(line), line
        elif seat_line := re.fullmatch(UP_OR_DOWN_SEAT, line):
            seat = wire(seat_line[1])
            assert state.displays[seat] == rows_of(seat_line[3]), line
            if seat_line[4]:
                assert len(state.discards[seat]) == int(seat_line[4]), line
        else:
            scores = numbers(expect(r"scores ([\d ]+)", line)[1])
            assert UP_OR_DOWN.view(state, None).scores == scores


def test_fora_de_ordem() -> None:
    """Fora de Ordem: each side's taker, cards and bombs, and the totals are as written."""
    lines = example("fora_de_ordem")
    category = expect(r"question: (.*)", lines[0])[1]
    items = re.findall(r"([^,]+) (\d)", expect(r"items: (.*)", lines[1])[1])
    names = tuple(name.strip() for name, _ in items)
    question = fora_data.Question("example", category, names, tuple(int(r) for _, r in items))
    moves = [expect(r"seat (\d) plays (.+) on (.+)", line) for line in lines if " plays " in line]
    seats = 1 + max(wire(move[1]) for move in moves)
    state = FORA_DE_ORDEM.new_game(seats, 1, ForaOptions(rounds=1, custom_questions=(question,)))
    state = dataclasses.replace(state, questions=(question,))
    hands: dict[int, list[int]] = {seat: [] for seat in range(seats)}
    plays = []
    for move in moves:
        seat = wire(move[1])
        card = _card(seat, move[2], exclude=hands[seat])
        hands[seat].append(card)
        plays.append((seat, card, names.index(move[3])))
    for seat, cards in hands.items():
        pool = state.hands[seat] + state.decks[seat]
        spare = [c for c in pool if c not in cards][: len(state.hands[seat]) - len(cards)]
        new_hand = tuple(sorted([*cards, *spare]))
        decks = list(state.decks)
        decks[seat] = tuple(c for c in pool if c not in new_hand)
        state = dataclasses.replace(
            state,
            hands=tuple(new_hand if s == seat else h for s, h in enumerate(state.hands)),
            decks=tuple(decks),
        )
    FORA_DE_ORDEM.validate(state)
    events: list[object] = []
    for seat, card, side in plays:
        transition = FORA_DE_ORDEM.apply(state, seat, ForaPlay(card, side))
        state = transition.state
        events.extend(event.body for event in transition.events)
    resolved = {e.item: e for e in events if isinstance(e, fora_rules.SideResolved)}
    for line in lines[2 + len(moves) : -1]:
        item, said = line.split(": ", 1)
        if said == "nobody takes":
            assert resolved[item].taker == fora_rules.NO_TAKER, line
            continue
        taker, cards, bombs = expect(r"seat (\d) takes (.+) = (\d+) bombs?", said).groups()
        side = resolved[item]
        assert side.taker == wire(taker), line
        assert side.bombs == int(bombs), line
        assert sorted(map(fora_data.card_text, side.taken)) == sorted(cards.split(", ")), line
    totals = numbers(expect(r"bombs ([\d ]+)", lines[-1])[1])
    assert FORA_DE_ORDEM.view(state, None).bombs == totals


def _card(seat: int, label: str, exclude: list[int]) -> int:
    """A card of the seat's deck with this label, not yet used."""
    return next(
        c for c in fora_data.deck_of(seat) if fora_data.card_text(c) == label and c not in exclude
    )


def test_every_game_has_its_worked_example_played() -> None:
    """Each registered game's worked example is played by a test of this module."""
    missing = [game for game in registry.ENGINES if f"test_{game}" not in globals()]
    assert not missing, f"no test plays the worked example of {missing}"
