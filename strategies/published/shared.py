"""What the four published agents of de Mesentier Silva et al. (FDG 2017)
share: the routine phases, the minimum keep by cheapest paths and their
common ``choose`` frame (:func:`agent_choose`).
"""
import numpy as np

from ttrsim.core.actions import A_KEEP, A_PASSENGER
from ttrsim.core.engine import is_legal
from ttrsim.core.piles import popcount
from ttrsim.core.state import M_PHASE, M_PLAYER, PH_PASSENGER, PH_SETUP_KEEP, PH_SETUP_MIX, PH_TUNNEL
from ttrsim.jit import kernel

from ..kit.action_picks import fallback_action, keep_all_action, min_keep_count, passenger_action, ticket_mix_action
from ..kit.europe_moves import tunnel_choice
from ..kit.graph_search import path_between

# the four agents, and what ``ttrsim strategies`` and the report say of each
PUBLISHED = ("destination_hungry", "route_focus", "one_step", "long_route")
PUBLISHED_NOTE = ("; follows the paper's description of the agent, so its strength and the four agents' order "
                  "need not match the paper's tables")


@kernel
def keep_cheapest_minimum(b, s, me, cost, legal, n_legal, w):
    """The keep action that keeps the minimum number of offered tickets, choosing
    those with the cheapest paths under ``cost`` (unreachable ones last; ties to
    the higher points). -1 if no keep action is legal. ``w``
    (:data:`~ttrsim.strategies.kit.graph_search.PathWork`) holds the work arrays."""
    routes, dist, prev, done = w
    need = min_keep_count(legal, n_legal)
    best_a = -1
    best_key = 1e300
    for i in range(n_legal):
        act = legal[i]
        if act < A_KEEP or act >= A_PASSENGER or popcount(act - A_KEEP) != need:
            continue
        mask = act - A_KEEP
        key = 0.0
        for j in range(s.offer_n[me]):
            if mask & (1 << j):
                t = s.offer[me, j]
                n, c = path_between(b, cost, b.ticket_a[t], b.ticket_b[t], routes, dist, prev, done)
                key += (1e6 if n < 0 else c) - 1e-3 * b.ticket_points[t]
        if key < best_key:
            best_key = key
            best_a = act
    return best_a


@kernel
def routine_action(b, s, me, phase, legal, n_legal, n_long, keep_all_at_setup):
    """The published agents' shared handling of the routine phases: the
    Germany setup mix (``n_long`` from the long pile), passenger colours, a
    tunnel's extra cards (Europe, :func:`~ttrsim.strategies.kit.europe_moves.tunnel_choice`), and
    with ``keep_all_at_setup`` keeping every setup ticket. Returns
    ``(handled, action)``; the agent decides itself when not handled."""
    if phase == PH_SETUP_MIX:
        return True, ticket_mix_action(b, s, legal, n_legal, n_long)
    if phase == PH_PASSENGER:
        return True, passenger_action(s, me, legal, n_legal)
    if phase == PH_TUNNEL:
        return True, tunnel_choice(b, s, legal, n_legal)
    if phase == PH_SETUP_KEEP and keep_all_at_setup:
        return True, keep_all_action(legal, n_legal)
    return False, -1


@kernel
def legal_or_fallback(b, s, a, legal, n_legal):
    """``a`` if it is legal (:func:`ttrsim.core.engine.is_legal`: the list may leave
    claims out), else :func:`fallback_action`."""
    if a < 0 or not is_legal(b, s, a):
        return fallback_action(legal, n_legal)
    return a


@kernel(inline="always")   # inlined: a dispatcher passed as a value cannot be cached
def agent_choose(b, s, m, legal, n_legal, params, decide, setup_long, keep_all_at_setup):
    """The ``choose`` of a published agent: :func:`routine_action` handles the
    routine phases (the Germany mix takes ``params[me, setup_long]`` long
    tickets; every setup ticket is kept when ``keep_all_at_setup``), the
    agent's own ``decide(b, s, m, me, phase, legal, n_legal, params)`` the
    rest; a pick that is not legal becomes :func:`legal_or_fallback`'s."""
    me = s.meta[M_PLAYER]
    phase = s.meta[M_PHASE]
    handled, a = routine_action(b, s, me, phase, legal, n_legal, np.int64(params[me, setup_long]),
                                keep_all_at_setup)
    if not handled:
        a = decide(b, s, m, me, phase, legal, n_legal, params)
    return legal_or_fallback(b, s, a, legal, n_legal)
