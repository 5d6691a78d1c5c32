"""A Python strategy module that fails on import (for python_import_error.yaml)."""
raise RuntimeError("this module is broken on purpose")
