"""The game state: one record of typed arrays, each field's encoding beside it.

Scalars live in ``meta`` (``int32``) under the ``M_*`` indices. Card kinds are
the ids of :mod:`ttrsim.data.ids` (colours 0..7, locomotive 8). The state holds
the game only, with its own random stream ``rng``, so a game is replayable
from its seed; what strategies keep (their streams and memory) is the game
loop's (:mod:`ttrsim.strategies.kit.memory`).

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> s = allocate_state(build_board(get_rules("usa")), 4)
>>> s.hand.shape, int(s.meta[M_NPLAYERS])
((4, 9), 4)
"""
from __future__ import annotations

import numpy as np

from ttrsim.data.ids import END_NAMES, N_CARD_KINDS, N_PASSENGER_COLOURS  # noqa: F401 (END_NAMES re-exported)
from ttrsim.data.rules import MAX_TUNNEL_CARDS, check_offer_seat
from ttrsim.jit import kernel
from ttrsim.jit.record import define_record

from .board import MAX_OFFER, RP_FACEUP, RP_N_CARDS, RP_OFFER_SEAT, RP_OFFER_TICKET, Board

# --- indices into GameState.meta ---------------------------------------------
(M_NPLAYERS,    # players at the table, 2..5
 M_PHASE,       # PH_* below
 M_PLAYER,      # seat to act
 M_TURN,        # completed turns (all players)
 M_DECK_N,      # cards in the draw pile; deck[0:M_DECK_N], top = deck[M_DECK_N-1]
 M_COUNTDOWN,   # -1 until the last round is triggered (R6.1), then turns still to play
 M_PASSES,      # consecutive passed turns (R6.2)
 M_END,         # END_* below
 M_PEND_N,      # passenger pick-ups pending after a claim (R4.6): 0..2
 M_PEND_I,      # index of the pick-up being resolved
 M_FIRST_CARD,  # in PH_DRAW2: the card kind taken by the first draw
 M_LAST_ROUTE,  # last route claimed (for narration and logs), -1 none
 M_ACTIONS,     # actions applied so far
 M_RESETS,      # face-up rows reset so far (R3.4)
 M_RESHUFFLES,  # discard piles shuffled into a new deck so far (R3.5)
 M_CLAIMS,      # routes claimed so far, all seats (a board version: route owners change only with it)
 M_TUNNEL_ROUTE,   # in PH_TUNNEL: the tunnel being claimed (R8.3)
 M_TUNNEL_COLOUR,  # its pay colour (PAY_LOCOS_ONLY = locomotives only)
 M_TUNNEL_EXTRA,   # the extra cards the revealed ones ask for
 N_META) = range(20)

# phases: who must decide what
(PH_SETUP_MIX,   # announce the short/long mix of the setup tickets (R2.3), seat by seat
 PH_SETUP_KEEP,  # keep at least the minimum of the setup tickets (R2.2), seat by seat
 PH_MAIN,        # choose one of the three actions (R3, R4, R5)
 PH_DRAW2,       # the second train card (R3.1-R3.3)
 PH_KEEP,        # keep drawn tickets (R5.1)
 PH_PASSENGER,   # choose the colour of a passenger (R4.6)
 PH_OVER,
 PH_TUNNEL,      # pay the extra cards of a tunnel or give it up (R8.3)
 ) = range(8)
PHASE_NAMES = ("setup-mix", "setup-keep", "main", "draw2", "keep", "passenger", "over", "tunnel")

END_RUNNING, END_NORMAL, END_STALLED, END_CAPPED = range(4)      # their names: END_NAMES (ttrsim.data.ids)

# --- columns of GameState.final (filled by final scoring) ---------------------
(F_ROUTES, F_TICKETS_WON, F_TICKETS_LOST, F_N_COMPLETED, F_N_FAILED, F_LP_LEN, F_LP_BONUS,
 F_GLOBETROTTER, F_PASSENGER_PTS, F_N_PASSENGERS, F_TOTAL, F_WINNER,
 F_STATION_PTS, F_STATIONS_BUILT, F_STATIONS_USED, F_TICKETS_RESCUED, N_FINAL) = range(17)
