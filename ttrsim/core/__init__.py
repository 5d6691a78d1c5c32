"""The compiled rules core: the board and state records, the action codec,
setup, legality, applying actions and scoring. Plain numba kernels over
small-int arrays; no I/O, no strategy (see docs/architecture.md).

Importing it registers ttrsim's source-keyed kernel cache and numba patches
(importing :mod:`ttrsim.jit`) before any kernel is defined.
"""
import ttrsim.jit  # noqa: F401
