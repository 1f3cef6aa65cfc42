"""Run the SYN5xx buggy fixtures (and their fixed twins) on a Hopper GPU and record what
happens: wrong output, a hang (timeout), a compute-sanitizer report, or nothing visible.

    python -m syncheck.gpu.hopper_fixtures run OUTDIR       # all cases, in parallel
    python -m syncheck.gpu.hopper_fixtures launch INDEX     # one plain launch (a child process)

Fixtures are built with nvcc for sm_90a (wgmma needs it) into cubins; a kernel's mangled
name is read from the PTX's .entry lines. Each launch runs in its own process, so that a
hang is a timeout and a fault does not take the others down.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "fixtures"
BUILD = Path(os.environ.get("SYNCHECK_HOPPER_BUILD", Path(tempfile.gettempdir()) / "syncheck_hopper"))


@dataclass(frozen=True)
class HopperCase:
    fixture: str                 # under fixtures/
    kernel: str
    grid: int
    block: int
    args: tuple                  # ("f32", n) random, ("out", n) poisoned, ("u16", n), ("i32", v), ("u64", v)
    ref: object = None           # callable(list of host args) -> {arg index: expected}, or None
    buggy: bool = True
    sanitize: bool = True


def _rev(x, tile, width=1):
    return x.reshape(-1, tile, width)[:, ::-1, :].reshape(-1)


def _first_half_nan(n, values):
    out = np.full(n, np.nan)
    out[n // 2:] = values
    return out


B502 = "SYN502/bad_async_before_wait.cu"
O502 = "SYN502/ok_async_after_wait.cu"
B503 = "SYN503/bad_missing_proxy_fence.cu"
O503 = "SYN503/ok_proxy_fence.cu"
B504 = "SYN504/bad_mbarrier_protocol.cu"
O504 = "SYN504/ok_mbarrier_protocol.cu"
B505 = "SYN505/bad_named_barriers.cu"
O505 = "SYN505/ok_named_barriers.cu"
B501 = "SYN501/bad_partial_warpgroup.cu"
B507 = "SYN507/bad_cluster_exit.cu"
O507 = "SYN507/ok_cluster_exit.cu"

CASES: tuple[HopperCase, ...] = (
    HopperCase(B502, "no_wait", 1, 128, (("f32", 512), ("out", 512)), lambda a: {1: _rev(a[0], 128, 4)}),
    HopperCase(O502, "waited", 1, 128, (("f32", 512), ("out", 512)), lambda a: {1: _rev(a[0], 128, 4)}, False, False),
    HopperCase(B502, "wait_count_too_large", 1, 128, (("f32", 1024), ("out", 512), ("i32", 2)),
               lambda a: {1: _rev(a[0][:512], 128, 4)}),
    HopperCase(B502, "pipeline_wait_after_read", 1, 128, (("f32", 128), ("out", 128)), lambda a: {1: a[0]}),
    HopperCase(B502, "cg_copy_no_wait", 1, 128, (("f32", 128), ("out", 128)), lambda a: {1: a[0][::-1]}),
    HopperCase(O502, "cg_copy_waited", 1, 128, (("f32", 128), ("out", 128)), lambda a: {1: a[0][::-1]}, False, False),
    HopperCase(B502, "bulk_read_before_mbarrier", 1, 128, (("f32", 1024), ("out", 128)), lambda a: {1: a[0][:128]}),
    HopperCase(O502, "bulk_read_after_mbarrier", 1, 128, (("f32", 1024), ("out", 128)), lambda a: {1: a[0][:128]},
               False, False),
    HopperCase(B502, "bulk_store_buffer_reused", 1, 128, (("out", 8192), ("i32", 64)),
               lambda a: {0: np.arange(8192, dtype=np.float64)}),
    HopperCase(O502, "bulk_store_waited", 1, 128, (("out", 8192), ("i32", 64)),
               lambda a: {0: np.arange(8192, dtype=np.float64)}, False, False),
    HopperCase(B503, "wgmma_after_plain_stores", 1, 128, (("u16", 1024), ("u16", 128), ("out", 128)),
               "twin:" + O503 + ":wgmma_after_fenced_stores"),
    HopperCase(B503, "bulk_store_without_fence", 1, 128, (("out", 128),),
               lambda a: {0: 2.0 * np.arange(128)}),
    HopperCase(B503, "fence_on_one_path", 1, 128, (("out", 128), ("i32", 0)),
               lambda a: {0: 1.0 + np.arange(128)}),
    HopperCase(O503, "bulk_store_fenced", 1, 128, (("out", 128), ("out", 1)),
               lambda a: {0: 2.0 * np.arange(128), 1: np.array([1.0])}, False, False),
    HopperCase(B504, "arrive_before_init_published", 1, 128, (("out", 128),), lambda a: {0: np.ones(128)}),
    HopperCase(O504, "arrive_after_init_published", 1, 128, (("out", 128),), lambda a: {0: np.ones(128)},
               False, False),
    HopperCase(B504, "bulk_copy_unfenced_init", 1, 128, (("f32", 1024), ("out", 128)), lambda a: {1: a[0][:128]}),
    HopperCase(B504, "expect_tx_bytes_mismatch", 1, 128, (("f32", 1024), ("out", 128)), lambda a: {1: a[0][:128]}),
    HopperCase(B504, "parity_never_flips", 1, 128, (("f32", 8192), ("out", 128), ("i32", 8)),
               lambda a: {1: a[0].reshape(8, 1024)[:, :128].sum(axis=0, dtype=np.float64)}),
    HopperCase(O504, "double_buffered", 1, 128, (("f32", 8192), ("out", 128), ("i32", 8)),
               lambda a: {1: a[0].reshape(8, 1024)[:, :128].sum(axis=0, dtype=np.float64)}, False, False),
    HopperCase(B504, "arrive_count_too_high", 1, 128, (("f32", 1024), ("out", 128)), lambda a: {1: a[0][:128]}),
    HopperCase(B505, "producer_consumer_counts_differ", 1, 256, (("out", 256),),
               lambda a: {0: _first_half_nan(256, np.arange(128))}),
    HopperCase(O505, "producer_consumer", 1, 256, (("out", 256),),
               lambda a: {0: _first_half_nan(256, np.arange(128))}, False, False),
    HopperCase(B505, "count_not_warp_multiple", 1, 128, (("out", 128),), lambda a: {0: np.full(128, 2.0)}),
    HopperCase(B505, "id_zero_with_syncthreads", 1, 256, (("out", 256),),
               lambda a: {0: 255.0 - np.arange(256)}),
    HopperCase(B501, "aligned_bar_divergent", 1, 256, (("out", 256),), lambda a: {0: np.ones(256)}),
    HopperCase(B501, "half_warpgroup", 1, 256, (("out", 256), ("u64", 0), ("u64", 0)), None),
    HopperCase(B507, "pair_sum_no_final_sync", 264, 128, (("f32", 264 * 128), ("out", 132 * 128)),
               lambda a: {1: (a[0].reshape(132, 2, 128).sum(axis=1, dtype=np.float64)).reshape(-1)}),
    HopperCase(O507, "pair_sum", 264, 128, (("f32", 264 * 128), ("out", 132 * 128)),
               lambda a: {1: (a[0].reshape(132, 2, 128).sum(axis=1, dtype=np.float64)).reshape(-1)},
               False, False),
)


# -- building --------------------------------------------------------------------------

def build(fixture: str) -> tuple[Path, str]:
    BUILD.mkdir(parents=True, exist_ok=True)
    stem = fixture.replace("/", "_").removesuffix(".cu")
    cubin, ptx = BUILD / (stem + ".cubin"), BUILD / (stem + ".ptx")
    src = str(FIXTURES / fixture)
    flags = ["-std=c++17", "-gencode=arch=compute_90a,code=sm_90a"]
    if not cubin.exists():
        subprocess.run(["nvcc", *flags, "-cubin", src, "-o", str(cubin)], check=True, capture_output=True)
    if not ptx.exists():
        subprocess.run(["nvcc", "-std=c++17", "-arch=compute_90a", "-ptx", src, "-o", str(ptx)],
                       check=True, capture_output=True)
    return cubin, ptx.read_text()


def mangled(ptx: str, kernel: str) -> str:
    for name in re.findall(r"\.entry\s+(\w+)", ptx):
        if name == kernel or name.startswith(f"_Z{len(kernel)}{kernel}"):
            return name
    raise KeyError(kernel)


# -- one launch (child process) ---------------------------------------------------------

def _host_args(case: HopperCase, seed: int = 11):
    rng = np.random.default_rng(seed)
    host = []
    for kind, value in case.args:
        if kind == "f32":
            host.append(rng.standard_normal(value).astype(np.float32))
        elif kind == "out":
            host.append(np.full(value, np.nan, np.float32))
        elif kind == "u16":  # bf16 bit patterns of small values
            host.append((rng.standard_normal(value).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16))
        elif kind == "i32":
            host.append(np.int32(value))
        else:
            host.append(np.uint64(value))
    return host


def _launch(case: HopperCase, host):
    import cupy
    cubin, ptx = build(case.fixture)
    module = cupy.RawModule(path=str(cubin))
    fn = module.get_function(mangled(ptx, case.kernel))
    dev = [cupy.asarray(h) if isinstance(h, np.ndarray) else h for h in host]
    fn((case.grid, 1, 1), (case.block, 1, 1), tuple(dev))
    cupy.cuda.runtime.deviceSynchronize()
    return [cupy.asnumpy(d) if isinstance(d, cupy.ndarray) else d for d in dev]


def _compare(got: np.ndarray, want) -> str:
    got = np.asarray(got, dtype=np.float64).reshape(-1)
    want = np.asarray(want, dtype=np.float64).reshape(-1)
    checked = ~np.isnan(want)
    g, w = got[checked], want[checked]
    unwritten = int(np.isnan(g).sum())
    scale = max(float(np.abs(w).max()) if w.size else 1.0, 1e-30)
    bad = np.isnan(g) | (np.abs(g - w) > 1e-4 * scale)
    if not bad.any():
        return "correct"
    return f"wrong: {int(bad.sum())}/{w.size} elements differ" + (f" ({unwritten} unwritten)" if unwritten else "")


def launch_one(index: int) -> int:
    case = CASES[index]
    host = _host_args(case)
    try:
        out = _launch(case, host)
    except Exception as e:
        print(f"result: launch failed ({type(e).__name__}: {str(e)[:100]})")
        return 0
    if case.ref is None:
        print("result: completed (no reference)")
        return 0
    if isinstance(case.ref, str) and case.ref.startswith("twin:"):
        _, fixture, kernel = case.ref.split(":")
        twin = HopperCase(fixture, kernel, case.grid, case.block, case.args)
        want = _launch(twin, _host_args(case))
        verdicts = [_compare(out[i], want[i]) for i, (k, _) in enumerate(case.args) if k == "out"]
    else:
        verdicts = [_compare(out[i], v) for i, v in case.ref(host).items()]
    bad = [v for v in verdicts if v != "correct"]
    print("result: completed, " + (bad[0] if bad else "correct output"))
    return 0


# -- all cases --------------------------------------------------------------------------

def _run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None
    return p.stdout + p.stderr


def _summary(tool: str, text: str | None, timeout: int) -> str:
    if text is None:
        return f"hang (killed after {timeout} s)"
    if tool == "plain":
        m = re.search(r"result: (.*)", text)
        return m.group(1) if m else (text.strip().splitlines() or ["no output"])[-1][:100]
    hazards = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", text)
    if hazards:
        return f"{hazards.group(1)} hazards ({hazards.group(2)} errors, {hazards.group(3)} warnings)"
    m = re.search(r"ERROR SUMMARY: (\d+) errors?", text)
    if m:
        return f"{m.group(1)} errors"
    return (text.strip().splitlines() or ["no output"])[-1][:100]


def run_case(index: int) -> dict:
    case = CASES[index]
    me = [sys.executable, "-m", "syncheck.gpu.hopper_fixtures", "launch", str(index)]
    res = {"fixture": case.fixture, "kernel": case.kernel, "buggy": case.buggy}
    res["plain"] = _summary("plain", _run(me, 20), 20)
    for tool in ("synccheck", "racecheck"):
        if not case.sanitize:
            res[tool] = "-"
        elif res["plain"].startswith("hang"):
            res[tool] = "not run (hangs)"
        else:
            res[tool] = _summary(tool, _run(["compute-sanitizer", f"--tool={tool}", *me], 60), 60)
    return res


def run_all(outdir: str, only: set[str] | None = None) -> int:
    chosen = [i for i, c in enumerate(CASES) if not only or c.kernel in only]
    for fixture in sorted({CASES[i].fixture for i in chosen}):
        build(fixture)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(run_case, chosen))
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "hopper_fixtures.json").write_text(json.dumps(results, indent=1))
    for r in results:
        print(f"{r['fixture']}:{r['kernel']} | {r['plain']} | {r['synccheck']} | {r['racecheck']}")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        raise SystemExit(launch_one(int(sys.argv[2])))
    raise SystemExit(run_all(sys.argv[2], set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None))
