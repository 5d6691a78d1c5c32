"""The shared graph kernels (``ttrsim.strategies.kit.graph_search``,
``connectivity``, ``network_plans``, ``action_picks``) against plain Python
references, and the four published agents of de Mesentier Silva et al.
(FDG 2017): ``destination_hungry``, ``route_focus``, ``one_step``,
``long_route`` (issue 3).

(a) kernels: route costs, Dijkstra, cheapest paths, network plans, ticket
    status and the claim-payment helper, compared with simple Python code on
    the real maps in many random positions (fixed seeds);
(b) each agent on hand-built positions (helpers.py builders plus direct writes
    on ``g.state``), one rule of its definition per test;
(c) whole games: every agent on every preset, 2 and 4 players, mixed with
    ``random``; end reasons; and a sanity check that each agent beats
    ``random``.

What every strategy must do (legal, deterministic picks that leave the state
alone and touch only the seat's own memory, fair play) is
``tests/strategies/test_strategy_api.py``.
"""
import heapq

import numpy as np
import pytest

from ttrsim.core.actions import (
    A_BLIND,
    A_CLAIM,
    A_FACEUP,
    A_KEEP,
    A_PASSENGER,
    A_TICKETS,
    PAY_LOCOS_ONLY,
    decode_claim,
    encode_claim,
    legal_buffer,
)
from ttrsim.core.board import RP_LOCK_MAXP, build_board
from ttrsim.core.engine import legal_actions
from ttrsim.core.state import (
    END_NAMES,
    F_WINNER,
    M_END,
    M_PEND_I,
    M_PEND_N,
    M_PHASE,
    M_PLAYER,
    PH_KEEP,
    PH_MAIN,
    PH_OVER,
    PH_PASSENGER,
    PH_SETUP_MIX,
    allocate_state,
)
from ttrsim.data.ids import BLACK, BLUE, GREEN, LOCO, PINK, RED, WHITE
from ttrsim.data.rules import get_rules, preset_names
from ttrsim.play.game import Game
from ttrsim.play.loop import play_game
from ttrsim.strategies import REGISTRY, param_row, strategy_id
from ttrsim.strategies.kit import action_picks as A
from ttrsim.strategies.kit import connectivity as C
from ttrsim.strategies.kit import dispatch
from ttrsim.strategies.kit import graph_search as G
from ttrsim.strategies.kit import memory as M
from ttrsim.strategies.kit import network_plans as N
from ttrsim.strategies.kit.memory import allocate_memory

from helpers import decide, fresh_memory, put_faceup, put_hand, route_id, setup_game, ticket_id

AGENTS = ("destination_hungry", "route_focus", "one_step", "long_route")
INF = G.INF


# =========================================================================== helpers

def give_tickets(g, seat, pairs):
    """Seat ``seat`` holds exactly the tickets ``pairs`` (location name pairs)."""
    th = g.state.ticket_holder
    th[th == seat] = -1
    for a, b in pairs:
        th[ticket_id(g, a, b)] = seat


def own(g, seat, *routes):
    for r in routes:
        g.state.route_owner[r] = seat


def route_ends(g, r):
    m = g.map
    return {m.node_names[m.route_a[r]], m.node_names[m.route_b[r]]}


def claim_of(a):
    assert a >= A_CLAIM, f"expected a claim, got action {a}"
    return tuple(int(x) for x in decode_claim(a))


