"""Every Ordo game as a PettingZoo environment, and as a Gymnasium one against Ordo's bots
(docs/agents.md).

- ``env(game, seats, ...)``: the AEC environment (``pettingzoo.AECEnv``) of any game;
- ``parallel_env(game, seats, ...)``: the Parallel environment of a game whose seats move at
  once (6 nimmt!);
- ``gym_env(game, seats, seat=0, opponents="heuristic", ...)``: one seat against bots, a
  ``gymnasium.Env``, also made by ``gymnasium.make("ordo/<game>-v0", ...)``;
- ``flatten(observation)``: an observation's parts in one vector, for a network.

They take the same arguments: ``options`` (the game's options, as ``ListGames`` names them),
``bots`` (seat to policy: ``random``, ``heuristic`` or ``search``), ``server`` (an Ordo server's
address or a ``Client``: the game is then played there, over gRPC, with the same seeds and the
same observations), ``reward`` (``score``, ``win`` or ``shaped``) and ``search_iterations``.
The observation and action encodings of each game are documented in ``ordo_agents.games``.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from ordo_agents.aec import OrdoEnv
from ordo_agents.games import ENCODINGS
from ordo_agents.games.base import MASK, Observation
from ordo_agents.parallel import OrdoParallelEnv
from ordo_agents.single import OrdoGymEnv

__all__ = [
    "ENCODINGS",
    "MASK",
    "OrdoEnv",
    "OrdoGymEnv",
    "OrdoParallelEnv",
    "env",
    "flatten",
    "gym_env",
    "parallel_env",
]

env = OrdoEnv
parallel_env = OrdoParallelEnv
gym_env = OrdoGymEnv


def flatten(observation: Observation) -> np.ndarray:
    """An observation's parts but its action mask, in the order of their names (the order of
    its ``Dict`` space), as one vector of 32-bit floats."""
    return np.concatenate(
        [observation[name].ravel() for name in sorted(observation) if name != MASK],
        dtype=np.float32,
    )


for _game in ENCODINGS:
    gymnasium.register(
        f"ordo/{_game}-v0", entry_point="ordo_agents.single:OrdoGymEnv", kwargs={"game": _game}
    )
