"""Train a small policy for 6 nimmt! with PyTorch on the CPU, then measure it against Ordo's bots
with the arena's statistics (docs/agents.md).

The agent plays seat 0 of a four-seat game of one hand (options ``end=FIXED_HANDS``,
``hands=1``) against three ``random`` bots, through ``ordo_agents.gym_env``. Its policy is a
small network over the flattened observation whose logits outside the action mask are set to
minus infinity; it learns by REINFORCE with a learned baseline (the value head), from the
shaped reward (minus the bullheads the seat takes, as it takes them), each move credited with
what follows it. It plays 64 games at a time, so that one forward pass chooses the moves of all
of them. After training, the agent and a uniformly
random agent each play the same seeded games against random bots and against heuristic bots;
each gets its win rate and mean score with 95 % intervals (``bench.arena.interval``), as
``make arena`` reports the bots.

Run from the repository root, with PyTorch installed (``pip install "./clients/agents[train]"``):

    .venv/bin/python -m clients.agents.examples.train_six_nimmt --minutes 3
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

import gymnasium
import numpy as np
import torch
from torch import nn

import ordo_agents
from bench.arena import interval
from ordo_agents import MASK, flatten

GAME = "six_nimmt"
SEATS = 4
ONE_HAND = {"end": "FIXED_HANDS", "hands": 1}
HIDDEN = 128
TABLES = 64  # games played at once, their moves chosen in one forward pass
STEPS_PER_UPDATE = 2048  # moves of finished games per update of the network
RETURN_SCALE = 10.0  # bullheads: a hand's penalty is a few tens at most
LEARNING_RATE = 3e-3
VALUE_WEIGHT = 0.5
ENTROPY_WEIGHT = 0.01
EVALUATION_GAMES = 400
EVALUATION_SEED = 1_000_000  # evaluation games are dealt from seeds no training game used

Policy = Callable[[dict[str, np.ndarray]], int]


class Network(nn.Module):
    """The action logits and the value of an observation."""

    def __init__(self, inputs: int, actions: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(inputs, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN))
        self.logits = nn.Linear(HIDDEN, actions)
        self.value = nn.Linear(HIDDEN, 1)

    def forward(
        self, vectors: torch.Tensor, masks: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = torch.relu(self.body(vectors))
        logits = self.logits(hidden).masked_fill(~masks, float("-inf"))
        return logits, self.value(hidden).squeeze(-1)


class Inputs:
    """Observations as a batch of network inputs: each part divided by its highest value in the
    observation space, so every input lies in -1..1; and the masks."""

    def __init__(self, space: gymnasium.spaces.Dict) -> None:
        highs = {name: np.maximum(part.high, 1) for name, part in space.items() if name != MASK}
        self.scale = torch.from_numpy(flatten(highs))

    def __call__(
        self, observations: Sequence[dict[str, np.ndarray]]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        vectors = torch.from_numpy(np.stack([flatten(obs) for obs in observations])) / self.scale
        masks = torch.from_numpy(np.stack([obs[MASK] for obs in observations])).bool()
        return vectors, masks


def train(network: Network, inputs: Inputs, minutes: float, seed: int) -> int:
    """Train against random bots for ``minutes``, ``TABLES`` games at a time in lockstep (one
    forward pass chooses for all of them); the number of games played."""
    envs = [
        ordo_agents.gym_env(GAME, SEATS, opponents="random", options=ONE_HAND, reward="shaped")
        for _ in range(TABLES)
    ]
    optimiser = torch.optim.Adam(network.parameters(), lr=LEARNING_RATE)
    deadline = time.monotonic() + minutes * 60
    games = 0
    current = []
    for env in envs:
        current.append(env.reset(seed=seed + games)[0])
        games += 1
    playing: list[list[tuple[dict[str, np.ndarray], int, float]]] = [[] for _ in envs]
    batch: list[tuple[dict[str, np.ndarray], int, float]] = []
    while time.monotonic() < deadline:
        with torch.no_grad():
            logits, _ = network(*inputs(current))
        chosen = torch.distributions.Categorical(logits=logits).sample().tolist()
        for table, (env, action) in enumerate(zip(envs, chosen, strict=True)):
            observation = current[table]
            current[table], reward, finished, _, _ = env.step(action)
            playing[table].append((observation, action, float(reward)))
            if finished:
                batch += to_go(playing[table])
                playing[table] = []
                current[table] = env.reset(seed=seed + games)[0]
                games += 1
        if len(batch) >= STEPS_PER_UPDATE:
            update(network, inputs, optimiser, batch)
            batch = []
    for env in envs:
        env.close()
    return games


def to_go(
    moves: Sequence[tuple[dict[str, np.ndarray], int, float]],
) -> list[tuple[dict[str, np.ndarray], int, float]]:
    """Each move with the rewards from it to the end of the game: a move is credited with the
    bullheads taken after it, not before."""
    total = 0.0
    credited = []
    for observation, action, reward in reversed(moves):
        total += reward
        credited.append((observation, action, total))
    return credited[::-1]


def update(
    network: Network,
    inputs: Inputs,
    optimiser: torch.optim.Optimizer,
    batch: Sequence[tuple[dict[str, np.ndarray], int, float]],
) -> None:
    """One step of REINFORCE with the value head as baseline, and an entropy bonus."""
    observations, actions, returns = zip(*batch, strict=True)
    logits, values = network(*inputs(observations))
    target = torch.tensor(returns, dtype=torch.float32) / RETURN_SCALE
    distribution = torch.distributions.Categorical(logits=logits)
    advantage = (target - values).detach()
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-6)
    loss = (
        -(distribution.log_prob(torch.tensor(actions)) * advantage).mean()
        + VALUE_WEIGHT * (target - values).pow(2).mean()
        - ENTROPY_WEIGHT * distribution.entropy().mean()
    )
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()


def greedy(network: Network, inputs: Inputs) -> Policy:
    """The network's most likely legal action."""

    def choose(observation: dict[str, np.ndarray]) -> int:
        with torch.no_grad():
            logits, _ = network(*inputs([observation]))
        return int(logits.argmax())

    return choose


