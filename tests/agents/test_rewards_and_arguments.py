"""Rewards, seeds, options and bots as the environments take them, and the arguments they
refuse, each with a clear reason."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

from engines import registry
from ordo_agents import MASK, OrdoEnv, OrdoGymEnv, OrdoParallelEnv
from ordo_agents.backends import Result
from ordo_agents.games import ENCODINGS
from ordo_agents.table import ZERO_SEED
from tests.agents.playing import GAMES, cases, random_action

SEEDS = (1, 2, 3)


def returns(env: OrdoEnv, seed: int) -> tuple[dict[str, float], Result]:
    """Play a game to its end with random agents: each agent's rewards summed over the game
    (as ``last()`` hands them out), and the outcome."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    result = None
    for agent in env.agent_iter():
        observation, reward, terminated, _, _ = env.last()
        totals[agent] += reward
        if terminated:
            result = result or env.table.backend.result()
        env.step(None if terminated else random_action(observation, rng))
    assert result is not None
    return totals, result


@pytest.mark.parametrize(("game", "seats"), cases())
class TestRewards:
    """The three rewards: the game's score at the end, the win, and the score as it goes."""

    def test_the_score_comes_at_the_end_in_the_games_own_unit(self, game: str, seats: int) -> None:
        """With reward "score" each agent's return is its score, negated where fewer points
        are better (6 nimmt!'s bullheads, Fora de Ordem's bombs)."""
        sign = -1 if ENCODINGS[game].lower_is_better else 1
        for seed in SEEDS:
            totals, result = returns(OrdoEnv(game, seats), seed)
            assert totals == {f"seat_{seat}": sign * result.scores[seat] for seat in range(seats)}

    def test_the_win_is_one_for_each_winner(self, game: str, seats: int) -> None:
        """With reward "win" the winners' return is 1 and the others' 0."""
        for seed in SEEDS:
            totals, result = returns(OrdoEnv(game, seats, reward="win"), seed)
            assert totals == {
                f"seat_{seat}": float(seat in result.winners) for seat in range(seats)
            }

    def test_shaped_rewards_add_up_to_the_score(self, game: str, seats: int) -> None:
        """With reward "shaped" each move brings the change in the seat's running score, and
        they add up to the score reward, bots' moves included."""
        sign = -1 if ENCODINGS[game].lower_is_better else 1
        bots = {seats - 1: "heuristic"}
        for seed in SEEDS:
            totals, result = returns(OrdoEnv(game, seats, reward="shaped", bots=bots), seed)
            assert totals == {
                f"seat_{seat}": sign * result.scores[seat] for seat in range(seats - 1)
            }


class TestSeeds:
    """A reset's seed is NewGame's seed."""

    @pytest.mark.parametrize("game", GAMES)
    def test_a_seed_deals_the_engines_game_of_that_seed(self, game: str) -> None:
        """reset(seed=s) deals engine.new_game(seats, s, defaults); seed 0 deals ZERO_SEED's."""
        engine = registry.get(game)
        seats = engine.info.min_seats
        env = OrdoEnv(game, seats)
        for seed, dealt in ((5, 5), (2**64 - 2, 2**64 - 2), (0, ZERO_SEED)):
            env.reset(seed=seed)
            expected = engine.new_game(seats, dealt, engine.default_options())
            assert env.table.backend.state == expected  # type: ignore[attr-defined]

    def test_resets_without_a_seed_follow_the_last_seed(self) -> None:
        """After reset(seed=s), resets without a seed deal the same games in two environments."""
        first, second = OrdoEnv("up_or_down", 2), OrdoEnv("up_or_down", 2)
        first.reset(seed=9)
        second.reset(seed=9)
        for _ in range(3):
            first.reset()
            second.reset()
            assert first.table.seed == second.table.seed != 9

    @pytest.mark.parametrize("seed", [-1, 2**64])
    def test_a_seed_out_of_range_is_refused(self, seed: int) -> None:
        """Seeds are 64-bit: a negative or larger one raises ValueError."""
        with pytest.raises(ValueError, match=r"a seed is 0\.\.2"):
            OrdoEnv("six_nimmt", 2).reset(seed=seed)


class TestOptionsAndBots:
    """Options and bots, as ListGames names them."""

    def test_options_change_the_game(self) -> None:
        """Options given by name deal the engine's game with those options."""
        engine = registry.get("six_nimmt")
        options = {"too_low_rule": "TAKE_CHEAPEST_ROW", "threshold": 30, "zero_card": True}
        env = OrdoEnv("six_nimmt", 3, options=options)
        env.reset(seed=4)
        state = env.table.backend.state  # type: ignore[attr-defined]
        assert state.options == engine.new_game(3, 4, state.options).options
        assert (state.options.threshold, state.options.zero_card) == (30, True)
        assert state.options.too_low_rule.value == "TAKE_CHEAPEST_ROW"
        assert env.last()[0][MASK][0] == 1  # the zero card may be selected

    def test_bots_play_their_seats_inside_the_environment(self) -> None:
        """Only the seats without a bot are agents; the bots' moves happen between theirs."""
        env = OrdoEnv("fora_de_ordem", 4, bots={0: "heuristic", 2: "search"}, search_iterations=4)
        assert env.possible_agents == ["seat_1", "seat_3"]
        env.reset(seed=3)
        assert env.agent_selection == "seat_1"
        assert env.table.backend.revision == 1  # seat 0's bot moved first

    def test_the_gymnasium_environment_plays_one_seat(self) -> None:
        """gym_env plays its seat against bots to the end; every other seat is a bot."""
        env = gymnasium.make("ordo/up_or_down-v0", seats=3, seat=1, opponents="random")
        observation, _ = env.reset(seed=2)
        rng = np.random.default_rng(2)
        terminated = False
        while not terminated:
            assert env.unwrapped.action_masks().tolist() == observation[MASK].astype(bool).tolist()  # type: ignore[attr-defined]
            observation, _, terminated, truncated, _ = env.step(random_action(observation, rng))
            assert not truncated


