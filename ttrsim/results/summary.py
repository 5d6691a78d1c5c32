"""The run summary: each strategy's win rate with its 95% interval and mean
score per sweep point, as rows and as a plain text table, and the sentences
that say what the seating design controls.

It is read from the results folder with the one reader
(:class:`~ttrsim.results.reader.Results`) and computed by the one
statistics module (:mod:`ttrsim.results.stats`), so ``ttrsim run``'s
summary, :func:`summary_from_tables` and the report's win-rate table give the
same numbers, with the same interval, rounding and order (highest win rate
first). Games that replay another game of their block (the same deal with the
same strategy in every seat) count once (:func:`ttrsim.results.stats.replays`),
and a rate fixed by the design gets no interval.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> rows = summary_from_tables(path)
>>> {k: rows[0][k] for k in ("point", "values", "strategy", "games", "distinct", "wins", "mean_total")}
{'point': 0, 'values': {}, 'strategy': 'route_focus', 'games': 4, 'distinct': 4.0, 'wins': 4.0, 'mean_total': 143.5}
>>> tmp.cleanup()
>>> for line in notes([{"point": 0, "strategy": "p", "games": 8, "distinct": 2, "fixed": True,
...                      "win_rate": 0.25, "seat": None, "same_as": None}]):
...     print(line)                                                  # doctest: +NORMALIZE_WHITESPACE
2 distinct games of 8 played: the others replay a game of their seed block (the same deal with the same
  strategy in every seat); every rate counts a distinct game once.
p: 25.0% by design (each sat in every seat of every replayed game): no interval.
"""
from __future__ import annotations

from .reader import Results
from .stats import END_REASONS, clones, end_reasons, interval_text, percent, player_keys, win_rates

__all__ = ["summary_from_tables", "ends_by_point", "format_summary", "notes", "design_text", "SEATING_TEXT"]

# what each seating design controls and what it leaves confounded (the report's header quotes it)
SEATING_TEXT = {
    "rotate": "seating `rotate`: each seed block plays one deal once per rotation of the line-up, so every "
              "strategy sits in every seat equally often on the same deals; seat and strategy are not confounded",
    "permute": "seating `permute`: each seed block plays one deal in every ordering of the line-up, so every "
               "strategy sits in every seat, after every other, on the same deals; seat and strategy are not "
               "confounded",
    "round_robin": "seating `round_robin`: each seed block plays one deal at every table of the pool, each table "
                   "rotated, so every strategy meets every other equally often in every seat on the same deals",
    "fixed": "seating `fixed`: every strategy always sits in the same seat (line-up order; seat 1 plays first) and "
             "every game is a new deal, so seats are not balanced: a strategy's win rate includes its seat's "
             "advantage (seat and strategy are confounded), and a seat's win rate is its strategy's",
}


def summary_from_tables(res) -> list[dict]:
    """One row per sweep point and strategy, highest win rate first: point, values
    (the point's sweep values), strategy, games (played), distinct (distinct games),
    wins, win_rate, low, high (None when ``fixed``), mean_total, fixed (the rate is
    1/players by design), seat (1-based: the seat it always took with seating
    fixed, else None), same_as (the first label of the same player, else None).
    ``res``: a results folder or a :class:`~ttrsim.results.reader.Results`."""
    res = Results.open(res)
    seating = res.manifest["config"].get("seating")
    seat = {res.labels[e]: s + 1 for s, e in enumerate(res.seatings[0])} if seating == "fixed" else {}
    same = {p: {lab: g[0] for g in clones(res, p) for lab in g[1:]} for p in res.point_ids}
    return [{"point": r["point"], "values": res.point_values.get(r["point"], {}), "strategy": r["strategy"],
             "games": r["games"], "distinct": round(r["distinct"], 3), "wins": r["wins"], "win_rate": r["win_rate"],
             "low": r["low"], "high": r["high"], "mean_total": r["mean_score"], "fixed": r["fixed"],
             "seat": seat.get(r["strategy"]), "same_as": same.get(r["point"], {}).get(r["strategy"])}
            for r in win_rates(res).iter_rows(named=True)]


