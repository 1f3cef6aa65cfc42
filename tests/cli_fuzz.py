"""Fuzzing the CLI as a process: mutated CUDA sources, many per run, judged from outside.

Used by tests/test_fuzz_cli.py (a small bounded batch in CI) and by ``python -m
tests.cli_fuzz --mutants 5000`` for a long run that prints statistics.

A mutant starts from a fixture or reference kernel and gets a few edits: line edits, byte
edits (invalid UTF-8, NUL, truncation) and inserts taken from the attacks of issue 14 (deep
nesting, long expressions, macro blow-ups, includes of devices and private files,
self-includes). A batch of mutants is one CLI process; it passes when the process exits
with 0, 1 or 2 (never a signal), within its time budget, with no traceback on stdout or
stderr, with valid JSON that counts every file it was given.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = sorted(p for p in (ROOT / "fixtures").rglob("*.cu")) + \
    sorted((ROOT / "reference_kernels").glob("*.cu"))

LINE_INSERTS = [
    "{", "}", "(", ")", ";", "__syncthreads();", "if (threadIdx.x < 3)", "for (;;)", "return;",
    "break;", "goto end;", "end:", "__shfl_sync(0xffffffff, v, 1)", "&&", "?", "tile[threadIdx.x] = 0;",
    "#define X", "/*", "*/", "\"", "'", "template <int N>", "#if 1", "#endif", "#else", "#pragma unroll",
    "__shared__ float s[256];", "cg::this_grid().sync();", "extern \"C\" {", "#include <cub/cub.cuh>",
    "#include \"missing.cuh\"", "__global__ void", "asm volatile(\"bar.sync 0;\");", "\\",
]


def _attack(rng: random.Random) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        depth = rng.choice([50, 300, 1500])
        return "__device__ void deep(float* a) { " + "if (a[0] > 0) " * depth + "a[1] = 1; }"
    if kind == 1:
        terms = rng.choice([100, 2000, 7000, 20000])  # 20,000 overflows libclang's stack
        return "__device__ float sum(float* a) { return " + "+".join(["a[1]"] * terms) + "; }"
    if kind == 2:
        levels = rng.randrange(4, 18)
        lines = ["#define B0 x"] + [f"#define B{i} B{i - 1} B{i - 1}" for i in range(1, levels)]
        return "\n".join(lines) + f"\n__device__ void blow(int x) {{ (void)(B{levels - 1}); }}"
    if kind == 3:
        return rng.choice(['#include "/dev/zero"', '#include "/etc/passwd"', '#include "/dev/stdin"',
                           '#include "/proc/self/mem"', '#include "../../../../../../etc/hostname"',
                           '#define P "/etc/passwd"\n#include P'])
    if kind == 4:
        return "#include __FILE__"
    if kind == 5:
        depth = rng.choice([100, 300])
        return "__device__ int br(int x) { return " + "(" * depth + "x" + ")" * depth + "; }"
    if kind == 6:
        return ("template <int N> struct F { enum { v = F<N - 1>::v + 1 }; };\n"
                f"__device__ int tf() {{ return F<{rng.choice([10, 2000, 100000])}>::v; }}")
    if kind == 7:
        count = rng.choice([10, 200, 1000])
        body = "".join(f" s[threadIdx.x + {i}] = s[threadIdx.x + {i + 1}];" for i in range(count))
        return f"__global__ void races(int n) {{ __shared__ float s[2048];{body} }}"
    return "\n".join(rng.choice(LINE_INSERTS) for _ in range(rng.randrange(1, 20)))


def mutate(source: bytes, rng: random.Random) -> bytes:
    lines = source.split(b"\n")
    for _ in range(rng.randint(1, 6)):
        op = rng.choice(["delete", "duplicate", "insert", "swap", "attack", "byte", "truncate", "splice"])
        i = rng.randrange(max(len(lines), 1))
        if op == "delete" and lines:
            del lines[i]
        elif op == "duplicate" and lines:
            lines.insert(i, lines[i])
        elif op == "insert":
            lines.insert(i, rng.choice(LINE_INSERTS).encode())
        elif op == "swap" and len(lines) > 1:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "attack":
            lines.insert(i, _attack(rng).encode())
        elif op == "byte" and lines and lines[i]:
            line = bytearray(lines[i])
            line[rng.randrange(len(line))] = rng.choice([0, 0xFF, 0xE9, ord("{"), ord("}"), ord('"'),
                                                         rng.randrange(256)])
            lines[i] = bytes(line)
        elif op == "truncate" and lines:
            del lines[i + 1:]
            if lines[i]:
                lines[i] = lines[i][:rng.randrange(len(lines[i]))]
        elif op == "splice" and len(lines) > 2:
            j = rng.randrange(len(lines))
            lines[i:i] = lines[min(i, j):max(i, j)][:200]
    return b"\n".join(lines)


@dataclass
class Stats:
    mutants: int = 0
    processes: int = 0
    tracebacks: int = 0
    crashes: int = 0          # CLI processes ended by a signal or with a status other than 0/1/2
    hangs: int = 0            # CLI processes that ran past their budget
    bad_output: int = 0       # stdout not valid JSON, or files missing from the count
    stderr_lines: int = 0     # anything printed on stderr
    exit_codes: dict[int, int] = field(default_factory=dict)
    file_errors: dict[str, int] = field(default_factory=dict)  # per-file errors, by kind
    other_errors: list[str] = field(default_factory=list)  # per-file errors of no known kind
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    def ok(self) -> bool:
        return not (self.tracebacks or self.crashes or self.hangs or self.bad_output or self.stderr_lines)


def _error_kind(message: str) -> str:
    for needle, kind in (("per-file time limit", "time limit"), ("crashed", "worker crash"), ("memory limit", "memory limit"),
                         ("internal error", "internal error"), ("not a regular file", "not regular"),
                         ("syntax error", "syntax error"), ("too deeply nested", "too deeply nested"),
                         ("not valid UTF-8", "not UTF-8"), ("binary file", "binary"),
                         ("file is empty", "empty"), ("#include nested too deeply", "include cycle"),
                         ("could not be parsed", "parse failed")):
        if needle in message:
            return kind
    return "other"


def run_batch(files: list[Path], cwd: Path, stats: Stats, budget: float, extra_args=()) -> None:
    args = [sys.executable, "-m", "syncheck", "--format", "json", "--no-cache", "--no-progress",
            *extra_args, *[f.name for f in files]]
    stats.processes += 1
    stats.mutants += len(files)
    started = time.monotonic()
    try:
        r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=budget,
                           errors="replace")
    except subprocess.TimeoutExpired:
        stats.hangs += 1
        stats.failures.append(f"hang: batch in {cwd}")
        return
    finally:
        stats.seconds += time.monotonic() - started
    stats.exit_codes[r.returncode] = stats.exit_codes.get(r.returncode, 0) + 1
    if "Traceback" in r.stdout + r.stderr:
        stats.tracebacks += 1
        stats.failures.append(f"traceback in {cwd}: {r.stderr[-500:]}")
    if r.returncode not in (0, 1, 2):
        stats.crashes += 1
        stats.failures.append(f"exit {r.returncode} in {cwd}: {r.stderr[-500:]}")
    if r.stderr.strip():
        stats.stderr_lines += len(r.stderr.strip().splitlines())
        stats.failures.append(f"stderr in {cwd}: {r.stderr[-500:]}")
    try:
        data = json.loads(r.stdout)
        counted = data["files"] == len(files)
    except (ValueError, KeyError, TypeError):
        data, counted = None, False
    if not counted:
        stats.bad_output += 1
        stats.failures.append(f"bad output in {cwd}: {r.stdout[-300:]}")
        return
    for error in data["errors"]:
        kind = _error_kind(error["message"])
        stats.file_errors[kind] = stats.file_errors.get(kind, 0) + 1
        if kind in ("other", "internal error"):
            stats.other_errors.append(error["message"][:200])


def hang_budget(batch: int, jobs: int, per_file_timeout: float) -> float:
    """Seconds after which a batch counts as hung: every file may use its whole time limit
    (the CLI enforces it), so anything past that and a margin is the CLI itself not ending.
    A fixed budget instead reports a slow, loaded machine as a hang."""
    return batch * per_file_timeout / max(jobs, 1) + 300


def fuzz(mutants: int, batch: int, seed: int, workdir: Path, jobs: int = 2, budget: float | None = None,
         per_file_timeout: float = 60, memory_limit: int = 1024, keep_failures: Path | None = None,
         progress=None) -> Stats:
    rng = random.Random(seed)
    stats = Stats()
    if budget is None:
        budget = hang_budget(batch, jobs, per_file_timeout)
    sources = [p.read_bytes() for p in SEEDS]
    made = 0
    while made < mutants:
        count = min(batch, mutants - made)
        folder = workdir / f"batch{made // batch:05d}"
        folder.mkdir(parents=True)
        files = []
        for k in range(count):
            i = rng.randrange(len(SEEDS))
            path = folder / f"m{made + k:05d}_{SEEDS[i].stem[:30]}{SEEDS[i].suffix}"
            path.write_bytes(mutate(sources[i], rng))
            files.append(path)
        before = len(stats.failures)
        run_batch(files, folder, stats, budget, ("-j", str(jobs), "--timeout", str(per_file_timeout),
                                                 "--memory-limit", str(memory_limit)))
        if len(stats.failures) > before and keep_failures is not None:
            os.makedirs(keep_failures, exist_ok=True)
            os.rename(folder, keep_failures / folder.name)
        else:
            for f in files:
                f.unlink()
            folder.rmdir()
        made += count
        if progress is not None:
            progress(stats)
    return stats


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mutants", type=int, default=5000)
    p.add_argument("--batch", type=int, default=25, help="mutants per CLI process")
    p.add_argument("--seed", type=int, default=14)
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--budget", type=float, default=None,
                   help="seconds a batch may take (else a hang); default: every file at its time limit, plus 300")
    p.add_argument("--timeout", type=float, default=60, help="the CLI's per-file time limit (seconds)")
    p.add_argument("--keep-failures", type=Path, help="move failing batches here")
    p.add_argument("--json", type=Path, help="write the statistics here")
    args = p.parse_args(argv)

    def progress(stats: Stats) -> None:
        print(f"{stats.mutants} mutants, {stats.processes} processes, {stats.seconds:.0f} s; "
              f"tracebacks {stats.tracebacks}, crashes {stats.crashes}, hangs {stats.hangs}, "
              f"bad output {stats.bad_output}, stderr lines {stats.stderr_lines}; "
              f"file errors {stats.file_errors}", flush=True)

    with tempfile.TemporaryDirectory(prefix="syncheck-fuzz-") as tmp:
        stats = fuzz(args.mutants, args.batch, args.seed, Path(tmp), jobs=args.jobs, budget=args.budget,
                     per_file_timeout=args.timeout, keep_failures=args.keep_failures, progress=progress)
    summary = {k: v for k, v in stats.__dict__.items()}
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0 if stats.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
