"""Readable text of one game: the setup, one line per turn, the score table.

The narrator is omniscient (it shows every seat's hand and tickets). It reads
nothing but game states: :func:`narrate_action` describes one action from the
state before and the state after it, :class:`Narrator` groups the actions of a
turn into one line and adds notes (face-up locomotive resets, reshuffles, the
last round), and :func:`score_table` prints the final breakdown.
:func:`play_narrated` plays a game with compiled strategies through the Python
:class:`~ttrsim.play.game.Game` API, choosing exactly as
:func:`ttrsim.play.loop.play_game` does, so the narrated game for a seed is the
game ``play_game`` plays for that seed.

>>> lines = []
>>> g = play_narrated("usa", 2, seed=3, out=lines.append)
>>> lines[0]
'Ticket to Ride: usa (USA 2004 base game), 2 players, seed 3, strategies: random, random'
>>> any(line.startswith("T1 seat 0: ") for line in lines)
True
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ttrsim.core.actions import (
    A_BLIND,
    A_CLAIM,
    A_FACEUP,
    A_KEEP,
    A_PASS,
    A_PASSENGER,
    A_TICKETS,
    PAY_LOCOS_ONLY,
    X_STATION,
    X_TUNNEL_GIVE_UP,
    claims_end,
    decode_claim,
    decode_station,
)
from ttrsim.core.board import RP_LOCO_RESET, RP_MAX_RESETS, RP_N_DECKS, RP_PASSENGERS, RP_TUNNEL_CARDS
from ttrsim.core.piles import faceup_locos
from ttrsim.core.state import (
    END_NORMAL,
    M_COUNTDOWN,
    M_DECK_N,
    M_END,
    M_PEND_I,
    M_PHASE,
    M_PLAYER,
    M_RESETS,
    M_RESHUFFLES,
    M_TUNNEL_COLOUR,
    M_TUNNEL_EXTRA,
    M_TUNNEL_ROUTE,
    M_TURN,
    PH_OVER,
    PH_SETUP_KEEP,
    PH_SETUP_MIX,
    PH_TUNNEL,
    GameState,
)
from ttrsim.data.ids import CARD_NAMES, LOCO, PASSENGER_NAMES
from ttrsim.data.rules import PRESETS

END_TEXT = {
    "normal": "normal end (the last round was played out, R6.1)",
    "stalled": "stalled (every player passed for a full round, R6.2)",
    "capped": "capped (the turn cap was reached, R6.2)",
}


# --------------------------------------------------------------------------- small helpers

WRAP = 100


def wrap(text: str, indent: str = "    ") -> list[str]:
    """Long setup and ticket lines, wrapped for a terminal after a comma or a
    semicolon only, so names like 'Sault St. Marie' stay whole (turn lines stay
    one line)."""
    lines, cur = [], ""
    for piece in re.split(r"(?<=[,;:]) ", text):
        if cur and len(cur) + 1 + len(piece) > WRAP:
            lines.append(cur)
            cur = indent + piece
        else:
            cur = f"{cur} {piece}" if cur else piece
    lines.append(cur)
    return lines


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def card_row(faceup) -> str:
    """The face-up row, e.g. ``'orange, pink, -, locomotive'`` (``-`` an empty slot)."""
    return ", ".join(CARD_NAMES[c] if c >= 0 else "-" for c in faceup)


def card_counts(counts) -> str:
    """``{kind: n}`` counts as ``'2 blue, 1 locomotive'`` (``'no cards'`` when empty)."""
    parts = [f"{int(n)} {CARD_NAMES[k]}" for k, n in enumerate(counts) if n > 0]
    return ", ".join(parts) if parts else "no cards"


def ticket_label(game, t: int) -> str:
    m = game.map
    return f"{m.location_names[m.ticket_a[t]]}-{m.location_names[m.ticket_b[t]]} {int(m.ticket_points[t])}"


def ticket_list(game, tickets) -> str:
    return ", ".join(ticket_label(game, int(t)) for t in tickets) if len(tickets) else "none"


def pile_mix(game, k: int, n: int) -> str:
    """``k`` of ``n`` tickets from pile 0: ``'2 short, 2 long'``; one pile: ``'3'``."""
    if int(game.board.rp[RP_N_DECKS]) == 1:
        return f"{n}"
    names = game.rules.ticket_decks
    return f"{k} {names[0]}, {n - k} {names[1]}"


def offered(before: GameState, p: int) -> list[int]:
    return [int(t) for t in before.offer[p, :before.offer_n[p]]]


def split_offer(before: GameState, p: int, mask: int) -> tuple[list[int], list[int]]:
    """(kept, returned) ticket ids of seat ``p``'s offer under keep ``mask``."""
    offer = offered(before, p)
    kept = [t for i, t in enumerate(offer) if mask & (1 << i)]
    back = [t for i, t in enumerate(offer) if not mask & (1 << i)]
    return kept, back