def ends_by_point(res) -> dict[int, dict[str, int]]:
    """point -> games ended normal, stalled, capped."""
    out: dict[int, dict[str, int]] = {}
    for point, end, games in end_reasons(res).select("point", "end", "games").iter_rows():
        out.setdefault(int(point), {})[end] = int(games)
    return out


def _names(labels: list[str]) -> str:
    return ", ".join(labels[:-1]) + " and " + labels[-1] if len(labels) > 1 else labels[0]


def notes(rows: list[dict]) -> list[str]:
    """What a reader must know to read the rows of one point (:func:`summary_from_tables`):
    distinct games, rates fixed by design, strategies that are one player, seats
    confounded with strategies. One sentence each."""
    out = []
    games = max((r["games"] for r in rows), default=0)
    distinct = max((r["distinct"] for r in rows), default=0)
    if distinct < games:
        out.append(f"{distinct:,.0f} distinct games of {games:,} played: the others replay a game of their seed "
                   "block (the same deal with the same strategy in every seat); every rate counts a distinct game "
                   "once.")
    fixed = [r["strategy"] for r in rows if r.get("fixed")]
    if fixed:
        rate = next(r["win_rate"] for r in rows if r.get("fixed"))
        out.append(f"{_names(fixed)}: {percent(rate)} by design (each sat in every seat of every replayed game): "
                   "no interval.")
    groups: dict[str, list[str]] = {}
    for r in rows:
        if r.get("same_as"):
            groups.setdefault(r["same_as"], [r["same_as"]]).append(r["strategy"])
    seats = {r["strategy"]: r["seat"] for r in rows if r.get("seat")}
    for labels in groups.values():
        if seats:
            out.append(f"{_names(labels)} are one strategy with the same parameters, each always in its own seat "
                       f"({', '.join(f'seat {seats[x]}' for x in labels)}): the differences between them are "
                       "seat effects.")
        elif not set(labels) <= set(fixed):
            out.append(f"{_names(labels)} are one strategy with the same parameters: they differ only by chance.")
    if seats and not groups:
        out.append("seating fixed: each strategy always sits in one seat, so its win rate includes that seat's "
                   "advantage.")
    return out


def design_text(res) -> str:
    """One sentence on the experiment's seating design: what it balances and what it confounds."""
    res = Results.open(res)
    seating = res.manifest["config"].get("seating") or "rotate"
    if seating == "fixed" and len(set(player_keys(res, res.point_ids[0]))) == 1:
        return ("Seating `fixed` with the same strategy in every seat, every game a new deal: the strategy is "
                "controlled, so the differences between seats are the seats' own (turn order); the deals are "
                "independent, not paired across seats.")
    return SEATING_TEXT.get(seating, f"seating `{seating}`").capitalize() + "."


def format_summary(rows: list[dict], ends: dict | None = None) -> str:
    """A plain text table per sweep point (``ends``: :func:`ends_by_point`), then its :func:`notes`;
    ``games`` are the distinct games the rates are over."""
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
        body = [[r["strategy"], f"{r['distinct']:,.0f}", f"{r['wins']:,.1f}", percent(r["win_rate"]),
                 "by design" if r.get("fixed") else interval_text(r["low"], r["high"]), f"{r['mean_total']:.1f}"]
                for r in rs]
        widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
        fmt = lambda row: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                    for i, (c, w) in enumerate(zip(row, widths)))
        lines += ["  " + fmt(head), "  " + fmt(["-" * w for w in widths])] + ["  " + fmt(b) for b in body]
        if ends and point in ends:
            lines.append("  game ends: " + ", ".join(f"{ends[point].get(e, 0):,} {e}" for e in END_REASONS))
        lines += [f"  note: {n}" for n in notes(rs)]
    return "\n".join(lines)
