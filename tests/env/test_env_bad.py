"""The catalogue of bad input to the environments (ttrsim.env): each case is
a call on an env in a given state (none: a constructor), the exception type
and its exact one-line message; the env is unchanged by the refused call and
still plays afterwards. Integers, numpy's included, are taken everywhere an
int is and play the same games as Python ints; floats, booleans, text and
out-of-range values are refused, never rounded or wrapped (issue 30)."""
import numpy as np
import pytest

from ttrsim.data.rules import get_rules
from ttrsim.env import PolicyStrategy, VectorEnv, aec_env, gym_env, random_actions
from ttrsim.env.checks import MAX_ENVS, SEED_MAX
from ttrsim.play.game import IllegalAction
from ttrsim.play.pyplay import play
from ttrsim.strategies import STRATEGY_NAMES

SEED = "seed must be an integer 0 to 2**63 - 1, got "
SEEDS = "seeds must be 2 integers 0 to 2**63 - 1, one per game, got "
ACTIONS = "actions must be 2 integers 0 to 526 (env actions), got "
AEC_ACTION = "action of player_0 must be an integer (an env action of its action_mask), got "
GYM_ACTION = "action must be an integer (an env action of info['action_mask']), got "
DONE = "the game is over and every agent has stepped with None: call reset() for the next"


def first_legal(mask) -> int:
    return int(np.flatnonzero(mask)[0])


def aec_mask(env):
    return env.observe(env.agent_selection)["action_mask"]


def aec_over(env):
    """Play the AEC game to its end (every agent then done, none stepped out)."""
    while not env.game.over:
        env.step(first_legal(aec_mask(env)))
    return env


def aec_out(env):
    """The AEC game over and every agent stepped out with None."""
    aec_over(env)
    while env.agents:
        env.step(None)
    return env


def gym_over(env):
    """The Gymnasium episode ended by an illegal action."""
    _, info = env.reset(seed=3)
    env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    return env


def started(name):
    """The env of state ``name``."""
    if name.startswith("aec"):
        env = aec_env("usa", 2, render_mode="ansi")
        if name != "aec_new":
            env.reset(seed=3)
        return aec_over(env) if name == "aec_over" else aec_out(env) if name == "aec_out" else env
    if name.startswith("gym"):
        env = gym_env("usa", 2, render_mode="ansi")
        if name == "gym":
            env.reset(seed=3)
        return gym_over(env) if name == "gym_over" else env
    env = VectorEnv("usa", 2, n_envs=2)
    if name == "vec":
        env.reset([3, 4])
    return env


def legal(env) -> int:
    """A legal action of the env's next step (the first seat of a VectorEnv)."""
    if hasattr(env, "agent_selection"):
        return first_legal(aec_mask(env))
    if hasattr(env, "n_envs"):
        return first_legal(env.mask[0])
    return first_legal(env.action_masks())


def position(g) -> bytes:
    """The game's position (the Gymnasium env moves it without a history)."""
    s = g.state
    return b"".join(a.tobytes() for a in (s.meta, s.hand, s.route_owner, s.deck, s.faceup, s.ticket_holder, s.offer))


def snapshot(env):
    """What a refused call must leave as it was."""
    if hasattr(env, "n_envs"):
        return env.obs.tobytes(), env.mask.tobytes(), env.seeds.tolist(), env._started
    g = env.game
    state = None if g is None else (g.seed, list(g.history), position(g))
    if hasattr(env, "possible_agents"):
        return state, list(getattr(env, "agents", [])), getattr(env, "agent_selection", None)
    return state, env._illegal


def plays_on(env) -> None:
    """The env still plays: a reset where needed, then a legal step."""
    if hasattr(env, "n_envs"):
        if not env._started:
            env.reset([1, 2])
        env.step(random_actions(env.mask, np.random.default_rng(0)))
    elif hasattr(env, "possible_agents"):
        if env.game is None or env.game.over:
            env.reset(seed=1)
        env.last()
        env.step(legal(env))
    else:
        if env.game is None or env.game.over or env._illegal:
            env.reset(seed=1)
        env.step(legal(env))


