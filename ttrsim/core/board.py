"""The static data of one rule set on one map, as arrays for the compiled core.

A :class:`Board` joins a :class:`~ttrsim.data.maps.MapData` and a
:class:`~ttrsim.data.rules.RuleSet`. Rule parameters become one ``int32`` array
``rp`` indexed by the ``RP_*`` constants, so the kernels read rules as data.

>>> from ttrsim.data.rules import get_rules
>>> b = build_board(get_rules("usa"))
>>> int(b.rp[RP_TRAINS]), int(b.rp[RP_N_DECKS]), len(b.route_len)
(45, 1, 100)
"""
from __future__ import annotations

import numpy as np

from ttrsim.data.ids import N_CARD_KINDS, N_COLOURS, N_PASSENGER_COLOURS
from ttrsim.data.interventions import offered_ticket_id, played_map
from ttrsim.data.maps import MAX_ROUTE_LENGTH, MapData
from ttrsim.data.rules import (
    MAX_OFFER,  # noqa: F401  (re-exported)
    TIEBREAK_NAMES,
    RulesError,
    RuleSet,
    percent_of,
)
from ttrsim.jit.record import define_record

# --- indices into Board.rp -------------------------------------------------
(RP_TRAINS, RP_HAND, RP_FACEUP, RP_SETUP_DEAL, RP_SETUP_KEEP, RP_SETUP_SHUFFLE,
 RP_DRAW_N, RP_DRAW_KEEP, RP_DRAW_SHUFFLE, RP_LOCO_RESET, RP_MAX_RESETS, RP_END_TRAINS,
 RP_LOCK_MAXP, RP_LP_PTS, RP_GLOBE_PTS, RP_PASS_FIRST, RP_PASS_SECOND, RP_PASS_ZERO,
 RP_BONUS_NEEDS_SCORE, RP_TB0, RP_TB1, RP_TB2, RP_MAX_TURNS, RP_STALL_ROUNDS, RP_N_DECKS,
 RP_N_CARDS, RP_PASSENGERS, RP_FIRST_SEAT,
 RP_SETUP_LONG,      # long tickets dealt to each player at setup (R8.1)
 RP_TUNNEL_CARDS,    # cards turned over for a tunnel (R8.3)
 RP_STATIONS,        # stations per player, 0 = none (R8.4)
 RP_STATION_PTS,     # points per station not built (R8.5)
 RP_SETUP_BOX,       # setup tickets not kept leave the game (R2.2, setup_return: box)
 RP_OFFER_TICKET,    # the ticket offered at setup (R9.1, offer_ticket), -1 = none
 RP_OFFER_SEAT,      # the seat it is offered to (R9.1)
 RP_OFFER_KEPT,      # the seat must keep it (R9.1)
 N_RP) = range(37)

# tie-break step codes in RP_TB0..RP_TB2 (0 = no step), in the order of TIEBREAK_NAMES
TB_NONE, TB_TICKETS, TB_LONGEST, TB_PASSENGERS, TB_STATIONS, TB_LONGEST_BONUS, TB_STATIONS_BUILT = range(7)
assert TIEBREAK_NAMES.index("stations_built") + 1 == TB_STATIONS_BUILT
MAX_PARALLEL = 3       # tracks between the same two endpoints


