"""Experiments: the YAML configuration, seatings and seed blocks, the chunk
worker, the backends, the results folder and the runner (see
docs/experiments.md and docs/architecture.md)."""
