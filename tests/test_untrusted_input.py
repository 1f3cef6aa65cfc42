"""syncheck runs on strangers' pull requests: nothing in the analyzed tree may run code, read
private files into the output, hang the run, exhaust memory or hide the other files.

Each test reproduces one attack from issue 14 through the CLI (a subprocess, so crashes,
signals and stderr are seen as a user sees them).
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import pytest

from tests.conftest import ROOT

BUGGY = (ROOT / "fixtures" / "seeds" / "lecture_divergent_barrier.cu").read_text()
SECRET = "hunter2_private_token"


def syncheck(*args, cwd, timeout=180, env=None):
    """Run the CLI; a run that hangs fails the test instead of blocking the suite."""
    try:
        r = subprocess.run([sys.executable, "-m", "syncheck", *map(str, args)], cwd=cwd,
                           capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        pytest.fail(f"syncheck {' '.join(map(str, args))} did not finish in {timeout} s")
    assert r.returncode >= 0, f"killed by signal {-r.returncode}: {r.stderr[-2000:]}"
    assert "Traceback" not in r.stdout + r.stderr, r.stdout + r.stderr
    return r


def json_run(*args, cwd, **kw):
    r = syncheck("--format", "json", *args, cwd=cwd, **kw)
    return r, json.loads(r.stdout)


def errors_by_file(data) -> dict[str, str]:
    return {os.path.basename(e["path"]): e["message"] for e in data["errors"]}


def notes_text(data) -> str:
    return "\n".join(n["message"] for n in data.get("notes", []))


# ---- 1. the result cache cannot execute code ----

class _RunsCode:
    """Unpickling this creates a marker file: proof that the cache executed code."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_committed_pickle_in_the_cache_runs_nothing_and_the_output_stays_correct(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "k.cu").write_text(BUGGY)
    cache = repo / ".syncheck_cache"   # the old default location, inside the analyzed tree
    marker = tmp_path / "code-was-executed"
    first, data = json_run("--cache-dir", cache, "k.cu", cwd=repo)
    assert first.returncode == 1 and [f["code"] for f in data["findings"]] == ["SYN101"]
    entries = [p for p in cache.rglob("*") if p.is_file() and len(p.stem) >= 64]
    assert entries
    payload = pickle.dumps(_RunsCode(str(marker)))
    for entry in entries:  # the attacker overwrites every entry, under every name it may have
        entry.write_bytes(payload)
        entry.with_suffix("").write_bytes(payload)
    second = syncheck("--format", "json", "--cache-dir", cache, "k.cu", cwd=repo)
    assert not marker.exists()
    assert second.stdout == first.stdout and second.returncode == 1


def test_the_default_cache_lives_outside_the_analyzed_tree(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "k.cu").write_text(BUGGY)
    user_cache = tmp_path / "user-cache"
    first = syncheck("k.cu", cwd=repo, env={"XDG_CACHE_HOME": str(user_cache)})
    second = syncheck("k.cu", cwd=repo, env={"XDG_CACHE_HOME": str(user_cache)})
    assert first.stdout == second.stdout and first.returncode == 1
    assert sorted(p.name for p in repo.iterdir()) == ["k.cu"]  # nothing written into the repo
    assert any(p.suffix == ".json" for p in (user_cache / "syncheck").rglob("*"))


