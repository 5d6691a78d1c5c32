"""The compiled rules core: setup, legal actions, applying an action (the
deck, face-up row and ticket piles are :mod:`ttrsim.core.piles`; which
routes a seat may claim and how it may pay, :mod:`ttrsim.core.claims`;
Europe's tunnels and stations, :mod:`ttrsim.core.tunnels` and
:mod:`ttrsim.core.stations`).

Plain numba functions over a :class:`~ttrsim.core.board.Board` ``b`` and a
:class:`~ttrsim.core.state.GameState` ``s``; no I/O. Legality is separate from
applying: :func:`legal_actions` writes every legal action into a preallocated
buffer (:func:`non_claim_actions` all but the claims, :func:`claimable_routes`
and :func:`payments` the claims route by route), :func:`~ttrsim.core.legality.is_legal` checks one
action directly from the rules (an independent check used by the fuzzer),
:func:`apply_action` assumes legality. These are plain questions about the
game; what a strategy makes of them is the strategy layer's business.

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> from ttrsim.core.state import allocate_state, PHASE_NAMES, M_PHASE
>>> b = build_board(get_rules("usa")); s = allocate_state(b, 2)
>>> reset_game(b, s, 7)
>>> PHASE_NAMES[s.meta[M_PHASE]], int(s.hand.sum()), int(s.offer_n.sum())
('setup-keep', 8, 6)
"""
import numpy as np

from ttrsim.data.ids import LOCO, N_PASSENGER_COLOURS
from ttrsim.jit import kernel

from .actions import (
    A_BLIND,
    A_CLAIM,
    A_FACEUP,
    A_KEEP,
    A_PASS,
    A_PASSENGER,
    A_TICKETS,
    PAY_LOCOS_ONLY,
    X_STATION,
    X_TUNNEL_GIVE_UP,
    claims_end,
    decode_claim,
    decode_station,
)
from .board import (
    RP_DRAW_N,
    RP_DRAW_SHUFFLE,
    RP_END_TRAINS,
    RP_FIRST_SEAT,
    RP_HAND,
    RP_MAX_TURNS,
    RP_N_DECKS,
    RP_PASSENGERS,
    RP_SETUP_BOX,
    RP_SETUP_DEAL,
    RP_SETUP_LONG,
    RP_SETUP_SHUFFLE,
    RP_STALL_ROUNDS,
    RP_STATIONS,
    RP_TRAINS,
    RP_TUNNEL_CARDS,
)
from .claims import (  # noqa: F401  (re-exported: the claim questions are part of the engine's API)
    CLAIM_ANY,
    _scan_claims,
    claim_actions,
    claim_at,
    claim_count,
    claimable_routes,
    close_claimed,
    largest_colour_group,
    locks_all_tracks,
    parallel_closed,
    payments,
    route_open_to,
    sync_route_open,
)
from .legality import any_main_action, is_legal  # noqa: F401  (is_legal re-exported)
from .piles import (
    can_draw_second,
    cards_available,
    deal_offer,
    draw_top,
    keep_allowed,
    keep_minimum,
    mix_range,
    must_keep,
    offer_intervention,
    refill_faceup,
    settle_offer,
    shuffle_pile,
    tickets_left,
)
from .rng import seed_into, shuffle_range
from .scoring import final_scoring
from .state import (
    END_CAPPED,
    END_NORMAL,
    END_RUNNING,
    END_STALLED,
    M_ACTIONS,
    M_CLAIMS,
    M_COUNTDOWN,
    M_DECK_N,
    M_END,
    M_FIRST_CARD,
    M_LAST_ROUTE,
    M_NPLAYERS,
    M_PASSES,
    M_PEND_I,
    M_PEND_N,
    M_PHASE,
    M_PLAYER,
    M_TUNNEL_ROUTE,
    M_TURN,
    PH_DRAW2,
    PH_KEEP,
    PH_MAIN,
    PH_OVER,
    PH_PASSENGER,
    PH_SETUP_KEEP,
    PH_SETUP_MIX,
    PH_TUNNEL,
    RNG_INTERVENTION,
)
from .stations import build_station, choose_station_routes, station_actions
from .tunnels import settle_tunnel, start_tunnel, tunnel_actions

