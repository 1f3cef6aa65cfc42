"""The command line as users meet it: output formats, exit codes, rule selection, docs."""

from __future__ import annotations

import json

from syncheck.checks.registry import ALL_CHECKS
from syncheck.rules_doc import all_docs
from tests.conftest import ROOT

BUGGY = ROOT / "fixtures" / "seeds" / "lecture_divergent_barrier.cu"
CLEAN = ROOT / "fixtures" / "seeds" / "lecture_stencil.cu"


def test_clean_file_exits_zero_and_prints_only_the_coverage_line(cli):
    r = cli(CLEAN)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "Found 0 findings in 1 file; analyzed 1 of 1 device function (100.0%).\n"


def test_finding_is_gcc_style_with_snippet_and_note(cli):
    r = cli(BUGGY)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"{BUGGY}:10:9: error: __syncthreads() may be reached by only part")
    assert lines[0].endswith("[SYN101 divergent-barrier]")
    assert lines[1].strip().startswith("10 |") and "__syncthreads();" in lines[1]
    assert lines[2].rstrip().endswith("^~~~~~~~~~~~~~~")
    assert f"{BUGGY}:8:9: note: 'i < n' is thread-dependent" in r.stdout
    assert "\x1b[" not in r.stdout  # no colour when not on a terminal


def test_json_contract(cli):
    r = cli("--format", "json", BUGGY, CLEAN)
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert set(data) >= {"findings", "errors"}
    (f,) = data["findings"]
    assert set(f) == {"code", "rule", "severity", "path", "line", "column", "end_line",
                      "end_column", "message", "function", "notes", "fix"}
    assert (f["code"], f["rule"], f["severity"], f["line"], f["column"]) == \
        ("SYN101", "divergent-barrier", "error", 10, 9)
    assert f["end_column"] == 24 and f["function"] == "load_wrong"
    assert f["notes"][0]["line"] == 8
    assert f["fix"]["safety"] == "unsafe" and f["fix"]["edits"][0]["line"] == 10
    assert data["errors"] == []


def test_select_and_ignore(cli):
    assert cli("--ignore", "SYN101", BUGGY).returncode == 0
    assert cli("--select", "SYN2", BUGGY).returncode == 0
    assert cli("--select", "SYN1", BUGGY).returncode == 1
    assert cli("--select", "divergent-barrier", BUGGY).returncode == 1


def test_folder_is_searched_recursively(cli):
    r = cli("--format", "json", ROOT / "fixtures" / "seeds")
    data = json.loads(r.stdout)
    assert data["files"] >= 7
    assert {f["code"] for f in data["findings"]} == {"SYN101", "SYN102"}


def test_list_rules_names_every_registered_rule(cli):
    r = cli("--list-rules")
    assert r.returncode == 0
    for check in ALL_CHECKS:
        assert check.code in r.stdout and check.name in r.stdout


def test_explain(cli):
    r = cli("--explain", "SYN101")
    assert r.returncode == 0
    assert "divergent-barrier" in r.stdout and "## Fix" in r.stdout
    assert cli("--explain", "divergent-grid-sync").returncode == 0
    bad = cli("--explain", "SYN999")
    assert bad.returncode == 2 and "unknown rule" in bad.stderr
    merged = cli("--explain", "SYN104")
    assert merged.returncode == 2 and "was merged into SYN101" in merged.stderr


def test_every_rule_has_a_document_and_every_document_a_rule():
    docs = all_docs()
    codes = {c.code for c in ALL_CHECKS}
    assert set(docs) == codes
    for check in ALL_CHECKS:
        doc = docs[check.code]
        assert doc.name == check.name
        assert doc.severity == check.severity.value
        for section in ("## What it flags", "## Why it is a bug", "## Example", "## Fix"):
            assert section in doc.body, f"{check.code} lacks {section}"


def test_usage_errors_exit_two(cli):
    assert cli().returncode == 2
    assert cli("--format", "yaml", CLEAN).returncode == 2