WRONG_SHAPES = [
    b"\x80\x04K\x05.",                                    # a harmless pickle of the int 5
    pickle.dumps(([], "not a result")),                    # the old format, wrong content
    b"[]",
    b'{"dependencies": [], "entry": {"format": 1, "result": {"findings": "x"}}}',
    b'{"dependencies": [], "entry": {"format": 1, "result": {"findings": [{"code": 1}]}}}',
    b'{"dependencies": [], "entry": {"format": 1, "result": {"problems": [{"path": "k.cu", '
    b'"message": "m", "kind": "error", "line": "1"}]}}}',
    b'{"dependencies": [], "entry": {"format": 1, "result": {}, "extra": 1}}',
    b'{"dependencies": [[1, 2]], "entry": {"format": 1, "result": {}}}',
    b'{"dependencies": [], "entry": {"format": 99, "result": {}}}',
    b'{"dependencies": [], "entry": {"format": 1, "result": {"facts": {"kernels": [{"key": "k", '
    b'"name": "k", "location": null, "grid_sync": null}]}}}}',
    b"[" * 100000 + b"]" * 100000,
    b'{"dependencies": [], "entry": {"format": 1, "result": {"findings": [' + b"1" * 5000 + b"]}}}",
    b"\xff\xfe not utf-8",
]


@pytest.mark.parametrize("entry", WRONG_SHAPES, ids=range(len(WRONG_SHAPES)))
def test_a_cache_entry_of_the_wrong_shape_is_a_miss(tmp_path, entry):
    (tmp_path / "k.cu").write_text(BUGGY)
    cache = tmp_path / "cache"
    first = syncheck("--format", "json", "--cache-dir", cache, "k.cu", cwd=tmp_path)
    files = [p for p in cache.rglob("*") if p.is_file() and len(p.stem) >= 64]
    assert files
    for p in files:
        p.write_bytes(entry)
        p.with_suffix("").write_bytes(entry)
    second = syncheck("--format", "json", "--cache-dir", cache, "k.cu", cwd=tmp_path)
    assert second.stdout == first.stdout and second.returncode == first.returncode == 1


def test_cache_entries_are_validated_json():
    from syncheck.results import FileResult, ResultFormatError, decode_result, dumps_result, loads_result
    from syncheck.diagnostics import FileProblem
    result = FileResult(problems=[FileProblem("k.cu", "m", line=3)])
    assert loads_result(dumps_result(result)) == result
    for bad in ({}, {"format": 1, "result": {"problems": [{"path": "k", "message": "m", "kind": "error",
                                                            "line": True}]}},
                {"format": True, "result": {}}):
        with pytest.raises(ResultFormatError):
            decode_result(bad)


# ---- 2. one bad file costs that file only ----

def _long_expression(terms: int) -> str:
    return f"__global__ void k(float* a) {{ float x = {'+'.join(['a[1]'] * terms)}; a[0] = x; }}\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_libclang_crash_costs_one_file(tmp_path, jobs):
    (tmp_path / "a_good.cu").write_text(BUGGY)
    (tmp_path / "b_crash.cu").write_text(_long_expression(20000))  # overflows libclang's stack
    (tmp_path / "c_good.cu").write_text(BUGGY)
    r, data = json_run("--no-cache", "-j", jobs, "a_good.cu", "b_crash.cu", "c_good.cu", cwd=tmp_path)
    assert r.returncode == 2
    assert sorted(os.path.basename(f["path"]) for f in data["findings"]) == ["a_good.cu", "c_good.cu"]
    errors = errors_by_file(data)
    assert list(errors) == ["b_crash.cu"] and "crashed" in errors["b_crash.cu"]
    assert "\n" not in errors["b_crash.cu"]


def test_a_file_that_blocks_the_parser_is_stopped_by_the_time_limit(tmp_path):
    # The include is spelled through a macro, so only clang sees it: it opens the FIFO and
    # waits for a writer forever, in C, where no Python signal handler can run.
    os.mkfifo(tmp_path / "pipe.h")
    (tmp_path / "blocks.cu").write_text('#define HEADER "pipe.h"\n#include HEADER\n' + BUGGY)
    (tmp_path / "good.cu").write_text(BUGGY)
    # Waiting uses no CPU time: the wall-time backstop (10 times the limit, at least the
    # limit and a minute) stops it.
    r, data = json_run("--no-cache", "--timeout", "5", "blocks.cu", "good.cu", cwd=tmp_path, timeout=240)
    assert r.returncode == 2
    assert [os.path.basename(f["path"]) for f in data["findings"]] == ["good.cu"]
    assert errors_by_file(data) == {"blocks.cu": "analysis stopped after 65 s of wall time without finishing "
                                                 "(the backstop for a file that waits instead of computing)"}