def drawn_card(before: GameState, after: GameState, p: int) -> int:
    """The card kind seat ``p`` gained between the two states (-1 if none)."""
    gained = np.flatnonzero(after.hand[p].astype(int) - before.hand[p].astype(int) > 0)
    return int(gained[0]) if len(gained) else -1


def payment_text(c: int, k: int, length: int) -> str:
    if c == PAY_LOCOS_ONLY:
        return f"{k} locomotive{'s' if k != 1 else ''}"
    text = f"{length - k} {CARD_NAMES[c]}"
    if k:
        text += f" + {k} locomotive{'s' if k != 1 else ''}"
    return text


# --------------------------------------------------------------------------- one action

def narrate_action(game, before: GameState, after: GameState, action: int) -> str:
    """One action of the seat to act in ``before`` as a short phrase, e.g.
    ``'orange (face-up)'``, ``'blind locomotive'``, ``'claimed Atlanta-Miami (5 blue)
    with 5 blue, +10 points, 40 trains left'``, ``'kept Boston-Miami 12; returned
    1'``. ``game`` gives the map, board and rules (any :class:`~ttrsim.play.game.Game`
    of the same rule set); ``before``/``after`` are game states (see
    :func:`ttrsim.core.state.copy_state`)."""
    p = int(before.meta[M_PLAYER])
    phase = int(before.meta[M_PHASE])
    a = int(action)
    if a < A_BLIND:
        return f"{CARD_NAMES[before.faceup[a - A_FACEUP]]} (face-up)"
    if a == A_BLIND:
        c = drawn_card(before, after, p)
        return f"blind {CARD_NAMES[c]}" if c >= 0 else "blind (no card)"
    if a == A_PASS:
        return "passed (no legal action, R6.2)"
    if a < A_KEEP:
        n = int(after.offer_n[p])
        drawn = offered(after, p)
        if phase == PH_SETUP_MIX:
            return f"announced {pile_mix(game, a - A_TICKETS, n)}; dealt {ticket_list(game, drawn)}"
        return f"drew tickets ({pile_mix(game, a - A_TICKETS, n)})"
    if a < A_PASSENGER:
        kept, back = split_offer(before, p, a - A_KEEP)
        text = f"kept {ticket_list(game, kept)}"
        if back:
            text += f"; returned {len(back)}"
        return text
    if a < A_CLAIM:
        loc = int(before.pend_loc[before.meta[M_PEND_I]])
        return f"{PASSENGER_NAMES[a - A_PASSENGER]} ({game.map.location_names[loc]})"
    end = claims_end(game.map.n_routes)
    if a >= end + X_STATION:
        city, c, k = (int(x) for x in decode_station(game.map.n_routes, a))
        cost = int(before.hand[p].sum() - after.hand[p].sum())        # the cards paid
        return (f"built a station on {game.map.location_names[city]} with {payment_text(c, k, cost)} "
                f"(R8.4), {plural(int(after.stations_left[p]), 'station')} left")
    if a >= end:                                        # the extra cards of a tunnel (R8.3)
        r = int(before.meta[M_TUNNEL_ROUTE])
        if a - end == X_TUNNEL_GIVE_UP:
            return f"gave the tunnel up: the cards go back to the hand, {game.map.route_label(r)} stays free"
        extra = int(before.meta[M_TUNNEL_EXTRA])
        c = int(before.meta[M_TUNNEL_COLOUR])
        return (f"paid the extra {payment_text(c, a - end, extra)} and claimed it, "
                f"+{plural(int(game.board.route_points[r]), 'point')}, {plural(int(after.trains[p]), 'train')} left")
    r, c, k = (int(x) for x in decode_claim(a))
    length = int(game.board.route_len[r])
    pay = f"{game.map.route_label(r)} with {payment_text(c, k, length)}"
    if game.board.route_tunnel[r] and int(game.board.rp[RP_TUNNEL_CARDS]):
        shown = card_row([x for x in after.tunnel_shown if x >= 0]) or "no card (deck and discards empty)"
        if int(after.meta[M_PHASE]) == PH_TUNNEL:
            return (f"announced the tunnel {pay}; turned over {shown}: "
                    f"{plural(int(after.meta[M_TUNNEL_EXTRA]), 'extra card')} asked (R8.3)")
        pay = f"the tunnel {pay} (turned over {shown}: no extra card, R8.3)"
    return (f"claimed {pay}, "
            f"+{plural(int(game.board.route_points[r]), 'point')}, {plural(int(after.trains[p]), 'train')} left")


