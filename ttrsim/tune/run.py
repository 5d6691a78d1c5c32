"""Run (or resume) a tune into its folder: :func:`tune`.

The folder (``docs/tune.md``): ``tune.json`` (the resolved config, the
status and every stage's candidates with their scores), ``trace.csv``,
``best.yaml``, ``report.md`` and ``evals/`` (one results folder per
evaluation, :func:`ttrsim.experiment.runner.run_experiment`). Every file is
written atomically (a temporary name, then ``os.replace``); ``tune.json``
after every evaluation. Running the same tune again replays the method over
the evaluations already played (each is complete, or resumes), so the files
come out identical but for ``execution`` (workers, seconds); a different
tune is refused unless ``overwrite``. SIGINT and SIGTERM stop it through the
runner's :class:`~ttrsim.experiment.signals.Interrupted`: ``tune.json`` then
says ``interrupted`` and running again resumes. A rule tune (``fit_rules``)
runs the same way through :class:`~ttrsim.tune.rule_run.RuleTune`, which
shares :class:`Runner` (the evaluations, the budget's count, the record).
"""
from __future__ import annotations

import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ttrsim.experiment.config import ExperimentError
from ttrsim.experiment.runner import run_experiment
from ttrsim.experiment.signals import Interrupted
from ttrsim.results.folder import Folder, FolderLock, now
from ttrsim.results.reader import Results

from .config import TuneConfig, TuneError, load_tune
from .output import OWN_FILES, TUNE_FILE, measures_text, write_outputs
from .search import candidates, in_style, score, stage_plan, stage_seed, style_measures

VERSION = 1


@dataclass
class TuneResult:
    """What :func:`tune` returns: the folder, the status, the fitted
    parameters (``best``: fixed and fitted, as best.yaml has them), the final
    head-to-head (``final``: games, win_share, low, high, fair; None when no
    stage moved the incumbent) and ``record`` (tune.json's content)."""
    path: Path
    status: str
    best: dict
    final: dict | None
    games: int
    games_run: int
    seconds: float
    record: dict = field(default_factory=dict)


def tune(path_or_dict, *, output=None, workers=None, overwrite: bool = False, progress: bool = True, echo=None,
         base_dir=None) -> TuneResult:
    """Fit the tune file's parameters (``docs/tune.md``); returns a
    :class:`TuneResult`. ``output`` and ``workers`` override the file;
    ``overwrite`` starts a folder holding another tune over. ``echo`` prints
    the progress lines and the interrupt's (default ``print`` to stderr;
    ``False`` = silent; ``progress=False`` silences the progress lines).
    Raises :class:`TuneError` (one line) before writing anything when the
    tune is bad, or when an evaluation fails (tune.json then says
    ``failed``), and :class:`~ttrsim.experiment.signals.Interrupted` on
    SIGINT or SIGTERM (tune.json: ``interrupted``)."""
    if echo is None:
        echo = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    elif echo is False:
        echo = lambda msg: None  # noqa: E731
    note = echo                                        # said also without progress: the interrupt
    if not progress:
        echo = lambda msg: None  # noqa: E731
    cfg = load_tune(path_or_dict, {"output": None if output is None else str(output), "workers": workers},
                    base_dir=base_dir)
    folder = Folder(cfg.output)
    _check_folder(cfg, folder, overwrite)
    lock = FolderLock(cfg.output)
    try:
        cfg.output.mkdir(parents=True, exist_ok=True)
        lock.acquire(cfg.source)
    except ExperimentError as e:
        raise TuneError(str(e)) from None
    except OSError as e:
        raise TuneError(f"{cfg.source}: output: {cfg.output} cannot be written ({e.strerror or e}); expected a "
                        "writable folder; nothing was written") from None
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if overwrite:
            _clear(cfg.output)
        if isinstance(cfg, TuneConfig):
            t = _Tune(cfg, folder, echo)
        else:                                   # a rule tune: fit_rules (ttrsim.tune.rule_run)
            from .rule_run import RuleTune
            t = RuleTune(cfg, folder, echo)
        try:
            return t.run()
        except KeyboardInterrupt:
            t.save("interrupted")
            note(f"interrupted: {t.total_games:,} games kept in {cfg.output}; run the same tune again to resume")
            raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        lock.release()


def _interrupt(signum, frame):
    """SIGINT and SIGTERM between evaluations (the runner handles them during one)."""
    raise Interrupted(signum)


