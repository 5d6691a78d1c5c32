"""benchmarks/tuner_methods.py (docs/tune.md, "Which search method"): the
planted oracle at a tiny budget gives every method a quality, the shipped
tuner is the one driven, and the same arguments give the same numbers."""
import math

import pytest

from helpers import benchmark_script


@pytest.fixture(scope="module")
def bench():
    return benchmark_script("tuner_methods")


def test_every_method_gets_a_quality_within_the_budget(bench, capsys):
    args = ["--budgets", "400", "--dims", "3", "--runs", "2", "--seed", "5"]
    res = bench.main(args)[(400, 3)]
    assert set(res) == set(bench.METHODS)
    for runs in res.values():
        assert len(runs) == 2
        for quality, regret, games in runs:
            assert math.isfinite(quality) and regret >= 0 and 0 < games <= 400
    assert bench.main(args)[(400, 3)] == res          # deterministic
    assert "| ntbea | 400 | 3 | 2 |" in capsys.readouterr().out


def test_halving_is_the_shipped_tuner(bench):
    from ttrsim.tune.run import _Tune
    assert issubclass(bench.OracleTune, _Tune) and "run" not in bench.OracleTune.__dict__
