"""Win rates per strategy with 95% intervals, from per-block statistics.

A seat's *win share* in a game is 1 for a sole winner, 1/k when k seats share
the win, else 0; a strategy's win rate is its mean win share over the games it
played. Games of a seed block share their seed (paired games), so they are not
independent: the interval is the wider of

* the normal interval from the per-block mean shares (blocks are independent),
  ``rate +- z * sd(block means) / sqrt(blocks)``, and
* the Wilson score interval on the games played (which stays sensible when
  every block gives the same share, e.g. a rate of 0),

clipped to [0, 1], with z = 1.96. The sequential stop rule uses the same
interval (:func:`widths_along`).

>>> acc = Stats.zeros(2)
>>> acc.add_blocks(np.array([[1.0, 0.0], [0.5, 0.5]]), np.ones((2, 2)), np.array([[100, 90], [95, 95]]))
>>> [round(x, 3) for x in acc.rate()]
[0.75, 0.25]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


def interval(n, w, nb, s1, s2, z: float = Z95):
    """(low, high) of the win rate from games ``n``, win shares ``w``, blocks
    ``nb`` and the sum / sum of squares of the per-block mean shares."""
    n, w, nb, s1, s2 = (np.asarray(x, np.float64) for x in (n, w, nb, s1, s2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, w / np.maximum(n, 1), 0.0)
        nn = np.maximum(n, 1)
        denom = 1 + z * z / nn
        centre = (p + z * z / (2 * nn)) / denom
        half_w = z * np.sqrt(np.maximum(p * (1 - p), 0) / nn + z * z / (4 * nn * nn)) / denom
        var = np.where(nb > 1, (s2 - s1 * s1 / np.maximum(nb, 1)) / np.maximum(nb - 1, 1), np.inf)
        half_c = z * np.sqrt(np.maximum(var, 0) / np.maximum(nb, 1))
    lo = np.clip(np.minimum(centre - half_w, p - half_c), 0, 1)
    hi = np.clip(np.maximum(centre + half_w, p + half_c), 0, 1)
    lo = np.where(n > 0, lo, 0.0)
    hi = np.where(n > 0, hi, 1.0)
    return lo, hi


@dataclass
class Stats:
    """Running sums per entrant (label) of one sweep point."""
    n: np.ndarray       # games played (appearances)
    w: np.ndarray       # win shares
    t: np.ndarray       # final totals (for the mean score)
    nb: np.ndarray      # blocks the entrant played in
    s1: np.ndarray      # sum of per-block mean shares
    s2: np.ndarray      # sum of squares of per-block mean shares
    ends: np.ndarray    # games ended normal, stalled, capped

    @classmethod
    def zeros(cls, n_entrants: int) -> "Stats":
        z = lambda: np.zeros(n_entrants, np.float64)  # noqa: E731
        return cls(z(), z(), z(), z(), z(), z(), np.zeros(3, np.int64))

    def add_blocks(self, W: np.ndarray, C: np.ndarray, T: np.ndarray, ends=None):
        """Add blocks: ``W[b, e]`` win shares, ``C[b, e]`` games, ``T[b, e]`` totals."""
        played = C > 0
        m = np.where(played, W / np.maximum(C, 1), 0.0)
        self.n += C.sum(axis=0)
        self.w += W.sum(axis=0)
        self.t += T.sum(axis=0)
        self.nb += played.sum(axis=0)
        self.s1 += m.sum(axis=0)
        self.s2 += (m * m).sum(axis=0)
        if ends is not None:
            self.ends += np.asarray(ends, np.int64)

    def rate(self) -> np.ndarray:
        return np.where(self.n > 0, self.w / np.maximum(self.n, 1), 0.0)

    def interval(self):
        return interval(self.n, self.w, self.nb, self.s1, self.s2)

    def to_json(self) -> dict:
        return {k: getattr(self, k).tolist() for k in ("n", "w", "t", "nb", "s1", "s2", "ends")}

    @classmethod
    def from_json(cls, d: dict) -> "Stats":
        return cls(*(np.asarray(d[k], np.int64 if k == "ends" else np.float64)
                     for k in ("n", "w", "t", "nb", "s1", "s2", "ends")))

    def __iadd__(self, other: "Stats"):
        for k in ("n", "w", "t", "nb", "s1", "s2", "ends"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        return self


def widths_along(before: Stats, e: int, W: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Interval width of entrant ``e`` after each of the blocks ``W, C`` added to ``before``."""
    played = C[:, e] > 0
    m = np.where(played, W[:, e] / np.maximum(C[:, e], 1), 0.0)
    n = before.n[e] + np.cumsum(C[:, e])
    w = before.w[e] + np.cumsum(W[:, e])
    nb = before.nb[e] + np.cumsum(played)
    s1 = before.s1[e] + np.cumsum(m)
    s2 = before.s2[e] + np.cumsum(m * m)
    lo, hi = interval(n, w, nb, s1, s2)
    return hi - lo


def summary_rows(labels, stats_by_point: dict, point_values: dict | None = None) -> list[dict]:
    """One row per sweep point and label: games, wins, win rate, interval, mean total."""
    rows = []
    for point, st in sorted(stats_by_point.items()):
        lo, hi = st.interval()
        rate = st.rate()
        for i, label in enumerate(labels):
            if st.n[i] == 0:
                continue
            rows.append({"point": point, "values": (point_values or {}).get(point, {}), "strategy": label,
                         "games": int(st.n[i]), "wins": float(st.w[i]), "win_rate": float(rate[i]),
                         "low": float(lo[i]), "high": float(hi[i]), "mean_total": float(st.t[i] / st.n[i])})
    return rows


