"""Playing games: the compiled game loops over the built-in strategies, the
Python :class:`~ttrsim.play.game.Game`, Python-stepped play, narration, the turn
log, fuzzing and benchmarks (see docs/architecture.md). Nothing is imported
here, so ``from ttrsim.play.game import Game`` loads no strategy."""