def random_positions(rules, n_players, n_states, seed):
    """Positions from random play: (game, state copy) after a random number of steps."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n_states):
        g = Game(rules, n_players, seed=seed * 1000 + k)
        steps = int(rng.integers(20, 400))
        for _ in range(steps):
            if g.over:
                break
            acts = g.legal_actions()
            g.apply(acts[rng.integers(len(acts))])
        if not g.over:
            out.append(g)
    return out


# --- Python references ----------------------------------------------------------------------------

def ref_open(g, r, me):
    """R4.5 in plain Python: route r is free and no parallel track closes it for ``me``."""
    s, b = g.state, g.board
    if s.route_owner[r] >= 0:
        return False
    lock_all = g.n_players <= b.rp[RP_LOCK_MAXP]
    for other in b.group_routes[b.route_group[r]]:
        if other >= 0 and other != r:
            o = s.route_owner[other]
            if o == me or (o >= 0 and lock_all):
                return False
    return True


def ref_costs(g, me, mode, min_len=1, fit_trains=True):
    s, b = g.state, g.board
    out = []
    for r in range(len(b.route_len)):
        length = int(b.route_len[r])
        if s.route_owner[r] == me:
            out.append(0.0)
        elif not ref_open(g, r, me) or length < min_len or (fit_trains and length > s.trains[me]):
            out.append(-1.0)
        else:
            out.append([float(length), 1.0, 1.0 + length * 1e-4][mode])
    return out


def loc_nodes(b, loc):
    return [int(v) for v in b.loc_nodes[b.loc_node_start[loc]:b.loc_node_start[loc + 1]]]


def ref_dijkstra(b, cost, sources):
    """Textbook heap Dijkstra over the node graph; impassable routes have cost < 0."""
    adj = {v: [] for v in range(b.n_nodes)}
    for r in range(len(b.route_len)):
        if cost[r] >= 0:
            a, c = int(b.route_a[r]), int(b.route_b[r])
            adj[a].append((c, cost[r]))
            adj[c].append((a, cost[r]))
    dist = {v: INF for v in range(b.n_nodes)}
    heap = []
    for v in sources:
        dist[v] = 0.0
        heap.append((0.0, v))
    heapq.heapify(heap)
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, c in adj[u]:
            if d + c < dist[v]:
                dist[v] = d + c
                heapq.heappush(heap, (d + c, v))
    return dist


def ref_components(g, me):
    b, s = g.board, g.state
    parent = list(range(b.n_nodes))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for r in range(len(b.route_len)):
        if s.route_owner[r] == me:
            parent[find(int(b.route_a[r]))] = find(int(b.route_b[r]))
    return find


def work(b):
    return G.new_work(b)


# =========================================================================== (a) kernels

KERNEL_CASES = [("usa", 2, 1), ("usa", 4, 2), ("germany", 4, 3), ("germany", 2, 4)]


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_route_cost_for_matches_reference(rules, n_players, seed):
    """Own routes 0, claimable routes length / 1 / 1+len/1e4, others -1 (R4.5 closed tracks too)."""
    for g in random_positions(rules, n_players, 12, seed):
        b, s = g.board, g.state
        cost = np.empty(len(b.route_len))
        for me in range(n_players):
            for mode in (G.COST_TRAINS, G.COST_ROUTES, G.COST_ROUTES_TRAINS):
                G.route_cost_for(b, s, me, mode, cost)
                assert np.allclose(cost, ref_costs(g, me, mode))
            G.route_cost_for(b, s, me, G.COST_TRAINS, cost, 3, False)
            assert np.allclose(cost, ref_costs(g, me, 0, 3, False))


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_dijkstra_from_location_matches_reference(rules, n_players, seed):
    """Distances from every location equal a heap Dijkstra; each prev route is tight."""
    for g in random_positions(rules, n_players, 6, seed):
        b, s = g.board, g.state
        cost = np.empty(len(b.route_len))
        dist, prev, done = work(b)
        for me in range(n_players):
            G.route_cost_for(b, s, me, G.COST_TRAINS, cost)
            for loc in range(len(b.loc_node_start) - 1):
                G.dijkstra_from_location(b, cost, loc, dist, prev, done)
                ref = ref_dijkstra(b, cost, loc_nodes(b, loc))
                for v in range(b.n_nodes):
                    assert dist[v] == pytest.approx(ref[v]), (loc, v)
                    r = prev[v]
                    if v in loc_nodes(b, loc) or ref[v] >= INF:
                        assert r == -1
                    else:
                        u = G.other_end(b, r, v)
                        assert v in (b.route_a[r], b.route_b[r]) and cost[r] >= 0
                        assert dist[v] == pytest.approx(dist[u] + cost[r])


def test_dijkstra_without_scratch_argument():
    b = build_board(get_rules("germany"))
    s = allocate_state(b, 2)
    s.trains[:] = 45
    s.route_owner[:] = -1
    cost = np.empty(len(b.route_len))
    G.route_cost_for(b, s, 0, G.COST_TRAINS, cost)
    dist, prev, _ = work(b)
    G.dijkstra_from_location(b, cost, 36, dist, prev)          # Frankreich: 3 border points
    assert all(dist[v] == 0 for v in loc_nodes(b, 36))
    assert dist.max() < INF


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
@pytest.mark.parametrize("mode", [G.COST_TRAINS, G.COST_ROUTES])
def test_path_between_is_a_cheapest_chain(rules, n_players, seed, mode):
    """The path is a chain from a node of loc_a to a node of loc_b, of the
    reference's cheapest cost; unreachable pairs give (-1, INF)."""
    rng = np.random.default_rng(seed)
    for g in random_positions(rules, n_players, 6, seed):
        b, s = g.board, g.state
        n_locs = len(b.loc_node_start) - 1
        cost = np.empty(len(b.route_len))
        routes = np.empty(len(b.route_len), np.int64)
        dist, prev, done = work(b)
        for me in range(n_players):
            G.route_cost_for(b, s, me, mode, cost)
            for _ in range(25):
                la, lb = (int(x) for x in rng.integers(n_locs, size=2))
                n, total = G.path_between(b, cost, la, lb, routes, dist, prev, done)
                ref = ref_dijkstra(b, cost, loc_nodes(b, la))
                best = min(ref[v] for v in loc_nodes(b, lb))
                if la == lb:
                    assert (n, total) == (0, 0.0)
                    continue
                if best >= INF:
                    assert n == -1 and total >= INF
                    continue
                assert total == pytest.approx(best)
                assert sum(cost[r] for r in routes[:n]) == pytest.approx(total)
                v = next(x for x in loc_nodes(b, la)
                         if x in (b.route_a[routes[0]], b.route_b[routes[0]])) if n else None
                for r in routes[:n]:
                    assert cost[r] >= 0 and v in (b.route_a[r], b.route_b[r])
                    v = G.other_end(b, r, v)
                assert n == 0 or v in loc_nodes(b, lb)


