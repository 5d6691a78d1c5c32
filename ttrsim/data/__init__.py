"""The data layer: the domain's named small-int ids, the rule parameters and
presets, the maps (YAML files and their loader), the one YAML loader of every
file and value the project reads (``yamlfile``) and the checks and message
phrases its validators share (``checks``). Plain Python, no numba; every other
layer builds on it (see docs/architecture.md)."""
