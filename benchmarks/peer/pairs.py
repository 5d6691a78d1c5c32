#!/usr/bin/env python3
"""Interleaved A/B throughput pairs: run command A then command B, N times,
each pinned with taskset; parse the games_per_s figures from each run's JSON
output and print every pair's ratio and the medians.

usage: SCRATCH=DIR pairs.py N LABEL 'COMMAND A' 'COMMAND B'   (the log: DIR/perf/pairs_LABEL.jsonl)
A and B print JSON: a list of rows (ttrsim bench --json) or one object per line
(the peer bench). Figures are keyed by strategy/mode name; with several rows in
A, each A row is paired against B's single figure.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def figures(out):
    out = out.strip()
    rows = []
    try:
        data = json.loads(out)
        rows = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        for line in out.splitlines():
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return {(r.get("strategy") or r.get("mode")): float(r["games_per_s"]) for r in rows}, rows

def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    n, label, cmd_a, cmd_b = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    res_a, res_b = [], []
    log = open(os.path.expandvars(f"$SCRATCH/perf/pairs_{label}.jsonl"), "w")
    for i in range(n):
        for cmd, res, tag in ((cmd_a, res_a, "A"), (cmd_b, res_b, "B")):
            t = time.time()
            p = subprocess.run(["taskset", "-c", "1"] + shlex.split(cmd), capture_output=True, text=True)
            if p.returncode:
                sys.exit(f"{tag} failed: {p.stderr[-2000:]}")
            f, rows = figures(p.stdout)
            res.append(f)
            log.write(json.dumps({"pair": i, "side": tag, "wall": round(time.time() - t, 2), "rows": rows}) + "\n")
            log.flush()
        print(f"pair {i}: A {res_a[-1]}  B {res_b[-1]}", flush=True)
    (kb,) = res_b[0].keys()
    print(f"== {label}: A = {cmd_a}\n   B = {cmd_b}")
    for ka in res_a[0]:
        a = [r[ka] for r in res_a]
        b = [r[kb] for r in res_b]
        ratios = [x / y for x, y in zip(a, b)]
        print(f"{label} {ka} vs {kb}: A median {statistics.median(a):.1f} [{min(a):.1f}..{max(a):.1f}]  "
              f"B median {statistics.median(b):.1f} [{min(b):.1f}..{max(b):.1f}]  "
              f"ratio A/B per pair {[round(r, 3) for r in ratios]}  median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
