"""The planner's parameters: one table giving both parameter sets, ``planner``
and ``passenger_hunter`` (the same kernel), and the column of each parameter
in a row, ``P_<NAME> = SPEC.index("name")`` (derived from the table, so the
two cannot drift; ``tests/strategies/test_strategy_api.py`` checks every module's
``P_*`` names against its spec).
"""
from ..spec import BOOL, FACTOR, LONG_TICKETS, MARGIN, TRAINS, WEIGHT, Param, StrategySpec

# (name, planner, passenger_hunter, planner_classic, doc); the row order is the params order. planner_classic
# is the planner as it was before the ticket values (ticket_ev = 0) and the tuned defaults.
_TABLE = (
    ("keep_margin", 6.0, 8.0, 10.0, "a ticket set fits if its plan needs at most trains left minus this"),
    ("turn_value", 3.5, 3.5, 3.5, ("points a turn is worth elsewhere: a keep set is valued ticket points + its plan's "
                                   "route points - this x turns the plan needs")),
    ("pace", 1.2, 1.2, 1.2, "trains another seat is assumed to lay per turn at least (estimate of turns left)"),
    ("play_pace", 0.0, 0.0, 0.0, ("the pace for giving up tickets in play that probably miss the end; 0 = never "
                                  "(only tickets it has no trains for)")),
    ("draw_plan_left", 0.0, 0.0, 0.0, "draw tickets only when the plan has at most this many trains to claim"),
    ("draw_min_trains", 20.0, 20.0, 20.0, "draw tickets only with at least this many trains"),
    ("draw_min_opp", 13.2, 20.0, 22.0, "draw tickets only while every other seat has at least this many trains"),
    ("end_trains", 6.0, 6.0, 6.0, "near-end mode once some seat has at most this many trains"),
    ("w_detour", 0.6, 1.0, 1.0, "claim priority per train of detour if the route is lost"),
    ("detour_cap", 12.0, 12.0, 12.0, "detour counted at most (also for a route without any detour)"),
    ("w_adjacent", 2.0, 2.0, 2.0, "claim priority per other player's route touching the route's ends"),
    ("double_factor", 0.35, 0.35, 0.35, "risk scale when a parallel track stays open to the others"),
    ("w_single", 3.0, 3.0, 3.0, "claim priority of a route with no open parallel track"),
    ("w_long", 0.2, 0.2, 0.2, "claim priority per train of route length"),
    ("loco_value", 0.78, 1.3, 1.3, "a face-up locomotive is taken if worth more than the best two other draws (cards)"),
    ("loco_pay", 8.0, 8.0, 8.0, ("payment cost of one locomotive, in cards the rest of the plan lacks afterwards; "
                                 "also the priority lost per card a claim takes from the rest of the plan")),
    ("draw_over_claim", 1.0, 1.0, 1.0, ("draws instead of claiming a plan route when this x the draw's value (cards) "
                                        "beats the route's priority less loco_pay per card the payment takes from the "
                                        "rest of the plan (not near the end)")),
    ("spare_trains", 3.0, 3.0, 3.0, "near the end, off-plan claims keep the plan's trains plus this many"),
    ("free_min_len", 3.5, 2.0, 3.0, "with no plan, claim only routes at least this long (except near the end)"),
    ("claim_turn_cost", 1.0, 1.0, 1.0, "plan search cost of a route: length + this (a claim takes a turn) ..."),
    ("card_weight", 0.1, 0.1, 0.1, "... + this per card the route misses with the hand held now ..."),
    ("hoard_cards", 18.0, 12.0, 12.0, "... + hoard_weight more per missing card and per card held above this ..."),
    ("hoard_weight", 0.1, 0.1, 0.1, "... (a big hand steers the plan to routes it can pay) ..."),
    ("points_weight", 0.5, 0.5, 0.5, "... - this x route points (long routes score more per train)"),
    ("pass_weight", 0.4, 2.0, 0.5, "Germany: weight of passenger-majority value (points) in route choices"),
    ("pass_offplan", 6.0, 6.0, 12.0, "Germany: claim an off-plan route when its weighted passenger value reaches this"),
    ("pass_path", 0.05, 0.2, 0.05, "Germany: plan search cost lowered by this per point of passenger value"),
    ("setup_long", 1.0, 0.0, 1.0, "Germany: long tickets in the setup deal (the rest short)"),
    ("draw_long", 1.0, 0.0, 1.0, "Germany: long tickets in a later draw, with at least draw_long_trains trains"),
    ("draw_long_trains", 25.0, 30.0, 25.0, "Germany: take long tickets in a draw only with this many trains"),
    ("deny", 1.0, 1.0, 1.0, "passenger colour choice: weight of the others' majority points lost"),
    ("lookahead", 0.5, 0.7, 0.5, "passenger colour choice: weight of a second passenger's gain"),
    ("ticket_ev", 1.0, 0.0, 0.0, ("1: in-game ticket draws and keeps by expected value (module planner_tickets.py); "
                                  "0: the classic thresholds draw_plan_left, draw_min_trains, draw_min_opp")),
    ("tk_left_factor", 0.8, 0.8, 0.8, "ticket values: turns left estimated as this x the pace estimate (a fit)"),
    ("tk_turns_factor", 1.2, 1.2, 1.2, "ticket values: turns a plan needs, as this x its card-and-claim count"),
    ("tk_turns_per_train", 0.75, 0.75, 0.75, "ticket values: turns per train of a new ticket's extension"),
    ("tk_p0", 7.3, 7.3, 7.3, "completion probability logit: constant ..."),
    ("tk_p_slack", 0.072, 0.072, 0.072, "... + this per turn of slack (turns left - turns the plan needs) ..."),
    ("tk_p_len", -0.378, -0.378, -0.378, "... + this per train the ticket still needs on its own ..."),
    ("tk_p_turn", -0.152, -0.152, -0.152, "... + this per own turn played (fit on planner games)"),
    ("tk_train_cost", 1.0, 1.0, 1.0, "ticket values: points lost per train a kept ticket adds to the plan"),
    ("tk_globe", 1.0, 0.0, 0.0, ("ticket values: the Globetrotter (R6.6) a ticket moves, counted as this x the "
                                 "bonus's points x the rise in the chance of the most completed tickets that one "
                                 "more completed ticket gives, from the counts the seat can see (keeps and draws)")),
    ("tk_globe_rate", 0.85, 0.85, 0.85, ("... the share of a seat's unfinished tickets expected to be completed "
                                          "(its own and each opponent's: the others' tickets are hidden)")),
    ("tk_globe_spread", 1.0, 1.0, 1.0, ("... the spread (tickets) of a count difference: the chance of the most is a "
                                        "product of logistics of (own - other + 0.5) / this")),
    ("tk_longest", 1.0, 0.0, 0.0, ("ticket values: the longest-path bonus (R6.5) a ticket moves, counted as this x "
                                   "the bonus's points x the rise in the chance of the longest path that one more "
                                   "train of it gives, against the public paths (keeps and draws)")),
    ("tk_longest_grow", 0.5, 0.5, 0.5, ("... each seat's path projected as its public path + this x the trains it "
                                        "still holds")),
    ("tk_longest_spread", 0.25, 0.25, 0.25, ("... the spread (trains) of a path difference: 2 + this x the trains "
                                             "the seats still hold on average")),
    ("draw_value0", -13.35, -13.35, -13.35, ("value of a ticket draw in margin points: this constant + "
                                             "draw_value_slack x turns of slack + draw_value_ev x the expected best "
                                             "keep of an offer")),
    ("draw_value_slack", 0.72, 0.72, 0.72, "... (the three draw_value weights are fit on forked planner games)"),
    ("draw_value_ev", 0.29, 0.29, 0.29, "... a draw is taken when the value is positive"),
)