# (id, env state or None for a constructor, call(env, a) with a a legal action, error, message)
CASES = [
    # the AEC env: actions
    ("aec_step_float", "aec", lambda e, a: e.step(a + 0.9), TypeError, AEC_ACTION + "{a9}"),
    ("aec_step_numpy_float", "aec", lambda e, a: e.step(np.float64(a)), TypeError, AEC_ACTION + "{f64}"),
    ("aec_step_none_live", "aec", lambda e, a: e.step(None), TypeError, AEC_ACTION + "None"),
    ("aec_step_bool", "aec", lambda e, a: e.step(True), TypeError, AEC_ACTION + "True"),
    ("aec_step_text", "aec", lambda e, a: e.step(str(a)), TypeError, AEC_ACTION + "'{a}'"),
    ("aec_step_out_of_range", "aec", lambda e, a: e.step(10 ** 20), ValueError,
     ("action 100000000000000000000 is not legal for player_0 (phase setup-keep); "
      "expected an action of its action_mask")),
    ("aec_step_numpy_out_of_range", "aec", lambda e, a: e.step(np.uint16(600)), ValueError,
     "action 600 is not legal for player_0 (phase setup-keep); expected an action of its action_mask"),
    ("aec_step_negative", "aec", lambda e, a: e.step(-1), ValueError,
     "action -1 is not legal for player_0 (phase setup-keep); expected an action of its action_mask"),
    # the AEC env: seeds and the other arguments
    ("aec_seed_float", "aec", lambda e, a: e.reset(seed=1.5), TypeError, SEED + "1.5"),
    ("aec_seed_numpy_float", "aec", lambda e, a: e.reset(seed=np.float32(2)), TypeError, SEED + repr(np.float32(2))),
    ("aec_seed_too_big", "aec", lambda e, a: e.reset(seed=2 ** 80), ValueError, SEED + str(2 ** 80)),
    ("aec_seed_2_63", "aec", lambda e, a: e.reset(seed=2 ** 63), ValueError, SEED + str(2 ** 63)),
    ("aec_seed_uint64_too_big", "aec", lambda e, a: e.reset(seed=np.uint64(2 ** 64 - 1)), ValueError,
     SEED + str(2 ** 64 - 1)),
    ("aec_seed_negative", "aec", lambda e, a: e.reset(seed=-1), ValueError, SEED + "-1"),
    ("aec_seed_text", "aec", lambda e, a: e.reset(seed="abc"), TypeError, SEED + "'abc'"),
    ("aec_seed_bool", "aec", lambda e, a: e.reset(seed=True), TypeError, SEED + "True"),
    ("aec_options_text", "aec", lambda e, a: e.reset(seed=1, options="fast"), TypeError,
     "options must be a dict or None, got 'fast'"),
    ("aec_observe_unknown_agent", "aec", lambda e, a: e.observe("player_7"), ValueError,
     "no agent 'player_7'; expected one of player_0, player_1"),
    # the AEC env: out of order
    ("aec_step_before_reset", "aec_new", lambda e, a: e.step(0), RuntimeError,
     "reset() needs to be called before step"),
    ("aec_last_before_reset", "aec_new", lambda e, a: e.last(), RuntimeError, "reset() needs to be called before last"),
    ("aec_observe_before_reset", "aec_new", lambda e, a: e.observe("player_0"), RuntimeError,
     "reset() needs to be called before observe"),
    ("aec_agent_iter_before_reset", "aec_new", lambda e, a: e.agent_iter(), RuntimeError,
     "reset() needs to be called before agent_iter"),
    ("aec_render_before_reset", "aec_new", lambda e, a: e.render(), RuntimeError,
     "reset() needs to be called before render"),
    ("aec_step_done_agent_with_an_action", "aec_over", lambda e, a: e.step(0), ValueError,
     "{agent} is done (the game is over): its only action is None, got 0"),
    ("aec_step_after_every_agent_is_out", "aec_out", lambda e, a: e.step(None), RuntimeError, DONE),
    ("aec_last_after_every_agent_is_out", "aec_out", lambda e, a: e.last(), RuntimeError, DONE),
    # the Gymnasium env
    ("gym_step_float", "gym", lambda e, a: e.step(a + 0.9), TypeError, GYM_ACTION + "{a9}"),
    ("gym_step_numpy_float", "gym", lambda e, a: e.step(np.float64(a)), TypeError, GYM_ACTION + "{f64}"),
    ("gym_step_none", "gym", lambda e, a: e.step(None), TypeError, GYM_ACTION + "None"),
    ("gym_step_bool", "gym", lambda e, a: e.step(np.True_), TypeError, GYM_ACTION + repr(np.True_)),
    ("gym_step_array", "gym", lambda e, a: e.step(np.array([a])), TypeError, GYM_ACTION + "array([{a}])"),
    ("gym_seed_float", "gym", lambda e, a: e.reset(seed=1.5), TypeError, SEED + "1.5"),
    ("gym_seed_too_big", "gym", lambda e, a: e.reset(seed=2 ** 80), ValueError, SEED + str(2 ** 80)),
    ("gym_seed_negative", "gym", lambda e, a: e.reset(seed=-3), ValueError, SEED + "-3"),
    ("gym_seed_text", "gym", lambda e, a: e.reset(seed="abc"), TypeError, SEED + "'abc'"),
    ("gym_options_list", "gym", lambda e, a: e.reset(options=[1]), TypeError,
     "options must be a dict or None, got [1]"),
    ("gym_step_before_reset", "gym_new", lambda e, a: e.step(0), RuntimeError,
     "reset() needs to be called before step"),
    ("gym_render_before_reset", "gym_new", lambda e, a: e.render(), RuntimeError,
     "reset() needs to be called before render"),
    ("gym_step_after_the_episode", "gym_over", lambda e, a: e.step(0), RuntimeError,
     "the episode is over: call reset() to start the next"),
    ("gym_seat_float", None, lambda e, a: gym_env("usa", 2, seat=1.0), TypeError,
     "seat must be an integer 0 to 1, got 1.0"),
    ("gym_seat_bool", None, lambda e, a: gym_env("usa", 2, seat=True), TypeError,
     "seat must be an integer 0 to 1, got True"),
    ("gym_seat_out_of_range", None, lambda e, a: gym_env("usa", 3, seat=np.int64(3)), ValueError,
     "seat must be an integer 0 to 2, got 3"),
    ("gym_illegal_reward_nan", None, lambda e, a: gym_env("usa", 2, illegal_reward=float("nan")), ValueError,
     "illegal_reward must be a finite number, got nan"),
    ("gym_illegal_reward_inf", None, lambda e, a: gym_env("usa", 2, illegal_reward=-np.inf), ValueError,
     "illegal_reward must be a finite number, got -inf"),
    ("gym_illegal_reward_text", None, lambda e, a: gym_env("usa", 2, illegal_reward="-1"), TypeError,
     "illegal_reward must be a finite number, got '-1'"),
    ("gym_illegal_reward_bool", None, lambda e, a: gym_env("usa", 2, illegal_reward=False), TypeError,
     "illegal_reward must be a finite number, got False"),
    ("gym_opponents_int", None, lambda e, a: gym_env("usa", 2, opponents=5), TypeError,
     "opponents must be a strategy name or a list of one per seat (2), got 5"),
    ("gym_opponents_none", None, lambda e, a: gym_env("usa", 2, opponents=None), TypeError,
     "opponents must be a strategy name or a list of one per seat (2), got None"),
    ("gym_opponents_count", None, lambda e, a: gym_env("usa", 2, opponents=["random"] * 3), ValueError,
     "give one opponent strategy or one per seat (2), got 3"),
    ("gym_opponents_item", None, lambda e, a: gym_env("usa", 2, opponents=("random", 3)), TypeError,
     "opponents[1] must be a strategy name, got 3"),
    ("gym_opponents_unknown", None, lambda e, a: gym_env("usa", 2, opponents="nope"), ValueError,
     f"unknown strategy 'nope'; expected one of: {', '.join(STRATEGY_NAMES)}"),
    ("gym_render_mode_unknown", None, lambda e, a: gym_env("usa", 2, render_mode="human"), ValueError,
     "render_mode must be one of ['ansi', 'rgb_array'] or None, got 'human'"),
    # the batch env
    ("vec_seeds_floats", "vec", lambda e, a: e.reset([1.9, 2.0]), TypeError, SEEDS + "1.9 at index 0"),
    ("vec_seeds_float_array", "vec", lambda e, a: e.reset(np.array([1.0, 2.0])), TypeError, SEEDS + "float64 values"),
    ("vec_seeds_too_big", "vec", lambda e, a: e.reset([1, 2 ** 80]), ValueError, SEEDS + str(2 ** 80)),
    ("vec_seeds_2_63", "vec", lambda e, a: e.reset([2 ** 63, 1]), ValueError, SEEDS + str(2 ** 63)),
    ("vec_seeds_uint64_too_big", "vec", lambda e, a: e.reset(np.array([1, 2 ** 64 - 1], np.uint64)), ValueError,
     SEEDS + str(2 ** 64 - 1)),
    ("vec_seeds_negative", "vec", lambda e, a: e.reset(np.array([-1, 2])), ValueError, SEEDS + "-1"),
    ("vec_seeds_bools", "vec", lambda e, a: e.reset([True, False]), TypeError, SEEDS + "True at index 0"),
    ("vec_seeds_text", "vec", lambda e, a: e.reset(["abc", 1]), TypeError, SEEDS + "'abc' at index 0"),
    ("vec_seeds_none", "vec", lambda e, a: e.reset(None), TypeError, SEEDS + "None"),
    ("vec_seeds_count", "vec", lambda e, a: e.reset([1, 2, 3]), ValueError, SEEDS + "3 values"),
    ("vec_seeds_shape", "vec", lambda e, a: e.reset(np.array([[1], [2]])), ValueError,
     "seeds must be 2 integers 0 to 2**63 - 1, one per game (an array of shape (2,)), got shape (2, 1)"),
    ("vec_actions_floats", "vec", lambda e, a: e.step([a + 0.9, a]), TypeError, ACTIONS + "{a9} at index 0"),
    ("vec_actions_float_array", "vec", lambda e, a: e.step(np.array([a, a], np.float32)), TypeError,
     ACTIONS + "float32 values"),
    ("vec_actions_bool_array", "vec", lambda e, a: e.step(np.ones(2, bool)), TypeError, ACTIONS + "boolean values"),
    ("vec_actions_shape", "vec", lambda e, a: e.step(np.array([[a], [a]])), ValueError,
     "actions must be 2 integers 0 to 526 (env actions) (an array of shape (2,)), got shape (2, 1)"),
    ("vec_actions_count", "vec", lambda e, a: e.step([a]), ValueError, ACTIONS + "1 value"),
    ("vec_actions_out_of_range", "vec", lambda e, a: e.step(np.array([a, 527])), ValueError, ACTIONS + "527"),
    ("vec_actions_uint64_too_big", "vec", lambda e, a: e.step(np.array([a, 2 ** 64 - 1], np.uint64)), ValueError,
     ACTIONS + str(2 ** 64 - 1)),
    ("vec_step_before_reset", "vec_new", lambda e, a: e.step([0, 0]), RuntimeError,
     "reset(seeds) needs to be called before step"),
    ("vec_n_envs_zero", None, lambda e, a: VectorEnv("usa", 2, n_envs=0), ValueError,
     f"n_envs must be an integer 1 to {MAX_ENVS}, got 0"),
    ("vec_n_envs_too_many", None, lambda e, a: VectorEnv("usa", 2, n_envs=10 ** 9), ValueError,
     f"n_envs must be an integer 1 to {MAX_ENVS}, got 1000000000"),
    ("vec_n_envs_float", None, lambda e, a: VectorEnv("usa", 2, n_envs=4.0), TypeError,
     f"n_envs must be an integer 1 to {MAX_ENVS}, got 4.0"),
    ("vec_buffer_unknown", None, lambda e, a: VectorEnv("usa", 2, n_envs=2, observations=None), ValueError,
     "unknown buffer 'observations'; expected some of obs, mask, rewards, dones, to_act, n_legal, final"),
    ("vec_buffer_shape", None, lambda e, a: VectorEnv("usa", 2, n_envs=2, obs=np.zeros((2, 3), np.float32)),
     ValueError, "buffer obs must be a C-contiguous float32 array of shape (2, 682)"),
    ("random_actions_int64_mask", "vec", lambda e, a: random_actions(e.mask.astype(np.int64), np.random.default_rng()),
     TypeError, "mask must be a 2-d int8, uint8 or bool array (VectorEnv.mask), got int64 of shape (2, 527)"),
    ("random_actions_row_without_action", "vec",
     lambda e, a: random_actions(np.array([[1, 0], [0, 0]], np.int8), np.random.default_rng()), ValueError,
     "row 1 of mask has no legal action; expected at least one per row"),
    ("random_actions_seed_for_rng", "vec", lambda e, a: random_actions(e.mask, 0), TypeError,
     "rng must be a numpy Generator (np.random.default_rng(seed)), got 0"),
    ("random_actions_counts", "vec", lambda e, a: random_actions(e.mask, np.random.default_rng(), [1, 1]), ValueError,
     "counts must be 2 integers (the ones per row of mask), got [1, 1]"),
]
# every constructor: rules, players, overrides, reward
MAKERS = {"vec": lambda **kw: VectorEnv(n_envs=2, **kw), "aec": aec_env, "gym": gym_env}
for kind, make in MAKERS.items():
    CASES += [
        (f"{kind}_players_float", None, lambda e, a, m=make: m(rules="usa", players=2.0), TypeError,
         "players must be an integer 2 to 5 (R1.2), got 2.0"),
        (f"{kind}_players_bool", None, lambda e, a, m=make: m(rules="usa", players=True), TypeError,
         "players must be an integer 2 to 5 (R1.2), got True"),
        (f"{kind}_players_text", None, lambda e, a, m=make: m(rules="usa", players="3"), TypeError,
         "players must be an integer 2 to 5 (R1.2), got '3'"),
        (f"{kind}_players_six", None, lambda e, a, m=make: m(rules="usa", players=np.int8(6)), ValueError,
         "players must be an integer 2 to 5 (R1.2), got 6"),
        (f"{kind}_rules_number", None, lambda e, a, m=make: m(rules=5, players=2), TypeError,
         "rules must be a preset name or a RuleSet, got 5"),
        (f"{kind}_rules_unknown", None, lambda e, a, m=make: m(rules="usa-2", players=2), ValueError,
         "unknown rule set 'usa-2'; did you mean 'usa'?"),
        (f"{kind}_overrides_text", None, lambda e, a, m=make: m(rules="usa", players=2, overrides="trains=20"),
         TypeError, "overrides must be a dict of rule parameters, got 'trains=20'"),
        (f"{kind}_overrides_with_a_rule_set", None,
         lambda e, a, m=make: m(rules=get_rules("usa"), players=2, overrides={"trains": 20}), ValueError,
         "overrides apply to a preset name; a RuleSet has its own (get_rules(preset, overrides))"),
        (f"{kind}_reward_unknown", None, lambda e, a, m=make: m(rules="usa", players=2, reward="points"), ValueError,
         "reward must be one of win, margin, got 'points'"),
    ]


