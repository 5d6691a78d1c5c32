"""The Python game API over the compiled core, for tests, notebooks and
user-written strategies.

>>> g = Game("usa", n_players=2, seed=7)
>>> g.phase, g.player
('setup-keep', 0)
>>> a = g.legal_actions()[0]
>>> g.apply(a)
>>> while not g.over:
...     g.apply(g.legal_actions()[0])
>>> sorted(g.result()["seats"][0])[:3]
['globetrotter', 'longest_bonus', 'longest_path']
"""
from __future__ import annotations

from types import MappingProxyType

import numpy as np

from ttrsim.core.actions import action_name, legal_buffer
from ttrsim.core.board import (
    RP_DRAW_N,
    RP_END_TRAINS,
    RP_FACEUP,
    RP_FIRST_SEAT,
    RP_HAND,
    RP_MAX_TURNS,
    RP_N_CARDS,
    RP_N_DECKS,
    RP_SETUP_DEAL,
    RP_STATIONS,
    RP_TRAINS,
    build_board,
)
from ttrsim.core.engine import apply_action, is_legal, legal_actions, reset_game
from ttrsim.core.state import (
    END_NAMES,
    FINAL_NAMES,
    M_COUNTDOWN,
    M_DECK_N,
    M_END,
    M_NPLAYERS,
    M_PEND_I,
    M_PHASE,
    M_PLAYER,
    M_TUNNEL_EXTRA,
    M_TUNNEL_ROUTE,
    M_TURN,
    PH_OVER,
    PHASE_NAMES,
    allocate_state,
    copy_state,
)
from ttrsim.data.ids import CARD_NAMES, N_COLOURS, PASSENGER_NAMES, ROUTE_COLOUR_NAMES
from ttrsim.data.interventions import played_map
from ttrsim.data.rules import RulesError, RuleSet, get_rules


class IllegalAction(ValueError):
    """The action is not legal in the current state."""


def check_board(board, rules: RuleSet, map_data) -> None:
    """A ``ValueError`` unless ``board`` may be the board of ``rules`` on
    ``map_data`` (the map as played): the same routes (their ids in the map
    file) and the rule parameters the board records one to one. A cheap
    check of :class:`Game`'s ``board=``, not a comparison of every field."""
    expected = {RP_TRAINS: rules.trains, RP_HAND: rules.hand_size, RP_FACEUP: rules.face_up,
                RP_SETUP_DEAL: rules.setup_deal, RP_DRAW_N: rules.draw_tickets, RP_END_TRAINS: rules.end_trains,
                RP_MAX_TURNS: rules.max_turns, RP_FIRST_SEAT: rules.first_seat, RP_STATIONS: rules.stations,
                RP_N_CARDS: N_COLOURS * rules.cards_per_colour + rules.locomotives}
    routes = np.asarray(board.route_map_id)
    if len(routes) != map_data.n_routes or not np.array_equal(routes, map_data.file_route_ids) or \
            len(board.ticket_a) != map_data.n_tickets or \
            any(int(board.rp[i]) != v for i, v in expected.items()):
        raise ValueError(f"board= is not the board of these rules (preset '{rules.preset}' on map '{map_data.name}'); "
                         "expected build_board(rules) of the same rules")


