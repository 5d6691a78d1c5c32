"""The environments of ttrsim.env (docs/env.md): the tensors match the engine
(mask = legal actions, observation within its bounds and fair), the batch env,
the PettingZoo AEC env, Game and a seated policy play identical games from the
same seeds and actions, PettingZoo's api_test and seed_test and Gymnasium's
check_env pass for every preset, Europe's included (tunnels, ferries and
stations, R8), and a board renders (bad input: tests/env/test_env_bad.py)."""
from pathlib import Path

import numpy as np
import pytest

from ttrsim.core.actions import A_CLAIM, claims_end, decode_claim
from ttrsim.core.engine import is_legal
from ttrsim.core.state import M_DECK_N, M_PHASE, M_TUNNEL_EXTRA, M_TUNNEL_ROUTE, PH_TUNNEL, copy_state
from ttrsim.data.rules import preset_names
from ttrsim.env import PolicyStrategy, VectorEnv, random_actions
from ttrsim.env.encoding import Layout, encode_obs, env_action, to_engine, write_mask
from ttrsim.play.game import Game, IllegalAction
from ttrsim.play.pyplay import play

PRESETS = preset_names()
assert "europe" in PRESETS


def first_legal(obs, mask):
    return int(np.flatnonzero(mask)[-1])


class LastLegal(PolicyStrategy):
    """A policy seat for experiments (no constructor arguments)."""

    def __init__(self):
        super().__init__(first_legal)


@pytest.mark.parametrize("rules", PRESETS)
def test_mask_is_the_legal_actions_and_obs_in_bounds(rules):
    g = Game(rules, 3, seed=5)
    lay = Layout(g.board, 3)
    obs, mask = lay.empty_obs(), lay.empty_mask()
    rng = np.random.default_rng(0)
    while not g.over:
        for seat in range(3):
            encode_obs(g.board, g.state, seat, lay.lay, obs)
            assert (obs >= 0).all() and (obs <= lay.obs_high).all()
        n = write_mask(g.board, g.state, lay.lay, lay.route_act, lay.legal, mask)
        legal = set(g.legal_actions())
        acts = np.flatnonzero(mask)
        assert n == len(acts) > 0
        engine = {int(to_engine(g.board, g.state, lay.act_engine, a)) for a in acts}
        assert engine <= legal                      # every env action is a legal engine action
        assert {int(env_action(g.board, lay.lay, lay.route_act, e)) for e in legal} == set(acts.tolist())
        assert all(env_action(g.board, lay.lay, lay.route_act, to_engine(g.board, g.state, lay.act_engine, a)) == a
                   for a in acts)                   # the codec round-trips
        g.apply(int(to_engine(g.board, g.state, lay.act_engine, int(rng.choice(acts)))))


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("players", [2, 5])
def test_the_mask_found_route_by_route_is_the_mask_of_the_legal_list(rules, players):
    """R4 (claims): in the main phase write_mask finds the claims per route and
    pay colour (claim_routes, colour_pays); it gives exactly the mask of every
    legal engine action (mask_of over legal_actions), in claim-heavy random games."""
    from ttrsim.core.engine import legal_actions
    from ttrsim.env.encoding import mask_of
    for seed in range(2):
        g = Game(rules, players, seed=seed)
        lay = Layout(g.board, players)
        fast, listed = lay.empty_mask(), lay.empty_mask()
        rng = np.random.default_rng(seed)
        while not g.over:
            n = write_mask(g.board, g.state, lay.lay, lay.route_act, lay.legal, fast)
            assert n == mask_of(g.board, lay.lay, lay.route_act, lay.legal,
                                legal_actions(g.board, g.state, lay.legal), listed)
            assert (fast == listed).all()
            acts = np.flatnonzero(fast)
            claims = acts[acts >= lay.a_claim]
            a = rng.choice(claims if len(claims) and rng.random() < 0.5 else acts)
            g.apply(int(to_engine(g.board, g.state, lay.act_engine, int(a))))


