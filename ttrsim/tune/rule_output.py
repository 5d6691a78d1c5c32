"""The files of a rule tune's folder, each written atomically: ``tune.json``
(the record), ``trace.csv`` (one row per look at a value), ``best.yaml`` (the
chosen value, once there is one), ``report.md`` and ``search.png`` (the
estimate and its interval against the value; drawn when the tune stops)."""
from __future__ import annotations

import csv
import io
import json

import yaml

from ttrsim.results.folder import Folder

from .output import BEST_FILE, CHART_FILE, REPORT_FILE, TRACE_FILE, TUNE_FILE, report_head
from .rule_config import RuleTuneConfig
from .rule_search import ADJACENT, BUDGET

TRACE_COLUMNS = ("order", "value", "look", "games", "estimate", "low", "high", "verdict", "chosen")
VERDICTS = {"met": "met: the interval lies within the tolerance",
            "above": "above: the interval lies above the target",
            "below": "below: the interval lies below the target",
            "undecided": "undecided: neither at the last look (the side is the estimate's)"}


def write_rule_outputs(folder: Folder, cfg: RuleTuneConfig, rec: dict):
    """Write the files of the record ``rec`` (tune.json last: it says how far the others are)."""
    folder.write_atomic(folder.root / TRACE_FILE, trace_csv(cfg, rec).encode())
    if rec.get("chosen"):
        folder.write_atomic(folder.root / BEST_FILE, best_yaml(cfg, rec).encode())
    if rec["status"] != "running" and rec["evaluations"]:
        folder.write_atomic(folder.root / CHART_FILE, search_png(cfg, rec))
    folder.write_atomic(folder.root / REPORT_FILE, report_md(cfg, rec).encode())
    folder.write_atomic(folder.root / TUNE_FILE, json.dumps(rec, indent=1, sort_keys=False).encode())


# ---- text of the target

def quantity(cfg: RuleTuneConfig) -> str:
    """What the target measures: 'planner_tickets - planner_routes win rate', 'planner win rate', ..."""
    kind, labels, _ = cfg.target
    return {"equal": f"{' - '.join(labels)} win rate", "win_rate": f"{labels[0]} win rate",
            "seat_advantage": "first-seat advantage"}[kind]


def in_points(cfg: RuleTuneConfig) -> bool:
    """Differences show as signed points (pp), a win rate as a percentage."""
    return cfg.target[0] != "win_rate"


def _num(cfg: RuleTuneConfig, x: float) -> str:
    x = round(100 * x, 1) + 0.0             # no '-0.0'
    return f"{x:+.1f}" if in_points(cfg) else f"{x:.1f}%"


def look_text(cfg: RuleTuneConfig, e: dict) -> str:
    """'planner_tickets - planner_routes win rate -1.2 pp [-2.5, +0.1] over 1,600 games'."""
    unit = " pp" if in_points(cfg) else ""
    return (f"{quantity(cfg)} {_num(cfg, e['estimate'])}{unit} [{_num(cfg, e['low'])}, {_num(cfg, e['high'])}]"
            f" over {e['games']:,} games")


def stopped_text(stopped: str) -> str:
    """Why a search that did not meet its target stopped, as a sentence."""
    if stopped == ADJACENT:
        return (f"{stopped} (an integer step moves the quantity by more than the tolerance, or max_games could not "
                "narrow the interval enough)")
    return "the budget ran out before a value met the target" if stopped == BUDGET else stopped


def target_text(cfg: RuleTuneConfig) -> str:
    """The target: 'planner_tickets win rate = planner_routes win rate +- 1.0 pp', 'planner win rate = 30.0% +-
    1.0 pp', 'first-seat advantage = 0.0 pp +- 1.0 pp'."""
    kind, labels, goal = cfg.target
    tol = f" +- {100 * cfg.tolerance:.1f} pp"
    if kind == "equal":
        return f"{labels[0]} win rate = {labels[1]} win rate{tol}"
    if not in_points(cfg):
        return f"{quantity(cfg)} = {_num(cfg, goal)}{tol}"
    return f"{quantity(cfg)} = {_num(cfg, goal) if goal else '0.0'} pp{tol}"


