"""Train a masked PPO agent on the compiled batch env, with its learning curve.

    pip install 'ttrsim[env,train]'
    python -m ttrsim.examples.train_ppo --steps 3000000 --out ppo_run     # from a wheel
    python experiments/train_ppo.py --steps 3000000 --out ppo_run         # from a checkout

sb3-contrib's ``MaskablePPO`` learns USA, 2 players, on
:class:`ttrsim.env.sb3.TicketToRideSB3VecEnv` (every step one compiled call
over ``--envs`` games). The learner sits in seat ``i % 2`` of slot ``i``, so
it plays first and second equally often.

- **Opponents**: a curriculum (``--curriculum``, shares of the steps):
  ``random`` for the first 10%, then ``greedy`` for 20%, then ``planner``.
- **Reward**: the score margin (``reward="margin"``: own total minus the
  opponent's, at the end of the game) times 1/50, not win/loss: a lost game
  still says by how much, which gives a signal long before the learner wins
  against ``planner``. Observations are divided by their bounds
  (``layout.obs_high``), so every entry is in 0..1.
- **Learning curve**: every ``--eval-every`` steps the policy (its most
  likely legal action) plays ``--eval-pairs`` pairs of games against each of
  ``random``, ``greedy`` and ``planner``, the two games of a pair dealt from
  the same seed with the seats swapped; ``DIR/curve.csv`` gets a row (steps,
  training CPU seconds, the win rate against each with its 95% Wilson
  interval) and the policy is saved to ``DIR/policy.zip``
  (``MaskablePPO.load``; :func:`load_policy` seats it as a
  :class:`ttrsim.env.PolicyStrategy`). The last row plays ``--final-pairs``.
- ``--resume`` goes on from the policy and curve in ``--out`` up to
  ``--steps`` in all (the curriculum's shares are of that total).

The figures of a run are in docs/env.md ("Masked PPO").
"""
from __future__ import annotations

import argparse
import csv
import itertools
import math
import time
from pathlib import Path

import numpy as np

try:
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import VecEnvWrapper
except ImportError as e:
    raise SystemExit(f"train_ppo needs {e.name}: pip install 'ttrsim[env,train]'") from None

from ttrsim.env import gym_vector_env
from ttrsim.env.sb3 import TicketToRideSB3VecEnv

RULES, PLAYERS = "usa", 2
OPPONENTS = ("random", "greedy", "planner")
REWARD, REWARD_SCALE = "margin", 1 / 50
EVAL_SEED = 10 ** 9                     # evaluation games: seeds apart from the training games'


class Scaled(VecEnvWrapper):
    """Observations over their bounds (0..1), rewards times ``REWARD_SCALE``."""

    def __init__(self, venv: TicketToRideSB3VecEnv):
        self.scale = (1.0 / venv.venv.layout.obs_high).astype(np.float32)
        space = gym.spaces.Box(0.0, 1.0, self.scale.shape, np.float32)
        super().__init__(venv, observation_space=space)

    def reset(self):
        return self.venv.reset() * self.scale

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = infos[i]["terminal_observation"] * self.scale
        return obs * self.scale, rewards * REWARD_SCALE, dones, infos


def seats(n: int) -> list[int]:
    return [i % PLAYERS for i in range(n)]


def make_env(n_envs: int, opponent: str, seed: int) -> Scaled:
    env = Scaled(TicketToRideSB3VecEnv(n_envs, RULES, PLAYERS, seat=seats(n_envs), opponents=opponent,
                                       reward=REWARD))
    env.seed(seed)
    return env