def format_summary(rows: list[dict], ends_by_point: dict | None = None) -> str:
    """A plain text table per sweep point."""
    lines = []
    by_point: dict[int, list] = {}
    for r in rows:
        by_point.setdefault(r["point"], []).append(r)
    for point, rs in by_point.items():
        vals = rs[0]["values"]
        if len(by_point) > 1 or vals:
            desc = ", ".join(f"{k}={v}" for k, v in vals.items())
            lines.append(f"point {point}" + (f": {desc}" if desc else ""))
        head = ["strategy", "games", "wins", "win rate", "95% interval", "mean score"]
        body = [[r["strategy"], f"{r['games']:,}", f"{r['wins']:,.1f}", f"{100 * r['win_rate']:.1f}%",
                 f"{100 * r['low']:.1f}% - {100 * r['high']:.1f}%", f"{r['mean_total']:.1f}"]
                for r in sorted(rs, key=lambda r: -r["win_rate"])]
        widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
        fmt = lambda row: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                    for i, (c, w) in enumerate(zip(row, widths)))
        lines += ["  " + fmt(head), "  " + fmt(["-" * w for w in widths])] + ["  " + fmt(b) for b in body]
        if ends_by_point and point in ends_by_point:
            e = ends_by_point[point]
            lines.append(f"  game ends: {e[0]:,} normal, {e[1]:,} stalled, {e[2]:,} capped")
    return "\n".join(lines)


def summary_from_tables(path) -> list[dict]:
    """The same rows recomputed from a results folder's ``players`` and ``games``
    tables (for notebooks, and to check the runner's running sums)."""
    import json
    from pathlib import Path

    import polars as pl
    path = Path(path)
    manifest = json.loads((path / "manifest.json").read_text())
    labels = [e["label"] for e in manifest["config"]["entrants"]]
    stride = manifest["layout"]["stride"]
    block = manifest["layout"]["block_size"]
    df = (pl.scan_parquet(str(path / "players" / "*.parquet"))
          .with_columns(((pl.col("game").cast(pl.Int64) % stride) // block).alias("blk"),
                        pl.col("strategy").cast(pl.String))
          .group_by("point", "blk", "strategy")
          .agg(pl.col("win_share").cast(pl.Float64).sum().alias("W"), pl.len().alias("C"),
               pl.col("total").cast(pl.Float64).sum().alias("T"))
          .collect())
    stats = {}
    for (point,), g in df.group_by("point"):
        st = Stats.zeros(len(labels))
        blocks = g["blk"].unique().sort().to_list()
        bi = {b: i for i, b in enumerate(blocks)}
        W = np.zeros((len(blocks), len(labels)))
        C = np.zeros_like(W)
        T = np.zeros_like(W)
        for b, s, w, c, t in g.select("blk", "strategy", "W", "C", "T").iter_rows():
            e = labels.index(s)
            W[bi[b], e], C[bi[b], e], T[bi[b], e] = w, c, t
        st.add_blocks(W, C, T)
        stats[int(point)] = st
    values = {p["point"]: p["values"] for p in manifest["config"]["points"]}
    return summary_rows(labels, stats, values)


def head_to_head(path) -> list[dict]:
    """For every ordered pair of labels (A, B): A's mean win share in the games
    where A and B both sat at the table, with the same block-clustered 95%
    interval as the win rates. Read from a results folder's ``players`` table;
    meant for 2-player experiments (with more players a game counts for every
    pair at its table)."""
    import json
    from pathlib import Path

    import polars as pl
    path = Path(path)
    manifest = json.loads((path / "manifest.json").read_text())
    stride = manifest["layout"]["stride"]
    block = manifest["layout"]["block_size"]
    p = (pl.scan_parquet(str(path / "players" / "*.parquet"))
         .select("game", "strategy", pl.col("win_share").cast(pl.Float64))
         .with_columns(pl.col("strategy").cast(pl.String),
                       ((pl.col("game").cast(pl.Int64) % stride) // block).alias("blk")))
    pairs = (p.join(p.select("game", pl.col("strategy").alias("opponent")), on="game")
             .filter(pl.col("strategy") != pl.col("opponent"))
             .group_by("strategy", "opponent", "blk")
             .agg(pl.col("win_share").sum().alias("W"), pl.len().alias("C"))
             .with_columns((pl.col("W") / pl.col("C")).alias("m"))
             .group_by("strategy", "opponent")
             .agg(pl.col("C").sum().alias("n"), pl.col("W").sum().alias("w"), pl.len().alias("nb"),
                  pl.col("m").sum().alias("s1"), (pl.col("m") ** 2).sum().alias("s2"))
             .sort("strategy", "opponent").collect())
    lo, hi = interval(pairs["n"], pairs["w"], pairs["nb"], pairs["s1"], pairs["s2"])
    return [{"strategy": r["strategy"], "opponent": r["opponent"], "games": int(r["n"]),
             "win_rate": r["w"] / r["n"], "low": float(lo[i]), "high": float(hi[i])}
            for i, r in enumerate(pairs.iter_rows(named=True))]