def test_the_catalogue_covers_every_case_of_the_issue():
    ids = {c[0] for c in CASES}
    assert len(ids) == len(CASES)
    for case in ("aec_step_float", "gym_step_float", "vec_seeds_floats", "aec_seed_float", "aec_seed_too_big",
                 "aec_seed_text", "gym_seed_too_big", "vec_seeds_too_big", "aec_step_after_every_agent_is_out",
                 "aec_step_before_reset", "gym_illegal_reward_nan", "vec_actions_float_array", "vec_actions_shape",
                 "vec_players_float", "gym_opponents_int", "aec_rules_number"):
        assert case in ids


@pytest.mark.parametrize("name, state, call, error, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_one_line_and_the_env_plays_on(name, state, call, error, message):
    env = started(state) if state else None
    a = legal(env) if state in ("aec", "gym", "vec") else 0
    before = snapshot(env) if env is not None else None
    with pytest.raises(error) as e:
        call(env, a)
    expected = message.format(a=a, a9=a + 0.9, agent=getattr(env, "agent_selection", ""),
                              f64=repr(np.float64(a)))   # np.float64(14.0) with numpy 2, 14.0 with 1.x
    assert str(e.value) == expected and "\n" not in expected
    if env is not None:
        assert snapshot(env) == before           # nothing moved
        plays_on(env)


def test_a_policy_returning_a_float_or_a_boolean_is_reported():
    for raw in (1.0, True):
        with pytest.raises(IllegalAction, match=rf"returned {raw!r} at turn 0; expected an env action of its mask"):
            play("usa", 2, seed=1, seats=[PolicyStrategy(lambda obs, mask, r=raw: r), "random"])


# --- numpy integers are taken everywhere an int is, and play the same games ------------------------

INT_TYPES = [int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("kind", INT_TYPES, ids=lambda t: t.__name__)
def test_numpy_integers_play_the_games_python_ints_play(kind):
    env = aec_env("usa", kind(2))
    env.reset(seed=kind(5))
    ref = aec_env("usa", 2)
    ref.reset(seed=5)
    for _ in range(40):
        a = first_legal(aec_mask(ref))
        env.step(kind(a))
        ref.step(a)
    assert env.game.seed == 5 and type(env.game.seed) is int and env.game.history == ref.game.history

    gym, gym_ref = gym_env("usa", kind(3), seat=kind(1), opponents="greedy"), gym_env("usa", 3, seat=1,
                                                                                     opponents="greedy")
    (_, info), (_, info_ref) = gym.reset(seed=kind(7)), gym_ref.reset(seed=7)
    for _ in range(20):
        a = first_legal(info_ref["action_mask"])
        obs, *_, info = gym.step(kind(a))
        obs_ref, *_, info_ref = gym_ref.step(a)
        assert (obs == obs_ref).all() and (info["action_mask"] == info_ref["action_mask"]).all()
    assert position(gym.game) == position(gym_ref.game) and gym.game.turn > 0

    vec, vec_ref = VectorEnv("usa", kind(2), n_envs=kind(2)), VectorEnv("usa", 2, n_envs=2)
    dtype = np.int64 if kind is int else kind
    vec.reset(np.array([3, 4], dtype))
    vec_ref.reset([3, 4])
    rng = np.random.default_rng(0)
    wide = dtype if np.iinfo(dtype).max >= vec.layout.n_actions else np.int16      # (int8 holds no action 527)
    for _ in range(20):
        actions = random_actions(vec_ref.mask, rng)
        vec.step(actions.astype(wide))
        vec_ref.step(actions.tolist())
    assert (vec.obs == vec_ref.obs).all() and vec.seeds.tolist() == [3, 4]


def test_a_zero_dim_integer_array_is_an_integer():
    env, ref = gym_env("usa", 2), gym_env("usa", 2)
    (_, info), _ = env.reset(seed=np.array(3)), ref.reset(seed=3)
    a = first_legal(info["action_mask"])
    env.step(np.array(a))
    ref.step(a)
    assert position(env.game) == position(ref.game) and env.game.seed == 3


def test_the_largest_seed_plays_and_the_next_slot_seed_wraps_to_zero():
    env = aec_env("usa", 2)
    env.reset(seed=np.uint64(SEED_MAX))
    assert env.game.seed == SEED_MAX
    vec = VectorEnv("usa", 2, n_envs=2)
    vec.reset([SEED_MAX, 0])
    rng = np.random.default_rng(1)
    while not vec.dones[0]:
        vec.step(random_actions(vec.mask, rng))
    assert vec.seeds[0] == 1                    # SEED_MAX + 2 past 2**63 - 1: on from 0
    fresh = VectorEnv("usa", 2, n_envs=2)
    fresh.reset([1, 5])
    assert (vec.obs[0] == fresh.obs[0]).all()


def test_aec_done_agents_step_out_with_none_then_reset_deals_again():
    env = aec_env("usa", 2)
    env.reset(seed=2)
    aec_over(env)
    assert all(env.terminations.values())
    for _agent in env.agent_iter():
        assert env.last()[2]                    # terminated
        env.step(None)
    assert env.agents == []
    env.reset(seed=4)
    assert env.agents == ["player_0", "player_1"] and not env.game.over
