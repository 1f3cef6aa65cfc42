"""Run syncheck on fetched copies of real CUDA code bases and collect every finding for triage.

    python bench/findings.py --corpora llm.c,ggml,cuda-samples,rodinia,css,gpuverify \
                             [--workdir /tmp/corpora] [--jobs 2] --out findings.json

The corpora are the ones of ../shared/realworld/CORPORA.md, extracted (never into this
repository) under --workdir/<name> (bench/coverage.py extracts most of them; css is
NVIDIA/compute-sanitizer-samples, gpuverify is mc-imperial/GPUVerifyBenchmarks). Each runs
with the flags a user of that code base would give. GPUVerify benchmarks name their block
shape in a header comment (--blockDim=...): it is passed as --block-dim, and the benchmark
annotation macros are defined away. cccl (cub), flash-attention (FlashAttention-2) and cutlass
are analyzed on the even sample bench/coverage.py draws (at most 40, 14 and 12 files; their
files take up to minutes each), extracted from the git mirrors of --mirrors. The output lists
every finding with its corpus, for the triage table in docs/triage.md.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name -> (globs of files to analyze, flags)
CORPORA = {
    "llm.c": (("dev/cuda/*.cu", "llmc/*.cuh", "train_gpt2.cu", "train_gpt2_fp32.cu"),
              ("-I", "llmc", "-I", "dev", "-I", ".")),
    "ggml": (("src/ggml-cuda/*.cu", "src/ggml-cuda/*.cuh"),
             ("-I", "include", "-I", "src", "-I", "src/ggml-cuda")),
    "cuda-samples": (("Samples/**/*.cu",), ("-I", "Common")),
    "rodinia": (("cuda/**/*.cu",), ()),
    "css": (("Synccheck/*.cu", "Racecheck/*.cu"), ()),
    # Preconditions become promises syncheck reads (__builtin_assume); the rest is dropped.
    "gpuverify": (("**/*.cu",), ("-D__requires(...)=__builtin_assume(__VA_ARGS__)",) + tuple(
        f"-D{m}(...)=((void)0)" for m in (
        "__ensures", "__invariant", "__global_invariant", "__assume",
        "__function_wide_invariant", "__global_requires", "__global_ensures")) + (
        "-D__kernel=__global__", "-D__global_invariant_x(...)=",
        # GPUVerify's predicates inside preconditions, as the C they stand for
        "-D__is_pow2(x)=((((x)&((x)-1))==0))", "-D__implies(a,b)=(!(a)||(b))")),
}

_BLOCK_DIM = re.compile(r"--blockDim=\[?\s*(\d+)\s*(?:,\s*(\d+))?\s*(?:,\s*(\d+))?")


def _block_dim(path: Path) -> str | None:
    """The block shape a GPUVerify benchmark declares in its first lines, as X,Y,Z."""
    with open(path, encoding="utf-8", errors="replace") as f:
        head = "".join(f.readline() for _ in range(6))
    m = _BLOCK_DIM.search(head)
    if not m:
        return None
    return ",".join(g or "1" for g in m.groups())


def _run(files: list[Path], flags: list[str], cwd: Path, jobs: int, timeout: int) -> dict:
    cmd = [sys.executable, "-m", "syncheck", "--no-cache", "--format", "json", "-j", str(jobs),
           "--timeout", str(timeout), "--allow-incomplete", *flags, *map(str, files)]
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        return {"findings": [], "errors": [{"path": "", "message": out.stderr[-2000:]}]}


# Template-heavy code bases: the even sample and flags of bench/coverage.py (a run of
# coverage.py, or this script, extracts them from the git mirrors first).
SAMPLED = ("cccl", "flash-attention", "cutlass")


def _sampled(name: str, workdir: Path, mirrors: Path) -> tuple[list[Path], list[str]]:
    sys.path.insert(0, str(ROOT / "bench"))
    import coverage as sampling  # bench/coverage.py
    corpus = sampling.BY_NAME[name]
    for needed in corpus.needs + (name,):
        other = sampling.BY_NAME[needed]
        sampling.extract(other, sampling.git_dir(other, mirrors, {}), workdir / needed)
    root = workdir / name
    files = [root / f for f in sampling.select(corpus, root, 40)]
    flags = [f.replace("{root}", str(root)).replace("{cutlass}", str(workdir / "cutlass"))
             for f in corpus.flags]
    return files, flags


def run_corpus(name: str, workdir: Path, jobs: int, timeout: int, mirrors: Path = Path("/work/.mirror")) -> dict:
    root = workdir / name
    if name in SAMPLED:
        files, flags = _sampled(name, workdir, mirrors)
    else:
        globs, flags = CORPORA[name]
        files = sorted({p for g in globs for p in root.glob(g) if p.is_file()})
    started = time.monotonic()
    groups: dict[str | None, list[Path]] = {}
    for f in files:
        groups.setdefault(_block_dim(f) if name == "gpuverify" else None, []).append(f)
    findings, errors = [], []
    for shape, members in sorted(groups.items(), key=lambda kv: kv[0] or ""):
        extra = ["--block-dim", shape] if shape else []
        result = _run([m.relative_to(root) for m in members], list(flags) + extra, root, jobs, timeout)
        findings += result.get("findings", [])
        errors += result.get("errors", [])
    return {"files": len(files), "seconds": round(time.monotonic() - started, 1),
            "findings": findings, "errors": errors}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpora", default=",".join(list(CORPORA) + list(SAMPLED)))
    p.add_argument("--mirrors", default="/work/.mirror", help="git mirrors of the sampled corpora")
    p.add_argument("--workdir", default="/tmp/corpora")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    results = {}
    for name in args.corpora.split(","):
        results[name] = run_corpus(name, Path(args.workdir), args.jobs, args.timeout, Path(args.mirrors))
        r = results[name]
        print(f"{name}: {r['files']} files, {len(r['findings'])} findings, "
              f"{len(r['errors'])} file errors, {r['seconds']} s", flush=True)
        Path(args.out).write_text(json.dumps(results, indent=1))  # after each corpus
    return 0


if __name__ == "__main__":
    sys.exit(main())
