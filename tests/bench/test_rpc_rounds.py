"""The RPC benchmark's rounds: the order servers are measured in, and the ratios it prints."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from bench.common import Settings
from bench.rpc import Point, measure_rounds, result_rows, round_ratio


def point(calls: int, seconds: float = 1.0) -> Point:
    return Point(
        calls=calls,
        seconds=seconds,
        latencies=[0.001] * calls,
        server_cpu=calls * 0.0005,
        load_cpu=calls * 0.0003,
        load_calls=calls,
        errors=0,
        error="",
    )


class RecordingPool:
    """Stands for the load processes: answers each measurement at once and records it."""

    def __init__(self) -> None:
        self.measured: list[tuple[str, float]] = []

    def measure(
        self,
        server: str,
        playouts: Sequence[Sequence[bytes]],
        concurrency: int,
        warmup: float,
        seconds: float,
    ) -> Point:
        self.measured.append((server, seconds))
        return point(100 * (len(self.measured)))


def test_each_round_measures_every_server_in_the_opposite_order_of_the_one_before() -> None:
    pool = RecordingPool()
    points = measure_rounds(pool, ["a", "b", "c"], [], 1, 0.0, 8.0, 4)
    order = "".join(server for server, _ in pool.measured)
    assert order == "abccbaabccba"
    assert {seconds for _, seconds in pool.measured} == {2.0}  # the time is split over rounds
    assert [len(server_points) for server_points in points] == [4, 4, 4]
    assert points[0][1].calls == 600  # server a, round 2: the sixth measurement


def test_the_ratio_is_the_median_of_the_rounds_with_the_lowest_and_highest() -> None:
    base = [point(1000), point(1000), point(500), point(1000), point(1000)]
    ordo = [point(800), point(900), point(450), point(850), point(100)]  # a burst in the last
    median, low, high = round_ratio(ordo, base)
    assert (median, low, high) == (0.85, 0.1, 0.9)


def test_a_round_where_the_baseline_completed_nothing_has_no_ratio() -> None:
    assert all(math.isnan(value) for value in round_ratio([point(10)], [point(0)]))


def test_rows_give_each_server_against_the_baseline_round_by_round() -> None:
    rounds = [[point(1000), point(500)], [point(800), point(450)], [point(500), point(500)]]
    rows = result_rows(16, rounds, ["baseline", "ordo", "no cache"])
    assert [row[:2] for row in rows] == [("16", "baseline"), ("", "ordo"), ("", "no cache")]
    assert rows[0][-3:] == ("", "", "")
    assert rows[1][-3:-1] == ("0.85", "0.80-0.90")
    assert rows[2][-3:-1] == ("0.75", "0.50-1.00")
    assert rows[1][2] == "625"  # calls/s over all rounds: 1,250 calls in 2 s


@pytest.mark.parametrize(
    ("quick", "seconds", "rounds"),
    [(True, 1.0, 2), (False, 4.0, 4), (False, 2.0, 4), (False, 8.0, 8), (False, 12.4, 12)],
)
def test_a_round_lasts_about_a_second_and_there_are_at_least_a_few(
    quick: bool, seconds: float, rounds: int
) -> None:
    settings = Settings(quick=quick, games=(), seconds=seconds)
    assert settings.rpc_rounds == rounds
