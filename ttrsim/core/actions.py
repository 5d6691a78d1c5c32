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
=================  ===============================  =====================================

The claim block of a route has ``CLAIMS_PER_ROUTE`` codes, a run of
``CLAIM_LOCO_SLOTS`` (locomotives 0..``MAX_ROUTE_LENGTH``) per pay colour;
:func:`encode_claim` / :func:`decode_claim` are the only code that does this
arithmetic.

>>> a = encode_claim(12, 3, 2)
>>> decode_claim(a)
(12, 3, 2)
>>> CLAIMS_PER_ROUTE, a == A_CLAIM + 12 * CLAIMS_PER_ROUTE + 3 * CLAIM_LOCO_SLOTS + 2
(72, True)
>>> action_name(encode_keep(0b101))
'keep 0b101'
"""
import numpy as np
from numba import njit

from ttrsim.data.ids import CARD_NAMES, N_COLOURS, PASSENGER_NAMES
from ttrsim.data.maps import MAX_ROUTE_LENGTH

A_FACEUP = 0            # + slot
A_BLIND = 8
A_PASS = 9
A_TICKETS = 10          # + number taken from pile 0
A_KEEP = 19             # + mask
A_PASSENGER = 275       # + passenger colour
A_CLAIM = 281           # + CLAIMS_PER_ROUTE * route + CLAIM_LOCO_SLOTS * pay colour + locomotives
PAY_LOCOS_ONLY = N_COLOURS                    # the pay "colour" of a claim paid with locomotives only
CLAIM_LOCO_SLOTS = MAX_ROUTE_LENGTH + 1       # locomotives paid: 0..the longest route
CLAIMS_PER_ROUTE = (PAY_LOCOS_ONLY + 1) * CLAIM_LOCO_SLOTS    # every (pay colour, locomotives) of a route


def action_space_size(n_routes: int) -> int:
    return A_CLAIM + CLAIMS_PER_ROUTE * n_routes


def legal_buffer(b) -> np.ndarray:
    """A buffer large enough for every legal-action list on board ``b``."""
    return np.empty(action_space_size(b.route_len.shape[0]), np.int32)


@njit(cache=True)
def encode_claim(route, colour, locos):
    """The claim of ``route`` paying pay colour ``colour`` (``PAY_LOCOS_ONLY``:
    locomotives only) with ``locos`` locomotives."""
    return A_CLAIM + CLAIMS_PER_ROUTE * route + CLAIM_LOCO_SLOTS * colour + locos


@njit(cache=True)
def decode_claim(a):
    """``(route, pay colour, locomotives)`` of claim action ``a``."""
    x = a - A_CLAIM
    return x // CLAIMS_PER_ROUTE, (x % CLAIMS_PER_ROUTE) // CLAIM_LOCO_SLOTS, x % CLAIM_LOCO_SLOTS


@njit(cache=True)
def encode_keep(mask):
    return A_KEEP + mask


def action_name(a: int) -> str:
    """Readable name without board context (see :mod:`ttrsim.play.narrate` for the full text)."""
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
    r, c, k = decode_claim(a)
    pay = "locomotives" if c == PAY_LOCOS_ONLY else CARD_NAMES[c]
    return f"claim {r} {pay} +{k} loco"
