"""Which locations are joined: a seat's own networks (ticket status, R6.3,
R6.4) and the routes still passable under a cost array (reachability), both
as union-find forests over the board's nodes (``int64[n_nodes]``).

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> import numpy as np
>>> b = build_board(get_rules("usa"))
>>> parent = np.empty(b.n_nodes, np.int64)
>>> passable_components(b, np.ones(len(b.route_len)), parent)
>>> bool(locations_connected(b, parent, 0, 1))
True
"""
from ttrsim.core.scoring import locations_joined, player_components, uf_find
from ttrsim.jit import kernel


@kernel
def _union(parent, x, y):
    x = uf_find(parent, x)
    y = uf_find(parent, y)
    if x != y:
        parent[x] = y


@kernel
def _joined(parent, start, nodes, la, lb):
    """:func:`ttrsim.core.scoring.locations_joined` over the board's
    ``loc_node_start`` and ``loc_nodes`` arrays."""
    for i in range(start[la], start[la + 1]):
        x = uf_find(parent, nodes[i])
        for j in range(start[lb], start[lb + 1]):
            if uf_find(parent, nodes[j]) == x:
                return True
    return False


@kernel
def passable_components(b, cost, parent):
    """Union-find ``parent`` (int64[n_nodes]) over the routes with ``cost >= 0``:
    two locations can be joined by a path iff :func:`locations_connected` says
    so. One O(routes) pass, about the price of one early-stopped search: worth
    it only where many searches might fail (an unreachable target makes a
    search settle its whole reachable part)."""
    for v in range(parent.shape[0]):
        parent[v] = v
    ra = b.route_a
    rb = b.route_b
    for r in range(cost.shape[0]):
        if cost[r] >= 0:
            _union(parent, ra[r], rb[r])


@kernel
def locations_connected(b, parent, la, lb):
    """Some node of location ``la`` and some node of ``lb`` share a component of ``parent``."""
    return locations_joined(b, parent, la, lb)


@kernel
def own_components(b, s, me, parent):
    """Union-find ``parent`` (int64[n_nodes]) of the nodes joined by ``me``'s
    routes (:func:`ttrsim.core.scoring.player_components`)."""
    for v in range(parent.shape[0]):
        parent[v] = v
    owner, ra, rb = s.route_owner, b.route_a, b.route_b
    for r in range(owner.shape[0]):
        if owner[r] == me:
            _union(parent, ra[r], rb[r])


@kernel
def ticket_joined(b, parent, t):
    """Ticket ``t`` is complete in the components ``parent`` (see :func:`own_components`)."""
    return locations_joined(b, parent, b.ticket_a[t], b.ticket_b[t])


@kernel
def ticket_done(b, s, me, t, parent_work):
    """Whether ticket ``t`` is complete for seat ``me`` (R6.3, R6.4). Rebuilds
    the components in ``parent_work`` each call; for many tickets call
    :func:`own_components` once and then :func:`ticket_joined`."""
    player_components(b, s, me, parent_work)
    return locations_joined(b, parent_work, b.ticket_a[t], b.ticket_b[t])


@kernel
def unfinished_tickets(b, s, me, parent, out):
    """Write ``me``'s tickets not yet complete into ``out``; return their count.
    ``parent`` must hold ``me``'s components (:func:`own_components`)."""
    holder, ta, tb, start, nodes = s.ticket_holder, b.ticket_a, b.ticket_b, b.loc_node_start, b.loc_nodes
    n = 0
    for t in range(holder.shape[0]):
        if holder[t] == me and not _joined(parent, start, nodes, ta[t], tb[t]):
            out[n] = t
            n += 1
    return n
