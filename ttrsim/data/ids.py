"""Named small-int ids of the game's domain, with their name tables.

Card colours follow R1.1. Route colours share the ids 0..7 and use ``GRAY``
(= 8, the same slot as the locomotive) for routes payable with any one colour.

>>> CARD_NAMES[LOCO]
'locomotive'
>>> ROUTE_COLOUR_IDS['gray'] == GRAY
True
"""

PINK, BLUE, ORANGE, WHITE, GREEN, YELLOW, BLACK, RED = range(8)
LOCO = 8
GRAY = 8
N_COLOURS = 8          # train-card colours, locomotives excluded
N_CARD_KINDS = 9       # colours + locomotive

COLOUR_NAMES = ("pink", "blue", "orange", "white", "green", "yellow", "black", "red")
CARD_NAMES = COLOUR_NAMES + ("locomotive",)
ROUTE_COLOUR_NAMES = COLOUR_NAMES + ("gray",)
ROUTE_COLOUR_IDS = {name: i for i, name in enumerate(ROUTE_COLOUR_NAMES)}
# Texts call pink "purple" or "violet" (R1.1); map files may use either alias.
ROUTE_COLOUR_ALIASES = {"purple": PINK, "violet": PINK, "grey": GRAY}

# Germany passengers (R1.5)
P_BLACK, P_BLUE, P_GREEN, P_RED, P_WHITE, P_YELLOW = range(6)
N_PASSENGER_COLOURS = 6
PASSENGER_NAMES = ("black", "blue", "green", "red", "white", "yellow")

# name tables of codes kept elsewhere (the results tables name them: ttrsim.results.tables.NAME_TABLES)
END_NAMES = ("running", "normal", "stalled", "capped")     # how a game ended: ttrsim.core.state.END_*
KIND_NAMES = ("cards", "claim", "tickets", "pass", "station")  # turn kinds: ttrsim.play.turnlog.K_*
SOURCE_NAMES = ("face-up", "blind")                         # where a drawn card came from (turn log)
