"""Effects of an intervention: the same deals played both ways, compared game by game.

An experiment with ``intervene:`` (docs/experiments.md "Interventions") plays
one arm per changed value and the unchanged arm ``control`` on the same seed
blocks: game ``n`` of every arm has the same deal, the same seating and the
same strategy streams, so the games differ only through the change (common
random numbers). The effect of an arm on a measure of a unit (a strategy
label, or the seat an offered ticket went to) is the mean paired difference

    d_n = y(arm, game n) - y(control, game n)

over the games both arms played, with the normal interval of the block
variance (the blocks are independent, the games of a block share their deal;
:func:`ttrsim.results.stats.mean_interval`). These are **effects**: the
change caused them. Rows picked among many arms are judged by Holm's adjusted
p-value over the family of arms (:func:`ttrsim.results.stats.holm`).

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "intervene": {"rules.first_seat": [1]},
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> rows = paired_effects(path)            # the arm first_seat=1 against the control
>>> rows.columns[:6]
['point', 'control', 'arm', 'unit', 'measure', 'games']
>>> tmp.cleanup()
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ttrsim.core.board import RP_OFFER_TICKET, build_board

from .reader import Results
from .stats import holm, mean_interval

__all__ = ["MEASURES", "WIDE", "OFFERED", "ALL", "intervention", "arm_pairs", "paired_effects", "wide_effects", "offer_uptake", "format_effects"]

# the paired measures: players-table column -> its name in the text, and its column prefix in wide_effects
MEASURES = {"win_share": "win share", "total": "score", "tickets_completed": "tickets completed"}
WIDE = {"win_share": "win", "total": "score", "tickets_completed": "tickets"}
OFFERED = "offered seat"      # the unit of an offered ticket: the seat it was offered to
ALL = "all seats"             # every seat-game: the mean change per player (of the win share: 0 by construction)


def intervention(res: Results) -> dict | None:
    """The folder's ``intervene`` record (:func:`ttrsim.experiment.intervene.arms`), or None."""
    return res.manifest["config"].get("intervene")


def arm_pairs(res) -> list[tuple[int, int, str]]:
    """(arm point, its control point, arm label) for every arm but the control:
    the control is the point with the same values of the other sweep keys.
    Without an intervention every sweep point is an arm against the first point
    (the label: its values)."""
    res = Results.open(res)
    if intervention(res) is None:
        first = res.point_ids[0]
        return [(p, first, ", ".join(f"{k}={v}" for k, v in res.point_values[p].items()))
                for p in res.point_ids[1:]]
    rest = lambda v: tuple(sorted((k, repr(x)) for k, x in v.items() if k != "arm"))  # noqa: E731
    control = {rest(v): p for p, v in res.point_values.items() if v.get("arm") == "control"}
    return [(p, control[rest(v)], v["arm"]) for p, v in res.point_values.items()
            if v.get("arm") not in (None, "control") and rest(v) in control]


