"""How a run opens its results folder, under the folder's lock: a new folder
(``manifest.json`` written first, then the description files), the leftovers
of a run killed before its manifest (cleared), or a folder holding the same
experiment, checked and brought up to this run (resumed or grown). Anything
else is refused in one line (:class:`ExperimentError`).

Experiments are compared resolved (:meth:`Experiment.identity`), so writing a
default out changes nothing; ``games`` may grow, never shrink; a new
``description`` is recorded; runs the manifest still calls ``running`` were
killed and are marked so when the run found their lock (a killed run leaves
``ttrsim.lock`` behind), else ``failed``: they ended, releasing the lock,
but could not record it (a full disk) (``docs/experiments.md``, "The run's
life").

>>> _changes({"seed": 1, "points": [{"rules": {"trains": 45}}]},
...          {"seed": 1, "points": [{"rules": {"trains": 40}}]})
['points[0].rules.trains']
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from ttrsim import GAMES_VERSION
from ttrsim.results.folder import DIMS, FORMAT, MAP_FILE, PART_FILES, RULES_FILE, Folder, describe, now, versions
from ttrsim.results.store import ENV_HINT, is_url

from .config import Experiment, ExperimentError

_CHANGED = {MAP_FILE: f"{MAP_FILE} differs: the map file was edited since",
            RULES_FILE: f"{RULES_FILE} differs: this ttrsim resolves the rules otherwise"}


def _changes(old, new, path: str = "") -> list[str]:
    """Where two identities (or configs) differ, as dotted paths, e.g.
    ``seed``, ``points[1].rules.trains``."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new), key=str):
            out += _changes(old.get(k), new.get(k), f"{path}.{k}" if path else str(k))
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [c for i, (a, b) in enumerate(zip(old, new)) for c in _changes(a, b, f"{path}[{i}]")]
    return [] if old == new else [path]


def _resolved_rules(data: dict | None):
    """``rules.json`` without the words it was written with (preset overrides): the parameters."""
    if data is None:
        return None
    return {"base": (data.get("base") or {}).get("params"), "points": [p.get("params") for p in data["points"]]}


def write_error(exp: Experiment, e: OSError, after: str = "") -> ExperimentError:
    """The one line of an ``OSError`` writing the results folder, naming the
    file (not its temporary name ``<name>.<pid>.tmp``); for a folder at a
    URL, the URL, what the file system said and where its settings come from."""
    name = os.fspath(e.filename) if e.filename else None
    if name is not None:
        name = re.sub(r"\.\d+(-[0-9a-f]+)?\.tmp$", "", name)
    if is_url(exp.output):
        return ExperimentError(f"{exp.source}: output: {exp.output}: {e.strerror or e}{f' ({name})' if name else ''}"
                               f"; expected a bucket (or folder) that exists, that these credentials may read and "
                               f"write ({ENV_HINT}){'; ' + after if after else ''}")
    what = f"cannot write {name}" if name else "cannot write the results folder"
    return ExperimentError(f"{exp.source}: output: {what} ({e.strerror or e}); expected a writable folder with "
                           f"free space{'; ' + after if after else ''}")


def open_folder(exp: Experiment, folder: Folder, path_or_dict, overwrite: bool, echo,
                killed: bool = True) -> tuple[dict, int | None]:
    """The folder's manifest, checked against the experiment, or a new folder
    (the manifest written first); under the lock. Returns it and, when the run
    grows, the games per point it held. ``killed``: the lock was left by a
    run that died (:meth:`FolderLock.acquire`): a run still ``running`` in
    the manifest was killed, else it ended without recording its end."""
    m, described = describe(exp)
    config, identity = exp.config(), exp.identity()
    manifest = stored = None
    if folder.has_manifest():
        try:
            manifest = folder.read_manifest(exp.source)
            stored = {name: folder.read_json(name, exp.source) for name in described}
        except ExperimentError:
            if not overwrite:
                raise
            manifest = None
    elif folder.has_other_files():
        echo(f"note: {folder.root} holds the leftovers of a run killed before it wrote its manifest; "
             "starting it over")
        folder.remove_results()
    tables = ["games", "players", "tickets"] + (["turns"] if exp.log else [])
    grown = None
    if manifest is not None and not overwrite:
        grown = _check_same(exp, folder, manifest, identity, stored, described)
        _resume(exp, folder, manifest, m, described, stored, tables, grown, echo, killed)
        return manifest, grown
    # ---- a new folder (or one started over): the manifest first, so a kill from here on leaves a folder
    # the next run recognises
    if overwrite:
        folder.remove_results()
    manifest = {"format": FORMAT, "games_version": GAMES_VERSION, "tool": "ttrsim", "experiment": exp.source,
                "experiment_path": None if isinstance(path_or_dict, dict) else str(Path(path_or_dict).resolve()),
                "description": exp.description, "config": config, "identity": identity,
                "config_hash": exp.config_hash(), "execution": exp.execution(), "versions": versions(),
                "layout": {"block_size": exp.block_size, "chunk_games": exp.chunk_games, "stride": exp.stride,
                           "games_per_point": exp.games, "tables": tables, "part_files": PART_FILES},
                "status": "running", "created": now(), "points": {}, "chunks": {}, "runs": [],
                **({"refits": list(exp.refits)} if exp.refits else {})}
    folder.write_manifest(manifest)
    folder.prepare(tables)
    folder.write_description(exp, m, described)
    return manifest, None


