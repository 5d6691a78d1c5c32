"""The environments in the standard RL stack (issue 33, docs/env.md): the
compiled batch as a ``gymnasium.vector.VectorEnv`` keeps Gymnasium's
same-step autoreset contract and plays the single env's games, every
registered id passes ``check_env`` through ``gymnasium.make`` and builds the
compiled batch through ``gymnasium.make_vec``, and the PettingZoo entry points
by preset pass ``api_test`` (Gymnasium has no checker for a VectorEnv
subclass: the contract is tested here against its documented semantics)."""
import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.vector import AutoresetMode  # noqa: E402

from ttrsim.data.rules import preset_names  # noqa: E402
from ttrsim.env import gym_env, gym_vector_env  # noqa: E402
from ttrsim.env.gym_vector import TicketToRideVectorEnv  # noqa: E402
from ttrsim.env.pettingzoo import MODULES  # noqa: E402
from ttrsim.env.registration import ENV_IDS, ENV_PRESETS, env_id  # noqa: E402
from ttrsim.strategies import strategy_id  # noqa: E402


def test_the_batch_is_a_gymnasium_vector_env_with_batched_spaces():
    env = gym_vector_env(4, "usa", players=3, opponents="greedy")
    assert isinstance(env, gym.vector.VectorEnv) and env.num_envs == 4
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    single = gym_env("usa", players=3)
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space == gym.spaces.Discrete(527)
    assert env.observation_space == gym.vector.utils.batch_space(single.observation_space, 4)
    assert env.action_space == gym.spaces.MultiDiscrete([527] * 4)
    obs, infos = env.reset(seed=3)
    assert obs in env.observation_space and infos["action_mask"].shape == (4, 527)
    assert infos["_action_mask"].all() and (env.action_masks() == infos["action_mask"].astype(bool)).all()
    assert env.action_masks().dtype == np.bool_
    obs2, *_ = env.step(infos["action_mask"].argmax(axis=1))
    assert obs2 in env.observation_space and not np.shares_memory(obs, obs2)    # copies, as SyncVectorEnv's
    env.close()
    assert env.closed


def test_reset_seeds_every_slot_deterministically():
    env = gym_vector_env(3, "usa", players=2)
    a, _ = env.reset(seed=10)
    assert env.seeds.tolist() == [10, 11, 12]               # an int seeds slot i with seed + i
    b, _ = env.reset(seed=[10, 11, 12])                       # a list seeds each slot
    assert (a == b).all()
    c, _ = env.reset(seed=[12, 11, 10])
    assert (c[0] == a[2]).all() and (c[2] == a[0]).all()
    env.reset()                                               # no seed: random games, still valid seeds
    assert (env.seeds >= 0).all()
    with pytest.raises(TypeError, match=r"seed must be an integer 0 to 2\*\*63 - 1, got 1.5"):
        env.reset(seed=1.5)
    with pytest.raises(ValueError, match="seed must be 3 integers"):
        env.reset(seed=[1, 2])
    with pytest.raises(TypeError, match="actions must be 3 integers"):
        env.step(np.array([0.5, 1.0, 2.0]))
    with pytest.raises(RuntimeError, match="reset"):
        gym_vector_env(2, "usa", players=2).step([0, 0])


def _random_legal(mask, rng):
    return np.array([int(rng.choice(np.flatnonzero(row))) for row in mask])


