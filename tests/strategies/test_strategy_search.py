"""``search`` (issue 11, section 2): it finds a winning last move the
planner misses, its determinizations keep what the seat sees and deal the
rest consistently (Europe's long tickets and tunnels too), and it plays
whole games the same way every time, on 1 or 2 workers and any chunks. (Legal
picks, fair play, memory rows and parameter columns: ``test_strategy_api.py``,
which covers every registered strategy.)"""
import numpy as np

from ttrsim.core.actions import A_CLAIM, A_KEEP, A_PASSENGER, A_TICKETS, decode_claim, encode_claim, legal_buffer
from ttrsim.core.state import F_TOTAL, F_WINNER, M_COUNTDOWN, M_DECK_N, M_PLAYER, copy_state
from ttrsim.data.ids import LOCO
from ttrsim.experiment.runner import run_experiment
from ttrsim.play.game import Game
from ttrsim.play.loop import play_finals
from ttrsim.strategies import param_row, planner, search, strategy_id
from ttrsim.strategies.kit import dispatch
from ttrsim.strategies.planner import main_phase_plan
from ttrsim.strategies.search import outcome
from ttrsim.strategies.search.blocks import others_plans
from ttrsim.strategies.search.determinize import determinize
from ttrsim.strategies.search.rollout import GREEDY, PLANNER, policy_params

from helpers import assert_same_tables, decide, fresh_memory, put_hand, route_id, setup_game, ticket_id

RED = 5       # card colours of ttrsim.data.ids: the hand of the end-game position


def claim_of(g, a, b, length):
    """The route of ``length`` between cities ``a`` and ``b``."""
    r = route_id(g, a, b)
    assert g.board.route_len[r] == length
    return r


def last_turn_position():
    """USA, 2 players, the seat to act plays the last turn (R6.1) with three
    red cards and no tickets anywhere. The other seat holds the longest trail
    (Winnipeg-Calgary-Helena, 10) and leads 22 to 17; the seat to act has
    Miami-Atlanta-New Orleans (9). Its best-scoring claims (length 3, 4 points,
    the planner's last-turn pick) lose by 6; Houston-New Orleans (2 points)
    makes its trail 11, takes the 10-point bonus and wins by 7."""
    g = setup_game("usa", 2, seed=3)
    s = g.state
    me = int(s.meta[M_PLAYER])
    op = 1 - me
    s.ticket_holder[:] = -1
    s.route_owner[:] = -1
    for seat, routes in ((me, [("Miami", "Atlanta", 5), ("Atlanta", "New Orleans", 4)]),
                         (op, [("Winnipeg", "Calgary", 6), ("Calgary", "Helena", 4)])):
        s.score[seat] = 0
        for a, b, length in routes:
            r = claim_of(g, a, b, length)
            s.route_owner[r] = seat
            s.score[seat] += g.board.route_points[r]
        s.trains[seat] = 45 - sum(length for _, _, length in routes)
    put_hand(g, me, {RED: 3})
    s.meta[M_COUNTDOWN] = 1
    return g, me, claim_of(g, "Houston", "New Orleans", 2)


def after(g, a):
    h = g.copy()
    h.apply(a)
    assert h.over
    return h.state.final


def test_search_finds_the_winning_last_claim_the_planner_misses():
    g, me, winning = last_turn_position()
    assert g.state.hand[me, LOCO] == 0
    planner_pick = decide(g, "planner")
    f = after(g, planner_pick)
    assert f[me, F_WINNER] == 0 and f[me, F_TOTAL] < f[1 - me, F_TOTAL]          # the planner's pick loses
    a = decide(g, "search", {"budget": 16, "claims": 40})
    assert decode_claim(a)[0] == winning
    f = after(g, a)
    assert f[me, F_WINNER] == 1 and f[me, F_TOTAL] > f[1 - me, F_TOTAL]
    # racing finds it too (the losing claims are dropped after three deals)
    assert decide(g, "search", {"budget": 16, "claims": 40, "race": 1}) == a
    # in the last round the defaults search every payable claim (last_claims) and find it too; with the two
    # claims of before the last round the winning one is not even a candidate: the planner's pick stays
    assert decide(g, "search", {"budget": 16}) == a
    assert decide(g, "search", {"budget": 16, "last_claims": 0}) == planner_pick