def test_a_file_that_needs_too_much_memory_is_stopped_by_the_memory_limit(tmp_path):
    # Flat, not deep: memory grows with the number of statements, and no other stop (nesting,
    # recursion) is near, so which stop comes first does not depend on the analysis' frames.
    # 30,000 such statements are analyzed within the limit; 100,000 need well over it.
    body = "".join(f"a[{i % 97}] = a[{i * 7 % 89}] + {i};\n" for i in range(100_000))
    (tmp_path / "wide.cu").write_text(f"__global__ void k(float* a) {{\n{body}}}\n")
    (tmp_path / "good.cu").write_text(BUGGY)
    r, data = json_run("--no-cache", "--memory-limit", "600", "--timeout", "600", "wide.cu", "good.cu",
                       cwd=tmp_path, timeout=600)
    assert r.returncode == 2
    assert [os.path.basename(f["path"]) for f in data["findings"]] == ["good.cu"]
    message = errors_by_file(data)["wide.cu"]
    assert "memory limit (600 MiB)" in message


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux /proc")
def test_workers_do_not_outlive_a_killed_run(tmp_path):
    import signal
    import time
    os.mkfifo(tmp_path / "pipe.h")
    (tmp_path / "blocks.cu").write_text('#define HEADER "pipe.h"\n#include HEADER\n' + BUGGY)
    run = subprocess.Popen([sys.executable, "-m", "syncheck", "--no-cache", "--timeout", "0",
                            "blocks.cu"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)

    def children(pid):
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                return [int(c) for c in f.read().split()]
        except OSError:
            return []

    deadline = time.monotonic() + 120
    while not children(run.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    (worker,) = children(run.pid)
    run.send_signal(signal.SIGKILL)
    run.wait()
    while os.path.exists(f"/proc/{worker}") and time.monotonic() < deadline:
        try:
            with open(f"/proc/{worker}/stat") as f:
                if f.read().split(") ")[-1].startswith("Z"):
                    break  # a zombie: dead, waiting for init to reap it
        except OSError:
            break
        time.sleep(0.1)
    alive = os.path.exists(f"/proc/{worker}")
    if alive:
        with open(f"/proc/{worker}/stat") as f:
            alive = not f.read().split(") ")[-1].startswith("Z")
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive, "the worker outlived the killed run"


def test_limits_are_configuration_keys(tmp_path):
    os.mkfifo(tmp_path / "pipe.h")
    (tmp_path / "blocks.cu").write_text('#define HEADER "pipe.h"\n#include HEADER\n' + BUGGY)
    (tmp_path / ".syncheck.toml").write_text("timeout = 2\nmemory-limit = 1500\n")
    r, data = json_run("--no-cache", "blocks.cu", cwd=tmp_path, timeout=180)
    assert errors_by_file(data) == {"blocks.cu": "analysis stopped after 62 s of wall time without finishing "
                                                 "(the backstop for a file that waits instead of computing)"}


def test_a_recursion_inside_a_libclang_callback_prints_no_traceback(tmp_path):
    (tmp_path / "long.cu").write_text(_long_expression(6000))
    code = ("import sys; from syncheck.engine import Settings, analyze_file; "
            "r = analyze_file(sys.argv[1], Settings(isolate=False)); print(r.problems[0].message)")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "long.cu")], capture_output=True,
                       text=True, timeout=180, cwd=ROOT)
    assert r.returncode == 0 and r.stderr == "", r.stderr[-2000:]
    assert r.stdout.strip() == "too deeply nested to analyze"
    cli, data = json_run("--no-cache", "long.cu", cwd=tmp_path)
    assert cli.stderr == "" and errors_by_file(data) == {"long.cu": "too deeply nested to analyze"}



