"""The tensors of the environments: a fixed-size observation per seat, a fixed
action space and its legal-action mask, written by compiled kernels into
preallocated arrays (``docs/env.md`` documents every field; ``OBS_VERSION``
names the encoding).

A :class:`Layout` is built once per rule set and player count: where each
observation field starts (``lay``, ``O_*`` indices), the size of the action
space, and the table from an env action to the engine's action codec.

Env actions are a compact renumbering of :mod:`ttrsim.core.actions`: one code
per face-up slot, blind, pass, ticket draw, keep mask and passenger colour the
rule set can use, and per route one code for each pay colour (a coloured route:
its colour, locomotives only; a gray route: the 8 colours, locomotives only).
A claim pays with as few locomotives as the hand allows (a locomotive kept can
stand in for any card later, so paying more of them is never better); the
engine's other ways of paying the same route and colour are not in the space.

>>> from ttrsim.play.game import Game
>>> g = Game("usa", 4, seed=1)
>>> lay = Layout(g.board, 4)
>>> lay.n_actions, lay.obs_size
(527, 894)
>>> obs, mask = lay.empty_obs(), lay.empty_mask()
>>> encode_obs(g.board, g.state, 0, lay.lay, obs)
>>> n = write_mask(g.board, g.state, lay.lay, lay.route_act, lay.legal, mask)
>>> int(mask.sum()) == n == len(g.legal_actions())
True
>>> g.apply(to_engine(g.board, g.state, lay.act_engine, int(np.flatnonzero(mask)[0])))
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ttrsim.core.actions import (
    A_BLIND,
    A_CLAIM,
    A_KEEP,
    A_PASS,
    A_PASSENGER,
    A_TICKETS,
    PAY_LOCOS_ONLY,
    decode_claim,
    encode_claim,
    legal_buffer,
)
from ttrsim.core.board import (
    MAX_OFFER,
    RP_DRAW_N,
    RP_FACEUP,
    RP_MAX_TURNS,
    RP_N_CARDS,
    RP_SETUP_DEAL,
    RP_STATIONS,
    RP_TRAINS,
)
from ttrsim.core.engine import legal_actions
from ttrsim.core.state import (
    M_COUNTDOWN,
    M_DECK_N,
    M_NPLAYERS,
    M_PEND_I,
    M_PHASE,
    M_PLAYER,
    M_TURN,
    PH_OVER,
    PH_PASSENGER,
)
from ttrsim.data.ids import GRAY, N_CARD_KINDS, N_COLOURS, N_PASSENGER_COLOURS

OBS_VERSION = 1

# --- indices into Layout.lay: where each observation field starts, then sizes --------------------
(O_PHASE, O_SEAT, O_TO_ACT, O_LAST_ROUND, O_TURN, O_ROUTES, O_FACEUP, O_DECK, O_DISCARD, O_HAND,
 O_TICKETS, O_OFFER, O_PILES, O_TRAINS, O_SCORE, O_CARDS, O_HELD, O_PASS_SEAT, O_PASS_BOARD, O_PASS_PLACE,
 N_OBS_FIELDS) = range(21)
# then: 1 if the rule set plays passengers, and where the action blocks after the face-up slots start
L_PASSENGERS, X_BLIND, X_TICKETS, X_KEEP, X_PASSENGER, N_LAY = range(N_OBS_FIELDS, N_OBS_FIELDS + 6)

# (field, shape in terms of P seats, R routes, F face-up slots, T tickets, O offer slots, D piles,
#  L locations (0 without passengers), C passenger colours (0 without passengers)), what it holds
OBS_FIELDS = (
    ("phase", "7", "one-hot phase: setup-mix, setup-keep, main, draw2, keep, passenger, over"),
    ("seat", "P", "one-hot seat number of the observer (0 = first seat at the table)"),
    ("to_act", "P", "one-hot seat to act, relative (0 = the observer, 1 = the next seat, ...); zeros when over"),
    ("last_round", "1", "1 once the last round is triggered (R6.1)"),
    ("turn", "1", "completed turns, all seats together"),
    ("routes", "R*P", "route r owned by relative seat j at r*P + j"),
    ("faceup", "F*9", "face-up slot i holds card kind k at i*9 + k (colours 0..7, locomotive 8)"),
    ("deck", "1", "cards in the draw pile"),
    ("discard", "9", "cards in the discard pile per card kind"),
    ("hand", "9", "the observer's cards per card kind"),
    ("tickets", "T", "1 for each ticket the observer holds"),
    ("offer", "O*T", "ticket t offered to the observer in offer slot i at i*T + t (bit i of a keep mask)"),
    ("piles", "D", "tickets left in each ticket pile"),
    ("trains", "P", "trains left per relative seat"),
    ("score", "P", "running score (route points) per relative seat"),
    ("cards", "P", "cards in hand per relative seat"),
    ("held", "P", "tickets held per relative seat"),
    ("pass_seat", "P*C", "passengers collected per relative seat and colour (passenger rules only)"),
    ("pass_board", "L*C", "passengers left per location and colour (passenger rules only)"),
    ("pass_place", "L", "one-hot location of the pick-up being decided (passenger phase only)"),
)


class Layout:
    """The observation and action layout of ``board`` with ``n_players`` seats.

    ``lay``: int32 offsets of the observation fields (``O_*``) and the
    passenger flag; ``fields``: (name, offset, size, shape, high) rows;
    ``obs_high``: float32 upper bound of every entry (all entries are >= 0);
    action blocks ``a_faceup``, ``a_blind``, ``a_pass``, ``a_tickets``,
    ``a_keep``, ``a_passenger``, ``a_claim`` and ``n_actions``;
    ``act_engine[a]``: the engine code of env action ``a`` (a claim with no
    locomotives: :func:`to_engine` sets them); ``route_act[r]``: the first
    code of route ``r``'s claims; ``legal``: a scratch legal-action buffer."""

    def __init__(self, board, n_players: int):
        if board.rp[RP_STATIONS] > 0 or board.route_tunnel.any() or board.route_ferry.any():
            raise ValueError("the environments do not cover tunnels, ferries and stations yet (Europe, R8); "
                             "expected a rule set without them")
        P = n_players
        R = board.route_len.shape[0]
        T = board.ticket_a.shape[0]
        F = int(board.rp[RP_FACEUP])
        D = board.deck_size.shape[0]
        max_deal = max(int(board.rp[RP_SETUP_DEAL]), int(board.rp[RP_DRAW_N]))
        O = min(max_deal, MAX_OFFER)
        passengers = bool(board.pass_setup.sum())
        L = board.pass_setup.shape[0] if passengers else 0
        C = N_PASSENGER_COLOURS if passengers else 0
        n_cards = int(board.rp[RP_N_CARDS])
        total_pass = int(board.pass_setup.sum())
        dims = {"P": P, "R": R, "F": F, "T": T, "O": O, "D": D, "L": L, "C": C}
        highs = {"turn": max(int(board.rp[RP_MAX_TURNS]), 1), "deck": n_cards, "discard": n_cards,
                 "hand": n_cards, "piles": T, "trains": int(board.rp[RP_TRAINS]),
                 "score": int(board.route_points.astype(np.int64).sum()), "cards": n_cards, "held": T,
                 "pass_seat": total_pass, "pass_board": total_pass}
        self.n_players, self.n_offer, self.passengers = P, O, passengers
        self.lay = np.zeros(N_LAY, np.int32)
        self.fields = []
        high = []
        off = 0
        for i, (name, shape, _) in enumerate(OBS_FIELDS):
            size = 1
            for factor in shape.split("*"):
                size *= int(factor) if factor.isdigit() else dims[factor]
            self.lay[i] = off
            self.fields.append((name, off, size, shape, highs.get(name, 1)))
            high.append(np.full(size, highs.get(name, 1), np.float32))
            off += size
        self.lay[L_PASSENGERS] = passengers
        self.obs_size = off
        self.obs_high = np.concatenate(high)

        # actions: face-up slots, blind, pass, ticket draws (k from pile 0), keep masks, passengers, claims
        engine = [*range(F), A_BLIND, A_PASS]
        self.a_faceup, self.a_blind, self.a_pass = 0, F, F + 1
        self.a_tickets = len(engine)
        engine += [A_TICKETS + k for k in range(max_deal + 1)]
        self.a_keep = len(engine)
        engine += [A_KEEP + mask for mask in range(1 << O)]
        self.a_passenger = len(engine)
        engine += [A_PASSENGER + c for c in range(C)]
        self.a_claim = len(engine)
        self.route_act = np.zeros(R, np.int32)
        for r in range(R):
            self.route_act[r] = len(engine)
            pays = range(N_COLOURS) if board.route_colour[r] == GRAY else (int(board.route_colour[r]),)
            engine += [encode_claim(r, c, 0) for c in pays] + [encode_claim(r, PAY_LOCOS_ONLY, 0)]
        self.lay[X_BLIND:X_PASSENGER + 1] = self.a_blind, self.a_tickets, self.a_keep, self.a_passenger
        self.act_engine = np.array(engine, np.int32)
        self.n_actions = len(engine)
        self.legal = legal_buffer(board)

    def empty_obs(self, *batch: int) -> np.ndarray:
        return np.zeros((*batch, self.obs_size), np.float32)

    def empty_mask(self, *batch: int) -> np.ndarray:
        return np.zeros((*batch, self.n_actions), np.int8)

    def field(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The entries of field ``name`` of observation ``obs``."""
        for n, off, size, _, _ in self.fields:
            if n == name:
                return obs[..., off:off + size]
        raise KeyError(f"no observation field {name!r}; expected one of {', '.join(f[0] for f in self.fields)}")

    def action_name(self, a: int) -> str:
        """What env action ``a`` does, in words.

        >>> from ttrsim.core.board import build_board
        >>> from ttrsim.data.rules import get_rules
        >>> lay = Layout(build_board(get_rules("usa")), 2)
        >>> lay.action_name(lay.a_blind), lay.action_name(lay.a_claim), lay.action_name(lay.a_claim + 8)
        ('blind', 'claim 0 pink', 'claim 0 locomotives')
        """
        if not 0 <= a < self.n_actions:
            raise ValueError(f"action {a} is outside the action space 0..{self.n_actions - 1}")
        e = int(self.act_engine[a])
        if e < A_CLAIM:
            from ttrsim.core.actions import action_name
            return action_name(e)
        r, c, _ = decode_claim(e)
        from ttrsim.data.ids import CARD_NAMES
        return f"claim {r} {'locomotives' if c == PAY_LOCOS_ONLY else CARD_NAMES[c]}"

    def describe(self) -> list[dict]:
        """One row per observation field: name, offset, size, shape, high, meaning."""
        return [{"name": n, "offset": off, "size": size, "shape": shape, "high": high, "meaning": doc}
                for (n, off, size, shape, high), (_, _, doc) in zip(self.fields, OBS_FIELDS)]


@njit(cache=True, inline="always")
def _rel(p, seat, P):
    """Seat ``p`` relative to ``seat`` (0 = itself); seat -1 (no one) gives P - 1 - seat."""
    j = p - seat
    return j + P if j < 0 else j


@njit(cache=True)
def encode_obs(b, s, seat, lay, out):
    """Write what seat ``seat`` may see of the game ``s`` into ``out`` (float32,
    :class:`Layout` ``obs_size`` entries at offsets ``lay``): public
    information, its own hand, tickets and ticket offer. Seats are relative
    to the observer (0 = itself) except in the ``seat`` field."""
    out[:] = 0
    meta = s.meta
    P = meta[M_NPLAYERS]
    phase = meta[M_PHASE]
    out[lay[O_PHASE] + phase] = 1
    out[lay[O_SEAT] + seat] = 1
    if phase != PH_OVER:
        out[lay[O_TO_ACT] + _rel(meta[M_PLAYER], seat, P)] = 1
    out[lay[O_LAST_ROUND]] = meta[M_COUNTDOWN] >= 0
    out[lay[O_TURN]] = meta[M_TURN]
    owner = s.route_owner
    o = lay[O_ROUTES]
    for r in range(owner.shape[0]):        # branch-free: a free route (-1) writes a 0 in its own block
        out[o + r * P + _rel(owner[r], seat, P)] = owner[r] >= 0
    faceup = s.faceup
    o = lay[O_FACEUP]
    for i in range(faceup.shape[0]):
        if faceup[i] >= 0:
            out[o + i * N_CARD_KINDS + faceup[i]] = 1
    out[lay[O_DECK]] = meta[M_DECK_N]
    hand, discard = s.hand, s.discard
    o, oh, oc = lay[O_DISCARD], lay[O_HAND], lay[O_CARDS]
    for k in range(N_CARD_KINDS):
        out[o + k] = discard[k]
        out[oh + k] = hand[seat, k]
        for p in range(P):
            out[oc + _rel(p, seat, P)] += hand[p, k]
    holder = s.ticket_holder
    T = holder.shape[0]
    o, ot = lay[O_HELD], lay[O_TICKETS]
    for t in range(T):                     # branch-free as the routes
        h = holder[t]
        out[o + _rel(h, seat, P)] += h >= 0
        out[ot + t] = h == seat
    o = lay[O_OFFER]
    for i in range(s.offer_n[seat]):
        out[o + i * T + s.offer[seat, i]] = 1
    for d in range(s.tk_len.shape[0]):
        out[lay[O_PILES] + d] = s.tk_len[d]
    for p in range(P):
        j = _rel(p, seat, P)
        out[lay[O_TRAINS] + j] = s.trains[p]
        out[lay[O_SCORE] + j] = s.score[p]
    if lay[L_PASSENGERS]:
        C = N_PASSENGER_COLOURS
        for p in range(P):
            for c in range(C):
                out[lay[O_PASS_SEAT] + _rel(p, seat, P) * C + c] = s.pass_player[p, c]
        for loc in range(s.pass_loc.shape[0]):
            for c in range(C):
                out[lay[O_PASS_BOARD] + loc * C + c] = s.pass_loc[loc, c]
        if phase == PH_PASSENGER:
            out[lay[O_PASS_PLACE] + s.pend_loc[meta[M_PEND_I]]] = 1


@njit(cache=True)
def env_action(b, lay, route_act, a):
    """The env action of engine action ``a`` (a claim: the code of its route and pay colour)."""
    if a < A_BLIND:
        return a
    if a < A_TICKETS:
        return lay[X_BLIND] + a - A_BLIND
    if a < A_KEEP:
        return lay[X_TICKETS] + a - A_TICKETS
    if a < A_PASSENGER:
        return lay[X_KEEP] + a - A_KEEP
    if a < A_CLAIM:
        return lay[X_PASSENGER] + a - A_PASSENGER
    r, c, _ = decode_claim(a)
    if b.route_colour[r] == GRAY:
        return route_act[r] + c
    return route_act[r] + (c == PAY_LOCOS_ONLY)


@njit(cache=True)
def write_mask(b, s, lay, route_act, legal, mask):
    """Write the legal-action mask of the seat to act into ``mask`` (int8, 1 =
    legal) using the scratch buffer ``legal``; return the number of legal env actions."""
    return mask_of(b, lay, route_act, legal, legal_actions(b, s, legal), mask)


@njit(cache=True)
def mask_of(b, lay, route_act, legal, n, mask):
    """Write the mask of the engine actions ``legal[:n]`` into ``mask``; return its ones."""
    mask[:] = 0
    count = 0
    for i in range(n):
        a = env_action(b, lay, route_act, legal[i])
        count += mask[a] == 0
        mask[a] = 1
    return count


@njit(cache=True)
def to_engine(b, s, act_engine, a):
    """The engine action of env action ``a`` for the seat to act (a claim pays
    with as few locomotives as its hand allows)."""
    e = act_engine[a]
    if e < A_CLAIM:
        return e
    r, c, _ = decode_claim(e)
    length = b.route_len[r]
    if c == PAY_LOCOS_ONLY:
        return encode_claim(r, c, length)
    have = s.hand[s.meta[M_PLAYER], c]
    return encode_claim(r, c, max(0, length - have))

