"""The real-CUDA-header front end: selection (--cuda-headers), the precompiled header and
its fallbacks. Tests that parse with the real headers skip where they are not installed
(pip install 'syncheck[cuda]')."""

from __future__ import annotations

import json
import os

import pytest

from syncheck.frontend import precompiled
from syncheck.frontend.cuda_headers import RealHeaders, available
from syncheck.frontend.parse import ParseOptions, parse_source
from tests.conftest import ROOT, run_cli

CUB_BUGGY = ROOT / "fixtures" / "real_headers" / "bad_cub_block_reduce.cu"
PLAIN = ROOT / "fixtures" / "seeds" / "lecture_stencil.cu"


@pytest.fixture(scope="module")
def real():
    """The real headers (syncheck's user cache is a temp dir in tests: see conftest.py)."""
    headers = available("real")
    if headers is None:
        pytest.skip("the real CUDA headers are not installed: pip install 'syncheck[cuda]'")
    return headers


def _summary(parsed):
    return ([(p.line, p.kind, p.message) for p in parsed.problems],
            sorted(c.spelling for c in parsed.tu.cursor.get_children()
                   if c.location.file is not None and c.location.file.name == str(CUB_BUGGY)))


def test_precompiled_header_gives_the_same_parse_and_survives_corruption(real):
    source = CUB_BUGGY.read_bytes()
    options = ParseOptions()
    first = parse_source(str(CUB_BUGGY), source, options, real=real)
    warm = parse_source(str(CUB_BUGGY), source, options, real=real)
    plain = parse_source(str(CUB_BUGGY), source, options, real=real, use_pch=False)
    assert first.headers == warm.headers == plain.headers == "real"
    assert warm.precompiled and not plain.precompiled
    assert first.problems == [] and _summary(warm) == _summary(plain)
    # a header that no longer loads is discarded: this parse falls back, the next rebuilds it
    pch = precompiled.get(options.real_clang_args(real), real)
    with open(pch, "wb") as f:
        f.write(b"not a precompiled header")
    fallback = parse_source(str(CUB_BUGGY), source, options, real=real)
    assert not fallback.precompiled and fallback.problems == []
    assert not os.path.exists(pch)
    again = parse_source(str(CUB_BUGGY), source, options, real=real)
    assert again.precompiled and again.problems == []


def test_auto_reparses_only_what_the_model_cannot_read(real):
    r = run_cli("--format", "json", "--no-cache", CUB_BUGGY, PLAIN)
    data = json.loads(r.stdout)
    cov = data["coverage"]
    assert (cov["files_with_real_headers"], cov["files_with_model_headers"]) == (1, 1)
    assert cov["complete"] and r.returncode == 1
    assert [(f["code"], f["line"]) for f in data["findings"]] == [("SYN101", 24)]
    model = run_cli("--format", "json", "--no-cache", "--cuda-headers", "model", CUB_BUGGY)
    assert model.returncode == 2
    assert {f["code"] for f in json.loads(model.stdout)["findings"]} == {"SYN002"}


def test_folder_that_shadows_a_toolkit_header_is_parsed_without_the_precompiled_header(tmp_path):
    include = tmp_path / "cuda" / "include"
    include.mkdir(parents=True)
    for name in ("cub", "cuda_fp16.h", "cuda_runtime.h"):
        (include / name).mkdir() if name == "cub" else (include / name).write_text("")
    fake = RealHeaders(str(tmp_path / "cuda"), str(tmp_path), "12.3", "path", "test headers")
    project = tmp_path / "project"
    (project / "cub").mkdir(parents=True)
    (project / "k.cu").write_text("")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "k.cu").write_text("")
    assert not precompiled.usable_for(str(project / "k.cu"), b"__global__ void k() {}", fake)
    assert precompiled.usable_for(str(tmp_path / "other" / "k.cu"), b"__global__ void k() {}", fake)
    # a configuration macro set before the includes would not reach the precompiled copy
    assert not precompiled.usable_for(str(tmp_path / "other" / "k.cu"),
                                      b"#define CUB_IGNORE_DEPRECATED_API\n#include <cub/cub.cuh>\n", fake)


