"""Results in object storage (docs/cluster.md "Results in object storage"):
an S3-compatible server started here (moto in server mode on 127.0.0.1, a
free port), a two-worker Dask LocalCluster whose workers write the part files
to ``s3://ttrsim/...`` themselves, and the folder compared with a local run
of the same experiment byte for byte: every part file, and the manifest's
rows, bytes and SHA-256 of every chunk; also after the run grew, and after a
kill (chunks lost, a stray part, a temporary file, the lock left behind) was
resumed. The readers (``Results.open``, ``ttrsim.open``, ``ttrsim report``)
read the URL as a folder; a bad URL, a missing bucket or a missing s3fs is
one line naming ``output``.

Needs the ``s3`` extra (s3fs) and moto's server (the ``test`` extra): the
module is skipped, saying which is missing, without them."""
import importlib
import json
import logging
import os
import socket
import sys

import pytest
from click.testing import CliRunner

s3fs = pytest.importorskip("s3fs", reason="needs s3fs: pip install 'ttrsim[s3]'")
moto_server = pytest.importorskip("moto.server", reason="needs moto's server: pip install 'moto[server]' (the test "
                                                        "extra)")
distributed = pytest.importorskip("distributed", reason="needs dask's distributed: pip install 'ttrsim[dask]'")

import ttrsim  # noqa: E402
from ttrsim.cli import main  # noqa: E402
from ttrsim.experiment.config import ExperimentError  # noqa: E402
from ttrsim.experiment.runner import run_experiment  # noqa: E402
from ttrsim.results.reader import Results, ResultsError  # noqa: E402

TABLES = ("games", "players", "tickets", "turns")
SORT = {"games": ["game"], "players": ["game", "seat"], "tickets": ["game"], "turns": ["game", "turn"]}
BUCKET = "ttrsim"


def exp(**kw):
    d = {"name": "small", "rules": "usa", "players": 3, "lineup": ["random", "route_focus", "random"],
         "games": 120, "seed": 42, "log": True, "workers": 1, "chunk_size": 30}
    d.update(kw)
    return d


@pytest.fixture(scope="module")
def s3():
    """A moto S3 server on 127.0.0.1 (a free port) with the bucket ``ttrsim``;
    its storage options (endpoint, test credentials), also set as the AWS
    variables for the readers that take none."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)        # (one line per request otherwise)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    options = {"endpoint_url": f"http://{host}:{port}", "key": "testing-key", "secret": "testing-secret"}
    with pytest.MonkeyPatch.context() as mp:
        for k, v in {"AWS_ENDPOINT_URL": options["endpoint_url"], "AWS_ACCESS_KEY_ID": options["key"],
                     "AWS_SECRET_ACCESS_KEY": options["secret"], "AWS_EC2_METADATA_DISABLED": "true"}.items():
            mp.setenv(k, v)
        fs = s3fs.S3FileSystem(**options)
        fs.mkdir(BUCKET)
        yield options, fs
    server.stop()


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as c:
        yield c


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The experiment on a local folder, in this process (chunks of 30 games)."""
    r = run_experiment(exp(), output=tmp_path_factory.mktemp("ref") / "ref", progress=False, echo=False)
    assert r.status == "complete" and r.games == 120
    return r


def assert_same_folder(reference, fs, url):
    """Every file of ``url`` has the bytes of the local run's (and there is no
    other), and its manifest records every chunk as the local one does."""
    prefix = url.removeprefix("s3://")
    local = reference.manifest["chunks"]
    remote = json.loads(fs.cat_file(f"{prefix}/manifest.json"))
    assert remote["status"] == "complete" and sorted(remote["chunks"]) == sorted(local)
    tables = reference.manifest["layout"]["tables"]
    for key, rec in local.items():
        assert {k: remote["chunks"][key][k] for k in ("lo", "hi", "rows", "bytes", "sha256")} == \
            {k: rec[k] for k in ("lo", "hi", "rows", "bytes", "sha256")}, key
        for t in tables:
            name = f"{t}/part-{key}.parquet"
            assert fs.cat_file(f"{prefix}/{name}") == (reference.path / name).read_bytes(), name
    stored = {f.removeprefix(prefix + "/") for f in fs.find(prefix)}
    assert stored == {f"{t}/part-{k}.parquet" for t in tables for k in local} | {
        "manifest.json", "map.json", "rules.json", *(f"dims/{d}.parquet" for d in ("routes", "tickets", "strategies",
                                                                                   "points"))}
    for name in ("map.json", "rules.json", *(f"dims/{d}.parquet" for d in ("routes", "tickets", "strategies",
                                                                          "points"))):
        assert fs.cat_file(f"{prefix}/{name}") == (reference.path / name).read_bytes(), name
    return remote