def _check_plan(g, cost, locs, in_plan, total, unjoined, root_reach):
    """Properties of a plan: its cost is the sum of its routes; it joins every
    reachable location into one network; the shortest-path heuristic costs at
    most the sum of the root's distances to the locations it joins."""
    b = g.board
    assert all(cost[r] >= 0 for r in np.flatnonzero(in_plan))
    assert sum(cost[r] for r in np.flatnonzero(in_plan)) == pytest.approx(total)
    parent = list(range(b.n_nodes))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for r in np.flatnonzero(in_plan):
        parent[find(int(b.route_a[r]))] = find(int(b.route_b[r]))
    distinct = list(dict.fromkeys(int(x) for x in locs))
    reached = [x for x in distinct if root_reach(x) < INF]
    assert unjoined == len(distinct) - len(reached)
    if len(reached) > 1:   # one component holds a node of every joined location (any border point)
        comps = [{find(v) for v in loc_nodes(b, x)} for x in reached]
        assert set.intersection(*comps)
        assert total <= sum(root_reach(x) for x in reached) + 1e-9


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_plan_network_joins_locations(rules, n_players, seed):
    rng = np.random.default_rng(seed + 10)
    for g in random_positions(rules, n_players, 8, seed):
        b, s = g.board, g.state
        n_locs = len(b.loc_node_start) - 1
        cost = np.empty(len(b.route_len))
        in_plan = np.zeros(len(b.route_len), np.bool_)
        nw = N.network_work(b)
        dist, prev, done = nw.dist, nw.prev, nw.done
        routes = np.empty(len(b.route_len), np.int64)
        for me in range(n_players):
            G.route_cost_for(b, s, me, G.COST_TRAINS, cost)
            for k in (1, 2, 3, 5, 8):
                locs = rng.integers(n_locs, size=k).astype(np.int64)
                total, unjoined = N.plan_network(b, cost, locs, k, in_plan, nw)
                cities = [x for x in locs if len(loc_nodes(b, x)) == 1]
                root = int(cities[0]) if cities else int(locs[0])
                ref = ref_dijkstra(b, cost, loc_nodes(b, root))

                def reach(loc, ref=ref):
                    return min(ref[v] for v in loc_nodes(b, loc))

                _check_plan(g, cost, locs, in_plan, total, unjoined, reach)
                if k == 2 and unjoined == 0:    # two locations: exactly a cheapest path
                    n, c = G.path_between(b, cost, int(locs[0]), int(locs[1]), routes, dist, prev, done)
                    assert total == pytest.approx(c if locs[0] != locs[1] else 0.0)


def test_plan_network_prefers_own_routes():
    """Own routes are free: a plan through them costs only the missing routes."""
    g = setup_game("usa", 2)
    b, s = g.board, g.state
    r1 = route_id(g, "Calgary", "Helena")
    own(g, 0, r1)
    cost = np.empty(len(b.route_len))
    G.route_cost_for(b, s, 0, G.COST_TRAINS, cost)
    in_plan = np.zeros(len(b.route_len), np.bool_)
    locs = np.array([g.map.location_id("Calgary"), g.map.location_id("Salt Lake City")], np.int64)
    total, unjoined = N.plan_network(b, cost, locs, 2, in_plan, N.network_work(b))
    assert (total, unjoined) == (3.0, 0)              # Helena-Salt Lake City (3) only
    assert in_plan[r1] and in_plan[route_id(g, "Helena", "Salt Lake City")] and in_plan.sum() == 2


def ref_dijkstra_prev(b, cost, dist0):
    """Heap Dijkstra from initial labels ``dist0`` (dict node -> 0); returns (dist, prev route)."""
    adj = {v: [] for v in range(b.n_nodes)}
    for r in range(len(b.route_len)):
        if cost[r] >= 0:
            a, c = int(b.route_a[r]), int(b.route_b[r])
            adj[a].append((c, r))
            adj[c].append((a, r))
    dist = {v: INF for v in range(b.n_nodes)}
    prev = {v: -1 for v in range(b.n_nodes)}
    heap = [(0.0, v) for v in dist0]
    for v in dist0:
        dist[v] = 0.0
    heapq.heapify(heap)
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, r in adj[u]:
            if d + cost[r] < dist[v]:
                dist[v] = d + cost[r]
                prev[v] = r
                heapq.heappush(heap, (dist[v], v))
    return dist, prev