# RNG lanes of one game seed (ttrsim.core.rng.seed_into)
LANE_GAME = 0       # the game's stream, s.rng
LANE_STRATEGY = 1   # + seat: the seat's strategy stream (ttrsim.strategies.kit.memory.reset_memory)
LANE_INTERVENTION = LANE_STRATEGY + 5   # after the five seats': the study interventions' stream (R9.1)


# --- setup ---------------------------------------------------------------------------------------

@kernel
def reset_game(b, s, seed):
    """Set up a new game from ``seed`` (R2): shuffle and deal train cards, turn
    up the face-up row, shuffle the ticket piles, place the passengers, and deal
    the setup tickets (or ask for the short/long mix first, R2.3)."""
    n_players = s.meta[M_NPLAYERS]
    s.meta[:] = 0
    s.meta[M_NPLAYERS] = n_players
    s.meta[M_COUNTDOWN] = -1
    s.meta[M_LAST_ROUTE] = -1
    s.meta[M_TUNNEL_ROUTE] = -1
    seed_into(s.rng, 0, seed, LANE_GAME)
    seed_into(s.rng, RNG_INTERVENTION, seed, LANE_INTERVENTION)

    n = 0
    for kind in range(LOCO + 1):
        for _ in range(b.card_counts[kind]):
            s.deck[n] = kind
            n += 1
    shuffle_range(s.rng, 0, s.deck, 0, n)
    s.meta[M_DECK_N] = n
    s.discard[:] = 0
    s.hand[:, :] = 0
    for p in range(n_players):
        for _ in range(b.rp[RP_HAND]):
            c = draw_top(s)
            if c >= 0:
                s.hand[p, c] += 1
    s.faceup[:] = -1
    refill_faceup(b, s)

    s.trains[:] = b.rp[RP_TRAINS]
    s.score[:] = 0
    s.route_owner[:] = -1
    sync_route_open(b, s)
    s.final[:, :] = 0
    s.tunnel_held[:] = 0
    s.tunnel_shown[:] = -1
    s.stations_left[:] = b.rp[RP_STATIONS]
    s.station_owner[:] = -1
    s.station_route[:] = -1

    s.ticket_holder[:] = -1
    s.tk_buf[:, :] = -1
    for d in range(s.tk_buf.shape[0]):
        m = b.deck_size[d]
        s.tk_buf[d, :m] = b.deck_tickets[d, :m]
        s.tk_head[d] = 0
        s.tk_len[d] = m
        shuffle_range(s.rng, 0, s.tk_buf[d], 0, m)
    s.offer[:, :] = -1
    s.offer_n[:] = 0
    s.offer_keep[:] = 0

    s.pass_loc[:, :] = 0
    s.pass_player[:, :] = 0
    s.pend_loc[:] = -1
    if b.rp[RP_PASSENGERS]:
        total = b.pass_setup.sum()
        bag = np.empty(total, np.int8)
        for i in range(total):
            bag[i] = i % N_PASSENGER_COLOURS
        shuffle_range(s.rng, 0, bag, 0, total)
        i = 0
        for loc in range(b.pass_setup.shape[0]):
            for _ in range(b.pass_setup[loc]):
                s.pass_loc[loc, bag[i]] += 1
                i += 1

    first = first_seat(b, s)
    n_long = b.rp[RP_SETUP_LONG]
    longs = b.long_tickets             # R8.1: shuffled; those not dealt stay out of the game, unseen
    if n_long > 0:
        longs = longs.copy()
        shuffle_range(s.rng, 0, longs, 0, longs.shape[0])
    if b.rp[RP_N_DECKS] == 1:
        for i in range(n_players):
            n_deal, k, _ = mix_range(b, s, b.rp[RP_SETUP_DEAL])
            seat = (first + i) % n_players
            deal_offer(b, s, seat, n_deal, k)
            for j in range(i * n_long, min((i + 1) * n_long, longs.shape[0])):
                s.offer[seat, s.offer_n[seat]] = longs[j]
                s.offer_n[seat] += 1
            offer_intervention(b, s, seat)
        s.meta[M_PHASE] = PH_SETUP_KEEP
    else:
        s.meta[M_PHASE] = PH_SETUP_MIX
    s.meta[M_PLAYER] = first


