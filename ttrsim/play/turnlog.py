"""Compiled game loop that records every turn and every ticket offer.

The log is a record of two preallocated ``int32`` tables (rows x columns, the
``T_*`` and ``O_*`` column indices below) filled by :func:`play_logged_many`;
the experiment runner turns them into the ``turns`` and ``tickets`` Parquet
tables. A turn row is written when the turn ends, with the state after it.
Every action goes through :func:`log_step` (record, apply, complete the row)
and every game ends with :func:`log_finish`; the runner's Python-stepped loop
for games with a Python seat (:func:`ttrsim.play.pyplay.play_logged_py`) calls the
same two, so both loops write identical rows for the same decisions.

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> from ttrsim.core.state import allocate_state
>>> from ttrsim.core.actions import legal_buffer
>>> from ttrsim.strategies.kit.memory import allocate_memory
>>> b = build_board(get_rules("usa")); s = allocate_state(b, 2); m = allocate_memory(b, 2)
>>> log = allocate_log(2000, 9000)
>>> results = np.zeros((1, 2, N_FINAL), np.int32); meta = np.zeros((1, N_GAME_COLS), np.int32)
>>> play_logged_many(b, s, m, np.array([3]), np.zeros(2, np.int64), np.zeros((2, 1)), legal_buffer(b),
...                  log, results, meta, True)
1
>>> int(log.n_turns[0]) == int(meta[0, G_TURNS])
True
"""
import numpy as np

from ttrsim.core.actions import (
    A_BLIND,
    A_CLAIM,
    A_KEEP,
    A_PASS,
    A_PASSENGER,
    A_TICKETS,
    X_STATION,
    X_TUNNEL_GIVE_UP,
    claims_end,
    decode_claim,
    decode_station,
)
from ttrsim.core.board import RP_MAX_TURNS
from ttrsim.core.engine import apply_action, reset_game
from ttrsim.core.scoring import player_components, ticket_completed
from ttrsim.core.state import (
    M_END,
    M_NPLAYERS,
    M_PHASE,
    M_PLAYER,
    M_TUNNEL_EXTRA,
    M_TURN,
    N_FINAL,
    PH_KEEP,
    PH_MAIN,
    PH_OVER,
    PH_SETUP_KEEP,
    PH_TUNNEL,
)
from ttrsim.data.ids import LOCO, N_PASSENGER_COLOURS
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed, define_record
from ttrsim.strategies.kit.dispatch import kernels_for, legal_for, pick
from ttrsim.strategies.kit.memory import reset_memory

# turn kinds
K_CARDS, K_CLAIM, K_TICKETS, K_PASS, K_STATION = range(5)          # their names: KIND_NAMES (ttrsim.data.ids)

# --- columns of Log.turns -------------------------------------------------------------
(T_GAME,        # index of the game in the call (the runner maps it to the game id)
 T_TURN,        # turn number, 0-based over all players
 T_SEAT,
 T_KIND,        # K_*
 T_ROUTE,       # claimed route (a tunnel given up too), -1
 T_PAY_COLOUR,  # card colour paid (0..7), 8 = locomotives only, -1 (a claim or a station)
 T_LOCOS,       # locomotives paid (a tunnel's extra ones included)
 T_CARD1,       # first card drawn (kind), -1
 T_SRC1,        # 0 face-up, 1 blind, -1
 T_CARD2,
 T_SRC2,
 T_TK_DRAWN,    # tickets drawn
 T_TK_KEPT,     # tickets kept
 T_TK_PILE0,    # tickets taken from pile 0 (Germany: short)
 T_PASS1,       # passenger colours taken, -1
 T_PASS2,
 T_SCORE,       # running score after the turn
 T_TRAINS,      # trains after the turn
 T_HAND,        # cards in hand after the turn
 T_TUNNEL_EXTRA,  # a tunnel claim: the extra cards the turned-over ones asked for (R8.3), else -1
 T_TUNNEL_PAID,   # a tunnel claim: 1 claimed, 0 given up, else -1
 T_STATION,     # a station built: its city (R8.4), else -1
 N_TURN_COLS) = range(23)