def test_outcome_is_the_margin_clipped_plus_win_points_or_the_win():
    g, me, winning = last_turn_position()
    h = g.copy()
    h.apply(decide(g, "search", {"budget": 16, "claims": 40}))        # wins by 7
    assert outcome(h.state, me, True) == 1.0 and outcome(h.state, 1 - me, True) == 0.0
    assert outcome(h.state, me, False) == 7.0 and outcome(h.state, 1 - me, False) == -7.0
    assert outcome(h.state, me, False, 5.0) == 5.0 and outcome(h.state, 1 - me, False, 5.0) == -5.0
    assert outcome(h.state, me, False, 5.0, 20.0) == 25.0 and outcome(h.state, 1 - me, False, 0.0, 20.0) == -7.0


def test_the_policys_pick_stays_unless_an_alternative_clearly_beats_it():
    """At a setup keep (every keep set a candidate) an alternative needs a
    paired gain above ``z`` standard errors: with ``z`` huge the planner's
    keep stays; with the keeps not searched it is the planner's at no cost."""
    for seed in range(3):
        g = Game("usa", 4, seed=seed)
        assert g.phase == "setup-keep"
        pick = decide(g, "planner")
        assert decide(g, "search", {"budget": 8, "z": 100}) == pick      # z's largest value
        assert decide(g, "search", {"keeps": 0}) == pick


def test_determinization_keeps_what_the_seat_sees_and_deals_the_rest():
    rng = np.random.default_rng(0)
    for rules, players, turns in (("usa", 4, 40), ("germany", 3, 40), ("usa-mega", 5, 40), ("europe", 3, 40),
                                  ("europe", 4, 0)):
        g = Game(rules, players, seed=5)
        while not g.over and g.turn < turns:
            acts = g.legal_actions()
            g.apply(acts[rng.integers(len(acts))])
        s = g.state
        me = int(s.meta[M_PLAYER])
        d = copy_state(s)
        determinize(g.board, s, me, d, np.array([9], np.uint64))
        for field in ("meta", "discard", "faceup", "trains", "score", "route_owner", "tk_len", "offer_n",
                      "pass_loc", "pass_player", "tunnel_held", "tunnel_shown", "stations_left", "station_owner"):
            assert np.array_equal(getattr(d, field), getattr(s, field)), field
        assert np.array_equal(d.hand[me], s.hand[me]) and np.array_equal(d.offer[me], s.offer[me])
        assert np.array_equal(d.hand.sum(axis=1), s.hand.sum(axis=1))
        n = int(s.meta[M_DECK_N])
        cards = np.bincount(d.deck[:n], minlength=9) + d.hand.sum(axis=0) + d.discard
        cards += np.bincount(d.faceup[d.faceup >= 0], minlength=9)
        assert np.array_equal(cards, g.board.card_counts)                       # every card once
        assert np.array_equal(d.ticket_holder == me, s.ticket_holder == me)
        deck = g.board.ticket_deck
        for q in range(players):
            for pile in range(-1, len(s.tk_len)):          # -1: Europe's long tickets (R8.1)
                assert ((d.ticket_holder == q) & (deck == pile)).sum() == ((s.ticket_holder == q) & (deck == pile)).sum()
                assert (deck[d.offer[q, :d.offer_n[q]]] == pile).sum() == (deck[s.offer[q, :s.offer_n[q]]] == pile).sum()
        seen = list(np.flatnonzero(d.ticket_holder >= 0)) + [int(t) for t in d.offer[d.offer >= 0]]
        assert set(seen) - set(np.flatnonzero(deck >= 0)) <= set(g.board.long_tickets.tolist())
        for pile in range(len(s.tk_len)):
            live = [int(d.tk_buf[pile, (d.tk_head[pile] + i) % d.tk_buf.shape[1]]) for i in range(d.tk_len[pile])]
            assert all(deck[t] == pile for t in live)
            seen += live
        in_play = sorted(t for t in seen if deck[t] >= 0)
        real = list(np.flatnonzero(s.ticket_holder >= 0)) + [int(t) for t in s.offer[s.offer >= 0]]
        real += [int(s.tk_buf[p, (s.tk_head[p] + i) % s.tk_buf.shape[1]]) for p in range(len(s.tk_len))
                 for i in range(s.tk_len[p])]
        assert len(set(in_play)) == len(in_play) <= int((deck >= 0).sum())      # every ticket at most once
        # as many in play as in the game: the others went back in the box at setup (R2.2, Europe)
        assert len(in_play) == len([t for t in real if deck[t] >= 0])
        assert len(seen) == len(set(seen))
        e = copy_state(s)
        determinize(g.board, s, me, e, np.array([10], np.uint64))
        assert not np.array_equal(d.deck[:n], e.deck[:n])                         # another deal