def schedule(text: str) -> list[tuple[str, float]]:
    """``"random:0.1,greedy:0.2,planner:0.7"`` as ``[(name, share), ...]``."""
    phases = [(name, float(share)) for name, share in (p.split(":") for p in text.split(","))]
    if abs(sum(s for _, s in phases) - 1) > 1e-6 or min(s for _, s in phases) <= 0:
        raise SystemExit(f"--curriculum: the shares must be positive and add up to 1, got {text!r}")
    return phases


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def win_rate(model: MaskablePPO, opponent: str, pairs: int) -> float:
    """Share of ``2 * pairs`` seat-rotated games the policy wins (a tie for first counts as a win)."""
    n = 2 * pairs
    env = gym_vector_env(n, RULES, PLAYERS, seat=seats(n), opponents=opponent, copy=False)
    scale = (1.0 / env.layout.obs_high).astype(np.float32)
    obs, _ = env.reset(seed=[EVAL_SEED + i // PLAYERS for i in range(n)])
    won = np.full(n, -1)
    while (won < 0).any():
        actions, _ = model.predict(obs * scale, action_masks=env.action_masks(), deterministic=True)
        obs, rewards, ended, _, _ = env.step(actions)
        first = ended & (won < 0)                 # a slot's later games are not counted
        won[first] = rewards[first] > 0
    env.close()
    return float(won.mean())


def load_policy(path):
    """The saved policy as ``policy(obs, mask) -> action`` (raw observations),
    for :class:`ttrsim.env.PolicyStrategy`."""
    model = MaskablePPO.load(path, device="cpu")
    scale = (1.0 / model.observation_space.high).astype(np.float32)

    def policy(obs, mask):
        action, _ = model.predict(obs * scale, action_masks=mask.astype(bool), deterministic=True)
        return int(action)
    return policy


def checkpoint(model: MaskablePPO, out: Path, opponent: str, cpu: float, pairs: int) -> None:
    """Evaluate the policy, append its row to ``out/curve.csv``, save it to ``out/policy.zip``."""
    rates = {name: win_rate(model, name, pairs) for name in OPPONENTS}
    row = [model.num_timesteps, opponent, round(cpu, 1), 2 * pairs]
    for rate in rates.values():
        row += [round(x, 4) for x in (rate, *wilson(rate * 2 * pairs, 2 * pairs))]
    with open(out / "curve.csv", "a", newline="") as f:
        csv.writer(f).writerow(row)
    model.save(out / "policy.zip")
    print(f"steps {model.num_timesteps} ({opponent}, {cpu:.0f} CPU s): wins "
          + ", ".join(f"{rate:.0%} vs {name}" for name, rate in rates.items())
          + f" [95%: {row[-2]:.0%} to {row[-1]:.0%}] of {2 * pairs} games each", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=3_000_000, help="learner decisions to train on, in all")
    ap.add_argument("--out", default="ppo_run", help="folder for curve.csv and policy.zip")
    ap.add_argument("--resume", action="store_true", help="go on from the policy.zip and curve.csv in --out")
    ap.add_argument("--envs", type=int, default=64, help="games stepped together")
    ap.add_argument("--n-steps", type=int, default=128, help="steps per game per PPO update")
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--curriculum", default="random:0.1,greedy:0.2,planner:0.7")
    ap.add_argument("--eval-every", type=int, default=250_000)
    ap.add_argument("--eval-pairs", type=int, default=100, help="seat-swapped game pairs per opponent")
    ap.add_argument("--final-pairs", type=int, default=500, help="pairs of the last evaluation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    phases = schedule(a.curriculum)
    ends = [round(x * a.steps) for x in itertools.accumulate(share for _, share in phases)]

    def phase(steps: int) -> int:
        return next((k for k, end in enumerate(ends) if steps < end), len(phases) - 1)

    if a.resume:
        with open(out / "curve.csv") as f:
            done = list(csv.DictReader(f))[-1]
        cpu, opponent = float(done["train_cpu_s"]), phases[phase(int(done["steps"]))][0]
        model = MaskablePPO.load(out / "policy.zip", make_env(a.envs, opponent, a.seed + int(done["steps"])),
                                 device="cpu")
    else:
        cpu, opponent = 0.0, phases[0][0]
        model = MaskablePPO("MlpPolicy", make_env(a.envs, opponent, a.seed), n_steps=a.n_steps,
                            batch_size=a.batch_size, n_epochs=a.epochs, learning_rate=3e-4, gamma=0.995,
                            gae_lambda=0.95, ent_coef=0.01, seed=a.seed, device="cpu", verbose=0,
                            policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [256, 256]}})
        columns = ["steps", "opponent", "train_cpu_s", "games"]
        for name in OPPONENTS:
            columns += [f"win_{name}", f"win_{name}_lo", f"win_{name}_hi"]
        with open(out / "curve.csv", "w", newline="") as f:
            csv.writer(f).writerow(columns)
        checkpoint(model, out, opponent, cpu, a.eval_pairs)
    model.set_logger(Logger(None, []))      # (SB3's default logger makes a folder in the temp dir every learn())
    while model.num_timesteps < a.steps:
        k = phase(model.num_timesteps)
        if phases[k][0] != opponent:
            opponent = phases[k][0]
            model.get_env().close()
            model.set_env(make_env(a.envs, opponent, a.seed + model.num_timesteps))
        chunk = min(a.eval_every - model.num_timesteps % a.eval_every, ends[k] - model.num_timesteps)
        start = time.process_time()
        model.learn(chunk, reset_num_timesteps=False)
        cpu += time.process_time() - start
        checkpoint(model, out, opponent, cpu, a.final_pairs if model.num_timesteps >= a.steps else a.eval_pairs)
    print(f"saved {out / 'policy.zip'} and {out / 'curve.csv'}")


if __name__ == "__main__":
    main()
