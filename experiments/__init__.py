"""The example and study experiments (the top-level ``experiments/`` folder,
installed as ``ttrsim.examples``): ``ttrsim examples`` lists them and copies
one to edit, ``ttrsim run NAME`` runs one by name."""
