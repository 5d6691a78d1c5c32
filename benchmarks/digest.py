"""sha1 of the final breakdown of seeded games: 5 presets x 5 strategy mixes x N seeds (every built-in strategy).
usage: python digest.py [N]   (run from any folder with the interpreter whose ttrsim you want to check)

Copied from the lead's /work/scratch/digest.py; only the game-loop call is adapted to the table API
(ttrsim.play.loop.play_finals). With N = 200 it printed 31472b604242a445bd871244ee3d4d0816130aae before the
strategy memory left the game state, and must still print it."""
import hashlib, sys
import numpy as np
from ttrsim.data.rules import get_rules, preset_names
from ttrsim.core.board import build_board
from ttrsim.play import loop
from ttrsim.strategies import param_row, strategy_id

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
MIXES = [["random", "greedy", "random", "greedy"], ["planner", "destination_hungry", "route_focus", "one_step"],
         ["long_route", "planner", "passenger_hunter", "route_focus"], ["planner"] * 3, ["one_step", "long_route"]]
h = hashlib.sha1()
for rules in preset_names():
    b = build_board(get_rules(rules))
    for mix in MIXES:
        n = len(mix)
        ids = np.array([strategy_id(m) for m in mix], np.int64)
        params = np.stack([param_row(m) for m in mix])
        seeds = np.arange(1000, 1000 + N, dtype=np.int64)
        finals = loop.play_finals(b, n, seeds, ids, params)
        h.update(np.ascontiguousarray(finals).tobytes())
print(h.hexdigest())
