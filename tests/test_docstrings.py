"""The runnable examples in the docstrings of the engine, the strategies and
the game loops run and give what they show."""
import doctest
import importlib

import pytest

MODULES = ["ttrsim.core.actions", "ttrsim.core.bitset", "ttrsim.core.board", "ttrsim.core.engine", "ttrsim.core.state", "ttrsim.strategies",
           "ttrsim.strategies.spec",
           "ttrsim.strategies.kit.memory", "ttrsim.strategies.kit.graph_search", "ttrsim.strategies.kit.connectivity",
           "ttrsim.strategies.kit.network_plans", "ttrsim.strategies.kit.action_picks", "ttrsim.strategies.python_example",
           "ttrsim.strategies.search.rollout", "ttrsim.strategies.search.determinize", "ttrsim.strategies.search",
           "ttrsim.play.loop", "ttrsim.play.turnlog", "ttrsim.play.game", "ttrsim.play.pyplay", "ttrsim.play.narrate",
           "ttrsim.play.bench", "ttrsim.strategies.kit.dispatch", "ttrsim.core.jitcache",
           "ttrsim.experiment.load", "ttrsim.experiment.tables", "ttrsim.experiment.file_schema",
           "ttrsim.strategies.fitted", "ttrsim.strategies.planner.tickets", "ttrsim.experiment.cluster",
           "ttrsim.experiment.store"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
