"""End-of-game scoring kernels (R6.3-R6.8, R8.5) and the final score breakdown.

Each kernel is a plain function over arrays, tested against a simple
independent reference in ``tests/``.

>>> import numpy as np
>>> a = np.array([0, 1, 2, 1]); b_ = np.array([1, 2, 0, 3]); w = np.array([1, 2, 3, 4])
>>> longest_trail(a, b_, w, 4)   # triangle 0-1-2 (loop) plus the branch 1-3
10
>>> out = np.zeros(3, np.int64)
>>> majority_points(np.array([3, 3, 1]), 20, 10, False, out); out.tolist()
[20, 20, 0]
"""
import numpy as np

from ttrsim.data.ids import N_PASSENGER_COLOURS
from ttrsim.jit import kernel

from .board import (
    RP_BONUS_NEEDS_SCORE,
    RP_GLOBE_PTS,
    RP_LP_PTS,
    RP_PASS_FIRST,
    RP_PASS_SECOND,
    RP_PASS_ZERO,
    RP_PASSENGERS,
    RP_STATION_PTS,
    RP_STATIONS,
    RP_TB0,
    TB_LONGEST,
    TB_LONGEST_BONUS,
    TB_PASSENGERS,
    TB_STATIONS,
    TB_STATIONS_BUILT,
    TB_TICKETS,
)
from .state import (
    F_GLOBETROTTER,
    F_LP_BONUS,
    F_LP_LEN,
    F_N_COMPLETED,
    F_N_FAILED,
    F_N_PASSENGERS,
    F_PASSENGER_PTS,
    F_ROUTES,
    F_STATION_PTS,
    F_STATIONS_BUILT,
    F_STATIONS_USED,
    F_TICKETS_LOST,
    F_TICKETS_RESCUED,
    F_TICKETS_WON,
    F_TOTAL,
    F_WINNER,
    M_NPLAYERS,
)


@kernel
def longest_trail(edge_a, edge_b, edge_w, n_nodes):
    """Heaviest trail (each edge at most once, nodes may repeat) in a multigraph
    given as edge lists with positive weights (R6.5).

    A component whose nodes all have even degree has an Euler circuit: its
    trail is all of it. Otherwise a heaviest trail starts and ends at nodes
    of odd degree (one ending elsewhere could be extended there), so it goes
    through every node of degree 2 it reaches, and the exhaustive
    depth-first search runs on the graph with each chain through such nodes
    made one edge of the chain's weight, from the odd nodes of components
    heavier than the best trail found so far."""
    m = edge_a.shape[0]
    if m == 0:
        return 0
    deg = np.zeros(n_nodes, np.int64)
    comp = np.arange(n_nodes)
    for e in range(m):
        deg[edge_a[e]] += 1
        deg[edge_b[e]] += 1
        x = uf_find(comp, edge_a[e])
        y = uf_find(comp, edge_b[e])
        if x != y:
            comp[x] = y
    comp_weight = np.zeros(n_nodes, np.int64)
    comp_odd = np.zeros(n_nodes, np.bool_)
    for e in range(m):
        comp_weight[uf_find(comp, edge_a[e])] += edge_w[e]
    for v in range(n_nodes):
        if deg[v] % 2:
            comp_odd[uf_find(comp, v)] = True
    best = 0
    for v in range(n_nodes):
        if comp[v] == v and not comp_odd[v] and comp_weight[v] > best:
            best = comp_weight[v]
    max_deg = deg.max()
    adj = np.empty((n_nodes, max_deg), np.int64)
    fill = np.zeros(n_nodes, np.int64)
    for e in range(m):
        adj[edge_a[e], fill[edge_a[e]]] = e
        fill[edge_a[e]] += 1
        adj[edge_b[e], fill[edge_b[e]]] = e
        fill[edge_b[e]] += 1
    # the chains: from each end of degree other than 2 through the nodes of degree 2
    # (a cycle of such nodes alone is an even component, done above)
    ca = np.empty(m, np.int64)
    cb = np.empty(m, np.int64)
    cw = np.empty(m, np.int64)
    used = np.zeros(m, np.bool_)
    k = 0
    for e in range(m):
        if used[e]:
            continue
        u = edge_a[e] if deg[edge_a[e]] != 2 else edge_b[e]
        if deg[u] == 2:
            continue
        used[e] = True
        w = edge_w[e]
        f = e
        v = edge_b[e] if edge_a[e] == u else edge_a[e]
        while deg[v] == 2:
            f = adj[v, 0] if adj[v, 0] != f else adj[v, 1]
            used[f] = True
            w += edge_w[f]
            v = edge_b[f] if edge_a[f] == v else edge_a[f]
        ca[k], cb[k], cw[k] = u, v, w
        k += 1
    fill[:] = 0                          # the chains' adjacency: a node keeps its degree
    for e in range(k):
        adj[ca[e], fill[ca[e]]] = e
        fill[ca[e]] += 1
        adj[cb[e], fill[cb[e]]] = e
        fill[cb[e]] += 1
    used[:k] = False
    stack_node = np.empty(k + 1, np.int64)
    stack_ptr = np.empty(k + 1, np.int64)
    stack_edge = np.empty(k + 1, np.int64)
    for start in range(n_nodes):
        if deg[start] % 2 == 0 or comp_weight[uf_find(comp, start)] <= best:
            continue
        depth = 0
        stack_node[0] = start
        stack_ptr[0] = 0
        cur = 0
        while depth >= 0:
            u = stack_node[depth]
            advanced = False
            while stack_ptr[depth] < fill[u]:
                e = adj[u, stack_ptr[depth]]
                stack_ptr[depth] += 1
                if not used[e]:
                    used[e] = True
                    stack_edge[depth] = e
                    cur += cw[e]
                    if cur > best:
                        best = cur
                    v = cb[e] if ca[e] == u else ca[e]
                    depth += 1
                    stack_node[depth] = v
                    stack_ptr[depth] = 0
                    advanced = True
                    break
            if not advanced:
                depth -= 1
                if depth >= 0:
                    e = stack_edge[depth]
                    used[e] = False
                    cur -= cw[e]
    return best