# --- columns of Log.offers ------------------------------------------------------------
(O_GAME, O_SEAT, O_TICKET,
 O_TURN,        # -1 at setup, else the turn number
 O_KEPT,        # 1 kept, 0 returned
 O_COMPLETED,   # kept and completed at the end (0 for returned tickets)
 O_DONE_TURN,   # kept: the turn in which it became complete (a claim, or the keep itself), else -1
 N_OFFER_COLS) = range(8)

# --- columns of the per-game meta table ------------------------------------------------
G_END, G_TURNS, N_GAME_COLS = range(3)

LOG_FIELDS = (
    "turns",      # int32[capacity, N_TURN_COLS]
    "n_turns",    # int64[1] rows used
    "offers",     # int32[capacity, N_OFFER_COLS]
    "n_offers",   # int64[1] rows used
)
Log = define_record("Log", LOG_FIELDS, __name__, borrowed=True)     # built in Python only


def allocate_log(turn_capacity: int, offer_capacity: int):
    return Log(turns=np.zeros((turn_capacity, N_TURN_COLS), np.int32), n_turns=np.zeros(1, np.int64),
               offers=np.zeros((offer_capacity, N_OFFER_COLS), np.int32), n_offers=np.zeros(1, np.int64))


@kernel
def _new_turn(log, s, game):
    row = log.n_turns[0]
    log.n_turns[0] += 1
    t = log.turns
    for c in range(N_TURN_COLS):
        t[row, c] = -1
    t[row, T_GAME] = game
    t[row, T_TURN] = s.meta[M_TURN]
    t[row, T_SEAT] = s.meta[M_PLAYER]
    t[row, T_LOCOS] = 0
    t[row, T_TK_DRAWN] = 0
    t[row, T_TK_KEPT] = 0
    t[row, T_TK_PILE0] = 0
    return row


@kernel
def _record_choice(log, s, b, row, phase, p, a):
    """Fill the turn row with what action ``a`` (about to be applied) says."""
    t = log.turns
    if a <= A_BLIND:
        t[row, T_KIND] = K_CARDS
        col = T_CARD1 if t[row, T_SRC1] < 0 else T_CARD2
        t[row, col + 1] = 1 if a == A_BLIND else 0
        if a < A_BLIND:
            t[row, col] = s.faceup[a]
    elif a == A_PASS:
        t[row, T_KIND] = K_PASS
    elif a < A_KEEP:
        if phase == PH_MAIN:
            t[row, T_KIND] = K_TICKETS
            t[row, T_TK_PILE0] = a - A_TICKETS
    elif a < A_PASSENGER:
        if phase == PH_KEEP:
            mask = a - A_KEEP
            t[row, T_TK_DRAWN] = s.offer_n[p]
            kept = 0
            for i in range(s.offer_n[p]):
                kept += (mask >> i) & 1
            t[row, T_TK_KEPT] = kept
    elif A_CLAIM <= a < claims_end(b.route_len.shape[0]):
        r, c, k = decode_claim(a)
        t[row, T_KIND] = K_CLAIM
        t[row, T_ROUTE] = r
        t[row, T_PAY_COLOUR] = c
        t[row, T_LOCOS] = k
    elif A_CLAIM <= a < claims_end(b.route_len.shape[0]) + X_STATION:    # a tunnel's extra cards paid or given up
        x = a - claims_end(b.route_len.shape[0])
        t[row, T_TUNNEL_PAID] = 0 if x == X_TUNNEL_GIVE_UP else 1
        if x != X_TUNNEL_GIVE_UP:
            t[row, T_LOCOS] += x
    elif a >= A_CLAIM:
        city, c, k = decode_station(b.route_len.shape[0], a)
        t[row, T_KIND] = K_STATION
        t[row, T_STATION] = city
        t[row, T_PAY_COLOUR] = c
        t[row, T_LOCOS] = k