def test_missing_path_is_an_error_but_others_are_analyzed(cli, tmp_path):
    r = cli("--format", "json", tmp_path / "nope.cu", BUGGY)
    assert r.returncode == 2
    data = json.loads(r.stdout)
    assert len(data["findings"]) == 1
    assert data["errors"][0]["message"] == "no such file or directory"


def test_block_dim_pin_changes_warp_reasoning(cli, tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(
        "#include <cooperative_groups.h>\n"
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(float* a) {\n"
        "  auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
        "  if (threadIdx.y == 0) a[0] = cg::reduce(w, a[1], cg::plus<float>());\n"
        "}\n")
    assert cli(src).returncode == 0  # blockDim.x % 32 == 0 assumed: threadIdx.y is warp-uniform
    r = cli("--block-dim", "16,16", src)
    assert r.returncode == 1 and "SYN103" in r.stdout


def test_cooperative_grid_written_in_a_macro_argument_has_no_empty_quote(cli, tmp_path):
    # The grid expression of a launch wrapped in a checking macro has no source text of its
    # own: the message must not quote an empty string. (The grid grows with the data; a grid
    # handed in unchanged by an unseen caller would not be judged at all.)
    src = tmp_path / "coop.cu"
    src.write_text(
        "#include <cooperative_groups.h>\n"
        "namespace cg = cooperative_groups;\n"
        "#define CHECKED(call) do { if ((call) != cudaSuccess) return; } while (0)\n"
        "__global__ void phases(float *a) { cg::this_grid().sync(); a[0] = 1; }\n"
        "void run(float *a, int n) {\n"
        "  int ok = 0; cudaDeviceGetAttribute(&ok, cudaDevAttrCooperativeLaunch, 0);\n"
        "  void *args[] = {&a};\n"
        "  CHECKED(cudaLaunchCooperativeKernel((void *)phases, dim3(n / 256 + 1), dim3(256), args, 0, 0));\n"
        "}\n")
    r = cli("--format", "json", src)
    found = [f for f in json.loads(r.stdout)["findings"] if f["code"] == "SYN302"]
    assert len(found) == 1 and found[0]["line"] == 8
    assert "('')" not in found[0]["message"]
    assert "is not derived from an occupancy query" in found[0]["message"]


def test_a_bool_template_argument_is_named_true_or_false(cli, tmp_path):
    # libclang gives no type for an integral template argument and reads `true` as -1: the
    # call's name in a message must spell the template's bool parameter as written.
    src = tmp_path / "flags.cu"
    src.write_text(
        "template <int d, bool t, typename N> __device__ void f(N* v) { if (t) v[0] = d; __syncthreads(); }\n"
        "__global__ void k(float* v) {\n"
        "  if (threadIdx.x) f<3, true>(v);\n"
        "  if (threadIdx.y) f<4, false>(v);\n"
        "  v[1] = 0;\n"
        "}\n")
    found = json.loads(cli("--format", "json", src).stdout)["findings"]
    messages = sorted(f["message"] for f in found)
    assert len(messages) == 2
    assert "'f<3, true, float>'" in messages[0] and "'f<4, false, float>'" in messages[1]


def test_divergent_decisions_in_several_frames_are_one_finding_at_the_innermost(cli):
    # The helper's own `if (flags & 1u)` and the method's `if (flags)` both make its
    # barriers partial: reported at the first barrier under the helper's test (the second
    # barrier under it is a note), the caller's decision as a note.
    src = ROOT / "fixtures" / "realcode" / "method_field_selects_barrier.cu"
    found = json.loads(cli("--format", "json", src).stdout)["findings"]
    assert [(f["code"], f["line"]) for f in found] == [("SYN101", 11)]
    notes = [(n["line"], n["message"]) for n in found[0]["notes"]]
    assert any(line == 24 and "is also under 'flags'" in message for line, message in notes), notes
    assert any(line == 13 and "same decision also lets part of the group skip" in message
               for line, message in notes), notes
