"""``python -m ttrsim``: the same as the ``ttrsim`` command."""
from ttrsim.cli import main

if __name__ == "__main__":
    main()