def ref_steiner_sph(b, cost, locs):
    """The shortest-path heuristic in plain Python, a fresh Dijkstra from the
    whole network per join: start at the first city (else every border point
    of the first country, keeping only the one used), join the nearest
    location, repeat. Returns (total cost, unjoined)."""
    distinct = list(dict.fromkeys(int(x) for x in locs))
    cities = [x for x in distinct if len(loc_nodes(b, x)) == 1]
    root = cities[0] if cities else distinct[0]
    tree = set(loc_nodes(b, root))
    virtual = not cities
    left = [x for x in distinct if x != root]
    total = 0.0
    while left:
        dist, prev = ref_dijkstra_prev(b, cost, tree)
        d, loc, v = min((dist[v], i, v) for i, x in enumerate(left) for v in loc_nodes(b, x))
        if d >= INF:
            break
        total += d
        left.pop(loc)
        path = [v]
        while v not in tree:
            r = prev[v]
            v = int(b.route_b[r]) if b.route_a[r] == v else int(b.route_a[r])
            path.append(v)
        if virtual:
            tree = {path[-1]}
            virtual = False
        tree |= set(path)
    return total, len(left)


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_plan_network_equals_reference_heuristic(rules, n_players, seed):
    """With tie-free costs (small random jitter) the kernel's incremental search
    joins exactly what a fresh-Dijkstra-per-join reference joins."""
    rng = np.random.default_rng(seed + 30)
    for g in random_positions(rules, n_players, 6, seed):
        b, s = g.board, g.state
        n_locs = len(b.loc_node_start) - 1
        cost = np.empty(len(b.route_len))
        in_plan = np.zeros(len(b.route_len), np.bool_)
        nw = N.network_work(b)
        for me in range(n_players):
            G.route_cost_for(b, s, me, G.COST_TRAINS, cost)
            cost = np.where(cost > 0, cost + rng.random(len(cost)) * 0.01, cost)
            for k in (2, 3, 5, 8, 12):
                locs = rng.integers(n_locs, size=k).astype(np.int64)
                total, unjoined = N.plan_network(b, cost, locs, k, in_plan, nw)
                ref_total, ref_unjoined = ref_steiner_sph(b, cost, locs)
                assert total == pytest.approx(ref_total) and unjoined == ref_unjoined, locs


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_passable_components_match_reachability(rules, n_players, seed):
    for g in random_positions(rules, n_players, 4, seed):
        b, s = g.board, g.state
        n_locs = len(b.loc_node_start) - 1
        cost = np.empty(len(b.route_len))
        parent = np.empty(b.n_nodes, np.int64)
        for me in range(n_players):
            G.route_cost_for(b, s, me, G.COST_TRAINS, cost)
            C.passable_components(b, cost, parent)
            for la in range(0, n_locs, 3):
                ref = ref_dijkstra(b, cost, loc_nodes(b, la))
                for lb in range(n_locs):
                    want = min(ref[v] for v in loc_nodes(b, lb)) < INF
                    assert C.locations_connected(b, parent, la, lb) == want


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_plan_tickets_serves_every_ticket(rules, n_players, seed):
    rng = np.random.default_rng(seed + 20)
    for g in random_positions(rules, n_players, 6, seed):
        b, s = g.board, g.state
        cost = np.empty(len(b.route_len))
        in_plan = np.zeros(len(b.route_len), np.bool_)
        nw = N.network_work(b)
        used = np.flatnonzero(b.ticket_deck >= 0)
        for me in range(n_players):
            G.route_cost_for(b, s, me, G.COST_TRAINS, cost)
            ts = rng.choice(used, size=4, replace=False)
            ta = b.ticket_a[ts].astype(np.int64)
            tb = b.ticket_b[ts].astype(np.int64)
            total, missed = N.plan_tickets(b, cost, ta, tb, 4, in_plan, nw)
            assert sum(cost[r] for r in np.flatnonzero(in_plan)) == pytest.approx(total)
            only = np.where(in_plan, 0.0, -1.0)             # the plan alone must join each reachable ticket
            n_missed = 0
            for a, c in zip(ta, tb):
                full = ref_dijkstra(b, cost, loc_nodes(b, a))
                if min(full[v] for v in loc_nodes(b, c)) >= INF:
                    n_missed += 1
                    continue
                d = ref_dijkstra(b, only, loc_nodes(b, a))
                assert min(d[v] for v in loc_nodes(b, c)) == 0.0
            assert missed == n_missed


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_ticket_done_matches_reference(rules, n_players, seed):
    """Ticket completion (R6.3, R6.4: any border point of a country) against a Python union-find."""
    for g in random_positions(rules, n_players, 10, seed):
        b, s = g.board, g.state
        parent = np.empty(b.n_nodes, np.int64)
        out = np.empty(len(b.ticket_a), np.int64)
        for me in range(n_players):
            find = ref_components(g, me)
            C.own_components(b, s, me, parent)
            expect_unfinished = []
            for t in np.flatnonzero(b.ticket_deck >= 0):
                want = any(find(x) == find(y) for x in loc_nodes(b, b.ticket_a[t]) for y in loc_nodes(b, b.ticket_b[t]))
                assert C.ticket_done(b, s, me, t, parent) == want
                assert C.ticket_joined(b, parent, t) == want
                if s.ticket_holder[t] == me and not want:
                    expect_unfinished.append(int(t))
            n = C.unfinished_tickets(b, s, me, parent, out)
            assert sorted(out[:n].tolist()) == expect_unfinished


def main_phase_positions(rules, n_players, n_states, seed):
    """The main-phase positions among :func:`random_positions`, each as
    ``(game, seat to act, legal buffer, number of legal actions)``."""
    for g in random_positions(rules, n_players, n_states, seed):
        if g.state.meta[M_PHASE] == PH_MAIN:
            buf = legal_buffer(g.board)
            yield g, int(g.state.meta[M_PLAYER]), buf, legal_actions(g.board, g.state, buf)

@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_pay_action_fewest_locomotives_most_held_colour(rules, n_players, seed):
    """The payment computed from the hand is, among the route's claims in the
    full legal list, one with the fewest locomotives, then the pay colour held
    most; -1 exactly for the claimable routes with no legal claim."""
    checked = 0
    for g, me, buf, n in main_phase_positions(rules, n_players, 25, seed):
        b, s = g.board, g.state
        by_route = {}
        for a in buf[:n]:
            if a >= A_CLAIM:
                r, c, k = decode_claim(a)
                held = s.hand[me, c] if c != PAY_LOCOS_ONLY else -1
                key = (k, -held)
                if r not in by_route or key < by_route[r][0]:
                    by_route[r] = (key, int(a))
        cost = np.empty(len(b.route_len))
        G.route_cost_for(b, s, me, G.COST_TRAINS, cost)
        for r in range(len(b.route_len)):
            if cost[r] <= 0:
                assert r not in by_route
                continue
            got = A.pay_action(b, s, me, r)
            if r not in by_route:
                assert got == -1, r
                continue
            checked += 1
            _, c, k = claim_of(got)
            _, c0, k0 = claim_of(by_route[r][1])
            assert k == k0 and (c == c0 or s.hand[me, c] == s.hand[me, c0]), r
    assert checked > 0


