"""Benchmark: environment steps per second on one core, random legal actions.

``python -m ttrsim.env.bench [--rules usa] [--players 4] [--envs 1024] [--seconds 5]``
prints the batch env's rate (actions chosen in numpy from the mask by
:func:`ttrsim.env.vector.random_actions`, the numpy time included) beside
Python stepping of :class:`ttrsim.play.game.Game` (``legal_actions`` and
``apply``, the pre-env way) and of the PettingZoo AEC env. Rates are per CPU
second of this process (``time.process_time``), as ``ttrsim bench``.

>>> row = bench_vector("usa", 2, n_envs=8, seconds=0.05)
>>> row["what"], row["steps_per_s"] > 0
('VectorEnv', True)
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from .vector import VectorEnv, random_actions


def _rate(what: str, steps: int, cpu: float, **extra) -> dict:
    return {"what": what, "steps": steps, "seconds": round(cpu, 3), "steps_per_s": round(steps / cpu), **extra}


def bench_vector(rules: str = "usa", players: int = 4, n_envs: int = 1024, seconds: float = 5.0) -> dict:
    """The batch env with uniformly random legal actions chosen in numpy."""
    env = VectorEnv(rules, players, n_envs)
    rng = np.random.default_rng(0)
    _, mask = env.reset(np.arange(n_envs))
    env.step(random_actions(mask, rng, env.n_legal))          # compile outside the clock
    steps = games = 0
    in_step = 0.0
    start = time.process_time()
    while time.process_time() - start < seconds:
        actions = random_actions(mask, rng, env.n_legal)
        t = time.process_time()
        _, mask, _, dones = env.step(actions)
        in_step += time.process_time() - t
        steps += n_envs
        games += int(dones.sum())
    cpu = time.process_time() - start
    return _rate("VectorEnv", steps, cpu, envs=n_envs, games=games,
                 step_call_steps_per_s=round(steps / in_step))


def bench_game(rules: str = "usa", players: int = 4, seconds: float = 5.0) -> dict:
    """Python stepping of :class:`~ttrsim.play.game.Game` with random legal actions."""
    from ttrsim.play.game import Game

    g = Game(rules, players, seed=0)
    rng = np.random.default_rng(0)
    steps, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        if g.over:
            seed += 1
            g.reset(seed)
        legal = g.legal_actions()
        g.apply(legal[int(rng.integers(len(legal)))])
        steps += 1
    return _rate("Game (Python)", steps, time.process_time() - start)


def bench_aec(rules: str = "usa", players: int = 4, seconds: float = 5.0) -> dict:
    """The PettingZoo AEC env with random legal actions from its mask."""
    from . import aec_env

    env = aec_env(rules=rules, players=players)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            seed += 1
            env.reset(seed=seed)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return _rate("AEC env (PettingZoo)", steps, time.process_time() - start)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m ttrsim.env.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="usa")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--envs", type=int, default=1024, help="games stepped together by the batch env")
    ap.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per measurement")
    ap.add_argument("--vector-only", action="store_true", help="skip the Python Game and AEC env rates")
    a = ap.parse_args(argv)
    rows = [bench_vector(a.rules, a.players, a.envs, a.seconds)]
    if not a.vector_only:
        rows += [bench_game(a.rules, a.players, a.seconds)]
        try:
            rows.append(bench_aec(a.rules, a.players, a.seconds))
        except ImportError as e:
            print(f"(AEC env skipped: {e}; pip install 'ttrsim[env]')")
    print(f"{a.rules}, {a.players} players, random legal actions, per CPU second of one core:")
    for r in rows:
        extra = f" (step() alone {r['step_call_steps_per_s']:,}/s; {r['envs']} games at once)" if "envs" in r else ""
        print(f"  {r['what']:<22} {r['steps_per_s']:>10,} steps/s{extra}")


if __name__ == "__main__":
    main()