def europe_games(n_games, players=3):
    """Random Europe games (stations and tunnels chosen more often than at
    random, so that every decision of R8 comes up): yields (game, layout, mask)
    at every decision."""
    for seed in range(n_games):
        g = Game("europe", players, seed=seed)
        lay = Layout(g.board, players)
        mask = lay.empty_mask()
        rng = np.random.default_rng(seed)
        while not g.over:
            write_mask(g.board, g.state, lay.lay, lay.route_act, lay.legal, mask)
            yield g, lay, mask
            acts = np.flatnonzero(mask)
            pay = acts[acts >= lay.a_claim]            # claims, a tunnel's decision, stations
            draw = acts[acts < lay.a_tickets]          # train cards: claims come with a big hand
            big = g.state.hand[g.player].sum() >= 10
            a = rng.choice(pay if len(pay) and (big or rng.random() < 0.2) else draw if len(draw) else acts)
            g.apply(int(to_engine(g.board, g.state, lay.act_engine, int(a))))


def test_europe_mask_is_the_engine_legality_and_the_codec_round_trips():
    """Every legal env action of random Europe games (claims of tunnels and
    ferries, a tunnel's pay or give up, stations) is a legal engine action
    whose env action is itself; every legal engine action has its env action
    in the mask; and every decision of R8 comes up."""
    seen = set()
    for g, lay, mask in europe_games(3):
        legal = g.legal_actions()
        acts = np.flatnonzero(mask)
        assert {int(env_action(g.board, lay.lay, lay.route_act, e)) for e in legal} == set(acts.tolist())
        for a in acts:
            e = int(to_engine(g.board, g.state, lay.act_engine, int(a)))
            assert is_legal(g.board, g.state, e) and e in legal
            assert env_action(g.board, lay.lay, lay.route_act, e) == a
            if A_CLAIM <= e < claims_end(len(g.board.route_len)):
                r, _, locos = decode_claim(e)
                seen.add("ferry" if g.board.route_ferry[r] else "tunnel claim" if g.board.route_tunnel[r] else "claim")
                assert locos >= g.board.route_ferry[r]
            else:
                seen.add(lay.action_name(int(a)))
    assert {"ferry", "tunnel claim", "tunnel pay", "tunnel give up"} <= seen
    assert any(name.startswith("station ") for name in seen)


def test_europe_observation_shows_stations_and_the_tunnel_being_decided():
    seen_tunnel = seen_station = False
    for g, lay, mask in europe_games(2):
        obs = lay.empty_obs()
        s = g.state
        encode_obs(g.board, s, g.player, lay.lay, obs)
        assert (obs >= 0).all() and (obs <= lay.obs_high).all()
        assert (lay.field(obs, "route_tunnel") == g.board.route_tunnel).all()
        assert (lay.field(obs, "route_ferry") == g.board.route_ferry).all()
        tunnel = s.meta[M_PHASE] == PH_TUNNEL
        assert lay.field(obs, "phase")[7] == tunnel
        assert lay.field(obs, "tunnel_route").sum() == tunnel == lay.field(obs, "tunnel_colour").sum()
        if tunnel:
            seen_tunnel = True
            assert lay.field(obs, "tunnel_route").argmax() == s.meta[M_TUNNEL_ROUTE]
            assert (lay.field(obs, "tunnel_held") == s.tunnel_held).all()
            shown = s.tunnel_shown[s.tunnel_shown >= 0]
            assert (lay.field(obs, "tunnel_shown") == np.bincount(shown, minlength=9)).all()
            assert lay.field(obs, "tunnel_extra")[0] == s.meta[M_TUNNEL_EXTRA] > 0
            assert set(np.flatnonzero(mask)) <= {lay.a_tunnel, lay.a_tunnel + 1} and mask[lay.a_tunnel + 1]
        else:
            assert not lay.field(obs, "tunnel_held").any() and not lay.field(obs, "tunnel_extra").any()
        stations = lay.field(obs, "stations").reshape(-1, 3)
        owner = s.station_owner
        assert (stations.sum(axis=1) == (owner >= 0)).all()
        for x in np.flatnonzero(owner >= 0):
            seen_station = True
            assert stations[x].argmax() == (owner[x] - g.player) % 3
        assert (lay.field(obs, "stations_left") == np.roll(s.stations_left, -g.player)).all()
    assert seen_tunnel and seen_station


