"""Shared builders of hand-made game states for the rule tests.

``setup_game`` returns a :class:`ttrsim.play.game.Game` past setup (every seat keeps
all its setup tickets) with the seat to act in the main phase; the ``put_*``
helpers overwrite parts of the state so a test can build exactly the position
it needs. Every helper keeps the 110 cards conserved where it moves cards.
"""
import numpy as np
import pytest

from ttrsim.core.actions import A_TICKETS, legal_buffer
from ttrsim.core.state import M_DECK_N, PH_MAIN
from ttrsim.data.ids import LOCO
from ttrsim.play.game import Game
from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.kit import dispatch
from ttrsim.strategies.kit.memory import allocate_memory, reset_memory


def setup_game(rules="usa", n_players=2, seed=0, overrides=None, mix=None):
    """A game past setup: in Germany each seat takes ``mix`` tickets from the
    short pile (default: all of them); every seat keeps all its tickets."""
    g = Game(rules, n_players, seed, overrides)
    while g.phase in ("setup-mix", "setup-keep"):
        if g.phase == "setup-mix":
            acts = [a for a in g.legal_actions() if a >= A_TICKETS]
            g.apply(A_TICKETS + mix if mix is not None else max(acts))
        else:
            g.apply(max(g.legal_actions()))   # largest mask = keep every ticket
    assert g.state.meta[1] == PH_MAIN
    return g


def put_hand(g, seat, counts):
    """Give ``seat`` exactly ``counts`` (dict card kind -> n); cards come from /
    go back to the deck so the total stays 110."""
    s = g.state
    for kind in range(LOCO + 1):
        want = counts.get(kind, 0)
        while s.hand[seat, kind] > want:
            s.hand[seat, kind] -= 1
            s.deck[s.meta[M_DECK_N]] = kind
            s.meta[M_DECK_N] += 1
        while s.hand[seat, kind] < want:
            take_from_deck(g, kind)
            s.hand[seat, kind] += 1


def take_from_deck(g, kind):
    """Remove one card of ``kind`` from the deck (or the discards), failing the test if none."""
    s = g.state
    n = s.meta[M_DECK_N]
    idx = np.flatnonzero(s.deck[:n] == kind)
    if len(idx):
        i = idx[-1]
        s.deck[i:n - 1] = s.deck[i + 1:n].copy()
        s.meta[M_DECK_N] -= 1
        return
    if s.discard[kind] > 0:
        s.discard[kind] -= 1
        return
    pytest.fail(f"no card of kind {kind} left to move")


def put_faceup(g, kinds):
    """Set the face-up row to ``kinds`` (card kinds, -1 for empty), swapping with the deck."""
    s = g.state
    for i, c in enumerate(s.faceup):       # old row back on the deck
        if c >= 0:
            s.deck[s.meta[M_DECK_N]] = c
            s.meta[M_DECK_N] += 1
    s.faceup[:] = -1
    for i, kind in enumerate(kinds):
        if kind >= 0:
            take_from_deck(g, kind)
            s.faceup[i] = kind


def put_deck_top(g, kinds):
    """Make ``kinds`` the next cards drawn from the deck, first element drawn first."""
    s = g.state
    for kind in kinds:
        take_from_deck(g, kind)
    n = s.meta[M_DECK_N]
    for j, kind in enumerate(reversed(kinds)):
        s.deck[n + j] = kind
    s.meta[M_DECK_N] = n + len(kinds)


def card_total(g):
    """Train cards in every place: deck, discards, face-up, hands (R1.1)."""
    s = g.state
    return int(s.meta[M_DECK_N] + s.discard.sum() + (s.faceup >= 0).sum() + s.hand.sum())


def route_id(g, a, b, colour=None):
    """The id of the route between cities ``a`` and ``b`` (of ``colour`` when it is a double)."""
    m = g.map
    for r in range(m.n_routes):
        ends = {m.node_names[m.route_a[r]], m.node_names[m.route_b[r]]}
        if ends == {a, b} and (colour is None or m.route_colour[r] == colour):
            return r
    raise KeyError(f"no route {a}-{b} colour {colour}")


def ticket_id(g, a, b):
    """The ticket of the rule set joining locations named ``a`` and ``b``."""
    m = g.map
    for t in range(m.n_tickets):
        ends = {m.location_names[m.ticket_a[t]], m.location_names[m.ticket_b[t]]}
        if ends == {a, b} and g.board.ticket_deck[t] >= 0:
            return t
    raise KeyError(f"no ticket {a}-{b}")


def fresh_memory(g):
    """The strategies' memory of game ``g``'s table as the game loop sets it
    up at the start of the game (streams seeded from ``g.seed``)."""
    m = allocate_memory(g.board, g.n_players)
    reset_memory(m, g.seed)
    return m


def decide(g, name="planner", overrides=None, memory=None):
    """The action strategy ``name`` (parameters ``overrides``, the same row at
    every seat) picks for the seat to act in game ``g``, through the compiled
    dispatcher with the list the game loop gives it; checked legal.
    ``memory``: the table's strategy memory, carried from decision to decision
    by the caller (default: :func:`fresh_memory`)."""
    buf = legal_buffer(g.board)
    n = dispatch.legal_for(strategy_id(name), g.board, g.state, buf)
    params = np.tile(param_row(name, overrides), (g.n_players, 1))
    m = fresh_memory(g) if memory is None else memory
    a = int(dispatch.choose(strategy_id(name), g.board, g.state, m, buf, n, params))
    assert a in g.legal_actions(), f"{name} chose an illegal action {a}"
    return a
