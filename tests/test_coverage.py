"""Coverage and honest exit codes: a device function syncheck could not analyze is a
diagnostic (SYN002) with the clang error and the flag that fixes it, the run says how much
it analyzed in every format, and the exit status is 2 unless incomplete coverage is allowed."""

from __future__ import annotations

import json

import pytest

from syncheck.diagnostics import Coverage, FileCoverage
from syncheck.frontend.fix_hints import fix_for
from tests.conftest import ROOT, run_cli

SYN002 = ROOT / "fixtures" / "SYN002"
MISSING_INCLUDE = SYN002 / "bad_missing_include.cu"
UNKNOWN_MACRO = SYN002 / "bad_unknown_macro.cu"
UNSUPPORTED = SYN002 / "bad_unsupported_construct.cu"
COMPLETE = SYN002 / "ok_everything_parses.cu"
# The model headers alone: these tests must not depend on the real-header wheels.
MODEL = ("--cuda-headers", "model", "--no-cache")


@pytest.mark.parametrize("path, function, clang_error, fix", [
    (MISSING_INCLUDE, "scale_rows", "use of undeclared identifier 'TileConfig'",
     "add -I <folder that holds syncheck_fixture_tile_config.cuh>"),
    (UNKNOWN_MACRO, "fill", "use of undeclared identifier 'THREADS_PER_BLOCK'",
     "-D THREADS_PER_BLOCK=<value>"),
    (UNSUPPORTED, "stage", "cannot use variable-length arrays in __global__ functions",
     "clang does not accept this construct"),
], ids=["missing-include", "unknown-macro", "unsupported-construct"])
def test_unanalyzed_kernel_is_an_error_at_the_kernel_and_exit_status_2(path, function, clang_error, fix):
    r = run_cli(*MODEL, path)
    assert r.returncode == 2, r.stdout + r.stderr
    head = next(line for line in r.stdout.splitlines() if "[SYN002 unanalyzed-function]" in line)
    assert head.startswith(f"{path}:") and ": error: " in head
    assert f"'{function}' was not analyzed: {clang_error}" in head
    assert fix in head
    assert "not analyzed (SYN002)." in r.stdout.splitlines()[-1]


def test_allow_incomplete_turns_them_into_notes_that_do_not_fail(tmp_path):
    r = run_cli(*MODEL, "--allow-incomplete", UNKNOWN_MACRO)
    assert r.returncode == 0, r.stdout
    assert ": info: " in r.stdout and "SYN002" in r.stdout
    (tmp_path / ".syncheck.toml").write_text("allow-incomplete = true\n")
    (tmp_path / "k.cu").write_text(UNKNOWN_MACRO.read_text())
    assert run_cli(*MODEL, "k.cu", cwd=tmp_path).returncode == 0
    (tmp_path / ".syncheck.toml").write_text("allow-incomplete = \"yes\"\n")
    bad = run_cli(*MODEL, "k.cu", cwd=tmp_path)
    assert bad.returncode == 2 and "'allow-incomplete' must be true or false" in bad.stderr


def test_a_suppression_on_the_function_accepts_it(tmp_path):
    text = UNSUPPORTED.read_text().replace("// expect: SYN002", "// syncheck: ignore[SYN002]")
    (tmp_path / "k.cu").write_text(text)
    r = run_cli(*MODEL, "k.cu", cwd=tmp_path)
    assert r.returncode == 0, r.stdout
    assert r.stdout.splitlines()[-1].startswith("Found 0 findings in 1 file; analyzed 0 of 1")


def test_giving_the_flag_the_message_names_makes_the_run_complete(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "syncheck_fixture_tile_config.cuh").write_text(
        "struct TileConfig { static constexpr int kRows = 32; static constexpr float kScale = 2.0f; };\n")
    (tmp_path / "k.cu").write_text(MISSING_INCLUDE.read_text())
    r = run_cli(*MODEL, "--format", "json", "k.cu", cwd=tmp_path)
    (finding,) = json.loads(r.stdout)["findings"]
    assert finding["code"] == "SYN002" and finding["message"].endswith("add -I include")
    r = run_cli(*MODEL, "--format", "json", "-I", "include", "k.cu", cwd=tmp_path)
    data = json.loads(r.stdout)
    assert r.returncode == 0 and data["findings"] == []
    assert (data["coverage"]["found"], data["coverage"]["analyzed"], data["coverage"]["complete"]) == (2, 2, True)