def _many_accesses_in_one_interval(count: int) -> str:
    body = "".join(f" s[threadIdx.x + {i}] = s[threadIdx.x + {i + 1}];" for i in range(count))
    return f"__global__ void races(int n) {{ __shared__ float s[8192];{body} }}\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_time_limit_stops_an_analysis_busy_in_python(tmp_path, jobs):
    # Several seconds of race-pair work in Python (between libclang callbacks): the limit is
    # enforced from outside the worker, so where the analysis is when it expires does not matter.
    (tmp_path / "races.cu").write_text(_many_accesses_in_one_interval(4000))
    r, data = json_run("--no-cache", "-j", jobs, "--timeout", "1", "races.cu", cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and data["findings"] == []
    assert errors_by_file(data) == {"races.cu": "analysis stopped after 1 s of CPU time (per-file time limit)"}


def test_an_exponential_macro_is_stopped_by_the_memory_limit(tmp_path):
    levels = 27  # 2**26 tokens: gigabytes in the preprocessor
    lines = ["#define B0 x"] + [f"#define B{i} B{i - 1} B{i - 1}" for i in range(1, levels)]
    (tmp_path / "blow.cu").write_text("\n".join(lines) + f"\n__device__ void blow(int x) {{ (void)(B{levels - 1}); }}\n")
    (tmp_path / "good.cu").write_text(BUGGY)
    r, data = json_run("--no-cache", "--memory-limit", "600", "--timeout", "600", "blow.cu", "good.cu",
                       cwd=tmp_path, timeout=600)
    assert r.returncode == 2
    assert [os.path.basename(f["path"]) for f in data["findings"]] == ["good.cu"]
    message = errors_by_file(data)["blow.cu"]
    # libclang either fails the parse when an allocation is refused or aborts the worker
    assert "\n" not in message and ("memory limit (600 MiB)" in message or "could not be parsed" in message)

# ---- 3. only regular files are read ----

def test_fifos_and_devices_are_refused_and_the_rest_is_analyzed(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.cu").write_text(BUGGY)
    os.mkfifo(src / "pipe.cu")
    (src / "null.cu").symlink_to("/dev/null")
    (src / "zero.cuh").symlink_to("/dev/zero")
    r, data = json_run("--no-cache", "src", cwd=tmp_path, timeout=120)  # found by a folder walk
    assert r.returncode == 2 and [os.path.basename(f["path"]) for f in data["findings"]] == ["good.cu"]
    errors = errors_by_file(data)
    assert errors["pipe.cu"] == "a named pipe (FIFO), not a regular file; refused"
    assert errors["null.cu"] == "a character device, not a regular file; refused"
    assert errors["zero.cuh"] == "a character device, not a regular file; refused"
    r, data = json_run("--no-cache", "src/pipe.cu", "src/zero.cuh", "src/good.cu", cwd=tmp_path,
                       timeout=120)  # named on the command line
    assert errors_by_file(data) == {"pipe.cu": "a named pipe (FIFO), not a regular file; refused",
                                    "zero.cuh": "a character device, not a regular file; refused"}


# ---- 3b. nothing outside the project reaches the output ----

@pytest.fixture
def project_and_secret(tmp_path):
    secret = tmp_path / "private"
    secret.mkdir()
    (secret / "token.txt").write_text(f"{SECRET} leaked;\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    return repo, secret / "token.txt"


def _assert_secret_kept(r):
    assert SECRET not in r.stdout + r.stderr


@pytest.mark.parametrize("spelling", ["absolute", "relative", "macro", "symlink"])
def test_an_include_outside_the_project_is_refused(project_and_secret, spelling):
    repo, token = project_and_secret
    include = {"absolute": f'#include "{token}"',
               "relative": '#include "../private/token.txt"',
               "macro": f'#define PRIVATE "{token}"\n#include PRIVATE',
               "symlink": '#include "inc/token.h"'}[spelling]
    if spelling == "symlink":
        (repo / "inc").mkdir()
        (repo / "inc" / "token.h").symlink_to(token)
    (repo / "k.cu").write_text(include + "\n" + BUGGY)
    r, data = json_run("--no-cache", "k.cu", cwd=repo)
    _assert_secret_kept(r)
    assert "refused" in notes_text(data)
    assert [f["code"] for f in data["findings"]] == ["SYN101"]


def test_include_folders_from_the_repository_configuration_cannot_leave_it(project_and_secret):
    repo, token = project_and_secret
    (repo / ".syncheck.toml").write_text('include = ["../private"]\n')
    (repo / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(repo), "file": "k.cu", "arguments": ["nvcc", "-I../private", "-c", "k.cu"]}]))
    (repo / "k.cu").write_text('#include "token.txt"\n' + BUGGY)
    r, data = json_run("--no-cache", "k.cu", cwd=repo)
    _assert_secret_kept(r)
    assert "refused" in notes_text(data)


