"""Fitted defaults: the parameters ``ttrsim tune`` fitted for a strategy on
one rule-set preset and player count, which the strategy plays there unless
an experiment sets them itself (issue 31, docs/strategies.md "Fitted
defaults").

Each set is the ``best.yaml`` of ``ttrsim tune experiments/<tune>.yaml``
(the tune starts from the strategy's own defaults, never from a fitted set,
so the file reproduces it). A preset or player count without a set of its
own plays the nearest fitted one (:func:`fitted_for` says which): the same
preset at the nearest fitted player count (ties: the larger), and a preset
without sets plays ``NEAREST_PRESET``'s.

>>> fitted_for("planner", "usa-bigcities", 3)[1]
'usa 4p (nearest fitted set)'
>>> fitted_for("random", "usa", 2)
({}, '')
>>> fitted_for("planner_tickets", "usa-1910", 3)[1]
'usa 4p (nearest fitted set)'
>>> fitted_for("search", "usa-mega", 2)[0]["rollout_tk_globe"]       # its rollouts' planner
1.449589
"""
from __future__ import annotations

# strategy -> (preset, players) -> (parameter values, the tune file that fits them)
FITTED: dict[str, dict[tuple[str, int], tuple[dict, str]]] = {
    "planner": {        # {} where the tune kept the defaults (no challenger beat them)
        ("usa", 2): ({"tk_longest": 0.94389, "tk_train_cost": 0.841468, "draw_value0": -20.433495},
            "experiments/tune_planner_usa_2p.yaml"),
        ("usa", 4): ({},
            "experiments/tune_planner_usa_4p.yaml"),
        ("usa-mega", 2): ({"tk_globe": 1.449589, "tk_longest": 0.817291, "tk_train_cost": 0.638305,
                           "draw_value0": -23.439261},
            "experiments/tune_planner_usa_mega_2p.yaml"),
        ("usa-mega", 4): ({"w_detour": 0.254655, "w_adjacent": 1.906915, "loco_value": 0.622374,
                           "turn_value": 3.678125, "tk_train_cost": 0.782593, "draw_value0": -15.062907,
                           "tk_globe": 0.65765, "tk_longest": 0.755251},
            "experiments/tune_planner_usa_mega_4p.yaml"),
        ("germany", 2): ({"pass_weight": 0.075554, "pass_offplan": 3.559185, "pass_path": 0.0, "deny": 1.555369,
                          "lookahead": 0.090633, "w_detour": 0.348263, "w_adjacent": 2.700769,
                          "loco_value": 0.607035, "turn_value": 4.644452, "tk_train_cost": 0.179561,
                          "draw_value0": -20.770529, "tk_globe": 1.127981},
            "experiments/tune_planner_germany_2p.yaml"),
        ("germany", 4): ({"w_detour": 0.964137, "w_adjacent": 4.0, "loco_value": 0.504108, "turn_value": 4.607392,
                          "tk_train_cost": 1.081882, "draw_value0": -19.283553, "tk_globe": 0.852385},
            "experiments/tune_planner_germany_4p.yaml"),
        ("europe", 2): ({"tk_longest": 1.630996, "tk_train_cost": 1.734486, "draw_value0": -19.805413},
            "experiments/tune_planner_europe_2p.yaml"),
        ("europe", 4): ({},
            "experiments/tune_planner_europe_4p.yaml"),
        ("usa-1910", 2): ({},
            "experiments/tune_planner_usa_1910_2p.yaml"),
        ("usa-1910", 4): ({},
            "experiments/tune_planner_usa_1910_4p.yaml"),
    },
    # the styles (docs/strategies.md "Styles"): fitted under a style constraint, from the style's base values
    # ({} where the tune kept the base values)
    "planner_tickets": {
        ("europe", 2): ({"draw_value0": -10.64644, "draw_value_ev": 0.506883,
                         "tk_train_cost": 1.108011, "tk_p0": 5.601215},
            "experiments/tune_planner_tickets_europe_2p.yaml"),
        ("europe", 4): ({"draw_value0": -7.133569, "draw_value_ev": 0.01564,
                         "tk_train_cost": 1.104826, "tk_p0": 6.161972},
            "experiments/tune_planner_tickets_europe_4p.yaml"),
        ("germany", 2): ({"draw_value0": -9.767698, "draw_value_ev": 0.261966,
                          "tk_train_cost": 1.831076, "tk_p0": 7.582673},
            "experiments/tune_planner_tickets_germany_2p.yaml"),
        ("germany", 4): ({"draw_value0": -10.280185, "draw_value_ev": 0.32725,
                          "tk_train_cost": 1.499616, "tk_p0": 4.882668},
            "experiments/tune_planner_tickets_germany_4p.yaml"),
        ("usa", 2): ({"draw_value0": -8.897495, "draw_value_ev": 0.614907,
                      "tk_train_cost": 1.209248, "tk_p0": 5.875903},
            "experiments/tune_planner_tickets_usa_2p.yaml"),
        ("usa", 4): ({"draw_value0": -7.386296, "draw_value_ev": 0.435325,
                      "tk_train_cost": 1.530021, "tk_p0": 7.302928},
            "experiments/tune_planner_tickets_usa_4p.yaml"),
        ("usa-mega", 2): ({"draw_value0": -10.022041, "draw_value_ev": 0.24951,
                           "tk_train_cost": 2.025638, "tk_p0": 5.622567},
            "experiments/tune_planner_tickets_usa_mega_2p.yaml"),
        ("usa-mega", 4): ({"draw_value0": -8.845701, "draw_value_ev": 0.365056,
                           "tk_train_cost": 1.668297, "tk_p0": 7.850513},
            "experiments/tune_planner_tickets_usa_mega_4p.yaml"),
    },
    "planner_routes": {
        ("europe", 2): ({"turn_value": 3.822018, "w_detour": 0.947789, "w_long": 0.225892, "tk_longest": 0.174542},
            "experiments/tune_planner_routes_europe_2p.yaml"),
        ("europe", 4): ({"turn_value": 4.661247, "w_detour": 0.971759, "w_long": 0.927062, "tk_longest": 1.549667},
            "experiments/tune_planner_routes_europe_4p.yaml"),
        ("germany", 2): ({},
            "experiments/tune_planner_routes_germany_2p.yaml"),
        ("germany", 4): ({},
            "experiments/tune_planner_routes_germany_4p.yaml"),
        ("usa", 2): ({"turn_value": 5.074132, "w_detour": 0.555161, "w_long": 0.600739, "tk_longest": 1.343814},
            "experiments/tune_planner_routes_usa_2p.yaml"),
        ("usa", 4): ({"turn_value": 4.629667, "w_detour": 0.0, "w_long": 0.226703, "tk_longest": 0.9835},
            "experiments/tune_planner_routes_usa_4p.yaml"),
        ("usa-mega", 2): ({"turn_value": 5.410506, "w_detour": 0.797531, "w_long": 0.566367, "tk_longest": 1.217168},
            "experiments/tune_planner_routes_usa_mega_2p.yaml"),
        ("usa-mega", 4): ({"turn_value": 4.85237, "w_detour": 0.095246, "w_long": 0.170697, "tk_longest": 1.091343},
            "experiments/tune_planner_routes_usa_mega_4p.yaml"),
    },
}