def test_json_coverage_object():
    r = run_cli(*MODEL, "--format", "json", MISSING_INCLUDE, COMPLETE)
    assert r.returncode == 2
    cov = json.loads(r.stdout)["coverage"]
    assert (cov["found"], cov["analyzed"], cov["complete"], cov["percent"]) == (4, 3, False, 75.0)
    assert cov["files_with_model_headers"] == 2 and cov["files_with_real_headers"] == 0
    (u,) = cov["unanalyzed"]
    assert (u["name"], u["kind"], u["line"], u["reason_line"]) == ("scale_rows", "kernel", 5, 6)


def test_github_annotations_fail_the_job_and_state_coverage():
    r = run_cli(*MODEL, "--format", "github", UNKNOWN_MACRO)
    assert r.returncode == 2
    lines = r.stdout.splitlines()
    errors = [line for line in lines if line.startswith("::error ") and "SYN002" in line]
    assert len(errors) == 2 and f"file={UNKNOWN_MACRO}".replace(":", "%3A") in errors[0]
    assert "-D THREADS_PER_BLOCK=<value>" in errors[0]
    assert lines[-1].startswith("::error title=syncheck coverage::syncheck analyzed 1 of 3 device functions")
    ok = run_cli(*MODEL, "--format", "github", COMPLETE)
    assert ok.returncode == 0
    assert ok.stdout.splitlines() == [
        "::notice title=syncheck coverage::syncheck analyzed 2 of 2 device functions (100.0%25) in 1 file"]


