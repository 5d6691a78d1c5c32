"""The end scoring kernels against independent, deliberately naive references
on hundreds of random small cases (R6.3, R6.4, R6.5, R6.7).

(a) ``longest_trail`` against a brute force over edge subsets: a subset is a
    trail when it is connected and has 0 or 2 odd-degree vertices (Euler), so
    the longest trail is the heaviest such subset.
(b) ticket completion in ``final_scoring`` against a plain BFS over the
    player's routes, on random map files (with countries and border points)
    loaded with ``load_map``.
(c) ``majority_points`` against a literal reading of R6.7.

Every case comes from a fixed numpy seed, so a failure is reproducible; the
failing case is printed in the assertion message.
"""
import itertools

import numpy as np
import pytest
import yaml

from ttrsim.core.board import build_board
from ttrsim.core.scoring import final_scoring, longest_trail, majority_points
from ttrsim.core.state import (
    F_LP_LEN,
    F_N_COMPLETED,
    F_N_FAILED,
    F_PASSENGER_PTS,
    F_TICKETS_LOST,
    F_TICKETS_WON,
    allocate_state,
)
from ttrsim.data.maps import load_map
from ttrsim.data.rules import get_rules

N_PASSENGER_COLOURS = 6
COLOURS = ["gray", "red", "orange", "yellow", "green", "blue", "pink", "white", "black"]


# --------------------------------------------------------------------------- (a) longest trail


def brute_longest_trail(edges):
    """Heaviest edge subset that is one connected trail: connected (over the
    subset's own vertices) with 0 or 2 odd-degree vertices. ``edges`` is a list
    of (a, b, w); a == b is a loop edge (degree +2)."""
    m = len(edges)
    best = 0
    for mask in range(1, 1 << m):
        chosen = [edges[i] for i in range(m) if mask >> i & 1]
        deg = {}
        for a, b, _ in chosen:
            deg[a] = deg.get(a, 0) + 1
            deg[b] = deg.get(b, 0) + 1
        if sum(d % 2 for d in deg.values()) not in (0, 2):
            continue
        parent = {v: v for v in deg}

        def find(x):
            while parent[x] != x:
                x = parent[x]
            return x

        for a, b, _ in chosen:
            parent[find(a)] = find(b)
        if len({find(v) for v in deg}) != 1:
            continue
        best = max(best, sum(w for _, _, w in chosen))
    return best


def random_multigraph(rng):
    n_nodes = int(rng.integers(1, 7))
    m = int(rng.integers(0, 11))
    edges = []
    for _ in range(m):
        a = int(rng.integers(n_nodes))
        if rng.random() < 0.1:
            b = a                                    # a loop edge
        elif edges and rng.random() < 0.25:
            a, b, _ = edges[int(rng.integers(len(edges)))]   # a parallel edge
        else:
            b = int(rng.integers(n_nodes))
        edges.append((a, b, int(rng.integers(1, 8))))
    return n_nodes, edges


def kernel_longest(n_nodes, edges):
    ea = np.array([e[0] for e in edges], np.int64)
    eb = np.array([e[1] for e in edges], np.int64)
    ew = np.array([e[2] for e in edges], np.int64)
    return int(longest_trail(ea, eb, ew, n_nodes))


def test_R6_5_longest_trail_matches_brute_force():
    """R6.5 longest continuous path: a route used at most once, cities visited
    any number of times, loops allowed; 600 random multigraphs of up to 10
    edges with parallel edges and loop edges."""
    rng = np.random.default_rng(20240605)
    sizes = set()
    for case in range(600):
        n_nodes, edges = random_multigraph(rng)
        sizes.add(len(edges))
        want = brute_longest_trail(edges)
        got = kernel_longest(n_nodes, edges)
        assert got == want, f"case {case}: n_nodes={n_nodes} edges={edges}: kernel {got}, brute force {want}"
    assert sizes == set(range(11))


