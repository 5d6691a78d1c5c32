"""An example user-written Python strategy (the slow, flexible protocol of
:mod:`ttrsim.play.pyplay`): keep every offered ticket, claim the longest route it
can pay (using as few locomotives as possible), otherwise draw blind.

With its default parameters it makes exactly the decisions of the compiled
``greedy`` strategy, so an experiment seating it gives the same tables
(``tests/experiment/test_experiment_python.py``). An experiment seats it with::

    lineup:
      - {python: "ttrsim.strategies.python_example:GreedyLongest", params: {min_length: 1}, label: greedy_py}

>>> from ttrsim.play.pyplay import play
>>> play("usa", 2, seed=1, seats=[GreedyLongest(), "random"]).over
True
"""
from ttrsim.core.actions import A_BLIND, A_CLAIM, A_KEEP, A_PASSENGER, claims_end, decode_claim


class GreedyLongest:
    """Plays by reading only the observation and the legal actions.

    ``min_length``: claim only routes of at least this many trains (default 1:
    any route), otherwise draw blind. Experiments pass ``params`` as keyword
    arguments and build a fresh instance for every game."""

    def __init__(self, min_length: int = 1):
        if isinstance(min_length, bool) or not isinstance(min_length, int) or min_length < 1:
            raise ValueError(f"min_length must be an integer >= 1, got {min_length!r}")
        self.min_length = min_length

    def choose(self, observation: dict, legal_actions: list[int]) -> int:
        keeps = [a for a in legal_actions if A_KEEP <= a < A_PASSENGER]
        if keeps:
            return max(keeps)                          # the largest mask keeps every ticket
        lengths = observation["route_lengths"]
        if observation["phase"] == "tunnel":           # as greedy (europe_moves.tunnel_choice): pay with the
            give_up = max(legal_actions)               # fewest locomotives unless it asks more than the route
            route = observation["tunnel_route"]
            if len(legal_actions) == 1 or observation["tunnel_extra"] > lengths[route]:
                return give_up
            return legal_actions[0]
        end = claims_end(len(lengths))                 # after it: Europe's tunnel and station codes
        claims = [a for a in legal_actions if A_CLAIM <= a < end and lengths[decode_claim(a)[0]] >= self.min_length]
        if claims:
            # longest route first (route length = cards paid), then fewest locomotives
            def key(a):
                route, colour, locos = decode_claim(a)
                return (lengths[route], -locos)
            return max(claims, key=key)
        if A_BLIND in legal_actions:
            return A_BLIND
        return legal_actions[0]
