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
its colour, locomotives only; a gray route: the 8 colours, locomotives only);
with tunnels (R8.3) two codes, pay the extra cards or give the tunnel up, and
with stations (R8.4) per city one code for each pay colour (the 8 colours,
locomotives only). A claim, a tunnel's extra cards and a station pay with as
few locomotives as the hand allows (a locomotive kept can stand in for any
card later, so paying more of them is never better; a ferry takes at least its
printed locomotives, R8.2); the engine's other ways of paying the same route,
tunnel or city and colour are not in the space.

The rules of R8 (Europe) add observation fields and action blocks that are
empty (size 0) for a rule set without them, so the other presets' tensors are
the same as before they existed.

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
>>> eu = Layout(Game("europe", 3, seed=1).board, 3)
>>> eu.n_actions, eu.obs_size, eu.a_tunnel, eu.a_station
(913, 1101, 488, 490)
"""
from __future__ import annotations

import numpy as np

from ttrsim.core.actions import (
    A_BLIND,
    A_CLAIM,
    A_KEEP,
    A_PASS,
    A_PASSENGER,
    A_TICKETS,
    PAY_LOCOS_ONLY,
    X_TUNNEL_GIVE_UP,
    X_TUNNEL_PAY,
    claims_end,
    decode_claim,
    decode_station,
    encode_claim,
    legal_buffer,
    station_action,
    tunnel_give_up_action,
    tunnel_pay_action,
)
from ttrsim.core.board import (
    MAX_OFFER,
    RP_DRAW_N,
    RP_FACEUP,
    RP_MAX_TURNS,
    RP_N_CARDS,
    RP_SETUP_DEAL,
    RP_SETUP_LONG,
    RP_STATIONS,
    RP_TRAINS,
    RP_TUNNEL_CARDS,
)
from ttrsim.core.claims import claim_routes, colour_pays
from ttrsim.core.engine import legal_actions, non_claim_actions
from ttrsim.core.state import (
    M_COUNTDOWN,
    M_DECK_N,
    M_NPLAYERS,
    M_PEND_I,
    M_PHASE,
    M_PLAYER,
    M_TUNNEL_COLOUR,
    M_TUNNEL_EXTRA,
    M_TUNNEL_ROUTE,
    M_TURN,
    PH_MAIN,
    PH_OVER,
    PH_PASSENGER,
    PH_TUNNEL,
)
from ttrsim.core.stations import station_cost
from ttrsim.data.ids import GRAY, LOCO, N_CARD_KINDS, N_COLOURS, N_PASSENGER_COLOURS
from ttrsim.jit import kernel

OBS_VERSION = 1

# --- indices into Layout.lay: where each observation field starts, then sizes --------------------
(O_PHASE, O_SEAT, O_TO_ACT, O_LAST_ROUND, O_TURN, O_ROUTES, O_FACEUP, O_DECK, O_DISCARD, O_HAND,
 O_TICKETS, O_OFFER, O_PILES, O_TRAINS, O_SCORE, O_CARDS, O_HELD, O_PASS_SEAT, O_PASS_BOARD, O_PASS_PLACE,
 O_ROUTE_TUNNEL, O_ROUTE_FERRY, O_TUNNEL_ROUTE, O_TUNNEL_COLOUR, O_TUNNEL_HELD, O_TUNNEL_SHOWN, O_TUNNEL_EXTRA,
 O_STATIONS, O_STATIONS_LEFT,
 N_OBS_FIELDS) = range(30)
# then: 1 if the rule set plays passengers, tunnels, ferries, stations; and where the action blocks
# after the face-up slots start (X_TUNNEL: pay, give up; X_STATIONS: city x paying colour c at x*9 + c)
(L_PASSENGERS, L_TUNNELS, L_FERRIES, L_STATIONS, X_BLIND, X_TICKETS, X_KEEP, X_PASSENGER, X_TUNNEL, X_STATIONS,
 N_LAY) = range(N_OBS_FIELDS, N_OBS_FIELDS + 11)
STATION_PAYS = PAY_LOCOS_ONLY + 1       # env station codes per city: the 8 colours, locomotives only

# (field, shape in terms of P seats, R routes, F face-up slots, T tickets, O offer slots, D piles,
#  L locations (0 without passengers), C passenger colours (0 without passengers), H phases (7; 8
#  with tunnels), U 1 with tunnels (else 0), V 1 with ferries, S cities (station places; 0 without
#  stations), W 1 with stations), what it holds
OBS_FIELDS = (
    ("phase", "H", "one-hot phase: setup-mix, setup-keep, main, draw2, keep, passenger, over, tunnel (tunnels only)"),
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
    ("route_tunnel", "U*R", "1 for each route that is a tunnel (board data, R8.3)"),
    ("route_ferry", "V*R", "locomotives each route needs at least: a ferry's printed ones, else 0 (board data, R8.2)"),
    ("tunnel_route", "U*R", "one-hot tunnel being claimed (tunnel phase only)"),
    ("tunnel_colour", "U*9", "one-hot pay colour of that tunnel, colours 0..7, locomotives only 8 (tunnel phase only)"),
    ("tunnel_held", "U*9", "cards laid down for that tunnel per card kind (tunnel phase only)"),
    ("tunnel_shown", "U*9", "cards turned over for that tunnel per card kind (tunnel phase only)"),
    ("tunnel_extra", "U", "extra cards the turned-over cards ask for (tunnel phase only)"),
    ("stations", "S*P", "station on city x built by relative seat j at x*P + j (all zeros: no station, R8.4)"),
    ("stations_left", "W*P", "stations not built yet per relative seat (R8.4)"),
)


class Layout:
    """The observation and action layout of ``board`` with ``n_players`` seats.

    ``lay``: int32 offsets of the observation fields (``O_*``), the rule
    flags (``L_*``: passengers, tunnels, ferries, stations) and the first
    codes of the action blocks (``X_*``); ``fields``: (name, offset, size,
    shape, high) rows;
    ``obs_high``: float32 upper bound of every entry (all entries are >= 0);
    action blocks ``a_faceup``, ``a_blind``, ``a_pass``, ``a_tickets``,
    ``a_keep``, ``a_passenger``, ``a_claim``, ``a_tunnel`` (pay, give up),
    ``a_station`` (city x paying colour c at ``a_station + 9 * x + c``) and
    ``n_actions``; ``tunnels``, ``ferries``, ``stations``: whether the rule
    set plays them (R8); ``act_engine[a]``: the engine code of env action
    ``a`` (a payment with no locomotives: :func:`to_engine` sets them);
    ``route_act[r]``: the first code of route ``r``'s claims; ``legal``: a
    scratch legal-action buffer."""

    def __init__(self, board, n_players: int):
        P = n_players
        R = board.route_len.shape[0]
        T = board.ticket_a.shape[0]
        F = int(board.rp[RP_FACEUP])
        D = board.deck_size.shape[0]
        max_deal = max(int(board.rp[RP_SETUP_DEAL]), int(board.rp[RP_DRAW_N]))
        O = min(max(max_deal, int(board.rp[RP_SETUP_DEAL]) + int(board.rp[RP_SETUP_LONG])), MAX_OFFER)   # R8.1  # noqa: E741 (offer slots)
        passengers = bool(board.pass_setup.sum())
        L = board.pass_setup.shape[0] if passengers else 0
        C = N_PASSENGER_COLOURS if passengers else 0
        tunnel_cards = int(board.rp[RP_TUNNEL_CARDS])
        tunnels = bool(board.route_tunnel.any()) and tunnel_cards > 0        # else tunnels are plain routes
        ferries = bool(board.route_ferry.any())
        stations = int(board.rp[RP_STATIONS]) > 0
        S = int(board.n_cities) if stations else 0
        n_cards = int(board.rp[RP_N_CARDS])
        total_pass = int(board.pass_setup.sum())
        dims = {"P": P, "R": R, "F": F, "T": T, "O": O, "D": D, "L": L, "C": C, "H": 8 if tunnels else 7,
                "U": int(tunnels), "V": int(ferries), "S": S, "W": int(stations)}
        highs = {"turn": max(int(board.rp[RP_MAX_TURNS]), 1), "deck": n_cards, "discard": n_cards,
                 "hand": n_cards, "piles": T, "trains": int(board.rp[RP_TRAINS]),
                 "score": int(board.route_points.astype(np.int64).sum()), "cards": n_cards, "held": T,
                 "pass_seat": total_pass, "pass_board": total_pass,
                 "route_ferry": int(board.route_ferry.max(initial=0)), "tunnel_held": int(board.route_len.max()),
                 "tunnel_shown": tunnel_cards, "tunnel_extra": tunnel_cards,
                 "stations_left": int(board.rp[RP_STATIONS])}
        self.n_players, self.n_offer, self.passengers = P, O, passengers
        self.tunnels, self.ferries, self.stations = tunnels, ferries, stations
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
        self.lay[L_PASSENGERS:L_STATIONS + 1] = passengers, tunnels, ferries, stations
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
        # then (R8) the tunnel's decision: pay the extra cards, give up; and the stations: per city, pay colours
        self.a_tunnel = len(engine)
        if tunnels:
            engine += [tunnel_pay_action(R, 0), tunnel_give_up_action(R)]
        self.a_station = len(engine)
        engine += [station_action(R, x, c, 0) for x in range(S) for c in range(STATION_PAYS)]
        self.lay[X_BLIND:X_STATIONS + 1] = (self.a_blind, self.a_tickets, self.a_keep, self.a_passenger,
                                            self.a_tunnel, self.a_station)
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
        >>> eu = Layout(build_board(get_rules("europe")), 2)
        >>> eu.action_name(eu.a_tunnel), eu.action_name(eu.a_tunnel + 1), eu.action_name(eu.a_station + 9 + 2)
        ('tunnel pay', 'tunnel give up', 'station 1 orange')
        """
        if not 0 <= a < self.n_actions:
            raise ValueError(f"action {a} is outside the action space 0..{self.n_actions - 1}")
        e = int(self.act_engine[a])
        if e < A_CLAIM:
            from ttrsim.core.actions import action_name
            return action_name(e)
        from ttrsim.data.ids import CARD_NAMES
        if a >= self.a_station:
            x, c = divmod(a - self.a_station, STATION_PAYS)
            return f"station {x} {'locomotives' if c == PAY_LOCOS_ONLY else CARD_NAMES[c]}"
        if a >= self.a_tunnel:
            return "tunnel pay" if a == self.a_tunnel else "tunnel give up"
        r, c, _ = decode_claim(e)
        return f"claim {r} {'locomotives' if c == PAY_LOCOS_ONLY else CARD_NAMES[c]}"

    def describe(self) -> list[dict]:
        """One row per observation field: name, offset, size, shape, high, meaning."""
        return [{"name": n, "offset": off, "size": size, "shape": shape, "high": high, "meaning": doc}
                for (n, off, size, shape, high), (_, _, doc) in zip(self.fields, OBS_FIELDS)]