@kernel
def uf_find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@kernel
def player_components(b, s, p, parent):
    """Union-find ``parent`` over nodes joined by seat ``p``'s routes."""
    for i in range(parent.shape[0]):
        parent[i] = i
    for r in range(b.route_len.shape[0]):
        if s.route_owner[r] == p:
            x = uf_find(parent, b.route_a[r])
            y = uf_find(parent, b.route_b[r])
            if x != y:
                parent[x] = y


@kernel
def locations_joined(b, parent, la, lb):
    """Whether some node of location ``la`` and some node of ``lb`` share a
    component: a country is reached at any of its border points (R6.4)."""
    for i in range(b.loc_node_start[la], b.loc_node_start[la + 1]):
        ra = uf_find(parent, b.loc_nodes[i])
        for j in range(b.loc_node_start[lb], b.loc_node_start[lb + 1]):
            if uf_find(parent, b.loc_nodes[j]) == ra:
                return True
    return False


@kernel
def join_station_routes(b, s, p, parent):
    """Join in ``parent`` the routes seat ``p``'s stations borrow (R8.5,
    ``s.station_route``, chosen by :func:`ttrsim.core.stations.choose_station_routes`);
    return how many stations borrow one."""
    used = 0
    for city in range(s.station_owner.shape[0]):
        r = s.station_route[city]
        if s.station_owner[city] == p and r >= 0:
            used += 1
            x = uf_find(parent, b.route_a[r])
            y = uf_find(parent, b.route_b[r])
            if x != y:
                parent[x] = y
    return used


@kernel
def ticket_completed(b, s, t, parent):
    """R6.3: ticket ``t`` is complete in the components ``parent`` of its holder."""
    return locations_joined(b, parent, b.ticket_a[t], b.ticket_b[t])


@kernel
def ticket_stake(b, t):
    """R6.3: the points between completing ticket ``t`` and failing it, what
    it scores plus what it loses (twice its printed points by default)."""
    return int(b.ticket_points[t]) + int(b.ticket_penalty[t])


@kernel
def player_longest(b, s, p):
    """Seat ``p``'s longest continuous path in trains (R6.5)."""
    n = 0
    for r in range(b.route_len.shape[0]):
        if s.route_owner[r] == p:
            n += 1
    ea = np.empty(n, np.int64)
    eb = np.empty(n, np.int64)
    ew = np.empty(n, np.int64)
    i = 0
    for r in range(b.route_len.shape[0]):
        if s.route_owner[r] == p:
            ea[i] = b.route_a[r]
            eb[i] = b.route_b[r]
            ew[i] = b.route_len[r]
            i += 1
    return longest_trail(ea, eb, ew, b.n_nodes)


@kernel
def majority_points(counts, first, second, zero_scores, out):
    """Passenger majority for one colour (R6.7): ``out[p]`` gets ``first`` for the
    most (all tied score it, and then nobody scores second), else ``second`` for
    the second most (all tied score it). Without ``zero_scores`` a player with
    none of the colour scores nothing."""
    out[:] = 0
    top = -1
    for c in counts:
        if (c > 0 or zero_scores) and c > top:
            top = c
    if top < 0:
        return
    n_top = 0
    for p in range(counts.shape[0]):
        if counts[p] == top:
            out[p] = first
            n_top += 1
    if n_top > 1:
        return
    runner = -1
    for c in counts:
        if c < top and (c > 0 or zero_scores) and c > runner:
            runner = c
    if runner < 0:
        return
    for p in range(counts.shape[0]):
        if counts[p] == runner:
            out[p] = second