def test_two_dask_workers_write_to_s3_the_tables_of_a_local_run_also_grown(s3, cluster, reference, tmp_path):
    options, fs = s3
    url = f"s3://{BUCKET}/grown"
    notes = []
    half = run_experiment(exp(games=60, storage_options=options), output=url, scheduler=cluster.scheduler_address,
                          progress=False, echo=notes.append)
    assert half.status == "complete" and half.games == 60 and half.path == url
    whole = run_experiment(exp(storage_options=options), output=url, scheduler=cluster.scheduler_address,
                           progress=False, echo=notes.append)
    assert whole.games_run == 60 and any(n.startswith("note: growing from 60 to 120 games") for n in notes)
    m = assert_same_folder(reference, fs, url)
    # the workers wrote the parts (the manifest names the process that played each chunk), not this process
    with distributed.Client(cluster) as client:
        pids = set(client.run(os.getpid).values())
    assert {c["pid"] for c in m["chunks"].values()} <= pids and os.getpid() not in pids
    assert [(r["status"], r.get("grown_from")) for r in m["runs"]] == [("complete", None), ("complete", 60)]
    # the secrets are not in the manifest; the endpoint is
    assert m["execution"]["storage_options"] == {"endpoint_url": options["endpoint_url"], "key": "<hidden>",
                                                 "secret": "<hidden>"}
    assert options["secret"] not in fs.cat_file(f"{BUCKET}/grown/manifest.json").decode()
    assert whole.summary == reference.summary
    # the readers: Results, ttrsim.open (storage options given, or from the environment), RunResult.scan
    res = Results.open(url, options)
    assert res.note is None and res.n_games == 120 and res.path == url
    for t in TABLES:
        want = reference.table(t)
        assert res.scan(t).collect().sort(SORT[t], maintain_order=True).equals(want), t
        assert whole.table(t).equals(want), t
    here, there = ttrsim.open(reference.path), ttrsim.open(url)
    for name in here:
        assert there[name].collect().equals(here[name].collect()), name
    assert there.files("games")[0] == f"{url}/games/part-0000-000000.parquet"


def test_a_stop_rule_on_s3_gives_the_local_tables(s3, tmp_path):
    """A point with a stop rule: the run's process cuts its last chunk and
    writes its parts into the folder at the URL itself."""
    options, fs = s3
    d = exp(games=None, stop={"strategy": "route_focus", "width": 0.35, "min_games": 12, "max_games": 600},
            chunk_size=21, log=False)
    here = run_experiment(d, output=tmp_path / "here", progress=False, echo=False)
    assert here.manifest["points"]["0"]["stopped_at"] < 600
    there = run_experiment(dict(d, storage_options=options), output=f"s3://{BUCKET}/stop", progress=False,
                           echo=False)
    assert there.manifest["points"] == here.manifest["points"]
    assert_same_folder(here, fs, f"s3://{BUCKET}/stop")


