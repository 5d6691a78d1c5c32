"""Experiments: the YAML configuration, seatings and seed blocks, the chunk
worker, the backends and the runner, which writes its results folder through
:mod:`ttrsim.results` (see docs/experiments.md and docs/architecture.md)."""
