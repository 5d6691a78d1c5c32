"""The files of a tune folder, each written atomically
(:meth:`ttrsim.results.folder.Folder.write_atomic`: a temporary name, then
``os.replace``): ``tune.json`` (the record), ``trace.csv`` (one row per
candidate and round), ``best.yaml`` (the fitted parameters, usable as an
experiment lineup's ``params``) and ``report.md``."""
from __future__ import annotations

import csv
import io
import json

import yaml

from ttrsim.results.folder import Folder
from ttrsim.results.stats import interval_text, percent

from .config import TuneConfig
from .search import in_style

TUNE_FILE, TRACE_FILE, BEST_FILE, REPORT_FILE = "tune.json", "trace.csv", "best.yaml", "report.md"
CHART_FILE = "search.png"           # a rule tune's chart (ttrsim.tune.rule_output)
OWN_FILES = (TUNE_FILE, TRACE_FILE, BEST_FILE, REPORT_FILE, CHART_FILE)
TRACE_COLUMNS = ("stage", "round", "candidate", "kind", "games", "win_share", "low", "high", "kept", "best",
                 "accepted")


def write_outputs(folder: Folder, cfg: TuneConfig, rec: dict):
    """Write the four files of the record ``rec`` (tune.json last: it says how far the others are)."""
    folder.write_atomic(folder.root / TRACE_FILE, trace_csv(cfg, rec).encode())
    folder.write_atomic(folder.root / BEST_FILE, best_yaml(cfg, rec).encode())
    folder.write_atomic(folder.root / REPORT_FILE, report_md(cfg, rec).encode())
    folder.write_atomic(folder.root / TUNE_FILE, json.dumps(rec, indent=1, sort_keys=False).encode())


def trace_csv(cfg: TuneConfig, rec: dict) -> str:
    """One row per candidate and round; a tune with a style adds ``in_style`` and each measure (mean per game)."""
    names = [f[0] for f in cfg.fit]
    style = [m for m, *_ in cfg.style]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(TRACE_COLUMNS + tuple(names) + (("in_style",) + tuple(style) if style else ()))
    rows = []
    for st in rec["stages"]:
        kept = {(r["round"], c) for r in st["rounds"] for c in r["kept"]}
        for c in st["candidates"]:
            for r in c["rounds"]:
                rows.append([st["stage"], r["round"], c["id"], c["kind"], r["games"], r["win_share"], r["low"],
                            r["high"], int((r["round"], c["id"]) in kept), int(st["best"] == c["id"]),
                            int(st["best"] == c["id"] and st["accepted"])] + [c["params"][n] for n in names]
                            + ([int(in_style(cfg, r["style"]))] + [r["style"][m] for m in style] if style else []))
    w.writerows(sorted(rows, key=lambda r: r[:3]))
    return out.getvalue()


def best_params(cfg: TuneConfig, rec: dict) -> dict:
    """The fixed parameters and the fitted values of the incumbent."""
    return {**cfg.params, **rec["incumbent"]}


def best_yaml(cfg: TuneConfig, rec: dict) -> str:
    head = [f"# {cfg.strategy} parameters fitted by `ttrsim tune` ({cfg.name}: {cfg.rules}, {cfg.players} players,"
            f" status {rec['status']})",
            f"# use in an experiment lineup: {{strategy: {cfg.strategy}, params: path/to/{BEST_FILE}}}"]
    if cfg.style:
        head.append(f"# fitted in the style {_style_bounds(cfg)} (a seat's mean per game)")
    f = rec.get("final")
    if f:
        head.append(f"# final head-to-head, one fitted seat vs the start: {percent(f['win_share'])} "
                    f"{interval_text(f['low'], f['high'])} over {f['games']} games (fair {percent(f['fair'])})")
    return "\n".join(head) + "\n" + yaml.safe_dump(best_params(cfg, rec), sort_keys=False)


def _style_bounds(cfg: TuneConfig) -> str:
    """'tickets_kept >= 6', 'tickets_kept <= 3.5' or 'longest_path in [20, 30]', comma-separated."""
    def bound(lo, hi):
        return f">= {lo}" if hi is None else f"<= {hi}" if lo is None else f"in [{lo}, {hi}]"
    return ", ".join(f"{m} {bound(lo, hi)}" for m, lo, hi in cfg.style)