def test_an_include_folder_given_on_the_command_line_is_trusted(project_and_secret):
    repo, token = project_and_secret
    (repo / "k.cu").write_text('#include "token.txt"\n' + BUGGY)
    r, data = json_run("--no-cache", "-I", token.parent, "k.cu", cwd=repo)
    assert SECRET in r.stdout and "refused" not in notes_text(data)  # the user asked for it


def test_an_include_of_a_device_is_refused_before_it_is_read(tmp_path):
    (tmp_path / "k.cu").write_text('#include "/dev/zero"\n' + BUGGY)
    r, data = json_run("--no-cache", "k.cu", cwd=tmp_path, timeout=120)
    assert "#include of /dev/zero refused" in notes_text(data)
    assert [f["code"] for f in data["findings"]] == ["SYN101"]


def test_a_self_including_file_is_an_error_and_its_other_code_is_still_analyzed(tmp_path):
    (tmp_path / "self.cu").write_text('#include "self.cu"\n' + BUGGY)
    r, data = json_run("--no-cache", "self.cu", cwd=tmp_path)
    assert r.returncode == 2  # an error, not a note: nvcc rejects the file
    assert [f["code"] for f in data["findings"]] == ["SYN101"]
    assert [(e["path"], e["line"], e["message"].split(":")[0]) for e in data["errors"]] == [
        ("self.cu", 1, "#include nested too deeply")]


def test_a_symlink_out_of_the_project_is_not_analyzed_in_a_folder_walk(project_and_secret):
    repo, token = project_and_secret
    (repo / "k.cu").write_text(BUGGY)
    (repo / "leak.cu").symlink_to(token)
    r, data = json_run("--no-cache", ".", cwd=repo)
    _assert_secret_kept(r)
    assert errors_by_file(data) == {"leak.cu": "a symbolic link to a file outside the project; refused"}
    assert [f["code"] for f in data["findings"]] == ["SYN101"]


def test_files_a_compile_database_lists_outside_the_project_are_not_analyzed(project_and_secret):
    repo, token = project_and_secret
    (repo / "k.cu").write_text(BUGGY)
    (repo / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(repo), "file": "k.cu", "arguments": ["nvcc", "-c", "k.cu"]},
         {"directory": str(repo), "file": str(token), "arguments": ["nvcc", "-x", "cu", "-c", str(token)]}]))
    r, data = json_run("--no-cache", "--compile-commands", "compile_commands.json", cwd=repo)
    _assert_secret_kept(r)
    assert [os.path.basename(f["path"]) for f in data["findings"]] == ["k.cu"]
    assert "outside the project; not analyzed" in r.stderr and data["files"] == 1