def uniform(seed: int) -> Policy:
    """A uniformly random legal action."""
    rng = np.random.default_rng(seed)
    return lambda observation: int(rng.choice(np.flatnonzero(observation[MASK])))


def evaluate(policy: Policy, opponents: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The policy's win rate and mean score (bullheads) in seat 0 against ``opponents``, over
    seeded games, each with its 95 % interval; a win shared by several seats counts for each
    its share, as in the arena."""
    env = ordo_agents.gym_env(GAME, SEATS, opponents=opponents, options=ONE_HAND)
    wins, scores = [], []
    for game in range(EVALUATION_GAMES):
        observation, _ = env.reset(seed=EVALUATION_SEED + game)
        finished = False
        while not finished:
            observation, _, finished, _, _ = env.step(policy(observation))
        result = env.table.backend.result()
        assert result is not None
        wins.append(1 / len(result.winners) if 0 in result.winners else 0.0)
        scores.append(float(result.scores[0]))
    env.close()
    return interval(wins), interval(scores)


def main(argv: Sequence[str] | None = None) -> None:
    """Train, then print the agent's figures beside a random agent's."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="the first training game's seed")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    env = ordo_agents.gym_env(GAME, SEATS, options=ONE_HAND)
    inputs = Inputs(env.observation_space)
    network = Network(len(inputs.scale), int(env.action_space.n))
    env.close()
    started = time.monotonic()
    games = train(network, inputs, args.minutes, args.seed)
    print(f"trained on {games:,} games in {time.monotonic() - started:.0f} s")
    print(f"{'agent':<8} {'opponents':<10} {'win rate':>16} {'mean bullheads':>18}")
    for name, policy in (("trained", greedy(network, inputs)), ("random", uniform(args.seed))):
        for opponents in ("random", "heuristic"):
            (win, win_ci), (score, score_ci) = evaluate(policy, opponents)
            print(
                f"{name:<8} {opponents:<10} {win:>8.1%} ± {win_ci:>5.1%} "
                f"{score:>10.2f} ± {score_ci:>5.2f}"
            )


if __name__ == "__main__":
    main()
