"""The strategies' shared toolkit: what several strategies (and the game
loops) use.

- :mod:`.graph_search`: cheapest paths over the board (Dijkstra with route costs);
- :mod:`.network_plans`: a network joining a set of tickets (Steiner-like plans);
- :mod:`.connectivity`: a seat's components and its unfinished tickets;
- :mod:`.action_picks`: a wish (a colour, a route, a ticket mix) turned into a
  legal action, and :func:`.action_picks.legal_list`, the list a kernel is given;
- :mod:`.europe_moves`: tunnels and stations (Europe);
- :mod:`.memory`: the table's :class:`~.memory.StrategyMemory`;
- :mod:`.dispatch`: the compiled call from the game loop to a strategy's kernel.

Nothing here imports a strategy's package (``planner``, ``search``,
``published``) except :mod:`.dispatch`, which reaches every kernel through the
registry (``tests/test_architecture.py`` checks it).
"""