@pytest.mark.parametrize("rules", ["usa", "europe"])
def test_same_step_autoreset_plays_the_single_env_games(rules):
    """Gymnasium's same-step contract (gymnasium.farama.org/api/vector/autoreset):
    the step that ends an episode returns terminated, its reward and the first
    observation of the next episode, the ended one's last observation and
    info in ``final_obs``/``final_info`` (masked by ``_final_obs``/``_final_info``);
    the masks are the returned observations'; the next step is a step of the
    new episode. Every observation, reward and mask equals the single env's
    (which plays Game) for the same seeds and actions, an illegal action included."""
    n, seed = 3, 40
    vec = gym_vector_env(n, rules, players=2, opponents="greedy", reward="margin")
    singles = [gym_env(rules, players=2, opponents="greedy", reward="margin") for _ in range(n)]
    obs, infos = vec.reset(seed=seed)
    games = [0] * n
    for i, e in enumerate(singles):
        o, info = e.reset(seed=seed + i)
        assert (obs[i] == o).all() and (infos["action_mask"][i] == info["action_mask"]).all()
    rng = np.random.default_rng(0)
    steps_after_end = [0] * n
    step, illegal_ended = 0, []
    while min(steps_after_end) < 3:
        actions = _random_legal(infos["action_mask"], rng)
        if step == 5:                                   # slot 1 plays an action outside its mask
            actions[1] = int(np.flatnonzero(infos["action_mask"][1] == 0)[0])
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        step += 1
        assert not truncated.any() and obs in vec.observation_space
        assert ("final_obs" in infos) == bool(terminated.any())
        for i, e in enumerate(singles):
            o, r, term, trunc, info = e.step(int(actions[i]))
            assert (term, trunc, r) == (bool(terminated[i]), False, float(rewards[i]))
            if games[i]:
                steps_after_end[i] += 1
            if not term:
                assert (obs[i] == o).all() and (infos["action_mask"][i] == info["action_mask"]).all()
                assert "final_obs" not in infos or (infos["final_obs"][i] is None and not infos["_final_obs"][i])
                continue
            assert infos["_final_obs"][i] and infos["_final_info"][i]
            assert (infos["final_obs"][i] == o).all()                       # the ended game's last observation
            final = infos["final_info"]
            assert bool(final["illegal_action"][i]) == info.get("illegal_action", False) == (step == 6 and i == 1)
            if final["illegal_action"][i]:
                illegal_ended.append((step, i))
            else:
                assert final["_final"][i] and (final["final"][i] == e.game.state.final).all()
            games[i] += 1
            o, info = e.reset(seed=seed + i + games[i] * n)                 # slot i plays s_i, s_i + N, ...
            assert (obs[i] == o).all()                                      # the next game's first observation
            assert (infos["action_mask"][i] == info["action_mask"]).all()   # and its mask
            assert vec.seeds[i] == seed + i + games[i] * n
    assert illegal_ended == [(6, 1)] and min(games) >= 1


def test_a_seat_per_slot_plays_the_single_env_games_of_that_seat():
    """``seat=[...]``: the learner sits in seat ``seat[i]`` of slot ``i`` (a
    learner in every seat of one batch); slot ``i`` plays the single env's
    games with ``seat=seat[i]``, the other seats' entries of ``opponents`` in use."""
    seats, opponents, seed = [0, 1, 1], ["greedy", "planner"], 5
    vec = gym_vector_env(3, "usa", players=2, seat=seats, opponents=opponents, reward="margin")
    assert vec.seats.tolist() == seats
    singles = [gym_env("usa", players=2, seat=s, opponents=opponents, reward="margin") for s in seats]
    obs, infos = vec.reset(seed=seed)
    for i, e in enumerate(singles):
        o, _ = e.reset(seed=seed + i)
        assert (obs[i] == o).all() and (e.layout.field(o, "seat") == np.eye(2)[seats[i]]).all()
    rng = np.random.default_rng(1)
    ended = np.zeros(3, bool)
    while not ended.all():
        actions = _random_legal(infos["action_mask"], rng)
        obs, rewards, terminated, _, infos = vec.step(actions)
        for i, e in enumerate(singles):
            if ended[i]:
                continue
            o, r, term, _, _ = e.step(int(actions[i]))
            assert (bool(terminated[i]), float(rewards[i])) == (term, r)
            assert (infos["final_obs"][i] if term else obs[i]) == pytest.approx(o)
            ended[i] = term