@kernel
def first_seat(b, s):
    """The seat that starts setup and play (R2.5)."""
    return b.rp[RP_FIRST_SEAT] % s.meta[M_NPLAYERS]


# --- legality ------------------------------------------------------------------------------------

@kernel
def legal_actions(b, s, out):
    """Write the legal actions of the player to act into ``out``, in increasing
    order; return their count. ``out`` needs room for the whole action space of
    the board (:func:`ttrsim.core.actions.legal_buffer`)."""
    return _list_actions(b, s, out, True)


@kernel(inline="always")
def _main_head(b, s, out):
    """The main phase's actions before the claims (face-up cards, blind draw,
    ticket draws) into ``out`` as :func:`legal_actions` lists them; their count."""
    n = 0
    faceup = s.faceup
    for i in range(faceup.shape[0]):
        if faceup[i] >= 0:
            out[n] = A_FACEUP + i
            n += 1
    if cards_available(s) > 0:
        out[n] = A_BLIND
        n += 1
    if tickets_left(s) > 0:
        _, lo, hi = mix_range(b, s, b.rp[RP_DRAW_N])
        for k in range(lo, hi + 1):
            out[n] = A_TICKETS + k
            n += 1
    return n


@kernel
def legal_count(b, s, out):
    """How many actions :func:`legal_actions` lists, without listing the
    claims' payments; ``out`` (a legal buffer) keeps what :func:`legal_at` reads."""
    if s.meta[M_PHASE] != PH_MAIN:
        return _list_actions(b, s, out, True)
    p = s.meta[M_PLAYER]
    n = _main_head(b, s, out)
    n = station_actions(b, s, p, out, n) + claim_count(b, s, p, out)
    return max(n, 1)                  # none: A_PASS alone


@kernel
def legal_at(b, s, k, out):
    """Action ``k`` (``0 <= k <`` :func:`legal_count`) of :func:`legal_actions`'
    list; ``out`` is the buffer :func:`legal_count` was given in this position.
    Outside the main phase :func:`legal_count` listed every action in
    ``out``; in the main phase only one route's payments are listed."""
    if s.meta[M_PHASE] != PH_MAIN:
        return np.int64(out[k])
    p = s.meta[M_PLAYER]
    n = _main_head(b, s, out)
    if k < n:
        return np.int64(out[k])
    routes = np.int64(out[out.shape[0] - 1])
    n_claims = 0 if routes == 0 else np.int64(out[out.shape[0] - 3 - 2 * (routes - 1)])
    if k < n + n_claims:
        return np.int64(claim_at(b, s, p, k - n, out))
    if station_actions(b, s, p, out, n) == n and n_claims == 0:
        return np.int64(A_PASS)
    return np.int64(out[k - n_claims])


@kernel
def non_claim_actions(b, s, out):
    """Write the legal actions of the player to act except the claims into
    ``out``, in increasing order; return their count. In the main phase the
    list is empty when claims are the only legal actions (then
    :func:`legal_actions` lists them), and is ``A_PASS`` alone when no action
    at all is legal (R6.2). Claims are one action per route and way of paying
    it, most of the work of :func:`legal_actions`; :func:`claimable_routes`
    and :func:`payments` find them route by route."""
    return _list_actions(b, s, out, False)


@kernel(inline="always")    # one body for both lists; a call between them costs more than a short list
def _list_actions(b, s, out, claims):
    """:func:`legal_actions` (``claims``) or :func:`non_claim_actions`."""
    phase = s.meta[M_PHASE]
    p = s.meta[M_PLAYER]
    n = 0
    if phase == PH_MAIN:
        n = _main_head(b, s, out)
        if claims:
            n = claim_actions(b, s, p, out, n)
        n = station_actions(b, s, p, out, n)
        if n == 0 and (claims or not any_main_action(b, s, p)):
            out[0] = A_PASS
            n = 1
    elif phase == PH_DRAW2:                 # the second card: no face-up locomotive (R3.2)
        faceup = s.faceup
        for i in range(faceup.shape[0]):
            if faceup[i] >= 0 and faceup[i] != LOCO:
                out[n] = A_FACEUP + i
                n += 1
        if cards_available(s) > 0:
            out[n] = A_BLIND
            n += 1
    elif phase == PH_SETUP_MIX:
        _, lo, hi = mix_range(b, s, b.rp[RP_SETUP_DEAL])
        for k in range(lo, hi + 1):
            out[n] = A_TICKETS + k
            n += 1
    elif phase == PH_SETUP_KEEP or phase == PH_KEEP:
        need = keep_minimum(b, s, p)
        must = must_keep(b, s, p)
        for mask in range(1 << s.offer_n[p]):
            if keep_allowed(s, p, mask, need, must):
                out[n] = A_KEEP + mask
                n += 1
    elif phase == PH_PASSENGER:
        loc = s.pend_loc[s.meta[M_PEND_I]]
        for c in range(N_PASSENGER_COLOURS):
            if s.pass_loc[loc, c] > 0:
                out[n] = A_PASSENGER + c
                n += 1
    elif phase == PH_TUNNEL:
        n = tunnel_actions(b, s, out, n)
    return n