def hides_other_seats(g, lay, seat):
    """What ``seat`` may not see (another seat's cards of the same count,
    another seat's offer, the deck's order, a ticket nobody holds) changes
    nothing in its observation; its own hand does."""
    a, b = lay.empty_obs(), lay.empty_obs()
    encode_obs(g.board, g.state, seat, lay.lay, a)
    s = copy_state(g.state)
    other, third = (seat + 1) % 3, (seat + 2) % 3
    s.hand[other] = np.roll(s.hand[other], 3)      # other cards, same count
    s.offer[third, :] = s.offer[third, ::-1]       # another offer order
    n = s.meta[M_DECK_N]                           # the deck in another order
    s.deck[:n] = s.deck[:n][::-1]
    encode_obs(g.board, s, seat, lay.lay, b)
    assert (a == b).all()
    encode_obs(g.board, s, other, lay.lay, b)
    assert (lay.field(b, "hand") == s.hand[other]).all()
    assert lay.field(a, "seat")[seat] == 1 and lay.field(b, "seat")[other] == 1


def test_observation_hides_other_seats_cards_tickets_and_offers():
    g = Game("usa", 3, seed=2)
    hides_other_seats(g, Layout(g.board, 3), 0)


def test_europe_observation_hides_what_the_seat_may_not_see():
    """Fairness on Europe at every phase, a tunnel being decided included:
    the long tickets offered to another seat, its hand (the tunnel's laid-down
    cards are public) and the deck stay hidden."""
    phases = set()
    for i, (g, lay, _) in enumerate(europe_games(1)):
        if g.phase == "tunnel" or g.phase not in phases or i % 25 == 0:
            phases.add(g.phase)
            for seat in range(3):
                hides_other_seats(g, lay, seat)
    assert {"setup-keep", "main", "tunnel"} <= phases


def play_vector(rules, players, seeds, policy=None, rng_seed=0):
    """Play the first game of every slot of a VectorEnv; (actions, finals, obs) per slot."""
    env = VectorEnv(rules, players, n_envs=len(seeds))
    obs, mask = env.reset(seeds)
    rng = np.random.default_rng(rng_seed)
    acts = [[] for _ in seeds]
    seen = [[obs[i].copy()] for i in range(len(seeds))]
    finals = [None] * len(seeds)
    while any(f is None for f in finals):
        actions = random_actions(mask, rng, env.n_legal) if policy is None else \
            np.array([policy(obs[i], mask[i]) for i in range(len(seeds))])
        obs, mask, rewards, dones = env.step(actions)
        for i in range(len(seeds)):
            if finals[i] is None:
                acts[i].append(int(actions[i]))
                if dones[i]:
                    finals[i] = (env.final[i].copy(), rewards[i].copy())
                else:
                    seen[i].append(obs[i].copy())
    return acts, finals, seen


@pytest.mark.parametrize("rules", ["usa", "europe"])
def test_batch_env_aec_env_and_game_play_identical_games(rules):
    pytest.importorskip("pettingzoo")
    from ttrsim.env import aec_env

    seeds = [11, 12, 13]
    acts, finals, seen = play_vector(rules, 3, seeds)
    env = aec_env(rules, 3, reward="win")
    for seed, actions, (final, rewards), views in zip(seeds, acts, finals, seen):
        env.reset(seed=seed)
        g = Game(rules, 3, seed)
        lay = env.layout
        for a, view in zip(actions, views):
            obs, *_ = env.last()
            assert (obs["observation"] == view).all()
            g.apply(int(to_engine(g.board, g.state, lay.act_engine, a)))
            env.step(a)
        assert g.over and env.game.over and g.history == env.game.history
        assert (g.state.final == final).all() and (env.game.state.final == final).all()
        assert [env.rewards[ag] for ag in env.possible_agents] == rewards.tolist()


@pytest.mark.parametrize("rules", ["usa", "europe"])
def test_batch_env_auto_resets_from_the_next_seed(rules):
    env = VectorEnv(rules, 2, n_envs=2)
    obs, mask = env.reset([4, 9])
    rng = np.random.default_rng(1)
    while not env.dones[0]:
        env.step(random_actions(mask, rng))
    assert env.seeds[0] == 6                    # slot 0 plays seeds 4, 6, 8, ...
    fresh = VectorEnv(rules, 2, n_envs=2)
    fresh_obs, fresh_mask = fresh.reset([6, 1])
    assert (obs[0] == fresh_obs[0]).all() and (mask[0] == fresh_mask[0]).all()


