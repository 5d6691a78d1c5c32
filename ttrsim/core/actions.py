"""Actions are small ints. The codec (ranges below) is the same in every phase.

=================  ===============================  =====================================
range              meaning                          phases
=================  ===============================  =====================================
0..7               take face-up card in slot i      main, draw2
8                  draw the top card of the deck    main, draw2
9                  pass (only when nothing is legal) main (R6.2)
10..18             draw tickets, k from pile 0       main, setup-mix (R2.3, R5.1)
                   (the rest from pile 1)
19..274            keep the offered tickets in mask  setup-keep, keep
275..280           take a passenger of colour c      passenger (R4.6)
281 + 72*r + 8*c   claim route r paying colour c     main (R4.2)
    + k            (0..7, 8 = locomotives only)
                   with k locomotives (0..7)
E + k              pay a tunnel's extra cards with   tunnel (R8.3)
                   k locomotives (0..3)
E + 4              give the tunnel up                tunnel (R8.3)
E + 5 + 36*x       build a station on city x paying main (R8.4)
    + 4*c + k      colour c with k locomotives (0..3)
=================  ===============================  =====================================

The claim block of a route has ``CLAIMS_PER_ROUTE`` codes, a run of
``CLAIM_LOCO_SLOTS`` (locomotives 0..7) per pay colour; a route paid with
locomotives only has ``k`` = its length, and Europe's one 8-space route,
paid with 8 locomotives, takes slot 0 of that run (never a payment
otherwise: a route has at least one space). ``E`` = :func:`claims_end`, the
first code after the claim block, depends on the board's route count (as
the action space's size does); the codes below ``E`` are the same on every
board. :func:`encode_claim` / :func:`decode_claim` and the ``*_action`` /
:func:`decode_station` functions are the only code that does this arithmetic.

>>> a = encode_claim(12, 3, 2)
>>> decode_claim(a)
(12, 3, 2)
>>> CLAIMS_PER_ROUTE, a == A_CLAIM + 12 * CLAIMS_PER_ROUTE + 3 * CLAIM_LOCO_SLOTS + 2
(72, True)
>>> decode_claim(encode_claim(5, PAY_LOCOS_ONLY, 8))
(5, 8, 8)
>>> action_name(encode_keep(0b101))
'keep 0b101'
>>> decode_station(101, station_action(101, 20, 4, 1))
(20, 4, 1)
>>> action_name(tunnel_give_up_action(101), 101)
'tunnel give up'
"""
import numpy as np

from ttrsim.data.ids import CARD_NAMES, N_COLOURS, PASSENGER_NAMES
from ttrsim.data.rules import MAX_STATION_COST, MAX_TUNNEL_CARDS
from ttrsim.jit import kernel

A_FACEUP = 0            # + slot
A_BLIND = 8
A_PASS = 9
A_TICKETS = 10          # + number taken from pile 0
A_KEEP = 19             # + mask
A_PASSENGER = 275       # + passenger colour
A_CLAIM = 281           # + CLAIMS_PER_ROUTE * route + CLAIM_LOCO_SLOTS * pay colour + locomotives
PAY_LOCOS_ONLY = N_COLOURS                    # the pay "colour" of a claim paid with locomotives only
CLAIM_LOCO_SLOTS = 8                          # locomotives paid: 0..7 (8 only with locomotives only, slot 0)
CLAIMS_PER_ROUTE = (PAY_LOCOS_ONLY + 1) * CLAIM_LOCO_SLOTS    # every (pay colour, locomotives) of a route
X_TUNNEL_PAY = 0                              # after the claims: + locomotives among the extra cards
X_TUNNEL_GIVE_UP = MAX_TUNNEL_CARDS + 1
X_STATION = X_TUNNEL_GIVE_UP + 1              # + STATION_CODES * city + STATION_LOCO_SLOTS * colour + locos
STATION_LOCO_SLOTS = MAX_STATION_COST + 1     # locomotives paid for a station: 0..the dearest station
STATION_CODES = (PAY_LOCOS_ONLY + 1) * STATION_LOCO_SLOTS     # every (pay colour, locomotives) of a city