def test_an_illegal_action_ends_only_its_slot():
    env = gym_vector_env(2, "usa", players=2)
    _, infos = env.reset(seed=1)
    actions = infos["action_mask"].argmax(axis=1)
    actions[0] = 10 ** 6                                    # out of range: illegal, as in the single env
    _, rewards, terminated, _, infos = env.step(actions)
    assert terminated.tolist() == [True, False] and rewards.tolist() == [-1.0, 0.0]
    assert infos["final_info"]["illegal_action"].tolist() == [True, False]
    assert infos["final_obs"][1] is None and env.seeds.tolist() == [3, 2]


def test_registered_ids_are_every_preset_and_player_count():
    registered = {k for k in gym.registry if k.startswith("ttrsim/")}
    assert registered == set(ENV_IDS)
    assert set(ENV_PRESETS) == set(preset_names()) == set(MODULES.values())
    assert len(ENV_IDS) == len(ENV_PRESETS) * 4 and env_id("usa", 4) == "ttrsim/USA-4p-v1"
    assert env_id("europe", 3) == "ttrsim/Europe-3p-v1"


@pytest.mark.filterwarnings("error")          # check_env warns of a missing spec or a space it doubts: none here
@pytest.mark.parametrize("id", ENV_IDS)
def test_check_env_on_every_registered_id(id):
    from gymnasium.utils.env_checker import check_env

    env = gym.make(id, opponents="random")
    check_env(env.unwrapped, skip_render_check=True)     # (gymnasium asks for the env without make's wrappers)
    assert env.spec.id == id and env.unwrapped.layout.n_players == int(id.split("-")[-2][:-1])


def test_make_takes_seat_opponents_and_reward():
    env = gym.make("ttrsim/USA1910-3p-v1", seat=2, opponents=["greedy", "planner", "random"], reward="margin")
    u = env.unwrapped
    assert (u.seat, u.mode, u.layout.n_players) == (2, 1, 3)
    assert [int(i) for i in u.strategy_ids] == [strategy_id(n) for n in ("greedy", "planner", "random")]
    obs, info = env.reset(seed=4)
    obs, _, _, trunc, info = env.step(int(info["action_mask"].argmax()))
    assert obs in env.observation_space and not trunc


def test_make_vec_builds_the_compiled_batch_and_steps():
    env = gym.make_vec("ttrsim/USA-4p-v1", num_envs=4, vectorization_mode="vector_entry_point",
                       opponents="greedy", seat=1)
    assert isinstance(env, TicketToRideVectorEnv) and env.num_envs == 4 and env.seat == 1
    assert env.spec.id == "ttrsim/USA-4p-v1"
    obs, infos = env.reset(seed=0)
    for _ in range(20):
        obs, rewards, terminated, _, infos = env.step(infos["action_mask"].argmax(axis=1))
    assert obs.shape == (4, 894) and rewards.shape == terminated.shape == (4,)
    default = gym.make_vec("ttrsim/Germany-2p-v1", num_envs=2)             # the vector entry point by default
    assert isinstance(default, TicketToRideVectorEnv)
    europe = gym.make_vec("ttrsim/Europe-3p-v1", num_envs=2, opponents="planner")
    obs, infos = europe.reset(seed=0)
    for _ in range(20):
        obs, *_, infos = europe.step(infos["action_mask"].argmax(axis=1))
    assert obs.shape == (2, europe.unwrapped.layout.obs_size) and europe.single_action_space.n == 913
    for e in (env, default, europe):
        e.close()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_pettingzoo_entry_points_pass_api_test(module):
    import importlib

    from pettingzoo.test import api_test

    from ttrsim.env.aec import TicketToRideAEC

    mod = importlib.import_module(f"ttrsim.env.pettingzoo.{module}")
    env = mod.env(players=2)
    assert env.metadata["name"] == module and isinstance(mod.raw_env(players=3), TicketToRideAEC)
    assert mod.raw_env().metadata["name"] == module and TicketToRideAEC.metadata["name"] == "ttrsim_v1"
    api_test(env, num_cycles=100)