# each parameter's type and range (see .spec: the widest whose values mean something), by kind of quantity
_RANGES = {
    **dict.fromkeys(("keep_margin", "spare_trains"), MARGIN),
    # trains: thresholds compared with the trains a seat holds, paces (trains a turn), a detour, a route length
    **dict.fromkeys(("pace", "play_pace", "draw_plan_left", "draw_min_trains", "draw_min_opp", "end_trains",
                     "detour_cap", "free_min_len", "draw_long_trains"), TRAINS),
    "hoard_cards": ("float", 0, 1000),            # cards in a hand (a rule set has at most 900)
    **dict.fromkeys(("setup_long", "draw_long"), LONG_TICKETS),
    "ticket_ev": BOOL,
    # costs and factors that are never negative (turns, payments, multipliers of turns and bonuses)
    **dict.fromkeys(("turn_value", "loco_pay", "draw_over_claim", "tk_left_factor", "tk_turns_factor",
                     "tk_turns_per_train", "tk_globe", "tk_longest", "tk_longest_spread"), FACTOR),
    "tk_globe_rate": ("float", 0, 1),
    "tk_longest_grow": ("float", 0, 1),
    "tk_globe_spread": ("float", 0, 1000, True),
    # weights of either sign: claim priorities, plan search costs (kept at least a fifth of the length),
    # passenger values, the completion logit and the draw value fits
    **dict.fromkeys(("w_detour", "w_adjacent", "double_factor", "w_single", "w_long", "loco_value",
                     "claim_turn_cost", "card_weight", "hoard_weight", "points_weight", "pass_weight",
                     "pass_offplan", "pass_path", "deny", "lookahead", "tk_p0", "tk_p_slack", "tk_p_len",
                     "tk_p_turn", "tk_train_cost", "draw_value0", "draw_value_slack", "draw_value_ev"), WEIGHT),
}
assert set(_RANGES) == {row[0] for row in _TABLE}, "every planner parameter has one range"

