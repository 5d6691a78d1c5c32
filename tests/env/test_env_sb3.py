"""The SB3 VecEnv adapter of the compiled batch (ttrsim.env.sb3, issue 33):
it steps the games of the Gymnasium vector env with SB3's autoreset
convention, and sb3-contrib's MaskablePPO trains on it. Skipped, with the
reason, where sb3-contrib (and PyTorch) is not installed: ttrsim does not
depend on them."""
import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (pip install sb3-contrib; it brings PyTorch)")

from ttrsim.env import gym_vector_env, random_actions
from ttrsim.env.sb3 import TicketToRideSB3VecEnv


def test_the_adapter_plays_the_vector_env_games_with_sb3_autoreset():
    n = 3
    sb3 = TicketToRideSB3VecEnv(n, "usa", players=2, opponents="greedy")
    twin = gym_vector_env(n, "usa", players=2, opponents="greedy")
    sb3.seed(7)
    obs = sb3.reset()
    twin_obs, infos = twin.reset(seed=7)
    assert (obs == twin_obs).all() and sb3.observation_space == twin.single_observation_space
    rng = np.random.default_rng(0)
    ended = 0
    while ended < n:
        masks = np.stack(sb3.env_method("action_masks"))
        assert (masks == infos["action_mask"].astype(bool)).all()
        actions = random_actions(masks, rng)
        obs, rewards, dones, sb3_infos = sb3.step(actions)
        twin_obs, twin_rewards, terminated, _, infos = twin.step(actions)
        assert (obs == twin_obs).all() and (rewards == twin_rewards).all() and (dones == terminated).all()
        for i in np.flatnonzero(dones):
            assert (sb3_infos[i]["terminal_observation"] == infos["final_obs"][i]).all()
            assert (sb3_infos[i]["final"] == infos["final_info"]["final"][i]).all()
            ended += 1
        assert all(not sb3_infos[i] for i in np.flatnonzero(~dones))
    with pytest.raises(AttributeError, match="action_masks"):
        sb3.env_method("render")


def test_maskable_ppo_learns_on_the_batch_env():
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    torch.set_num_threads(1)                       # (the CI machine has 2 cores)
    env = TicketToRideSB3VecEnv(8, "usa", players=2, opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.set_logger(Logger(None, []))       # (SB3's default logger makes a folder in the temp dir)
    model.learn(512)
    assert model.num_timesteps >= 512
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[np.arange(8), actions].all()       # it picks legal actions
    env.close()


def test_the_packaged_ppo_example_trains_and_saves_its_curve_and_policy(tmp_path):
    """``python -m ttrsim.examples.train_ppo`` for two PPO updates of 8 games,
    then one more with ``--resume``: curve.csv has a row per checkpoint (win
    rates in 0..1 inside their intervals), policy.zip loads and seats as a
    PolicyStrategy; it leaves no logger folder in the temp dir."""
    import csv
    import tempfile
    from pathlib import Path

    from ttrsim.env import PolicyStrategy
    from ttrsim.examples import train_ppo
    from ttrsim.play.pyplay import play

    args = ["--envs", "8", "--n-steps", "32", "--batch-size", "64", "--epochs", "1", "--eval-every", "256",
            "--eval-pairs", "2", "--final-pairs", "3", "--out", str(tmp_path)]
    sb3_folders = set(Path(tempfile.gettempdir()).glob("SB3-*"))
    train_ppo.main(["--steps", "512", *args])
    train_ppo.main(["--steps", "768", "--resume", *args])
    assert set(Path(tempfile.gettempdir()).glob("SB3-*")) == sb3_folders
    with open(tmp_path / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["steps"]) for r in rows] == [0, 256, 512, 768]
    assert [r["games"] for r in rows] == ["4", "4", "6", "6"]                 # the last of each run: --final-pairs
    assert 0 < float(rows[2]["train_cpu_s"]) < float(rows[3]["train_cpu_s"])
    for r in rows:
        for name in train_ppo.OPPONENTS:
            assert 0 <= float(r[f"win_{name}_lo"]) <= float(r[f"win_{name}"]) <= float(r[f"win_{name}_hi"]) <= 1
    game = play("usa", 2, seed=3, seats=[PolicyStrategy(train_ppo.load_policy(tmp_path / "policy.zip")), "greedy"])
    assert game.over
