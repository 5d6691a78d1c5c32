"""The first run's phases: CPU seconds (user + sys) and wall time of `ttrsim ARGS...`.

Runs the CLI in this process and notes, at the start and end of the two-core
compile (ttrsim.cli.compiling.compile_on_two_cores) and of the runner's
warm-up (the loop on top), the wall time and the CPU seconds of this process
and of its waited-for children (the helper process), and lists ttrsim's
functions that the loop on top compiled (only the chunk loop itself when the two
processes compiled everything below it). From an empty cache:

    NUMBA_CACHE_DIR=$(mktemp -d) /usr/bin/time -v python benchmarks/cold_start.py run quickstart --workers 2

(/usr/bin/time adds the workers' CPU: the games phase, with the workers'
start during the loop on top, is its total minus this process's and the
helper's). docs/performance.md has the figures.
"""
import resource
import sys
import time

T0 = time.perf_counter()
MARKS = []


def mark(label):
    own, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    MARKS.append((label, time.perf_counter() - T0, own.ru_utime + own.ru_stime,
                  children.ru_utime + children.ru_stime))


def timed(label, fn, compiled):
    """``fn`` noting its start and end; the names of the functions it compiled appended to ``compiled``."""
    from ttrsim.jit.cache import CompileWatch

    def wrapper(*args, **kwargs):
        mark(f"{label} start")
        try:
            with CompileWatch(on_unit=lambda name, done: compiled.append(name)):
                return fn(*args, **kwargs)
        finally:
            mark(f"{label} end")
    return wrapper


def main():
    from ttrsim import cli
    from ttrsim.experiment import backends

    mark("imported")
    cli.compile_on_two_cores = timed("two cores", cli.compile_on_two_cores, [])
    on_top = []
    backends.warm_up = timed("loop on top", backends.warm_up, on_top)     # (the local backend's warm-up)
    try:
        cli.main(sys.argv[1:], standalone_mode=False)
    finally:
        mark("end")
        for label, wall, own, children in MARKS:
            print(f"{label:18s} wall {wall:7.1f} s   CPU: this process {own:7.1f} s, helper {children:7.1f} s",
                  file=sys.stderr)
        print(f"the loop on top compiled: {', '.join(on_top) or 'nothing'}", file=sys.stderr)


if __name__ == "__main__":
    main()