def test_ticket_mix_action_germany():
    """R2.3: the mix takes n_long tickets from the long pile, clamped to the legal range."""
    g = Game("germany", 2, seed=3)
    assert g.state.meta[M_PHASE] == PH_SETUP_MIX
    buf = legal_buffer(g.board)
    n = legal_actions(g.board, g.state, buf)
    for n_long, k in ((0, 4), (1, 3), (3, 1), (4, 0), (9, 0)):
        assert A.ticket_mix_action(g.board, g.state, buf, n, n_long) == A_TICKETS + k


# =========================================================================== (b) agents

def test_specs_defaults():
    """Every agent has parameters; destination_hungry's margins are those of its definition."""
    assert all(REGISTRY[name].params for name in AGENTS)
    spec = REGISTRY["destination_hungry"]
    assert param_row("destination_hungry")[spec.index("keep_margin")] == 5
    assert param_row("destination_hungry")[spec.index("draw_margin")] == 8


# --- long_route ----------------------------------------------------------------------------------

def lr_game():
    g = setup_game("usa", 2, seed=1)
    give_tickets(g, 0, [])
    return g


def test_long_route_claims_longest_payable_route():
    g = lr_game()
    put_hand(g, 0, {GREEN: 6, BLACK: 3})
    r, c, k = claim_of(decide(g, "long_route"))
    assert g.board.route_len[r] == 6 and route_ends(g, r) == {"El Paso", "Houston"}   # lowest id of the 6s
    assert (c, k) == (GREEN, 0)


def test_long_route_prefers_a_payable_route_to_a_longer_one():
    g = lr_game()
    put_hand(g, 0, {BLACK: 3, LOCO: 1})
    r, c, k = claim_of(decide(g, "long_route"))
    assert g.board.route_len[r] == 4 and k == 1             # 4 with one locomotive beats waiting for a 6


def test_long_route_draws_for_the_longest_route():
    g = lr_game()
    put_hand(g, 0, {RED: 1})
    put_faceup(g, [RED, WHITE, BLUE, BLUE, GREEN])
    a = decide(g, "long_route")
    assert a == A_FACEUP + 1                                 # Calgary-Winnipeg, 6 white: first of the longest
    put_faceup(g, [RED, RED, BLUE, BLUE, GREEN])
    assert decide(g, "long_route") == A_BLIND


def test_long_route_claims_routes_of_its_plan_first():
    """Denver-El Paso over routes of 3+: Denver-Phoenix (5) and Phoenix-El Paso (3)."""
    g = lr_game()
    give_tickets(g, 0, [("Denver", "El Paso")])
    put_hand(g, 0, {GREEN: 6})
    r, c, _ = claim_of(decide(g, "long_route"))
    assert route_ends(g, r) == {"Phoenix", "El Paso"} and c == GREEN
    r, _, _ = claim_of(decide(g, "long_route", {"plan_first": 0}))
    assert g.board.route_len[r] == 6


def test_long_route_keeps_fewest_cheapest_tickets():
    g = Game("usa", 2, seed=5)
    s = g.state
    me = g.player
    offer = [ticket_id(g, "Seattle", "New York"), ticket_id(g, "Denver", "El Paso"),
             ticket_id(g, "Calgary", "Salt Lake City")]
    s.offer[me, :3] = offer
    a = decide(g, "long_route")
    assert a - A_KEEP == 0b110                              # the two cheap ones, not Seattle-New York


def test_long_route_never_draws_tickets():
    g = lr_game()
    put_hand(g, 0, {})
    put_faceup(g, [RED, RED, BLUE, BLUE, GREEN])
    assert decide(g, "long_route") == A_BLIND


# --- route_focus ---------------------------------------------------------------------------------

def rf_game():
    """Tickets Denver-El Paso (4) and Chicago-Santa Fe (9): their fewest-routes
    paths share Denver-Santa Fe (2 gray)."""
    g = setup_game("usa", 2, seed=2)
    give_tickets(g, 0, [("Denver", "El Paso"), ("Chicago", "Santa Fe")])
    return g


def test_route_focus_claims_route_on_most_ticket_paths():
    g = rf_game()
    put_hand(g, 0, {BLUE: 4, PINK: 5, RED: 2})
    r, c, k = claim_of(decide(g, "route_focus"))
    assert route_ends(g, r) == {"Denver", "Santa Fe"}       # 2 + 2 x (4 + 9) beats 7 + 2 x 9
    assert (c, k) == (PINK, 0)                              # gray paid with the colour held most


def test_route_focus_draws_the_best_routes_colour():
    g = rf_game()
    own(g, 0, route_id(g, "Denver", "Santa Fe"))
    put_hand(g, 0, {RED: 1})
    put_faceup(g, [RED, GREEN, BLUE, WHITE, GREEN])
    assert decide(g, "route_focus") == A_FACEUP + 2         # Chicago-Omaha (4 blue), 7 + 2 x 9
    put_faceup(g, [RED, GREEN, GREEN, WHITE, GREEN])
    assert decide(g, "route_focus") == A_BLIND


def test_route_focus_ignores_off_path_routes_while_it_has_paths():
    g = rf_game()
    own(g, 0, route_id(g, "Denver", "Santa Fe"), route_id(g, "Santa Fe", "El Paso"))
    put_hand(g, 0, {GREEN: 6})                    # pays El Paso-Houston (6 green), on no path; no path route
    put_faceup(g, [RED, GREEN, BLUE, WHITE, GREEN])
    assert decide(g, "route_focus") == A_FACEUP + 2                # collects blue for Chicago-Omaha
    r, c, _ = claim_of(decide(g, "route_focus", {"path_only": 0}))
    assert route_ends(g, r) == {"El Paso", "Houston"} and c == GREEN   # 15 route points, the best it can pay