@pytest.mark.parametrize("edges,want", [
    ([], 0),
    ([(0, 1, 3)], 3),
    ([(0, 1, 2), (0, 1, 2), (0, 1, 2)], 6),                 # triple parallel: odd degrees 3/3 -> all three
    ([(0, 1, 1), (1, 2, 1), (1, 3, 1), (1, 4, 1)], 2),       # a star: two arms only
    ([(0, 1, 1), (1, 2, 1), (2, 0, 1), (0, 3, 5), (1, 4, 5)], 12),  # triangle with two tails: 3-0-2-1-4
    ([(0, 0, 4), (0, 1, 1)], 5),                            # a loop edge then away
    ([(0, 1, 1), (2, 3, 7)], 7),                            # two components
])
def test_R6_5_longest_trail_small_cases(edges, want):
    """R6.5 hand-checked small graphs, also checked by the brute force."""
    n_nodes = 1 + max([max(a, b) for a, b, _ in edges], default=0)
    assert brute_longest_trail(edges) == want
    assert kernel_longest(n_nodes, edges) == want


# --------------------------------------------------------------------------- (b) ticket completion


def random_map(rng, name="random"):
    """A small random map (as a YAML document dict) plus the plain data the
    reference needs: routes as (node name, node name) in file order, tickets as
    (location name, location name, points) in file order, and the nodes of each
    location."""
    n_cities = int(rng.integers(2, 8))
    cities = [f"C{i}" for i in range(n_cities)]
    countries = {}
    for k in range(int(rng.integers(0, 3))):
        cname = f"Land{k}"
        countries[cname] = [f"{cname}/{j + 1}" for j in range(int(rng.integers(1, 4)))]
    points = [p for pts in countries.values() for p in pts]
    loc_nodes = {c: {c} for c in cities}
    loc_nodes.update({c: set(pts) for c, pts in countries.items()})

    pairs = [(cities[i - 1], cities[i]) for i in range(1, n_cities)]   # one network (map validator)
    for p in points:                                  # every border point is used (map validator)
        pairs.append((p, cities[int(rng.integers(n_cities))]))
    for _ in range(int(rng.integers(0, 12))):
        a = cities[int(rng.integers(n_cities))]
        if points and rng.random() < 0.2:
            b = points[int(rng.integers(len(points)))]
        else:
            b = cities[int(rng.integers(n_cities))]
        if a == b:
            continue
        if rng.random() < 0.5:
            a, b = b, a
        pairs.append((a, b))
    # parallel tracks: at most 3 per pair, one group name and one length per pair
    by_pair = {}
    routes = []
    for a, b in pairs:
        key = frozenset((a, b))
        if len(by_pair.get(key, [])) == 3:
            continue
        by_pair.setdefault(key, []).append(len(routes))
        routes.append([a, b])
    rows = []
    group_len = {}
    for _i, (a, b) in enumerate(routes):
        key = frozenset((a, b))
        group = None
        if len(by_pair[key]) > 1:
            group = "G" + "_".join(sorted(key)).replace("/", "")
        length = group_len.setdefault(key, int(rng.integers(1, 8)))
        rows.append([a, b, length, COLOURS[int(rng.integers(len(COLOURS)))], group])

    locations = cities + list(countries)
    tickets, seen = [], set()
    for _ in range(int(rng.integers(1, 9))):
        i, j = rng.choice(len(locations), 2, replace=False)
        a, b = locations[int(i)], locations[int(j)]
        pts = int(rng.integers(1, 25))
        if (frozenset((a, b)), pts) in seen:
            continue
        seen.add((frozenset((a, b)), pts))
        tickets.append([a, b, pts, ["base"]])

    doc = {
        "name": name,
        "scoring": {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15, 7: 18},
        "cities": {c: [10 * i, 0] for i, c in enumerate(cities)},
        "countries": {c: {"label": [5 * k, 50], "border_points": {p: [5 * k + j, 60] for j, p in enumerate(pts)}}
                      for k, (c, pts) in enumerate(countries.items())},
        "routes": rows,
        "tickets": tickets,
    }
    plain = {"routes": [(r[0], r[1], r[2]) for r in rows], "tickets": [(t[0], t[1], t[2]) for t in tickets],
             "loc_nodes": loc_nodes}
    return doc, plain


def bfs_joined(own_routes, sources, targets):
    """Plain BFS over the routes ``(a, b)``: is some node of ``sources`` joined
    to some node of ``targets``?"""
    adj = {}
    for a, b in own_routes:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    seen = set(sources)
    todo = list(sources)
    while todo:
        u = todo.pop()
        if u in targets:
            return True
        for v in adj.get(u, ()):
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return False


