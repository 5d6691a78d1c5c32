"""Which search method finds better strategy parameters at the same game budget.

Compares the tuner's method (``halving``: the shipped ``ttrsim.tune.run._Tune``,
best-response stages of successive halving, driven with its ``evaluate``
replaced by an oracle) with ``ntbea`` (the N-Tuple Bandit Evolutionary
Algorithm, Lucas, Liu and Perez-Liebana 2018) and ``cmaes`` (a plain CMA-ES in
the range-normalised box), each given the same number of games. The quality of
a method's answer is its win share, as one seat against seats of the START
parameters, above the fair share (points; more is better).

Oracles (``--oracle``):

- ``planted``: a synthetic landscape, cheap. The seat's chance to win a game
  is ``fair + f(x_seat) - f(x_field) + u``, ``f`` a negative quadratic in the
  normalised parameters with a random optimum and random interactions
  (``f`` = 0 at the optimum, -10 points at the worst corner of the box), ``u``
  a per-deal luck term shared by every seat evaluated on the same seed
  (common random numbers), the games Bernoulli. The quality is exact:
  ``f(x_returned) - f(x_start)``; ``regret`` is ``-f(x_returned)``.
- ``games``: real games (planner at usa 2 players by default, the three
  parameters of experiments/tune_example.yaml from its poor start); the
  quality is the returned set's win share against the start over
  ``--quality-games`` fresh games (a 95% interval of about +-1.5 points at 4,000).

Every run of every method shares its landscape, start and seeds with the
other methods' run of the same index, so the methods are also compared paired.

    python3 benchmarks/tuner_methods.py --oracle planted --budgets 2000,8000,32000 --dims 3,6 --runs 50
    python3 benchmarks/tuner_methods.py --oracle games --budgets 4000 --dims 3 --runs 20 --quality-games 4000 --seed 1

Prints one markdown table row per (method, budget, dims): runs, mean games
used, mean quality with its 95% interval over runs, and the mean paired
difference to ``halving``.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
import zlib

import numpy as np

from ttrsim.experiment.seating import block_seed
from ttrsim.results.stats import block_interval
from ttrsim.tune.config import load_tune
from ttrsim.tune.run import _Tune
from ttrsim.tune.search import Score, position, value_of

METHODS = ("halving", "ntbea", "cmaes")
# planner parameters fitted (real names and ranges, so the shipped tuner takes the config as it is)
FIT = {"end_trains": [0, 30], "keep_margin": [0, 16], "draw_min_opp": [5.0, 30.0],
       "pace": [0.0, 3.0], "turn_value": [0.0, 10.0], "w_detour": [0.0, 2.0]}
DEPTH = 0.10            # planted: f at the box's worst corner (win share)
LUCK = 0.10             # planted: sd of the per-deal luck term shared by the seats of one seed


# ---------------------------------------------------------------- oracles
class Oracle:
    """Plays ``seat`` in one seat against ``players - 1`` seats of ``field``,
    seat-rotated: :meth:`blocks` gives the seat's summed win shares of each
    seed block (``players`` games), the same for the same (seed, block)."""
    players = 2

    def blocks(self, cfg, seat: dict, field: dict, seed: int, n: int) -> np.ndarray:
        raise NotImplementedError

    def quality(self, cfg, params: dict, start: dict) -> float:
        """The win share of ``params`` against the start field above the fair share."""
        raise NotImplementedError


def _key(params: dict) -> int:
    return zlib.crc32(repr(tuple(params.values())).encode())


class Planted(Oracle):
    """A negative quadratic ``f`` in the normalised box, drawn from ``seed``:
    optimum uniform in [0.1, 0.9]^d, Hessian with a random rotation and
    eigenvalues log-uniform over a factor 10, scaled so the worst corner is -DEPTH."""

    def __init__(self, cfg, seed: int):
        d = len(cfg.fit)
        rng = np.random.default_rng([seed, 7])
        self.c = rng.uniform(0.1, 0.9, d)
        q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        self.h = q @ np.diag(np.exp(rng.uniform(0, math.log(10), d))) @ q.T
        corners = np.array(np.meshgrid(*[[0.0, 1.0]] * d)).reshape(d, -1).T
        self.h *= DEPTH / max(self._q(x) for x in corners)

    def _q(self, x) -> float:
        y = np.asarray(x) - self.c
        return float(y @ self.h @ y)

    def f(self, cfg, params: dict) -> float:
        return -self._q(position(cfg, params))

    def blocks(self, cfg, seat, field, seed, n):
        p = cfg.players
        luck = np.random.default_rng([seed, 1]).normal(0, LUCK, n)              # shared by every seat: CRN
        chance = np.clip(1 / p + self.f(cfg, seat) - self.f(cfg, field) + luck, 0, 1)
        draws = np.random.default_rng([seed, 2, _key(seat)]).random((n, p))    # the seat's own games
        return (draws < chance[:, None]).sum(axis=1).astype(np.float64)

    def quality(self, cfg, params, start):
        return self.f(cfg, params) - self.f(cfg, start)


class Games(Oracle):
    """Real games of ``cfg.strategy`` (the library's play loop, no folders)."""

    def __init__(self, cfg, quality_games: int, quality_seed: int):
        from ttrsim.core.actions import legal_buffer
        from ttrsim.core.board import build_board
        from ttrsim.core.state import allocate_state
        from ttrsim.data.rules import get_rules
        from ttrsim.strategies.kit.memory import allocate_memory
        self.rules = cfg.rules
        self.b = build_board(get_rules(cfg.rules))
        self.s = allocate_state(self.b, cfg.players)
        self.m = allocate_memory(self.b, cfg.players)
        self.legal = legal_buffer(self.b)
        self.quality_games, self.quality_seed = quality_games, quality_seed
        self.played = 0

    def blocks(self, cfg, seat, field, seed, n):
        from ttrsim.core.state import F_WINNER, N_FINAL
        from ttrsim.play.loop import play_many
        from ttrsim.strategies import param_row, strategy_id
        p = cfg.players
        seeds = np.array([block_seed(seed, i) for i in range(n)], np.int64)
        ids = np.full(p, strategy_id(cfg.strategy), np.int64)
        me = param_row(cfg.strategy, {**cfg.params, **seat}, rules=self.rules, players=p)
        them = param_row(cfg.strategy, {**cfg.params, **field}, rules=self.rules, players=p)
        finals = np.zeros((n, p, N_FINAL), np.int32)
        out = np.zeros(n)
        for k in range(p):                                          # the seat in every chair of every deal
            rows = np.tile(them, (p, 1))
            rows[k] = me
            play_many(self.b, self.s, self.m, seeds, ids, rows, self.legal, finals)
            won = finals[:, :, F_WINNER]
            out += won[:, k] / np.maximum(won.sum(axis=1), 1)
        self.played += n * p
        return out

    def quality(self, cfg, params, start):
        n = self.quality_games // cfg.players
        return float(self.blocks(cfg, params, start, self.quality_seed, n).sum() / (n * cfg.players)) - 1 / cfg.players


# ---------------------------------------------------------------- methods
class OracleTune(_Tune):
    """The shipped tuner with its evaluations answered by an oracle and no folder."""

    def __init__(self, cfg, oracle: Oracle):
        super().__init__(cfg, None, lambda msg: None)
        self.oracle = oracle
        self.cache: dict[tuple, np.ndarray] = {}

    def evaluate(self, tag, seat, field_params, seed, games, chunk=2000, labels=("challenger", "incumbent")):
        p = self.cfg.players
        n = games // p
        key = (tag, seed)
        held = self.cache.get(key, np.zeros(0))
        if len(held) < n:                   # grown: the earlier blocks stay, as a grown folder's games
            held = self.oracle.blocks(self.cfg, seat, field_params, seed, n)
            self.cache[key] = held
        w = held[:n]
        if tag != "final":                  # the final head-to-head is reporting, not search
            self.played[tag] = max(games, self.played.get(tag, 0))
            self.games = sum(self.played.values())
        lo, hi = block_interval(w[:, None], np.full((n, 1), float(p)))
        return Score(games=n * p, win_share=float(w.sum() / (n * p)), low=float(lo[0]), high=float(hi[0]))

    def write(self):
        pass


def run_halving(cfg, oracle, budget, rng):
    t = OracleTune(cfg, oracle)
    r = t.run()
    return {n: r.best[n] for n, *_ in cfg.fit}, t.games


def _grid(cfg, k: int) -> list[list]:
    """Each fitted parameter's values: ``k`` evenly spaced over its range (every integer of a shorter integer range)."""
    out = []
    for name, lo, hi, integer in cfg.fit:
        if integer and hi - lo + 1 <= k:
            out.append(list(range(int(lo), int(hi) + 1)))
        else:
            out.append(list(dict.fromkeys(value_of(cfg, name, x) for x in np.linspace(0, 1, k))))
    return out


class NTupleModel:
    """The n-tuple landscape model: per 1-tuple (each parameter's value), per
    2-tuple (optional) and the full tuple, the sum and count of the values
    seen; a point's estimate is the mean over its tuples with data, its
    exploration term the mean over all its tuples of sqrt(log(1 + N) / (n + eps))
    (TAG's NTupleSystem: eps 0.1)."""

    def __init__(self, sizes: list[int], pairs: bool):
        self.d = len(sizes)
        k = max(sizes)
        self.s1, self.n1 = np.zeros((self.d, k)), np.zeros((self.d, k))
        self.pairs = [(i, j) for i in range(self.d) for j in range(i + 1, self.d)] if pairs else []
        self.s2, self.n2 = np.zeros((len(self.pairs), k, k)), np.zeros((len(self.pairs), k, k))
        self.radix = k ** np.arange(self.d)          # a point's key in the full-tuple table
        self.full_s: dict[int, float] = {}
        self.full_n: dict[int, int] = {}
        self.points: dict[int, np.ndarray] = {}
        self.total = 0

    def add(self, x: np.ndarray, value: float):
        dims = np.arange(self.d)
        self.s1[dims, x] += value
        self.n1[dims, x] += 1
        for p, (i, j) in enumerate(self.pairs):
            self.s2[p, x[i], x[j]] += value
            self.n2[p, x[i], x[j]] += 1
        key = int(x @ self.radix)
        self.full_s[key] = self.full_s.get(key, 0.0) + value
        self.full_n[key] = self.full_n.get(key, 0) + 1
        self.points[key] = x.copy()
        self.total += 1

    def stats(self, xs: np.ndarray):
        """(sums, counts) per point (rows of ``xs``) and tuple: arrays [points, tuples]."""
        dims = np.arange(self.d)
        s, n = [self.s1[dims, xs]], [self.n1[dims, xs]]
        if self.pairs:
            pi = np.array(self.pairs)
            a, b = xs[:, pi[:, 0]], xs[:, pi[:, 1]]
            idx = np.arange(len(self.pairs))
            s.append(self.s2[idx, a, b])
            n.append(self.n2[idx, a, b])
        keys = (xs @ self.radix).tolist()
        s.append(np.array([self.full_s.get(key, 0.0) for key in keys])[:, None])
        n.append(np.array([self.full_n.get(key, 0) for key in keys], np.float64)[:, None])
        return np.hstack(s), np.hstack(n)

    @staticmethod
    def _mean(s, n) -> np.ndarray:
        seen = n > 0
        return (np.where(seen, s, 0) / np.maximum(n, 1)).sum(axis=1) / np.maximum(seen.sum(axis=1), 1)

    def mean(self, xs: np.ndarray) -> np.ndarray:
        return self._mean(*self.stats(xs))

    def ucb(self, xs: np.ndarray, k: float, eps: float) -> np.ndarray:
        s, n = self.stats(xs)
        return self._mean(s, n) + k * np.sqrt(math.log(1 + self.total) / (n + eps)).mean(axis=1)


def run_ntbea(cfg, oracle, budget, rng, *, values=11, neighbours=50, k_explore=1.0, epsilon=0.1, pairs=False,
              seed=0):
    """NTBEA: evaluate the current point on one fresh seed block against the
    start field, add it to the model, move to the neighbour (of
    ``neighbours`` mutations: each parameter with chance 1/d, at least one,
    to another value) with the best UCB; recommend the evaluated point with
    the best model mean (as TAG does)."""
    grid = _grid(cfg, values)
    sizes = [len(g) for g in grid]
    d, p = len(grid), cfg.players
    start = cfg.start()
    field = dict(start)
    x = np.array([int(np.argmin([abs(v - start[name]) for v in g])) for (name, *_), g in zip(cfg.fit, grid)])
    model = NTupleModel(sizes, pairs)
    top = np.array(sizes)
    games, it = 0, 0
    while games + p <= budget:
        params = {name: g[i] for (name, *_), g, i in zip(cfg.fit, grid, x)}
        w = oracle.blocks(cfg, params, field, block_seed(seed, it), 1)
        model.add(x, float(w[0]) / p)
        games += p
        it += 1
        nb = np.repeat(x[None, :], neighbours, axis=0)
        flip = rng.random((neighbours, d)) < 1 / d
        flip[np.arange(neighbours), rng.integers(0, d, neighbours)] = True
        shift = rng.integers(1, top, (neighbours, d))                   # another value of the parameter
        nb = np.where(flip, (nb + shift) % top, nb)
        score = model.ucb(nb, k_explore, epsilon) + rng.random(neighbours) * 1e-6
        x = nb[int(np.argmax(score))]
    seen = np.array(list(model.points.values()))
    best = seen[int(np.argmax(model.mean(seen)))]
    return {name: g[i] for (name, *_), g, i in zip(cfg.fit, grid, best)}, games


def run_cmaes(cfg, oracle, budget, rng, *, sigma0=0.3, seed=0):
    """CMA-ES (Hansen's purecma equations) in the normalised box, maximising
    the win share against the start field: each generation's lambda
    candidates (clipped to the box, rounded to the parameters' values) play
    the same seed blocks, as many for each; generations and blocks both grow
    as the square root of the budget. Recommends the final mean."""
    d, p = len(cfg.fit), cfg.players
    start = cfg.start()
    lam = 4 + int(3 * math.log(d))
    mu = lam // 2
    w = math.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    w /= w.sum()
    mueff = 1 / (w ** 2).sum()
    cc, cs = (4 + mueff / d) / (d + 4 + 2 * mueff / d), (mueff + 2) / (d + mueff + 5)
    c1 = 2 / ((d + 1.3) ** 2 + mueff)
    cmu = min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((d + 2) ** 2 + mueff))
    damps = 1 + 2 * max(0, math.sqrt((mueff - 1) / (d + 1)) - 1) + cs
    chin = math.sqrt(d) * (1 - 1 / (4 * d) + 1 / (21 * d * d))
    blocks = max(2, round(math.sqrt(budget / (p * lam))))
    m, sigma = position(cfg, start), sigma0
    pc, ps, c = np.zeros(d), np.zeros(d), np.eye(d)
    games, gen = 0, 0

    def params_at(x):
        return {name: value_of(cfg, name, xi) for (name, *_), xi in zip(cfg.fit, x)}

    while games + lam * blocks * p <= budget:
        gen += 1
        vals, vecs = np.linalg.eigh(c)
        vals = np.maximum(vals, 1e-12)
        xs = np.clip(m + sigma * (rng.normal(size=(lam, d)) * np.sqrt(vals)) @ vecs.T, 0, 1)
        fit = [oracle.blocks(cfg, params_at(x), start, block_seed(seed, gen), blocks).sum() for x in xs]
        games += lam * blocks * p
        order = np.argsort(fit, kind="stable")[::-1][:mu]
        old = m
        m = w @ xs[order]
        step = (m - old) / sigma
        ps = (1 - cs) * ps + math.sqrt(cs * (2 - cs) * mueff) * (vecs @ ((vecs.T @ step) / np.sqrt(vals)))
        hsig = np.linalg.norm(ps) / math.sqrt(1 - (1 - cs) ** (2 * gen)) / chin < 1.4 + 2 / (d + 1)
        pc = (1 - cc) * pc + hsig * math.sqrt(cc * (2 - cc) * mueff) * step
        art = (xs[order] - old) / sigma
        c = ((1 - c1 - cmu) * c + c1 * (np.outer(pc, pc) + (1 - hsig) * cc * (2 - cc) * c)
             + cmu * (art.T * w) @ art)
        c = (c + c.T) / 2
        sigma = min(0.5, sigma * math.exp(cs / damps * (np.linalg.norm(ps) / chin - 1)))
    return params_at(m), games


