"""Golden playouts: the digest of every answer the servicer gives along seeded games.

Same state + same action = byte-identical answer, on any machine and with any later version of
the code that keeps the game's rules version. A seeded game is played here through the servicer
in-process (``NewGame``, then ``ApplyAction`` with the legal actions a pinned generator picks,
``GetView`` for every viewer and ``SuggestAction`` now and then), and the SHA-256 of all the
answers' bytes is compared with the digest stored in ``golden_playouts.json``. A change in the
deal, the rules, the events or the wire format changes it.

The same playouts run again on a servicer with a fixed test key (``tests.state_keys``): its
sealed states are pinned too, so replicas with the same keys answer byte for byte alike, and
sealing stays deterministic.

When such a change is intended, raise the game's rules version (a state of the old version is
then refused, not answered differently), and write the new digests with
``python -m tests.service.golden``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engines import registry
from engines.prng import Rng
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.servicer import GameEngineServicer
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer
from tests.state_keys import TEST_KEY

GOLDEN_FILE = Path(__file__).with_name("golden_playouts.json")
SEED = 2026
VIEW_EVERY = 10  # every viewer's view, and a suggestion for a seat to act, every 10th action
MAX_ACTIONS = 20_000


def cases() -> list[tuple[str, int, bool]]:
    """(game, seats, sealed): every game with its fewest and its most seats, with plain states
    and with sealed ones."""
    return [
        (game, seats, sealed)
        for game in sorted(registry.ENGINES)
        for seats in sorted(
            {registry.ENGINES[game].info.min_seats, registry.ENGINES[game].info.max_seats}
        )
        for sealed in (False, True)
    ]


def case_id(game: str, seats: int, sealed: bool) -> str:
    """The key of a case in the golden file."""
    return f"{game}-{seats}seats" + ("-sealed" if sealed else "")


def answers(game: str, seats: int, sealed: bool, plain: bool = False) -> Iterator[bytes]:
    """Every answer of the servicer along the seeded playout of ``game`` with ``seats``, serialized
    deterministically; the states sealed under the test key when ``sealed``; every answer built
    by protobuf's own serializer when ``plain`` (``plain_wire``)."""
    servicer = GameEngineServicer(sealer=Sealer([TEST_KEY]) if sealed else None, plain_wire=plain)
    options = common.GameOptions(**{game: {}})
    started = servicer.NewGame(
        api.NewGameRequest(seats=seats, seed=SEED, options=options), CallRecord("NewGame")
    )
    yield serialized(started)
    state, status = started.state, started.status
    rng = Rng(SEED)
    for step in range(MAX_ACTIONS):
        if status.finished:
            return
        seat = rng.choice(list(status.seats_to_act))
        if step % VIEW_EVERY == 0:
            yield from looks(servicer, state, seats, seat)
        legal = servicer.ListLegalActions(
            api.ListLegalActionsRequest(state=state, seat=seat), CallRecord("ListLegalActions")
        )
        yield serialized(legal)
        request = api.ApplyActionRequest(state=state, action=rng.choice(list(legal.actions)))
        answer = servicer.ApplyAction(request.SerializeToString(), CallRecord("ApplyAction"))
        yield answer
        applied = api.ApplyActionResponse.FromString(answer)
        state, status = applied.state, applied.status
    raise AssertionError(f"{game} with {seats} seats did not end within {MAX_ACTIONS} actions")


def looks(
    servicer: GameEngineServicer, state: common.GameState, seats: int, seat: int
) -> Iterator[bytes]:
    """Every viewer's view of ``state``, and the heuristic bot's move for ``seat``."""
    for viewer in (
        *(common.Viewer(seat=each) for each in range(seats)),
        common.Viewer(spectator=True),
    ):
        view = servicer.GetView(
            api.GetViewRequest(state=state, viewer=viewer), CallRecord("GetView")
        )
        yield serialized(view)
    suggested = servicer.SuggestAction(
        api.SuggestActionRequest(state=state, seat=seat, policy="heuristic"),
        CallRecord("SuggestAction"),
    )
    yield serialized(suggested)


def serialized(message: Any) -> bytes:
    """A response's bytes, as the server sends them (deterministic: no map is reordered)."""
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def digest(game: str, seats: int, sealed: bool, plain: bool = False) -> dict[str, Any]:
    """The SHA-256 of the answers along a playout, and how many there were."""
    hasher = hashlib.sha256()
    count = 0
    for answer in answers(game, seats, sealed, plain):
        hasher.update(len(answer).to_bytes(4, "big"))
        hasher.update(answer)
        count += 1
    return {"answers": count, "sha256": hasher.hexdigest()}


def stored() -> dict[str, dict[str, Any]]:
    """The digests in the golden file."""
    result: dict[str, dict[str, Any]] = json.loads(GOLDEN_FILE.read_text())
    return result


def main() -> None:
    """Write the digest of every case to the golden file."""
    digests = {case_id(*case): digest(*case) for case in cases()}
    GOLDEN_FILE.write_text(json.dumps(digests, indent=2, sort_keys=True) + "\n")
    print(f"wrote {len(digests)} digests to {GOLDEN_FILE}")


if __name__ == "__main__":
    main()