def test_a_killed_run_on_s3_resumes_to_the_local_tables(s3, cluster, reference, tmp_path, monkeypatch):
    """A run killed on the S3 folder: two chunks never recorded (one with
    its parts written, as a worker leaves them, one without), a temporary
    file, the manifest still says running and the lock object is left by a
    process of this host that is gone. The same command (the CLI, the file's
    storage options) takes the lock over, plays the two chunks on the
    cluster's workers, deletes the strays, and ends with the local tables."""
    options, fs = s3
    url, prefix = f"s3://{BUCKET}/killed", f"{BUCKET}/killed"
    f = tmp_path / "small.yaml"
    f.write_text(json.dumps(exp(storage_options=options)))          # JSON is YAML
    run_experiment(f, output=url, scheduler=cluster.scheduler_address, progress=False, echo=False)
    m = json.loads(fs.cat_file(f"{prefix}/manifest.json"))
    for key in ("0000-000001", "0000-000003"):
        del m["chunks"][key]
    for t in TABLES:
        fs.rm_file(f"{prefix}/{t}/part-0000-000003.parquet")
    fs.pipe_file(f"{prefix}/games/part-0000-000002.parquet.123-abc.tmp", b"half")
    m["status"] = m["runs"][-1]["status"] = "running"
    fs.pipe_file(f"{prefix}/manifest.json", json.dumps(m).encode())
    gone = 2 ** 22 + 12345                                          # (beyond any pid_max: no such process)
    fs.pipe_file(f"{prefix}/ttrsim.lock", json.dumps({"pid": gone, "host": socket.gethostname(),
                                                      "started": m["created"], "renewed": m["created"],
                                                      "token": "x"}).encode())
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["run", str(f), "--output", url, "--scheduler", cluster.scheduler_address,
                                  "--no-progress"])
    assert r.exit_code == 0, r.output
    assert f"note: took over the lock of a run that ended without releasing it (pid {gone} on " in r.output
    assert "60 games in" in r.output and r.output.endswith(f"results: {url}\n")
    m = assert_same_folder(reference, fs, url)                      # (also: no stray, no lock object left)
    assert [run["status"] for run in m["runs"]] == ["killed", "complete"]


def test_a_live_lock_refuses_a_second_run_and_a_stale_one_is_taken_over(s3, tmp_path):
    options, fs = s3
    url, lock = f"s3://{BUCKET}/locked", f"{BUCKET}/locked/ttrsim.lock"
    from ttrsim.results.folder import now
    fs.pipe_file(lock, json.dumps({"pid": 4242, "host": "elsewhere", "started": "2026-01-01T00:00:00+00:00",
                                   "renewed": now(), "token": "x"}).encode())
    with pytest.raises(ExperimentError) as e:
        run_experiment(exp(games=6, storage_options=options), output=url, progress=False, echo=False)
    assert str(e.value) == (f"<dict>: output: {url} is in use by another ttrsim run (pid 4242 on elsewhere, started "
                            "2026-01-01T00:00:00+00:00); expected one run at a time per folder: wait for it to end or "
                            "stop it (a lock not renewed for 60 s is taken over)")
    assert fs.find(f"{BUCKET}/locked") == [lock]                    # nothing written
    fs.pipe_file(lock, json.dumps({"pid": 4242, "host": "elsewhere", "started": "2026-01-01T00:00:00+00:00",
                                   "renewed": "2026-01-01T00:00:00+00:00", "token": "x"}).encode())
    notes = []
    r = run_experiment(exp(games=6, storage_options=options), output=url, progress=False, echo=notes.append)
    assert r.status == "complete" and not fs.exists(lock)
    assert "note: took over the lock of a run that ended without releasing it (pid 4242 on elsewhere, started " \
           "2026-01-01T00:00:00+00:00)" in notes


def test_a_run_whose_lock_was_taken_over_stops_at_its_next_manifest_write(s3, monkeypatch):
    """The lock is renewed while the run holds it; when another run has
    taken it over (this one was silent for longer than STALE), the renewal
    sees it and the next manifest write stops the run in one line, leaving
    the other run's lock alone."""
    import time

    from ttrsim.results.folder import now
    from ttrsim.results.store import ObjectLock, UrlFolder
    options, fs = s3
    monkeypatch.setattr(ObjectLock, "RENEW", 0.05)
    folder = UrlFolder(f"s3://{BUCKET}/lost", options)
    lock = folder.lock()
    assert lock.acquire() is None
    first = json.loads(fs.cat_file(lock.path))
    time.sleep(1.1)
    assert json.loads(fs.cat_file(lock.path))["renewed"] > first["renewed"]          # renewed
    other = {"pid": 1, "host": "elsewhere", "started": now(), "renewed": now(), "token": "other"}
    fs.pipe_file(lock.path, json.dumps(other).encode())
    deadline = time.monotonic() + 10
    while lock.lost is None and time.monotonic() < deadline:
        time.sleep(0.05)
    with pytest.raises(ExperimentError, match=r"^output: s3://ttrsim/lost: another run took this run's lock over "
                                              r"\(pid 1 on elsewhere, started "):
        folder.write_manifest({})
    lock.release()
    assert json.loads(fs.cat_file(lock.path)) == other and not fs.exists(f"{BUCKET}/lost/manifest.json")