def test_sarif_results_notifications_and_run_properties():
    r = run_cli(*MODEL, "--format", "sarif", MISSING_INCLUDE)
    assert r.returncode == 2
    run = json.loads(r.stdout)["runs"][0]
    assert [res["ruleId"] for res in run["results"]] == ["SYN002"]
    assert run["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    cov = run["properties"]["coverage"]
    assert (cov["found"], cov["analyzed"], cov["complete"]) == (2, 1, False)
    notes = run["invocations"][0]["toolExecutionNotifications"]
    skipped = [n for n in notes if n.get("associatedRule", {}).get("id") == "SYN002"]
    assert len(skipped) == 1 and skipped[0]["level"] == "error"
    assert "'scale_rows' not analyzed" in skipped[0]["message"]["text"]
    assert any(n["message"]["text"] == "syncheck analyzed 1 of 2 device functions (50.0%)" for n in notes)
    assert "SYN002" in {rule["id"] for rule in run["tool"]["driver"]["rules"]}


def test_sarif_with_unanalyzed_functions_is_schema_valid(tmp_path_factory):
    jsonschema = pytest.importorskip("jsonschema")
    from tests.test_integrations import _sarif_schema
    schema = _sarif_schema(tmp_path_factory)
    r = run_cli(*MODEL, "--format", "sarif", MISSING_INCLUDE, UNKNOWN_MACRO)
    jsonschema.validate(json.loads(r.stdout), schema)


def test_language_server_puts_the_clang_error_on_the_skipped_kernel():
    from syncheck.engine import Settings
    from syncheck.lsp import diagnostics_for
    diags = diagnostics_for(str(MISSING_INCLUDE), MISSING_INCLUDE.read_text(),
                            Settings(cuda_headers="model", isolate=False))
    (skipped,) = [d for d in diags if d.code == "SYN002"]
    assert skipped.range.start.line == 4  # 0-based: the kernel's line
    assert "use of undeclared identifier 'TileConfig'" in skipped.message
    assert skipped.severity == 1  # Error


def test_coverage_adds_up_over_files():
    total = Coverage()
    total.add(FileCoverage(found=3, analyzed=3, headers="model"))
    total.add(FileCoverage(found=2, analyzed=1, headers="real"))
    assert (total.found, total.analyzed, total.files_model, total.files_real) == (5, 4, 1, 1)
    assert total.summary() == "analyzed 4 of 5 device functions (80.0%)"
    assert not total.complete and Coverage().complete


@pytest.mark.parametrize("message, headers, real, fix", [
    ("'cub/cub.cuh' file not found", "model", True, "use --cuda-headers real"),
    ("'cub/cub.cuh' file not found", "model", False, "pip install 'syncheck[cuda]'"),
    ("'curand_kernel.h' file not found", "real", True, "--cuda-headers PATH"),
    ("use of undeclared identifier 'BLOCK_SIZE'", "model", False, "-D BLOCK_SIZE=<value>"),
    ("unknown type name '__nv_bfloat162'", "model", True, "use --cuda-headers real"),
    ("use of undeclared identifier 'helper'", "real", True, "add the include (or -I folder) that declares 'helper'"),
    ("no matching function for call to 'foo'", "model", True, "model headers may lack"),
    ("cannot use variable-length arrays in __global__ functions", "model", True,
     "clang does not accept this construct"),
])
def test_fix_hints(message, headers, real, fix):
    assert fix in fix_for(message, headers, real, ())


def test_missing_project_header_is_found_for_the_hint(tmp_path):
    (tmp_path / "src" / "ops").mkdir(parents=True)
    (tmp_path / "src" / "ops" / "tile.cuh").write_text("// header\n")
    fix = fix_for("'ops/tile.cuh' file not found", "model", False, (str(tmp_path),))
    assert fix == f"add -I {tmp_path / 'src'}" or fix == "add -I " + str(
        (tmp_path / "src").relative_to(tmp_path))


def test_findings_in_vendored_code_are_dropped_unless_asked(tmp_path):
    buggy = (ROOT / "fixtures" / "seeds" / "lecture_divergent_barrier.cu").read_text()
    (tmp_path / "src").mkdir()
    (tmp_path / "third_party" / "lib").mkdir(parents=True)
    (tmp_path / "src" / "mine.cu").write_text(buggy)
    (tmp_path / "third_party" / "lib" / "theirs.cu").write_text(buggy)
    r = run_cli(*MODEL, "--format", "json", ".", cwd=tmp_path)
    paths = {f["path"] for f in json.loads(r.stdout)["findings"]}
    assert paths == {"./src/mine.cu"}
    r = run_cli(*MODEL, "--format", "json", "--report-headers", ".", cwd=tmp_path)
    paths = {f["path"] for f in json.loads(r.stdout)["findings"]}
    assert paths == {"./src/mine.cu", "./third_party/lib/theirs.cu"}
    # a file named on the command line is the user's, wherever it lives
    r = run_cli(*MODEL, "--format", "json", "third_party/lib/theirs.cu", cwd=tmp_path)
    assert [f["code"] for f in json.loads(r.stdout)["findings"]] == ["SYN101"]


def test_a_header_analyzed_alone_that_is_included_back_is_not_a_redefinition(tmp_path):
    # a.cuh includes b.cuh, which includes a.cuh: #pragma once cannot guard the main file
    (tmp_path / "a.cuh").write_text('#pragma once\n#include "b.cuh"\n'
                                    "__device__ int twice(int x) { return 2 * x; }\n")
    (tmp_path / "b.cuh").write_text('#pragma once\n#include "a.cuh"\n'
                                    "__device__ int thrice(int x) { return 3 * x; }\n")
    r = run_cli(*MODEL, "--format", "json", "a.cuh", cwd=tmp_path)
    data = json.loads(r.stdout)
    assert r.returncode == 0 and data["findings"] == []
    assert (data["coverage"]["found"], data["coverage"]["analyzed"]) == (1, 1)


def test_device_declarations_clang_could_not_read_at_all_are_counted_and_reported(tmp_path):
    # the macro hides the namespace: clang finds no function to count, yet device code is lost
    (tmp_path / "k.cuh").write_text(
        "LIB_NAMESPACE_BEGIN\n"
        "template <typename T> LIB_DEVICE T twice(T x) { return 2 * x; }\n"
        "LIB_NAMESPACE_END\n")
    r = run_cli(*MODEL, "--format", "json", "k.cuh", cwd=tmp_path)
    data = json.loads(r.stdout)
    assert r.returncode == 2
    assert data["coverage"]["found"] > data["coverage"]["analyzed"]
    (finding,) = data["findings"]
    assert finding["code"] == "SYN002" and "declaration" in finding["message"]
    assert "could not be parsed" in finding["message"] and "-D LIB_" in finding["message"]
