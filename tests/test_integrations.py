"""The integrations run for real: SARIF against the official schema, GitHub annotations,
configuration files, suppressions, the cache and -j, and pre-commit try-repo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

BUGGY = ROOT / "fixtures" / "seeds" / "lecture_divergent_barrier.cu"
SEEDS = ROOT / "fixtures" / "seeds"


def _sarif_schema(tmp_path_factory) -> dict:
    """The official SARIF 2.1.0 schema: $SYNCHECK_SARIF_SCHEMA, or fetched from the npm registry
    (the @microsoft/jest-sarif package ships it)."""
    env = os.environ.get("SYNCHECK_SARIF_SCHEMA")
    if env and os.path.isfile(env):
        return json.loads(Path(env).read_text(encoding="utf-8"))
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("no SARIF schema: set SYNCHECK_SARIF_SCHEMA or install npm")
    folder = tmp_path_factory.mktemp("sarif")
    r = subprocess.run([npm, "pack", "@microsoft/jest-sarif@1.0.0-beta.0", "--silent"], cwd=folder,
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        pytest.skip(f"could not fetch the SARIF schema from npm: {r.stderr.strip()[:200]}")
    with tarfile.open(folder / r.stdout.strip().splitlines()[-1]) as tar:
        member = tar.extractfile("package/lib/schemas/sarif-2.1.0-rtm.5.json")
        return json.loads(member.read().decode("utf-8"))


def test_sarif_validates_against_the_official_schema(tmp_path_factory):
    jsonschema = pytest.importorskip("jsonschema")
    schema = _sarif_schema(tmp_path_factory)
    r = run_cli("--format", "sarif", "--no-cache", SEEDS, ROOT / "fixtures" / "SYN401")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema)
    run = doc["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert "SYN101" in rules and rules["SYN101"]["help"]["markdown"].startswith("# SYN101")
    results = run["results"]
    assert {r["ruleId"] for r in results} >= {"SYN101", "SYN102", "SYN401"}
    uri = lambda result: result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    first = next(r for r in results if r["ruleId"] == "SYN101" and uri(r).endswith("seeds/lecture_divergent_barrier.cu"))
    region = first["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (10, 9) and first["level"] == "error"
    assert rules[first["ruleId"]] == run["tool"]["driver"]["rules"][first["ruleIndex"]]
    # a finding's own severity, milder than its rule's (a barrier only exited threads skip)
    after_exit = next(r for r in results if r["ruleId"] == "SYN101" and uri(r).endswith("bad_tile_reloaded_sized_by_constants.cu"))
    assert after_exit["level"] == "warning"


def test_github_annotations():
    r = run_cli("--format", "github", "--no-cache", BUGGY)
    assert r.returncode == 1
    line = r.stdout.splitlines()[0]
    assert line.startswith(f"::error file={BUGGY},line=10,col=9,endLine=10,endColumn=24,title=SYN101 divergent-barrier::")
    assert "%0A" in line and "\n" not in line.strip()


def test_config_file_select_ignore_and_per_file_ignores(tmp_path):
    (tmp_path / "a.cu").write_text(BUGGY.read_text())
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "b.cu").write_text(BUGGY.read_text())
    (tmp_path / "pyproject.toml").write_text(
        '[tool.syncheck]\nper-file-ignores = { "legacy/*.cu" = ["SYN101"] }\n')
    r = run_cli("--format", "json", "--no-cache", ".", cwd=tmp_path)
    found = json.loads(r.stdout)["findings"]
    assert [f["path"] for f in found] == ["./a.cu"]
    (tmp_path / ".syncheck.toml").write_text('ignore = ["SYN1"]\n')
    assert run_cli("--no-cache", ".", cwd=tmp_path).returncode == 0
    assert run_cli("--no-cache", "--isolated", ".", cwd=tmp_path).returncode == 1
    (tmp_path / ".syncheck.toml").write_text('colour = "red"\n')
    bad = run_cli("--no-cache", ".", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown syncheck setting" in bad.stderr


def test_config_block_dim_and_defines(tmp_path):
    (tmp_path / "k.cu").write_text(
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__global__ void k(float* a) {\n"
        "#ifdef GUARDED\n  if (threadIdx.x < 8) __syncthreads();\n#endif\n"
        "  auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
        "  if (threadIdx.y == 0) a[0] = cg::reduce(w, a[1], cg::plus<float>());\n}\n")
    assert run_cli("--no-cache", "k.cu", cwd=tmp_path).returncode == 0
    (tmp_path / ".syncheck.toml").write_text('block-dim = [16, 16]\ndefines = ["GUARDED"]\n')
    r = run_cli("--format", "json", "--no-cache", "k.cu", cwd=tmp_path)
    assert sorted(f["code"] for f in json.loads(r.stdout)["findings"]) == ["SYN101", "SYN103"]


def test_inline_suppressions(tmp_path):
    src = BUGGY.read_text().replace("__syncthreads();   // expect: SYN101",
                                    "__syncthreads();   // NOLINT(syncheck-SYN101)")
    (tmp_path / "k.cu").write_text(src)
    assert run_cli("--no-cache", "k.cu", cwd=tmp_path).returncode == 0
    (tmp_path / "k.cu").write_text(src.replace("NOLINT(syncheck-SYN101)", "syncheck: ignore[SYN201]"))
    assert run_cli("--no-cache", "k.cu", cwd=tmp_path).returncode == 1
    r = run_cli("--no-cache", "--report-unused-suppressions", "k.cu", cwd=tmp_path)
    assert "SYN001" in r.stdout


def test_cache_and_jobs_give_identical_output(tmp_path):
    cache = tmp_path / "cache"
    args = ("--format", "json", "--cache-dir", cache, ROOT / "fixtures")
    cold = run_cli(*args)
    warm = run_cli(*args)
    parallel = run_cli("--format", "json", "--no-cache", "-j", "2", ROOT / "fixtures")
    # 2: fixtures/SYN002 holds kernels that cannot be analyzed, on purpose
    assert cold.returncode == warm.returncode == parallel.returncode == 2
    assert cold.stdout == warm.stdout == parallel.stdout
    assert any(cache.rglob("*")) and (cache / "CACHEDIR.TAG").exists()


def test_cache_notices_a_changed_header(tmp_path):
    (tmp_path / "helper.cuh").write_text("__device__ void helper() { }\n")
    (tmp_path / "k.cu").write_text('#include "helper.cuh"\n__global__ void k(int n, int* out) {\n'
                                   "  if (threadIdx.x < n) helper();\n  out[threadIdx.x] = n;\n}\n")
    assert run_cli("k.cu", cwd=tmp_path).returncode == 0
    (tmp_path / "helper.cuh").write_text("__device__ void helper() { __syncthreads(); }\n")
    assert run_cli("k.cu", cwd=tmp_path).returncode == 1


@pytest.mark.slow
def test_pre_commit_try_repo(tmp_path):
    pre_commit = shutil.which("pre-commit") or (
        [sys.executable, "-m", "pre_commit"] if _has_module("pre_commit") else None)
    if pre_commit is None:
        pytest.skip("pre-commit is not installed")
    cmd = pre_commit if isinstance(pre_commit, list) else [pre_commit]
    repo = tmp_path / "project"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PRE_COMMIT_HOME": str(tmp_path / "pc-home")}
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    shutil.copy(BUGGY, repo / "buggy.cu")
    shutil.copy(SEEDS / "lecture_stencil.cu", repo / "clean.cu")
    (repo / "notes.txt").write_text("not CUDA\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True, env=env)
    r = subprocess.run(cmd + ["try-repo", str(ROOT), "syncheck", "--all-files"], cwd=repo,
                       capture_output=True, text=True, env=env, timeout=1800)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "buggy.cu:10:9: error:" in out and "SYN101" in out
    assert "clean.cu" not in out.split("syncheck", 1)[-1] or "clean.cu:" not in out
    subprocess.run(["git", "rm", "-q", "--cached", "buggy.cu"], cwd=repo, check=True, env=env)
    (repo / "buggy.cu").unlink()
    r2 = subprocess.run(cmd + ["try-repo", str(ROOT), "syncheck", "--all-files"], cwd=repo,
                        capture_output=True, text=True, env=env, timeout=1800)
    assert r2.returncode == 0, r2.stdout + r2.stderr
    # a kernel the hook could not analyze (its header is not on the include path) fails it
    shutil.copy(ROOT / "fixtures" / "SYN002" / "bad_missing_include.cu", repo / "unparsed.cu")
    subprocess.run(["git", "add", "unparsed.cu"], cwd=repo, check=True, env=env)
    r3 = subprocess.run(cmd + ["try-repo", str(ROOT), "syncheck", "--all-files"], cwd=repo,
                        capture_output=True, text=True, env=env, timeout=1800)
    out3 = r3.stdout + r3.stderr
    assert r3.returncode == 1, out3
    assert "unparsed.cu:5:17: error: kernel 'scale_rows' was not analyzed" in out3 and "SYN002" in out3


def _has_module(name: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(name) is not None