def test_search_games_repeat_and_differ_from_the_planners():
    g = Game("usa", 2, seed=0)
    ids = np.array([strategy_id("search"), strategy_id("planner")], np.int64)
    params = np.stack([param_row("search", {"budget": 6}), param_row("planner")])
    a = play_finals(g.board, 2, np.array([1, 2]), ids, params)
    b = play_finals(g.board, 2, np.array([1, 2]), ids, params)
    assert np.array_equal(a, b)
    # racing, greedy opponents in the rollouts, a growing end-game budget: the same again
    params[0] = param_row("search", {"budget": 6, "race": 1, "opp_rollout": 2, "growth": 1, "clip": 20})
    a2 = play_finals(g.board, 2, np.array([1, 2]), ids, params)
    assert np.array_equal(a2, play_finals(g.board, 2, np.array([1, 2]), ids, params))
    planners = np.array([strategy_id("planner")] * 2, np.int64)
    c = play_finals(g.board, 2, np.array([1, 2]), planners, np.stack([param_row("planner")] * 2))
    assert not np.array_equal(a, c)


def test_search_tables_are_the_same_on_one_or_two_workers_and_any_chunks(tmp_path):
    """Deterministic (issue 11): the same experiment with a search seat gives
    identical tables on 1 and 2 workers and two chunk sizes."""
    exp = {"name": "det", "rules": "usa", "players": 2, "games": 8, "seed": 4,
           "lineup": [{"strategy": "search", "params": {"budget": 2, "middle": 2, "middle_budget": 2}}, "planner"]}
    one = run_experiment({**exp, "workers": 1, "chunk_size": 4}, output=tmp_path / "one", progress=False, echo=False)
    two = run_experiment({**exp, "workers": 2, "chunk_size": 2}, output=tmp_path / "two", progress=False, echo=False)
    assert one.status == two.status == "complete"
    assert_same_tables(one.path, two.path)


def deal_outcomes(g, m, cands, overrides, seed):
    """One deal of ``search`` (``_play_deal``) for the seat to act in ``g``,
    with table memory ``m``: the :data:`~ttrsim.strategies.search.Rollouts`
    record with the outcomes of ``cands`` (planner rollouts, parameters
    ``overrides``), the deal drawn from stream state ``seed``."""
    b, s = g.board, g.state
    me = int(s.meta[M_PLAYER])
    m.rng[me] = seed
    params = search.by_players(np.tile(param_row("search", overrides), (g.n_players, 1)), me, g.n_players)
    policies = np.full(g.n_players, PLANNER, np.int64)
    ro = search.Rollouts(policies, search.rollout_params(policies, params, me), params, fresh_memory(g),
                         legal_buffer(b), np.zeros(1, np.uint64), np.zeros((len(cands), 1)), fresh_memory(g))
    search._play_deal(b, s, m, me, np.array(cands, np.int64), np.arange(1, len(cands)), ro, 0)
    return ro


def test_a_deals_candidates_start_from_the_plans_made_once_on_the_deal():
    """``share_plans`` (the default): on a main-phase deal the other planner
    seats make their plans once and the searching seat brings the plan of
    this decision from the table's memory (the rows each candidate's rollout
    starts from hold a plan for every seat; without it, nothing), and the
    rollouts stay paired: one candidate played three times scores the same
    three times, shared or not, on every deal."""
    g = setup_game("usa", 4, seed=5)
    m = fresh_memory(g)
    for _ in range(30):
        g.apply(decide(g, "planner", memory=m))
    assert g.phase == "main"
    me = int(g.state.meta[M_PLAYER])
    a = decide(g, "planner", memory=m)          # the seat's plan of this decision, in m
    for share in (1, 0):
        for seed in (7, 8, 9):
            ro = deal_outcomes(g, m, [a, a, a], {"share_plans": share}, seed)
            assert ro.vals[0, 0] == ro.vals[1, 0] == ro.vals[2, 0]
            assert (ro.saved.numbers[:, 0] == share).all()        # a remembered plan's key starts with 1
            if share:
                assert np.array_equal(ro.saved.route_numbers[me], m.route_numbers[me])