@kernel(inline="always")
def _rel(p, seat, P):
    """Seat ``p`` relative to ``seat`` (0 = itself); seat -1 (no one) gives P - 1 - seat."""
    j = p - seat
    return j + P if j < 0 else j


@kernel
def encode_obs(b, s, seat, lay, out):
    """Write what seat ``seat`` may see of the game ``s`` into ``out`` (float32,
    :class:`Layout` ``obs_size`` entries at offsets ``lay``): public
    information, its own hand, tickets and ticket offer. Seats are relative
    to the observer (0 = itself) except in the ``seat`` field; a tunnel's
    laid-down and turned-over cards are public while its claimer decides (R8.3)."""
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
    for p in range(P):                     # sums in integers, each written once
        cards = 0
        for k in range(N_CARD_KINDS):
            cards += hand[p, k]
        out[oc + _rel(p, seat, P)] = cards
    holder = s.ticket_holder
    T = holder.shape[0]
    o, ot = lay[O_HELD], lay[O_TICKETS]
    for t in range(T):
        out[ot + t] = holder[t] == seat
    for p in range(P):
        held = 0
        for t in range(T):
            held += holder[t] == p
        out[o + _rel(p, seat, P)] = held
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
    R = owner.shape[0]
    if lay[L_TUNNELS]:
        o = lay[O_ROUTE_TUNNEL]
        for r in range(R):
            out[o + r] = b.route_tunnel[r]
        if phase == PH_TUNNEL:
            out[lay[O_TUNNEL_ROUTE] + meta[M_TUNNEL_ROUTE]] = 1
            out[lay[O_TUNNEL_COLOUR] + meta[M_TUNNEL_COLOUR]] = 1
            o = lay[O_TUNNEL_HELD]
            for k in range(N_CARD_KINDS):
                out[o + k] = s.tunnel_held[k]
            o = lay[O_TUNNEL_SHOWN]
            for i in range(s.tunnel_shown.shape[0]):
                if s.tunnel_shown[i] >= 0:
                    out[o + s.tunnel_shown[i]] += 1
            out[lay[O_TUNNEL_EXTRA]] = meta[M_TUNNEL_EXTRA]
    if lay[L_FERRIES]:
        o = lay[O_ROUTE_FERRY]
        for r in range(R):
            out[o + r] = b.route_ferry[r]
    if lay[L_STATIONS]:
        station = s.station_owner
        o = lay[O_STATIONS]
        for x in range(station.shape[0]):          # branch-free as the routes
            out[o + x * P + _rel(station[x], seat, P)] = station[x] >= 0
        for p in range(P):
            out[lay[O_STATIONS_LEFT] + _rel(p, seat, P)] = s.stations_left[p]


