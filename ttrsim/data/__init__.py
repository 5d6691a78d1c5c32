"""The data layer: the domain's named small-int ids, the rule parameters and
presets, and the maps (YAML files and their loader). Plain Python, no numba;
every other layer builds on it (see docs/architecture.md)."""