def test_R6_3_R6_4_ticket_completion_matches_bfs(tmp_path):
    """R6.3 a ticket is complete when its endpoints are joined by the player's
    own routes; R6.4 a country is its border points, each a separate dead-end
    node, and a country ticket is met at any of them. 300 random maps, 5 random
    ownings each, 2 to 5 players."""
    rng = np.random.default_rng(6_3_6_4)
    n_country_tickets = n_completed = n_failed = 0
    for case in range(300):
        doc, plain = random_map(rng, name=f"random{case}")
        path = tmp_path / f"map{case}.yaml"
        path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
        m = load_map(path)
        board = build_board(get_rules("usa", {"map": str(path)}), m)
        assert m.n_routes == len(plain["routes"]) and m.n_tickets == len(plain["tickets"])
        n_players = int(rng.integers(2, 6))
        s = allocate_state(board, n_players)
        for trial in range(5):
            s.route_owner[:] = rng.integers(-1, n_players, m.n_routes)
            s.ticket_holder[:] = rng.integers(-1, n_players, m.n_tickets)
            s.score[:] = 0
            final_scoring(board, s)
            for p in range(n_players):
                own = [(a, b) for r, (a, b, _) in enumerate(plain["routes"]) if s.route_owner[r] == p]
                won = lost = done = failed = 0
                for t, (a, b, pts) in enumerate(plain["tickets"]):
                    if s.ticket_holder[t] != p:
                        continue
                    n_country_tickets += a.startswith("Land") or b.startswith("Land")
                    if bfs_joined(own, plain["loc_nodes"][a], plain["loc_nodes"][b]):
                        won, done = won + pts, done + 1
                    else:
                        lost, failed = lost + pts, failed + 1
                got = [int(s.final[p, c]) for c in (F_N_COMPLETED, F_TICKETS_WON, F_N_FAILED, F_TICKETS_LOST)]
                assert got == [done, won, failed, lost], (
                    f"case {case} trial {trial} seat {p}: map {doc}\nowners {s.route_owner.tolist()} "
                    f"holders {s.ticket_holder.tolist()}: kernel {got}, BFS {[done, won, failed, lost]}")
                n_completed += done
                n_failed += failed
                # R6.5 on the same maps: border points are dead ends for the longest path too
                if len(own) <= 10:
                    edges = [(a, b, w) for r, (a, b, w) in enumerate(plain["routes"]) if s.route_owner[r] == p]
                    assert s.final[p, F_LP_LEN] == brute_longest_trail(edges), f"case {case} seat {p}"
    # the random cases exercise both outcomes and the countries
    assert n_completed > 200 and n_failed > 200 and n_country_tickets > 200


# --------------------------------------------------------------------------- (c) passenger majorities


def literal_majority(counts, first, second, zero_scores):
    """R6.7, word by word: per colour, most passengers `first` points, second
    most `second`. A tie for most: all tied score `first` and nobody scores
    second. One player most and a tie for second: all tied for second score
    `second`. [choice] A player with no passenger of the colour scores nothing
    (unless ``zero_scores``)."""
    n = len(counts)
    eligible = [p for p in range(n) if counts[p] > 0 or zero_scores]
    points = [0] * n
    if not eligible:
        return points
    most = max(counts[p] for p in eligible)
    tied_first = [p for p in eligible if counts[p] == most]
    for p in tied_first:
        points[p] = first
    if len(tied_first) > 1:
        return points
    rest = [p for p in eligible if counts[p] < most]
    if not rest:
        return points
    second_most = max(counts[p] for p in rest)
    for p in rest:
        if counts[p] == second_most:
            points[p] = second
    return points


def check_majority(counts, first, second, zero_scores):
    out = np.full(len(counts), -99, np.int64)
    majority_points(np.array(counts, np.int64), first, second, zero_scores, out)
    want = literal_majority(list(counts), first, second, zero_scores)
    assert out.tolist() == want, f"counts {counts} first {first} second {second} zero_scores {zero_scores}"


@pytest.mark.parametrize("zero_scores", [False, True])
def test_R6_7_majority_exhaustive_small_counts(zero_scores):
    """R6.7 every count vector of 2..5 players with 0..3 passengers (all tie
    patterns and zeros), with both values of passenger_zero_scores."""
    n = 0
    for players in range(2, 6):
        for counts in itertools.product(range(4), repeat=players):
            check_majority(counts, 20, 10, zero_scores)
            n += 1
    assert n == 4 ** 2 + 4 ** 3 + 4 ** 4 + 4 ** 5