def action_space_size(n_routes: int, n_cities: int = 0) -> int:
    """Codes on a board of ``n_routes`` routes and ``n_cities`` station places."""
    return A_CLAIM + CLAIMS_PER_ROUTE * n_routes + X_STATION + STATION_CODES * n_cities


def legal_buffer(b) -> np.ndarray:
    """A buffer large enough for every legal-action list on board ``b``."""
    return np.empty(action_space_size(b.route_len.shape[0], int(b.n_cities)), np.int32)


@kernel
def encode_claim(route, colour, locos):
    """The claim of ``route`` paying pay colour ``colour`` (``PAY_LOCOS_ONLY``:
    locomotives only) with ``locos`` locomotives."""
    return A_CLAIM + CLAIMS_PER_ROUTE * route + CLAIM_LOCO_SLOTS * colour + locos % CLAIM_LOCO_SLOTS


@kernel
def decode_claim(a):
    """``(route, pay colour, locomotives)`` of claim action ``a``."""
    x = a - A_CLAIM
    colour, locos = (x % CLAIMS_PER_ROUTE) // CLAIM_LOCO_SLOTS, x % CLAIM_LOCO_SLOTS
    if colour == PAY_LOCOS_ONLY and locos == 0:
        locos = CLAIM_LOCO_SLOTS
    return x // CLAIMS_PER_ROUTE, colour, locos


@kernel
def encode_keep(mask):
    return A_KEEP + mask


@kernel
def claims_end(n_routes):
    """The first code after the claim block of a board of ``n_routes`` routes."""
    return A_CLAIM + CLAIMS_PER_ROUTE * n_routes


@kernel
def tunnel_pay_action(n_routes, locos):
    """Pay the extra cards of a tunnel with ``locos`` locomotives, the rest in its pay colour (R8.3)."""
    return claims_end(n_routes) + X_TUNNEL_PAY + locos


@kernel
def tunnel_give_up_action(n_routes):
    """Take the tunnel's cards back; the turn ends (R8.3)."""
    return claims_end(n_routes) + X_TUNNEL_GIVE_UP


@kernel
def station_action(n_routes, city, colour, locos):
    """Build a station on ``city`` paying ``colour`` (``PAY_LOCOS_ONLY``:
    locomotives only) with ``locos`` locomotives (R8.4)."""
    return claims_end(n_routes) + X_STATION + STATION_CODES * city + STATION_LOCO_SLOTS * colour + locos


@kernel
def decode_station(n_routes, a):
    """``(city, pay colour, locomotives)`` of station action ``a``."""
    x = a - claims_end(n_routes) - X_STATION
    return x // STATION_CODES, (x % STATION_CODES) // STATION_LOCO_SLOTS, x % STATION_LOCO_SLOTS


def action_name(a: int, n_routes: int | None = None) -> str:
    """Readable name without board context (see :mod:`ttrsim.play.narrate` for
    the full text); the codes after the claims need the board's route count."""
    if a < A_BLIND:
        return f"face-up {a}"
    if a == A_BLIND:
        return "blind"
    if a == A_PASS:
        return "pass"
    if a < A_KEEP:
        return f"tickets {a - A_TICKETS}"
    if a < A_PASSENGER:
        return f"keep {bin(a - A_KEEP)}"
    if a < A_CLAIM:
        return f"passenger {PASSENGER_NAMES[a - A_PASSENGER]}"
    if n_routes is not None and a >= claims_end(n_routes):
        x = a - claims_end(n_routes)
        if x == X_TUNNEL_GIVE_UP:
            return "tunnel give up"
        if x < X_TUNNEL_GIVE_UP:
            return f"tunnel pay +{x - X_TUNNEL_PAY} loco"
        city, c, k = decode_station(n_routes, a)
        pay = "locomotives" if c == PAY_LOCOS_ONLY else CARD_NAMES[c]
        return f"station {city} {pay} +{k} loco"
    r, c, k = decode_claim(a)
    pay = "locomotives" if c == PAY_LOCOS_ONLY else CARD_NAMES[c]
    return f"claim {r} {pay} +{k} loco"
