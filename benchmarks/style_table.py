"""How a strategy plays in self-play: the style table of docs/strategies.md ("Styles").

Each row seats four (or ``--players``) copies of one strategy (a built-in name, optionally with
parameters as JSON after a colon) at fixed seats, plays ``--games`` games with the turn log on
the seed ``--seed`` (the same deals for every row) and prints, per row: the winning score (mean,
5th-95th percentile), tickets completed by the winner, tickets kept per player, in-game ticket
draws per player, the share of seats that never draw a ticket after setup, the longest path
(mean over seats) and the turns per player. Shared wins count every winner.

usage: python benchmarks/style_table.py [--rules usa-mega] [--players 4] [--games 1000] [--seed S]
           [--workers N] [--out DIR] ROW [ROW ...]

ROW is ``LABEL=STRATEGY`` or ``LABEL=STRATEGY:{"param": value}``, e.g.

    python benchmarks/style_table.py --rules usa-mega --players 4 --games 1000 --seed 9100000 \\
        'before=planner:{"tk_globe": 0, "tk_longest": 0, "tk_train_cost": 1.0, "draw_value0": -13.35}' \\
        planner=planner tickets=planner_tickets routes=planner_routes

A strategy plays its fitted set of the rule set and player count (strategies/fitted.py) under
its given parameters, as in any experiment.
"""
import argparse
import json
import shutil
import tempfile
from pathlib import Path

import polars as pl

from ttrsim.experiment.runner import run_experiment
from ttrsim.results.reader import Results

COLUMNS = ("row", "games", "win score", "5-95%", "winner's tickets", "kept/player", "draws/player", "never draw",
           "longest path", "turns/player")


def style_row(path, players: int) -> dict:
    """The style figures of one self-play results folder (turn log on)."""
    res = Results.open(path)
    seats = res.scan("players").with_columns(
        (pl.col("tickets_completed") + pl.col("tickets_failed")).alias("kept")).collect()
    draws = (res.scan("turns").filter(pl.col("action").cast(pl.String) == "tickets")
             .group_by("game", "seat").agg(pl.len().alias("draws")).collect())
    seats = seats.join(draws, on=["game", "seat"], how="left").with_columns(pl.col("draws").fill_null(0))
    games = res.scan("games").select(pl.col("turns").cast(pl.Float64)).collect()["turns"]
    won = seats.filter(pl.col("winner"))
    total = won["total"].cast(pl.Float64)
    return {"games": len(games), "win score": total.mean(), "5-95%": (total.quantile(0.05), total.quantile(0.95)),
            "winner_tickets": won["tickets_completed"].mean(), "kept/player": seats["kept"].mean(),
            "draws/player": seats["draws"].mean(), "never draw": (seats["draws"] == 0).mean(),
            "longest path": seats["longest_path"].mean(), "turns/player": games.mean() / players}


def parse_row(text: str) -> tuple[str, str, dict]:
    label, _, spec = text.partition("=")
    strategy, _, params = (spec or label).partition(":")
    return label, strategy, json.loads(params) if params else {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--rules", default="usa-mega")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=9100000)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", default=None, help="keep the results folders here (default: a temporary folder)")
    a = ap.parse_args()
    out = Path(a.out) if a.out else Path(tempfile.mkdtemp(prefix="style_table_"))
    print(f"{a.rules}, {a.players} players, self-play at fixed seats, {a.games} games a row, seed {a.seed}")
    print(" | ".join(COLUMNS))
    try:
        for text in a.rows:
            label, strategy, params = parse_row(text)
            lineup = [{"strategy": strategy, "params": params, "label": label + ("" if i == 0 else f"-{i + 1}")}
                      for i in range(a.players)]
            r = run_experiment({"name": f"style_{label}", "rules": a.rules, "players": a.players, "seating": "fixed",
                                "lineup": lineup, "games": a.games, "seed": a.seed, "log": True,
                                "output": str(out / label)}, workers=a.workers, progress=False, echo=False,
                               overwrite=True)
            f = style_row(r.path, a.players)
            lo, hi = f["5-95%"]
            print(f"{label} | {f['games']} | {f['win score']:.1f} | {lo:.0f}-{hi:.0f} | {f['winner_tickets']:.2f} | "
                  f"{f['kept/player']:.2f} | {f['draws/player']:.2f} | {100 * f['never draw']:.0f}% | "
                  f"{f['longest path']:.1f} | {f['turns/player']:.1f}", flush=True)
    finally:
        if not a.out:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