def test_cupy_raw_module_paths_follow_the_same_policy(project_and_secret):
    repo, token = project_and_secret
    (repo / "host.py").write_text(
        "import cupy\n"
        f"module = cupy.RawModule(path={str(token)!r})\n"
        "kernel = module.get_function('k')\n"
        "kernel((1,), (32,), ())\n")
    r, data = json_run("--no-cache", "host.py", cwd=repo)
    _assert_secret_kept(r)
    assert "reading " in notes_text(data) and "refused" in notes_text(data)


def test_a_file_name_cannot_inject_lines_into_the_ci_log(tmp_path):
    # GitHub Actions obeys any output line that starts with "::" (annotations, masks...).
    name = "k\n::warning::injected\n.cu"
    (tmp_path / name).write_text(BUGGY)
    (tmp_path / "compile_commands.json").write_text(json.dumps(
        [{"directory": "/", "file": "/x\n::error::also injected\n.cu", "arguments": ["nvcc"]}]))
    for args in ([name], ["--format", "github", name], ["--compile-commands", "compile_commands.json"]):
        r = syncheck("--no-cache", *args, cwd=tmp_path)
        lines = (r.stdout + r.stderr).splitlines()
        assert not [line for line in lines if line.startswith(("::warning::injected", "::error::also"))]
        assert r.returncode in (1, 2)


# ---- 4. malformed input files: one line, exit 2 ----

@pytest.mark.parametrize("config,needle", [
    ('jobs = "four"', "'jobs' must be a positive integer"),
    ("jobs = 0", "'jobs' must be a positive integer"),
    ("arch = 90", "'arch' must be a string"),
    ('report-unused-suppressions = "yes"', "'report-unused-suppressions' must be true or false"),
    ('per-file-ignores = { "*.cu" = "SYN101" }', "'per-file-ignores' must be a table"),
    ("timeout = -1", "'timeout' must be a number of seconds"),
    ("timeout = 0", "only on the command line"),          # the analyzed repo cannot lift limits
    ("memory-limit = 0", "only on the command line"),
    ("memory-limit = 10000000", "'memory-limit' must be a whole number of MiB from 256"),
    ('memory-limit = "lots"', "'memory-limit' must be a whole number"),
    ("select = [[", "invalid TOML"),
    ("x = " + "[" * 5000 + "]" * 5000, "invalid TOML"),
])
def test_a_malformed_config_is_one_error_line(tmp_path, config, needle):
    (tmp_path / "k.cu").write_text(BUGGY)
    (tmp_path / ".syncheck.toml").write_text(config + "\n")
    r = syncheck("--no-cache", "k.cu", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert str(tmp_path / ".syncheck.toml") in line and needle in line


@pytest.mark.parametrize("database,needle", [
    ("{", "invalid JSON"),
    ("{}", "expected a JSON array"),
    ("[1]", "entry 1 is not an object"),
    ('[{"file": 3}]', "'file' must be a non-empty string"),
    ('[{"file": "k.cu", "arguments": "nvcc -c k.cu"}]', "'arguments' must be a list of strings"),
    ('[{"file": "k.cu", "command": "nvcc \\"unclosed"}]', "'command' cannot be split"),
    ('[{"file": "k.cu"}]', "neither 'arguments' nor 'command'"),
    ('[{"file": "k.cu", "directory": 5, "command": "nvcc"}]', "'directory' must be a string"),
])
@pytest.mark.parametrize("how", ["found", "named"])
def test_a_malformed_compile_database_is_one_error_line(tmp_path, database, needle, how):
    (tmp_path / "k.cu").write_text(BUGGY)
    (tmp_path / "compile_commands.json").write_text(database)
    args = ["k.cu"] if how == "found" else ["--compile-commands", "compile_commands.json"]
    r = syncheck("--no-cache", *args, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert "compile_commands.json" in line and needle in line


def test_a_compile_database_that_is_a_fifo_is_refused(tmp_path):
    (tmp_path / "k.cu").write_text(BUGGY)
    os.mkfifo(tmp_path / "compile_commands.json")
    r = syncheck("--no-cache", "k.cu", cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "not a regular file" in r.stderr


@pytest.mark.parametrize("flag,value", [("--timeout", "soon"), ("--timeout", "-3"),
                                        ("--memory-limit", "1.5"), ("-j", "four")])
def test_bad_limit_options_are_usage_errors(tmp_path, flag, value):
    (tmp_path / "k.cu").write_text(BUGGY)
    r = syncheck(flag, value, "k.cu", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""


# ---- 5. the language server ----

def _lsp_session(tmp_path, script):
    """Run ``script(client, uri, published)`` against a real server over stdio."""
    import asyncio

    pytest.importorskip("pygls")
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    async def session():
        client = LanguageClient("syncheck-test", "1")
        published: asyncio.Queue = asyncio.Queue()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params):
            published.put_nowait(params)

        await client.start_io(sys.executable, "-m", "syncheck", "lsp", cwd=str(ROOT))
        await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri()))
        client.initialized(types.InitializedParams())
        try:
            return await script(client, (tmp_path / "kernel.cu").as_uri(), published)
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()

    return asyncio.run(session())


def _open(client, uri, text):
    from lsprotocol import types
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="cuda", version=1, text=text)))


