"""How syncheck's time grows with file size and with the number of kernels, against the
bare libclang parse of the same generated files, in one run.

    python bench/speed.py [--lines 300,1200,4800,20000] [--kernels 500]

Files come from bench/generate.py (the kernel shapes real code has, host launches included).
For each: bare parse (model headers, syncheck's flags, no precompiled header), syncheck in
this process (no worker, no cache), their ratio, milliseconds per line and per kernel. Linear
growth shows as a flat ms/line column. The real-code numbers come from bench/phases.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(os.environ.get("SYNCHECK_ROOT", Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from generate import generate  # noqa: E402

from syncheck import engine  # noqa: E402
from syncheck.engine import Settings, analyze_file, read_source  # noqa: E402
from syncheck.frontend.parse import ParseOptions, parse_source  # noqa: E402


def lines_for_kernels(kernels: int) -> int:
    """The size at which generate() has written ``kernels`` kernels."""
    low, high = 50, 400 * kernels
    while low < high:
        mid = (low + high) // 2
        if generate(mid, 1).count("__global__") >= kernels:
            high = mid
        else:
            low = mid + 1
    return low


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", default="300,1200,4800,20000")
    ap.add_argument("--kernels", type=int, default=500)
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.lines.split(",") if x]
    folder = Path(tempfile.mkdtemp(prefix="syncheck-speed-"))
    cases = [(f"{n} lines", generate(n, 7)) for n in sizes]
    if args.kernels:
        cases.append((f"{args.kernels} kernels", generate(lines_for_kernels(args.kernels), 7)))
    options = ParseOptions()
    settings = Settings(isolate=False, timeout=None)
    engine._prepare_for_workers(settings)
    print("| file | lines | kernels | bare parse (s) | syncheck (s) | syncheck / parse | ms per line | ms per kernel |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, text in cases:
        path = folder / f"{label.replace(' ', '_')}.cu"
        path.write_text(text)
        source = read_source(str(path))
        parse_source(str(path), source, options)  # warm the OS cache
        start = time.perf_counter()
        parse_source(str(path), source, options, use_pch=False)
        bare = time.perf_counter() - start
        start = time.perf_counter()
        result = analyze_file(str(path), settings)
        total = time.perf_counter() - start
        assert not [p for p in result.problems if p.kind == "error"], result.problems
        n_lines, n_kernels = text.count("\n"), text.count("__global__")
        print(f"| {label} | {n_lines:,} | {n_kernels} | {bare:.2f} | {total:.2f} | {total / bare:.2f} | "
              f"{1000 * total / n_lines:.2f} | {1000 * total / n_kernels:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