@kernel
def log_step(b, s, game, a, log, with_turns, row, hand_before, pass_before):
    """Record action ``a`` of the seat to act (its ticket offer, its turn row if
    ``with_turns``), apply it and complete the turn row when the turn ends.
    ``row`` is the turn row of the turn in progress (-1 before the first turn);
    returns the row after the action. One source of truth for what the logs
    hold: the compiled loop below and the Python-stepped loop of the runner
    (:func:`ttrsim.play.pyplay.play_logged_py`) both record every action with it.
    ``hand_before`` / ``pass_before`` are scratch buffers kept across calls."""
    p = s.meta[M_PLAYER]
    phase = s.meta[M_PHASE]
    if phase == PH_SETUP_KEEP or phase == PH_KEEP:
        for i in range(s.offer_n[p]):
            o = log.n_offers[0]
            log.n_offers[0] += 1
            log.offers[o, O_GAME] = game
            log.offers[o, O_SEAT] = p
            log.offers[o, O_TICKET] = s.offer[p, i]
            log.offers[o, O_TURN] = -1 if phase == PH_SETUP_KEEP else s.meta[M_TURN]
            log.offers[o, O_KEPT] = ((a - A_KEEP) >> i) & 1
            log.offers[o, O_COMPLETED] = 0
            log.offers[o, O_DONE_TURN] = -1
    if with_turns:
        if phase == PH_MAIN:
            row = _new_turn(log, s, game)
            for c in range(N_PASSENGER_COLOURS):
                pass_before[c] = s.pass_player[p, c]
        for k in range(LOCO + 1):
            hand_before[k] = s.hand[p, k]
        _record_choice(log, s, b, row, phase, p, a)
    turn_before = s.meta[M_TURN]
    apply_action(b, s, a)
    if with_turns and phase == PH_MAIN and A_CLAIM <= a < claims_end(b.route_len.shape[0]) \
            and b.route_tunnel[decode_claim(a)[0]]:
        if s.meta[M_PHASE] == PH_TUNNEL:
            log.turns[row, T_TUNNEL_EXTRA] = s.meta[M_TUNNEL_EXTRA]
        else:                                     # nothing asked (or no cards turned over): claimed at once
            log.turns[row, T_TUNNEL_EXTRA] = 0
            log.turns[row, T_TUNNEL_PAID] = 1
    if a >= A_CLAIM or (phase == PH_KEEP and a >= A_KEEP):
        _mark_completed(b, s, log, game, p, turn_before)
    if with_turns:
        t = log.turns
        if a == A_BLIND:                          # the blind card is the kind that grew
            col = T_CARD2 if t[row, T_SRC2] == 1 else T_CARD1
            for k in range(LOCO + 1):
                if s.hand[p, k] > hand_before[k]:
                    t[row, col] = k
        if s.meta[M_TURN] != turn_before:         # the turn ended: the state after it
            j = T_PASS1
            for c in range(N_PASSENGER_COLOURS):
                for _ in range(s.pass_player[p, c] - pass_before[c]):
                    t[row, j] = c
                    j += 1
            t[row, T_SCORE] = s.score[p]
            t[row, T_TRAINS] = s.trains[p]
            t[row, T_HAND] = s.hand[p].sum()
    return row


