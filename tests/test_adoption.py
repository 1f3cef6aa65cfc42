"""What a team needs to adopt syncheck: strict rule selection, configuration and compile
databases found like ruff and clang-tidy find them, excludes and .gitignore, baselines,
exit-status controls, stdin, output files, colour and stream discipline, SARIF for code
scanning."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

BUGGY = (ROOT / "fixtures" / "seeds" / "lecture_divergent_barrier.cu").read_text()
TWICE = BUGGY + BUGGY.replace("load_wrong", "load_again").replace("load_correct", "correct_again")
WARNING_ONLY = """__global__ void k(float* a) {
    if (a[threadIdx.x] > 0.0f) {
        unsigned m = __activemask();
        a[threadIdx.x] = __shfl_sync(m, a[threadIdx.x], 0);
    }
}
"""
NEEDS_INCLUDE = """#include "defs.h"
__global__ void k(float* a, int n) {
    if (GUARD(threadIdx.x)) __syncthreads();
    a[threadIdx.x] = 0.0f;
}
"""


def _tree(root, files: dict[str, str]):
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def _one_error_line(r, *words):
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert "Traceback" not in r.stderr
    return lines[0]


# -- item 1: selection and configuration errors -------------------------------------------

def test_unknown_rules_are_errors_with_a_suggestion(cli, tmp_path):
    k = _tree(tmp_path, {"k.cu": BUGGY}) / "k.cu"
    _one_error_line(cli("--select", "SYN9", k), "unknown rule 'SYN9'")
    _one_error_line(cli("--select", "divergent-barrer", k), "did you mean 'divergent-barrier'?")
    _one_error_line(cli("--ignore", "SYN1,nonsense", k), "unknown rule 'nonsense'")
    # a rule merged into another says where its findings went
    _one_error_line(cli("--select", "SYN104", k), "rule 'SYN104' was merged into SYN101", "name SYN101 instead")
    _one_error_line(cli("--ignore", "barrier-after-exit", k), "rule 'barrier-after-exit' was merged into SYN101")
    (tmp_path / ".syncheck.toml").write_text('arch = "sm_90"\nselect = ["SYN9"]\n')
    _one_error_line(cli(k), ".syncheck.toml:2:", "unknown rule 'SYN9'")
    (tmp_path / ".syncheck.toml").write_text('per-file-ignores = { "k.cu" = ["divergent-barrer"] }\n')
    _one_error_line(cli(k), ".syncheck.toml:1:", "did you mean 'divergent-barrier'?")


def test_repeated_select_flags_accumulate(cli, tmp_path):
    k = _tree(tmp_path, {"k.cu": BUGGY}) / "k.cu"
    assert cli("--select", "SYN2", k).returncode == 0
    assert cli("--select", "SYN2", "--select", "SYN1", k).returncode == 1
    assert cli("--ignore", "SYN2", "--ignore", "divergent-barrier", k).returncode == 0


def test_suppressions_accept_names_and_reject_unknown_ones(cli, tmp_path):
    text = BUGGY.replace("__syncthreads();   // expect: SYN101",
                         "__syncthreads();   // syncheck: ignore[divergent-barrier] reason: tested")
    k = _tree(tmp_path, {"k.cu": text}) / "k.cu"
    assert cli(k).returncode == 0
    k.write_text(BUGGY.replace("// expect: SYN101", "// syncheck: ignore[divergent-barier]"))
    r = cli(k)
    assert r.returncode == 2
    assert f"{k}:10:1: error: suppression comment: unknown rule 'divergent-barier'; did you mean " \
           f"'divergent-barrier'?" in r.stdout


@pytest.mark.parametrize("config, where, words", [
    ('jobs = "four"\n', ".syncheck.toml:1:", ["'jobs' must be a positive integer", "'four'"]),
    ('select = ["SYN1"]\narch = [\n', ".syncheck.toml:3:", ["invalid TOML"]),
    ('select = ["SYN1"]\nblock = 1 2\n', ".syncheck.toml:2:", ["invalid TOML", "(2, 9)"[0:0]]),
    ('\n\ntimeout = "x"\n', ".syncheck.toml:3:", ["'timeout'"]),
    ('selct = ["SYN1"]\n', ".syncheck.toml:1:", ["unknown syncheck setting", "did you mean 'select'"]),
])
def test_every_config_error_is_one_line_with_file_and_line(cli, tmp_path, config, where, words):
    k = _tree(tmp_path, {"k.cu": BUGGY, ".syncheck.toml": config}) / "k.cu"
    _one_error_line(cli(k), where, *words)


def test_pyproject_type_error_names_the_line(cli, tmp_path):
    k = _tree(tmp_path, {"k.cu": BUGGY, "pyproject.toml":
                         '[project]\nname = "x"\nignore = 1\n\n[tool.syncheck]\nselect = ["SYN1"]\nignore = 3\n'}) / "k.cu"
    _one_error_line(cli(k), "pyproject.toml:7:", "'ignore' must be a list of strings")


def test_exclude_extend_exclude_and_gitignore(cli, tmp_path):
    _tree(tmp_path, {"src/k.cu": BUGGY, "vendor/v.cu": BUGGY, "gen/g.cu": BUGGY,
                     "build/b.cu": BUGGY, "src/skip.gen.cu": BUGGY, ".gitignore": "build/\n*.gen.cu\n",
                     ".syncheck.toml": 'exclude = ["vendor"]\nextend-exclude = ["gen/**"]\n'})
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    data = json.loads(cli("--format", "json", ".", cwd=tmp_path).stdout)
    assert data["files"] == 1
    assert {f["path"] for f in data["findings"]} == {"./src/k.cu"}
    # named explicitly, an ignored or excluded file is analyzed
    r = cli("--format", "json", "build/b.cu", "vendor/v.cu", cwd=tmp_path)
    assert json.loads(r.stdout)["files"] == 2


# -- item 2: discovery from the analyzed file ---------------------------------------------

def test_config_is_found_from_the_file_not_the_cwd(cli, tmp_path):
    _tree(tmp_path, {"a/k.cu": BUGGY, "a/.syncheck.toml": 'ignore = ["SYN101"]\n', "b/k.cu": BUGGY})
    assert cli(tmp_path / "a" / "k.cu", cwd=tmp_path / "b").returncode == 0
    assert cli(tmp_path / "b" / "k.cu", cwd=tmp_path / "a").returncode == 1
    # one run, two configurations
    data = json.loads(cli("--format", "json", "a/k.cu", "b/k.cu", cwd=tmp_path).stdout)
    assert [f["path"] for f in data["findings"]] == ["b/k.cu"]


def _database(folder, src_dir):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "compile_commands.json").write_text(json.dumps([{
        "directory": str(src_dir), "file": "k.cu",
        "arguments": ["nvcc", "-Iinc", "-c", "k.cu"]}]))


@pytest.mark.parametrize("where", ["beside", "above", "build", "p"])
def test_compile_database_discovery(cli, tmp_path, where):
    src = tmp_path / "proj" / "src"
    _tree(src, {"k.cu": NEEDS_INCLUDE, "inc/defs.h": "#define GUARD(x) ((x) < 5)\n"})
    folder = {"beside": src, "above": tmp_path / "proj", "build": tmp_path / "proj" / "build",
              "p": tmp_path / "out"}[where]
    args = ["--format", "json", "--no-cache"]
    r0 = cli(*args, src / "k.cu", cwd=tmp_path)
    assert json.loads(r0.stdout)["findings"][0]["code"] == "SYN002"  # the include is missing
    _database(folder, src)
    if where == "p":
        args += ["-p", str(folder)]
    r = cli(*args, src / "k.cu", cwd=tmp_path)
    assert [f["code"] for f in json.loads(r.stdout)["findings"]] == ["SYN101"], r.stdout


# -- item 3: baselines ---------------------------------------------------------------------

def test_baseline_write_filter_prune(cli, tmp_path):
    k = _tree(tmp_path, {"k.cu": BUGGY}) / "k.cu"
    base = tmp_path / "baseline.json"
    assert cli("--write-baseline", base, k).returncode == 1
    entries = json.loads(base.read_text())["findings"]
    assert entries == [{"rule": "SYN101", "path": "k.cu", "code": "__syncthreads(); // expect: SYN101",
                        "occurrence": 0}]
    # lines shifted: still known
    k.write_text("// a new first line\n\n" + BUGGY)
    assert cli("--baseline", base, k).returncode == 0
    # a second, identical finding is new (occurrence 1)
    k.write_text(TWICE)
    r = cli("--baseline", base, "--format", "json", k)
    assert r.returncode == 1
    assert [f["function"] for f in json.loads(r.stdout)["findings"]] == ["load_again"]
    # fixed: prune drops the entry
    k.write_text(BUGGY.replace("__syncthreads();   // expect: SYN101", ""))
    assert cli("--baseline", base, "--prune-baseline", k).returncode == 0
    assert json.loads(base.read_text())["findings"] == []
    assert cli("--prune-baseline", k).returncode == 2


def test_sarif_fingerprints_are_stable_and_distinct(cli, tmp_path):
    k = _tree(tmp_path, {"k.cu": TWICE}) / "k.cu"
    first = json.loads(cli("--format", "sarif", "k.cu", cwd=tmp_path).stdout)["runs"][0]["results"]
    prints = [r["partialFingerprints"]["syncheck/v2"] for r in first]
    assert len(prints) == 2 and len(set(prints)) == 2
    k.write_text("\n\n\n" + k.read_text())
    again = json.loads(cli("--format", "sarif", "k.cu", cwd=tmp_path).stdout)["runs"][0]["results"]
    assert [r["partialFingerprints"]["syncheck/v2"] for r in again] == prints
    assert again[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 13


def test_sarif_uris_relative_under_base_absolute_elsewhere(cli, tmp_path):
    _tree(tmp_path, {"in/k.cu": BUGGY, "out/o.cu": BUGGY})
    run = json.loads(cli("--format", "sarif", "k.cu", tmp_path / "out" / "o.cu",
                         cwd=tmp_path / "in").stdout)["runs"][0]
    locs = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert {"uri": "k.cu", "uriBaseId": "%SRCROOT%"} in locs
    assert {"uri": (tmp_path / "out" / "o.cu").as_uri()} in locs


# -- item 4: exit status, statistics, stdin, output file, streams ---------------------------

def test_exit_zero_and_fail_on(cli, tmp_path):
    k = _tree(tmp_path, {"k.cu": BUGGY, "w.cu": WARNING_ONLY})
    assert cli(k / "k.cu", "--exit-zero").returncode == 0
    assert cli(k / "w.cu").returncode == 1
    assert cli(k / "w.cu", "--fail-on", "error").returncode == 0
    assert cli(k / "w.cu", "--fail-on", "warning").returncode == 1
    assert cli(k / "k.cu", "--fail-on", "error").returncode == 1
    assert cli(k / "nope.cu", "--exit-zero").returncode == 2  # bad input stays 2


def test_statistics(cli, tmp_path):
    _tree(tmp_path, {"k.cu": TWICE, "w.cu": WARNING_ONLY})
    r = cli("--statistics", "k.cu", "w.cu", cwd=tmp_path)
    assert r.stdout == "     2  SYN101  divergent-barrier\n     1  SYN206  activemask-as-mask\n"
    assert r.returncode == 1


def test_stdin_with_a_file_name(tmp_path):
    _tree(tmp_path, {"proj/.syncheck.toml": 'ignore = ["SYN101"]\n', "other/x": ""})
    def run(name):
        return subprocess.run([sys.executable, "-m", "syncheck", "--format", "json", "-",
                               "--stdin-filename", name], input=BUGGY, capture_output=True,
                              text=True, cwd=tmp_path / "other", timeout=300)
    r = run(str(tmp_path / "proj" / "k.cu"))  # its configuration ignores SYN101
    assert r.returncode == 0, r.stderr
    r = run(str(tmp_path / "other" / "k.cu"))
    assert r.returncode == 1
    (f,) = json.loads(r.stdout)["findings"]
    assert f["path"] == str(tmp_path / "other" / "k.cu") and f["line"] == 10
    assert not (tmp_path / "other" / "k.cu").exists()


def test_output_file_and_streams(cli, tmp_path):
    k = _tree(tmp_path, {"k.cu": BUGGY}) / "k.cu"
    out = tmp_path / "report.sarif"
    r = cli("--format", "sarif", "--output-file", out, k)
    assert r.returncode == 1 and r.stdout == ""
    assert json.loads(out.read_text())["version"] == "2.1.0"


def test_color_always_in_a_pipe(cli, tmp_path):
    k = _tree(tmp_path, {"k.cu": BUGGY}) / "k.cu"
    assert "\x1b[" in cli("--color", "always", k).stdout
    assert "\x1b[" not in cli(k).stdout


def test_progress_goes_to_stderr_only(tmp_path):
    """Under a pseudo-terminal for stderr (progress shown), stdout holds only the report."""
    import os
    import pty
    _tree(tmp_path, {f"k{i}.cu": BUGGY for i in range(8)})
    master, slave = pty.openpty()
    r = subprocess.run([sys.executable, "-m", "syncheck", "--format", "json", "--no-cache", "."],
                       stdout=subprocess.PIPE, stderr=slave, cwd=tmp_path, timeout=600)
    os.close(slave)
    err = b""
    try:
        while chunk := os.read(master, 65536):
            err += chunk
    except OSError:
        pass
    os.close(master)
    assert json.loads(r.stdout)["files"] == 8  # nothing else on stdout
    assert r.stdout.startswith(b"{")
    assert b"syncheck" in err  # the bar was drawn on stderr