def _check_folder(cfg: TuneConfig, folder: Folder, overwrite: bool):
    """A new or empty folder, or one holding this tune (another only with ``overwrite``)."""
    if not cfg.output.exists():
        return
    if not cfg.output.is_dir():
        raise TuneError(f"{cfg.source}: output: {cfg.output} is a file; expected a folder")
    try:
        record = folder.read_json(TUNE_FILE, cfg.source, "a ttrsim tune.json")
    except ExperimentError as e:
        if not overwrite:
            raise TuneError(str(e)) from None
        record = {"config": cfg.config()}        # damaged: --overwrite starts it over
    if record is None:
        if any(not (f.name == "ttrsim.lock" or f.name.endswith(".tmp")) for f in cfg.output.iterdir()):
            raise TuneError(f"{cfg.source}: output: {cfg.output} exists and is not a ttrsim tune folder (no "
                            f"{TUNE_FILE}); expected a new or empty folder")
        return
    old = record.get("config") or {}
    if old != cfg.config() and not overwrite:
        new = cfg.config()
        key = next(k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k))
        raise TuneError(f"{cfg.source}: {key}: {cfg.output} holds another tune ({key} was {old.get(key)!r}, now "
                        f"{new.get(key)!r}); expected the same tune to resume (or --overwrite to start over)")


def _clear(root: Path):
    """Delete the tune's own files and evaluations (nothing else)."""
    for sub in ("evals", "refit"):
        shutil.rmtree(root / sub, ignore_errors=True)
    for name in OWN_FILES:
        (root / name).unlink(missing_ok=True)


class Runner:
    """What a strategy tune and a rule tune share: the games counted against
    the budget, the evaluations played as experiments in ``evals/<tag>``, the
    record saved with its execution entry."""
    def __init__(self, cfg, folder: Folder, echo):
        self.cfg, self.folder, self.echo = cfg, folder, echo
        self.games = 0          # games of every evaluation (the budget counts them)
        self.games_run = 0      # played by this call
        self.played: dict[str, int] = {}
        self.start_time = time.perf_counter()
        self.record: dict = {}

    def play(self, tag: str, exp: dict, games: int):
        """Grow (or play, or find complete) the experiment ``exp`` in
        ``evals/<tag>`` to ``games`` games (a resumed tune may find the folder
        grown by later rounds and keeps it); its
        :class:`~ttrsim.experiment.runner.RunResult`."""
        cfg = self.cfg
        exp = {**exp, "name": f"{cfg.name}.{tag}", "games": games, "log": False, "workers": cfg.workers,
               "output": str(cfg.output / "evals" / tag)}
        try:
            held = (Folder(cfg.output / "evals" / tag).read_json("manifest.json") or {}).get("config") or {}
            exp["games"] = max(games, held.get("games") or 0)
            r = run_experiment(exp, progress=False, echo=False)
        except ExperimentError as e:
            self.save("failed")
            line = str(e).splitlines()[0].removeprefix("<dict>: ")
            raise TuneError(f"{cfg.source}: evals/{tag}: {line}; the tune stopped, run it again to resume") from None
        self.games_run += r.games_run
        self.played[tag] = games
        self.games = sum(self.played.values())
        return r

    def save(self, status: str):
        rec = self.record
        rec["status"], rec["games"] = status, self.total_games
        seconds = time.perf_counter() - self.start_time
        rec["execution"] = {"workers": self.cfg.workers, "output": str(self.cfg.output), "updated": now(),
                            "seconds": round(seconds, 3), "games_run": self.games_run,
                            "games_per_s": round(self.games_run / seconds, 1) if seconds > 0 else None}
        self.write()

    @property
    def total_games(self) -> int:
        """Games counted against the budget (a rule tune adds its re-fits')."""
        return self.games

    def write(self):
        """Write the folder's files from the record."""
        raise NotImplementedError


