"""Claiming routes: which routes a seat may claim and every way of paying
one (R4.1-R4.3, R4.5, ferries R8.2), as plain kernels over the board ``b``
and the state ``s``. :mod:`ttrsim.core.engine` lists, checks and applies the
claims with them.

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> from ttrsim.core.state import allocate_state
>>> b = build_board(get_rules("usa")); s = allocate_state(b, 2)
>>> s.hand[0, 1] = 2; s.trains[:] = 45
>>> out = np.empty(100, np.int32); claimable_routes(b, s, 0, out.astype(np.bool_))
36
"""
import numpy as np

from ttrsim.data.ids import GRAY, LOCO, N_COLOURS
from ttrsim.jit import kernel

from .actions import PAY_LOCOS_ONLY, encode_claim
from .bitset import drop_lowest, trailing_zeros
from .board import RP_LOCK_MAXP
from .state import M_NPLAYERS


@kernel(inline="always")
def parallel_closed(owner, parallels, r, p, lock_all):
    """A parallel track of route ``r`` closes it to seat ``p`` (R4.5): ``p``
    owns one, or someone does and ``lock_all`` (few players). Plain arrays
    (``s.route_owner``, ``b.route_parallels``): loops over routes read them
    into locals once, record field reads in a loop are not hoisted. Without
    a branch per track: whether a route is closed is as often yes as no in a
    game."""
    shut = False
    for j in range(parallels.shape[1]):         # index loops: iterating array views is slow in numba
        other = np.int64(parallels[r, j])
        o = np.int64(owner[max(other, 0)])
        shut |= (other >= 0) & ((o == p) | ((o >= 0) & lock_all))
    return shut


@kernel
def locks_all_tracks(b, s):
    """With this few players a claimed track closes its parallel tracks to everyone (R4.5)."""
    return s.meta[M_NPLAYERS] <= b.rp[RP_LOCK_MAXP]


@kernel
def route_open_to(b, s, r, p):
    """Route ``r`` is free and not closed to seat ``p`` by a parallel track (R4.5)."""
    if s.route_owner[r] >= 0:
        return False
    return not parallel_closed(s.route_owner, b.route_parallels, r, p, locks_all_tracks(b, s))


@kernel
def largest_colour_group(s, p):
    """The most cards of one colour (not locomotives) in seat ``p``'s hand."""
    hand = s.hand
    most = 0
    for c in range(N_COLOURS):
        most = max(most, np.int64(hand[p, c]))
    return most


# what _scan_claims does with each claimable route
CLAIM_FLAGS, CLAIM_LIST, CLAIM_ANY, CLAIM_COUNT, CLAIM_ROUTES = range(5)