def test_batch_env_rejects_an_illegal_action_and_moves_nothing():
    env = VectorEnv("usa", 2, n_envs=2)
    obs, mask = env.reset([1, 2])
    before = obs.copy()
    bad = np.array([int(np.flatnonzero(mask[0])[0]), int(np.flatnonzero(mask[1] == 0)[0])])
    with pytest.raises(ValueError, match="not legal in game 1"):
        env.step(bad)
    assert (env.obs == before).all()
    with pytest.raises(ValueError, match="n_envs"):
        VectorEnv("usa", 2, n_envs=0)
    with pytest.raises(ValueError, match="buffer obs"):
        VectorEnv("usa", 2, n_envs=2, obs=np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="reward must be one of"):
        VectorEnv("usa", 2, n_envs=2, reward="points")


def test_batch_env_self_play_takes_each_seat_from_its_own_policy():
    """Self-play in one batch: every seat is a learner, the caller picks each
    slot's action from the policy that owns the seat to act (``env.to_act``),
    here the lowest legal action in one seat and the highest in the other,
    seats swapped between the two slots. Each slot's game is the game the two
    policies play seated as PolicyStrategy."""
    def lowest(obs, mask):
        return int(np.flatnonzero(mask)[0])

    def highest(obs, mask):
        return int(np.flatnonzero(mask)[-1])

    env = VectorEnv("usa", 2, n_envs=2)
    obs, mask = env.reset([7, 7])
    owner = np.array([[0, 1], [1, 0]])                  # owner[i, seat]: the policy of that seat in slot i
    finals = [None, None]
    while any(f is None for f in finals):
        low, high = mask.argmax(axis=1), mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)
        _, mask, _, dones = env.step(np.where(owner[np.arange(2), env.to_act] == 0, low, high))
        for i in np.flatnonzero(dones):
            if finals[i] is None:                       # the slot's first game
                finals[i] = env.final[i].copy()
    for i, policies in enumerate([(lowest, highest), (highest, lowest)]):
        g = play("usa", 2, seed=7, seats=[PolicyStrategy(p) for p in policies])
        assert (g.state.final == finals[i]).all()
    assert (finals[0] != finals[1]).any()


def test_seated_policy_plays_the_batch_env_game():
    acts, finals, _ = play_vector("usa", 2, [21], policy=first_legal)
    g = play("usa", 2, seed=21, seats=[LastLegal(), PolicyStrategy(first_legal)])
    assert (g.state.final == finals[0][0]).all() and len(g.history) == len(acts[0])


def test_policy_returning_an_illegal_action_is_reported():
    with pytest.raises(IllegalAction, match="returned -3 at turn 0"):
        play("usa", 2, seed=1, seats=[PolicyStrategy(lambda obs, mask: -3), "random"])
    with pytest.raises(ValueError, match="callable or 'module:name'"):
        PolicyStrategy("no_colon")


def test_policy_seats_in_an_experiment(tmp_path):
    from ttrsim.experiment.runner import run_experiment

    d = {"name": "policy", "rules": "usa", "players": 2, "games": 4, "seed": 1, "workers": 1,
         "lineup": [{"python": "test_env:LastLegal", "label": "last_legal"}, "random"]}
    r = run_experiment(d, output=tmp_path / "out", progress=False, echo=False)
    players = r.scan("players").collect()
    assert r.games == 4 and players.height == 8 and "last_legal" in r.summary_text


@pytest.mark.parametrize("rules", PRESETS)
def test_pettingzoo_api_test(rules):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from ttrsim.env import aec_env

    api_test(aec_env(rules, players=3), num_cycles=200)


@pytest.mark.parametrize("rules", PRESETS)
def test_pettingzoo_seed_test(rules):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import seed_test

    from ttrsim.env import aec_env

    seed_test(lambda: aec_env(rules, players=3), num_cycles=100)       # its actions are numpy integers


@pytest.mark.parametrize("rules", PRESETS)
def test_gymnasium_check_env(rules):
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from ttrsim.env import gym_env

    env = gym_env(rules, players=3, opponents="greedy")
    check_env(env, skip_render_check=True)
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert reward in (-1.0, 1.0) and "final" in info