class TestRefusals:
    """Arguments an environment refuses, with the reason in the message."""

    @pytest.mark.parametrize(
        ("arguments", "message"),
        [
            ({"game": "chess"}, "unknown game"),
            ({"game": "sequence_numbers", "seats": 5}, "takes 2, 3, 4, 6 seats, not 5"),
            ({"game": "six_nimmt", "seats": 11}, "not 11"),
            ({"game": "six_nimmt", "bots": {0: "oracle"}}, "policy 'oracle'"),
            ({"game": "six_nimmt", "bots": {2: "random"}}, "bot seat 2"),
            ({"game": "six_nimmt", "bots": {0: "random", 1: "random"}}, "every seat is a bot"),
            ({"game": "six_nimmt", "reward": "money"}, "reward is one of"),
            ({"game": "six_nimmt", "options": {"colour": "red"}}, "no option 'colour'"),
            ({"game": "six_nimmt", "options": {"zero_card": "maybe"}}, "zero_card: 'maybe'"),
            ({"game": "fora_de_ordem", "options": {"custom_questions": ""}}, "no option"),
            ({"game": "six_nimmt", "render_mode": "human"}, "render_mode"),
            ({"game": "six_nimmt", "search_iterations": -1}, "search_iterations"),
        ],
    )
    def test_bad_arguments(self, arguments: dict[str, Any], message: str) -> None:
        """Each is refused with ValueError (or the engines' own error for an unknown game)."""
        with pytest.raises(Exception, match=message) as refused:
            OrdoEnv(**arguments)
        assert isinstance(refused.value, ValueError) or "unknown game" in message

    def test_an_option_out_of_range_is_refused_when_dealing(self) -> None:
        """The engine refuses an option value out of its range, with its reason."""
        with pytest.raises(Exception, match=r"threshold must be 1\.\.1000"):
            OrdoEnv("six_nimmt", 2, options={"threshold": 0}).reset(seed=1)

    def test_a_turn_based_game_has_no_parallel_environment(self) -> None:
        """parallel_env refuses a game played turn by turn."""
        with pytest.raises(ValueError, match="turn by turn"):
            OrdoParallelEnv("up_or_down", 2)

    def test_the_gymnasium_opponents_must_cover_every_other_seat(self) -> None:
        """A mapping of opponents that leaves a seat without a bot is refused."""
        with pytest.raises(ValueError, match="every seat but seat 0"):
            OrdoGymEnv("six_nimmt", 3, opponents={1: "random"})


class TestIllegalActions:
    """An action the mask does not allow moves nothing, in every environment."""

    def test_aec(self) -> None:
        """The same agent is to act again, told so in its info, nothing applied."""
        env = OrdoEnv("six_nimmt", 2)
        env.reset(seed=1)
        illegal = int(np.flatnonzero(env.last()[0][MASK] == 0)[0])
        env.step(illegal)
        assert env.agent_selection == "seat_0"
        assert env.infos["seat_0"] == {"illegal_action": True}
        assert env.table.backend.revision == 0
        env.step(random_action(env.last()[0], np.random.default_rng(1)))
        assert env.infos["seat_0"] == {}

    def test_gymnasium(self) -> None:
        """The same observation comes back, no reward, info says so."""
        env = OrdoGymEnv("up_or_down", 2)
        observation, _ = env.reset(seed=1)
        assert not observation[MASK][-1]  # no draw while the piles hold cards
        again, reward, terminated, _, info = env.step(env.action_space.n - 1)
        assert (reward, terminated, info) == (0.0, False, {"illegal_action": True})
        assert all(np.array_equal(again[name], observation[name]) for name in observation)

    def test_parallel(self) -> None:
        """The agent is still to act at the next step; the others' moves are applied."""
        env = OrdoParallelEnv("six_nimmt", 2)
        observations, _ = env.reset(seed=1)
        rng = np.random.default_rng(1)
        illegal = int(np.flatnonzero(observations["seat_0"][MASK] == 0)[0])
        actions = {"seat_0": illegal, "seat_1": random_action(observations["seat_1"], rng)}
        observations, _, _, _, infos = env.step(actions)
        assert infos["seat_0"] == {"illegal_action": True}
        assert env.table.seats_to_act() == (0,)
        assert not observations["seat_1"][MASK].any()
