"""A trained policy at the table: :class:`PolicyStrategy` wraps any callable
from an observation tensor and its action mask to an env action (the
tensors of :mod:`ttrsim.env.encoding`) as a Python strategy, so it plays in
:func:`ttrsim.play.pyplay.play` and seats in an experiment like any Python
class (``{python: "module:Class"}``; ``docs/env.md``).

>>> from ttrsim.play.pyplay import play
>>> first_legal = lambda obs, mask: int(mask.argmax())
>>> play("usa", 2, seed=3, seats=[PolicyStrategy(first_legal), "random"]).over
True

An experiment seats it through a class whose constructor takes no
arguments, or parameters given in the YAML (``params:``), e.g.::

    class MyAgent(PolicyStrategy):
        def __init__(self, weights: str = "agent.npz"):
            super().__init__(load_my_policy(weights))

    lineup:
      - {python: "my_module:MyAgent", params: {weights: agent.npz}}
"""
from __future__ import annotations

import importlib

from ttrsim.play.game import IllegalAction

from .checks import as_index
from .encoding import Layout, encode_obs, to_engine, write_mask


class PolicyStrategy:
    """``policy(obs, mask) -> action``: ``obs`` float32[obs_size] (what the
    seat may see), ``mask`` int8[n_actions] (1 = legal), the action an env
    action index; or ``"module:name"`` naming such a callable. The game's
    Python loop tells it the game before the first move (:meth:`start`); the
    tensors are written by the same kernels as the environments', into the
    same two arrays every call (copy them to keep them)."""

    def __init__(self, policy):
        if isinstance(policy, str):
            module, _, name = policy.partition(":")
            if not module or not name:
                raise ValueError(f"policy must be a callable or 'module:name', got {policy!r}")
            policy = getattr(importlib.import_module(module), name)
        if not callable(policy):
            raise ValueError(f"policy must be callable as policy(obs, mask) -> action, got {policy!r}")
        self.policy = policy
        self.game = self.layout = None
        self.seat = -1

    def start(self, game, seat: int) -> None:
        """Play seat ``seat`` of ``game`` (:class:`ttrsim.play.game.Game`) from now on."""
        if self.layout is None or self.game is not game:
            self.layout = Layout(game.board, game.n_players)
            self.obs, self.mask = self.layout.empty_obs(), self.layout.empty_mask()
        self.game, self.seat = game, seat

    def choose(self, observation: dict, legal_actions: list[int]) -> int:
        g, lay = self.game, self.layout
        if g is None:
            raise RuntimeError("PolicyStrategy needs start(game, seat) before choose (ttrsim.play.pyplay calls it)")
        encode_obs(g.board, g.state, self.seat, lay.lay, self.obs)
        write_mask(g.board, g.state, lay.lay, lay.route_act, lay.legal, self.mask)
        raw = self.policy(self.obs, self.mask)
        a = as_index(raw)           # an integer (numpy's too), never a float or a boolean
        if a is None:
            a = -1
        if not (0 <= a < lay.n_actions and self.mask[a]):
            raise IllegalAction(f"policy {getattr(self.policy, '__name__', type(self.policy).__name__)} (seat "
                                f"{self.seat}) returned {raw!r} at turn {g.turn}; expected an env action of its "
                                f"mask ({int(self.mask.sum())} legal of 0..{lay.n_actions - 1})")
        return int(to_engine(g.board, g.state, lay.act_engine, a))
