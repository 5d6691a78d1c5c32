"""One action checked against the rules without listing the legal set:
:func:`is_legal`, the fuzzer's independent check of
:func:`ttrsim.core.engine.legal_actions` and the dispatcher's check of every
strategy pick; :func:`any_main_action`, whether a seat may do anything but
pass (R6.2).

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> from ttrsim.core.state import allocate_state
>>> from ttrsim.core.engine import reset_game
>>> from ttrsim.core.actions import A_BLIND, A_PASS
>>> b = build_board(get_rules("usa")); s = allocate_state(b, 2)
>>> reset_game(b, s, 7)
>>> is_legal(b, s, A_BLIND), is_legal(b, s, A_PASS)    # setup: keep tickets first
(False, False)
"""
from ttrsim.data.ids import GRAY, LOCO, N_PASSENGER_COLOURS
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
    X_TUNNEL_GIVE_UP,
    claims_end,
    decode_claim,
    decode_station,
)
from .board import RP_DRAW_N, RP_SETUP_DEAL
from .claims import CLAIM_ANY, _scan_claims, route_open_to
from .piles import cards_available, keep_allowed, keep_minimum, mix_range, must_keep, tickets_left
from .state import (
    M_PEND_I,
    M_PHASE,
    M_PLAYER,
    PH_DRAW2,
    PH_KEEP,
    PH_MAIN,
    PH_OVER,
    PH_PASSENGER,
    PH_SETUP_KEEP,
    PH_SETUP_MIX,
    PH_TUNNEL,
)
from .stations import can_build_station, station_payable
from .tunnels import pay_split


@kernel
def any_main_action(b, s, p):
    """Whether seat ``p`` has a legal main action other than passing."""
    if cards_available(s) > 0 or tickets_left(s) > 0:
        return True
    if can_build_station(b, s, p):
        return True
    faceup = s.faceup
    for i in range(faceup.shape[0]):
        if faceup[i] >= 0:
            return True
    return _scan_claims(b, s, p, s.route_owner, 0, CLAIM_ANY) > 0     # (out unused: any array)


@kernel
def is_legal(b, s, a):
    """Check action ``a`` directly against the rules, without generating the
    legal set (the fuzzer's independent check of :func:`legal_actions`)."""
    phase = s.meta[M_PHASE]
    p = s.meta[M_PLAYER]
    if phase == PH_OVER or a < 0:
        return False
    if a < A_BLIND:
        if phase != PH_MAIN and phase != PH_DRAW2:
            return False
        if a - A_FACEUP >= s.faceup.shape[0]:
            return False
        c = s.faceup[a - A_FACEUP]
        return c >= 0 and not (phase == PH_DRAW2 and c == LOCO)
    if a == A_BLIND:
        return (phase == PH_MAIN or phase == PH_DRAW2) and cards_available(s) > 0
    if a == A_PASS:
        return phase == PH_MAIN and not any_main_action(b, s, p)
    if a < A_KEEP:
        if phase == PH_MAIN:
            if tickets_left(s) == 0:
                return False
            _, lo, hi = mix_range(b, s, b.rp[RP_DRAW_N])
        elif phase == PH_SETUP_MIX:
            _, lo, hi = mix_range(b, s, b.rp[RP_SETUP_DEAL])
        else:
            return False
        return lo <= a - A_TICKETS <= hi
    if a < A_PASSENGER:
        if phase != PH_SETUP_KEEP and phase != PH_KEEP:
            return False
        return keep_allowed(s, p, a - A_KEEP, keep_minimum(b, s, p), must_keep(b, s, p))
    if a < A_CLAIM:
        if phase != PH_PASSENGER:
            return False
        c = a - A_PASSENGER
        return c < N_PASSENGER_COLOURS and s.pass_loc[s.pend_loc[s.meta[M_PEND_I]], c] > 0
    n_routes = b.route_len.shape[0]
    if a >= claims_end(n_routes):
        return _is_legal_extra(b, s, a)
    if phase != PH_MAIN:
        return False
    r, c, k = decode_claim(a)
    length = b.route_len[r]
    if s.trains[p] < length or not route_open_to(b, s, r, p) or k > s.hand[p, LOCO]:
        return False
    if c == PAY_LOCOS_ONLY:
        return k == length
    col = b.route_colour[r]
    return ((col == GRAY or col == c) and k < length and k >= b.route_ferry[r]
            and s.hand[p, c] >= length - k)


@kernel
def _is_legal_extra(b, s, a):
    """:func:`is_legal` for the codes after the claims: tunnel decisions (R8.3), stations (R8.4)."""
    phase = s.meta[M_PHASE]
    p = s.meta[M_PLAYER]
    x = a - claims_end(b.route_len.shape[0])
    if x <= X_TUNNEL_GIVE_UP:
        return phase == PH_TUNNEL and (x == X_TUNNEL_GIVE_UP or pay_split(s, p, x))
    city, c, k = decode_station(b.route_len.shape[0], a)
    return (phase == PH_MAIN and city < s.station_owner.shape[0] and s.station_owner[city] < 0
            and s.stations_left[p] > 0 and station_payable(b, s, p, c, k))