def search_candidates(g, overrides):
    """``search``'s candidates for the seat to act in ``g`` (the policy's pick
    first), with the player-count defaults applied as ``search.choose`` does."""
    buf = legal_buffer(g.board)
    n_legal = dispatch.legal_for(strategy_id("search"), g.board, g.state, buf)
    cands = np.empty(n_legal + g.board.route_len.shape[0] + 4, np.int64)
    me = int(g.state.meta[M_PLAYER])
    params = search.by_players(np.tile(param_row("search", overrides), (g.n_players, 1)), me, g.n_players)
    rparams = search.rollout_params(np.full(g.n_players, PLANNER), params, me)
    n = search.candidates(g.board, g.state, fresh_memory(g), buf, n_legal, PLANNER, rparams, me, params, cands)
    return [int(a) for a in cands[:n]]


def test_the_rollouts_play_the_planners_fitted_set_for_the_rule_set():
    """The ``rollout_`` parameters default to the planner's fitted set of the
    rule set and player count; the rollout table seats the planner with them
    (an explicit value wins), other policies with their defaults."""
    for preset, players in (("usa-mega", 2), ("germany", 4), ("usa", 4)):
        planner_row = param_row("planner", rules=preset, players=players)
        row = param_row("search", rules=preset, players=players)
        for k in search.ROLLOUT_KEYS:
            assert row[search.SPEC.index(f"rollout_{k}")] == planner_row[planner.SPEC.index(k)]
    row = param_row("search", {"rollout_turn_value": 5.5}, rules="usa-mega", players=2)
    policies = np.array([PLANNER, GREEDY])
    out = search.rollout_params(policies, np.tile(row, (2, 1)), 0)
    fitted = param_row("planner", rules="usa-mega", players=2)
    assert out[0, planner.SPEC.index("turn_value")] == 5.5
    assert out[0, planner.SPEC.index("tk_globe")] == fitted[planner.SPEC.index("tk_globe")] != 1.0
    assert np.array_equal(out[1], param_row("greedy"))
    assert param_row("search")[search.SPEC.index("rollout_tk_globe")] == 1.0        # no rule set: the defaults


def test_a_ticket_draw_is_a_candidate_whenever_the_planner_values_it_within_the_gate():
    """The planner's value of a ticket draw is linear in its ``draw_value0``:
    set (through ``rollout_draw_value0``) so that the draw is worth -3 margin
    points, it is a candidate with ``ticket_gate`` 6 and not with 2 (nor 0);
    worth +3, it is the policy's own pick, listed once."""
    g = setup_game("usa", 4, seed=2)
    b, s = g.board, g.state
    me = int(s.meta[M_PLAYER])
    buf = legal_buffer(b)
    n_legal = dispatch.legal_for(strategy_id("search"), b, s, buf)
    p_d0 = planner.SPEC.index("draw_value0")

    def value(d0):
        params = np.tile(param_row("search", {"rollout_draw_value0": d0}), (4, 1))
        pparams = search.rollout_params(np.full(4, PLANNER), params, me)
        return planner.ticket_draw_value(b, s, fresh_memory(g), buf, n_legal, pparams, me, -100.0)

    d0 = planner.SPEC.params[p_d0].default
    rest = value(d0) - d0
    assert -100 < value(d0) < 100 and abs(value(d0 + 1.0) - (rest + d0 + 1.0)) < 1e-9

    def draws(cands):
        return [a for a in cands if A_TICKETS <= a < A_KEEP]

    below = -3.0 - rest                                         # draw_value0 making the draw worth -3
    gated = search_candidates(g, {"rollout_draw_value0": below, "ticket_gate": 6})
    assert not A_TICKETS <= gated[0] < A_KEEP and len(draws(gated)) == 1
    assert draws(search_candidates(g, {"rollout_draw_value0": below, "ticket_gate": 2})) == []
    assert draws(search_candidates(g, {"rollout_draw_value0": below, "ticket_gate": 0})) == []
    own = search_candidates(g, {"rollout_draw_value0": 3.0 - rest, "ticket_gate": 6})
    assert A_TICKETS <= own[0] < A_KEEP and len(draws(own)) == 1
    s.meta[M_COUNTDOWN] = 2                                     # the last round (R6.1): never
    assert draws(search_candidates(g, {"rollout_draw_value0": below, "ticket_gate": 6})) == []