@kernel(inline="always")
def _scan_claims(b, s, p, out, n, mode):
    """Visit seat ``p``'s claimable routes in increasing order: only the routes
    its hand pays (R4.2-R4.3) and its trains cover (R4.1) and that are free
    are looked at (per colour one precomputed set, ``b.claim_masks``, of the
    routes no longer than the hand's cards of it plus its locomotives, and
    the seat's set of routes free and not closed by a parallel track,
    ``s.route_open``, R4.5); then
    whether each one's ferry locomotives are held (R8.2). ``mode``
    CLAIM_FLAGS sets ``out[r]`` (cleared first) and counts, CLAIM_LIST appends
    the payments to ``out`` from ``n``, CLAIM_ANY returns 1 at the first one,
    CLAIM_COUNT adds the number of payments to ``n`` without writing them
    and records each route with the running count at the end of ``out``
    (:func:`claim_count`; a gray route's count, which depends on its length
    only, is kept below those records for the next gray route of that
    length), CLAIM_ROUTES appends the route ids to ``out`` from ``n``.
    Every field is read once, and nothing is called per route (a call
    counts a reference to ``out``)."""
    if mode == CLAIM_FLAGS:
        out[:] = False
    records = 0                          # CLAIM_COUNT: routes recorded
    open_, hand, masks, ferry = s.route_open, s.hand, b.claim_masks, b.route_ferry
    route_len, route_colour = b.route_len, b.route_colour
    locos = np.int64(hand[p, LOCO])
    cap = min(np.int64(s.trains[p]), masks.shape[1] - 1)
    gray_at = min(largest_colour_group(s, p) + locos, cap)
    if mode == CLAIM_COUNT:              # the gray routes' payment counts by length, as needed
        gray_n = out.shape[0] - 2 * route_len.shape[0] - 2 - masks.shape[1]
        out[gray_n:gray_n + masks.shape[1]] = -1
    for w in range(masks.shape[2]):
        word = masks[GRAY, gray_at, w]
        for c in range(N_COLOURS):
            word |= masks[c, min(np.int64(hand[p, c]) + locos, cap), w]
        word &= open_[p, w]
        while word:
            r = w * 64 + trailing_zeros(word)
            word = drop_lowest(word)
            if ferry[r] > locos:
                continue
            if mode == CLAIM_LIST:
                n = _route_payments(hand, p, r, np.int64(route_len[r]), np.int64(route_colour[r]),
                                    np.int64(ferry[r]), out, n)
            elif mode == CLAIM_ANY:
                return 1
            elif mode == CLAIM_ROUTES:
                out[n] = r
                n += 1
            elif mode == CLAIM_COUNT:
                length, col = np.int64(route_len[r]), np.int64(route_colour[r])
                if col == GRAY and ferry[r] == 0:
                    cnt = np.int64(out[gray_n + length])
                    if cnt < 0:
                        cnt = _payment_count(hand, p, length, col, 0)
                        out[gray_n + length] = cnt
                else:
                    cnt = _payment_count(hand, p, length, col, np.int64(ferry[r]))
                if cnt > 0:
                    n += cnt
                    at = out.shape[0] - 3 - 2 * records
                    out[at + 1] = r
                    out[at] = n
                    records += 1
            else:
                out[r] = True
                n += 1
    if mode == CLAIM_COUNT:
        out[out.shape[0] - 1] = records
    return n


@kernel
def close_claimed(b, s, p, r):
    """Seat ``p`` has just claimed route ``r``: it leaves every seat's
    ``s.route_open``, and its parallel tracks leave ``p``'s (everyone's with
    few players, R4.5)."""
    open_, parallels = s.route_open, b.route_parallels
    lock_all = locks_all_tracks(b, s)
    for q in range(open_.shape[0]):
        open_[q, r >> 6] &= ~(np.uint64(1) << np.uint64(r & 63))
    for j in range(parallels.shape[1]):
        t = np.int64(parallels[r, j])
        if t >= 0:
            for q in range(open_.shape[0]):
                if lock_all or q == p:
                    open_[q, t >> 6] &= ~(np.uint64(1) << np.uint64(t & 63))


@kernel
def sync_route_open(b, s):
    """Set ``s.route_open`` from ``s.route_owner`` (R4.5): the claims keep
    it as they happen (:func:`close_claimed`); call this after setting route
    owners by hand.

    >>> from ttrsim.data.rules import get_rules
    >>> from ttrsim.core.board import build_board
    >>> from ttrsim.core.state import allocate_state
    >>> b = build_board(get_rules("usa")); s = allocate_state(b, 2)
    >>> s.hand[0, :] = 12; s.trains[:] = 45
    >>> claimable_routes(b, s, 0, np.zeros(100, np.bool_))
    100
    >>> s.route_owner[:50] = 1                       # by hand: the open sets do not know yet
    >>> claimable_routes(b, s, 0, np.zeros(100, np.bool_))
    100
    >>> sync_route_open(b, s); claimable_routes(b, s, 0, np.zeros(100, np.bool_))
    50
    """
    open_ = s.route_open
    for p in range(open_.shape[0]):
        for w in range(open_.shape[1]):
            open_[p, w] = 0
        for r in range(b.route_len.shape[0]):
            if route_open_to(b, s, r, p):
                open_[p, r >> 6] |= np.uint64(1) << np.uint64(r & 63)


@kernel
def claimable_routes(b, s, p, out):
    """``out[r]``: seat ``p`` may claim route ``r`` now (free, not closed to it
    by a parallel track (R4.5), no longer than its trains (R4.1), payable by
    its hand (R4.2-R4.3, a ferry's locomotives R8.2)). Returns how many it may claim."""
    return _scan_claims(b, s, p, out, 0, CLAIM_FLAGS)


