"""The runnable examples in the docstrings of the engine, the strategies and
the game loops run and give what they show."""
import doctest
import importlib

import pytest

MODULES = ["ttrsim.core.actions", "ttrsim.core.bitset", "ttrsim.core.board", "ttrsim.core.engine", "ttrsim.core.state", "ttrsim.strategies",
           "ttrsim.strategies.spec",
           "ttrsim.strategies.memory", "ttrsim.strategies.graph_search", "ttrsim.strategies.connectivity",
           "ttrsim.strategies.network_plans", "ttrsim.strategies.action_picks", "ttrsim.strategies.python_example",
           "ttrsim.strategies.rollout", "ttrsim.strategies.determinize", "ttrsim.strategies.search",
           "ttrsim.play.loop", "ttrsim.play.turnlog", "ttrsim.play.game", "ttrsim.play.pyplay", "ttrsim.play.narrate",
           "ttrsim.play.bench", "ttrsim.strategies.dispatch", "ttrsim.jit.cache", "ttrsim.jit.patches",
           "ttrsim.jit.record", "ttrsim.jit.intrinsics", "ttrsim.jit.dispatch",
           "ttrsim.results.load", "ttrsim.results.tables", "ttrsim.experiment.file_schema",
           "ttrsim.strategies.fitted", "ttrsim.strategies.planner_tickets", "ttrsim.experiment.cluster",
           "ttrsim.results.store", "ttrsim.results", "ttrsim.experiment.schema", "ttrsim.data.maps.geometry"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