def test_the_gated_ticket_draw_is_the_draw_the_planner_valued():
    """Germany (two ticket piles, R2.3/R5.1): the gate's candidate is the draw
    the planner's value is of and that it takes itself, every ticket from the
    short pile (:func:`planner.valued_draw`), not its long/short mix of the
    setup and of ``planner_classic`` (``draw_long``: one long ticket while it
    holds ``draw_long_trains`` trains, as here)."""
    g = setup_game("germany", 2, seed=3)
    b, s = g.board, g.state
    me = int(s.meta[M_PLAYER])
    buf = legal_buffer(b)
    n_legal = dispatch.legal_for(strategy_id("search"), b, s, buf)
    params = np.tile(param_row("search", {"rollout_draw_value0": 0.0}), (2, 1))
    pparams = search.rollout_params(np.full(2, PLANNER), params, me)
    rest = planner.ticket_draw_value(b, s, fresh_memory(g), buf, n_legal, pparams, me, -100.0)
    valued = planner.valued_draw(b, s, buf, n_legal)
    mixed = planner.mix_choice(b, s, buf, n_legal, pparams, me)
    assert s.trains[me] >= pparams[me, planner.SPEC.index("draw_long_trains")] and valued != mixed

    def draws(cands):
        return [a for a in cands if A_TICKETS <= a < A_KEEP]

    assert draws(search_candidates(g, {"rollout_draw_value0": -3.0 - rest, "ticket_gate": 6})) == [valued]
    own = search_candidates(g, {"rollout_draw_value0": 3.0 - rest, "ticket_gate": 6})
    assert own[0] == valued and draws(own) == [valued]


def test_keep_sets_caps_the_keep_candidates_to_the_planners_best():
    for seed in range(3):
        g = Game("usa", 4, seed=seed)
        keeps = [a for a in g.legal_actions() if A_KEEP <= a < A_PASSENGER]
        assert len(search_candidates(g, {})) == len(keeps)                 # every keep set
        best = search_candidates(g, {"keep_sets": 2})
        assert len(best) == 2 and best[0] == decide(g, "planner") and best[1] in keeps


def test_the_last_round_and_the_last_trains_search_every_payable_claim():
    g, me, winning = last_turn_position()                       # R6.1: the last round
    wide = search_candidates(g, {"last_claims": 40})
    claims = [a for a in wide if a >= A_CLAIM]
    payable = {a for a in g.legal_actions() if a >= A_CLAIM}
    assert len(claims) > 2 and set(claims) <= payable
    assert len({decode_claim(a)[0] for a in claims}) == len(claims) > 10                  # a claim a route
    assert any(decode_claim(a)[0] == winning for a in claims)
    assert len([a for a in search_candidates(g, {"last_claims": 0}) if a >= A_CLAIM]) <= 2
    g.state.meta[M_COUNTDOWN] = -1                              # before the last round, 5 trains left to a seat
    g.state.trains[1 - me] = 5
    assert search_candidates(g, {"last_claims": 40, "last_trains": 6}) == wide
    assert search_candidates(g, {"last_claims": 40, "last_trains": 4}) == search_candidates(g, {"last_claims": 0})


def test_the_middle_game_claims_only_and_only_when_contested():
    g = setup_game("usa", 4, seed=2)                    # first main-phase turn: no route is claimed
    pick = decide(g, "planner")
    claims = search_candidates(g, {"middle": 3})
    assert claims[0] == pick and len(claims) > 1 and all(a >= A_CLAIM for a in claims[1:])
    assert search_candidates(g, {"middle": 3, "contested": 1}) == [pick]          # nothing contested yet
    assert len(search_candidates(g, {"middle": 2})) > len(claims)                  # + draw and ticket draw


def test_a_route_is_contested_when_another_seat_touches_it_and_no_parallel_stays_open():
    g = setup_game("usa", 4, seed=2)
    s, me = g.state, int(g.state.meta[M_PLAYER])
    sp = [r for r in range(g.map.n_routes)
          if {g.map.node_names[g.map.route_a[r]], g.map.node_names[g.map.route_b[r]]} == {"Seattle", "Portland"}]
    single = np.array([encode_claim(route_id(g, "Winnipeg", "Helena"), 0, 0)], np.int64)
    double = np.array([encode_claim(sp[0], 0, 0)], np.int64)
    s.route_owner[:] = -1
    assert not search._contested(g.board, s, me, single, 1)
    s.route_owner[route_id(g, "Calgary", "Helena")] = me                 # its own route: no contest
    assert not search._contested(g.board, s, me, single, 1)
    s.route_owner[route_id(g, "Calgary", "Helena")] = (me + 1) % 4
    assert search._contested(g.board, s, me, single, 1)
    s.route_owner[route_id(g, "Seattle", "Vancouver")] = (me + 1) % 4
    assert not search._contested(g.board, s, me, double, 1)             # 4 players: the parallel stays open
    s.route_owner[sp[1]] = (me + 2) % 4
    assert search._contested(g.board, s, me, double, 1)


