"""Train a linear policy on the batch env, then seat it in an experiment.

    python experiments/train_linear_policy.py                # ~3 CPU minutes, writes linear_policy.npz here
    ttrsim run experiments/linear_policy.yaml                # the trained policy against the built-ins

The policy is a softmax over the legal actions of ``W @ features + b``
(``features``: a few fields of the seat's observation tensor, ``FEATURES``,
over their bounds; docs/env.md), trained by REINFORCE on
:class:`ttrsim.env.VectorEnv` (USA, 2 players, score-margin reward,
advantages normalised per batch): in every game one seat is the learner,
taking turns across the table, and the other plays random legal actions chosen
in numpy from the mask. Nothing heavy: a few minutes of one core give a policy
that beats ``random`` in most games. The script prints the win rate of the
policy (drawing its actions) against ``random`` on fresh seeds.

:class:`LinearPolicy` seats the saved weights as a Python strategy
(:class:`ttrsim.env.PolicyStrategy`), so ``ttrsim run`` / ``ttrsim report`` give
its win rate against the built-in strategies.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from ttrsim.env import PolicyStrategy, VectorEnv, random_actions

HERE = Path(__file__).resolve().parent
# the observation fields the policy reads (docs/env.md): small enough to train in minutes
FEATURES = ("phase", "last_round", "hand", "trains", "held")


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    z = np.where(mask.astype(bool), logits, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


class Linear:
    """Scores ``W @ features + b`` over the action space, ``features`` = the
    observation entries ``cols`` divided by their bounds; samples or takes the
    best legal action."""

    def __init__(self, W: np.ndarray, b: np.ndarray, cols: np.ndarray, scale: np.ndarray, rng=None):
        self.W, self.b, self.cols, self.scale = W, b, cols, scale
        self.rng = np.random.default_rng(0) if rng is None else rng

    @classmethod
    def zeros(cls, layout, fields=FEATURES) -> Linear:
        cols = np.concatenate([np.arange(off, off + size) for name, off, size, _, _ in layout.fields if name in fields])
        return cls(np.zeros((layout.n_actions, len(cols)), np.float32), np.zeros(layout.n_actions, np.float32),
                   cols, (1.0 / layout.obs_high[cols]).astype(np.float32))

    def features(self, obs: np.ndarray) -> np.ndarray:
        return obs[..., self.cols] * self.scale

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return masked_softmax(self.features(obs) @ self.W.T + self.b, mask)

    def sample(self, obs, mask, rng) -> np.ndarray:
        p = self.probs(obs, mask)
        return (p.cumsum(axis=1) < rng.random((len(p), 1))).sum(axis=1).clip(0, p.shape[1] - 1)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """An action for one observation, drawn from the policy with its stream ``rng``
        (the seated policy; its argmax would mostly draw cards: many claims share the mass)."""
        return int(self.sample(obs[None], mask[None], self.rng)[0])

    def save(self, path) -> None:
        np.savez_compressed(path, W=self.W, b=self.b, cols=self.cols, scale=self.scale)

    @classmethod
    def load(cls, path) -> Linear:
        d = np.load(path)
        return cls(d["W"], d["b"], d["cols"], d["scale"])


class LinearPolicy(PolicyStrategy):
    """The trained weights as a Python strategy: ``{python: "train_linear_policy:LinearPolicy"}``
    (``weights``: a file, relative to this folder unless absolute)."""

    def __init__(self, weights: str = "linear_policy.npz"):
        path = Path(weights) if Path(weights).is_absolute() else HERE / weights
        if not path.exists():
            raise ValueError(f"no weights at {path}; train them first: python experiments/train_linear_policy.py")
        super().__init__(Linear.load(path))

    def start(self, game, seat: int) -> None:
        super().start(game, seat)
        self.policy.rng = np.random.default_rng([game.seed, seat])     # its choices: a function of the game


def train(rules="usa", players=2, n_envs=128, batch_games=128, lr=0.5, seconds=180.0, seed=0, log=print) -> Linear:
    env = VectorEnv(rules, players, n_envs, reward="margin")
    lay = env.layout
    pol = Linear.zeros(lay)
    rng = np.random.default_rng(seed)
    learner = np.arange(n_envs) % players                       # the learner's seat in each slot
    episode = np.arange(n_envs)                                 # the game each slot plays
    next_episode = n_envs
    rows = []                                                   # (episode ids, obs, mask, actions) per step
    returns: dict[int, float] = {}
    obs, mask = env.reset(np.arange(n_envs) + 1_000_000 * seed)
    start, updates = time.process_time(), 0
    while time.process_time() - start < seconds:
        actions = random_actions(mask, rng, env.n_legal)
        mine = np.flatnonzero(env.to_act == learner)
        if mine.size:
            actions[mine] = pol.sample(obs[mine], mask[mine], rng)
            rows.append((episode[mine], obs[mine].copy(), mask[mine].copy(), actions[mine].copy()))
        obs, mask, rewards, dones = env.step(actions)
        for i in np.flatnonzero(dones):
            returns[int(episode[i])] = float(rewards[i, learner[i]])
            episode[i], next_episode = next_episode, next_episode + 1
        if len(returns) >= batch_games:
            rows = reinforce(pol, rows, returns, lr)
            updates += 1
            if updates % 5 == 0:
                margins = np.array(list(returns.values()))
                log(f"update {updates}: wins {np.mean(margins > 0):.0%} of {len(margins)} games, "
                    f"mean margin {margins.mean():+.1f}")
            returns = {}
    return pol


def reinforce(pol: Linear, rows, returns: dict, lr: float):
    """One policy-gradient step on the finished games; returns the rows of unfinished ones."""
    ep = np.concatenate([r[0] for r in rows])
    X, M, A = (np.concatenate([r[k] for r in rows]) for k in (1, 2, 3))
    done = np.isin(ep, np.fromiter(returns, np.int64))
    R = np.array([returns.get(int(e), 0.0) for e in ep[done]], np.float32)
    adv = (R - R.mean()) / (R.std() + 1e-6)
    Xs = pol.features(X[done])
    G = -pol.probs(X[done], M[done])
    G[np.arange(len(G)), A[done]] += 1.0
    G *= adv[:, None] / len(returns)
    pol.W += lr * (G.T @ Xs)
    pol.b += lr * G.sum(axis=0)
    keep = ~done
    return [(ep[keep], X[keep], M[keep], A[keep])] if keep.any() else []


def win_rate(pol: Linear, rules="usa", players=2, games=200, seed=10**9) -> float:
    """Share of games the policy wins against ``random`` (it sits in every seat in turn)."""
    n = games
    env = VectorEnv(rules, players, n, reward="win")
    obs, mask = env.reset(np.arange(n) + seed)
    rng = np.random.default_rng(seed)
    learner = np.arange(n) % players
    result = np.full(n, np.nan)
    while np.isnan(result).any():
        actions = random_actions(mask, rng, env.n_legal)
        for i in np.flatnonzero(env.to_act == learner):
            actions[i] = pol(obs[i], mask[i])
        obs, mask, rewards, dones = env.step(actions)
        fresh = (dones == 1) & np.isnan(result)        # "win" rewards: > 0 for a winner
        result[fresh] = rewards[fresh, learner[fresh]] > 0
    return float(result.mean())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=180.0, help="CPU seconds of training")
    ap.add_argument("--envs", type=int, default=128)
    ap.add_argument("--batch-games", type=int, default=128, help="finished games per policy update")
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--out", default=str(HERE / "linear_policy.npz"))
    a = ap.parse_args(argv)
    pol = train(n_envs=a.envs, batch_games=a.batch_games, seconds=a.seconds)
    pol.save(a.out)
    print(f"saved {a.out}; the policy wins {win_rate(pol, games=a.eval_games):.0%} of {a.eval_games} games "
          "against random (USA, 2 players)")


if __name__ == "__main__":
    main()