# --------------------------------------------------------------------------- whole turns

@dataclass
class Step:
    before: GameState
    action: int
    after: GameState


def passengers_taken(game, before: GameState, after: GameState, r: int) -> str:
    """Passengers taken at the two endpoints of route ``r`` between the states (R4.6)."""
    b, m = game.board, game.map
    taken, empty = [], []
    locs = [int(b.route_loc_a[r]), int(b.route_loc_b[r])]
    for loc in dict.fromkeys(locs):
        diff = before.pass_loc[loc].astype(int) - after.pass_loc[loc].astype(int)
        got = [PASSENGER_NAMES[c] for c in range(len(diff)) for _ in range(max(0, diff[c]))]
        if got:
            taken.extend(f"{c} ({m.location_names[loc]})" for c in got)
        else:
            empty.append(m.location_names[loc])
    parts = []
    if taken:
        parts.append(f"took passenger{'s' if len(taken) > 1 else ''} {', '.join(taken)}")
    if empty:
        parts.append(f"no passenger left at {' or '.join(empty)}")
    return "; ".join(parts)


def step_notes(game, step: Step) -> list[str]:
    """Face-up locomotive resets (R3.4) and reshuffles of the discard pile
    (R3.5) that happened during a card draw or a claim."""
    bf, af, a = step.before, step.after, step.action
    if A_BLIND < a < A_CLAIM:
        return []
    resets = int(af.meta[M_RESETS] - bf.meta[M_RESETS])
    reshuffles = int(af.meta[M_RESHUFFLES] - bf.meta[M_RESHUFFLES])
    notes = []
    if reshuffles:
        notes.append(f"the discard pile was shuffled into a new deck ({int(af.meta[M_DECK_N])} cards left, R3.5)")
    if resets:
        times = f" {resets} times in a row" if resets > 1 else ""
        text = f"3+ locomotives face up: the row was reset{times} (R3.4), now {card_row(af.faceup)}"
        limit = int(game.board.rp[RP_MAX_RESETS])
        if resets == limit and int(faceup_locos(af)) >= int(game.board.rp[RP_LOCO_RESET]):
            text += f"; the limit of {limit} resets in a row was reached, so the row stays"
        notes.append(text)
    return notes


def narrate_turn(game, steps: Sequence[Step]) -> list[str]:
    """The actions of one turn as one line ``'T12 seat 2: ...'`` plus indented
    note lines."""
    first, last = steps[0], steps[-1]
    p = int(first.before.meta[M_PLAYER])
    head = f"T{int(first.before.meta[M_TURN]) + 1} seat {p}: "
    a0 = first.action
    notes: list[str] = []
    if a0 <= A_BLIND:
        cards = [narrate_action(game, st.before, st.after, st.action) for st in steps]
        text = "drew " + " + ".join(cards)
        if len(steps) == 1 and not (a0 < A_BLIND and first.before.faceup[a0 - A_FACEUP] == LOCO):
            text += " (no second card to draw, R3.6)"
        for st in steps:
            notes += step_notes(game, st)
    elif a0 == A_PASS:
        text = narrate_action(game, first.before, first.after, a0)
    elif a0 < A_KEEP:
        text = narrate_action(game, first.before, first.after, a0)
        for st in steps[1:]:
            text += ", " + narrate_action(game, st.before, st.after, st.action)
    elif a0 >= claims_end(game.map.n_routes):          # a station (R8.4)
        text = narrate_action(game, first.before, first.after, a0)
    else:
        r = int(decode_claim(a0)[0])
        text = narrate_action(game, first.before, first.after, a0)
        for st in steps[1:]:                               # a tunnel's extra cards (R8.3)
            if st.action >= claims_end(game.map.n_routes):
                text += "; " + narrate_action(game, st.before, st.after, st.action)
        if int(game.board.rp[RP_PASSENGERS]):
            text += "; " + passengers_taken(game, first.before, last.after, r)
        notes += step_notes(game, first)
    bf, af = first.before, last.after
    if int(bf.meta[M_COUNTDOWN]) < 0 <= int(af.meta[M_COUNTDOWN]) or \
            (int(bf.meta[M_COUNTDOWN]) < 0 and int(af.meta[M_END]) == END_NORMAL):
        notes.append(f"last round: seat {p} has {plural(int(af.trains[p]), 'train')} left; every player, "
                     f"seat {p} included, takes one more turn (R6.1)")
    return [head + text] + [f"    * {n}" for n in notes]


