"""No timing tells a card: with seat tokens required, ``ReplayGame`` refuses a record whose move
is another seat's card as long whether that seat holds the card or not.

A player (seat 0) sends records from the game's state whose one move is "seat 1 plays card c",
each with a digest that cannot be the state's: every answer is ``RECORD_MISMATCH``. If a card
seat 1 holds were answered later than a card it does not hold (the move applied, sealed and
hashed before its digest was checked), the answers' times would tell seat 1's hand. The test
interleaves many calls of both kinds, through each door, and compares the two distributions of
their times with a rank statistic (the chance that a call of one kind takes longer than one of
the other): on a quiet or a busy machine alike it stays near one half unless the two kinds
differ, and only a large difference fails.
"""

from __future__ import annotations

import time

import grpc

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import six_nimmt_pb2 as six_nimmt
from tests.seat_calls import Caller

SEATS = 3
SAMPLES = 400  # calls of each kind
WARM_UP = 40  # calls of each kind before the measured ones
# The chance that a call of one kind takes longer than one of the other, under which (and over
# one minus which) no effect is large enough to read a card by: the old order, which sealed and
# hashed a legal move before its digest was checked, gave 0.8-0.95 here.
LARGEST_EFFECT = 0.8


def superiority(slower: list[float], faster: list[float]) -> float:
    """The chance that a sample of ``slower`` exceeds one of ``faster`` (ties count half): the
    Mann-Whitney U statistic over the product of the sizes."""
    ranked = sorted([(value, 0) for value in slower] + [(value, 1) for value in faster])
    ranks = [0.0] * len(ranked)
    start = 0
    while start < len(ranked):
        end = start
        while end + 1 < len(ranked) and ranked[end + 1][0] == ranked[start][0]:
            end += 1
        for index in range(start, end + 1):
            ranks[index] = (start + end) / 2 + 1
        start = end + 1
    rank_sum = sum(rank for rank, (_, kind) in zip(ranks, ranked, strict=True) if kind == 0)
    count = len(slower)
    return (rank_sum - count * (count + 1) / 2) / (count * len(faster))


def fastest(times: list[float]) -> list[float]:
    """The faster half of ``times``: what the calls themselves cost, where the slower half
    adds the machine's other work (as a timing attack reads the fastest answers)."""
    return sorted(times)[: len(times) // 4]


def record_of(state: common.GameState, card: int) -> api.ReplayGameRequest:
    """A page of a record from ``state`` whose one move is seat 1 playing ``card``, with
    digests that no state has."""
    move = api.RecordedMove(
        action=common.Action(seat=1, six_nimmt=six_nimmt.SixNimmtAction(select_card=card))
    )
    record = api.GameRecord(
        format_version=1,
        initial_state=state,
        moves=[move],
        move_digests=b"\x00" * 4,
        final_digest=b"\x00" * 32,
    )
    return api.ReplayGameRequest(record=record, viewer=common.Viewer(seat=0))


class TestReplayTiming:
    """A refused record's move of another seat takes as long whatever that seat holds."""

    def test_a_card_held_is_refused_as_fast_as_one_not_held(self, caller: Caller) -> None:
        """Seat 1's cards and cards it does not hold: the refusals' times do not differ."""
        options = common.GameOptions(six_nimmt=six_nimmt.SixNimmtOptions())
        dealt = caller.ok("NewGame", api.NewGameRequest(seats=SEATS, options=options))
        token = dealt.seat_tokens[0]
        seen = caller.ok(
            "GetView", api.GetViewRequest(state=dealt.state, viewer=common.Viewer(seat=0)), token
        ).view.six_nimmt
        hidden = api.GetViewRequest(state=dealt.state, viewer=common.Viewer(seat=1))
        held = list(caller.ok("GetView", hidden, dealt.seat_tokens[1]).view.six_nimmt.hand)
        on_table = {card for row in seen.rows for card in row.cards}
        unseen = [c for c in range(1, 105) if c not in {*seen.hand, *on_table, *held}]
        requests = {
            kind: [record_of(dealt.state, card) for card in cards]
            for kind, cards in (("held", held), ("not held", unseen))
        }
        times: dict[str, list[float]] = {"held": [], "not held": []}
        messages = set()
        for index in range(WARM_UP + SAMPLES):
            for kind in ("held", "not held") if index % 2 else ("not held", "held"):
                request = requests[kind][index % len(requests[kind])]
                start = time.perf_counter()
                reply = caller("ReplayGame", request, token)
                elapsed = time.perf_counter() - start
                assert (reply.code, reply.reason) == (
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "RECORD_MISMATCH",
                )
                messages.add(reply.message)
                if index >= WARM_UP:
                    times[kind].append(elapsed)
        assert len(messages) == 1, f"the refusals say different things: {messages}"
        effect = superiority(fastest(times["held"]), fastest(times["not held"]))
        assert 1 - LARGEST_EFFECT < effect < LARGEST_EFFECT, (
            f"a held card's refusal is slower than another's in {effect:.0%} of pairs"
        )
