"""Seeds and moves give the same games through the environments as through the gRPC API.

1. A thousand seeded games per game: the in-process environment plays each (random agents, and
   bots on some seats) while recording it; the server deals the same seed (``NewGame``: the same
   first state) and replays the record (``ReplayGame``), checking the digest of the state after
   every move against the environment's, then its last state and scores.
2. The environment over gRPC (``server=``) against the one in-process, step by step: the same
   agents to act, observations, rewards and ends, bots and shaped rewards included.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

from engines import registry
from engines.prng import Rng
from engines.search import Budget
from ordo.client import Client
from ordo.records import DIGEST_BYTES, FORMAT_VERSION
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo_agents import OrdoEnv, OrdoParallelEnv
from ordo_agents.backends import InProcess
from service.codecs import CODECS
from tests.agents.playing import GAMES, cases, play, random_action, same

GAMES_PER_GAME = 1_000
FIRST_SEED = 7_000
BOT_POLICIES = ("random", "heuristic")
REMOTE_SEEDS = (1, 2)


def plain(game: str, state: Any) -> common.GameState:
    """A state as a server without keys returns it."""
    return common.GameState(
        rules_version=state.rules_version,
        revision=state.revision,
        **{game: CODECS[game].encode_state(state)},
    )


def digest(message: common.GameState) -> bytes:
    """The SHA-256 of a state's canonical bytes, as records take it."""
    return hashlib.sha256(message.SerializeToString(deterministic=True)).digest()


class Recording(InProcess):
    """The in-process backend, keeping every move as a record holds it and every state."""

    def __init__(self, game: str) -> None:
        super().__init__(game, {})
        self.game = game
        self.moves: list[api.RecordedMove] = []
        self.states: list[Any] = []

    def deal(self, seats: int, seed: int) -> None:
        super().deal(seats, seed)
        self.moves, self.states = [], [self.state]

    def apply(self, seat: int, action: Any) -> None:
        super().apply(seat, action)
        encoded = CODECS[self.game].encode_action(action)
        self.moves.append(api.RecordedMove(action=common.Action(seat=seat, **{self.game: encoded})))
        self.states.append(self.state)

    def play_bot(self, seat: int, policy: str, seed: int, iterations: int) -> None:
        budget = Budget(iterations) if iterations else None
        action = self.engine.suggest(self.state, seat, policy, Rng(seed), budget)
        InProcess.apply(self, seat, action)
        bot = api.BotMove(seat=seat, policy=policy, seed=seed, search_iterations=iterations)
        self.moves.append(api.RecordedMove(bot=bot))
        self.states.append(self.state)

    def record(self) -> api.GameRecord:
        """The record of the game played, its digests from this backend's own states."""
        digests = [digest(plain(self.game, state)) for state in self.states]
        return api.GameRecord(
            format_version=FORMAT_VERSION,
            initial_state=plain(self.game, self.states[0]),
            moves=self.moves,
            move_digests=b"".join(each[:DIGEST_BYTES] for each in digests[1:]),
            final_digest=digests[-1],
        )


def lineup(game: str, index: int) -> tuple[int, dict[int, str]]:
    """The seat count and the bots of game ``index``: every seat count in turn, a bot in one
    game of two (random and heuristic in turn), on a seat that moves round."""
    counts = registry.get(game).info.seat_counts
    seats = counts[index % len(counts)]
    if index % 2:
        return seats, {}
    return seats, {index // 2 % seats: BOT_POLICIES[index // 2 % len(BOT_POLICIES)]}


@pytest.fixture(scope="module")
def client(server_address: str) -> Any:
    """A client of the session's server."""
    with Client(server_address, timeout=60) as ordo:
        yield ordo


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
class TestThousandGames:
    """A thousand seeded games per game, through the environment and through the API."""

    def test_the_server_deals_and_replays_every_game_the_environment_played(
        self, client: Client, game: str
    ) -> None:
        """For each seed NewGame deals the environment's first state, and ReplayGame accepts
        the environment's moves with the digest of every state after them, ending on the same
        last state and scores as the environment's rewards."""
        for index in range(GAMES_PER_GAME):
            seats, bots = lineup(game, index)
            seed = FIRST_SEED + index
            env = OrdoEnv(game, seats, bots=bots)
            backend = env.table.backend = Recording(game)
            for _ in play(env, seed, chooser=index):
                pass
            dealt = client.new_game(game, seats, seed)
            assert dealt.state == plain(game, backend.states[0]), f"seed {seed} deals another game"
            replayed = client.replay_game(backend.record())
            assert replayed.final_state == plain(game, backend.state)
            result = backend.result()
            assert result is not None
            assert replayed.final_status.finished
            assert tuple(replayed.final_status.outcome.scores) == result.scores


@pytest.mark.parametrize(("game", "seats"), cases())
class TestRemoteEnvironment:
    """The environment over gRPC plays as the one in-process."""

    def test_same_steps_observations_and_rewards(
        self, client: Client, game: str, seats: int
    ) -> None:
        """Step by step, with bots on the seats after the first and shaped rewards: the same
        agent to act, observation, rewards, terminations, and the same end."""
        bots = {seat: BOT_POLICIES[seat % 2] for seat in range(1, seats) if seat % 2}
        for seed in REMOTE_SEEDS:
            local = OrdoEnv(game, seats, bots=bots, reward="shaped")
            remote = OrdoEnv(game, seats, bots=bots, reward="shaped", server=client)
            rng = np.random.default_rng(seed)
            local.reset(seed=seed)
            remote.reset(seed=seed)
            for agent in local.agent_iter():
                assert remote.agent_selection == agent
                mine, theirs = local.last(), remote.last()
                assert mine[1:4] == theirs[1:4]
                if mine[2]:
                    local.step(None)
                    remote.step(None)
                    continue
                assert same(mine[0], theirs[0])
                action = random_action(mine[0], rng)
                local.step(action)
                remote.step(action)
            assert not remote.agents
            local.close()
            remote.close()


class TestParallelAgreesWithAec:
    """The Parallel environment of 6 nimmt! plays the game the AEC one plays."""

    @pytest.mark.parametrize("seats", [2, 10])
    def test_the_same_actions_give_the_same_game(self, seats: int) -> None:
        """Random actions through the Parallel environment, sent again one agent at a time
        through the AEC one from the same seed, end on the same state."""
        parallel = OrdoParallelEnv("six_nimmt", seats, bots={1: "heuristic"})
        rng = np.random.default_rng(5)
        observations, _ = parallel.reset(seed=5)
        sent: list[tuple[str, int]] = []
        while parallel.agents:
            actions = {}
            for agent, observation in observations.items():
                if observation["action_mask"].any():
                    actions[agent] = random_action(observation, rng)
            sent += sorted(actions.items(), key=lambda item: int(item[0].split("_")[1]))
            observations, *_ = parallel.step(actions)
        aec = OrdoEnv("six_nimmt", seats, bots={1: "heuristic"})
        aec.reset(seed=5)
        for agent, action in sent:
            assert aec.agent_selection == agent
            aec.step(action)
        assert aec.table.backend.state == parallel.table.backend.state  # type: ignore[attr-defined]