def test_gym_env_ends_on_an_illegal_action():
    pytest.importorskip("gymnasium")
    from ttrsim.env import gym_env

    env = gym_env("usa", players=2)
    _, info = env.reset(seed=3)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, term, _, info = env.step(bad)
    assert (reward, term, info["illegal_action"]) == (-1.0, True, True)


def test_render_text_and_image(tmp_path):
    g = Game("usa", 2, seed=1)
    for _ in range(30):
        g.apply(g.legal_actions()[-1])
    assert g.render(mode="ansi").startswith("usa, 2 players, seed 1")
    img = g.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    g.render(tmp_path / "b.png")
    assert (tmp_path / "b.png").stat().st_size > 1000
    with pytest.raises(ValueError, match="render mode"):
        g.render(mode="human")


def test_play_command_draws_the_final_position(tmp_path):
    from click.testing import CliRunner

    from ttrsim.cli import main

    r = CliRunner().invoke(main, ["play", "--seed", "2", "--quiet", "--render", str(tmp_path / "b.png")])
    assert r.exit_code == 0 and (tmp_path / "b.png").stat().st_size > 1000, r.output
    r = CliRunner().invoke(main, ["play", "--quiet", "--render", str(tmp_path / "b.txt")])
    assert r.exit_code != 0 and "expected a .png, .svg or .pdf" in r.output and "Traceback" not in r.output


def test_training_example_runs_and_its_policy_seats_deterministically(tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "experiments"))
    import train_linear_policy as example

    pol = example.train(n_envs=8, batch_games=2, seconds=2, log=lambda line: None)
    pol.save(tmp_path / "w.npz")
    games = [play("usa", 2, seed=4, seats=[example.LinearPolicy(str(tmp_path / "w.npz")), "greedy"])
             for _ in range(2)]
    assert games[0].over and games[0].history == games[1].history
    with pytest.raises(ValueError, match="train them first"):
        example.LinearPolicy(str(tmp_path / "missing.npz"))


def test_training_example_copies_what_it_needs_and_runs_from_that_folder(tmp_path):
    """`ttrsim examples linear_policy --to DIR` copies the experiment, the
    policy's module and its weights; `ttrsim run` of the copy, in a process
    started away from the repository, seats the copied policy."""
    import json
    import subprocess
    import sys

    from click.testing import CliRunner

    from ttrsim.cli import main
    from ttrsim.cli.examples import examples_dir

    r = CliRunner().invoke(main, ["examples", "linear_policy", "--to", str(tmp_path / "lp"), "--json"])
    assert r.exit_code == 0, r.output
    assert sorted(Path(f).name for f in json.loads(r.stdout)["files"]) == \
        ["linear_policy.npz", "linear_policy.yaml", "train_linear_policy.py"]
    assert (tmp_path / "lp" / "linear_policy.npz").read_bytes() == (examples_dir() / "linear_policy.npz").read_bytes()
    run = subprocess.run([sys.executable, "-m", "ttrsim", "run", "lp/linear_policy.yaml", "--games", "6",
                          "--workers", "1", "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=900,
                         check=False)                   # (a generous bound: a cold cache compiles for minutes)
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)["summary"]
    assert {row["strategy"] for row in rows} == {"linear", "random", "greedy"}
    assert (tmp_path / "results" / "linear_policy").is_dir()


@pytest.mark.parametrize("width", [1, 15, 16, 17, 33, 527])
def test_random_actions_picks_the_drawn_one_of_each_row(width):
    # the compiled scan skips strides of a row by their sums: the same column as numpy's list of the ones
    rng = np.random.default_rng(width)
    mask = (rng.random((400, width)) < rng.random((400, 1))).astype(np.int8)
    mask[np.arange(400), rng.integers(width, size=400)] = 1          # every row has a legal action
    counts = mask.sum(axis=1)
    draws = np.random.default_rng(7).random(400)
    actions = random_actions(mask, np.random.default_rng(7), counts)
    nth = (draws * counts).astype(np.int64)
    assert actions.tolist() == [int(np.flatnonzero(row)[k]) for row, k in zip(mask, nth)]
    assert (mask[np.arange(400), actions] == 1).all()
