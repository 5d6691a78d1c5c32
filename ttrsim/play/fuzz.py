"""Random-play fuzzing: play random games and check the invariants after every
action.

Checked after every action: the train cards are all in exactly one place
(deck, discards, face-up row, hands, or held or turned over for a tunnel, R8.3) and each
kind keeps its count (R1.1); every player's trains plus the trains on their
routes make the starting count (R1.2); the running score equals a full
recount of route points (R4.4); the tickets of the draw piles and the
passengers are conserved (but for the setup tickets not kept when they go
back in the box, R2.2), and no long setup ticket (R8.1) is in a pile or
dealt beyond the setup; every player's stations left plus built make the
rule set's count (R8.4); the board version ``M_CLAIMS`` equals the number
of claimed routes; each seat's set of open routes (``route_open``, kept as
claims happen) is what the owners give (R4.5,
:func:`~ttrsim.core.engine.route_open_to`); the applied action was legal by the independent check :func:`~ttrsim.core.engine.is_legal`
and was in the generated legal list. At the end: the game ended (normal,
stalled or capped) within the action bound, and the total equals the sum of its
components (unbuilt stations included, R8.5).

>>> rows = run_fuzz(["usa"], [3], games=20, progress=False, workers=1)
>>> rows[0]["games"], rows[0]["distinct_deals"], rows[0]["violations"]
(20, 20, 0)
"""
from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import (
    RP_N_CARDS,
    RP_SETUP_BOX,
    RP_SETUP_DEAL,
    RP_SETUP_LONG,
    RP_STATIONS,
    RP_TRAINS,
    build_board,
)
from ttrsim.core.engine import apply_action, is_legal, legal_actions, reset_game, route_open_to
from ttrsim.core.rng import mix64
from ttrsim.core.state import (
    F_GLOBETROTTER,
    F_LP_BONUS,
    F_PASSENGER_PTS,
    F_ROUTES,
    F_STATION_PTS,
    F_TICKETS_LOST,
    F_TICKETS_WON,
    F_TOTAL,
    M_CLAIMS,
    M_DECK_N,
    M_NPLAYERS,
    M_PHASE,
    PH_OVER,
    PH_TUNNEL,
    allocate_state,
)
from ttrsim.data.ids import LOCO
from ttrsim.data.rules import get_rules, preset_names
from ttrsim.jit import kernel
from ttrsim.strategies.kit.memory import allocate_memory, reset_memory
from ttrsim.strategies.random_strategy import choose

# violation codes
(V_CARDS, V_CARD_KIND, V_TRAINS, V_SCORE, V_TICKETS, V_PASSENGERS, V_ILLEGAL, V_NOT_LISTED, V_NO_ACTION,
 V_NO_END, V_TOTAL, V_CLAIMS, V_STATIONS, V_OPEN, N_VIOLATIONS) = range(15)
VIOLATION_NAMES = ("cards not 110", "card kind count changed", "trains not conserved",
                   "running score != recount", "tickets not conserved", "passengers not conserved",
                   "illegal action applied", "action not in legal list", "no legal action",
                   "game did not end", "total != sum of components", "claimed routes != M_CLAIMS",
                   "stations not conserved", "route_open != owners (R4.5)")
MAX_ACTIONS = 20_000