# ---- the files

def refit_columns(cfg: RuleTuneConfig) -> list[tuple[str, str]]:
    """The re-fitted parameters as (label, parameter), in the file's order."""
    return [(r["label"], k) for r in cfg.refit for k in r["fit"]]


def trace_csv(cfg: RuleTuneConfig, rec: dict) -> str:
    """One row per look at a value, in the order played; with refit, the value's
    re-fit games and re-fitted parameters (``label.parameter``) on each row."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    cols = refit_columns(cfg)
    w.writerow(TRACE_COLUMNS + (("refit_games",) + tuple(f"{a}.{k}" for a, k in cols) if cols else ()))
    chosen = (rec.get("chosen") or {}).get("value")
    for i, e in enumerate(rec["evaluations"], start=1):
        fits = e.get("refit")
        extra = [sum(f["games"] for f in fits.values())] + [fits[a]["params"][k] for a, k in cols] if fits else []
        for k, look in enumerate(e["looks"], start=1):
            last = k == len(e["looks"])
            w.writerow([i, e["value"], k, look["games"], look["estimate"], look["low"], look["high"], look["verdict"],
                        int(last and e["value"] == chosen)] + extra)
    return out.getvalue()


def best_yaml(cfg: RuleTuneConfig, rec: dict) -> str:
    c = rec["chosen"]
    head = [f"# {cfg.param} chosen by `ttrsim tune` ({cfg.name}: {cfg.rules}, {cfg.players} players, status "
            f"{rec['status']})",
            f"# target {target_text(cfg)}: {'met' if c['met'] else 'NOT met'}; {look_text(cfg, c)}",
            f"# use in an experiment: rule_overrides: {{{cfg.param}: {c['value']}}}"]
    return "\n".join(head) + "\n" + yaml.safe_dump({cfg.param: c["value"]}, sort_keys=False)


def report_md(cfg: RuleTuneConfig, rec: dict) -> str:
    labels = ", ".join(e["label"] for e in cfg.lineup)
    lines = report_head(cfg)
    lines += [f"Searches `{cfg.param}` in [{cfg.low}, {cfg.high}] on `{cfg.rules}`, {cfg.players} players, for "
              f"the value where the target holds: **{target_text(cfg)}** (met when its 95% interval lies within "
              f"the tolerance). The lineup ({labels}) plays seat-rotated at every value, on the same deals (common "
              f"random numbers). Status: **{rec['status']}**; {rec['games']:,} of {cfg.budget:,} games"
              + (f" ({rec['refit_games']:,} of them re-fitting)." if cfg.refit else "."), ""]
    c = rec.get("chosen")
    lines += ["## Result", ""]
    if c and c["met"]:
        lines += [f"**Target met at {cfg.param} = {c['value']}**: {look_text(cfg, c)}.", ""]
    elif c:
        lines += [f"**Target not met**: {stopped_text(rec['stopped'])}. The closest value is **{cfg.param} = "
                  f"{c['value']}**: {look_text(cfg, c)}.", ""]
    else:
        lines += ["No value chosen yet.", ""]
    if rec["evaluations"]:
        lines += ["## The search", ""]
        if rec["status"] != "running":
            lines += [f"![{quantity(cfg)} and its 95% interval against {cfg.param}]({CHART_FILE})", ""]
        lines += [f"In the order played; each value's last look (a look is after {cfg.min_games:,} games, then "
                  f"double, up to {cfg.max_games:,}).", "",
                  f"| # | {cfg.param} | games | looks | {quantity(cfg)}{' (pp)' if in_points(cfg) else ''} | "
                  "95% interval | verdict |",
                  "|---:|---:|---:|---:|---:|---|---|"]
        for i, e in enumerate(rec["evaluations"], start=1):
            mark = " (chosen)" if c and e["value"] == c["value"] else ""
            lines.append(f"| {i} | {e['value']}{mark} | {e['games']:,} | {len(e['looks'])} | "
                         f"{_num(cfg, e['estimate'])} | [{_num(cfg, e['low'])}, {_num(cfg, e['high'])}] | "
                         f"{e['verdict']} |")
        lines += ["", "Verdicts: " + "; ".join(VERDICTS.values()) + ".", ""]
    cols = refit_columns(cfg)
    if cols and rec["evaluations"]:
        lines += ["## Re-fitted play", "",
                  f"Before a value plays, {', '.join(r['label'] for r in cfg.refit)} "
                  f"{'is' if len(cfg.refit) == 1 else 'are'} re-fitted at that value by the strategy tuner (self-play, "
                  f"{cfg.refit_budget:,} games at most; folders `refit/{cfg.param}-<value>/<label>/`), and the value's "
                  "games seat the re-fitted parameters.", "",
                  f"| {cfg.param} | refit games | " + " | ".join(f"{a}.{k}" for a, k in cols) + " |",
                  "|---:|---:|" + "---:|" * len(cols)]
        for e in rec["evaluations"]:
            fits = e["refit"]
            lines.append(f"| {e['value']} | {sum(f['games'] for f in fits.values()):,} | "
                         + " | ".join(f"{fits[a]['params'][k]:g}" for a, k in cols) + " |")
        lines.append("")
    same = "The other strategies play" if cols else "The strategies play"
    lines += ["## What it does not do", "",
              f"- {same} the same parameters at every value (their fitted sets for the preset, "
              "docs/strategies.md \"Fitted defaults\"): they are not re-tuned to each candidate value.",
              "- The search assumes the quantity crosses the target once in the range; with several crossings it "
              "finds one of them.",
              "- The interval is checked at every look, so the chance that a met value is off by more than the "
              "tolerance is somewhat above the nominal 5%.", ""]
    return "\n".join(lines)


def search_png(cfg: RuleTuneConfig, rec: dict) -> bytes:
    """The chart of the search: every value's estimate with its 95% interval, the target's band, the chosen value."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    scale = 100
    evs = sorted(rec["evaluations"], key=lambda e: e["value"])
    fig = Figure(figsize=(7, 4), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    goal, tol = cfg.target[2] * scale, cfg.tolerance * scale
    ax.axhspan(goal - tol, goal + tol, color="#2ca02c", alpha=0.15, label="target +- tolerance")
    ax.axhline(goal, color="#2ca02c", lw=1)
    x = [e["value"] for e in evs]
    y = [scale * e["estimate"] for e in evs]
    err = [[scale * (e["estimate"] - e["low"]) for e in evs], [scale * (e["high"] - e["estimate"]) for e in evs]]
    ax.errorbar(x, y, yerr=err, fmt="o", color="#1f77b4", capsize=3, label="estimate, 95% interval")
    order = {e["value"]: i for i, e in enumerate(rec["evaluations"], start=1)}
    for xi, yi in zip(x, y):
        ax.annotate(str(order[xi]), (xi, yi), textcoords="offset points", xytext=(5, 4), fontsize=8)
    c = rec.get("chosen")
    if c:
        ax.plot([c["value"]], [scale * c["estimate"]], "o", ms=11, mfc="none", mec="#d62728", mew=2,
                label=f"chosen: {c['value']}")
    ax.set_xlabel(f"{cfg.param} (numbers: order played)")
    ax.set_ylabel({"equal": "difference", "win_rate": "win rate", "seat_advantage": "advantage"}[cfg.target[0]]
                  + (" (percentage points)" if in_points(cfg) else " (%)"))
    ax.set_title(f"{quantity(cfg)}\nagainst {cfg.param} (tune {cfg.name})", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    return buf.getvalue()
