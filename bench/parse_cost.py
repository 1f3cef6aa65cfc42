"""Per-file parse cost of the two front ends, as ratios measured in one run.

    python bench/parse_cost.py [--workdir /tmp/corpora] [--per-corpus 8] [--repeat 3]

On real files of the corpora that bench/coverage.py extracts (cuda-samples, llm.c, ggml,
cccl's cub tests by default), each file is parsed (libclang only, no analysis) with:
  model     syncheck's model headers (the default front end);
  real      the real CUDA headers, no precompiled header (every parse reads them);
  real+pch  the real CUDA headers from the precompiled header (built once, before timing;
            its build time is printed separately).
Each file's time is the best of --repeat parses; the table gives medians per corpus and the
ratios real/model, real+pch/model and real+pch/real over all files. Needs the real headers
(pip install 'syncheck[cuda]').
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from coverage import BY_NAME, select  # noqa: E402

from syncheck.frontend import precompiled  # noqa: E402
from syncheck.frontend.cuda_headers import locate  # noqa: E402
from syncheck.frontend.parse import ParseOptions, parse_source  # noqa: E402

DEFAULT_CORPORA = "cuda-samples,llm.c,ggml,cccl"


def options_for(name: str, root: Path) -> ParseOptions:
    flags = list(BY_NAME[name].flags)
    includes = [str(root / flags[i + 1]) for i, f in enumerate(flags[:-1]) if f == "-I"
                and "{" not in flags[i + 1]]
    return ParseOptions(include_dirs=tuple(includes))


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workdir", default="/tmp/corpora")
    p.add_argument("--corpora", default=DEFAULT_CORPORA)
    p.add_argument("--per-corpus", type=int, default=8)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--extra", nargs="*", default=[str(ROOT / "fixtures" / "real_headers" / "bad_cub_block_reduce.cu"),
                                                  str(ROOT / "fixtures" / "real_headers" / "ok_cub_block_reduce.cu")],
                   help="more files, parsed without -I flags (default: the cub-using fixtures)")
    p.add_argument("--floor", nargs="*", metavar="FILE",
                   help="only the parse floor of the model headers (no real headers needed): an "
                        "empty file and the given files, plain and with the precompiled model header")
    args = p.parse_args(argv)
    if args.floor is not None:
        return floor(args.floor, args.repeat)
    real = locate("real")
    print(f"real headers: {real.description}")
    rows = []
    if args.extra:
        options = ParseOptions()
        pch = precompiled.get(options.real_clang_args(real), real)
        for path in args.extra:
            source = Path(path).read_bytes()
            model = best_of(args.repeat, lambda: parse_source(path, source, options))
            plain = best_of(args.repeat, lambda: parse_source(path, source, options, real=real, use_pch=False))
            warm = best_of(args.repeat, lambda: parse_source(path, source, options, real=real))
            rows.append(("cub (fixtures)", path, model, plain, warm, pch is not None))
            print(f"  {Path(path).name[:60]:60} model {model:6.3f}  real {plain:6.3f}  real+pch {warm:6.3f}",
                  flush=True)
    for name in [n for n in args.corpora.split(",") if n]:
        root = Path(args.workdir) / name
        if not (root / ".extracted").exists():
            print(f"{name}: not extracted (run bench/coverage.py first); skipped")
            continue
        files = [f for f in select(BY_NAME[name], root, 10 ** 6) if f.endswith(".cu")]
        step = max(1, len(files) // args.per_corpus)
        files = files[::step][:args.per_corpus]
        options = options_for(name, root)
        start = time.perf_counter()
        pch = precompiled.get(options.real_clang_args(real), real)
        build = time.perf_counter() - start
        print(f"{name}: precompiled header {'built' if pch else 'NOT available'} in {build:.1f} s")
        for rel in files:
            path = str(root / rel)
            source = (root / rel).read_bytes()
            model = best_of(args.repeat, lambda: parse_source(path, source, options))
            plain = best_of(args.repeat, lambda: parse_source(path, source, options, real=real,
                                                              use_pch=False))
            warm = best_of(args.repeat, lambda: parse_source(path, source, options, real=real))
            used_pch = parse_source(path, source, options, real=real).precompiled
            rows.append((name, rel, model, plain, warm, used_pch))
            why = "" if used_pch else ("  (no precompiled header for these flags)" if pch is None else
                                       "  (not used: folder shadows a toolkit header, or a config macro)")
            print(f"  {rel[:60]:60} model {model:6.3f}  real {plain:6.3f}  real+pch {warm:6.3f}{why}",
                  flush=True)
    if not rows:
        return 1
    print("\n| corpus | files | model (median s) | real, no PCH | real + PCH | real/model | "
          "real+PCH/model | real+PCH/real |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(row)
    groups["all"] = rows
    for name, group in groups.items():
        m = statistics.median(r[2] for r in group)
        r_ = statistics.median(r[3] for r in group)
        w = statistics.median(r[4] for r in group)
        ratio = lambda a, b: statistics.median(x / y for x, y in zip(a, b))  # noqa: E731
        print(f"| {name} | {len(group)} | {m:.3f} | {r_:.3f} | {w:.3f} | "
              f"{ratio([g[3] for g in group], [g[2] for g in group]):.2f} | "
              f"{ratio([g[4] for g in group], [g[2] for g in group]):.2f} | "
              f"{ratio([g[4] for g in group], [g[3] for g in group]):.2f} |")
    return 0


def floor(files: list[str], repeat: int) -> int:
    """What the model headers and the C/C++ headers they pull in cost every file, and what the
    precompiled model header (syncheck/frontend/precompiled.py) leaves of it."""
    import tempfile
    from syncheck.frontend.parse import MODEL_DIR, _index
    from syncheck.frontend.clang_api import KEEP_GOING
    options = ParseOptions()
    args = options.clang_args()
    base, forced = precompiled.split_forced_include(args)
    start = time.perf_counter()
    pch = precompiled.model_get(args, str(MODEL_DIR))
    print(f"precompiled model header: {pch} ({time.perf_counter() - start:.2f} s to get or build)")
    folder = Path(tempfile.mkdtemp(prefix="syncheck-floor-"))
    cases = {"empty file, no headers at all": ("", base),
             "#include <cmath> only": ("#include <cmath>\n", base),
             "#include <cstdio> only": ("#include <cstdio>\n", base),
             "empty file + model cuda_runtime.h (plain -include, the old default)": ("", args),
             "empty file + model cuda_runtime.h from the precompiled header": ("", base + ["-include-pch", pch])}
    times = {}
    for label, (text, a) in cases.items():
        path = folder / "floor.cu"
        path.write_text(text)
        times[label] = best_of(repeat, lambda: _index().parse(str(path), args=a, options=KEEP_GOING))
    ref = times["empty file + model cuda_runtime.h (plain -include, the old default)"]
    print("\n| parse | best of %d (s) | vs. the old floor |" % repeat)
    print("| --- | ---: | ---: |")
    for label, t in times.items():
        print(f"| {label} | {t:.3f} | {t / ref:.2f} |")
    if files:
        print("\n| file | plain parse (s) | with precompiled model header (s) | ratio | of it the old floor |")
        print("| --- | ---: | ---: | ---: | ---: |")
        ratios = []
        for f in files:
            source = Path(f).read_bytes()
            plain = best_of(repeat, lambda: parse_source(f, source, options, use_pch=False))
            warm = best_of(repeat, lambda: parse_source(f, source, options))
            ratios.append(warm / plain)
            print(f"| {Path(f).name} | {plain:.3f} | {warm:.3f} | {warm / plain:.2f} | {ref / plain:.0%} |")
        print(f"median ratio precompiled / plain: {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