class Game:
    """One game of ``rules`` (a preset name or a :class:`RuleSet`) for
    ``n_players`` seats, dealt from ``seed``; replaying a seed with the same
    actions gives the same game.

    ``board``: the board of these rules, built already (``build_board(rules)``,
    or another :class:`Game`'s of the same rules: boards are read-only), so
    that it is not built again; the game is then the same as without it. It
    must be the board of ``rules``: its map's routes and the rule parameters
    it records most directly are checked (a ``ValueError`` when they differ),
    not every field.

    >>> g = Game("usa", 3, seed=5)
    >>> Game(g.rules, 3, seed=5, board=g.board).legal_actions() == g.legal_actions()
    True
    """

    def __init__(self, rules: str | RuleSet = "usa", n_players: int = 2, seed: int = 0,
                 overrides: dict | None = None, *, board=None):
        if isinstance(rules, str):
            rules = get_rules(rules, overrides)
        if not 2 <= n_players <= 5:
            raise RulesError(f"players must be 2 to 5 (R1.2), got {n_players}")
        self.rules = rules
        self.map = played_map(rules)          # the map as played: its route ids are the board's (R9.2)
        if board is None:
            board = build_board(rules, self.map)
        else:
            check_board(board, rules, self.map)
        self.board = board
        self.state = allocate_state(self.board, n_players)
        self.seed = seed
        self._buf = legal_buffer(self.board)
        self.history: list[int] = []
        reset_game(self.board, self.state, seed)

    def reset(self, seed: int) -> None:
        """Start a new game dealt from ``seed`` on the same rules and seats
        (reuses the board and the state: cheaper than a new :class:`Game`)."""
        self.seed = seed
        self.history = []
        reset_game(self.board, self.state, seed)

    # --- reading the state ---------------------------------------------------------------------
    @property
    def n_players(self) -> int:
        return int(self.state.meta[M_NPLAYERS])

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self.state.meta[M_PHASE]]

    @property
    def player(self) -> int:
        """The seat to act."""
        return int(self.state.meta[M_PLAYER])

    @property
    def over(self) -> bool:
        return bool(self.state.meta[M_PHASE] == PH_OVER)

    @property
    def turn(self) -> int:
        return int(self.state.meta[M_TURN])

    def legal_actions(self) -> list[int]:
        n = legal_actions(self.board, self.state, self._buf)
        return [int(a) for a in self._buf[:n]]

    def is_legal(self, action: int) -> bool:
        return bool(is_legal(self.board, self.state, action))

    def apply(self, action: int) -> None:
        """Apply a legal action of the seat to act (raises :class:`IllegalAction`)."""
        if not self.is_legal(action):
            raise IllegalAction(f"action {action} ({action_name(action, self.map.n_routes)}) is not legal in phase "
                                f"{self.phase} for seat {self.player}")
        apply_action(self.board, self.state, action)
        self.history.append(int(action))

    def copy(self) -> Game:
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.state = copy_state(self.state)
        g.history = list(self.history)
        g._buf = legal_buffer(self.board)
        return g

    def observation(self, seat: int | None = None) -> dict:
        """What ``seat`` (default: the seat to act) may see: public information
        plus its own hand, tickets and ticket offer (R5.3: other tickets are
        secret). Every key, its type and meaning: ``docs/strategies.md``
        (`The observation`); routes and tickets are read-only records
        (:meth:`records`), shared by every observation of the game.

        >>> obs = Game("usa", 2, seed=1).observation()
        >>> obs["phase"], len(obs["offer"]), sorted(obs["offer"][0])
        ('setup-keep', 3, ['from', 'id', 'penalty', 'points', 'to'])
        >>> r = obs["routes"][3]
        >>> r["from"], r["to"], r["length"], r["colour"], obs["route_owner"][3]
        ('Atlanta', 'New Orleans', 4, 'orange', -1)
        """
        s, m = self.state, self.map
        seat = self.player if seat is None else seat
        n = self.n_players
        routes, tickets = self.records()
        holder = s.ticket_holder
        cards = s.hand.sum(axis=1).tolist()
        held = np.bincount(holder[holder >= 0], minlength=n).tolist()
        passengers = s.pass_player.tolist()
        trains, score = s.trains.tolist(), s.score.tolist()
        obs = {
            "seat": seat,
            "phase": self.phase,
            "player": self.player,
            "turn": self.turn,
            "last_round": int(s.meta[M_COUNTDOWN]) >= 0,
            "face_up": [CARD_NAMES[c] if c >= 0 else None for c in s.faceup.tolist()],
            "deck_size": int(s.meta[M_DECK_N]),
            "discard": {CARD_NAMES[k]: v for k, v in enumerate(s.discard.tolist()) if v},
            "tickets_left": s.tk_len.tolist(),
            "routes": routes,
            "route_owner": s.route_owner.tolist(),
            "route_lengths": m.route_len.tolist(),
            "players": [{"seat": p, "trains": trains[p], "score": score[p], "cards": cards[p], "tickets": held[p],
                         "passengers": {PASSENGER_NAMES[c]: v for c, v in enumerate(passengers[p]) if v}}
                        for p in range(n)],
            "hand": {CARD_NAMES[k]: v for k, v in enumerate(s.hand[seat].tolist()) if v},
            "tickets": [tickets[t] for t in np.flatnonzero(holder == seat).tolist()],
            "offer": [tickets[t] for t in s.offer[seat, :s.offer_n[seat]].tolist()],
        }
        if self.board.pass_setup.sum():
            obs["passengers_on_board"] = {
                m.location_names[loc]: {PASSENGER_NAMES[c]: v for c, v in enumerate(row) if v}
                for loc, row in enumerate(s.pass_loc.tolist()) if any(row)}
            if self.phase == "passenger":
                obs["passenger_place"] = m.location_names[s.pend_loc[s.meta[M_PEND_I]]]
        if int(self.board.rp[RP_N_DECKS]) > 1:
            obs["ticket_piles"] = list(self.rules.ticket_decks)
        if int(self.board.rp[RP_STATIONS]):
            obs["stations_left"] = s.stations_left.tolist()
            obs["stations"] = {m.location_names[c]: p for c, p in enumerate(s.station_owner.tolist()) if p >= 0}
        if self.phase == "tunnel":
            obs["tunnel_route"] = int(s.meta[M_TUNNEL_ROUTE])
            obs["tunnel_extra"] = int(s.meta[M_TUNNEL_EXTRA])
            obs["tunnel_shown"] = [CARD_NAMES[c] for c in s.tunnel_shown.tolist() if c >= 0]
        return obs

    def records(self) -> tuple:
        """The map's routes and tickets as read-only records, by id (built once
        per game object): a route ``{id, from, to, from_place, to_place,
        length, colour, group}``, a ticket ``{id, from, to, points, penalty}``
        (what it scores when completed and loses when failed under the
        game's rules, R6.3)."""
        records = self.__dict__.get("_records")
        if records is None:
            m, board = self.map, self.board
            place = [m.location_names[loc] for loc in m.node_loc.tolist()]
            routes = tuple(MappingProxyType({
                "id": r, "from": m.node_names[a], "to": m.node_names[b], "from_place": place[a],
                "to_place": place[b], "length": int(m.route_len[r]), "colour": ROUTE_COLOUR_NAMES[m.route_colour[r]],
                "group": int(m.route_group[r])})
                for r, (a, b) in enumerate(zip(m.route_a.tolist(), m.route_b.tolist())))
            tickets = tuple(MappingProxyType({
                "id": t, "from": m.location_names[m.ticket_a[t]], "to": m.location_names[m.ticket_b[t]],
                "points": int(board.ticket_points[t]), "penalty": int(board.ticket_penalty[t])})
                for t in range(m.n_tickets))
            records = self._records = (routes, tickets)
        return records

    def ticket_label(self, t: int) -> str:
        """``'Köln-Saarbrücken 4'``: a ticket's places and printed points."""
        m = self.map
        return (f"{m.location_names[m.ticket_a[t]]}-{m.location_names[m.ticket_b[t]]} "
                f"{int(m.ticket_points[t])}")

    def render(self, path=None, mode: str = "rgb_array"):
        """Draw the position (:mod:`ttrsim.play.render`): ``mode="rgb_array"``
        returns the picture as uint8 [height, width, 3], or writes it to
        ``path`` if given (png, svg or pdf by its suffix); ``mode="ansi"``
        returns it as text."""
        from . import render

        if mode == "ansi":
            return render.text_board(self)
        if mode != "rgb_array":
            raise ValueError(f"render mode must be 'rgb_array' or 'ansi', got {mode!r}")
        if path is not None:
            return render.save_board(self, path)
        return render.board_image(self)

    def result(self) -> dict:
        """The final score breakdown per seat, the winner seat(s) and the end reason."""
        if not self.over:
            raise RuntimeError("the game is not over")
        f = self.state.final
        seats = [{name: int(f[p, i]) for i, name in enumerate(FINAL_NAMES)} for p in range(self.n_players)]
        for p, row in enumerate(seats):
            row["winner"] = bool(row["winner"])
            row["passengers_by_colour"] = {PASSENGER_NAMES[c]: int(v)
                                           for c, v in enumerate(self.state.pass_player[p])}
        return {"seats": seats, "winners": [p for p, r in enumerate(seats) if r["winner"]],
                "end": END_NAMES[self.state.meta[M_END]], "turns": self.turn}
