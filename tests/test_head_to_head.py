"""Head-to-head rates of a 2-player round robin (ttrsim.report.head_to_head):
at 2-player tables, finishing ahead is winning, so the rate is the win share."""
import polars as pl

from ttrsim.experiment.runner import run_experiment
from ttrsim.report import head_to_head


def test_head_to_head_pairs_are_complementary_and_match_the_games(tmp_path):
    r = run_experiment({"name": "h2h", "rules": "usa", "players": 2, "seating": "round_robin",
                        "pool": ["random", "greedy", "long_route"], "games": 120, "seed": 3},
                       output=str(tmp_path / "h2h"), workers=1, progress=False)
    rows = {(x["strategy"], x["opponent"]): x for x in head_to_head(r.path).iter_rows(named=True)}
    assert len(rows) == 6
    players = pl.read_parquet(str(r.path / "players" / "*.parquet")).with_columns(
        pl.col("strategy").cast(pl.String))
    for (a, b), row in rows.items():
        assert abs(row["ahead_rate"] + rows[(b, a)]["ahead_rate"] - 1) < 1e-9
        assert row["games"] == rows[(b, a)]["games"] == 40
        assert row["low"] <= row["ahead_rate"] <= row["high"]
        games = players.filter(pl.col("strategy") == b)["game"]
        mine = players.filter((pl.col("strategy") == a) & pl.col("game").is_in(games.implode()))
        assert abs(mine["win_share"].mean() - row["ahead_rate"]) < 1e-6