class _Tune(Runner):
    def __init__(self, cfg: TuneConfig, folder: Folder, echo):
        super().__init__(cfg, folder, echo)
        self.fair = 1 / cfg.players
        self.style = [m for m, *_ in cfg.style]     # the style's measures (none without a style)
        self.record = {"version": VERSION, "name": cfg.name, "description": cfg.description,
                       "config": cfg.config(), "config_hash": cfg.config_hash(), "status": "running",
                       "start": cfg.start(), "incumbent": cfg.start(), "stages": [], "final": None,
                       "stopped": None, "games": 0, "execution": {}}

    # ---- evaluations
    def labels(self, label: str) -> list[str]:
        """The entrant labels of the ``players - 1`` field seats of an evaluation."""
        return [label + ("" if i == 0 else f"-{i + 1}") for i in range(self.cfg.players - 1)]

    def evaluate(self, tag: str, seat: dict, field_params: dict, seed: int, games: int, chunk: int = 2000,
                 labels=("challenger", "incumbent")):
        """Grow (or play, or find complete) the experiment ``evals/<tag>``:
        ``seat`` in one seat against ``players - 1`` seats of ``field_params``,
        rotated; the :class:`~ttrsim.tune.search.Score` of its first ``games``
        games (a resumed tune finds the folder grown by later rounds)."""
        cfg = self.cfg
        fixed = dict(cfg.params)
        lineup = [{"strategy": cfg.strategy, "params": {**fixed, **seat}, "label": labels[0]}]
        lineup += [{"strategy": cfg.strategy, "params": {**fixed, **field_params}, "label": label}
                   for label in self.labels(labels[1])]
        exp = {"description": f"tune {cfg.name}: {tag}", "rules": cfg.rules, "rule_overrides": cfg.rule_overrides,
               "players": cfg.players, "seating": "rotate", "lineup": lineup, "seed": seed, "chunk_size": chunk}
        r = self.play(tag, exp, games)
        return score(r.path, labels[0], games // cfg.players, self.style)

    # ---- the method
    def run(self) -> TuneResult:
        cfg, rec = self.cfg, self.record
        self.save("running")
        incumbent = dict(rec["start"])
        remaining = cfg.stage_budget
        for stage in range(1, cfg.stages + 1):
            cands = candidates(cfg, stage, incumbent)
            plan = stage_plan(cfg, len(cands), remaining // (cfg.stages - stage + 1)) if cands else None
            if plan is None:
                rec["stopped"] = "budget" if cands else "no candidates left (the ranges hold no other value)"
                break
            st = {"stage": stage, "seed": stage_seed(cfg, stage), "incumbent": dict(incumbent),
                  "candidates": [dict(c, rounds=[]) for c in cands], "rounds": [], "best": None, "accepted": False}
            rec["stages"].append(st)
            alive = list(range(len(cands)))
            for r, (_n, games) in enumerate(plan.rounds, start=1):
                for i in alive:
                    c = st["candidates"][i]
                    s = self.evaluate(f"s{stage:02d}-{c['id']}", c["params"], incumbent, st["seed"], games,
                                      chunk=plan.rounds[0][1])
                    c.update(s.to_json())
                    c["rounds"].append({"round": r, **s.to_json()})
                    self.save("running")
                # a candidate outside the style ranks after every one inside it
                ranked = sorted(alive, key=lambda i: (not in_style(cfg, st["candidates"][i].get("style", {})),
                                                      -st["candidates"][i]["win_share"], i))
                keep = ranked[:1] if r == len(plan.rounds) else ranked[:(len(alive) + 1) // 2]
                top = st["candidates"][ranked[0]]
                st["rounds"].append({"round": r, "candidates": [st["candidates"][i]["id"] for i in alive],
                                     "games": games, "kept": [st["candidates"][i]["id"] for i in keep]})
                self.echo(f"stage {stage} round {r}/{len(plan.rounds)}: {len(alive)} candidates x {games} games; "
                          f"best {top['id']} {_share(top)}")
                alive = keep
            best = st["candidates"][alive[0]]
            st["best"] = best["id"]
            remaining -= plan.games
            best_in, outside = in_style(cfg, best.get("style", {})), False
            if self.style:          # the incumbent's own style, measured in the best candidate's games
                held = style_measures(Results.open(cfg.output / "evals" / f"s{stage:02d}-{best['id']}"),
                                      self.labels("incumbent"), best["games"] // cfg.players, self.style)
                st["incumbent_style"] = {m: round(v, 4) for m, v in held.items()}
                outside = not in_style(cfg, held)
            if best_in and (best["low"] > self.fair + cfg.margin or outside):
                st["accepted"] = True
                incumbent = dict(best["params"])
                rec["incumbent"] = dict(incumbent)
                why = (f"beats the incumbent ({_share(best)}, lower end above {100 * (self.fair + cfg.margin):.1f}%)"
                       if best["low"] > self.fair + cfg.margin else
                       f"replaces the incumbent, which plays outside the style "
                       f"({measures_text(st['incumbent_style'])}; {_share(best)})")
                self.echo(f"stage {stage}: {best['id']} {why}: {_params_text(incumbent)}")
                self.save("running")
            elif outside:
                rec["stopped"] = "no candidate plays in the style"
                self.echo(f"stage {stage}: neither the incumbent ({measures_text(st['incumbent_style'])}) nor any "
                          "candidate plays in the style; give a start inside it (params)")
                self.save("running")
                break
            else:
                rec["stopped"] = "stable"
                self.echo(f"stage {stage}: no challenger beats the incumbent by the margin (best {best['id']} "
                          f"{_share(best)}): stable")
                self.save("running")
                break
        else:
            rec["stopped"] = "stages"
        if incumbent != rec["start"]:
            s = self.evaluate("final", incumbent, rec["start"], stage_seed(cfg, 0), cfg.final_games,
                              labels=("fitted", "start"))
            rec["final"] = {**s.to_json(), "fair": self.fair, "seed": stage_seed(cfg, 0),
                            "beats_start": s.low > self.fair}
            self.echo(f"final: fitted vs start over {s.games} games on fresh seeds: {_share(rec['final'])} "
                      f"(fair {100 * self.fair:.1f}%)")
        return self.finish()

    # ---- the folder
    def write(self):
        write_outputs(self.folder, self.cfg, self.record)

    def finish(self) -> TuneResult:
        self.save("complete")
        rec = self.record
        return TuneResult(path=self.cfg.output, status="complete", best={**self.cfg.params, **rec["incumbent"]},
                          final=rec["final"], games=self.games, games_run=self.games_run,
                          seconds=rec["execution"]["seconds"], record=rec)


def _share(s: dict) -> str:
    return f"{100 * s['win_share']:.1f}% [{100 * s['low']:.1f}%, {100 * s['high']:.1f}%]"


def _params_text(params: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in params.items())