@kernel
def award_most(values, points, needs_positive, out_col):
    """Give ``points`` to every player with the highest value (R6.5, R6.6)."""
    best = values.max()
    if needs_positive and best <= 0:
        return
    for p in range(values.shape[0]):
        if values[p] == best:
            out_col[p] = points


@kernel
def final_scoring(b, s):
    """Fill ``s.final`` with each seat's breakdown and the winner flags (R6.3-R6.8);
    with stations, the routes they borrow (``s.station_route``, chosen before)
    count for tickets and unbuilt stations score (R8.5)."""
    n_players = s.meta[M_NPLAYERS]
    f = s.final
    f[:, :] = 0
    parent = np.empty(b.n_nodes, np.int64)
    stations = b.rp[RP_STATIONS] > 0
    own = np.empty(b.n_nodes, np.int64)
    for p in range(n_players):
        f[p, F_ROUTES] = s.score[p]
        player_components(b, s, p, parent)
        if stations:                   # R8.5: the borrowed routes count for tickets only
            own[:] = parent
            f[p, F_STATIONS_USED] = join_station_routes(b, s, p, parent)
            f[p, F_STATIONS_BUILT] = b.rp[RP_STATIONS] - s.stations_left[p]
            f[p, F_STATION_PTS] = s.stations_left[p] * b.rp[RP_STATION_PTS]
        for t in range(b.ticket_a.shape[0]):
            if s.ticket_holder[t] == p:
                if ticket_completed(b, s, t, parent):
                    f[p, F_TICKETS_WON] += b.ticket_points[t]
                    f[p, F_N_COMPLETED] += 1
                    if stations and not ticket_completed(b, s, t, own):
                        f[p, F_TICKETS_RESCUED] += 1
                else:
                    f[p, F_TICKETS_LOST] += b.ticket_penalty[t]
                    f[p, F_N_FAILED] += 1
        f[p, F_LP_LEN] = player_longest(b, s, p)
        f[p, F_N_PASSENGERS] = s.pass_player[p].sum()
    needs = b.rp[RP_BONUS_NEEDS_SCORE] != 0
    if b.rp[RP_LP_PTS] > 0:
        award_most(f[:n_players, F_LP_LEN].copy(), b.rp[RP_LP_PTS], needs, f[:, F_LP_BONUS])
    if b.rp[RP_GLOBE_PTS] > 0:
        award_most(f[:n_players, F_N_COMPLETED].copy(), b.rp[RP_GLOBE_PTS], needs, f[:, F_GLOBETROTTER])
    if b.rp[RP_PASSENGERS]:
        pts = np.zeros(n_players, np.int64)
        for c in range(N_PASSENGER_COLOURS):
            majority_points(s.pass_player[:n_players, c].astype(np.int64), b.rp[RP_PASS_FIRST],
                            b.rp[RP_PASS_SECOND], b.rp[RP_PASS_ZERO] != 0, pts)
            for p in range(n_players):
                f[p, F_PASSENGER_PTS] += pts[p]
    for p in range(n_players):
        f[p, F_TOTAL] = (f[p, F_ROUTES] + f[p, F_TICKETS_WON] - f[p, F_TICKETS_LOST] + f[p, F_LP_BONUS]
                         + f[p, F_GLOBETROTTER] + f[p, F_PASSENGER_PTS] + f[p, F_STATION_PTS])
    mark_winners(b, f, n_players)


@kernel
def mark_winners(b, f, n_players):
    """Highest total wins; ties go through the rule set's tie-break steps (R6.8):
    the most completed tickets, longest path, passengers or longest-path bonus
    (the European Express card), or the fewest stations borrowing a route
    (R8.5) or built (R8.4); players still tied share the win."""
    alive = np.zeros(n_players, np.bool_)
    best = f[:n_players, F_TOTAL].max()
    for p in range(n_players):
        alive[p] = f[p, F_TOTAL] == best
    for step in range(3):
        code = b.rp[RP_TB0 + step]
        sign = 1                       # the most of the column wins, or with -1 the fewest
        if code == TB_TICKETS:
            col = F_N_COMPLETED
        elif code == TB_LONGEST:
            col = F_LP_LEN
        elif code == TB_PASSENGERS:
            col = F_N_PASSENGERS
        elif code == TB_STATIONS:
            col = F_STATIONS_USED
            sign = -1
        elif code == TB_LONGEST_BONUS:
            col = F_LP_BONUS
        elif code == TB_STATIONS_BUILT:
            col = F_STATIONS_BUILT
            sign = -1
        else:
            continue
        top = -(1 << 30)
        for p in range(n_players):
            if alive[p] and sign * f[p, col] > top:
                top = sign * f[p, col]
        for p in range(n_players):
            alive[p] = alive[p] and sign * f[p, col] == top
    for p in range(n_players):
        f[p, F_WINNER] = 1 if alive[p] else 0
