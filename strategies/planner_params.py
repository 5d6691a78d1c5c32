"""The planner's parameters: one table giving both parameter sets, ``planner``
and ``passenger_hunter`` (the same kernel), and the column of each parameter
in a row, ``P_<NAME> = SPEC.index("name")`` (derived from the table, so the
two cannot drift; ``tests/test_strategy_api.py`` checks every module's
``P_*`` names against its spec).
"""
from .spec import Param, StrategySpec

# (name, planner default, passenger_hunter default, doc); the row order is the params order
_TABLE = (
    ("keep_margin", 10.0, 8.0, "a ticket set fits if its plan needs at most trains left minus this"),
    ("turn_value", 3.5, 3.5, ("points a turn is worth elsewhere: a keep set is valued ticket points + its plan's "
                             "route points - this x turns the plan needs")),
    ("pace", 1.2, 1.2, "trains another seat is assumed to lay per turn at least (estimate of turns left)"),
    ("play_pace", 0.0, 0.0, ("the pace for giving up tickets in play that probably miss the end; 0 = never "
                            "(only tickets it has no trains for)")),
    ("draw_plan_left", 0.0, 0.0, "draw tickets only when the plan has at most this many trains to claim"),
    ("draw_min_trains", 20.0, 20.0, "draw tickets only with at least this many trains"),
    ("draw_min_opp", 22.0, 20.0, "draw tickets only while every other seat has at least this many trains"),
    ("end_trains", 6.0, 6.0, "near-end mode once some seat has at most this many trains"),
    ("w_detour", 1.0, 1.0, "claim priority per train of detour if the route is lost"),
    ("detour_cap", 12.0, 12.0, "detour counted at most (also for a route without any detour)"),
    ("w_adjacent", 2.0, 2.0, "claim priority per other player's route touching the route's ends"),
    ("double_factor", 0.35, 0.35, "risk scale when a parallel track stays open to the others"),
    ("w_single", 3.0, 3.0, "claim priority of a route with no open parallel track"),
    ("w_long", 0.2, 0.2, "claim priority per train of route length"),
    ("loco_value", 1.3, 1.3, "a face-up locomotive is taken if worth more than the best two other draws (cards)"),
    ("loco_pay", 8.0, 8.0, ("payment cost of one locomotive, in cards the rest of the plan lacks afterwards; "
                           "also the priority lost per card a claim takes from the rest of the plan")),
    ("draw_over_claim", 1.0, 1.0, ("draws instead of claiming a plan route when this x the draw's value (cards) "
                                  "beats the route's priority less loco_pay per card the payment takes from the "
                                  "rest of the plan (not near the end)")),
    ("spare_trains", 3.0, 3.0, "near the end, off-plan claims keep the plan's trains plus this many"),
    ("free_min_len", 3.0, 2.0, "with no plan, claim only routes at least this long (except near the end)"),
    ("claim_turn_cost", 1.0, 1.0, "plan search cost of a route: length + this (a claim takes a turn) ..."),
    ("card_weight", 0.1, 0.1, "... + this per card the route misses with the hand held now ..."),
    ("hoard_cards", 12.0, 12.0, "... + hoard_weight more per missing card and per card held above this ..."),
    ("hoard_weight", 0.1, 0.1, "... (a big hand steers the plan to routes it can pay) ..."),
    ("points_weight", 0.5, 0.5, "... - this x route points (long routes score more per train)"),
    ("pass_weight", 0.5, 2.0, "Germany: weight of passenger-majority value (points) in route choices"),
    ("pass_offplan", 12.0, 6.0, "Germany: claim an off-plan route when its weighted passenger value reaches this"),
    ("pass_path", 0.05, 0.2, "Germany: plan search cost lowered by this per point of passenger value"),
    ("setup_long", 1.0, 0.0, "Germany: long tickets in the setup deal (the rest short)"),
    ("draw_long", 1.0, 0.0, "Germany: long tickets in a later draw, with at least draw_long_trains trains"),
    ("draw_long_trains", 25.0, 30.0, "Germany: take long tickets in a draw only with this many trains"),
    ("deny", 1.0, 1.0, "passenger colour choice: weight of the others' majority points lost"),
    ("lookahead", 0.5, 0.7, "passenger colour choice: weight of a second passenger's gain"),
)

SPEC = StrategySpec(
    "planner",
    "ttrsim's planner: keeps tickets whose joint Steiner plan fits, claims the plan's most contested routes "
    "first, draws the colours it lacks, converts cards into points at the end; values passengers (Germany)",
    params=tuple(Param(name, d, doc) for name, d, _, doc in _TABLE),
    lists_claims=False,
)
PASSENGER_HUNTER_SPEC = StrategySpec(
    "passenger_hunter",
    "the planner kernel tuned for Germany passenger majorities: few tickets, plans through passenger cities, "
    "claims off-plan routes for passengers",
    params=tuple(Param(name, h, doc) for name, _, h, doc in _TABLE),
    lists_claims=False,
)

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