@kernel
def check_state(b, s, kind_count):
    """The first violated invariant of state ``s`` (a V_* code), or -1."""
    n_players = s.meta[M_NPLAYERS]
    kind_count[:] = 0
    for i in range(s.meta[M_DECK_N]):
        kind_count[s.deck[i]] += 1
    for i in range(s.faceup.shape[0]):
        if s.faceup[i] >= 0:
            kind_count[s.faceup[i]] += 1
    if s.meta[M_PHASE] == PH_TUNNEL:      # the cards turned over for the tunnel, on the table (R8.3)
        for i in range(s.tunnel_shown.shape[0]):
            if s.tunnel_shown[i] >= 0:
                kind_count[s.tunnel_shown[i]] += 1
    for k in range(LOCO + 1):
        kind_count[k] += s.discard[k] + s.tunnel_held[k]
        for p in range(n_players):
            kind_count[k] += s.hand[p, k]
    if kind_count.sum() != b.rp[RP_N_CARDS]:
        return V_CARDS
    for k in range(LOCO + 1):
        if kind_count[k] != b.card_counts[k]:
            return V_CARD_KIND
    for p in range(n_players):
        used = 0
        pts = 0
        for r in range(b.route_len.shape[0]):
            if s.route_owner[r] == p:
                used += b.route_len[r]
                pts += b.route_points[r]
        if used + s.trains[p] != b.rp[RP_TRAINS] or s.trains[p] < 0:
            return V_TRAINS
        if pts != s.score[p]:
            return V_SCORE
    n_tk = 0                   # the draw piles' tickets: in a pile, held or on offer
    n_long = 0                 # the long setup tickets held or on offer
    for d in range(s.tk_len.shape[0]):
        n_tk += s.tk_len[d]
        for i in range(s.tk_len[d]):
            if b.ticket_deck[s.tk_buf[d, (s.tk_head[d] + i) % s.tk_buf.shape[1]]] != d:
                return V_TICKETS
    for t in range(s.ticket_holder.shape[0]):
        if s.ticket_holder[t] >= 0:
            if b.ticket_deck[t] >= 0:
                n_tk += 1
            else:
                n_long += 1
    for p in range(n_players):
        for i in range(s.offer_n[p]):
            if b.ticket_deck[s.offer[p, i]] >= 0:
                n_tk += 1
            else:
                n_long += 1
    boxed = b.deck_size.sum() - n_tk     # setup tickets back in the box (R2.2, setup_return: box)
    if boxed < 0 or boxed > (n_players * b.rp[RP_SETUP_DEAL] if b.rp[RP_SETUP_BOX] else 0) \
            or n_long > n_players * b.rp[RP_SETUP_LONG]:
        return V_TICKETS
    if s.pass_loc.sum() + s.pass_player.sum() != b.pass_setup.sum():
        return V_PASSENGERS
    claimed = 0
    for r in range(b.route_len.shape[0]):
        if s.route_owner[r] >= 0:
            claimed += 1
    if claimed != s.meta[M_CLAIMS]:
        return V_CLAIMS
    for p in range(n_players):
        built = 0
        for city in range(s.station_owner.shape[0]):
            if s.station_owner[city] == p:
                built += 1
        if s.stations_left[p] < 0 or built + s.stations_left[p] != b.rp[RP_STATIONS]:
            return V_STATIONS
    for p in range(n_players):
        for r in range(b.route_len.shape[0]):
            if ((s.route_open[p, r >> 6] >> np.uint64(r & 63)) & np.uint64(1)) != route_open_to(b, s, r, p):
                return V_OPEN
    return -1


@kernel
def deal_fingerprint(s):
    """A 64-bit hash of a game's deal (the shuffled train deck, the ticket
    piles, the face-up row and the passengers placed): two games with the same
    fingerprint are the same deal, so the fuzzer can count distinct games."""
    h = np.uint64(0)
    for i in range(s.meta[M_DECK_N]):
        h = mix64(h ^ np.uint64(s.deck[i] + 1))
    for i in range(s.faceup.shape[0]):
        h = mix64(h ^ np.uint64(s.faceup[i] + 17))
    for d in range(s.tk_buf.shape[0]):
        for i in range(s.tk_len[d]):
            h = mix64(h ^ np.uint64(s.tk_buf[d, (s.tk_head[d] + i) % s.tk_buf.shape[1]] + 33))
    for loc in range(s.pass_loc.shape[0]):
        for c in range(s.pass_loc.shape[1]):
            h = mix64(h ^ np.uint64(s.pass_loc[loc, c] * 8 + c + 1))
    return h


@kernel
def fuzz_game(b, s, m, seed, legal, kind_count, found, params, fingerprints, i):
    """Play one random game from ``seed`` checking every action (the
    ``random`` strategy with the table's strategy memory ``m``); count each
    violation code in ``found``; ``fingerprints[i]`` gets the deal's
    fingerprint. Returns the number of actions played."""
    reset_game(b, s, seed)
    reset_memory(m, seed)
    fingerprints[i] = deal_fingerprint(s)
    v = check_state(b, s, kind_count)
    if v >= 0:
        found[v] += 1
        return 0
    n_actions = 0
    while s.meta[M_PHASE] != PH_OVER:
        if n_actions >= MAX_ACTIONS:
            found[V_NO_END] += 1
            return n_actions
        n = legal_actions(b, s, legal)
        if n == 0:
            found[V_NO_ACTION] += 1
            return n_actions
        a = choose(b, s, m, legal, n, params)
        if not is_legal(b, s, a):
            found[V_ILLEGAL] += 1
            return n_actions
        listed = False
        for i in range(n):
            if legal[i] == a:
                listed = True
        if not listed:
            found[V_NOT_LISTED] += 1
        apply_action(b, s, a)
        n_actions += 1
        v = check_state(b, s, kind_count)
        if v >= 0:
            found[v] += 1
            return n_actions
    f = s.final
    for p in range(s.meta[M_NPLAYERS]):
        if f[p, F_TOTAL] != (f[p, F_ROUTES] + f[p, F_TICKETS_WON] - f[p, F_TICKETS_LOST] + f[p, F_LP_BONUS]
                             + f[p, F_GLOBETROTTER] + f[p, F_PASSENGER_PTS] + f[p, F_STATION_PTS]):
            found[V_TOTAL] += 1
            break
    return n_actions