def measures_text(measures: dict) -> str:
    return ", ".join(f"{m} {v:.2f}" for m, v in measures.items())


def _values(params: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in params.items())


def report_head(cfg) -> list[str]:
    """The first lines of a tune's report.md: its name and description (strategy and rule tunes alike)."""
    return [f"# Tune {cfg.name}", ""] + ([cfg.description.strip(), ""] if cfg.description else [])


def report_md(cfg: TuneConfig, rec: dict) -> str:
    fair = 1 / cfg.players
    lines = report_head(cfg)
    lines += [f"Fits {', '.join(f'`{n}` [{lo}, {hi}]' for n, lo, hi, _ in cfg.fit)} of `{cfg.strategy}` for "
              f"`{cfg.rules}`, {cfg.players} players: each candidate plays one seat against {cfg.players - 1} "
              f"incumbent seat{'s' if cfg.players > 2 else ''}, seat-rotated (fair share {percent(fair)}); it "
              f"replaces the incumbent when its 95% interval's lower end is above {percent(fair + cfg.margin)} "
              f"(margin {100 * cfg.margin:.1f} points). Status: **{rec['status']}**"
              + (f", stopped: {rec['stopped']}" if rec.get("stopped") else "") + f"; {rec['games']:,} of "
              f"{cfg.budget:,} games.", "",
              f"- start: {_values(rec['start'])}", f"- fitted: {_values(rec['incumbent'])}", ""]
    style = [m for m, *_ in cfg.style]
    if style:
        lines[-3:-3] = [f"Style: {_style_bounds(cfg)} (a seat's mean per game). A candidate outside the style ranks "
                        "after every one inside it and is never accepted; a candidate inside it replaces an "
                        "incumbent that plays outside it without the margin.", ""]
    f = rec.get("final")
    lines += ["## Final head-to-head", ""]
    if f:
        verdict = "beats the start" if f["beats_start"] else "does not beat the start at 95%"
        lines += [f"One fitted seat against {cfg.players - 1} seat{'s' if cfg.players > 2 else ''} of the start, "
                  f"seat-rotated, on seeds no stage used: **{percent(f['win_share'])} "
                  f"{interval_text(f['low'], f['high'])}** over {f['games']:,} games (fair {percent(fair)}): the "
                  f"fitted set {verdict}.", ""]
    elif rec["status"] == "complete":
        lines += ["No stage replaced the start: the fitted set is the start (no head-to-head to play).", ""]
    else:
        lines += ["Not played yet.", ""]
    for st in rec["stages"]:
        lines += [f"## Stage {st['stage']}", "", f"Incumbent: {_values(st['incumbent'])}. "
                  + " ".join(f"Round {r['round']}: {len(r['candidates'])} at {r['games']} games, kept "
                             f"{', '.join(r['kept'])}." for r in st["rounds"]), ""]
        names = [n for n, *_ in cfg.fit]
        if style and st.get("incumbent_style"):
            lines += [f"Incumbent's style in the best candidate's games: {measures_text(st['incumbent_style'])}.", ""]
        lines += ["| candidate | kind | " + " | ".join(names + style) + " | games | win share | 95% interval |",
                  "|---|---|" + "---|" * len(names + style) + "---:|---:|---|"]
        order = sorted(st["candidates"], key=lambda c: (-c.get("games", 0), -c.get("win_share", 0), c["id"]))
        for c in order:
            if "games" not in c:
                continue
            mark = " (accepted)" if st["best"] == c["id"] and st["accepted"] else \
                " (best)" if st["best"] == c["id"] else ""
            cells = [str(c["params"][n]) for n in names] + [
                f"{c['style'][m]:.2f}" + ("" if in_style(cfg, c["style"]) else " (out)") for m in style]
            lines.append(f"| {c['id']}{mark} | {c['kind']} | " + " | ".join(cells)
                         + f" | {c['games']} | {percent(c['win_share'])} | {interval_text(c['low'], c['high'])} |")
        lines.append("")
    return "\n".join(lines)