def test_unusable_cuda_headers_are_a_usage_error(tmp_path):
    r = run_cli("--cuda-headers", str(tmp_path / "nowhere"), PLAIN)
    assert r.returncode == 2 and "syncheck: error:" in r.stderr and r.stdout == ""
    newer = tmp_path / "cuda-13"
    (newer / "include").mkdir(parents=True)
    (newer / "bin").mkdir()
    (newer / "include" / "cuda_runtime.h").write_text("")
    (newer / "include" / "cuda.h").write_text("#define CUDA_VERSION 13000\n")
    r = run_cli("--cuda-headers", str(newer), PLAIN)
    assert r.returncode == 2
    assert "CUDA 13.0 is newer than libclang" in r.stderr or "resource headers" in r.stderr


def test_config_key_selects_the_headers_and_unknown_values_are_reported(tmp_path):
    (tmp_path / "k.cu").write_text(PLAIN.read_text())
    (tmp_path / ".syncheck.toml").write_text('cuda-headers = "model"\n')
    r = run_cli("--format", "json", "--no-cache", "k.cu", cwd=tmp_path)
    assert json.loads(r.stdout)["coverage"]["files_with_model_headers"] == 1
    (tmp_path / ".syncheck.toml").write_text("cuda-headers = 12\n")
    r = run_cli("k.cu", cwd=tmp_path)
    assert r.returncode == 2 and "'cuda-headers' must be" in r.stderr
    (tmp_path / ".syncheck.toml").write_text('cuda-headers = "no/such/cuda"\n')
    r = run_cli("k.cu", cwd=tmp_path)
    assert r.returncode == 2 and "no/such/cuda" in r.stderr


def test_a_failed_build_is_retried_when_an_include_folder_changes(tmp_path):
    include = tmp_path / "include"
    include.mkdir()
    marker = tmp_path / "key.failed"
    marker.write_text("error\n")
    old = marker.stat().st_mtime - 60
    os.utime(include, (old, old))
    args = ["-x", "cuda", "-I", str(include)]
    assert precompiled._still_failing(marker, args)
    (include / "added.h").write_text("")  # the folder changes: try again
    os.utime(include, (marker.stat().st_mtime + 1, marker.stat().st_mtime + 1))
    assert not precompiled._still_failing(marker, args)
    stale = marker.stat().st_mtime - precompiled.RETRY_FAILED_AFTER_S - 1
    os.utime(marker, (stale, stale))
    assert not precompiled._still_failing(marker, ["-x", "cuda"])


def test_real_headers_state_the_compiler_version_as_nvcc_does(real, tmp_path):
    """nvcc defines __CUDACC_VER_MAJOR__ (clang does not): code choosing its launch API by it
    is read in the branch nvcc compiles, with the real headers as with the model."""
    unit = tmp_path / "by_version.cu"
    unit.write_text("#if __CUDACC_VER_MAJOR__ >= 12\n__global__ void current() { __syncthreads(); }\n"
                    "#else\n__global__ void older() { __syncthreads(); }\n#endif\n", encoding="utf-8")
    for headers in ("real", "model"):
        parsed = parse_source(str(unit), unit.read_bytes(), ParseOptions(), real=real if headers == "real" else None)
        names = sorted(c.spelling for c in parsed.tu.cursor.get_children()
                       if c.location.file is not None and c.location.file.name == str(unit))
        assert names == ["current"], headers
    major = real.version.split(".")[0]
    assert f"-D__CUDACC_VER_MAJOR__={major}" in ParseOptions().real_clang_args(real)
    assert "-D__CUDACC_VER_MAJOR__=11" in ParseOptions(defines=("__CUDACC_VER_MAJOR__=11",)).real_clang_args(real)
    assert f"-D__CUDACC_VER_MAJOR__={major}" not in \
        ParseOptions(defines=("__CUDACC_VER_MAJOR__=11",)).real_clang_args(real)
