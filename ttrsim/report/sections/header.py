"""The top of the report: the title, the experiment's facts (rules, strategies,
games, turn log, where the results are), how to read it, and the contents.
"""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from ..blocks import slug
from ..context import Context

__all__ = ["header"]


def header(ctx: Context, titles: list[str]):
    """Write the top of the report; ``titles``: the report's parts, linked in the contents line."""
    res, m = ctx.res, ctx.res.manifest
    cfg = m.get("config", {})
    doc = ctx.doc
    doc.h(1, f"Report: {res.name}", anchor="top")
    desc = m.get("description") or ""
    if desc:
        doc.p(desc)
    lineup = ", ".join(f"`{lab}`" for lab in res.labels)
    versions = m.get("versions") or {}
    facts = [
        f"**Rules**: `{res.rules}`" + (f" with overrides `{json.dumps(cfg.get('rule_overrides'))}`"
                                       if cfg.get("rule_overrides") else "")
        + f"; map `{Path(str(res.map_name)).stem}`; **{res.players} players**, seating `{cfg.get('seating')}`.",
        f"**Strategies**: {lineup}.",
        f"**Games**: {res.n_games:,}" + (f" over {len(ctx.point_ids)} sweep points ("
                                         + ", ".join(f"`{k}`" for k in ctx.sweep) + ")" if ctx.sweep else "")
        + f"; seed blocks of {res.block_size} games share a deal; experiment seed {cfg.get('seed')}.",
        f"**Turn log**: {'yes' if res.has_turns else 'no (route contention and blocking are skipped)'}.",
        f"**Results**: `{res.path}`; run status `{res.status}`; "
        f"ttrsim {versions.get('ttrsim', '?')}"
        + (f" (commit {str(versions['ttrsim_commit'])[:10]})" if versions.get("ttrsim_commit") else "")
        + f"; report written {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}.",
    ]
    doc.bullets(facts)
    if res.note:
        doc.note(f"Incomplete results: {res.note}. The statistics cover the finished chunks only.")
    doc.p("**How to read it.** A strategy's *win rate* is its mean win share: 1 for a sole winner, "
          "1/k for k tied winners, else 0 (a shared win counts as a fraction). Every 95% interval "
          "of a rate counts seed blocks, not games, as the independent units (the games sharing a deal "
          "are not independent): a Wilson interval on the effective number of games given the "
          f"block-to-block variance; the ratings use a block bootstrap ({ctx.resamples} resamples). "
          "Every table is also written whole as CSV in "
          "`tables/`, every chart as PNG/SVG in `charts/`.")
    doc.p("**Contents**: " + " · ".join(f"[{t}](#{slug(t)})" for t in titles))