# --- applying actions ----------------------------------------------------------------------------

@kernel
def end_turn(b, s, passed):
    """Close the current turn: pass counting and stall (R6.2), the last round
    (R6.1), the turn cap, then the next seat (or final scoring)."""
    meta = s.meta
    p = meta[M_PLAYER]
    np_ = meta[M_NPLAYERS]
    meta[M_PASSES] = meta[M_PASSES] + 1 if passed else 0
    meta[M_TURN] += 1
    if meta[M_COUNTDOWN] > 0:
        meta[M_COUNTDOWN] -= 1
    elif meta[M_COUNTDOWN] < 0 and s.trains[p] <= b.rp[RP_END_TRAINS]:
        meta[M_COUNTDOWN] = np_
    if meta[M_COUNTDOWN] == 0:
        meta[M_END] = END_NORMAL
    elif meta[M_PASSES] >= np_ * b.rp[RP_STALL_ROUNDS]:
        meta[M_END] = END_STALLED
    elif meta[M_TURN] >= b.rp[RP_MAX_TURNS]:
        meta[M_END] = END_CAPPED
    if meta[M_END] != END_RUNNING:
        meta[M_PHASE] = PH_OVER
        if b.rp[RP_STATIONS] > 0:
            choose_station_routes(b, s)
        final_scoring(b, s)
    else:
        meta[M_PLAYER] = (p + 1) % np_
        meta[M_PHASE] = PH_MAIN


@kernel
def resolve_passengers(b, s):
    """Take the pending passengers (R4.6): none left -> skip, one colour -> take
    it, several -> ask the player (PH_PASSENGER). Ends the turn when done."""
    meta = s.meta
    p = meta[M_PLAYER]
    while meta[M_PEND_I] < meta[M_PEND_N]:
        loc = s.pend_loc[meta[M_PEND_I]]
        n_col = 0
        last = -1
        for c in range(N_PASSENGER_COLOURS):
            if s.pass_loc[loc, c] > 0:
                n_col += 1
                last = c
        if n_col > 1:
            meta[M_PHASE] = PH_PASSENGER
            return
        if n_col == 1:
            s.pass_loc[loc, last] -= 1
            s.pass_player[p, last] += 1
        meta[M_PEND_I] += 1
    meta[M_PEND_N] = 0
    meta[M_PEND_I] = 0
    end_turn(b, s, False)


@kernel
def take_card(s, p, c):
    if c >= 0:
        s.hand[p, c] += 1