SPEC = StrategySpec(
    "planner",
    "ttrsim's planner: keeps tickets whose joint Steiner plan fits, claims the plan's most contested routes "
    "first, draws the colours it lacks, converts cards into points at the end; values passengers (Germany)",
    params=tuple(Param(name, d, doc, *_RANGES[name]) for name, d, _, _, doc in _TABLE),
    lists_claims=False,
)
PASSENGER_HUNTER_SPEC = StrategySpec(
    "passenger_hunter",
    "the planner kernel tuned for Germany passenger majorities: few tickets, plans through passenger cities, "
    "claims off-plan routes for passengers",
    params=tuple(Param(name, h, doc, *_RANGES[name]) for name, _, h, _, doc in _TABLE),
    lists_claims=False,
)
CLASSIC_SPEC = StrategySpec(
    "planner_classic",
    "the planner before ticket values and tuned defaults (as in results made before it): fixed ticket-draw "
    "thresholds; kept so old results can be reproduced",
    params=tuple(Param(name, c, doc, *_RANGES[name]) for name, _, _, c, doc in _TABLE),
    lists_claims=False,
)

# The planner's styles (issue 31 section 3): the same kernel and parameters, each fitted by `ttrsim tune` under a
# style constraint (docs/tune.md "Styles"); ``planner`` itself is the balanced style (fitted without one). The base
# values below only start a style's tune inside the style; the fitted sets (strategies/fitted.py) replace them.
STYLE_BASE = {
    "planner_tickets": ({"draw_value0": -5.0},
                        "the planner fitted as strong as it can be while keeping many tickets (the ticket-heavy "
                        "style; fitted sets in strategies/fitted.py)"),
    "planner_routes": ({"draw_value0": -40.0, "turn_value": 6.0},
                       "the planner fitted as strong as it can be while keeping few tickets (the route-heavy "
                       "style: no ticket draw after setup)"),
}
STYLE_SPECS = tuple(
    StrategySpec(name, text, params=tuple(Param(n, base.get(n, d), doc, *_RANGES[n]) for n, d, _, _, doc in _TABLE),
                 lists_claims=False)
    for name, (base, text) in STYLE_BASE.items())