def test_route_focus_keeps_all_at_setup_and_minimum_later():
    g = Game("usa", 2, seed=4)
    assert decide(g, "route_focus") == A_KEEP + 0b111
    g = setup_game("usa", 2, seed=4)
    s = g.state
    s.offer[0, :3] = [ticket_id(g, "Seattle", "New York"), ticket_id(g, "Denver", "El Paso"),
                      ticket_id(g, "Los Angeles", "Miami")]
    s.offer_n[0] = 3
    s.meta[M_PHASE] = PH_KEEP
    assert decide(g, "route_focus") == A_KEEP + 0b010       # the shortest (fewest routes) path


def test_route_focus_draws_tickets_when_done():
    g = setup_game("usa", 2, seed=2)
    give_tickets(g, 0, [])
    put_hand(g, 0, {})
    assert decide(g, "route_focus") == A_TICKETS + 3
    g.state.trains[1] = 7
    assert decide(g, "route_focus") != A_TICKETS + 3


# --- one_step ------------------------------------------------------------------------------------

def os_game():
    """Most valuable ticket Calgary-Salt Lake City (7): cheapest path Calgary-Helena (4 gray),
    Helena-Salt Lake City (3 pink)."""
    g = setup_game("usa", 2, seed=3)
    give_tickets(g, 0, [("Calgary", "Salt Lake City"), ("Denver", "El Paso")])
    return g


def test_one_step_targets_next_route_of_most_valuable_ticket():
    g = os_game()
    put_hand(g, 0, {RED: 4, BLUE: 5})
    r, c, k = claim_of(decide(g, "one_step"))
    assert route_ends(g, r) == {"Calgary", "Helena"}
    assert (c, k) == (BLUE, 0)                              # paid with the colour it holds most of


def test_one_step_walks_along_the_path_and_draws_its_colour():
    g = os_game()
    own(g, 0, route_id(g, "Calgary", "Helena"))
    put_hand(g, 0, {PINK: 1, RED: 2})                        # can pay Denver-Santa Fe, but that is not the target
    put_faceup(g, [RED, GREEN, PINK, WHITE, LOCO])
    assert decide(g, "one_step") == A_FACEUP + 2             # Helena-Salt Lake City is pink
    put_faceup(g, [RED, GREEN, BLUE, WHITE, LOCO])
    assert decide(g, "one_step") == A_FACEUP + 4             # else a locomotive
    put_faceup(g, [RED, GREEN, BLUE, WHITE, GREEN])
    assert decide(g, "one_step") == A_BLIND                  # else blind
    put_hand(g, 0, {PINK: 2, LOCO: 1})
    assert claim_of(decide(g, "one_step")) == (route_id(g, "Helena", "Salt Lake City"), PINK, 1)


def test_one_step_draws_tickets_or_claims_longest_without_tickets():
    g = setup_game("usa", 2, seed=3)
    give_tickets(g, 0, [])
    put_hand(g, 0, {RED: 3})
    assert decide(g, "one_step") == A_TICKETS + 3
    g.state.trains[1] = 7                                    # some player below 8 trains
    r, c, _ = claim_of(decide(g, "one_step"))
    assert g.board.route_len[r] == 3 and c == RED


def test_one_step_skips_unreachable_ticket():
    g = os_game()
    put_hand(g, 0, {RED: 2})
    g.state.route_owner[route_id(g, "Calgary", "Helena")] = 1     # Calgary still reachable via Seattle
    for a, b in (("Calgary", "Seattle"), ("Calgary", "Vancouver"), ("Calgary", "Winnipeg")):
        g.state.route_owner[route_id(g, a, b)] = 1               # Calgary cut off
    r, c, _ = claim_of(decide(g, "one_step"))
    assert route_ends(g, r) in ({"Denver", "Santa Fe"}, {"Santa Fe", "El Paso"}) and c == RED


# --- destination_hungry --------------------------------------------------------------------------

def dh_game(tickets=(("Denver", "El Paso"),)):
    g = setup_game("usa", 2, seed=6)
    give_tickets(g, 0, list(tickets))
    return g


def test_destination_hungry_draws_tickets_while_plan_is_small():
    g = dh_game()
    put_hand(g, 0, {RED: 2})
    assert decide(g, "destination_hungry") == A_TICKETS + 3  # plan 4 < 45 - 8
    g.state.trains[0] = 12                                   # 4 < 12 - 8 is false: build instead
    r, c, k = claim_of(decide(g, "destination_hungry"))
    assert route_ends(g, r) in ({"Denver", "Santa Fe"}, {"Santa Fe", "El Paso"}) and (c, k) == (RED, 0)


def test_destination_hungry_draws_the_colour_its_plan_needs_most():
    g = dh_game((("Calgary", "Salt Lake City"),))
    g.state.trains[0] = 12                                   # plan 7 >= 12 - 8
    put_hand(g, 0, {})
    put_faceup(g, [RED, GREEN, BLUE, PINK, GREEN])
    assert decide(g, "destination_hungry") == A_FACEUP + 3   # 3 pink + 4 gray (counted as pink) needed
    put_faceup(g, [RED, GREEN, BLUE, WHITE, GREEN])
    assert decide(g, "destination_hungry") == A_BLIND


def test_destination_hungry_claims_longest_without_plan():
    g = dh_game(())
    g.state.trains[0] = 8                                    # plan 0 < 8 - 8 is false
    put_hand(g, 0, {RED: 4})
    r, c, _ = claim_of(decide(g, "destination_hungry"))
    assert g.board.route_len[r] == 4 and c == RED