def _check_same(exp, folder, manifest, identity, stored, described) -> int | None:
    """Refuse (one line) a folder that holds another experiment; the games per
    point it held when the run grows, else None."""
    where = f"{exp.source}: output: {exp.output}"
    if manifest.get("format") != FORMAT or "config" not in manifest:
        raise ExperimentError(f"{where} holds a manifest of another format; expected a ttrsim results folder "
                              "(use --overwrite to start over)")
    if manifest.get("games_version", 1) != GAMES_VERSION:
        raise ExperimentError(f"{where} was played by games version {manifest.get('games_version', 1)} (this "
                              f"ttrsim plays version {GAMES_VERSION}: the same seeds give other games); expected a "
                              "folder of this version to resume, or --overwrite to start over")
    if "identity" in manifest:
        diff = _changes(manifest["identity"], identity)
    else:                          # a folder of an older ttrsim: its config as written
        old, new = dict(manifest["config"]), exp.config()
        old.pop("games"), new.pop("games")
        diff = _changes(old, new)
    if diff:
        more = f" and {len(diff) - 3} more" if len(diff) > 3 else ""
        raise ExperimentError(f"{where} holds a different experiment (changed: {', '.join(diff[:3])}{more}); "
                              "expected the same experiment to resume, or --overwrite to start over")
    changed = [_CHANGED[name] for name, data in described.items() if stored[name] is not None and (
        stored[name] != data if name == MAP_FILE else _resolved_rules(stored[name]) != _resolved_rules(data))]
    if changed:
        raise ExperimentError(f"{where} was played with another map or rule set ({'; '.join(changed)}); expected "
                              "the same map and rules to resume, or --overwrite to start over")
    held, layout = int(manifest["config"]["games"]), manifest["layout"]
    if exp.games < held:
        finished = sum(int(c["hi"]) - int(c["lo"]) for c in (manifest.get("chunks") or {}).values())
        raise ExperimentError(f"{exp.source}: games: {exp.games:,} per point are fewer than the {held:,} per point the "
                              f"folder {exp.output} was run with (it holds {finished:,} finished game"
                              f"{'' if finished == 1 else 's'}); expected at least {held:,} (a run grows, never "
                              "shrinks), or --overwrite to start over")
    if exp.games > held and len(exp.points) > 1 and exp.games > layout["stride"]:
        raise ExperimentError(f"{exp.source}: games: {exp.games:,} per point do not fit the folder {exp.output}, "
                              f"whose game ids are point x {layout['stride']:,} + number; expected at most "
                              f"{layout['stride']:,}, or --overwrite to start over")
    return held if exp.games > held else None


def _resume(exp, folder, manifest, m, described, stored, tables, grown, echo, killed=True):
    """Bring a checked manifest up to this run: growth, description,
    execution, runs killed earlier (or failed unrecorded); the folder's
    missing files."""
    if grown is not None:
        echo(f"note: growing from {grown:,} to {exp.games:,} games per point: the {grown:,} played are kept and "
             f"unchanged, games {grown:,} to {exp.games - 1:,} are played (the next seed blocks; a last chunk cut "
             "short is played again whole)")
        manifest["config"]["games"] = manifest["layout"]["games_per_point"] = exp.games
        if len(exp.points) == 1:
            manifest["layout"]["stride"] = exp.games        # one point: the ids are the game numbers
        manifest.pop("summary", None)
        manifest.pop("points_summary", None)
    if exp.description != manifest.get("description"):
        echo(f"note: new description recorded (was: {manifest.get('description')!r})")
        manifest.setdefault("descriptions", []).append({"until": now(), "description": manifest.get("description")})
        manifest["description"] = exp.description
    for run in manifest["runs"]:
        if run.get("status") == "running":       # we hold the lock: that run is dead
            # killed, leaving its lock file; or it ended (the lock released) unable to write its end
            run["status"] = "killed" if killed else "failed"
    per_chunk = manifest["layout"]["chunk_games"]
    if per_chunk != exp.chunk_games:
        echo(f"note: resuming with the folder's chunk size ({per_chunk} games), not {exp.chunk_games}")
    now_v, then_v = versions(), manifest.get("versions", {})
    if (now_v.get("ttrsim"), now_v.get("ttrsim_commit")) != (then_v.get("ttrsim"), then_v.get("ttrsim_commit")):
        echo(f"note: the folder was started with ttrsim {then_v.get('ttrsim')} "
             f"({then_v.get('ttrsim_commit', '?')}); resuming with {now_v.get('ttrsim')} "
             f"({now_v.get('ttrsim_commit', '?')})")
    manifest["execution"] = dict(exp.execution(), chunk_size=per_chunk)
    if exp.refits:
        manifest["refits"] = list(exp.refits)       # (the same fits: their parameters are in the identity)
    manifest.setdefault("identity", exp.identity())
    manifest.setdefault("config_hash", exp.config_hash())
    folder.prepare(tables)
    if None in stored.values() or not all(folder.exists("dims", f"{d}.parquet") for d in DIMS):
        folder.write_description(exp, m, described)     # a folder of an older ttrsim, or killed while starting