@kernel
def claim_routes(b, s, p, out, n):
    """Append the routes seat ``p`` may claim now (:func:`claimable_routes`)
    to ``out`` from index ``n``, in increasing order; return the new count."""
    return _scan_claims(b, s, p, out, n, CLAIM_ROUTES)


@kernel
def payments(b, s, p, r, out, n):
    """Append every way seat ``p``'s hand can pay route ``r`` (R4.2-R4.3; a
    ferry with at least its printed locomotives, R8.2) as
    claim actions to ``out`` from index ``n``, in increasing action order;
    return the new count. Whether the route is free, open and fits the trains
    is :func:`claimable_routes`' question."""
    return _route_payments(s.hand, p, r, np.int64(b.route_len[r]), np.int64(b.route_colour[r]),
                           np.int64(b.route_ferry[r]), out, n)


@kernel(inline="always")
def _route_payments(hand, p, r, length, col, k_lo, out, n):
    """:func:`payments` of route ``r`` (``length``, colour ``col``, at least
    ``k_lo`` locomotives) from seat ``p``'s row of ``hand``."""
    locos = np.int64(hand[p, LOCO])
    k_hi = min(length - 1, locos)
    c_lo, c_hi = (0, N_COLOURS) if col == GRAY else (col, col + 1)
    for c in range(c_lo, c_hi):
        h = np.int64(hand[p, c])
        if h == 0:
            continue
        for k in range(max(k_lo, length - h), k_hi + 1):
            out[n] = encode_claim(r, c, k)
            n += 1
    if locos >= length:
        out[n] = encode_claim(r, PAY_LOCOS_ONLY, length)
        n += 1
    return n


@kernel(inline="always")
def colour_pays(hand, p, c, length, k_lo):
    """Seat ``p``'s hand pays a route of ``length`` in colour ``c`` (a train
    colour the route takes), locomotives for the rest, at least ``k_lo`` of
    them (a ferry's, R8.2) and not all of them: :func:`payments` lists a
    claim in ``c``. (All locomotives: ``hand[p, LOCO] >= length``.)"""
    h = np.int64(hand[p, c])
    return h > 0 and max(k_lo, length - h) <= min(length - 1, np.int64(hand[p, LOCO]))


@kernel(inline="always")
def _payment_count(hand, p, length, col, k_lo):
    """How many payments :func:`_route_payments` lists for a route, in closed
    form: per colour held, the locomotive counts it allows, and the all-locomotive one."""
    locos = np.int64(hand[p, LOCO])
    k_hi = min(length - 1, locos)
    c_lo, c_hi = (0, N_COLOURS) if col == GRAY else (col, col + 1)
    n = 0
    for c in range(c_lo, c_hi):
        h = np.int64(hand[p, c])
        if h > 0:
            n += max(0, k_hi - max(k_lo, length - h) + 1)
    if locos >= length:
        n += 1
    return n


@kernel
def claim_count(b, s, p, out):
    """How many claims :func:`claim_actions` lists for seat ``p``, without
    listing them. The end of ``out`` (a legal buffer) gets what
    :func:`claim_at` reads: the number of payable routes in the last cell,
    then per route, backwards, its id and the count of claims up to it."""
    return _scan_claims(b, s, p, out, 0, CLAIM_COUNT)


@kernel
def claim_at(b, s, p, k, out):
    """Claim ``k`` of :func:`claim_actions`' list for seat ``p`` (``0 <= k <``
    :func:`claim_count`, whose records ``out`` holds): the payments of its
    route only are listed, into ``out`` from 0."""
    top = out.shape[0] - 1
    j = 0
    while out[top - 2 - 2 * j] <= k:       # the route whose running count passes k
        j += 1
    before = 0 if j == 0 else np.int64(out[top - 2 * j])
    r = out[top - 1 - 2 * j]
    payments(b, s, p, r, out, 0)
    return np.int64(out[k - before])


@kernel
def claim_actions(b, s, p, out, n):
    """Append every legal claim of seat ``p`` (route and payment, R4.1-R4.3,
    R4.5) to ``out`` from index ``n``; return the new count."""
    return _scan_claims(b, s, p, out, n, CLAIM_LIST)
