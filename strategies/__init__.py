"""Built-in strategies, registered by name.

A compiled strategy is a module with ``choose(b, s, legal, n_legal, params) ->
action``: ``b`` the board, ``s`` the game state (read only what the acting seat
may see), ``legal[:n_legal]`` the legal actions, ``params`` the float64 array
of parameters, one row per seat (``params[seat]``; rows are not sliced out in
the hot loop, since making an array view costs more than a rule helper). :func:`strategies.dispatch.choose` calls it by registry id
inside the compiled game loop.
"""
STRATEGY_NAMES = ("random",)
STRATEGY_IDS = {name: i for i, name in enumerate(STRATEGY_NAMES)}