# a preset without fitted sets plays the sets of the preset whose board and scoring are closest
NEAREST_PRESET = {"usa-bigcities": "usa"}
# a strategy whose rollouts play another's fitted set, through its parameters ``rollout_<key>``
ROLLOUT_OF = {"search": "planner"}


def fitted_keys(strategy: str) -> tuple[str, ...]:
    """The parameters some fitted set of ``strategy`` sets, sorted.

    >>> fitted_keys("planner")[:3]
    ('deny', 'draw_value0', 'loco_value')
    """
    return tuple(sorted({k for values, _ in FITTED[strategy].values() for k in values}))


def fitted_for(strategy: str, rules: str | None, players: int | None) -> tuple[dict, str]:
    """The fitted parameter values of ``strategy`` on preset ``rules`` at
    ``players`` and where they come from (``"usa 2p"``, or ``"usa 4p
    (nearest fitted set)"``); ``({}, "")`` for a strategy without fitted
    sets or without a rule set and player count to look them up."""
    if strategy in ROLLOUT_OF:
        values, where = fitted_for(ROLLOUT_OF[strategy], rules, players)
        return {f"rollout_{k}": v for k, v in values.items()}, where
    sets = FITTED.get(strategy)
    if not sets or rules is None or players is None:
        return {}, ""
    preset = rules if any(r == rules for r, _ in sets) else NEAREST_PRESET.get(rules, "usa")
    counts = sorted(n for r, n in sets if r == preset)
    if not counts:
        return {}, ""
    n = min(counts, key=lambda c: (abs(c - players), -c))
    values, _ = sets[(preset, n)]
    exact = preset == rules and n == players
    return dict(values), f"{preset} {n}p" + ("" if exact else " (nearest fitted set)")
