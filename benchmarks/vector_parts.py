"""Where a VectorEnv step's time goes, per part, on one core.

    python benchmarks/vector_parts.py [--rules usa] [--players 4] [--envs 1024]

Deals ``--envs`` games, plays 60 random steps into the middle game, then
times compiled loops over the same states: writing every observation
(``encode_obs``), every mask (``write_mask``), every engine legal list
(``legal_actions``, for comparison), numpy's ``random_actions`` and a whole
``VectorEnv.step`` with its actions (ms per batch, CPU time of this process).
Run it old against new in turns (a worktree of the old commit on
``PYTHONPATH``) and compare within one run: the rates move with the machine.
"""
import argparse
import time

import numpy as np

from ttrsim.core.engine import legal_actions
from ttrsim.core.state import M_PLAYER
from ttrsim.env.encoding import encode_obs, write_mask
from ttrsim.env.vector import VectorEnv, random_actions
from ttrsim.jit import kernel

# compiled afresh each run: numba checks a cached function against its own file only, so a cached
# loop here would keep timing the ttrsim sources it inlined when it was first compiled
uncached = kernel(cache=False)


@uncached
def all_obs(b, states, lay, obs, reps):
    for _ in range(reps):
        for i in range(len(states)):
            encode_obs(b, states[i], states[i].meta[M_PLAYER], lay, obs[i])


@uncached
def all_masks(b, states, lay, route_act, legal, mask, reps):
    n = 0
    for _ in range(reps):
        for i in range(len(states)):
            n += write_mask(b, states[i], lay, route_act, legal, mask[i])
    return n


@uncached
def all_legal(b, states, legal, reps):
    n = 0
    for _ in range(reps):
        for i in range(len(states)):
            n += legal_actions(b, states[i], legal)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="usa")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--envs", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=50)
    a = ap.parse_args()
    env = VectorEnv(a.rules, a.players, a.envs)
    rng = np.random.default_rng(0)
    _, mask = env.reset(np.arange(a.envs))
    for _ in range(60):
        _, mask, _, _ = env.step(random_actions(mask, rng, env.n_legal))
    lay, b, st = env.layout, env.board, env.states
    parts = {"encode_obs": lambda r: all_obs(b, st, lay.lay, env.obs, r),
             "write_mask": lambda r: all_masks(b, st, lay.lay, lay.route_act, lay.legal, env.mask, r),
             "legal_actions": lambda r: all_legal(b, st, lay.legal, r)}
    for name, run in parts.items():
        run(1)                                      # compile outside the clock
        t = time.process_time()
        run(a.reps)
        print(f"{name:15s} {1e3 * (time.process_time() - t) / a.reps:.3f} ms per {a.envs} states")
    for name, step in (("random_actions", lambda: random_actions(mask, rng, env.n_legal)),
                       ("step + actions", lambda: env.step(random_actions(mask, rng, env.n_legal)))):
        n, t = 0, time.process_time()
        while time.process_time() - t < 2:
            out = step()
            if name == "step + actions":
                mask = out[1]
            n += 1
        d = time.process_time() - t
        print(f"{name:15s} {1e3 * d / n:.3f} ms per batch ({a.envs * n / d:,.0f} steps/s)")


if __name__ == "__main__":
    main()