FINAL_NAMES = ("routes", "tickets_won", "tickets_lost", "tickets_completed", "tickets_failed",
               "longest_path", "longest_bonus", "globetrotter", "passenger_points", "passengers",
               "total", "winner", "station_points", "stations_built", "stations_used", "tickets_rescued")


STATE_FIELDS = (
    "meta",           # int32[N_META] scalars, M_* indices
    "rng",            # uint64[2] random streams: [0] the game's (shuffles, passenger setup), [RNG_INTERVENTION]
                      #   the study interventions' (R9.1), so that an intervention leaves the game's stream as is
    "deck",           # int8[n_cards] draw pile, card kinds, top at meta[M_DECK_N]-1
    "discard",        # int16[9] discard pile, count per card kind (order is irrelevant)
    "faceup",         # int8[F] face-up cards, card kind or -1 for an empty slot
    "hand",           # int16[P, 9] cards per player per kind
    "trains",         # int16[P] trains left
    "score",          # int32[P] running score: route points so far (R4.4)
    "route_owner",    # int8[R] seat owning the route, -1 free
    "route_open",     # uint64[P, W] per seat the routes free and not closed to it by a parallel track (R4.5),
                      #   bit r%64 of word r//64: kept by the claims (ttrsim.core.claims.close_claimed); after
                      #   setting route_owner by hand, ttrsim.core.claims.sync_route_open
    "tk_buf",         # int16[D, T] ticket piles as ring buffers
    "tk_head",        # int32[D] index of the top ticket of each pile
    "tk_len",         # int32[D] tickets in each pile
    "ticket_holder",  # int8[T] seat holding the ticket, -1 none
    "offer",          # int16[P, 8] tickets offered to a seat and not yet decided
    "offer_n",        # int8[P] tickets on offer per seat
    "offer_keep",     # int16[P] setup keep mask chosen by each seat (applied after all chose)
    "pass_loc",       # int16[L, 6] passengers still on each location, per colour
    "pass_player",    # int16[P, 6] passengers collected, per colour (public)
    "pend_loc",       # int16[2] locations of pending passenger pick-ups
    "final",          # int32[P, N_FINAL] final score breakdown, F_* columns
    "tunnel_held",    # int16[9] in PH_TUNNEL: the cards laid down for the tunnel, per kind (R8.3)
    "tunnel_shown",   # int8[MAX_TUNNEL_CARDS] the cards turned over for the last tunnel, -1 padded (R8.3)
    "stations_left",  # int16[P] stations a seat has not built (R8.4)
    "station_owner",  # int8[C] seat owning the station on city c, -1 none (R8.4)
    "station_route",  # int16[C] route the station on city c borrows at the end, -1 none (R8.5)
)
GameState = define_record("GameState", STATE_FIELDS, __name__, borrowed=True)
RNG_INTERVENTION = 1      # GameState.rng[1]: the stream of the study interventions (R9.1)