# --------------------------------------------------------------------------- the narrator

class Narrator:
    """Feeds on (state before, action, state after) and returns text lines.

    Setup actions are collected and told once setup is over (the setup keep
    choices are private and settled together); main-phase actions are grouped
    into turns."""

    def __init__(self, game):
        self.game = game
        self.turn: list[Step] = []
        self.setup: dict[int, dict] = {}

    def start(self, strategies: Sequence[str] = ()) -> list[str]:
        g = self.game
        s = g.state
        doc = PRESETS.get(g.rules.preset, {}).get("doc", "")
        who = f", strategies: {', '.join(strategies)}" if strategies else ""
        if g.rules.overrides:
            who += ", overrides: " + ", ".join(f"{k}={v}" for k, v in g.rules.overrides.items())
        lines = [f"Ticket to Ride: {g.rules.preset}{f' ({doc})' if doc else ''}, {g.n_players} players, "
                 f"seed {g.seed}{who}",
                 f"Face-up row: {card_row(s.faceup)}"]
        if int(g.board.rp[RP_PASSENGERS]):
            places = []
            m = g.map
            for loc in range(s.pass_loc.shape[0]):
                row = s.pass_loc[loc]
                if row.sum():
                    cols = " ".join(PASSENGER_NAMES[c] for c in range(len(row)) for _ in range(int(row[c])))
                    places.append(f"{m.location_names[loc]} {cols}")
            lines += wrap(f"Passengers ({int(s.pass_loc.sum())}): " + "; ".join(places))
        return lines

    def step(self, before: GameState, action: int, after: GameState) -> list[str]:
        """Lines for the action just applied (often none: a turn is told when it ends)."""
        phase = int(before.meta[M_PHASE])
        p = int(before.meta[M_PLAYER])
        if phase in (PH_SETUP_MIX, PH_SETUP_KEEP):
            info = self.setup.setdefault(p, {})
            if phase == PH_SETUP_MIX:
                info["mix"] = pile_mix(self.game, action - A_TICKETS, int(after.offer_n[p]))
            else:
                info["dealt"] = offered(before, p)
                info["kept"], _ = split_offer(before, p, action - A_KEEP)
                info["hand"] = before.hand[p].copy()
            if int(after.meta[M_PHASE]) != phase and int(after.meta[M_PHASE]) not in (PH_SETUP_MIX, PH_SETUP_KEEP):
                return self.setup_lines()
            return []
        self.turn.append(Step(before, int(action), after))
        if int(after.meta[M_TURN]) > int(before.meta[M_TURN]) or int(after.meta[M_PHASE]) == PH_OVER:
            steps, self.turn = self.turn, []
            return narrate_turn(self.game, steps)
        return []

    def setup_lines(self) -> list[str]:
        g = self.game
        lines = []
        for p in sorted(self.setup):
            info = self.setup[p]
            mix = f" (announced {info['mix']})" if "mix" in info else ""
            lines += wrap(f"Setup seat {p}: hand {card_counts(info['hand'])}; dealt {ticket_list(g, info['dealt'])}"
                          f"{mix}; kept {ticket_list(g, info['kept'])}")
        return lines

    def finish(self, quiet: bool = False) -> list[str]:
        """The end reason, each seat's tickets (unless ``quiet``) and the score table."""
        g = self.game
        res = g.result()
        lines = []
        if not quiet:
            lines.append("")
            lines.append(f"Game over after {res['turns']} turns: {END_TEXT.get(res['end'], res['end'])}")
            lines += ticket_lines(g)
            lines.append("")
        lines += score_table(g)
        winners = ", ".join(f"seat {w}" for w in res["winners"])
        lines.append(f"end: {res['end']} after {res['turns']} turns; "
                     f"winner{'s' if len(res['winners']) > 1 else ''}: {winners}")
        return lines