@pytest.mark.parametrize("module", ["usa_v1", "europe_v1"])
def test_pettingzoo_entry_point_passes_seed_test(module):
    import importlib

    from pettingzoo.test import seed_test

    mod = importlib.import_module(f"ttrsim.env.pettingzoo.{module}")
    seed_test(lambda: mod.env(players=3), num_cycles=100)


# --------------------------------------------------------------------------- bad input to the vector env
# as tests/env/test_env_bad.py's catalogue: (id, env state or None for a constructor, call(env, a) with a a legal
# action of slot 0, error, its exact one-line message); a refused call moves nothing and the env plays on
SEED = "seed must be an integer 0 to 2**63 - 1, got "
SEEDS = "seed must be 2 integers 0 to 2**63 - 1, one per game, got "
ACTIONS = "actions must be 2 integers (env actions), got "


def _gvec(**kw):
    return gym_vector_env(2, "usa", players=2, **kw)


GVEC_CASES = [
    ("gvec_seed_float", "gvec", lambda e, a: e.reset(seed=1.5), TypeError, SEED + "1.5"),
    ("gvec_seed_numpy_float", "gvec", lambda e, a: e.reset(seed=np.float64(2)), TypeError, SEED + repr(np.float64(2))),
    ("gvec_seed_too_big", "gvec", lambda e, a: e.reset(seed=2 ** 63), ValueError, SEED + str(2 ** 63)),
    ("gvec_seed_negative", "gvec", lambda e, a: e.reset(seed=-1), ValueError, SEED + "-1"),
    ("gvec_seed_text", "gvec", lambda e, a: e.reset(seed="abc"), TypeError, SEED + "'abc'"),
    ("gvec_seed_bool", "gvec", lambda e, a: e.reset(seed=True), TypeError, SEED + "True"),
    ("gvec_seeds_count", "gvec", lambda e, a: e.reset(seed=[1]), ValueError, SEEDS + "1 value"),
    ("gvec_seeds_float", "gvec", lambda e, a: e.reset(seed=[1.5, 2]), TypeError, SEEDS + "1.5 at index 0"),
    ("gvec_seeds_too_big", "gvec", lambda e, a: e.reset(seed=np.array([1, 2 ** 64 - 1], np.uint64)), ValueError,
     SEEDS + str(2 ** 64 - 1)),
    ("gvec_options_text", "gvec", lambda e, a: e.reset(seed=1, options="fast"), TypeError,
     "options must be a dict or None, got 'fast'"),
    ("gvec_actions_floats", "gvec", lambda e, a: e.step([a + 0.9, a]), TypeError, ACTIONS + "{a9} at index 0"),
    ("gvec_actions_float_array", "gvec", lambda e, a: e.step(np.array([a, a], np.float32)), TypeError,
     ACTIONS + "float32 values"),
    ("gvec_actions_bool_array", "gvec", lambda e, a: e.step(np.ones(2, bool)), TypeError, ACTIONS + "boolean values"),
    ("gvec_actions_count", "gvec", lambda e, a: e.step([a]), ValueError, ACTIONS + "1 value"),
    ("gvec_actions_shape", "gvec", lambda e, a: e.step(np.array([[a], [a]])), ValueError,
     "actions must be 2 integers (env actions) (an array of shape (2,)), got shape (2, 1)"),
    ("gvec_actions_none", "gvec", lambda e, a: e.step(None), TypeError, ACTIONS + "None"),
    ("gvec_step_before_reset", "gvec_new", lambda e, a: e.step([0, 0]), RuntimeError,
     "reset() needs to be called before step"),
    ("gvec_num_envs_zero", None, lambda e, a: gym_vector_env(0), ValueError,
     "num_envs must be an integer 1 to 65536, got 0"),
    ("gvec_num_envs_float", None, lambda e, a: gym_vector_env(4.0), TypeError,
     "num_envs must be an integer 1 to 65536, got 4.0"),
    ("gvec_players_six", None, lambda e, a: gym_vector_env(2, "usa", players=6), ValueError,
     "players must be an integer 2 to 5 (R1.2), got 6"),
    ("gvec_seat_out_of_range", None, lambda e, a: _gvec(seat=2), ValueError, "seat must be an integer 0 to 1, got 2"),
    ("gvec_seats_count", None, lambda e, a: _gvec(seat=[0, 1, 1]), ValueError,
     "seat must be 2 integers 0 to 1, one per game, got 3 values"),
    ("gvec_seats_out_of_range", None, lambda e, a: _gvec(seat=[0, 2]), ValueError,
     "seat must be 2 integers 0 to 1, one per game, got 2"),
    ("gvec_opponents_count", None, lambda e, a: _gvec(opponents=["random"] * 3), ValueError,
     "give one opponent strategy or one per seat (2), got 3"),
    ("gvec_illegal_reward_nan", None, lambda e, a: _gvec(illegal_reward=float("nan")), ValueError,
     "illegal_reward must be a finite number, got nan"),
    ("gvec_reward_unknown", None, lambda e, a: _gvec(reward="points"), ValueError,
     "reward must be one of win, margin, got 'points'"),
    ("gvec_copy_text", None, lambda e, a: _gvec(copy="yes"), TypeError, "copy must be True or False, got 'yes'"),
    ("gvec_render_mode", None, lambda e, a: TicketToRideVectorEnv(2, "usa", 2, render_mode="human"), ValueError,
     "render_mode must be None for the vector env, got 'human'; render a game with Game.render"),
    ("make_vec_unknown_kwarg", None, lambda e, a: gym.make_vec("ttrsim/USA-2p-v1", num_envs=2, opponent="greedy"),
     TypeError, "TicketToRideVectorEnv.__init__() got an unexpected keyword argument 'opponent'"),
]


