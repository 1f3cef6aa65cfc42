"""Run the reference kernels on a GPU through CuPy and compare them with NumPy.

Static validation first (no findings allowed), then for each kernel: compile (NVRTC, or
nvcc for sm_90a), fresh random inputs, poisoned outputs, launch (cooperative launches with
an occupancy-sized grid), relative error against NumPy, and the kernel's time.
"""

from __future__ import annotations

import datetime
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from syncheck.gpu.catalog import CASES, SANITIZER_CASES, Case, SanitizerCase

ROOT = Path(__file__).resolve().parent.parent.parent
# A source checkout has reference_kernels/ beside the package; an installed copy ships them
# inside it. The buggy fixtures (for --sanitize) exist only in a checkout.
KERNELS = ROOT / "reference_kernels"
if not KERNELS.is_dir():
    KERNELS = Path(__file__).resolve().parent.parent / "_reference_kernels"
FIXTURES = ROOT / "fixtures"


@dataclass
class Result:
    case: Case
    static: str
    error: float | None = None
    ms: float | None = None
    passed: bool = False
    detail: str = ""


def static_findings(path: Path) -> list:
    from syncheck.engine import Settings, analyze_paths
    report = analyze_paths([str(path)], Settings())
    return report.findings + report.errors


def gpu_available() -> tuple[bool, str]:
    try:
        import cupy
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy, no driver, no device
        return False, f"{type(e).__name__}: {e}"
    return (n > 0, "" if n > 0 else "no CUDA device")


def _module(source: Path, arch: str, cooperative: bool, names=None):
    import cupy
    code = source.read_text(encoding="utf-8")
    if arch.endswith("a") and shutil.which("nvcc"):
        # NVRTC through CuPy names no arch-specific target; nvcc builds sm_90a code.
        out = Path(tempfile.mkdtemp()) / (source.stem + ".cubin")
        subprocess.run(["nvcc", "-std=c++17", "-cubin", f"-gencode=arch=compute_{arch[3:]},code={arch}",
                        str(source), "-o", str(out)], check=True, capture_output=True, text=True)
        return cupy.RawModule(path=str(out), enable_cooperative_groups=cooperative)
    kwargs = {"name_expressions": names} if names else {}
    return cupy.RawModule(code=code, options=("-std=c++17",), enable_cooperative_groups=cooperative,
                          **kwargs)


def _occupancy_grid(kernel, block: int, shared: int) -> tuple[int, int, int]:
    import cupy
    dev = cupy.cuda.Device()
    sms = dev.attributes["MultiProcessorCount"]
    try:
        per_sm = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.ptr, block, shared)
    except AttributeError:
        per_sm = 1
    return (max(1, per_sm) * sms, 1, 1)


def run_case(case: Case, modules: dict, seed: int) -> Result:
    import cupy
    static = "clean"
    mod_key = (case.source, case.arch, case.cooperative)
    if mod_key not in modules:
        modules[mod_key] = _module(KERNELS / case.source, case.arch, case.cooperative)
    kernel = modules[mod_key].get_function(case.kernel)
    rng = np.random.default_rng(seed)
    host = case.inputs(rng)
    reference = {name: ref(host) for name, ref in case.outputs.items()}
    dev = {k: cupy.asarray(v) if isinstance(v, np.ndarray) else v for k, v in host.items()}
    grid = case.grid
    if grid == "occupancy":
        grid = _occupancy_grid(kernel, case.block[0], case.shared_bytes)
    args = tuple(dev[a] for a in case.args)
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    kernel(grid, case.block, args, shared_mem=case.shared_bytes)
    stop.record()
    stop.synchronize()
    ms = cupy.cuda.get_elapsed_time(start, stop)
    worst = 0.0
    for name, want in reference.items():
        got = cupy.asnumpy(dev[name]).astype(np.float64).reshape(-1)
        want = np.asarray(want, dtype=np.float64).reshape(-1)
        if name in case.unordered:
            got, want = np.sort(got), np.sort(want)
        both_nan = np.isnan(got) & np.isnan(want)
        if (np.isnan(got) & ~both_nan).any():
            return Result(case, static, float("inf"), ms, False, f"{name}: unwritten (poison) values left")
        diff = np.where(both_nan, 0.0, np.abs(got - want))
        scale = np.nanmax(np.abs(want)) if np.isfinite(want).any() else 1.0
        worst = max(worst, float(np.nanmax(diff)) / max(scale, 1e-30))
    return Result(case, static, worst, ms, worst <= case.tolerance)


