"""sha1 of the final breakdown of seeded games: 5 presets x 5 strategy mixes x N seeds (every built-in strategy).
The five presets before Europe, and the breakdown's columns before Europe's (station) ones (issue 17).
usage: python digest.py [N] [--classic]   (run from any folder with the interpreter whose ttrsim you want to check)

A change that must keep games identical keeps the digest. With N = 200 it prints
363c7ce21e291110f33a002dd04bb524133c2258 (the planner with its fitted defaults per rule set and player count, issue 31). With --classic every planner
seat is planner_classic, the planner before it: that prints 31472b604242a445bd871244ee3d4d0816130aae, the digest
of every earlier version since the seeding of issue 19, so old games are still reproduced exactly."""
import hashlib
import sys

import numpy as np

from ttrsim.core.board import build_board
from ttrsim.data.rules import get_rules
from ttrsim.play import loop
from ttrsim.strategies import param_row, strategy_id

args = [a for a in sys.argv[1:] if a != "--classic"]
N = int(args[0]) if args else 200
P = "planner_classic" if "--classic" in sys.argv else "planner"
MIXES = [["random", "greedy", "random", "greedy"], [P, "destination_hungry", "route_focus", "one_step"],
         ["long_route", P, "passenger_hunter", "route_focus"], [P] * 3, ["one_step", "long_route"]]
h = hashlib.sha1()
PRESETS = ("usa", "usa-1910", "usa-mega", "usa-bigcities", "germany")
COLUMNS = 12            # the F_* columns up to F_WINNER
for rules in PRESETS:
    b = build_board(get_rules(rules))
    for mix in MIXES:
        n = len(mix)
        ids = np.array([strategy_id(m) for m in mix], np.int64)
        params = np.stack([param_row(m) for m in mix])
        seeds = np.arange(1000, 1000 + N, dtype=np.int64)
        finals = loop.play_finals(b, n, seeds, ids, params)
        h.update(np.ascontiguousarray(finals[:, :, :COLUMNS]).tobytes())
print(h.hexdigest())