@pytest.mark.parametrize("zero_scores", [False, True])
def test_R6_7_majority_random(zero_scores):
    """R6.7 random count vectors (many ties and zeros) and random point values."""
    rng = np.random.default_rng(67 + zero_scores)
    for _ in range(2000):
        players = int(rng.integers(2, 6))
        top = int(rng.choice([1, 2, 3, 10]))
        counts = [int(x) for x in rng.integers(0, top + 1, players)]
        second = int(rng.integers(0, 30))
        first = second + int(rng.integers(0, 30))
        check_majority(counts, first, second, zero_scores)


@pytest.mark.parametrize("zero_scores", [False, True])
def test_R6_7_final_scoring_sums_majorities(zero_scores):
    """R6.7 final scoring adds the literal majorities of the 6 colours, for
    random passenger holdings on the Germany board."""
    rules = get_rules("germany", {"passenger_zero_scores": zero_scores})
    board = build_board(rules)
    rng = np.random.default_rng(670 + zero_scores)
    for _ in range(200):
        n_players = int(rng.integers(2, 6))
        s = allocate_state(board, n_players)
        s.pass_player[:, :] = rng.integers(0, 4, (n_players, N_PASSENGER_COLOURS))
        final_scoring(board, s)
        want = np.zeros(n_players, np.int64)
        for c in range(N_PASSENGER_COLOURS):
            want += literal_majority(s.pass_player[:, c].tolist(), 20, 10, zero_scores)
        assert s.final[:n_players, F_PASSENGER_PTS].tolist() == want.tolist(), s.pass_player.tolist()


# --------------------------------------------------------------------------- (d) winner and tie-breaks


def literal_winners(totals, columns, steps):
    """R6.8 word by word: the highest total wins; ties go through the rule
    set's steps in order (most of the column among those still tied); still
    tied: every tied player is a winner."""
    alive = [p for p in range(len(totals)) if totals[p] == max(totals)]
    for step in steps:
        pick = min if step in ("stations", "stations_built") else max      # the fewest stations (Europe)
        best = pick(columns[step][p] for p in alive)
        alive = [p for p in alive if columns[step][p] == best]
    return alive


@pytest.mark.parametrize("preset,steps", [("usa", ["tickets", "longest_path"]),
                                          ("germany", ["tickets", "passengers"]),
                                          ("usa-1910", ["tickets", "longest_path"]),
                                          ("europe", ["tickets", "stations", "longest_bonus"]),
                                          ("europe", ["stations_built", "longest_bonus", "longest_path"])])
def test_R6_8_winners_match_literal_reading(preset, steps):
    """R6.8 ``mark_winners`` against the literal tie-break order, on random
    final tables with many ties (USA: tickets then longest path; Germany:
    tickets then passengers; Europe: tickets, the fewest stations used, the
    European Express holder)."""
    from ttrsim.core.scoring import mark_winners
    from ttrsim.core.state import (
        F_LP_BONUS,
        F_N_PASSENGERS,
        F_STATIONS_BUILT,
        F_STATIONS_USED,
        F_TOTAL,
        F_WINNER,
        N_FINAL,
    )
    board = build_board(get_rules(preset, {"tiebreaks": steps}))
    rng = np.random.default_rng(68)
    cols = {"tickets": F_N_COMPLETED, "longest_path": F_LP_LEN, "passengers": F_N_PASSENGERS,
            "stations": F_STATIONS_USED, "longest_bonus": F_LP_BONUS, "stations_built": F_STATIONS_BUILT}
    shared = 0
    for _ in range(1500):
        n = int(rng.integers(2, 6))
        f = np.zeros((n, N_FINAL), np.int32)
        f[:, F_TOTAL] = rng.integers(-2, 3, n)
        for c in cols.values():
            f[:, c] = rng.integers(0, 3, n)
        mark_winners(board, f, n)
        want = literal_winners(f[:, F_TOTAL].tolist(), {k: f[:, c].tolist() for k, c in cols.items()}, steps)
        got = [p for p in range(n) if f[p, F_WINNER]]
        assert got == want, f"{preset}: table {f.tolist()}"
        shared += len(want) > 1
    assert shared > (50 if len(steps) < 3 else 15)      # three steps leave fewer players level