RUNNERS = {"halving": run_halving, "ntbea": run_ntbea, "cmaes": run_cmaes}


# ---------------------------------------------------------------- the comparison
def make_config(args, dims: int, budget: int, run: int, start: dict | None):
    fit = dict(list(FIT.items())[:dims])
    final = 2 * args.players
    return load_tune({"name": "tuner_methods", "rules": args.rules, "players": args.players,
                      "strategy": args.strategy, "params": start or {}, "fit": fit, "budget": budget + final,
                      "final_games": final, "candidates": args.candidates, "stages": args.stages,
                      "margin": args.margin, "seed": run, "output": "/tmp/tuner_methods_unused"})


def random_start(args, dims: int, run: int) -> dict:
    """A planted run's start: uniform in the box (its own seed)."""
    cfg = make_config(args, dims, 10 ** 6, run, None)
    x = np.random.default_rng([args.seed, run, 3]).uniform(0, 1, dims)
    return {name: value_of(cfg, name, xi) for (name, *_), xi in zip(cfg.fit, x)}


def compare(args, methods, budget: int, dims: int, echo=print) -> dict:
    """Every method's runs at one budget and dimension: {method: [(quality, regret or None, games), ...]}."""
    out = {m: [] for m in methods}
    games_oracle = None
    for run in range(args.runs):
        if args.oracle == "planted":
            cfg = make_config(args, dims, budget, run, random_start(args, dims, run))
            oracle = Planted(cfg, args.seed * 100_003 + run)
        else:
            cfg = make_config(args, dims, budget, run, {"end_trains": args.start_end_trains})
            if games_oracle is None:
                games_oracle = Games(cfg, args.quality_games, block_seed(args.seed, 10 ** 6))
            oracle = games_oracle
        start = cfg.start()
        for method in methods:
            t0 = time.perf_counter()
            kw = {"seed": block_seed(args.seed, run)} if method != "halving" else {}
            if method == "ntbea":
                kw.update(values=args.values, neighbours=args.neighbours, k_explore=args.k_explore, epsilon=args.epsilon,
                          pairs=args.pairs)
            rng = np.random.default_rng([args.seed, run, METHODS.index(method)])
            best, used = RUNNERS[method](cfg, oracle, budget, rng, **kw)
            q = oracle.quality(cfg, best, start)
            regret = -oracle.f(cfg, best) if isinstance(oracle, Planted) else None
            out[method].append((q, regret, used))
            if args.verbose:
                echo(f"  run {run} {method}: {100 * q:+.2f} points, {used} games, {time.perf_counter() - t0:.1f} s, "
                     f"{best}")
    return out