async def _next_for(published, uri):
    import asyncio
    while True:
        params = await asyncio.wait_for(published.get(), 120)
        if params.uri == uri:
            return params


def test_lsp_refuses_a_buffer_over_the_size_limit(tmp_path):
    from syncheck.lsp import MAX_BUFFER_BYTES

    big = BUGGY + "// filler\n" * (MAX_BUFFER_BYTES // 10 + 1)

    async def script(client, uri, published):
        _open(client, uri, big)
        return await _next_for(published, uri)

    params = _lsp_session(tmp_path, script)
    (diag,) = params.diagnostics
    assert diag.message.startswith("buffer is too large to analyze")


def test_lsp_code_action_after_close_is_empty(tmp_path):
    from lsprotocol import types

    async def script(client, uri, published):
        _open(client, uri, BUGGY)
        first = await _next_for(published, uri)
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=first.diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=list(first.diagnostics))))
        return first, actions

    first, actions = _lsp_session(tmp_path, script)
    assert [d.code for d in first.diagnostics] == ["SYN101"]
    assert not actions


def test_lsp_survives_a_libclang_crash(tmp_path):
    async def script(client, uri, published):
        _open(client, uri, _long_expression(20000))
        crashed = await _next_for(published, uri)
        other = uri.replace("kernel.cu", "other.cu")
        _open(client, other, BUGGY)
        return crashed, await _next_for(published, other)

    crashed, after = _lsp_session(tmp_path, script)
    assert "crashed" in crashed.diagnostics[0].message
    assert [d.code for d in after.diagnostics] == ["SYN101"]


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_the_time_limit_counts_cpu_time_not_waiting():
    # A machine busy with other work slows a file down without making it use more CPU time:
    # a task that spends its time waiting is not stopped by a limit it would exceed in wall
    # time, and a task that computes is stopped by it.
    import time
    from syncheck.diagnostics import FileProblem
    from syncheck.results import FileResult
    from syncheck.workers import Limits, WorkerPool

    def analyze(path, source):
        if path == "waits.cu":
            end = time.monotonic() + 3
            while time.monotonic() < end:
                time.sleep(0.1)
        else:
            end = time.process_time() + 3
            while time.process_time() < end:
                pass
        return FileResult(problems=[FileProblem(path, "finished")])

    with WorkerPool(2, analyze, Limits(cpu_seconds=1.0, memory_mb=None)) as pool:
        results = {path: result for path, result, _ in pool.run([("waits.cu", b""), ("computes.cu", b"")])}
    assert results["waits.cu"].problems[0].message == "finished"
    assert results["computes.cu"].problems[0].message == \
        "analysis stopped after 1 s of CPU time (per-file time limit)"