def paired_effects(res) -> pl.DataFrame:
    """One row per arm, unit and measure: point, control, arm, unit (a strategy
    label (not with seating ``fixed``, where a label is its seat), ``seat k``
    (1-based), :data:`ALL` or :data:`OFFERED`), measure (a key of :data:`MEASURES`), games
    (paired games), blocks (deals), effect, low, high (95%), p (effect = 0),
    p_holm (Holm over the arms of the same unit and measure). Without an
    intervention the arms are the sweep points against the first
    (:func:`arm_pairs`); empty without either."""
    res = Results.open(res)
    pairs = arm_pairs(res)
    cols = {"point": pl.UInt16, "control": pl.UInt16, "arm": pl.String, "unit": pl.String, "measure": pl.String,
            "games": pl.Int64, "blocks": pl.Int64, "effect": pl.Float64, "low": pl.Float64, "high": pl.Float64,
            "p": pl.Float64, "p_holm": pl.Float64}
    if not pairs:
        return pl.DataFrame(schema=cols)
    iv = intervention(res)
    stride, bs = int(res.manifest["layout"]["stride"]), int(res.manifest["layout"]["block_size"])
    m = list(MEASURES)
    players = (res.scan("players").select("game", "point", "seat", pl.col("strategy").cast(pl.String),
                                          *[pl.col(c).cast(pl.Float64) for c in m])
               .with_columns((pl.col("game").cast(pl.Int64) - pl.col("point").cast(pl.Int64) * stride).alias("n"))
               .collect())
    # with seating fixed a label always sits in one seat: its effect is that seat's
    labels = [] if res.manifest["config"].get("seating") == "fixed" else list(res.labels)
    rows = []
    for point, control, arm in pairs:
        a = players.filter(pl.col("point") == point)
        c = players.filter(pl.col("point") == control).select("n", "seat", *m)
        j = (a.join(c, on=["n", "seat"], suffix="_c")
             .with_columns((pl.col("n") // bs).alias("block"), *[(pl.col(x) - pl.col(f"{x}_c")).alias(x) for x in m]))
        units = ([(OFFERED, j.filter(pl.col("seat") == iv["seat"]))] if iv and iv.get("seat") is not None else []) + \
            [(lab, j.filter(pl.col("strategy") == lab)) for lab in labels] + \
            [(f"seat {s + 1}", j.filter(pl.col("seat") == s)) for s in range(res.players)] + [(ALL, j)]
        for unit, df in units:
            if df.is_empty():
                continue
            blocks = df.group_by("block").agg(pl.len().alias("k"), *[pl.col(x).sum() for x in m]).sort("block")
            for x in m:
                effect, low, high, p = mean_interval(blocks[x].to_numpy(), blocks["k"].to_numpy().astype(float))
                rows.append({"point": point, "control": control, "arm": arm, "unit": unit, "measure": x,
                             "games": int(blocks["k"].sum()), "blocks": blocks.height, "effect": effect,
                             "low": low, "high": high, "p": p})
    df = pl.DataFrame(rows, schema={k: v for k, v in cols.items() if k != "p_holm"})
    adj = np.full(df.height, np.nan)
    for *_, idx in df.with_row_index("i").group_by("unit", "measure", maintain_order=True).agg("i").iter_rows():
        adj[idx] = holm(df["p"].to_numpy()[idx])
    return df.with_columns(pl.Series("p_holm", adj))


def wide_effects(eff: pl.DataFrame) -> pl.DataFrame:
    """:func:`paired_effects` with one row per arm and unit, in its order:
    point, control, arm, unit, games, blocks, then per measure its prefix of
    :data:`WIDE` with effect, low, high, p and p_holm (``win_effect``, ...);
    an interval without bounds (one block) and an undefined p are nulls."""
    keys = ["point", "control", "arm", "unit", "games", "blocks"]
    wide = None
    for measure, name in WIDE.items():
        part = eff.filter(pl.col("measure") == measure).select(
            *keys, *[pl.col(c).alias(f"{name}_{c}") for c in ("effect", "low", "high", "p", "p_holm")])
        wide = part.with_row_index("_row") if wide is None else wide.join(part, on=keys)
    stats = [c for c in wide.columns if c not in keys and c != "_row"]
    return (wide.sort("_row").drop("_row")
            .with_columns(pl.when(pl.col(c).is_finite()).then(pl.col(c)).alias(c) for c in stats))


def offer_uptake(res) -> pl.DataFrame:
    """For an ``offer_ticket`` intervention, per arm: ticket (id), points
    (printed), offered (share of the arm's games where the offered seat had
    it at setup: 1 by construction), kept and completed (shares of those
    games), and the same three in the control (a deal may offer it anyway)."""
    res = Results.open(res)
    iv = intervention(res)
    if iv is None or iv.get("kind") != "offer_ticket":
        return pl.DataFrame()
    games = res.games_by_point.select("point", "games")
    tk = (res.scan("tickets").filter(pl.col("setup") & (pl.col("seat") == iv["seat"]))
          .select("point", "ticket", "kept", pl.col("completed").fill_null(False)).collect())
    rows = []
    for point, control, arm in arm_pairs(res):
        t = int(build_board(res.rules_at(point), res.map).rp[RP_OFFER_TICKET])
        row = {"arm": arm, "ticket": t, "points": int(res.map.ticket_points[t])}
        for side, pt in (("", point), ("control_", control)):
            n = int(games.filter(pl.col("point") == pt)["games"].sum())
            got = tk.filter((pl.col("point") == pt) & (pl.col("ticket") == t))
            row |= {f"{side}offered": got.height / max(n, 1), f"{side}kept": float(got["kept"].sum()) / max(n, 1),
                    f"{side}completed": float(got["completed"].sum()) / max(n, 1)}
        rows.append(row)
    return pl.DataFrame(rows)


def _signed(x: float, measure: str) -> str:
    return f"{x * 100:+.1f} pp" if measure == "win_share" else f"{x:+.2f}"


def format_effects(df: pl.DataFrame, limit: int = 12) -> str:
    """The run summary's lines on an intervention: per arm, its win-share and
    score effects on the offered seat (or on each strategy), strongest first."""
    if df.is_empty():
        return ""
    unit = OFFERED if (df["unit"] == OFFERED).any() else None
    ws = df.filter(pl.col("measure") == "win_share")
    sc = df.filter(pl.col("measure") == "total").select("arm", "unit", pl.col("effect").alias("score"),
                                                         pl.col("low").alias("s_low"), pl.col("high").alias("s_high"))
    t = ws.join(sc, on=["arm", "unit"])
    if unit:
        t = t.filter(pl.col("unit") == unit)
    t = t.sort(pl.col("effect").abs(), descending=True)
    n_arms = ws["arm"].n_unique()
    lines = [f"effects (paired: each arm against 'control' on the same {int(ws['blocks'].max()):,} deals; "
             f"95% intervals; 'holds' = Holm-adjusted p < 0.05 over {n_arms} arm{'s' * (n_arms > 1)}):"]
    for r in t.head(limit).iter_rows(named=True):
        score = f"score {r['score']:+.2f} [{r['s_low']:+.2f}, {r['s_high']:+.2f}]"
        if r["unit"] == ALL:              # win shares sum to 1 in every game: only the score moves
            lines.append(f"  {r['arm']}: {ALL}: {score} per player")
            continue
        lines.append(f"  {r['arm']}: {r['unit']}: win share {_signed(r['effect'], 'win_share')} "
                     f"[{r['low'] * 100:+.1f}, {r['high'] * 100:+.1f}], {score}"
                     + ("  holds" if r["p_holm"] < 0.05 else ""))
    if t.height > limit:
        lines.append(f"  ... {t.height - limit} more rows: ttrsim report, or ttrsim.results.effects.paired_effects")
    return "\n".join(lines)