def sanitize(case: SanitizerCase) -> dict[str, str]:
    """Run one buggy fixture kernel under each tool; return tool -> summary."""
    out = {}
    for tool in case.tools:
        cmd = [sys.executable, "-m", "syncheck.gpu.launch_one", case.fixture, case.kernel]
        if tool != "plain":
            cmd = ["compute-sanitizer", f"--tool={tool}"] + cmd
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, cwd=ROOT)
        except subprocess.TimeoutExpired:
            out[tool] = "timed out"
            continue
        text = p.stdout + p.stderr
        m = re.search(r"ERROR SUMMARY: (\d+) error", text)
        hazards = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", text)
        launch = re.search(r"launch: (.*)", text)
        if tool == "racecheck" and hazards:
            out[tool] = (f"{hazards.group(1)} hazards ({hazards.group(2)} errors, "
                         f"{hazards.group(3)} warnings)")
        elif m:
            out[tool] = f"{m.group(1)} errors"
        elif launch:
            out[tool] = launch.group(1)
        else:
            out[tool] = (text.strip().splitlines() or ["no output"])[-1][:80]
        if tool == "plain" and launch:
            out[tool] = launch.group(1)
    return out


def _environment() -> dict[str, str]:
    import cupy
    rt = cupy.cuda.runtime
    props = rt.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    drv = rt.driverGetVersion()
    smi = ""
    if shutil.which("nvidia-smi"):
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip()
    return {"device": f"{name} (compute capability {props['major']}.{props['minor']})",
            "driver": smi or f"CUDA driver API {drv // 1000}.{drv % 1000 // 10}",
            "cupy": cupy.__version__, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def main(args) -> int:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # a GPU machine with numpy and CuPy only
        Console, Table = _PlainConsole, _PlainTable
    console = Console(stderr=False, highlight=False)
    # 1. static validation: a reference kernel must be clean
    static: dict[str, list] = {}
    if getattr(args, "static_from", None):
        import json
        counts = json.loads(Path(args.static_from).read_text(encoding="utf-8"))
        static = {src: ["finding"] * int(counts.get(src, 1)) for src in sorted({c.source for c in CASES})}
    else:
        for src in sorted({c.source for c in CASES}):
            static[src] = static_findings(KERNELS / src)
    if getattr(args, "static_out", None):
        import json
        Path(args.static_out).write_text(json.dumps({s: len(f) for s, f in static.items()}), encoding="utf-8")
        return 1 if any(static.values()) else 0
    dirty = {s: f for s, f in static.items() if f}
    for src, fs in dirty.items():
        for f in fs:
            console.print(f"[red]{src}: not clean: {getattr(f, 'code', 'error')} {getattr(f, 'message', '')}[/red]")
    ok, why = gpu_available()
    if not ok:
        sys.stderr.write(f"syncheck gpu: no usable GPU ({why}); static validation: "
                         f"{len(static) - len(dirty)}/{len(static)} reference files clean\n")
        return 2
    modules: dict = {}
    results = []
    for i, case in enumerate(CASES):
        try:
            r = run_case(case, modules, seed=args.seed + i)
        except Exception as e:
            r = Result(case, "", None, None, False, f"{type(e).__name__}: {str(e)[:200]}")
        r.static = "clean" if not static[case.source] else f"{len(static[case.source])} findings"
        results.append(r)
    table = Table(title="syncheck reference kernels")
    for col in ("kernel", "static", "max rel. error", "time (ms)", "result"):
        table.add_column(col)
    for r in results:
        err = "-" if r.error is None else f"{r.error:.1e}"
        ms = "-" if r.ms is None else f"{r.ms:.3f}"
        table.add_row(r.case.name, r.static, err, ms,
                      "[green]pass[/green]" if r.passed and r.static == "clean" else f"[red]FAIL[/red] {r.detail}")
    console.print(table)
    sanitized = []
    if args.sanitize:
        from syncheck.engine import Settings, analyze_paths
        for case in SANITIZER_CASES:
            report = analyze_paths([str(FIXTURES / case.fixture)], Settings())
            codes = sorted({f.code for f in report.findings if f.function == case.kernel or
                            case.kernel in f.message})
            sanitized.append((case, codes, sanitize(case)))
        st = Table(title="buggy fixtures: syncheck vs compute-sanitizer")
        for col in ("fixture kernel", "syncheck", "synccheck", "racecheck / plain run"):
            st.add_column(col)
        for case, codes, res in sanitized:
            st.add_row(f"{case.fixture}:{case.kernel}", ", ".join(codes) or "-",
                       res.get("synccheck", "-"), res.get("racecheck", res.get("plain", "-")))
        console.print(st)
    if args.report:
        _write_report(Path(args.report), results, sanitized)
    failed = [r for r in results if not (r.passed and r.static == "clean")]
    return 1 if failed or dirty else 0


class _PlainConsole:
    def __init__(self, **_):
        pass

    def print(self, what):
        print(re.sub(r"\[/?[a-z ]+\]", "", str(what)))


class _PlainTable:
    def __init__(self, title=""):
        self.title, self.rows, self.cols = title, [], []

    def add_column(self, name):
        self.cols.append(name)

    def add_row(self, *cells):
        self.rows.append(cells)

    def __str__(self):
        return "\n".join([self.title, " | ".join(self.cols)] + [" | ".join(map(str, r)) for r in self.rows])


def _write_report(path: Path, results, sanitized) -> None:
    env = _environment()
    lines = [
        "# syncheck GPU report", "",
        f"Produced by `syncheck gpu{' --sanitize' if sanitized else ''}` on {env['date']}.", "",
        f"- Device: {env['device']}", f"- Driver: {env['driver']}", f"- CuPy: {env['cupy']}", "",
        "## Reference kernels", "",
        "Every reference kernel is statically clean, compiled for sm_90 (sm_90a for wgmma), run with",
        "fresh random inputs into poisoned outputs, and compared with NumPy (relative error: the",
        "largest absolute difference over the largest reference magnitude). Time: one launch,",
        "CUDA events.", "",
        "| kernel | static | max rel. error | tolerance | time (ms) | result |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        err = "-" if r.error is None else f"{r.error:.2e}"
        ms = "-" if r.ms is None else f"{r.ms:.3f}"
        verdict = "pass" if r.passed and r.static == "clean" else f"FAIL {r.detail}"
        lines.append(f"| {r.case.name} | {r.static} | {err} | {r.case.tolerance:g} | {ms} | {verdict} |")
    if sanitized:
        lines += ["", "## Buggy fixtures under compute-sanitizer", "",
                  "What syncheck reports statically for each kernel, and what compute-sanitizer's",
                  "synccheck and racecheck report when the kernel runs (or what a plain run does).", "",
                  "| fixture kernel | syncheck | synccheck | racecheck / plain run |",
                  "| --- | --- | --- | --- |"]
        for case, codes, res in sanitized:
            lines.append(f"| `{case.fixture}` `{case.kernel}` | {', '.join(codes) or '-'} | "
                         f"{res.get('synccheck', '-')} | {res.get('racecheck', res.get('plain', '-'))} |")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":  # `python -m syncheck.gpu.runner`: a GPU machine without libclang
    import argparse
    _p = argparse.ArgumentParser(prog="python -m syncheck.gpu.runner")
    _p.add_argument("--static-from", required=True)
    _p.add_argument("--report")
    _p.add_argument("--seed", type=int, default=2026)
    _args = _p.parse_args()
    _args.sanitize, _args.static_out = False, None
    raise SystemExit(main(_args))