def allocate_state(board: Board, n_players: int) -> GameState:
    """Zeroed arrays for one game; :func:`ttrsim.core.engine.reset_game` deals
    it. A RulesError when the seat offered a ticket (R9.1) is not at the table."""
    check_offer_seat(board.rp[RP_OFFER_TICKET] >= 0, int(board.rp[RP_OFFER_SEAT]), n_players)
    n_tickets = board.ticket_a.shape[0]
    n_decks = board.deck_size.shape[0]
    n_locs = board.pass_setup.shape[0]
    meta = np.zeros(N_META, np.int32)
    meta[M_NPLAYERS] = n_players
    return GameState(
        meta=meta, rng=np.zeros(RNG_INTERVENTION + 1, np.uint64),
        deck=np.zeros(int(board.rp[RP_N_CARDS]), np.int8), discard=np.zeros(N_CARD_KINDS, np.int16),
        faceup=np.full(int(board.rp[RP_FACEUP]), -1, np.int8),
        hand=np.zeros((n_players, N_CARD_KINDS), np.int16), trains=np.zeros(n_players, np.int16),
        score=np.zeros(n_players, np.int32), route_owner=np.full(board.route_len.shape[0], -1, np.int8),
        route_open=all_routes_open(n_players, board.route_len.shape[0]),
        tk_buf=np.full((n_decks, n_tickets), -1, np.int16), tk_head=np.zeros(n_decks, np.int32),
        tk_len=np.zeros(n_decks, np.int32), ticket_holder=np.full(n_tickets, -1, np.int8),
        offer=np.full((n_players, MAX_OFFER), -1, np.int16), offer_n=np.zeros(n_players, np.int8),
        offer_keep=np.zeros(n_players, np.int16),
        pass_loc=np.zeros((n_locs, N_PASSENGER_COLOURS), np.int16),
        pass_player=np.zeros((n_players, N_PASSENGER_COLOURS), np.int16),
        pend_loc=np.full(2, -1, np.int16), final=np.zeros((n_players, N_FINAL), np.int32),
        tunnel_held=np.zeros(N_CARD_KINDS, np.int16), tunnel_shown=np.full(MAX_TUNNEL_CARDS, -1, np.int8),
        stations_left=np.zeros(n_players, np.int16), station_owner=np.full(int(board.n_cities), -1, np.int8),
        station_route=np.full(int(board.n_cities), -1, np.int16),
    )


def all_routes_open(n_players: int, n_routes: int) -> np.ndarray:
    """``GameState.route_open`` of a board with no route claimed: every route open to every seat."""
    words = [(1 << min(64, n_routes - lo)) - 1 for lo in range(0, n_routes, 64)]
    return np.tile(np.array(words, np.uint64), (n_players, 1))


def copy_state(s: GameState) -> GameState:
    """A deep copy (every array copied); in compiled code copy into a state
    built in Python instead (:func:`copy_state_into`)."""
    return GameState(*(a.copy() for a in s))


@kernel
def copy_state_into(d, s):
    """Copy game state ``s`` into ``d``, a state of the same table (every
    field of ``STATE_FIELDS``; ``tests/core/test_record.py`` checks it). A
    state is built in Python only (a borrowed record, :mod:`.record`), so
    compiled code that needs a scratch state is handed one (e.g. the
    strategies' memory's ``scratch``) and copies into it.

    >>> from ttrsim.data.rules import get_rules
    >>> from ttrsim.core.board import build_board
    >>> b = build_board(get_rules("usa")); s, d = allocate_state(b, 2), allocate_state(b, 2)
    >>> s.hand[1, 3] = 4; copy_state_into(d, s); int(d.hand[1, 3])
    4
    """
    d.meta[:] = s.meta
    d.rng[:] = s.rng
    d.deck[:] = s.deck
    d.discard[:] = s.discard
    d.faceup[:] = s.faceup
    d.hand[:, :] = s.hand
    d.trains[:] = s.trains
    d.score[:] = s.score
    d.route_owner[:] = s.route_owner
    d.route_open[:, :] = s.route_open
    d.tk_buf[:, :] = s.tk_buf
    d.tk_head[:] = s.tk_head
    d.tk_len[:] = s.tk_len
    d.ticket_holder[:] = s.ticket_holder
    d.offer[:, :] = s.offer
    d.offer_n[:] = s.offer_n
    d.offer_keep[:] = s.offer_keep
    d.pass_loc[:, :] = s.pass_loc
    d.pass_player[:, :] = s.pass_player
    d.pend_loc[:] = s.pend_loc
    d.final[:, :] = s.final
    d.tunnel_held[:] = s.tunnel_held
    d.tunnel_shown[:] = s.tunnel_shown
    d.stations_left[:] = s.stations_left
    d.station_owner[:] = s.station_owner
    d.station_route[:] = s.station_route
