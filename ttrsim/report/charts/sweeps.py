"""Sweep charts: balance lines, a statistic against a swept parameter with one
line per strategy (from ``ttrsim.report.sweeps.swept_win_rates`` or any
per-point frame joined with ``Results.points``).

>>> _value_text({6: 15}), _value_text([1, 2]), _value_text(10)
('6:15', '1,2', '10')
"""
from __future__ import annotations

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from .figures import as_polars, empty_figure, floats, new_figure, percent_axis, strategy_colours

__all__ = ["balance_lines"]


def _value_text(v) -> str:
    if isinstance(v, dict):
        return ",".join(f"{k}:{x}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ",".join(map(str, v))
    return str(v)


def balance_lines(df, key: str, value: str = "win_rate", colours: dict | None = None,
                  subtitle: str | None = None, ylabel: str = "win rate (% of games)",
                  title: str | None = None, fair: float | None = None, percent: bool = True,
                  reference=None, reference_label: str = "the preset's value") -> Figure:
    """A balance chart for a sweep: ``value`` (with a ``low``/``high`` band when
    present) against the swept parameter ``key``, one line per strategy. Other
    swept keys get one panel per combination of their values. Non-numeric
    parameter values are placed evenly in sweep order."""
    df = as_polars(df)
    pname = key.split(".")[-1]
    title = title or f"Balance: {value.replace('_', ' ')} against {pname}"
    if df.height == 0 or key not in df.columns:
        return empty_figure(title, "no sweep", subtitle)
    others = [c for c in df.columns if "." in c and c != key and c.split(".")[0] in ("rules", "strategies")]
    combos = df.select(others).unique(maintain_order=True).rows() if others else [()]
    combos = combos[:6]
    raw = df[key].to_list()
    order = list(dict.fromkeys(_value_text(v) for v in raw))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw)
    xpos = {t: (float(t) if numeric else i) for i, t in enumerate(order)}
    labels = list(dict.fromkeys(str(s) for s in df["strategy"].to_list())) if "strategy" in df.columns else [None]
    cmap = colours or strategy_colours([lab for lab in labels if lab is not None])
    n = len(combos)
    fig, axes = new_figure(min(6.5 * n, 16) if n > 1 else 7.5, 4.5, 1, n, sharey=True, squeeze=False)
    for ax, combo in zip(axes[0], combos):
        d = df
        for c, v in zip(others, combo):
            d = d.filter(pl.col(c).map_elements(_value_text, return_dtype=pl.Utf8) == _value_text(v)) \
                if isinstance(v, (dict, list)) else d.filter(pl.col(c) == v)
        for lab in labels:
            dd = d if lab is None else d.filter(pl.col("strategy").cast(pl.Utf8) == lab)
            xs = np.array([xpos[_value_text(v)] for v in dd[key].to_list()])
            srt = np.argsort(xs)
            ys = floats(dd[value].to_list())[srt]
            xs = xs[srt]
            col = cmap.get(lab, "#1f77b4") if lab is not None else "#1f77b4"
            ax.plot(xs, ys, "o-", color=col, label=lab, lw=1.6, ms=4)
            if "low" in dd.columns and "high" in dd.columns:
                ax.fill_between(xs, floats(dd["low"].to_list())[srt], floats(dd["high"].to_list())[srt], color=col,
                                alpha=0.18, lw=0)
        if fair is not None:
            ax.axhline(fair, color="k", ls="--", lw=0.8, label="fair share")
        if reference is not None and _value_text(reference) in xpos:
            ax.axvline(xpos[_value_text(reference)], color="0.5", ls=":", lw=1.2,
                       label=f"{reference_label} ({_value_text(reference)})")
        if not numeric:
            ax.set_xticks([xpos[t] for t in order], order)
        ax.set_xlabel(f"{pname} (swept rule value)" if key.startswith("rules.") else f"{key} (swept parameter)")
        if others:
            ax.set_title(", ".join(f"{c.split('.')[-1]}={_value_text(v)}" for c, v in zip(others, combo)),
                         fontsize=9)
        ax.grid(alpha=0.3)
        if percent:
            percent_axis(ax.yaxis)
    axes[0][0].set_ylabel(ylabel)
    if labels != [None] or fair is not None or reference is not None:
        axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    fig.suptitle(title + (" (bands: 95% intervals)" if "low" in df.columns else "")
                 + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    return fig
