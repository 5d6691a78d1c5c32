"""What writing a results folder costs: the bytes per game of every table and
how fast one process writes them (docs/performance.md "Scale").

usage: python benchmarks/writer.py RESULTS [--url URL]   (RESULTS: a finished folder of `ttrsim run`)

Reads every part file of RESULTS into memory, then times what the run's
process does per chunk on a local folder (the SHA-256 of the part's bytes and
the atomic write, `Folder.write_atomic`, into a new folder beside /tmp) and,
with --url (e.g. s3://bucket/writer, the endpoint and credentials from the
file system's variables: AWS_ENDPOINT_URL, ...), what a worker does per
chunk into a folder at a URL (`UrlFolder.write_atomic`: one PUT). Prints per
table the bytes per game, then MB/s of each step."""
import sys
import tempfile
import time
from pathlib import Path

from ttrsim.results.folder import Folder, digest
from ttrsim.results.reader import Results

args = sys.argv[1:]
url = args[args.index("--url") + 1] if "--url" in args else None
res = Results.open(args[0])
games = res.n_games
parts = {t: [(Path(f), Path(f).read_bytes()) for f in res.part_files(t)]
         for t in ("games", "players", "tickets", "turns") if res.part_files(t) or t != "turns"}
total = sum(len(b) for ps in parts.values() for _, b in ps)
print(f"{res.path}: {games:,} games, {sum(len(p) for p in parts.values())} part files, {total / 1e6:,.1f} MB")
for t, ps in parts.items():
    size = sum(len(b) for _, b in ps)
    print(f"  {t:8s} {size / 1e6:9,.1f} MB  {size / games:8,.1f} bytes/game")


def timed(what, step):
    t = time.perf_counter()
    for ps in parts.values():
        for f, data in ps:
            step(f, data)
    s = time.perf_counter() - t
    print(f"{what}: {s:.2f} s, {total / 1e6 / s:,.0f} MB/s, {games / s:,.0f} games/s")


timed("sha256", lambda f, data: digest(data))
with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
    local = Folder(Path(tmp))
    local.prepare(parts)
    timed("local write (write_atomic)", lambda f, data: local.write_atomic(local.part(f.parent.name, f.stem[5:]), data))
if url:
    from ttrsim.results.store import UrlFolder
    remote = UrlFolder(url)
    timed(f"{url} write (one PUT a part)",
          lambda f, data: remote.write_atomic(remote.part(f.parent.name, f.stem[5:]), data))