# a style's name -> the strategy that plays it
STYLES = {"routes": "planner_routes", "balanced": "planner", "tickets": "planner_tickets"}

P_KEEP_MARGIN = SPEC.index("keep_margin")
P_TURN_VALUE = SPEC.index("turn_value")
P_PACE = SPEC.index("pace")
P_PLAY_PACE = SPEC.index("play_pace")
P_DRAW_PLAN_LEFT = SPEC.index("draw_plan_left")
P_DRAW_MIN_TRAINS = SPEC.index("draw_min_trains")
P_DRAW_MIN_OPP = SPEC.index("draw_min_opp")
P_END_TRAINS = SPEC.index("end_trains")
P_W_DETOUR = SPEC.index("w_detour")
P_DETOUR_CAP = SPEC.index("detour_cap")
P_W_ADJACENT = SPEC.index("w_adjacent")
P_DOUBLE_FACTOR = SPEC.index("double_factor")
P_W_SINGLE = SPEC.index("w_single")
P_W_LONG = SPEC.index("w_long")
P_LOCO_VALUE = SPEC.index("loco_value")
P_LOCO_PAY = SPEC.index("loco_pay")
P_DRAW_OVER_CLAIM = SPEC.index("draw_over_claim")
P_SPARE_TRAINS = SPEC.index("spare_trains")
P_FREE_MIN_LEN = SPEC.index("free_min_len")
P_CLAIM_TURN_COST = SPEC.index("claim_turn_cost")
P_CARD_WEIGHT = SPEC.index("card_weight")
P_HOARD_CARDS = SPEC.index("hoard_cards")
P_HOARD_WEIGHT = SPEC.index("hoard_weight")
P_POINTS_WEIGHT = SPEC.index("points_weight")
P_PASS_WEIGHT = SPEC.index("pass_weight")
P_PASS_OFFPLAN = SPEC.index("pass_offplan")
P_PASS_PATH = SPEC.index("pass_path")
P_SETUP_LONG = SPEC.index("setup_long")
P_DRAW_LONG = SPEC.index("draw_long")
P_DRAW_LONG_TRAINS = SPEC.index("draw_long_trains")
P_DENY = SPEC.index("deny")
P_LOOKAHEAD = SPEC.index("lookahead")
P_TICKET_EV = SPEC.index("ticket_ev")
P_TK_LEFT_FACTOR = SPEC.index("tk_left_factor")
P_TK_TURNS_FACTOR = SPEC.index("tk_turns_factor")
P_TK_TURNS_PER_TRAIN = SPEC.index("tk_turns_per_train")
P_TK_P0 = SPEC.index("tk_p0")
P_TK_P_SLACK = SPEC.index("tk_p_slack")
P_TK_P_LEN = SPEC.index("tk_p_len")
P_TK_P_TURN = SPEC.index("tk_p_turn")
P_TK_TRAIN_COST = SPEC.index("tk_train_cost")
P_TK_GLOBE = SPEC.index("tk_globe")
P_TK_LONGEST = SPEC.index("tk_longest")
P_TK_GLOBE_RATE = SPEC.index("tk_globe_rate")
P_TK_GLOBE_SPREAD = SPEC.index("tk_globe_spread")
P_TK_LONGEST_GROW = SPEC.index("tk_longest_grow")
P_TK_LONGEST_SPREAD = SPEC.index("tk_longest_spread")
P_DRAW_VALUE0 = SPEC.index("draw_value0")
P_DRAW_VALUE_SLACK = SPEC.index("draw_value_slack")
P_DRAW_VALUE_EV = SPEC.index("draw_value_ev")