def mean_interval(x):
    x = np.asarray(x, np.float64)
    if len(x) < 2:
        return float(x.mean()), float("nan"), float("nan")
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    return float(x.mean()), float(x.mean() - half), float(x.mean() + half)


def table_rows(results: dict, budget: int, dims: int) -> list[str]:
    rows = []
    base = [q for q, _, _ in results.get("halving", [])]
    for method, runs in results.items():
        q = [r[0] for r in runs]
        m, lo, hi = mean_interval(100 * np.array(q))
        regret = [r[1] for r in runs if r[1] is not None]
        reg = f"{100 * np.mean(regret):.2f}" if regret else "-"
        if base and method != "halving":
            dm, dlo, dhi = mean_interval(100 * (np.array(q) - np.array(base)))
            diff = f"{dm:+.2f} [{dlo:+.2f}, {dhi:+.2f}]"
        else:
            diff = "-"
        used = np.mean([r[2] for r in runs])
        rows.append(f"| {method} | {budget:,} | {dims} | {len(runs)} | {used:,.0f} | {m:+.2f} | [{lo:+.2f}, {hi:+.2f}] "
                    f"| {reg} | {diff} |")
    return rows


HEADER = ("| method | budget | dims | runs | games used | quality (points) | 95% interval | regret (points) "
          "| paired vs halving |\n|---|---:|---:|---:|---:|---:|---|---:|---|")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--oracle", choices=("planted", "games"), default="planted")
    ap.add_argument("--methods", default=",".join(METHODS), help="comma-separated: " + ", ".join(METHODS))
    ap.add_argument("--budgets", default="2000,8000,32000", help="search games per run (the final head-to-head "
                                                                 "and the quality games not counted)")
    ap.add_argument("--dims", default="3,6", help="parameters fitted (the first of " + ", ".join(FIT) + ")")
    ap.add_argument("--runs", type=int, default=100, help="repetitions per method, budget and dims")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--strategy", default="planner")
    ap.add_argument("--rules", default="usa")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--start-end-trains", type=int, default=20, help="games oracle: the start's end_trains")
    ap.add_argument("--quality-games", type=int, default=4000, help="games oracle: games judging each answer")
    ap.add_argument("--candidates", type=int, default=8, help="halving: challengers per stage (the default)")
    ap.add_argument("--stages", type=int, default=4, help="halving: stages at most (the default)")
    ap.add_argument("--margin", type=float, default=0.01, help="halving: acceptance margin (the default)")
    ap.add_argument("--values", type=int, default=11, help="ntbea: values per parameter")
    ap.add_argument("--neighbours", type=int, default=50, help="ntbea: neighbours scored by the model per step")
    ap.add_argument("--k-explore", type=float, default=1.0, help="ntbea: UCB exploration constant")
    ap.add_argument("--epsilon", type=float, default=0.1, help="ntbea: count added in the exploration term (TAG: 0.1)")
    ap.add_argument("--pairs", action="store_true", help="ntbea: model 2-tuples too")
    ap.add_argument("--verbose", action="store_true", help="print every run")
    args = ap.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    for m in methods:
        if m not in METHODS:
            ap.error(f"unknown method {m!r}; expected some of {', '.join(METHODS)}")
    print(f"oracle {args.oracle}, seed {args.seed}: " + " ".join(sys.argv[1:]))
    print(HEADER)
    all_rows = {}
    for dims in (int(d) for d in args.dims.split(",")):
        for budget in (int(b) for b in args.budgets.split(",")):
            t0 = time.perf_counter()
            res = compare(args, methods, budget, dims)
            rows = table_rows(res, budget, dims)
            all_rows[(budget, dims)] = res
            print("\n".join(rows), f"<!-- {time.perf_counter() - t0:.0f} s -->", flush=True)
    return all_rows


if __name__ == "__main__":
    main()
