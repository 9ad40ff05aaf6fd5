"""``ApplyAction`` with a time control beside the same without, in-process (``--only clocks``).

A game with a time control carries a clock in its state, which the server stamps with its time
on every move: the handler reads the clock once, moves the seats' waits on, and encodes the
clock with the state (inside the seal of a sealed state). The requests are the mid-game steps
of recorded playouts, each sent on the state the handler returned for the step before (as a
game server sends them), so that the worker's state cache knows every state, with its clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.common import (
    Game,
    Settings,
    Step,
    encode_state,
    fmt_us,
    micros_per_call,
    mid_game_steps,
    section,
    table,
)
from bench.engine import BENCH_KEY, Handler, apply_handler
from engines import clock as clocks
from engines.clock import TimeControl
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.clocks import SYSTEM_CLOCK, encode_clock, sealed_payload
from service.calls.servicer import GameEngineServicer
from service.trust.sealing import Sealer

PER_MOVE = TimeControl(move_limit_ms=3_600_000)  # an hour a move: no claim is ever due


def run(settings: Settings, chosen: Sequence[Game]) -> None:
    """The handler on plain and sealed states, without and with a time control."""
    section("ApplyAction in-process with a time control, mid-game requests, µs per call")
    print(
        "The server's real handler (no observers) on the recorded steps, each state the one it\n"
        "returned: 'clock' with a time control (a per-move limit), beside the same game without\n"
        "one; on plain states, then sealed ones (the clock sealed with the state)."
    )
    rows = []
    for game in chosen:
        steps = mid_game_steps(game, settings.recorded_games)
        cases = []
        for sealer in (None, Sealer([BENCH_KEY])):
            for control in (None, PER_MOVE):
                handle = apply_handler(GameEngineServicer(sealer=sealer))
                cases.append((handle, chained(game, steps, handle, sealer, control)))
        plain, plain_clock, sealed, sealed_clock = micros_per_call(cases, settings.call_seconds)
        rows.append(
            (
                game.id,
                fmt_us(plain),
                fmt_us(plain_clock),
                f"{plain_clock / plain:.2f}",
                fmt_us(sealed),
                fmt_us(sealed_clock),
                f"{sealed_clock / sealed:.2f}",
            )
        )
    headers = ("game", "plain", "clock", "clock/none", "sealed", "sealed, clock", "clock/none")
    print(table(headers, rows))


def chained(
    game: Game,
    steps: Sequence[Step],
    handle: Handler,
    sealer: Sealer | None,
    control: TimeControl | None,
) -> list[bytes]:
    """The requests of ``steps``, each on the state ``handle`` returned for the step before
    (a step that does not follow its predecessor starts again from its own state, given a
    clock when ``control`` is set, sealed with ``sealer``)."""
    requests: list[bytes] = []
    returned: common.GameState | None = None
    previous: Step | None = None
    for step in steps:
        action = common.Action(seat=step.seat, **{game.id: game.codec.encode_action(step.action)})
        follows = previous is not None and step.state.revision == previous.state.revision + 1
        state = (
            returned
            if follows and returned is not None
            else first_state(game, step, sealer, control)
        )
        raw = api.ApplyActionRequest(state=state, action=action).SerializeToString()
        requests.append(raw)
        answer = handle(raw)
        assert isinstance(answer, bytes)
        returned = api.ApplyActionResponse.FromString(answer).state
        previous = step
    return requests


def first_state(
    game: Game, step: Step, sealer: Sealer | None, control: TimeControl | None
) -> common.GameState:
    """The state of ``step``, with a clock waiting for its seats to act since now when
    ``control`` is set, sealed with ``sealer``, as a server returns it."""
    plain = encode_state(game, step.state)
    clock = None
    if control is not None:
        engine = game.engine
        to_act = engine.status(step.state).seats_to_act
        clock = clocks.start(control, engine.seats(step.state), to_act, SYSTEM_CLOCK.now_ms())
    if sealer is None:
        if clock is not None:
            plain.clock.MergeFromString(encode_clock(clock))
        return plain
    inner = getattr(plain, game.id).SerializeToString()
    return common.GameState(
        rules_version=plain.rules_version,
        revision=plain.revision,
        game_id=game.id,
        sealed=sealer.seal(
            game.id, plain.rules_version, plain.revision, sealed_payload(inner, clock)
        ),
    )