def test_the_report_reads_the_folder_from_s3(s3, reference, tmp_path, monkeypatch):
    """``ttrsim schema`` and the report of the URL (the endpoint and
    credentials from the AWS variables) say what they say of a local copy;
    the report is written here, to report-<name>."""
    from ttrsim.report.document import build_report
    options, fs = s3
    url = f"s3://{BUCKET}/copy"
    fs.put(str(reference.path), f"{BUCKET}/copy", recursive=True)
    monkeypatch.chdir(tmp_path)
    remote = CliRunner().invoke(main, ["schema", url, "--json"])
    local = CliRunner().invoke(main, ["schema", str(reference.path), "--json"])
    assert remote.exit_code == 0, remote.output
    assert json.loads(remote.stdout)["tables"] == json.loads(local.stdout)["tables"]
    there = build_report(url, formats=("md",), images=(), resamples=10)       # (no charts: seconds, not tens)
    here = build_report(reference.path, output=tmp_path / "here", formats=("md",), images=(), resamples=10)
    assert there.folder.resolve() == (tmp_path / "report-small").resolve() and not there.problems + here.problems
    assert [t.name for t in there.tables] == [t.name for t in here.tables]
    for a, b in zip(there.tables, here.tables):
        assert a.read_text() == b.read_text(), a.name


def test_a_bad_url_a_missing_bucket_or_a_missing_s3fs_is_one_line(s3, tmp_path, monkeypatch):
    options, fs = s3
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def run(output, **kw):
        f = tmp_path / "bad.yaml"
        f.write_text(json.dumps(exp(games=6, output=output, **kw)))
        r = runner.invoke(main, ["run", str(f), "--no-progress"])
        assert r.exit_code == 1 and "Traceback" not in r.output, r.output
        assert r.output.count("\n") == 1, r.output
        return r.output

    assert run("nosuch://bucket/run") == ("Error: bad.yaml: output: 'nosuch://bucket/run' has an unknown protocol "
                                          "'nosuch://'; expected a folder path or an fsspec URL such as "
                                          "s3://BUCKET/FOLDER\n")
    assert run("s3://") == "Error: bad.yaml: output: 's3://' names no bucket or folder; expected s3://BUCKET/FOLDER\n"
    assert run("s3://no-such-bucket/run", storage_options=options).startswith(
        "Error: bad.yaml: output: s3://no-such-bucket/run: The specified bucket does not exist")
    assert not fs.exists("no-such-bucket")
    assert run("results/x", storage_options=options) == (
        "Error: bad.yaml: storage_options: only used with an output URL (s3://BUCKET/FOLDER); expected no "
        "storage_options for the folder results/x\n")
    with pytest.raises(ResultsError, match=r"^s3://no-such-bucket/run: no manifest.json; expected the output folder "
                                           "of 'ttrsim run'$"):
        Results.open("s3://no-such-bucket/run")
    # without s3fs
    monkeypatch.delitem(importlib.import_module("fsspec.registry")._registry, "s3", raising=False)
    monkeypatch.setitem(sys.modules, "s3fs", None)
    assert run("s3://ttrsim/run") == ("Error: bad.yaml: output: s3://ttrsim/run needs an optional dependency "
                                      "(Install s3fs to access S3); expected it installed: pip install "
                                      "'ttrsim[s3]' for s3://, gcsfs for gs://, adlfs for az://\n")
    r = runner.invoke(main, ["report", "s3://ttrsim/run"])
    assert r.exit_code == 1 and r.output.startswith("Error: s3://ttrsim/run needs an optional dependency"), r.output
