"""ttrsim: a fast, headless Monte Carlo simulator for Ticket to Ride.

The package is layered (docs/architecture.md): ``ttrsim.data`` (ids, rules,
maps), ``ttrsim.core`` (the compiled rules), ``ttrsim.strategies`` (built-in
strategies), ``ttrsim.play`` (game loops, ``Game``), ``ttrsim.experiment``
(the runner), ``ttrsim.report`` and ``ttrsim.cli``. Importing ``ttrsim`` itself
loads none of them.
"""
__version__ = "0.1.0"
# The version of the games: the same seed, rules and strategies give the same
# game only within one version (a results folder of another version is not
# resumed). 2: random streams seeded by a hash of (seed, lane).
GAMES_VERSION = 2

