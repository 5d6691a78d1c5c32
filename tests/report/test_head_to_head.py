"""Head-to-head rates of a 2-player round robin (ttrsim.report.head_to_head):
at 2-player tables, finishing ahead is winning, so the rate is the win share."""
import polars as pl

from ttrsim.experiment.runner import run_experiment
from ttrsim.report import head_to_head

from helpers import benchmark_script


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
        mine = players.filter((pl.col("strategy") == a) & pl.col("game").is_in(games.to_list()))
        assert abs(mine["win_share"].mean() - row["ahead_rate"]) < 1e-6


def test_paired_runs_play_the_same_deals_and_difference_block_by_block(tmp_path, monkeypatch, capsys):
    """benchmarks/head_to_head.py: the per-block shares average to the rate;
    a setting paired with itself differs by exactly 0; --baseline-params and
    --save / --paired-with print the same paired difference."""
    import numpy as np
    h = benchmark_script("head_to_head")
    mean, lo, hi, cpu, block = h.head_to_head("long_route", "greedy", "usa", 2, 12, 5, {"min_len": 2}, blocks=True)
    assert block.shape == (12,) and abs(block.mean() - mean) < 1e-12 and lo <= mean <= hi
    assert (block >= 0).all() and (block <= 1).all()
    again = h.head_to_head("long_route", "greedy", "usa", 2, 12, 5, {"min_len": 2}, blocks=True)[4]
    assert np.array_equal(block, again)                                   # the same seeds, the same games
    assert h.paired(block, again) == (0.0, 0.0, 0.0)
    other = h.head_to_head("long_route", "greedy", "usa", 2, 12, 5, {"min_len": 4}, blocks=True)[4]
    d, dlo, dhi = h.paired(block, other)
    assert abs(d - (block.mean() - other.mean())) < 1e-12 and dlo <= d <= dhi
    args = ["head_to_head.py", "long_route", "greedy", "--configs", "usa:2", "--games", "24", "--seed", "5",
            "--params", '{"min_len": 2}']
    monkeypatch.setattr("sys.argv", args + ["--baseline-params", '{"min_len": 4}'])
    h.main()
    paired_line = [x for x in capsys.readouterr().out.splitlines() if "paired difference" in x]
    assert paired_line == [f"  paired difference (params - baseline) usa 2p: {100 * d:+.1f} points "
                           f"[{100 * dlo:+.1f}, {100 * dhi:+.1f}] over 12 deals"]
    saved = tmp_path / "base.npz"
    monkeypatch.setattr("sys.argv", args[:-1] + ['{"min_len": 4}', "--save", str(saved)])
    h.main()
    assert np.array_equal(np.load(saved)["usa:2:5"], other)
    capsys.readouterr()
    monkeypatch.setattr("sys.argv", args + ["--paired-with", str(saved)])
    h.main()
    assert [x for x in capsys.readouterr().out.splitlines() if "paired difference" in x] == paired_line