def test_player_count_defaults_apply_only_where_left_at_their_default():
    """``infer`` (and every :data:`~ttrsim.strategies.search.BY_PLAYERS`
    parameter) left at -1 takes its value for the player count; an explicit
    value wins whatever the count."""
    p_infer = search.SPEC.index("infer")
    for n_players, infer in ((2, 1.0), (3, 0.0), (4, 0.0)):
        params = np.tile(param_row("search"), (n_players, 1))
        assert params[0, p_infer] == -1
        out = search.by_players(params, 0, n_players)
        assert out[0, p_infer] == infer and params[0, p_infer] == -1            # a copy, the table is left alone
        explicit = np.tile(param_row("search", {"infer": 0.5}), (n_players, 1))
        assert search.by_players(explicit, 0, n_players)[0, p_infer] == 0.5


def blocking_position():
    """USA, 2 players, the end game (25 trains each, no route claimed): the
    other seat's one ticket is Denver-El Paso and the seat to act holds every
    other ticket, so every determinization deals the other seat that ticket
    (and its plan is the one it makes on the real state). The seat to act
    holds 6 red cards and 2 locomotives."""
    g = setup_game("usa", 2, seed=3)
    s = g.state
    me = int(s.meta[M_PLAYER])
    s.route_owner[:] = -1
    s.score[:] = 0
    s.trains[:] = 25
    theirs = ticket_id(g, "Denver", "El Paso")
    s.ticket_holder[:] = me
    s.ticket_holder[theirs] = 1 - me
    s.tk_len[:] = 0
    put_hand(g, me, {RED: 6, LOCO: 2})
    return g, me


def test_blocking_candidates_take_a_route_on_the_other_seats_plan():
    """On every determinization the other seat's plan is a path from Denver
    to El Paso (through its dealt hand's cheapest colours); a blocking
    candidate claims a route on those plans, the one on most of them."""
    g, me = blocking_position()
    b, m = g.board, g.map
    pparams = policy_params(PLANNER, 2)
    need = np.zeros(b.route_len.shape[0])
    params = search.by_players(np.tile(param_row("search", {"block_deals": 3}), (2, 1)), me, 2)
    others_plans(b, g.state, fresh_memory(g), me, params[me, search.P_INFER], pparams, 3, need)
    ends = {r: {m.node_names[m.route_a[r]], m.node_names[m.route_b[r]]} for r in range(m.n_routes)}
    for city in ("Denver", "El Paso"):       # each plan leaves each end of the ticket by one route
        assert sum(need[r] for r in range(m.n_routes) if city in ends[r]) == 3
    in_plan = main_phase_plan(b, g.state, fresh_memory(g), pparams, 1 - me)[2]
    assert all(need[r] > 0 for r in np.flatnonzero(in_plan))      # the real deal's plan is one of them
    base = search_candidates(g, {"block": 0})
    blocked = search_candidates(g, {"block": 1})
    assert blocked[:len(base)] == base and len(blocked) == len(base) + 1
    r = decode_claim(blocked[-1])[0]
    assert need[r] == max(need[decode_claim(a)[0]] for a in g.legal_actions() if a >= A_CLAIM) > 0
    assert blocked[-1] in g.legal_actions()
    two = search_candidates(g, {"block": 2})
    assert two[:len(blocked)] == blocked and len(two) <= len(blocked) + 1
    assert all(need[decode_claim(a)[0]] > 0 for a in two[len(base):])
    assert search_candidates(g, {}) == blocked               # 2 players: one blocking candidate by default


def test_blocking_is_a_two_player_default():
    p_block = search.SPEC.index("block")
    for n_players, block in ((2, 1.0), (3, 0.0), (4, 0.0)):
        params = np.tile(param_row("search"), (n_players, 1))
        assert params[0, p_block] == -1 and search.by_players(params, 0, n_players)[0, p_block] == block
        explicit = np.tile(param_row("search", {"block": 0}), (n_players, 1))
        assert search.by_players(explicit, 0, n_players)[0, p_block] == 0