@kernel(inline="always")     # in mask_of's loop over the legal actions: the board's sizes hoisted
def env_action(b, lay, route_act, a):
    """The env action of engine action ``a`` (a claim: the code of its route
    and pay colour; a tunnel payment: pay; a station: its city and pay colour)."""
    n_routes = route_act.shape[0]
    if a < claims_end(n_routes):
        return base_env_action(b, lay, route_act, a)
    x = a - claims_end(n_routes)
    if x <= X_TUNNEL_GIVE_UP:
        return lay[X_TUNNEL] + (x == X_TUNNEL_GIVE_UP)
    city, c, _ = decode_station(n_routes, a)
    return lay[X_STATIONS] + city * STATION_PAYS + c


@kernel(inline="always")
def base_env_action(b, lay, route_act, a):
    """:func:`env_action` of an engine action before the tunnel and station
    codes (R8): a card or ticket draw, a keep, a passenger, a claim."""
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
    return claim_env_action(b, route_act, r, c)


@kernel(inline="always")
def claim_env_action(b, route_act, r, c):
    """The env action claiming route ``r`` in pay colour ``c`` (``PAY_LOCOS_ONLY``:
    locomotives only): a gray route has one per pay colour, a coloured one its
    colour and locomotives only."""
    if b.route_colour[r] == GRAY:
        return route_act[r] + c
    return route_act[r] + (c == PAY_LOCOS_ONLY)


