"""``intervene:`` in an experiment file (docs/experiments.md "Interventions"):
one change, one arm per value, each played on the same seed blocks as the
unchanged arm ``control``. The arms become the sweep axis ``arm``
(:meth:`ttrsim.experiment.validator.Validator.points` applies each arm's
changes); :mod:`ttrsim.results.effects` compares them with the control.

>>> from ttrsim.experiment.config import load_experiment
>>> e = load_experiment({"name": "x", "players": 2, "lineup": ["random", "random"], "games": 2,
...                      "intervene": {"rules.first_seat": [1]}})
>>> [p.values["arm"] for p in e.points], e.points[1].rule_overrides
(['control', 'first_seat=1'], {'first_seat': 1})
"""
from __future__ import annotations

import json

from ttrsim.data.checks import did_you_mean, kind
from ttrsim.data.maps import load_map

__all__ = ["KINDS", "OPTIONS", "arms"]

KINDS = ("offer_ticket", "remove_route", "change_route")     # changes of their own (R9); else rules.PARAM / strategies.LABEL.PARAM
OPTIONS = ("seat", "kept")                   # of offer_ticket


def arms(check, value, entrants, preset, rule_overrides, players) -> dict | None:
    """``intervene:`` of an experiment file checked by the validator ``check``
    (one line at the first problem): ``{"kind", "key", "seat", "kept", "arms":
    {arm label: [(sweep key, value), ...]}}`` (the control's list empty), or None."""
    if value is None:
        return None
    what = "a mapping with one change: offer_ticket, remove_route, rules.PARAMETER or strategies.LABEL.PARAMETER"
    check.mapping("intervene", value, what)
    changes = [k for k in value if k in KINDS or str(k).split(".")[0] in ("rules", "strategies")]
    for k in value:
        if k not in changes and k not in OPTIONS:
            check.fail(f"intervene.{k}", "unknown key" + (did_you_mean(str(k), KINDS + OPTIONS)
                                                         or f"; expected {what}"))
    if len(changes) != 1:
        check.fail("intervene", f"{len(changes)} changes given; expected {what}")
    key = changes[0]
    w = f"intervene.{key}"
    values = value[key]
    for opt in OPTIONS:
        if opt in value and key != "offer_ticket":
            check.fail(f"intervene.{opt}", "only used with offer_ticket; expected no " + opt)
    seat = check.int_in("intervene.seat", value.get("seat", 0), 0, players - 1, "a seat index (0 = the first seat)")
    kept = value.get("kept", False)
    if not isinstance(kept, bool):
        check.fail("intervene.kept", f"expected true or false, got {kind(kept)}")
    if key == "offer_ticket" and values == "all":
        base = check.rules(preset, rule_overrides, "rule_overrides")
        values = list(load_map(base.map).ticket_names(base.ticket_decks))
    if not isinstance(values, list) or not values:
        check.fail(w, f"expected a non-empty list of values{' (or all)' if key == 'offer_ticket' else ''}, "
                     f"got {'an empty list' if values == [] else kind(values)}")
    if key in KINDS:
        for i, v in enumerate(values):
            check.string(f"{w}[{i}]", v, {"offer_ticket": "a ticket 'From-To'", "remove_route": "a route label",
                                          "change_route": "'ROUTE -> LENGTH COLOUR'"}[key])
    else:
        check.sweep({key: values}, entrants)
    arms: dict[str, list] = {"control": []}
    for i, v in enumerate(values):
        if key == "offer_ticket":
            label, change = f"offer {v}", [("rules.offer_ticket", v), ("rules.offer_seat", seat),
                                           ("rules.offer_kept", kept)]
        elif key == "remove_route":
            label, change = f"remove {v}", [("rules.remove_routes", [v])]
        elif key == "change_route":
            label, change = f"change {v}", [("rules.change_routes", [v])]
        else:
            label, change = f"{key.split('.', 1)[1]}={json.dumps(v, sort_keys=True)}", [(key, v)]
        if label in arms:
            check.fail(f"{w}[{i}]", f"{kind(v)} is listed twice; expected each value once")
        arms[label] = change
    return {"kind": key if key in KINDS else key.split(".")[0], "key": key,
            "seat": seat if key == "offer_ticket" else None, "kept": kept if key == "offer_ticket" else None,
            "arms": arms}
