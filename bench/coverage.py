"""Coverage of syncheck on public CUDA code bases: device functions found and analyzed.

    python bench/coverage.py [--corpora ggml,llm.c,...] [--max-files 40] [--jobs 2]
                             [--modes model,auto] [--markdown docs/coverage.md]

Each corpus (the list of ../shared/realworld/CORPORA.md) is read from a git copy: a bare
mirror as the `fetch` tool leaves it (default /work/.mirror/<owner>+<name>/repo), or any
clone given with --source NAME=PATH. The files it needs are extracted (never into this
repository) to --workdir (default /tmp/corpora/<name>), then syncheck runs on an even sample
of at most --max-files files, with the include flags a user of that code base would give,
once per header mode (--modes: `model` = syncheck's model headers alone, the front end before
real headers existed; `auto` = the default since). Prints per corpus and mode: files, device
functions found / analyzed, the top reasons for the rest, file errors and seconds.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import json
import math
import re
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Corpus:
    name: str
    repo: str                     # owner/name on GitHub
    extract: tuple[str, ...]      # path prefixes to extract (headers included)
    files: tuple[str, ...]        # globs of the files to analyze
    flags: tuple[str, ...] = ()   # {root}: this corpus's folder; {cutlass}: the cutlass corpus's
    max_files: int | None = None  # a smaller sample for very slow code bases
    needs: tuple[str, ...] = ()   # other corpora whose files the flags name
    exclude: tuple[str, ...] = ()


CORPORA = [
    Corpus("ggml", "ggml-org/ggml", ("include/", "src/"),
           ("src/ggml-cuda/*.cu", "src/ggml-cuda/*.cuh"),
           ("-I", "include", "-I", "src", "-I", "src/ggml-cuda")),
    Corpus("llm.c", "karpathy/llm.c", ("dev/", "llmc/", "train_gpt2.cu", "train_gpt2_fp32.cu",
                                       "test_gpt2.cu", "profile_gpt2.cu"),
           ("dev/cuda/*.cu", "llmc/*.cuh", "train_gpt2*.cu"), ("-I", "llmc", "-I", "dev", "-I", ".")),
    Corpus("flash-attention", "Dao-AILab/flash-attention", ("csrc/flash_attn/src/",),
           # the kernels are in the headers; the .cu files only instantiate them
           ("csrc/flash_attn/src/*.h", "csrc/flash_attn/src/flash_fwd_hdim128_fp16_sm80.cu",
            "csrc/flash_attn/src/flash_bwd_hdim128_fp16_sm80.cu"),
           ("-I", "csrc/flash_attn/src", "-I", "{cutlass}/include"), max_files=14, needs=("cutlass",)),
    Corpus("cutlass", "NVIDIA/cutlass", ("include/", "tools/util/include/", "examples/"),
           ("examples/*/*.cu",), ("-I", "include", "-I", "tools/util/include", "-I", "examples/common"),
           max_files=12),
    Corpus("cccl", "NVIDIA/cccl", ("cub/", "libcudacxx/include/", "thrust/", "c2h/include/"),
           ("cub/cub/block/*.cuh", "cub/cub/warp/*.cuh", "cub/test/catch2_test_block_*.cu",
            "cub/test/catch2_test_warp_*.cu"),
           ("-I", "cub", "-I", "libcudacxx/include", "-I", "thrust", "-I", "c2h/include",
            "-I", "cub/test")),
    Corpus("cuda-samples", "NVIDIA/cuda-samples", ("Samples/", "Common/"), ("Samples/**/*.cu",),
           ("-I", "Common")),
    Corpus("rodinia", "yuhc/gpu-rodinia", ("cuda/",), ("cuda/**/*.cu",), ()),
]
BY_NAME = {c.name: c for c in CORPORA}
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl", ".inc", ".cpp", ".c", ".cc",
                   ".hxx", ".ipp", ".def")


def git_dir(corpus: Corpus, mirrors: Path, sources: dict[str, str]) -> Path:
    if corpus.name in sources:
        p = Path(sources[corpus.name])
        return p / ".git" if (p / ".git").exists() else p
    return mirrors / corpus.repo.replace("/", "+") / "repo"


def extract(corpus: Corpus, gd: Path, dest: Path) -> None:
    """Copy the corpus's files out of git (one `git cat-file --batch`), once."""
    stamp = dest / ".extracted"
    if stamp.exists():
        return
    names = subprocess.run(["git", f"--git-dir={gd}", "ls-tree", "-r", "HEAD", "--name-only"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    wanted = [n for n in names if any(n == p or n.startswith(p) for p in corpus.extract)
              and (n.endswith(SOURCE_SUFFIXES) or "." not in os.path.basename(n))]  # <cuda/std/atomic>
    proc = subprocess.Popen(["git", f"--git-dir={gd}", "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    for name in wanted:
        proc.stdin.write(f"HEAD:{name}\n".encode())
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            continue  # missing object (partial mirror) or a submodule
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        out = dest / name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    proc.stdin.close()
    proc.wait()
    stamp.write_text("\n".join(wanted))


def select(corpus: Corpus, root: Path, limit: int) -> list[str]:
    names = (root / ".extracted").read_text().splitlines()
    files = sorted({n for n in names for g in corpus.files if fnmatch.fnmatch(n, g)
                    and not any(fnmatch.fnmatch(n, x) for x in corpus.exclude)})
    limit = min(limit, corpus.max_files or limit)
    if len(files) <= limit:
        return files
    step = len(files) / limit
    return [files[math.floor(i * step)] for i in range(limit)]


@dataclass
class Row:
    corpus: str
    mode: str
    files: int = 0
    found: int = 0
    analyzed: int = 0
    file_errors: int = 0
    real_files: int = 0
    seconds: float = 0.0
    reasons: collections.Counter = field(default_factory=collections.Counter)

    @property
    def percent(self) -> float:
        return 100.0 * self.analyzed / self.found if self.found else 100.0


def run(corpus: Corpus, root: Path, files: list[str], mode: str, jobs: int, timeout: int,
        workdir: Path) -> Row:
    flags = [f.replace("{root}", str(root)).replace("{cutlass}", str(workdir / "cutlass")) for f in corpus.flags]
    cmd = [sys.executable, "-m", "syncheck", "--format", "json", "--no-cache", "--no-progress",
           "--isolated", "--timeout", str(timeout), "-j", str(jobs), "--cuda-headers", mode,
           *flags, *files]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    row = Row(corpus.name, mode, files=len(files), seconds=seconds)
    try:
        data = json.loads(proc.stdout)
    except ValueError:
        row.reasons[f"syncheck failed: {proc.stderr.strip()[-200:]}"] += 1
        return row
    cov = data["coverage"]
    row.found, row.analyzed = cov["found"], cov["analyzed"]
    row.real_files = cov.get("files_with_real_headers", 0)
    row.file_errors = len(data["errors"])
    for u in cov["unanalyzed"]:
        reason = u.get("cause") or u["reason"].split(" (after ")[0]
        row.reasons[re.sub(r" at line \d+$", "", reason)] += 1
    for e in data["errors"]:
        row.reasons["file error: " + e["message"][:80]] += 1
    return row


def table(rows: list[Row]) -> str:
    out = ["| corpus | headers | files | device functions found | analyzed | % | file errors | "
           "files on real headers | top reasons for the rest | seconds |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
    for r in rows:
        reasons = "; ".join(f"{n}x {m}" for m, n in r.reasons.most_common(3)) or "-"
        reasons = reasons.replace("|", "\\|")
        out.append(f"| {r.corpus} | {r.mode} | {r.files} | {r.found} | {r.analyzed} | {r.percent:.1f} | "
                   f"{r.file_errors} | {r.real_files} | {reasons} | {r.seconds:.0f} |")
    total = {}
    for r in rows:
        t = total.setdefault(r.mode, [0, 0])
        t[0] += r.found
        t[1] += r.analyzed
    for mode, (found, analyzed) in total.items():
        out.append(f"| **all** | {mode} | | {found} | {analyzed} | "
                   f"{100.0 * analyzed / found if found else 100.0:.1f} | | | | |")
    return "\n".join(out) + "\n"


def compare(before_path: str, after_path: str) -> str:
    """One table of two runs written with --json (e.g. --modes model before a change, auto after)."""
    def load(path):
        return {r["corpus"]: r for r in json.loads(Path(path).read_text())}
    before, after = load(before_path), load(after_path)
    out = ["| corpus | files | before: analyzed / found | after: analyzed / found | after: file errors | "
           "after: files on real headers | after: top reasons for the rest | seconds before / after |",
           "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
    totals = [0, 0, 0, 0]
    for name in after:
        a, b = after[name], before.get(name)
        pct = lambda r: 100.0 * r["analyzed"] / r["found"] if r["found"] else 100.0  # noqa: E731
        reasons = sorted(a["reasons"].items(), key=lambda kv: -kv[1])[:3]
        shown = "; ".join(f"{n}x {m}" for m, n in reasons).replace("|", "\\|") or "-"
        was = f"{b['analyzed']} / {b['found']} ({pct(b):.1f}%)" if b else "-"
        seconds = f"{b['seconds']:.0f} / {a['seconds']:.0f}" if b else f"- / {a['seconds']:.0f}"
        out.append(f"| {name} | {a['files']} | {was} | {a['analyzed']} / {a['found']} ({pct(a):.1f}%) | "
                   f"{a['file_errors']} | {a['real_files']} | {shown} | {seconds} |")
        if b:
            totals[0] += b["analyzed"]
            totals[1] += b["found"]
        totals[2] += a["analyzed"]
        totals[3] += a["found"]
    out.append(f"| **all** | | {totals[0]} / {totals[1]} ({100.0 * totals[0] / max(totals[1], 1):.1f}%) | "
               f"{totals[2]} / {totals[3]} ({100.0 * totals[2] / max(totals[3], 1):.1f}%) | | | | |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpora", default=",".join(c.name for c in CORPORA))
    p.add_argument("--modes", default="model,auto")
    p.add_argument("--max-files", type=int, default=40)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=120, help="per-file limit passed to syncheck")
    p.add_argument("--mirrors", default="/work/.mirror", help="folder of <owner>+<name>/repo git mirrors")
    p.add_argument("--source", action="append", default=[], metavar="NAME=PATH",
                   help="a clone (or bare git dir) to read a corpus from instead")
    p.add_argument("--workdir", default="/tmp/corpora")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    p.add_argument("--markdown", metavar="FILE", help="append the table to this Markdown file")
    p.add_argument("--compare", nargs=2, metavar=("BEFORE.json", "AFTER.json"),
                   help="print one before/after table of two --json outputs, and exit")
    args = p.parse_args(argv)
    if args.compare:
        print(compare(*args.compare), end="")
        return 0
    sources = dict(s.split("=", 1) for s in args.source)
    workdir = Path(args.workdir)
    names = [n.strip() for n in args.corpora.split(",") if n.strip()]
    needed = list(dict.fromkeys(d for n in names for d in BY_NAME[n].needs))
    for name in dict.fromkeys(needed + names):
        corpus = BY_NAME[name]
        extract(corpus, git_dir(corpus, Path(args.mirrors), sources), workdir / name)
    rows = []
    for name in names:
        corpus = BY_NAME[name]
        root = workdir / name
        files = select(corpus, root, args.max_files)
        for mode in args.modes.split(","):
            row = run(corpus, root, files, mode, args.jobs, args.timeout, workdir)
            rows.append(row)
            print(f"{name:16} {mode:6} files {row.files:3}  device functions {row.analyzed}/{row.found} "
                  f"({row.percent:.1f}%)  file errors {row.file_errors}  real {row.real_files}  "
                  f"{row.seconds:.0f} s", flush=True)
            for reason, n in row.reasons.most_common(3):
                print(f"{'':24}{n:4}x {reason[:110]}", flush=True)
    text = table(rows)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps([{**r.__dict__, "reasons": dict(r.reasons)} for r in rows],
                                              indent=1))
    if args.markdown:
        with open(args.markdown, "a", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
