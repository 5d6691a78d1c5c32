"""``ttrsim bench``: complete games per CPU second on one core, and
``--compare REV``, the speed ratio of this code to an older commit measured in
one run (see ``docs/performance.md``)."""
from __future__ import annotations

import click

from .common import PLAYER_LIST, PRESET_LIST, Strategies, echo_json, json_option, library_errors, table
from .compiling import watch_compiles


class RenamedStrategies(Strategies):
    """Strategy names, each also ``NEW=OLD``: strategy ``NEW`` of this code
    timed against ``OLD`` of the old commit (``--compare`` only; ``OLD`` is
    not checked here, the old commit's worker says if it lacks it)."""

    def check(self, name):
        new, sep, old = name.partition("=")
        if sep and not old:
            raise ValueError(f"'{name}': expected NEW=OLD, a strategy of this code and its name on the old commit")
        super().check(new)


@click.command("bench", short_help="Complete games per second on one core.")
@click.option("--rules", default="all", show_default=True, type=PRESET_LIST, help="Rule sets to time.")
@click.option("--players", default="2,4", show_default=True, type=PLAYER_LIST, help="Player counts to time.")
@click.option("--seconds", default=2.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="CPU seconds of play per rule set, player count and strategy (with --compare: per run).")
@click.option("--strategy", "names", default="random", show_default=True, type=RenamedStrategies(allow_all=True),
              help="Strategies to time, each in self-play at every seat (search: one seat among planners); with "
                   "--compare, NEW=OLD times strategy NEW against OLD of the old commit (a strategy renamed since).")
@click.option("--compare", "rev", metavar="REV",
              help="Time commit REV (old) against this code (new) in interleaved pairs on one core; print the ratio.")
@click.option("--pairs", default=7, show_default=True, type=click.IntRange(min=1),
              help="With --compare: interleaved pairs of runs per rule set, player count and strategy.")
@click.option("--core", type=click.IntRange(min=0), metavar="N",
              help="With --compare: the core both sides are pinned to (default: the highest one).")
@json_option("a list of rows: rules, players, strategy, games, seconds, wall_seconds, games_per_s, commit (with "
             "--compare: rules, players, strategy, old_games_per_s, new_games_per_s, ratio, ratio_min, ratio_max, "
             "old_commit, new_commit, core).")
@library_errors
@watch_compiles
def bench_cmd(rules, players, seconds, names, rev, pairs, core, as_json):
    """Time complete games (setup, play, final scoring) with compiled
    strategies on one core: games per CPU second of this process per rule
    set, player count and strategy (self-play). Waiting for a busy shared
    machine does not count; a core shared with another busy process still
    slows it, so compare strategies from one run. JSON rows also carry the
    CPU and wall seconds and the commit timed ("+" when the files differ
    from it).

    With --compare REV, commit REV of this repository and the code installed
    here play the same games in two worker processes pinned to one core,
    taking turns (PAIRS pairs, the order alternating); each pair gives a
    ratio new/old games per second, and the median ratio (with the range
    over the pairs) is the figure to quote: a speed claim is a ratio measured
    in one run. A strategy renamed since REV is named NEW=OLD, e.g.
    planner_classic=planner: the planner of commits before issue 11.

    \b
    Examples:
      ttrsim bench
      ttrsim bench --rules usa,germany --players 2,4 --seconds 5
      ttrsim bench --rules usa --players 4 --strategy all --json
      ttrsim bench --compare main --rules usa --players 2,4 --seconds 1
      ttrsim bench --compare 9d80728 --rules usa --players 4 --strategy planner_classic=planner,greedy
    """
    from ttrsim.play import bench as benchmod

    if rev:
        progress = None if as_json else (lambda text: click.echo(f"  {text}", err=True))
        rows = benchmod.compare(rev, rules, players, names, seconds=seconds, pairs=pairs, core=core,
                                progress=progress)
        if as_json:
            echo_json(rows)
            return
        click.echo(f"old {rows[0]['old_commit']}, new {rows[0]['new_commit'] or 'installed'}, "
                   f"{pairs} interleaved pairs of {seconds:g} CPU s on core {rows[0]['core']}")
        body = [[r["rules"], r["players"], r["strategy"] + ("" if r["old_strategy"] == r["strategy"]
                                                            else "=" + r["old_strategy"]), f"{r['old_games_per_s']:,.0f}",
                 f"{r['new_games_per_s']:,.0f}", f"{r['ratio']:.3f}", f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}"]
                for r in rows]
        for line in table(["rules", "players", "strategy", "old games/s", "new games/s", "new/old", "range"],
                          body, right={1, 3, 4, 5}):
            click.echo(line)
        return
    renames = [name for name in names if "=" in name]
    if renames:
        raise click.UsageError(f"--strategy {renames[0]}: a name NEW=OLD is for --compare only")
    rows = [row for name in names for row in benchmod.run_bench(rules, players, seconds=seconds, strategy=name)]
    if as_json:
        keys = ("rules", "players", "strategy", "games", "seconds", "wall_seconds", "games_per_s", "commit")
        echo_json([{k: r[k] for k in keys if k in r} for r in rows])
        return
    body = [[r["rules"], r["players"], r["strategy"], f"{r['games_per_s']:,.0f}" if r["games_per_s"] >= 10
             else f"{r['games_per_s']:.2f}"] for r in rows]
    for line in table(["rules", "players", "strategy", "games/s (1 core)"], body, right={1, 3}):
        click.echo(line)
