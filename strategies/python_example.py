"""An example user-written Python strategy (the slow, flexible protocol of
:mod:`ttrsim.pyplay`): keep every offered ticket, claim the longest route it
can pay (using as few locomotives as possible), otherwise draw blind.

>>> from ttrsim.pyplay import play
>>> play("usa", 2, seed=1, seats=[GreedyLongest(), "random"]).over
True
"""
from ttrsim.actions import A_BLIND, A_CLAIM, A_KEEP, decode_claim


class GreedyLongest:
    """Plays by reading only the observation and the legal actions."""

    def choose(self, observation: dict, legal_actions: list[int]) -> int:
        keeps = [a for a in legal_actions if A_KEEP <= a < A_KEEP + 256]
        if keeps:
            return max(keeps)                          # the largest mask keeps every ticket
        claims = [a for a in legal_actions if a >= A_CLAIM]
        if claims:
            # longest route first (route length = cards paid), then fewest locomotives
            def key(a):
                route, colour, locos = decode_claim(a)
                return (observation["route_lengths"][route], -locos)
            return max(claims, key=key)
        if A_BLIND in legal_actions:
            return A_BLIND
        return legal_actions[0]