def _dh_expected_keep(g, margin=5):
    """The keep rule computed in Python over the plan kernel."""
    b, s = g.board, g.state
    me = g.player
    cost = np.empty(len(b.route_len))
    G.route_cost_for(b, s, me, G.COST_TRAINS, cost)
    in_plan = np.zeros(len(b.route_len), np.bool_)
    offer = [int(t) for t in s.offer[me, :s.offer_n[me]]]
    best, best_ratio, small, small_cost = None, -1, None, INF
    buf = legal_buffer(b)
    n = legal_actions(b, s, buf)
    for a in buf[:n]:
        mask = int(a) - A_KEEP
        ts = [t for j, t in enumerate(offer) if mask >> j & 1]
        locs = np.array([x for t in ts for x in (b.ticket_a[t], b.ticket_b[t])], np.int64)
        c, miss = N.plan_network(b, cost, locs, len(locs), in_plan, N.network_work(b))
        value = sum(int(b.ticket_points[t]) for t in ts) + sum(
            int(b.route_points[r]) for r in np.flatnonzero(in_plan) if s.route_owner[r] != me)
        if miss == 0 and c <= s.trains[me] - margin and value / max(c, 1) > best_ratio:
            best, best_ratio = int(a), value / max(c, 1)
        if c + 1000 * miss < small_cost:
            small, small_cost = int(a), c + 1000 * miss
    return best if best is not None else small


def test_destination_hungry_keeps_by_ratio_rule():
    g = Game("usa", 2, seed=5)
    s = g.state
    me = g.player
    s.offer[me, :3] = [ticket_id(g, "Seattle", "New York"), ticket_id(g, "Denver", "El Paso"),
                       ticket_id(g, "Calgary", "Salt Lake City")]
    got = decide(g, "destination_hungry")
    assert got == _dh_expected_keep(g)
    s.trains[me] = 20                                          # Seattle-New York no longer fits 20 - 5
    got = decide(g, "destination_hungry")
    assert got == _dh_expected_keep(g) and not (got - A_KEEP) & 1
    s.trains[me] = 8                                           # no pair fits 8 - 5 trains
    got = decide(g, "destination_hungry")
    assert got == _dh_expected_keep(g) == A_KEEP + 0b110      # the smallest plan (2 tickets to keep)


# --- phases every agent handles ---------------------------------------------------------------------

@pytest.mark.parametrize("name", AGENTS)
def test_germany_setup_mix_parameter(name):
    g = Game("germany", 2, seed=1)
    long_default = param_row(name)[[p.name for p in REGISTRY[name].params].index("setup_long")]
    assert decide(g, name) == A_TICKETS + 4 - int(long_default)
    assert decide(g, name, {"setup_long": 2}) == A_TICKETS + 2


@pytest.mark.parametrize("name", AGENTS)
def test_passenger_colour_held_most(name):
    """R4.6: the passenger colour the agent already holds most of."""
    g = setup_game("germany", 2, seed=2)
    s = g.state
    loc = next(x for x in range(len(s.pass_loc)) if (s.pass_loc[x] > 0).sum() >= 2)
    s.pend_loc[:] = loc
    s.meta[M_PEND_I] = 0
    s.meta[M_PEND_N] = 2
    s.meta[M_PHASE] = PH_PASSENGER
    me = g.player
    loc = s.pend_loc[s.meta[M_PEND_I]]
    avail = [c for c in range(6) if s.pass_loc[loc, c] > 0]
    s.pass_player[me, :] = 0
    s.pass_player[me, avail[-1]] = 3
    assert decide(g, name) == A_PASSENGER + avail[-1]


@pytest.mark.parametrize("name", AGENTS)
def test_second_draw_never_illegal(name):
    """Draw2: a legal second card (never a face-up locomotive)."""
    g = setup_game("usa", 2, seed=7)
    put_faceup(g, [BLUE, LOCO, LOCO, RED, GREEN])
    g.apply(A_BLIND)
    assert g.phase == "draw2"
    a = decide(g, name)
    assert a == A_BLIND or g.state.faceup[a - A_FACEUP] != LOCO


@pytest.mark.parametrize("name", ["destination_hungry", "route_focus", "one_step", "long_route"])
@pytest.mark.parametrize("rules,n_players", [("usa", 4), ("germany", 3)])
def test_memory_keeps_the_decisions(name, rules, n_players):
    """These agents remember their plan, path points or target (their rows of
    the strategy memory) while their trains and tickets are the same and no
    route of it is taken (``memory.plan_open``): the decisions of whole games equal those made with
    the memory wiped (from scratch), but where a fresh search breaks a tie
    between equally cheap paths another way (at most 1 in 100)."""
    same = total = 0
    for seed in range(2):
        g = Game(rules, n_players, seed=seed)
        m = fresh_memory(g)
        while not g.over:
            a = decide(g, name, memory=m)
            same += decide(g, name, memory=fresh_memory(g)) == a
            total += 1
            g.apply(a)
    assert total > 300 and same >= 0.99 * total, (same, total)


