"""User-written Python strategies (ttrsim.play.pyplay) beside compiled ones."""
import numpy as np
import pytest

from ttrsim.core.board import build_board
from ttrsim.data.rules import get_rules
from ttrsim.play.loop import play_finals
from ttrsim.play.pyplay import play
from ttrsim.strategies.python_example import GreedyLongest


@pytest.mark.parametrize("rules,players,seed", [("usa", 2, 4), ("germany", 4, 9), ("usa-mega", 3, 1)])
def test_all_compiled_seats_replay_the_compiled_game(rules, players, seed):
    g = play(rules, players, seed, ["random"])
    finals = play_finals(build_board(get_rules(rules)), players, [seed], np.zeros(players, np.int64),
                         np.zeros((players, 1)))
    assert np.array_equal(g.state.final, finals[0])


def test_python_strategy_sees_only_its_observation_and_legal_actions():
    seen = []

    class Spy:
        def choose(self, observation, legal_actions):
            seen.append((observation, legal_actions))
            return legal_actions[0]

    g = play("germany", 3, 2, [Spy(), "random", "random"])
    assert g.over and seen
    for obs, legal in seen:
        assert obs["seat"] == 0 and legal and all(isinstance(a, int) for a in legal)
        assert "deck" not in obs and all("hand" not in p for p in obs["players"])


def test_example_python_strategy_beats_random():
    wins = 0
    for seed in range(20):
        seats = [GreedyLongest(), "random"] if seed % 2 == 0 else ["random", GreedyLongest()]
        g = play("usa", 2, seed, seats)
        wins += g.result()["seats"][seed % 2]["winner"]
    assert wins >= 15


def test_bad_seat_is_a_clear_error():
    with pytest.raises(ValueError, match="did you mean 'random'"):
        play("usa", 2, 0, ["randon"])
    with pytest.raises(ValueError, match="choose"):
        play("usa", 2, 0, [object(), "random"])


@pytest.mark.parametrize("rules,players", [("usa", 4), ("germany", 3)])
def test_python_example_plays_exactly_like_its_compiled_twin(rules, players):
    """The protocol loses nothing: GreedyLongest (Python) and greedy (compiled)
    make the same decisions, so the games are identical."""
    for seed in range(3):
        py = play(rules, players, seed, [GreedyLongest()] + ["random"] * (players - 1))
        nb = play(rules, players, seed, ["greedy"] + ["random"] * (players - 1))
        assert py.history == nb.history