def ticket_status(game) -> list[list[tuple[int, bool]]]:
    """Per seat: its tickets as (ticket id, completed) pairs (R6.3, R6.4)."""
    from ttrsim.core.scoring import player_components, ticket_completed
    b, s = game.board, game.state
    parent = np.empty(int(b.n_nodes), np.int64)
    out = []
    for p in range(game.n_players):
        player_components(b, s, p, parent)
        out.append([(int(t), bool(ticket_completed(b, s, int(t), parent)))
                    for t in np.flatnonzero(s.ticket_holder == p)])
    return out


def ticket_lines(game) -> list[str]:
    lines = []
    passengers = int(game.board.rp[RP_PASSENGERS])
    for p, tickets in enumerate(ticket_status(game)):
        done = [t for t, ok in tickets if ok]
        failed = [t for t, ok in tickets if not ok]
        lines += wrap(f"seat {p} tickets: completed {ticket_list(game, done)}; failed {ticket_list(game, failed)}")
        if passengers:
            row = game.state.pass_player[p]
            cols = ", ".join(f"{PASSENGER_NAMES[c]} {int(row[c])}" for c in range(len(row)) if row[c])
            lines += wrap(f"    passengers: {cols or 'none'}", "        ")
    return lines


# --------------------------------------------------------------------------- score table

def score_table(game) -> list[str]:
    """The final breakdown (R6.3-R6.8), one row per seat, total last but one."""
    res = game.result()
    r = game.rules
    lp_on, gt_on, pa_on = r.longest_path_points > 0, r.globetrotter_points > 0, bool(game.board.rp[RP_PASSENGERS])
    head1 = ["", "route", "tickets", "tickets", "longest", "globe-", "passengers", "", ""]
    head2 = ["seat", "points", "won (n)", "lost (n)", "path bonus", "trotter", "n  points", "total", ""]
    rows = []
    for p, f in enumerate(res["seats"]):
        rows.append([
            str(p), str(f["routes"]),
            f"+{f['tickets_won']} ({f['tickets_completed']})",
            f"-{f['tickets_lost']} ({f['tickets_failed']})",
            f"{f['longest_path']}" + (f" +{f['longest_bonus']}" if lp_on else ""),
            f"+{f['globetrotter']}" if gt_on else "-",
            f"{f['passengers']}  +{f['passenger_points']}" if pa_on else "-",
            str(f["total"]),
            "winner" if f["winner"] else "",
        ])
    widths = [max(len(x[i]) for x in [head1, head2] + rows) for i in range(len(head1))]

    def fmt(cells):
        last = len(cells) - 1
        return "  ".join(c.rjust(w) if i < last else c for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    rule = "-" * len(fmt(["x" * w for w in widths]))
    return [fmt(head1), fmt(head2), rule] + [fmt(row) for row in rows]


# --------------------------------------------------------------------------- playing

def play_narrated(rules, n_players: int, seed: int = 0, strategies: Sequence[str] = ("random",),
                  overrides: dict | None = None, out: Callable[[str], None] = print, quiet: bool = False,
                  params: np.ndarray | None = None):
    """Play one game with compiled strategies (one name for every seat or one
    per seat), writing its narration line by line to ``out``; returns the
    finished :class:`~ttrsim.play.game.Game`.

    Each decision is the strategy's choice on the list the game loop gives
    it, with a strategy memory reset from the seed, exactly as in
    :func:`ttrsim.play.loop.play_game` (through :func:`ttrsim.play.pyplay.play`),
    so seed ``s`` narrates the game ``play_game`` plays for ``s`` (same
    strategies and parameters).
    ``params`` is the strategies' float64 parameter table, one row per seat
    (default: each strategy's defaults)."""
    from .pyplay import play, seat_list

    names = seat_list(strategies, n_players)
    emit = (lambda line: None) if quiet else out
    narrators = []

    def start(game):
        narrators.append(Narrator(game))
        for line in narrators[0].start(names):
            emit(line)

    def step(before, action, after):
        for line in narrators[0].step(before, action, after):
            emit(line)

    g = play(rules, n_players, seed, names, params, overrides, on_start=start, on_step=step)
    for line in narrators[0].finish(quiet=quiet):
        out(line)
    return g