@pytest.mark.parametrize("name, state, call, error, message", GVEC_CASES, ids=[c[0] for c in GVEC_CASES])
def test_bad_input_to_the_vector_env_is_refused_in_one_line_and_it_plays_on(name, state, call, error, message):
    env = None
    if state:
        env = _gvec()
        if state == "gvec":
            env.reset(seed=3)
    a = int(env.batch.mask[0].argmax()) if state == "gvec" else 0
    before = None if env is None else (env.batch.obs.tobytes(), env.batch.mask.tobytes(), env.seeds.tolist(),
                                       env._started)
    with pytest.raises(error) as e:
        call(env, a)
    expected = message.format(a=a, a9=a + 0.9)
    assert str(e.value) == expected and "\n" not in expected
    if env is not None:
        assert (env.batch.obs.tobytes(), env.batch.mask.tobytes(), env.seeds.tolist(), env._started) == before
        if not env._started:
            env.reset(seed=1)
        _, _, terminated, _, _ = env.step(env.action_masks().argmax(axis=1))
        assert terminated.shape == (2,)


def test_gymnasium_vector_wrappers_record_its_episodes():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(gym.make_vec("ttrsim/USA-2p-v1", num_envs=3, opponents="greedy"))
    _, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, recorded = np.zeros(3, int), 0
    while recorded < 3:
        _, rewards, terminated, _, infos = env.step(_random_legal(infos["action_mask"], rng))
        steps += 1
        if terminated.any():                    # same-step autoreset: the wrapper sees each game's end once
            ended = infos["_episode"]
            assert (ended == terminated).all()
            assert (infos["episode"]["r"][ended] == rewards[ended]).all()    # the reward comes at the end
            assert (infos["episode"]["l"][ended] == steps[ended]).all()
            steps[ended] = 0
            recorded += int(ended.sum())
