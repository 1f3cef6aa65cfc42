"""Reference kernels: statically clean, compile with nvcc; GPU runs where a GPU exists."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from syncheck.engine import Settings, analyze_paths
from syncheck.gpu.catalog import CASES, SANITIZER_CASES
from tests.conftest import ROOT
from tests.fixture_expectations import FIXTURES

KERNELS = ROOT / "reference_kernels"
SOURCES = sorted(KERNELS.glob("*.cu"))
NVCC = shutil.which("nvcc")


def test_every_catalog_source_exists_and_every_source_is_catalogued():
    assert {c.source for c in CASES} == {p.name for p in SOURCES}
    for case in SANITIZER_CASES:
        assert (FIXTURES / case.fixture).is_file(), case.fixture


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_reference_kernel_is_statically_clean(path):
    report = analyze_paths([str(path)], Settings())
    assert report.findings == [] and report.errors == []


def _arch_for(path):
    return "sm_90a" if any(c.source == path.name and c.arch == "sm_90a" for c in CASES) else "sm_90"


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed on this machine")
@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_reference_kernel_compiles(path, tmp_path):
    arch = _arch_for(path)
    r = subprocess.run([NVCC, "-std=c++17", f"-gencode=arch=compute_{arch[3:]},code={arch}", "-c",
                        str(path), "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


FIXTURE_SOURCES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".cu", ".cpp"))
# CUDA library headers a toolkit may lack (the fixtures that include them still analyze)
LIBRARY_HEADERS = ("curand_kernel.h", "curand.h", "cufft.h", "cufftXt.h")


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed on this machine")
@pytest.mark.parametrize("path", FIXTURE_SOURCES, ids=[str(p.relative_to(FIXTURES)) for p in FIXTURE_SOURCES])
def test_fixture_compiles_unless_marked(path, tmp_path):
    """Fixtures are real CUDA: nvcc accepts them, except those whose bug nvcc itself rejects."""
    # Hopper-only fixtures (SYN5xx: wgmma, setmaxnreg...) need the arch-specific target; nvcc's
    # plain -arch=sm_90a also embeds compute_90 PTX, which ptxas rejects for wgmma.
    arch = ["-gencode=arch=compute_90a,code=sm_90a"] if path.relative_to(FIXTURES).parts[0].startswith("SYN5") \
        else ["-arch=sm_90"]
    r = subprocess.run([NVCC, "-std=c++17", *arch, "-x", "cu", "-c", str(path), "-o",
                        str(tmp_path / "f.o")], capture_output=True, text=True)
    rejects = "// nvcc: rejects" in path.read_text(encoding="utf-8")
    if r.returncode != 0 and not rejects and any(f"fatal error: {h}" in r.stderr for h in LIBRARY_HEADERS):
        pytest.skip("this toolkit has no cuRAND/cuFFT headers (the fixture needs them; syncheck declares its own)")
    assert (r.returncode != 0) == rejects, r.stderr


def _has_gpu():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@pytest.mark.gpu
@pytest.mark.skipif(not _has_gpu(), reason="no CUDA GPU with CuPy here; run `syncheck gpu` on one "
                                           "(results are in docs/gpu-report.md)")
def test_reference_kernels_match_numpy_on_gpu():
    from syncheck.gpu.runner import run_case
    modules: dict = {}
    for i, case in enumerate(CASES):
        result = run_case(case, modules, seed=100 + i)
        assert result.passed, (case.name, result.error, result.detail)


def test_gpu_command_without_gpu_says_so(cli):
    if _has_gpu():
        pytest.skip("a GPU is present")
    r = cli("gpu")
    assert r.returncode == 2
    assert "no usable GPU" in r.stderr and "reference files clean" in r.stderr


def test_hopper_fixture_cases_name_existing_kernels():
    """The SYN5xx GPU harness (syncheck.gpu.hopper_fixtures) names kernels that exist."""
    from syncheck.gpu.hopper_fixtures import CASES as HOPPER
    for case in HOPPER:
        text = (FIXTURES / case.fixture).read_text(encoding="utf-8")
        assert f" {case.kernel}(" in text, (case.fixture, case.kernel)
