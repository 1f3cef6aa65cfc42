"""syncheck benchmark: syncheck against the bare libclang parse of the same files, in one run.

    python bench/bench.py [--files 200] [--jobs 2]

Corpus: the shipped fixtures and reference kernels plus generated realistic files (bench/
generate.py) at three sizes (1x ~300 lines, 4x ~1,200, 16x ~4,800). Prints ratios, never a
bare time as a verdict: (b) syncheck end to end / (a) parse only, files per second, peak
memory, how time grows with file size, and -j / warm-cache speed-ups.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from generate import generate  # noqa: E402

from syncheck.engine import Settings, analyze_paths, read_source  # noqa: E402
from syncheck.frontend.parse import ParseOptions, parse_source  # noqa: E402

SIZES = {"1x": 300, "4x": 1200, "16x": 4800}


def build_corpus(folder: Path, generated: int) -> dict[str, list[Path]]:
    groups: dict[str, list[Path]] = {"shipped": []}
    for p in sorted((ROOT / "fixtures").rglob("*.cu")) + sorted((ROOT / "reference_kernels").glob("*.cu")):
        dest = folder / "shipped" / p.relative_to(ROOT).as_posix().replace("/", "__")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(p, dest)
        groups["shipped"].append(dest)
    per_size = max(1, generated // len(SIZES))
    weights = {"1x": per_size * 2, "4x": per_size - per_size // 3, "16x": per_size // 3}
    for label, lines in SIZES.items():
        groups[label] = []
        for i in range(max(1, weights[label])):
            dest = folder / label / f"gen_{i}.cu"
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(generate(lines, seed=hash((label, i)) & 0xFFFF))
            groups[label].append(dest)
    return groups


def parse_only(files: list[Path]) -> float:
    options = ParseOptions()
    start = time.perf_counter()
    for f in files:
        parse_source(str(f), read_source(str(f)), options)
    return time.perf_counter() - start


def syncheck_run(files: list[Path], **kw) -> float:
    start = time.perf_counter()
    analyze_paths([str(f) for f in files], Settings(timeout=None, **kw))
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200, help="generated files (besides the shipped ones)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="syncheck-bench-"))
    groups = build_corpus(tmp, args.files)
    files = [f for g in groups.values() for f in g]
    lines = sum(f.read_text().count("\n") for f in files)
    print(f"corpus: {len(files)} files, {lines:,} lines "
          f"({', '.join(f'{k}: {len(v)}' for k, v in groups.items())}); machine: {os.cpu_count()} cores")
    # warm libclang and the OS cache once, outside the measurements
    parse_only(files[:3])
    a = parse_only(files)
    b = syncheck_run(files)
    print(f"(a) libclang parse only        : {len(files) / a:7.1f} files/s")
    print(f"(b) syncheck end to end        : {len(files) / b:7.1f} files/s   b/a = {b / a:.2f}  (target <= 1.5)")
    c = syncheck_run(files, jobs=args.jobs)
    print(f"(c) syncheck -j {args.jobs}               : {len(files) / c:7.1f} files/s   b/c = {b / c:.2f}x faster")
    cache = tmp / "cache"
    cold = syncheck_run(files, cache_dir=str(cache))
    warm = syncheck_run(files, cache_dir=str(cache))
    print(f"(c) warm cache, unchanged tree : {len(files) / warm:7.1f} files/s   cold/warm = {cold / warm:.1f}x (target >= 10)")
    print("growth with file size (time per file, relative to 1x; parse-only alongside):")
    base_s = base_p = None
    for label in SIZES:
        g = groups[label]
        s = syncheck_run(g) / len(g)
        p = parse_only(g) / len(g)
        base_s, base_p = base_s or s, base_p or p
        print(f"  {label:>3} ({SIZES[label]:>5} lines): syncheck {s / base_s:5.2f}x   parse {p / base_p:5.2f}x   "
              f"syncheck/parse {s / p:5.2f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory: {peak:.0f} MiB (this process), {kids:.0f} MiB (largest -j worker)")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
