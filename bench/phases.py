"""Where syncheck's time goes on real files, as ratios measured in one run.

    python bench/phases.py [-I DIR ...] [--limit N] [--cuda-headers auto] [--jobs 2] PATH ...

For every file (folders are searched like the CLI does, in sorted order): the bare libclang
parse with syncheck's own flags (model headers, the same -I flags, no precompiled header),
then syncheck in this
process (no worker, no cache) with each phase timed exclusively:
  parse      libclang parses (model headers, and the real-header reparse of `auto` mode)
  lowering   copying cursors into the IR (ProgramBuilder, and lazy host bodies)
  solver     z3 work of the shared-memory race analysis (pairs sent to the solver)
  analyses   everything else: uniformity, barrier intervals, races' fast path, the checks
Prints per-phase totals and shares, syncheck / bare parse (the ratio the issue targets),
files/s (in process, one core), the slowest files, the race pairs decided by the fast path
vs the solver, and then (with --jobs) the end-to-end CLI pipeline with worker processes:
files/s, the same ratio against the bare parse divided over the same number of processes,
and the peak RSS of the largest worker. Timings on a shared machine are noisy; the ratios
come from the same run and the same files. Every time is the process's CPU time
(time.process_time: libclang and z3 run in this process), so other programs' load on the
machine does not inflate it; the CLI pipeline reports wall time and its workers' CPU time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(os.environ.get("SYNCHECK_ROOT", Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(ROOT))

from syncheck import engine, header_choice  # noqa: E402
from syncheck.analyses import races, symbolic  # noqa: E402
from syncheck.engine import Settings, analyze_file, analyze_paths, discover, read_source  # noqa: E402
from syncheck.diagnostics import Report  # noqa: E402
from syncheck.frontend import precompiled  # noqa: E402
from syncheck.frontend.parse import ParseOptions, parse_source  # noqa: E402
from syncheck.include_policy import IncludePolicy, guarding, project_roots  # noqa: E402
from syncheck.ir import nodes  # noqa: E402


class Clock:
    """Exclusive time per phase: entering a phase pauses the enclosing one."""

    def __init__(self):
        self.totals: dict[str, float] = {}
        self.stack: list[list] = []

    @contextlib.contextmanager
    def phase(self, name: str):
        now = time.process_time()
        if self.stack:
            outer = self.stack[-1]
            self.totals[outer[0]] = self.totals.get(outer[0], 0.0) + now - outer[1]
        entry = [name, now]
        self.stack.append(entry)
        try:
            yield
        finally:
            end = time.process_time()
            self.stack.pop()
            self.totals[name] = self.totals.get(name, 0.0) + end - entry[1]
            if self.stack:
                self.stack[-1][1] = end


def wrap(owner, attr: str, clock: Clock, name: str) -> None:
    original = getattr(owner, attr)

    def timed(*a, **kw):
        if clock.stack and clock.stack[-1][0] == name:  # recursion: already counted
            return original(*a, **kw)
        with clock.phase(name):
            return original(*a, **kw)
    setattr(owner, attr, timed)


LOWERED = {"functions": 0, "unreached library functions": 0}


def instrument(clock: Clock) -> None:
    wrap(header_choice, "_parse", clock, "parse")
    original_build = header_choice.build_program

    def counted(parsed):
        program = original_build(parsed)
        LOWERED["functions"] += len(program.functions)
        LOWERED["unreached library functions"] += getattr(program, "unreached_library", 0)
        return program
    header_choice.build_program = counted
    wrap(header_choice, "build_program", clock, "lowering")
    wrap(nodes.Lowerer, "lower", clock, "lowering")
    for module, name in ((races, "_check_pair"), (symbolic, "same_for_every_thread"),
                         (symbolic, "lane_outside_mask")):
        if hasattr(module, name):
            wrap(module, name, clock, "solver")


def options_from(args) -> ParseOptions:
    return ParseOptions(include_dirs=tuple(os.path.abspath(d) for d in args.I),
                        defines=tuple(args.D))


def run_pipeline(files: list[str], options: ParseOptions, policy, args) -> tuple[float, float, float]:
    """The CLI pipeline with worker processes: (wall s, workers' CPU s, largest worker's peak RSS MiB)."""
    par = Settings(parse=options, cuda_headers=args.cuda_headers, jobs=args.jobs, timeout=None,
                   include_policy=policy)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    analyze_paths(files, par)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-I", action="append", default=[])
    ap.add_argument("-D", action="append", default=[])
    ap.add_argument("--cuda-headers", default="auto")
    ap.add_argument("--limit", type=int, default=0, help="at most N files (an even sample)")
    ap.add_argument("--jobs", type=int, default=0, help="also run the CLI pipeline with N workers")
    ap.add_argument("--slowest", type=int, default=5)
    ap.add_argument("--cold", action="store_true",
                    help="first remove the precompiled include and system prefixes from the user cache")
    args = ap.parse_args(argv)
    files = sorted(discover(args.paths, Report()), key=lambda p: os.path.realpath(p))
    files = [f for f in files if f.endswith((".cu", ".cuh"))]
    if args.limit and len(files) > args.limit:
        step = len(files) / args.limit
        files = [files[int(i * step)] for i in range(args.limit)]
    options = options_from(args)
    # as the CLI does: the analyzed paths' project and the -I folders may be included from
    policy = IncludePolicy.for_run(project_roots(args.paths), tuple(os.path.abspath(d) for d in args.I))
    settings = Settings(parse=options, cuda_headers=args.cuda_headers, isolate=False, timeout=None,
                        include_policy=policy)
    print(f"{len(files)} files; flags: {' '.join('-I ' + d for d in args.I)}; headers: {args.cuda_headers}; "
          f"{os.cpu_count()} cores", flush=True)
    if args.cold:
        for pattern in ("prefix-*", "system-*", ".system-*"):
            for stale in precompiled.pch_dir().glob(pattern):
                stale.unlink(missing_ok=True)
    # warm the OS cache and libclang once, outside the measurements
    engine._prepare_for_workers(settings)
    # the CLI pipeline first: its workers fork from a process that holds no analysis yet
    # (their peak RSS is their own), and with --cold it meets an empty prefix cache
    pipeline = run_pipeline(files, options, policy, args) if args.jobs else None
    for f in files[:2]:
        parse_source(f, read_source(f), options)
    bare: dict[str, float] = {}
    for f in files:
        source = read_source(f)
        with guarding(policy.with_roots([os.path.dirname(os.path.abspath(f))])):  # what it may read
            start = time.process_time()
            parse_source(f, source, options, use_pch=False)  # libclang without syncheck's help
            bare[f] = time.process_time() - start
    clock = Clock()
    instrument(clock)
    counters = getattr(symbolic, "PAIR_COUNTS", None)
    if counters is not None:
        counters.clear()
    total: dict[str, float] = {}
    for f in files:
        start = time.process_time()
        with clock.phase("analyses"):
            analyze_file(f, settings)
        total[f] = time.process_time() - start
    t_bare, t_all = sum(bare.values()), sum(total.values())
    print(f"bare parse        : {t_bare:8.2f} s  {len(files) / t_bare:6.2f} files/s")
    print(f"syncheck in-proc  : {t_all:8.2f} s  {len(files) / t_all:6.2f} files/s   "
          f"syncheck / bare parse = {t_all / t_bare:.2f}")
    print("phase split (exclusive):  " + "   ".join(
        f"{k} {clock.totals.get(k, 0.0):.2f} s ({100 * clock.totals.get(k, 0.0) / t_all:.0f}%)"
        for k in ("parse", "lowering", "analyses", "solver")))
    ratios = [total[f] / bare[f] for f in files]
    print(f"per-file syncheck/bare parse: median {statistics.median(ratios):.2f}, "
          f"max {max(ratios):.2f}")
    print(f"per-file CPU: syncheck max {max(total.values()):.2f} s, bare parse max {max(bare.values()):.2f} s")
    print("slowest files (CPU): " + ", ".join(
        f"{os.path.relpath(f)} {total[f]:.2f} s (bare {bare[f]:.2f} s)"
        for f in sorted(files, key=lambda f: -total[f])[:args.slowest]))
    print("functions in the IR: " + ", ".join(f"{k} {v}" for k, v in LOWERED.items()))
    if counters is not None:
        print("race pairs: " + ", ".join(f"{k} {v}" for k, v in sorted(counters.items())))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS in process: {rss:.0f} MiB", flush=True)
    if pipeline is not None:
        wall, cpu, kids = pipeline
        print(f"CLI pipeline -j {args.jobs} (run first): wall {wall:.2f} s  {len(files) / wall:.2f} files/s; "
              f"workers' CPU {cpu:.2f} s ({cpu / len(files):.3f} s a file; / bare parse CPU "
              f"{cpu / t_bare:.2f})   1,000 such files on {args.jobs} free cores: "
              f"{1000 * cpu / len(files) / args.jobs:.0f} s   peak RSS of a worker: {kids:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