@kernel
def fuzz_seeds(b, s, m, seeds, legal, counts, first_seed, fingerprints):
    """Fuzz one game per seed; ``counts[v]`` counts games with violation ``v``;
    ``first_seed[v]`` keeps the first seed that showed it (-1 none);
    ``fingerprints[i]`` gets game i's :func:`deal_fingerprint`."""
    kind_count = np.zeros(LOCO + 1, np.int64)
    found = np.zeros(N_VIOLATIONS, np.int64)
    params = np.zeros((s.meta[M_NPLAYERS], 1), np.float64)
    for i in range(seeds.shape[0]):
        found[:] = 0
        fuzz_game(b, s, m, seeds[i], legal, kind_count, found, params, fingerprints, i)
        for v in range(N_VIOLATIONS):
            if found[v]:
                counts[v] += 1
                if first_seed[v] < 0:
                    first_seed[v] = seeds[i]


def fuzz_chunk(rules: str, players: int, seeds: np.ndarray, overrides: dict | None = None):
    """Fuzz the given seeds of preset ``rules`` (with ``overrides``) in this
    process; returns (counts, first_seed, deal fingerprints)."""
    b = build_board(get_rules(rules, overrides))
    s = allocate_state(b, players)
    counts = np.zeros(N_VIOLATIONS, np.int64)
    first = np.full(N_VIOLATIONS, -1, np.int64)
    fingerprints = np.zeros(len(seeds), np.uint64)
    fuzz_seeds(b, s, allocate_memory(b, players), seeds.astype(np.int64), legal_buffer(b), counts, first,
               fingerprints)
    return counts, first, fingerprints


def run_fuzz(rules: list[str], players: list[int], games: int, seed: int = 0, progress: bool = True,
             workers: int = -1, chunk: int = 2000) -> list[dict]:
    """Fuzz ``games`` random games per rule set and player count; one dict per
    pair with rules, players, games, violations and examples (violation name
    and the first seed showing it, replayable with ``ttrsim play``) and the
    number of distinct deals among the games (:func:`deal_fingerprint`).
    Game seeds are ``seed, seed + 1, ...``: independent games, since every
    stream starts from a hash of its seed (:func:`ttrsim.core.rng.seed_into`)."""
    from tqdm import tqdm

    if rules == ["all"]:
        rules = preset_names()
    for r in rules:
        get_rules(r)  # validate names before any work
    jobs = []
    for r in rules:
        for p in players:
            for lo in range(0, games, chunk):
                jobs.append((r, p, np.arange(seed + lo, seed + min(games, lo + chunk), dtype=np.int64)))
    bar = tqdm(total=games * len(rules) * len(players), unit="game", disable=not progress, desc="fuzz")
    totals = {(r, p): (np.zeros(N_VIOLATIONS, np.int64), {}, []) for r in rules for p in players}
    results = Parallel(n_jobs=workers, return_as="generator")(delayed(fuzz_chunk)(*j) for j in jobs)
    for (r, p, seeds), (counts, first, fingerprints) in zip(jobs, results):
        acc, examples, deals = totals[(r, p)]
        acc += counts
        deals.append(fingerprints)
        for v in range(N_VIOLATIONS):
            if first[v] >= 0 and v not in examples:
                examples[v] = int(first[v])
        bar.update(len(seeds))
    bar.close()
    rows = []
    for (r, p), (acc, examples, deals) in totals.items():
        distinct = len(np.unique(np.concatenate(deals))) if deals else 0
        rows.append({"rules": r, "players": p, "games": games, "distinct_deals": distinct,
                     "violations": int(acc.sum()),
                     "by_kind": {VIOLATION_NAMES[v]: int(acc[v]) for v in range(N_VIOLATIONS) if acc[v]},
                     "examples": [f"{VIOLATION_NAMES[v]}: seed {sd}" for v, sd in sorted(examples.items())]})
    return rows