@kernel
def write_mask(b, s, lay, route_act, legal, mask):
    """Write the legal-action mask of the seat to act into ``mask`` (int8, 1 =
    legal) using the scratch buffer ``legal``; return the number of legal env actions.
    In the main phase the claims are found route by route and colour by
    colour (an env claim is a route and a pay colour), never listing every
    locomotive count the engine's list holds."""
    if s.meta[M_PHASE] != PH_MAIN:
        return mask_of(b, lay, route_act, legal, legal_actions(b, s, legal), mask)
    count = mask_of(b, lay, route_act, legal, non_claim_actions(b, s, legal), mask)
    p = s.meta[M_PLAYER]
    hand = s.hand
    locos = hand[p, LOCO]
    route_len, route_colour, ferry = b.route_len, b.route_colour, b.route_ferry
    for i in range(claim_routes(b, s, p, legal, 0)):
        r = legal[i]
        length, col, k_lo = np.int64(route_len[r]), np.int64(route_colour[r]), np.int64(ferry[r])
        c_lo, c_hi = (0, N_COLOURS) if col == GRAY else (col, col + 1)
        for c in range(c_lo, c_hi):
            if colour_pays(hand, p, c, length, k_lo):
                mask[claim_env_action(b, route_act, r, c)] = 1
                count += 1
        if locos >= length:
            mask[claim_env_action(b, route_act, r, PAY_LOCOS_ONLY)] = 1
            count += 1
    return count


@kernel
def mask_of(b, lay, route_act, legal, n, mask):
    """Write the mask of the engine actions ``legal[:n]`` into ``mask``; return its ones."""
    mask[:] = 0
    count = 0
    if lay[L_TUNNELS] == 0 and lay[L_STATIONS] == 0:
        # without tunnel and station codes (all maps but Europe's) a loop that
        # cannot reach them: with env_action's branch for them in its body the
        # loop ran 1.4 times slower (1024 mid-game usa 4p masks: 0.65 ms, 0.46 without)
        for i in range(n):
            a = base_env_action(b, lay, route_act, legal[i])
            count += mask[a] == 0
            mask[a] = 1
        return count
    for i in range(n):
        a = env_action(b, lay, route_act, legal[i])
        count += mask[a] == 0
        mask[a] = 1
    return count


@kernel
def to_engine(b, s, act_engine, a):
    """The engine action of env action ``a`` for the seat to act (a claim, a
    tunnel's extra cards and a station pay with as few locomotives as its
    hand allows; a ferry with at least its printed ones, R8.2)."""
    e = act_engine[a]
    if e < A_CLAIM:
        return e
    p = s.meta[M_PLAYER]
    n_routes = b.route_len.shape[0]
    if e < claims_end(n_routes):
        r, c, _ = decode_claim(e)
        length = b.route_len[r]
        if c == PAY_LOCOS_ONLY:
            return encode_claim(r, c, length)
        return encode_claim(r, c, max(np.int64(b.route_ferry[r]), length - s.hand[p, c]))
    x = e - claims_end(n_routes)
    if x == X_TUNNEL_PAY:                     # R8.3: the extra cards in the pay colour, locomotives for the rest
        extra, colour = s.meta[M_TUNNEL_EXTRA], s.meta[M_TUNNEL_COLOUR]
        return tunnel_pay_action(n_routes, extra if colour == PAY_LOCOS_ONLY else max(0, extra - s.hand[p, colour]))
    if x == X_TUNNEL_GIVE_UP:
        return e
    city, c, _ = decode_station(n_routes, e)  # R8.4
    cost = station_cost(b, s, p)
    return station_action(n_routes, city, c, cost if c == PAY_LOCOS_ONLY else max(0, cost - s.hand[p, c]))