def route_words(n_routes: int) -> int:
    """64-bit words of a route bit set (at least one)."""
    return max(1, (n_routes + 63) // 64)


def route_masks(route_len: np.ndarray, route_colour: np.ndarray) -> np.ndarray:
    """``Board.claim_masks``: ``[c, L]`` holds the routes of colour ``c`` (8
    gray) no longer than ``L``.

    >>> route_masks(np.array([2, 3]), np.array([1, 1]))[1, 2:4, 0].tolist()
    [1, 3]
    """
    masks = np.zeros((N_COLOURS + 1, MAX_ROUTE_LENGTH + 1, route_words(len(route_len))), np.uint64)
    for r, (length, colour) in enumerate(zip(route_len, route_colour)):
        masks[colour, length:, r // 64] |= np.uint64(1 << (r % 64))
    return masks


def route_parallels(group_routes: np.ndarray, route_group: np.ndarray) -> np.ndarray:
    """``Board.route_parallels``: ``[r]`` the other routes of route ``r``'s group, -1 padded.

    >>> route_parallels(np.array([[0, 2, -1], [1, -1, -1]]), np.array([0, 1, 0])).tolist()
    [[2, -1], [-1, -1], [0, -1]]
    """
    out = np.full((len(route_group), MAX_PARALLEL - 1), -1, np.int16)
    for r, g in enumerate(route_group):
        others = [int(o) for o in group_routes[g] if o >= 0 and o != r]
        out[r, :len(others)] = others
    return out


BOARD_FIELDS = (
    "rp",             # int32[N_RP] rule parameters (RP_* indices)
    "card_counts",    # int16[9] cards of each kind in the train deck (colours 0..7, loco 8)
    "route_a",        # int16[R] endpoint node ids
    "route_b",        # int16[R]
    "route_loc_a",    # int16[R] endpoint locations (passenger places)
    "route_loc_b",    # int16[R]
    "route_len",      # int16[R] 1..7
    "route_colour",   # int16[R] 0..7 colour, 8 gray
    "route_points",   # int16[R] points by the scoring table (R1.4)
    "route_group",    # int16[R] parallel-track group id
    "route_tunnel",   # int8[R] 1 for a tunnel (R8.3)
    "route_ferry",    # int16[R] locomotives a ferry needs at least (R8.2), 0 = not a ferry
    "group_routes",   # int16[G, 3] routes of each group, -1 padded
    "loc_node_start", # int16[L+1] CSR: nodes of location l are loc_nodes[start[l]:start[l+1]]
    "loc_nodes",      # int16[N]
    "ticket_a",       # int16[T] endpoint locations
    "ticket_b",       # int16[T]
    "ticket_points",  # int16[T] points a completed ticket scores: printed x ticket_points_percent / 100 (R6.3)
    "ticket_penalty", # int16[T] points a failed ticket loses: printed x ticket_penalty_percent / 100 (R6.3)
    "ticket_deck",    # int16[T] draw pile of the ticket in this rule set, -1 = not used
    "deck_tickets",   # int16[D, T] tickets of each pile in map order, -1 padded
    "deck_size",      # int16[D]
    "pass_setup",     # int16[L] passengers placed on each location at setup (R1.5)
    "node_route_start",  # int16[N+1] CSR: routes touching node v are node_routes[start[v]:start[v+1]]
    "node_routes",    # int16[2R]
    "n_nodes",        # int number of graph nodes
    "n_cities",       # int locations 0..n_cities-1 are cities (station places, R8.4), the rest countries
    "long_tickets",   # int16[K] the long tickets dealt at setup (R8.1), in map order; empty without
    "station_cost",   # int16[S] cards the 1st, 2nd, ... station costs (R8.4), at least one entry
    "claim_masks",    # uint64[9, MAX_ROUTE_LENGTH + 1, W] route bit sets (bit r % 64 of word r // 64): the
                      #   routes of colour c (8 gray) no longer than L; a hand's claimable routes are the
                      #   union over colours of one set each (ttrsim.core.claims._scan_claims)
    "route_map_id",   # int16[R] each route's id in the map file (differs once remove_routes left some out, R9.2)
    "route_parallels",  # int16[R, 2] the other routes of each route's group, -1 padded
)
Board = define_record("Board", BOARD_FIELDS, __name__, borrowed=True)


def scaled_ticket_points(m: MapData, percent: int, name: str) -> np.ndarray:
    """The map's printed ticket points x ``percent`` / 100, rounded half away
    from zero (R6.3; :func:`~ttrsim.data.rules.percent_of`), as int16."""
    v = percent_of(m.ticket_points.astype(np.int64), percent)
    if v.size and v.max() > np.iinfo(np.int16).max:
        raise RulesError(f"rule parameter '{name}': {percent}% of a ticket of {int(m.ticket_points.max())} points "
                         f"on map '{m.name}' exceeds {np.iinfo(np.int16).max}")
    return v.astype(np.int16)


def build_board(rules: RuleSet, map_data: MapData | None = None) -> Board:
    """Compile ``rules`` (and its map, loaded unless given) into a :class:`Board`.
    The board is that of the map as played
    (:func:`~ttrsim.data.interventions.played_map`: without the routes of
    ``remove_routes``, R9.2); ``map_data`` may be the map file's or already
    the played one (what narration and labels need: ``Game.map``)."""
    m = played_map(rules, map_data)
    rp = np.zeros(N_RP, np.int32)
    scoring = m.scoring.copy()
    explicit = dict(rules.scoring or ())
    for length, pts in explicit.items():
        scoring[length] = pts
    missing = sorted({int(x) for x in m.route_len if scoring[x] == 0 and int(x) not in explicit})
    if missing:
        raise RulesError(f"rule parameter 'scoring' has no points for route length(s) {missing} of map '{m.name}'")

    decks = []
    tagged_in = {}
    for _d, tag in enumerate(rules.ticket_decks):
        ids = m.deck(tag) if tag in m.tags() else ()
        if len(ids) == 0:
            raise RulesError(f"rule parameter 'ticket_decks': map '{m.name}' has no tickets tagged '{tag}'; "
                             f"expected one of: {', '.join(m.tags())}")
        for t in ids:
            if int(t) in tagged_in:
                raise RulesError(f"rule parameter 'ticket_decks': ticket {int(t)} is in both '{tagged_in[int(t)]}' "
                                 f"and '{tag}'; the draw piles must not share tickets")
            tagged_in[int(t)] = tag
        decks.append(ids)
    ticket_deck = np.full(m.n_tickets, -1, np.int16)
    deck_tickets = np.full((len(decks), m.n_tickets), -1, np.int16)
    for d, ids in enumerate(decks):
        ticket_deck[ids] = d
        deck_tickets[d, :len(ids)] = ids

    passengers_on = rules.passenger_first > 0 and int(m.passengers.sum()) > 0
    total_pass = int(m.passengers.sum())
    if passengers_on and total_pass % N_PASSENGER_COLOURS:
        raise RulesError(f"map '{m.name}': {total_pass} passengers do not split evenly into "
                         f"{N_PASSENGER_COLOURS} colours")

    tb = [TIEBREAK_NAMES.index(t) + 1 for t in rules.tiebreaks] + [TB_NONE] * 3
    rp[RP_TRAINS] = rules.trains
    rp[RP_HAND] = rules.hand_size
    rp[RP_FACEUP] = rules.face_up
    rp[RP_SETUP_DEAL] = rules.setup_deal
    rp[RP_SETUP_KEEP] = rules.setup_keep
    rp[RP_SETUP_SHUFFLE] = rules.setup_return == "shuffle"
    rp[RP_SETUP_BOX] = rules.setup_return == "box"
    rp[RP_DRAW_N] = rules.draw_tickets
    rp[RP_DRAW_KEEP] = rules.draw_keep
    rp[RP_DRAW_SHUFFLE] = rules.draw_return == "shuffle"
    rp[RP_LOCO_RESET] = rules.loco_reset_count
    rp[RP_MAX_RESETS] = rules.max_loco_resets
    rp[RP_END_TRAINS] = rules.end_trains
    rp[RP_LOCK_MAXP] = rules.lock_parallel_max_players
    rp[RP_LP_PTS] = rules.longest_path_points
    rp[RP_GLOBE_PTS] = rules.globetrotter_points
    rp[RP_PASS_FIRST] = rules.passenger_first
    rp[RP_PASS_SECOND] = rules.passenger_second
    rp[RP_PASS_ZERO] = rules.passenger_zero_scores
    rp[RP_BONUS_NEEDS_SCORE] = rules.bonus_needs_score
    rp[RP_TB0], rp[RP_TB1], rp[RP_TB2] = tb[:3]
    rp[RP_MAX_TURNS] = rules.max_turns
    rp[RP_STALL_ROUNDS] = rules.stall_rounds
    rp[RP_N_DECKS] = len(decks)
    rp[RP_N_CARDS] = N_COLOURS * rules.cards_per_colour + rules.locomotives
    rp[RP_PASSENGERS] = passengers_on
    rp[RP_FIRST_SEAT] = rules.first_seat

    card_counts = np.full(N_CARD_KINDS, rules.cards_per_colour, np.int16)
    card_counts[N_COLOURS] = rules.locomotives

    n_groups = int(m.route_group.max()) + 1 if m.n_routes else 0
    group_routes = np.full((n_groups, MAX_PARALLEL), -1, np.int16)
    for r in range(m.n_routes):
        row = group_routes[m.route_group[r]]
        row[np.argmax(row < 0)] = r

    node_loc = np.asarray(m.node_loc)
    order = np.argsort(node_loc, kind="stable").astype(np.int16)
    start = np.zeros(m.n_locations + 1, np.int16)
    np.cumsum(np.bincount(node_loc, minlength=m.n_locations), out=start[1:])

    ends = np.concatenate([m.route_a, m.route_b]).astype(np.int64)
    node_routes = np.argsort(ends, kind="stable") % max(m.n_routes, 1)
    node_route_start = np.zeros(m.n_nodes + 1, np.int16)
    np.cumsum(np.bincount(ends, minlength=m.n_nodes), out=node_route_start[1:])

    long_tickets = np.zeros(0, np.int16)
    if rules.long_deck:
        if rules.long_deck not in m.tags():
            raise RulesError(f"rule parameter 'long_deck': map '{m.name}' has no tickets tagged "
                             f"'{rules.long_deck}'; expected one of: {', '.join(m.tags())}")
        long_tickets = m.deck(rules.long_deck)
        if any(int(t) in tagged_in for t in long_tickets):
            raise RulesError(f"rule parameter 'long_deck': '{rules.long_deck}' shares tickets with a draw pile")
    rp[RP_SETUP_LONG] = rules.setup_long
    rp[RP_TUNNEL_CARDS] = rules.tunnel_cards
    rp[RP_STATIONS] = rules.stations
    rp[RP_STATION_PTS] = rules.station_points
    rp[RP_OFFER_TICKET] = offered_ticket_id(m, rules, ticket_deck)
    rp[RP_OFFER_SEAT] = rules.offer_seat
    rp[RP_OFFER_KEPT] = rules.offer_kept

    parallels = route_parallels(group_routes, m.route_group)
    return Board(
        rp=rp, card_counts=card_counts,
        route_a=m.route_a.astype(np.int16), route_b=m.route_b.astype(np.int16),
        route_loc_a=node_loc[m.route_a].astype(np.int16), route_loc_b=node_loc[m.route_b].astype(np.int16),
        route_len=m.route_len.astype(np.int16), route_colour=m.route_colour.astype(np.int16),
        route_points=scoring[m.route_len].astype(np.int16), route_group=m.route_group.astype(np.int16),
        route_tunnel=m.route_tunnel.astype(np.int8), route_ferry=m.route_ferry.astype(np.int16),
        group_routes=group_routes, loc_node_start=start, loc_nodes=order,
        ticket_a=m.ticket_a.astype(np.int16), ticket_b=m.ticket_b.astype(np.int16),
        ticket_points=scaled_ticket_points(m, rules.ticket_points_percent, "ticket_points_percent"),
        ticket_penalty=scaled_ticket_points(m, rules.ticket_penalty_percent, "ticket_penalty_percent"),
        ticket_deck=ticket_deck,
        deck_tickets=deck_tickets, deck_size=np.array([len(d) for d in decks], np.int16),
        pass_setup=(m.passengers if passengers_on else np.zeros_like(m.passengers)).astype(np.int16),
        node_route_start=node_route_start, node_routes=node_routes.astype(np.int16),
        n_nodes=m.n_nodes, n_cities=int((~m.location_is_country).sum()), long_tickets=long_tickets.astype(np.int16),
        station_cost=np.array(rules.station_costs, np.int16), claim_masks=route_masks(m.route_len, m.route_colour),
        route_map_id=m.file_route_ids, route_parallels=parallels,
    )