@kernel
def _mark_completed(b, s, log, game, p, turn):
    """After seat ``p``'s claim (or keep) in ``turn``: its kept tickets of this
    game (the offer rows at the end of the log) that are complete now and were
    not before get ``O_DONE_TURN = turn``. Recording only: the game is untouched."""
    parent = np.empty(0, np.int64)
    o = log.n_offers[0] - 1
    while o >= 0 and log.offers[o, O_GAME] == game:
        if log.offers[o, O_SEAT] == p and log.offers[o, O_KEPT] == 1 and log.offers[o, O_DONE_TURN] < 0:
            if parent.shape[0] == 0:
                parent = np.empty(b.n_nodes, np.int64)
                player_components(b, s, p, parent)
            if ticket_completed(b, s, log.offers[o, O_TICKET], parent):
                log.offers[o, O_DONE_TURN] = turn
        o -= 1


@kernel
def log_finish(b, s, log, first_offer):
    """At the end of a game: mark which kept tickets (offer rows from
    ``first_offer`` on) were completed."""
    parent = np.empty(b.n_nodes, np.int64)
    for p in range(s.meta[M_NPLAYERS]):
        player_components(b, s, p, parent)
        for o in range(first_offer, log.n_offers[0]):
            if log.offers[o, O_SEAT] == p and log.offers[o, O_KEPT] == 1:
                log.offers[o, O_COMPLETED] = 1 if ticket_completed(b, s, log.offers[o, O_TICKET], parent) else 0


@kernel
def log_has_room(b, log, n_players, with_turns):
    """Whether the log surely holds one more game (at most ``max_turns + 1``
    turn rows; at most 8 tickets offered per turn or setup)."""
    if with_turns and log.turns.shape[0] - log.n_turns[0] < b.rp[RP_MAX_TURNS] + 1:
        return False
    return log.offers.shape[0] - log.n_offers[0] >= 8 * (b.rp[RP_MAX_TURNS] + n_players)


@kernel(inline="always")     # inlined: a compiled level less that re-optimizes every kernel
def play_logged(kernels, b, s, m, game, seed, strategy_ids, params, legal, log, with_turns, hand_before,
                pass_before):
    """Play one game recording turns (if ``with_turns``) and ticket offers;
    ``m`` is the table's strategy memory, ``kernels`` the
    :class:`~ttrsim.strategies.kit.dispatch.Kernels` of the seated strategies."""
    legal, params = borrowed(legal), borrowed(params)     # passed to every call: not counted each time
    reset_game(b, s, seed)
    reset_memory(m, seed)
    row = -1
    first_offer = log.n_offers[0]
    while s.meta[M_PHASE] != PH_OVER:
        sid = strategy_ids[s.meta[M_PLAYER]]
        n = legal_for(sid, b, s, legal)
        a = pick(kernels, sid, b, s, m, legal, n, params)
        row = log_step(b, s, game, a, log, with_turns, row, hand_before, pass_before)
    log_finish(b, s, log, first_offer)


def play_logged_many(b, s, m, seeds, strategy_ids, params, legal, log, results, game_meta, with_turns) -> int:
    """Play one game per seed while the log has room for another game; returns
    the number of games played. ``results[i]`` gets game i's final table and
    ``game_meta[i]`` its end reason and turn count."""
    return _play_logged_many(kernels_for(strategy_ids), b, s, m, seeds, strategy_ids, params, legal, log, results,
                             game_meta, with_turns)


@kernel
def _play_logged_many(kernels, b, s, m, seeds, strategy_ids, params, legal, log, results, game_meta, with_turns):
    hand_before = np.zeros(LOCO + 1, np.int64)
    pass_before = np.zeros(N_PASSENGER_COLOURS, np.int64)
    n_players = s.meta[M_NPLAYERS]
    done = 0
    for i in range(seeds.shape[0]):
        if not log_has_room(b, log, n_players, with_turns):
            break
        play_logged(kernels, b, s, m, i, seeds[i], strategy_ids, params, legal, log, with_turns, hand_before,
                    pass_before)
        for p in range(n_players):
            for c in range(N_FINAL):
                results[i, p, c] = s.final[p, c]
        game_meta[i, G_END] = s.meta[M_END]
        game_meta[i, G_TURNS] = s.meta[M_TURN]
        done += 1
    return done
