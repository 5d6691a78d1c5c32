"""The run summary: each strategy's win rate with its 95% interval and mean
score per sweep point, as rows and as a plain text table.

It is read from the results folder with the one reader
(:class:`~ttrsim.experiment.results.Results`) and computed by the one
statistics module (:mod:`ttrsim.experiment.stats`), so ``ttrsim run``'s
summary, :func:`summary_from_tables` and the report's win-rate table give the
same numbers, with the same interval, rounding and order (entrants in the
order of the experiment).

>>> rows = summary_from_tables("results/quickstart")                 # doctest: +SKIP
>>> rows[0]                                                          # doctest: +SKIP
{'point': 0, 'values': {}, 'strategy': 'planner', 'games': 20000, 'wins': 12448.5, 'win_rate': 0.622, ...}
"""
from __future__ import annotations

from .results import Results
from .stats import END_REASONS, end_reasons, interval_text, percent, win_rates


def summary_from_tables(res) -> list[dict]:
    """One row per sweep point and strategy (entrant order): point, values (the
    point's sweep values), strategy, games, wins, win_rate, low, high, mean_total.
    ``res``: a results folder or a :class:`~ttrsim.experiment.results.Results`."""
    res = Results.open(res)
    return [{"point": r["point"], "values": res.point_values.get(r["point"], {}), "strategy": r["strategy"],
             "games": r["games"], "wins": r["wins"], "win_rate": r["win_rate"], "low": r["low"], "high": r["high"],
             "mean_total": r["mean_score"]}
            for r in win_rates(res).iter_rows(named=True)]


def ends_by_point(res) -> dict[int, dict[str, int]]:
    """point -> games ended normal, stalled, capped."""
    out: dict[int, dict[str, int]] = {}
    for point, end, games in end_reasons(res).select("point", "end", "games").iter_rows():
        out.setdefault(int(point), {})[end] = int(games)
    return out


def format_summary(rows: list[dict], ends: dict | None = None) -> str:
    """A plain text table per sweep point (``ends``: :func:`ends_by_point`)."""
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
        body = [[r["strategy"], f"{r['games']:,}", f"{r['wins']:,.1f}", percent(r["win_rate"]),
                 interval_text(r["low"], r["high"]), f"{r['mean_total']:.1f}"] for r in rs]
        widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
        fmt = lambda row: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                    for i, (c, w) in enumerate(zip(row, widths)))
        lines += ["  " + fmt(head), "  " + fmt(["-" * w for w in widths])] + ["  " + fmt(b) for b in body]
        if ends and point in ends:
            lines.append("  game ends: " + ", ".join(f"{ends[point].get(e, 0):,} {e}" for e in END_REASONS))
    return "\n".join(lines)
