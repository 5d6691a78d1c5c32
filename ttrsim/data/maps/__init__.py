"""Map files: the boards, tickets and scoring tables, loaded and validated.

A map file is YAML (see ``usa.yaml``, ``germany.yaml`` and ``europe.yaml`` next to this module):

``name``        the map's name
``scoring``     route length -> points (R1.4)
``cities``      city name -> [x, y] board pixel coordinates
``countries``   optional; country name -> {label: [x, y], border_points: {name: [x, y]}}.
                Each border point is its own graph node (R6.4).
``routes``      rows [a, b, length, colour, group] or [a, b, length, colour, group, tunnel,
                ferry_locos]; a and b are cities or border points, group names the parallel
                tracks between the same two endpoints (or null); tunnel (true/false, R8.3)
                and ferry_locos (the locomotives a ferry needs at least, R8.2) default to
                false and 0
``tickets``     rows [a, b, points, [deck tags]]; a and b are cities or countries
``passengers``  optional; location -> passengers placed there at setup (R1.5)

Ids. *Locations* are the places tickets and passengers name: the cities, then the
countries. *Nodes* are the graph's vertices: the cities (same id as their location),
then every border point. Routes join nodes; tickets join locations; a country's
ticket is met at any of its nodes (``location_nodes``).

Loading checks the whole file and raises ``MapError`` listing every problem found,
one line each: ``<file>: <entry>: <what is wrong; what was expected>``. The YAML is
read by :mod:`ttrsim.data.yamlfile` (a key given twice is reported per entry). A map
whose tickets could never be completed is rejected: every city and border point
must be reached by a route, and the routes must form one connected network.

Modules: ``mapdata`` (MapData, MapError), ``loader`` (finding, reading, top-level
fields, building), ``places`` (cities, countries, passengers), ``rows`` (routes,
tickets and the checks across rows), ``geometry`` (where the tracks run, for drawing).

>>> m = load_map('usa'); m.n_routes
100
>>> m.route_label(3)
'Atlanta-New Orleans (4 orange)'
>>> len(m.deck('base')), m.tags()
(30, ['1910', 'base', 'bigcities', 'mega'])
>>> g = load_map('germany'); g.n_locations, g.n_nodes
(40, 49)
>>> [g.node_names[n] for n in g.location_nodes(g.location_id('Dänemark'))]
['Dänemark/1', 'Dänemark/2']
"""

from .loader import MAPS_DIR, available_maps, load_map
from .mapdata import MAX_ROUTE_LENGTH, MapData, MapError, without_routes

__all__ = ["MapError", "MapData", "load_map", "available_maps", "MAPS_DIR", "MAX_ROUTE_LENGTH", "without_routes"]
