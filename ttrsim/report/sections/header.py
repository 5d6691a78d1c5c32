"""The top of the report: the title, the experiment's question and one line on
what was played (the key findings follow, so that they are on the first
screen); then, after the findings, the experiment's facts (rules, strategies,
the seating design and what it controls, games and distinct games, turn log,
where the results are), how to read it, and the table of contents.
"""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from ttrsim.results.summary import design_text
from ttrsim.strategies.published.shared import PUBLISHED

from ..context import Context

__all__ = ["header", "details"]


def header(ctx: Context):
    """Write the top of the report: the title, the experiment's question (its
    ``description``) and one line on what was played; the key findings follow
    it (``sections.findings``), then :func:`details`."""
    res, m = ctx.res, ctx.res.manifest
    doc = ctx.doc
    doc.h(1, f"Report: {res.name}", anchor="top")
    desc = m.get("description") or ""
    if desc:
        doc.p(desc)
    played, distinct = sum(ctx.games.values()), sum(ctx.distinct.values())
    doc.p(f"`{res.rules}`, {res.players} players, {played:,} games"
          + (f" ({distinct:,} distinct)" if distinct != played else "")
          + (f" over {len(ctx.point_ids)} sweep points" if ctx.sweep else "")
          + f" of {', '.join(f'`{lab}`' for lab in res.labels)}; run `{res.status}`. "
          "The details of the experiment and how to read the numbers follow the findings.")
    if res.note:
        doc.note(f"Incomplete results: {res.note}. The statistics cover the finished chunks only.")


def details(ctx: Context):
    """The experiment's facts (rules, strategies, the seating design and what it
    controls, games and distinct games, turn log, where the results are), how to
    read it, and the table of contents: after the key findings."""
    res, m = ctx.res, ctx.res.manifest
    cfg = m.get("config", {})
    doc = ctx.doc
    doc.h(2, "The experiment")
    lineup = ", ".join(f"`{lab}`" for lab in res.labels)
    versions = m.get("versions") or {}
    played, distinct = sum(ctx.games.values()), sum(ctx.distinct.values())
    games = f"**Games**: {played:,}"
    if distinct != played:
        games += (f" played, **{distinct:,} distinct**: the others replay a game of their seed block (the same deal "
                  "with the same strategy in every seat), and every rate counts a distinct game once")
    facts = [
        f"**Rules**: `{res.rules}`" + (f" with overrides `{json.dumps(cfg.get('rule_overrides'))}`"
                                       if cfg.get("rule_overrides") else "")
        + f"; map `{Path(str(res.map_name)).stem}`; **{res.players} players** (seat 1 plays first"
        + (" unless the rules' `first_seat` says otherwise" if res.rules_at(ctx.point_ids[0]).first_seat else "")
        + ").",
        f"**Strategies**: {lineup}.",
        f"**Design**: {design_text(res)}",
        games + (f" over {len(ctx.point_ids)} sweep points (" + ", ".join(f"`{k}`" for k in ctx.sweep) + ")"
                 if ctx.sweep else "")
        + (f"; seed blocks of {res.block_size} games share a deal" if res.block_size > 1
           else "; every game its own deal")
        + f"; experiment seed {cfg.get('seed')}.",
        f"**Turn log**: {'yes' if res.has_turns else 'no (route claims and blocking are skipped)'}.",
        f"**Results**: `{res.path}`; run status `{res.status}`; "
        f"ttrsim {versions.get('ttrsim', '?')}"
        + (f" (commit {str(versions['ttrsim_commit'])[:10]})" if versions.get("ttrsim_commit") else "")
        + f"; report written {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}.",
    ]
    doc.bullets(facts)
    published = list(dict.fromkeys(e["strategy"] for e in cfg.get("entrants", []) if e.get("strategy") in PUBLISHED))
    if published:
        count = ("is one", "are two", "are three", "are all")[len(published) - 1]
        doc.p(", ".join(f"`{n}`" for n in published) + f" {count} of the four published agents of de Mesentier "
              "Silva et al. (FDG 2017): ttrsim plays them as the paper describes them, so their strength and the "
              "four agents' order need not match the paper's tables.")
    doc.p("**How to read it.** A strategy's *win rate* is its mean win share: 1 for a sole winner, "
          "1/k for k tied winners, else 0 (a shared win counts as a fraction). Every 95% interval "
          "of a rate counts seed blocks, not games, as the independent units (the games sharing a deal "
          "are not independent): a Wilson interval on the effective number of games given the "
          f"block-to-block variance; the ratings use a block bootstrap ({ctx.resamples} resamples). "
          "Seats are numbered 1 to players and rounds from 1 (every seat's first turn); the raw Parquet "
          "tables number seats and turns from 0. Tables are ranked by their statistic. Every table is also "
          "written whole as CSV in `tables/` (in report.html, its link downloads it), every chart as PNG/SVG "
          "in `charts/`. ttrsim's `docs/reports.md` says what each statistic answers and what it does not.")
    doc.contents()
