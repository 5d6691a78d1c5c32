"""Run (or resume) a rule tune into its folder (``docs/tune.md`` "Tuning a
rule"): :class:`RuleTune`, started by :func:`ttrsim.tune.run.tune`, which
holds the folder's lock, the signals and the resume checks of every tune.

Each candidate value is an ordinary experiment in ``evals/<param>-<value>/``:
the lineup seat-rotated under the rule override, on the tune seed (every
value plays the same deals), grown look by look
(:class:`~ttrsim.tune.rule_search.RuleSearch`). tune.json is written after
every look; a resumed tune replays the search over the folders already
played and gives the same files.

With ``refit``, each value first re-fits the named entrants by the strategy
tuner (:func:`ttrsim.tune.run.tune`, self-play under the rule override, in
``refit/<param>-<value>/<label>/``, a folder that resumes like any tune), and
the value's evaluation seats the re-fitted parameters for those labels.
"""
from __future__ import annotations

from .config import TuneError
from .rule_config import RuleTuneConfig
from .rule_output import look_text, stopped_text, target_text, write_rule_outputs
from .rule_search import MET, RuleSearch, block_quantity, look_of
from .run import VERSION, Runner, TuneResult


class RuleTune(Runner):
    def __init__(self, cfg: RuleTuneConfig, folder, echo):
        super().__init__(cfg, folder, echo)
        self.record = {"version": VERSION, "kind": "rules", "name": cfg.name, "description": cfg.description,
                       "config": cfg.config(), "config_hash": cfg.config_hash(), "status": "running",
                       "target": target_text(cfg), "evaluations": [], "chosen": None, "stopped": None, "games": 0,
                       "execution": {}}
        if cfg.refit:
            self.record["refit_games"] = 0
        self.refits: dict[int, dict] = {}      # value -> {label: the re-fit's record entry}

    @property
    def total_games(self) -> int:
        return self.games + sum(r["games"] for fits in self.refits.values() for r in fits.values())

    def prepare(self, value: int) -> tuple[int, dict]:
        """Re-fit every refit entry at ``value`` (or find it done): its games and record entry."""
        from .run import tune
        cfg, fits = self.cfg, {}
        for r in cfg.refit:
            try:
                res = tune(cfg.refit_tune(r, value), progress=False, echo=False)
            except TuneError as e:
                self.save("failed")
                raise TuneError(f"{cfg.source}: refit/{cfg.param}-{value}/{r['label']}: "
                                f"{str(e).removeprefix('<dict>: ')}") from None
            self.games_run += res.games_run
            fits[r["label"]] = {"params": {k: res.best[k] for k in r["fit"]}, "games": res.games,
                                "stopped": res.record["stopped"]}
            self.echo(f"{cfg.param} {value}: {r['label']} re-fitted in {res.games:,} games: "
                      + ", ".join(f"{k} {v:g}" for k, v in fits[r["label"]]["params"].items()))
        self.refits[value] = fits
        self.record["refit_games"] = self.total_games - self.games
        return sum(f["games"] for f in fits.values()), fits

    def evaluate(self, value: int, games: int):
        """The :class:`~ttrsim.tune.rule_search.Look` of the first ``games`` games at ``value``."""
        cfg = self.cfg
        tag = f"{cfg.param}-{value}"
        fits = self.refits.get(value, {})         # the re-fitted labels seat their re-fitted parameters
        lineup = [{**e, "params": {**e["params"], **fits[e["label"]]["params"]}} if e["label"] in fits else e
                  for e in cfg.lineup]
        exp = {"description": f"tune {cfg.name}: {cfg.param} = {value}", "rules": cfg.rules,
               "rule_overrides": {**cfg.rule_overrides, cfg.param: value}, "players": cfg.players,
               "seating": "rotate", "lineup": lineup, "seed": cfg.seed, "chunk_size": cfg.min_games}
        r = self.play(tag, exp, games)
        return look_of(block_quantity(r.path, cfg, value, games // cfg.players), cfg.players)

    def on_look(self, entry: dict):
        self.save("running")
        self.echo(f"{self.cfg.param} {entry['value']}: {look_text(self.cfg, entry)} -> {entry['verdict']} "
                  f"({self.total_games:,} of {self.cfg.budget:,} games)")

    def run(self) -> TuneResult:
        cfg, rec = self.cfg, self.record
        self.save("running")
        chosen, why = RuleSearch(cfg, self.evaluate, self.on_look, rec["evaluations"], self.prepare).run()
        rec["stopped"] = why
        rec["chosen"] = {"value": chosen["value"], **{k: chosen[k] for k in ("games", "estimate", "low", "high")},
                         "goal": cfg.target[2], "tolerance": cfg.tolerance, "met": why == MET,
                         "text": look_text(cfg, chosen)}
        self.echo(f"{'target met' if why == MET else 'target not met: ' + stopped_text(why)}: {cfg.param} "
                  f"{chosen['value']}, {look_text(cfg, chosen)}")
        self.save("complete")
        return TuneResult(path=cfg.output, status="complete", best={cfg.param: chosen["value"]},
                          final=rec["chosen"], games=self.total_games, games_run=self.games_run,
                          seconds=rec["execution"]["seconds"], record=rec)

    def write(self):
        write_rule_outputs(self.folder, self.cfg, self.record)
