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
                   with k locomotives
=================  ===============================  =====================================

>>> a = encode_claim(12, 3, 2)
>>> decode_claim(a)
(12, 3, 2)
>>> action_name(encode_keep(0b101))
'keep 0b101'
"""
import numpy as np
from numba import njit

from ttrsim.data.ids import CARD_NAMES, PASSENGER_NAMES

A_FACEUP = 0            # + slot
A_BLIND = 8
A_PASS = 9
A_TICKETS = 10          # + number taken from pile 0
A_KEEP = 19             # + mask
A_PASSENGER = 275       # + passenger colour
A_CLAIM = 281           # + 72 * route + 8 * pay colour + locomotives
PAY_LOCOS_ONLY = 8


def action_space_size(n_routes: int) -> int:
    return A_CLAIM + 72 * n_routes


def legal_buffer(b) -> np.ndarray:
    """A buffer large enough for every legal-action list on board ``b``."""
    return np.empty(action_space_size(b.route_len.shape[0]), np.int32)


@njit(cache=True)
def encode_claim(route, colour, locos):
    return A_CLAIM + 72 * route + 8 * colour + locos


@njit(cache=True)
def decode_claim(a):
    x = a - A_CLAIM
    return x // 72, (x % 72) // 8, x % 8


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
