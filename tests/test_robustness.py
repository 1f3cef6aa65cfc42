"""Bad input never crashes syncheck: each bad file gets one clear line and exit status 2,
the other files are still analyzed, nothing analyzed is written, output is deterministic."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from tests.conftest import ROOT, run_cli

BUGGY = (ROOT / "fixtures" / "seeds" / "lecture_divergent_barrier.cu").read_text()


def _run(tmp_path, *names):
    r = run_cli("--format", "json", "--no-cache", *names, cwd=tmp_path)
    assert "Traceback" not in r.stdout + r.stderr
    return r, json.loads(r.stdout)


def _errors(data):
    return {os.path.basename(e["path"]): e["message"] for e in data["errors"]}


def test_bad_files_get_one_error_each_and_the_rest_is_analyzed(tmp_path):
    (tmp_path / "good.cu").write_text(BUGGY)
    (tmp_path / "empty.cu").write_text("")
    (tmp_path / "blank.cu").write_text("\n   \n")
    (tmp_path / "binary.cu").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "latin1.cu").write_bytes("// caf\xe9\n__global__ void k() {}\n".encode("latin-1"))
    (tmp_path / "huge.cu").write_text("// filler\n" * (1 << 20))  # 10 MiB
    (tmp_path / "dangling.cu").symlink_to(tmp_path / "nowhere.cu")
    (tmp_path / "loop_a.cu").symlink_to(tmp_path / "loop_b.cu")
    (tmp_path / "loop_b.cu").symlink_to(tmp_path / "loop_a.cu")
    names = ["good.cu", "empty.cu", "blank.cu", "binary.cu", "latin1.cu", "huge.cu",
             "dangling.cu", "loop_a.cu", "missing.cu"]
    r, data = _run(tmp_path, *names)
    assert r.returncode == 2
    assert [f["code"] for f in data["findings"]] == ["SYN101"]
    errors = _errors(data)
    assert errors["empty.cu"] == "file is empty" and errors["blank.cu"] == "file is empty"
    assert errors["binary.cu"].startswith("binary file")
    assert errors["latin1.cu"].startswith("not valid UTF-8 (byte 0xe9")
    assert errors["huge.cu"].startswith("file is too large to analyze")
    assert "no such file or directory" in errors["dangling.cu"].lower()
    assert "symbolic links" in errors["loop_a.cu"]
    assert errors["missing.cu"] == "no such file or directory"
    for message in errors.values():
        assert "\n" not in message


def test_folder_walk_survives_symlink_loops_and_odd_entries(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(BUGGY)
    (tmp_path / "src" / "self").symlink_to(tmp_path / "src")
    (tmp_path / "src" / "broken.cu").symlink_to(tmp_path / "gone.cu")
    r, data = _run(tmp_path, "src")
    assert [os.path.basename(f["path"]) for f in data["findings"]] == ["k.cu"]
    assert r.returncode == 2 and "broken.cu" in _errors(data)


def test_syntax_errors_mid_kernel(tmp_path):
    (tmp_path / "broken.cu").write_text(
        BUGGY + "\n__global__ void oops(float* a) {\n    a[0] = ;\n    if (threadIdx.x) {\n}\n")
    r, data = _run(tmp_path, "broken.cu")
    assert r.returncode == 2
    assert [f["code"] for f in data["findings"]] == ["SYN101"]  # the intact kernels still count
    (message,) = _errors(data).values()
    assert message.startswith("syntax error: expected expression")


@pytest.mark.parametrize("text,needle", [
    ("__global__ void k(float* a) { /* never closed\n a[0] = 1; }\n", "unterminated"),
    ('__global__ void k(char* a) { const char* s = "open;\n }\n', "syntax error"),
])
def test_unterminated_comments_and_strings(tmp_path, text, needle):
    (tmp_path / "u.cu").write_text(text)
    r, data = _run(tmp_path, "u.cu")
    assert r.returncode == 2 and needle in next(iter(_errors(data).values()))


def test_missing_include_is_a_note_and_analysis_goes_on(tmp_path):
    (tmp_path / "k.cu").write_text("#include <cub/cub.cuh>\n#include \"nothere.h\"\n" + BUGGY)
    r, data = _run(tmp_path, "k.cu")
    assert r.returncode == 1
    assert [f["code"] for f in data["findings"]] == ["SYN101"]
    assert any("cub/cub.cuh" in n["message"] for n in data["notes"])


def test_deep_nesting_does_not_crash(tmp_path):
    depth = 1000
    body = "if (threadIdx.x > 1) {" * depth + "a[0] = 1;" + "}" * depth
    (tmp_path / "deep.cu").write_text(f"__global__ void k(float* a) {{ {body} }}\n" + BUGGY)
    r, data = _run(tmp_path, "deep.cu")
    assert r.returncode == 2
    (message,) = _errors(data).values()
    assert "bracket nesting level exceeded" in message
    (tmp_path / "deep.cu").write_text("__global__ void k(float* a) { "
                                      + "if (threadIdx.x > 1) {" * 200 + "a[0] = 1;" + "}" * 200
                                      + " }\n" + BUGGY)
    r, data = _run(tmp_path, "deep.cu")  # deep but within clang's limit: analyzed
    assert r.returncode == 1 and [f["code"] for f in data["findings"]] == ["SYN101"]


def test_never_writes_to_analyzed_files_and_output_is_deterministic(tmp_path):
    files = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.is_file())
    before = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in files}
    first = run_cli("--format", "json", "--no-cache", ROOT / "fixtures")
    second = run_cli("--format", "json", "--no-cache", "-j", "2", ROOT / "fixtures")
    after = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in files}
    assert before == after
    # 2: fixtures/SYN002 holds kernels that cannot be analyzed (unanalyzed-function)
    assert first.stdout == second.stdout and first.returncode == second.returncode == 2


def test_per_file_time_limit(tmp_path):
    (tmp_path / "big.cu").write_text(
        "".join(f"__global__ void k{i}(float* a, int n) {{ if (threadIdx.x < n) __syncthreads(); }}\n"
                for i in range(400)))
    r = run_cli("--no-cache", "--timeout", "0.05", "big.cu", cwd=tmp_path)
    assert r.returncode == 2 and "per-file time limit" in r.stdout