@kernel
def apply_action(b, s, a):
    """Apply the legal action ``a`` of the player to act."""
    meta = s.meta
    phase = meta[M_PHASE]
    p = meta[M_PLAYER]
    meta[M_ACTIONS] += 1
    if a <= A_BLIND:                                   # draw a train card (R3)
        if a == A_BLIND:
            c = draw_top(s)
        else:
            c = s.faceup[a - A_FACEUP]
            s.faceup[a - A_FACEUP] = -1
        take_card(s, p, c)
        refill_faceup(b, s)
        if phase == PH_MAIN and not (a != A_BLIND and c == LOCO) and can_draw_second(s):
            meta[M_PHASE] = PH_DRAW2
            meta[M_FIRST_CARD] = c
        else:
            end_turn(b, s, False)
    elif a == A_PASS:
        end_turn(b, s, True)
    elif a < A_KEEP:                                   # ticket draw with a short/long mix (R2.3, R5.1)
        k = a - A_TICKETS
        if phase == PH_SETUP_MIX:
            n, _, _ = mix_range(b, s, b.rp[RP_SETUP_DEAL])
            deal_offer(b, s, p, n, k)
            offer_intervention(b, s, p)
            meta[M_PLAYER] = (p + 1) % meta[M_NPLAYERS]
            if meta[M_PLAYER] == first_seat(b, s):
                meta[M_PHASE] = PH_SETUP_KEEP
        else:
            n, _, _ = mix_range(b, s, b.rp[RP_DRAW_N])
            deal_offer(b, s, p, n, k)
            meta[M_PHASE] = PH_KEEP
    elif a < A_PASSENGER:                              # keep tickets (R2.2, R5.1)
        mask = a - A_KEEP
        if phase == PH_KEEP:
            settle_offer(b, s, p, mask, b.rp[RP_DRAW_SHUFFLE] != 0, False)
            end_turn(b, s, False)
        else:
            s.offer_keep[p] = mask
            n_players = meta[M_NPLAYERS]
            meta[M_PLAYER] = (p + 1) % n_players
            first = first_seat(b, s)
            if meta[M_PLAYER] == first:  # every seat chose privately; now the returns, in seat order
                for i in range(n_players):
                    q = (first + i) % n_players
                    settle_offer(b, s, q, s.offer_keep[q], False, b.rp[RP_SETUP_BOX] != 0)
                if b.rp[RP_SETUP_SHUFFLE]:
                    for d in range(s.tk_len.shape[0]):
                        shuffle_pile(s, d)
                meta[M_PHASE] = PH_MAIN
    elif a < A_CLAIM:                                  # passenger colour (R4.6)
        c = a - A_PASSENGER
        loc = s.pend_loc[meta[M_PEND_I]]
        s.pass_loc[loc, c] -= 1
        s.pass_player[p, c] += 1
        meta[M_PEND_I] += 1
        resolve_passengers(b, s)
    elif a < claims_end(b.route_len.shape[0]):       # claim a route (R4)
        r, c, k = decode_claim(a)
        if b.route_tunnel[r] and b.rp[RP_TUNNEL_CARDS] > 0:       # R8.3
            if start_tunnel(b, s, p, r, c, k) > 0:
                meta[M_PHASE] = PH_TUNNEL
            else:
                settle_tunnel(s, p, 0, True)
                finish_claim(b, s, p, r)
            return
        length = b.route_len[r]
        if c != PAY_LOCOS_ONLY:
            s.hand[p, c] -= length - k
            s.discard[c] += length - k
        s.hand[p, LOCO] -= k
        s.discard[LOCO] += k
        finish_claim(b, s, p, r)
    else:
        x = a - claims_end(b.route_len.shape[0])
        if x < X_STATION:                              # pay a tunnel's extra cards or give up (R8.3)
            r = settle_tunnel(s, p, x, x != X_TUNNEL_GIVE_UP)
            meta[M_PHASE] = PH_MAIN
            if x != X_TUNNEL_GIVE_UP:
                finish_claim(b, s, p, r)
            else:
                refill_faceup(b, s)
                end_turn(b, s, False)
        else:                                          # build a station (R8.4)
            city, c, k = decode_station(b.route_len.shape[0], a)
            build_station(b, s, p, city, c, k)
            refill_faceup(b, s)
            end_turn(b, s, False)


@kernel
def finish_claim(b, s, p, r):
    """Seat ``p`` takes paid route ``r`` (R4.4): owner, trains, points, the
    face-up row refilled, then the passengers (R4.6) or the end of the turn."""
    meta = s.meta
    s.route_owner[r] = p
    close_claimed(b, s, p, r)
    meta[M_CLAIMS] += 1
    s.trains[p] -= b.route_len[r]
    s.score[p] += b.route_points[r]
    meta[M_LAST_ROUTE] = r
    refill_faceup(b, s)
    if b.rp[RP_PASSENGERS]:
        s.pend_loc[0] = b.route_loc_a[r]
        s.pend_loc[1] = b.route_loc_b[r]
        meta[M_PEND_N] = 2
        meta[M_PEND_I] = 0
        resolve_passengers(b, s)
    else:
        end_turn(b, s, False)