@pytest.mark.parametrize("rules,n_players,seed", KERNEL_CASES)
def test_plan_open_paths_stay_cheapest(rules, n_players, seed):
    """The rule behind ``memory.plan_open``: take any routes off a cheapest path
    (as other seats' claims do) and the path keeps its cost and stays a
    cheapest one, and an unreachable ticket stays unreachable."""
    rng = np.random.default_rng(seed)
    checked = 0
    for g, me, _, _ in main_phase_positions(rules, n_players, 10, seed):
        b, s = g.board, g.state
        R = len(b.route_len)
        cost = np.empty(R)
        G.route_cost_for(b, s, me, G.COST_TRAINS, cost)
        dist, prev, done = G.new_work(b)
        routes = np.empty(R, np.int64)
        for t in rng.choice(len(b.ticket_a), 5, replace=False):
            n, c = G.path_between(b, cost, b.ticket_a[t], b.ticket_b[t], routes, dist, prev, done)
            on_path = np.zeros(R, np.bool_)
            on_path[routes[:max(n, 0)]] = True
            later = cost.copy()
            later[(rng.random(R) < 0.3) & ~on_path & (cost > 0)] = -1.0
            assert M.plan_open(later, on_path)
            n2, c2 = G.path_between(b, later, b.ticket_a[t], b.ticket_b[t], routes, dist, prev, done)
            assert (n2 < 0) == (n < 0) and c2 == c
            checked += n >= 0
    assert checked > 0


# =========================================================================== (c) games

def _play(rules, n_players, names, n_games, seed0=0):
    b = build_board(get_rules(rules))
    s = allocate_state(b, n_players)
    m = allocate_memory(b, n_players)
    buf = legal_buffer(b)
    ends = {}
    wins = np.zeros(n_players)
    for gi in range(n_games):
        rot = gi % n_players
        seats = [names[(i + rot) % len(names)] for i in range(n_players)]
        ids = np.array([strategy_id(x) for x in seats], np.int64)
        params = np.stack([param_row(x) for x in seats])
        play_game(b, s, m, seed0 + gi, ids, params, buf)
        e = END_NAMES[s.meta[M_END]]
        ends[e] = ends.get(e, 0) + 1
        for i in range(n_players):
            wins[i] += s.final[i, F_WINNER] if seats[i] == names[0] else 0
    return ends, wins.sum()


@pytest.mark.parametrize("rules", preset_names())
@pytest.mark.parametrize("name", AGENTS)
def test_full_games_every_preset(name, rules):
    """50 games each with 2 and 4 players, seats mixed with ``random``; almost all end normally (R6.1)."""
    for n_players, lineup in ((2, (name, "random")), (4, (name, "random", name, "random"))):
        ends, _ = _play(rules, n_players, lineup, 50)
        assert sum(ends.values()) == 50
        assert ends.get("normal", 0) >= 45, ends
    ends, _ = _play(rules, 4, (name,), 20, seed0=500)               # self-play
    assert ends.get("normal", 0) >= 18, ends


VARIANTS = {"destination_hungry": {"forest": 1, "keep_margin": 0, "draw_margin": 20, "draw_long": 2},
            "route_focus": {"path_only": 0, "ticket_weight": 0.5, "draw_min_trains": 50},
            "one_step": {"draw_min_trains": 0, "draw_long": 4},
            "long_route": {"plan_first": 0, "min_len": 5, "setup_long": 4}}


@pytest.mark.parametrize("rules", ["usa-mega", "germany"])
@pytest.mark.parametrize("name", AGENTS)
def test_parameter_variants_play_legally(name, rules):
    """Non-default parameters (every branch they switch) still give legal, finished games."""
    b = build_board(get_rules(rules))
    s = allocate_state(b, 3)
    m = allocate_memory(b, 3)
    buf = legal_buffer(b)
    row = param_row(name, VARIANTS[name])
    ids = np.array([strategy_id(name), strategy_id("random"), strategy_id(name)], np.int64)
    params = np.stack([row, param_row("random"), row])
    for seed in range(30):
        play_game(b, s, m, seed, ids, params, buf)
        assert s.meta[M_PHASE] == PH_OVER and END_NAMES[s.meta[M_END]] in ("normal", "stalled")
    g = Game(rules, 3, seed=5)
    m = fresh_memory(g)
    while not g.over:
        n = dispatch.legal_for(ids[g.player], g.board, g.state, buf)
        a = dispatch.choose(ids[g.player], g.board, g.state, m, buf, n, params)
        g.apply(int(a))                                   # raises IllegalAction if illegal


def test_dispatch_stops_an_illegal_pick():
    """The dispatcher checks every pick with ``is_legal``: a strategy handed a
    bad list (here ``random``, which picks from the list, offered a claim of a
    route already taken) stops the loop with an error instead of applying the action."""
    g = setup_game("usa", 2, seed=3)
    b, s = g.board, g.state
    r = route_id(g, "Seattle", "Portland")
    s.route_owner[r] = 1 - g.player
    put_hand(g, g.player, {GREEN: 4})
    bad = np.array([encode_claim(r, GREEN, 0)] * 4, np.int32)
    params = np.tile(param_row("random"), (2, 1))
    with pytest.raises(ValueError, match="illegal action"):
        dispatch.choose(strategy_id("random"), b, s, fresh_memory(g), bad, 1, params)


@pytest.mark.parametrize("name", AGENTS)
def test_beats_random_two_players(name):
    """Sanity: more than 80% wins in 200 seat-rotated 2-player USA games against ``random``."""
    b = build_board(get_rules("usa"))
    s = allocate_state(b, 2)
    m = allocate_memory(b, 2)
    buf = legal_buffer(b)
    wins = 0
    for gi in range(200):
        me = gi % 2
        seats = [name, "random"] if me == 0 else ["random", name]
        ids = np.array([strategy_id(x) for x in seats], np.int64)
        params = np.stack([param_row(x) for x in seats])
        play_game(b, s, m, 10_000 + gi, ids, params, buf)
        wins += int(s.final[me, F_WINNER])
    assert wins > 160, wins
