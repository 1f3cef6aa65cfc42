"""Incremental lowering (syncheck/ir/reuse.py): after any sequence of edits, the analysis that
takes unchanged bodies from the previous build gives exactly what a fresh analysis of the same
text gives. Edit sequences are random with fixed seeds; no timing is measured."""

from __future__ import annotations

import json
from collections import Counter
import random
import re
import subprocess
import sys

import pytest

from syncheck.engine import Settings, analyze_file
from syncheck.frontend.parse import forget_reused
from syncheck.ir import reuse
from syncheck.lsp import findings_for
from tests.conftest import ROOT

# Plain kernels and helpers, a template kernel with its launch, a class with device methods,
# a constexpr helper, a lambda, macros, cooperative groups (instantiations of header templates)
# and findings of several rules (SYN101, SYN401, ...).
SOURCE = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define BLOCK 128

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

constexpr int half_of(int n) { return n / 2; }

struct Accumulator {
    float total;
    __device__ void add(float v) { total += v; }
    __device__ float get() const { return total; }
};

__global__ void divergent_barrier(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = 1.0f;
        __syncthreads();
    }
}

__global__ void shared_race(float* out) {
    __shared__ float s[BLOCK];
    s[threadIdx.x] = threadIdx.x * 2.0f;
    out[threadIdx.x] = s[(threadIdx.x + 1) % BLOCK];
}

__global__ void reduce(const float* in, float* out, int n) {
    __shared__ float s[BLOCK];
    unsigned tid = threadIdx.x;
    float v = 0.0f;
    for (int g = blockIdx.x * blockDim.x + tid; g < n; g += gridDim.x * blockDim.x) v += in[g];
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        v = warp_sum(s[tid] + s[tid + 32]);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

template <int N>
__global__ void tiled(float* x) {
    __shared__ float t[N];
    t[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    if (threadIdx.x < half_of(N)) x[threadIdx.x] = t[threadIdx.x + half_of(N)];
}

__global__ void groups(const int* in, int* out, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (g < n) ? in[g] : 0;
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    int total = cg::reduce(warp, v, cg::plus<int>());
    auto twice = [](int x) { return 2 * x; };
    if (warp.thread_rank() == 0 && g < n) out[g / 32] = twice(total);
}

__global__ void methods(float* x, int n) {
    Accumulator acc{0.0f};
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc.add(x[i]);
    if (threadIdx.x % 2 == 0) __syncwarp();
    x[threadIdx.x] = acc.get();
}

void launch_all(float* x, float* y, const int* in, int* out, int n) {
    tiled<BLOCK><<<n / BLOCK, BLOCK>>>(x);
    reduce<<<n / BLOCK, BLOCK>>>(x, y, n);
    groups<<<n / 64, 64>>>(in, out, n);
    methods<<<1, 96>>>(x, n);
}
"""

INSERTED = ["__syncthreads();", "if (threadIdx.x < 16) __syncthreads();", "// a comment", "",
            "int extra = 3;", "__device__ int global_counter;", "x[0] = 1.0f;", "}", "{",
            "#define BLOCK2 64"]


def _edits(rng: random.Random, steps: int):
    """Texts after each of ``steps`` edits. Numbers changed, blank and comment lines added
    stay; any other edit (it may break the file: a random character, a deleted line, a
    statement where it means nothing) is undone by the next step, as an editor's user would."""
    text = SOURCE
    undo = None
    for _ in range(steps):
        if undo is not None:
            text, undo = undo, None
        else:
            edited = _edit(text, rng)
            added = Counter(edited.split("\n")) - Counter(text.split("\n"))
            if len(edited) - len(edited.replace("\n", "")) != len(text) - len(text.replace("\n", "")) \
                    and not (added and all(line.strip() in ("", "// a comment") for line in added)):
                undo = text
            elif len(edited.split("\n")) == len(text.split("\n")) and not _numbers_only(text, edited):
                undo = text
            text = edited
        yield text


def _numbers_only(before: str, after: str) -> bool:
    """Only numbers and thread/block indices changed (edits that leave the file valid)."""
    number = re.compile(r"(?<![\w.])\d+(?![\w.])|threadIdx\.x|blockIdx\.x ")
    return number.sub("0", before) == number.sub("0", after)


def _edit(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    op = rng.choice(["digit", "digit", "digit", "index", "index", "insert", "delete", "duplicate", "char"])
    line = lines[i]
    if op == "index":  # same length, and what diverges changes: the findings do
        spots = [m.start() for m in re.finditer(r"threadIdx\.x|blockIdx\.x ", text)]
        j = rng.choice(spots)
        swapped = "blockIdx.x " if text.startswith("threadIdx.x", j) else "threadIdx.x"
        return text[:j] + swapped + text[j + 11:]
    if op == "digit":  # a whole decimal number becomes another
        m = rng.choice(list(re.finditer(r"(?<![\w.])\d+(?![\w.])", text)))
        return text[:m.start()] + rng.choice(["1", "2", "7", "16", "31", "100"]) + text[m.end():]
    if op == "insert":
        lines.insert(i, "    " + rng.choice(INSERTED))
    elif op == "delete" and len(lines) > 10:
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, line)
    elif op == "char" and line:
        j = rng.randrange(len(line))
        lines[i] = line[:j] + rng.choice("{}();#/x1 ") + line[j + 1:]
    return "\n".join(lines)


def _observed(result) -> tuple:
    findings = sorted((f.code, f.path, f.line, f.column, f.end_line, f.end_column, f.message,
                       f.function, tuple((n.path, n.line, n.column, n.message) for n in f.notes),
                       repr(f.fix)) for f in result.findings)
    problems = sorted((p.kind, p.line or 0, p.column or 0, p.message) for p in result.problems)
    facts = result.facts
    launches = [(x.kernel_name, repr(getattr(x, "block", None))) for x in facts.launches] if facts else []
    kernels = [k.name for k in facts.kernels] if facts else []
    return findings, problems, launches, kernels


def _settings(incremental: bool) -> Settings:
    settings = Settings(isolate=False)
    settings.reuse_parse = incremental
    settings.reuse_lowering = incremental
    return settings


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edit_sequences_give_what_a_fresh_analysis_gives(tmp_path, seed):
    path = tmp_path / "edited.cu"
    path.write_text(SOURCE)
    reused_total = 0
    try:
        for step, text in enumerate([SOURCE, *_edits(random.Random(seed), 12)]):
            incremental = analyze_file(str(path), _settings(True), text.encode())
            fresh = analyze_file(str(path), _settings(False), text.encode())
            assert _observed(incremental) == _observed(fresh), f"seed {seed}, step {step}:\n{text}"
            reused_total += sum(store.last_reused for store in reuse._STORES.values())
    finally:
        forget_reused()
        reuse.forget_stores()
    assert reused_total > 0  # the sequence did take kept bodies


def test_an_edit_inside_one_body_lowers_only_that_body(tmp_path):
    path = tmp_path / "one.cu"
    path.write_text(SOURCE)
    settings = _settings(True)
    try:
        analyze_file(str(path), settings, SOURCE.encode())
        # same length, inside the body of `divergent_barrier`: the barrier is no longer divergent
        edited = SOURCE.replace("    if (i < n) {\n        a[i]", "    if (1 < n) {\n        a[i]")
        result = analyze_file(str(path), settings, edited.encode())
        (store,) = reuse._STORES.values()
        assert store.last_lowered == 1 and store.last_reused > 5
        assert "SYN101" not in [f.code for f in result.findings]
        assert _observed(result) == _observed(analyze_file(str(path), _settings(False), edited.encode()))
        # a line more inside the body of `reduce`: the functions after it keep their bodies,
        # moved a line down (a new finding there, on the line the fresh analysis gives)
        grown = edited.replace("    if (tid < 32) {\n", "    if (tid < 64) __syncthreads();\n    if (tid < 32) {\n")
        result = analyze_file(str(path), settings, grown.encode())
        assert store.last_lowered == 1 and store.last_reused > 5
        assert _observed(result) == _observed(analyze_file(str(path), _settings(False), grown.encode()))
        assert len(result.findings) > len(analyze_file(str(path), _settings(False), edited.encode()).findings)
        edited = grown
        # a new line above a function: only the functions before it keep their bodies
        moved = edited.replace("template <int N>", "\ntemplate <int N>")
        analyze_file(str(path), settings, moved.encode())
        kept_before = sum(1 for line in moved[:moved.index("template <int N>")].split("\n")
                          if line.startswith(("__global__", "__device__", "    __device__")))
        assert 0 < store.last_reused <= kept_before
    finally:
        forget_reused()
        reuse.forget_stores()


def test_the_cli_gives_what_the_incremental_analysis_gave(tmp_path):
    """The final text of an edit sequence: the command line's findings (a fresh process)."""
    path = tmp_path / "final.cu"
    try:
        for text in _edits(random.Random(7), 6):
            incremental = analyze_file(str(path), _settings(True), text.encode())
    finally:
        forget_reused()
        reuse.forget_stores()
    path.write_text(text)
    out = subprocess.run([sys.executable, "-m", "syncheck", "--no-cache", "--format", "json", str(path)],
                         capture_output=True, text=True, cwd=str(ROOT))
    cli = sorted((f["code"], f["line"], f["column"], f["message"]) for f in json.loads(out.stdout)["findings"])
    findings, _ = findings_for(str(path), text, Settings(), incremental)  # what the server shows
    assert cli == sorted((f.code, f.line, f.column, f.message) for f in findings)


def _signatures(program) -> list[tuple]:
    return sorted((f.key, f.name, f.qualified, f.kind, f.file, f.line, f.col, f.end_line, f.text,
                   tuple((p.name, p.key, p.type, repr(p.default)) for p in f.params))
                  for f in program.functions.values())


@pytest.mark.parametrize("seed", [4, 5])
def test_kept_functions_have_the_signatures_a_fresh_build_gives(tmp_path, seed):
    """A kept body's function takes its declaration and parameters from the previous build,
    moved with the lines and offsets an edit above it shifted (ir/reuse.py, KeptSignature)."""
    from syncheck.frontend.parse import ParseOptions
    from syncheck.header_choice import parse_and_build
    path = tmp_path / "moved.cu"
    path.write_text(SOURCE)
    options = ParseOptions()
    reused_total = 0
    try:
        lines = SOURCE.split("\n")
        at = lines.index("    s[tid] = v;")
        moved = "\n".join(lines[:at] + ["    v += 1.0f;"] + lines[at:])  # the functions below move
        for step, text in enumerate([SOURCE, moved, SOURCE, *_edits(random.Random(seed), 12)]):
            _, incremental, _ = parse_and_build(str(path), text.encode(), options, "model", True, True)
            _, fresh, _ = parse_and_build(str(path), text.encode(), options, "model", False, False)
            assert _signatures(incremental) == _signatures(fresh), f"seed {seed}, step {step}:\n{text}"
            reused_total += sum(store.last_reused for store in reuse._STORES.values())
    finally:
        forget_reused()
        reuse.forget_stores()
    assert reused_total > 0


def _program_shape(program) -> list[tuple]:
    """Everything of a program the analyses read, but node numbers: each function's
    declaration, flags, pins and text, every node of its body (kind, text, places, what it
    refers to), the launch sites and the instantiated templates."""
    def nodes(root):
        return tuple((n.kind, n.spelling, n.type, n.line, n.col, n.end_line, n.end_col, n.start, n.end,
                      n.op, n.value, n.role, n.decl) for n in root.walk()) if root is not None else None
    functions = [(f.key, f.name, f.qualified, f.kind, f.file, f.line, f.col, f.end_line, f.text,
                  tuple((p.name, p.key, p.type, nodes(p.default)) for p in f.params), f.is_template,
                  tuple(f.template_params), f.is_lambda, f.launch_bounds, nodes(f.launch_bound_expr),
                  f.block_dim, f.has_errors, f.in_main_file, f.reported, f.instance_of, f.is_constexpr,
                  tuple((k, nodes(v)) for k, v in sorted(f.member_inits.items())), nodes(f.body))
                 for f in program.functions.values()]
    launches = [(s.kernel_key, s.kernel_name, s.api, s.host_function, nodes(s.node),
                 tuple(nodes(c) for c in s.config), tuple(nodes(a) for a in s.args), s.result_used,
                 s.kernel_instance) for s in program.launches]
    return [functions, launches, sorted(program.instantiated), program.unreached_library]


def _body_edit_steps(source: str) -> list[tuple[str, str]]:
    """Edits inside the body of `reduce` (a kernel between a helper it calls and a kernel with
    a lambda, a template's instantiation and host code below it), one after the other."""
    anchor = "    s[tid] = v;\n"
    changed = source.replace("    float v = 0.0f;\n", "    float v = 1.0f;\n")
    added = changed.replace(anchor, anchor + "    v += 2.0f;\n")
    barrier = added.replace(anchor, anchor + "    if (tid < 16) __syncthreads();\n")
    call = barrier.replace("    v += 2.0f;\n", "    v = warp_sum(v) + 2.0f;\n")
    longer = call.replace("v = warp_sum(v) + 2.0f;", "v = warp_sum(v) + 2.0f + 1000.0f;")
    removed = longer.replace("    v = warp_sum(v) + 2.0f + 1000.0f;\n", "")
    return [("a statement changed", changed), ("a statement added", added), ("a barrier added", barrier),
            ("a call to another function added", call), ("a longer line", longer),
            ("a statement removed", removed), ("the barrier removed", removed.replace(
                "    if (tid < 16) __syncthreads();\n", "")), ("as it was", source), ("nothing changed", source)]


def test_edits_inside_one_body_lower_only_it_and_give_a_fresh_analysis(tmp_path):
    """ir/body_edit.py: each edit inside one kernel's body builds on the previous program
    (nothing else is walked or lowered) and gives the program, the findings and the
    diagnostics a fresh analysis of the same text gives."""
    from syncheck.frontend.parse import ParseOptions
    from syncheck.header_choice import parse_and_build
    path = tmp_path / "body.cu"
    path.write_text(SOURCE)
    settings = _settings(True)
    try:
        analyze_file(str(path), settings, SOURCE.encode())
        (store,) = reuse._STORES.values()
        assert not store.last_body_edit
        for what, text in _body_edit_steps(SOURCE):
            result = analyze_file(str(path), settings, text.encode())
            assert store.last_body_edit, what
            fresh = analyze_file(str(path), _settings(False), text.encode())
            assert _observed(result) == _observed(fresh) and result.facts == fresh.facts, what
            def shown(r):  # as the server publishes them (their order is the parts')
                return sorted(findings_for(str(path), text, settings, r)[0], key=repr)
            assert shown(result) == shown(fresh), what
        assert "SYN101" in {f.code for f in analyze_file(str(path), _settings(False), _body_edit_steps(SOURCE)[2][1].encode()).findings}
        # the programs themselves, built one from the other and afresh (from a new store: host
        # bodies no analysis asked for are lowered from the new translation unit when asked)
        forget_reused()
        reuse.forget_stores()
        options = ParseOptions()
        parse_and_build(str(path), SOURCE.encode(), options, "model", True, True)
        (store,) = reuse._STORES.values()
        for what, text in _body_edit_steps(SOURCE):
            _, incremental, _ = parse_and_build(str(path), text.encode(), options, "model", True, True)
            assert store.last_body_edit, what
            _, fresh_program, _ = parse_and_build(str(path), text.encode(), options, "model", False, False)
            assert _program_shape(incremental) == _program_shape(fresh_program), what
    finally:
        forget_reused()
        reuse.forget_stores()


def test_edits_the_rest_of_the_build_depends_on_build_in_full(tmp_path):
    """A launch changed (host code), a kernel's signature, a template's body, a lambda added to
    a body, a body that opens another function, an unbalanced brace: the full build, and
    what a fresh analysis gives."""
    path = tmp_path / "full.cu"
    path.write_text(SOURCE)
    settings = _settings(True)
    steps = [
        ("a launch's block", SOURCE.replace("methods<<<1, 96>>>(x, n);", "methods<<<1, 64>>>(x, n);")),
        ("a kernel's signature", SOURCE.replace("__global__ void methods(float* x, int n)",
                                                "__global__ void methods(float* x, long n)")),
        ("a template's body", SOURCE.replace("    t[threadIdx.x] = x[threadIdx.x];\n",
                                             "    t[threadIdx.x] = 2 * x[threadIdx.x];\n")),
        ("a lambda added to a body", SOURCE.replace("    if (threadIdx.x % 2 == 0) __syncwarp();\n",
                                                    "    auto one = [] { return 1; };\n    if (threadIdx.x % 2 == one()) __syncwarp();\n")),
        ("a body closed early", SOURCE.replace("    x[threadIdx.x] = acc.get();\n}\n",
                                               "    x[threadIdx.x] = acc.get();\n}\n__device__ void more() {\n}\n")),
        ("a call to a header function", SOURCE.replace("    unsigned tid = threadIdx.x;\n",
                                                       "    unsigned tid = threadIdx.x;\n    __threadfence_block();\n")),
    ]
    try:
        for what, text in steps:
            analyze_file(str(path), settings, SOURCE.encode())
            (store,) = reuse._STORES.values()
            result = analyze_file(str(path), settings, text.encode())
            fresh = analyze_file(str(path), _settings(False), text.encode())
            assert _observed(result) == _observed(fresh) and result.facts == fresh.facts, what
            if what != "a call to a header function":  # a model function: declared, not deferred
                assert not store.last_body_edit, what
    finally:
        forget_reused()
        reuse.forget_stores()


def _body_edit(text: str, rng: random.Random) -> str:
    """A statement added, removed, repeated or renumbered on a line inside a function body."""
    lines = text.split("\n")
    inside, depth, opener = [], 0, ""
    for i, line in enumerate(lines):
        if depth == 0 and "{" in line:
            opener = line
        if depth >= 1 and "(" in opener and line.strip() not in ("}", "") and not line.lstrip().startswith("#"):
            inside.append(i)
        depth += line.count("{") - line.count("}")
    i = rng.choice(inside)
    op = rng.choice(["insert", "insert", "delete", "repeat", "number"])
    if op == "insert":
        lines.insert(i, "    " + rng.choice(["__syncthreads();", "if (threadIdx.x < 16) __syncthreads();",
                                             "// a comment", "", "__syncwarp();", "float spare = 1.0f;"]))
    elif op == "delete":
        del lines[i]
    elif op == "repeat":
        lines.insert(i, lines[i])
    else:
        numbers = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", lines[i]))
        if numbers:
            m = rng.choice(numbers)
            lines[i] = lines[i][:m.start()] + rng.choice(["1", "7", "32", "100"]) + lines[i][m.end():]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", [2, 3])
def test_random_edits_inside_bodies_give_what_a_fresh_analysis_gives(tmp_path, seed):
    """Random edits inside function bodies (an edit that breaks the file is undone, as an
    editor's user would): most build on the previous program (ir/body_edit.py), and every
    analysis is a fresh one's."""
    path = tmp_path / "bodies.cu"
    path.write_text(SOURCE)
    rng = random.Random(seed)
    text, body_edits = SOURCE, 0
    try:
        analyze_file(str(path), _settings(True), text.encode())
        (store,) = reuse._STORES.values()
        for step in range(14):
            edited = _body_edit(text, rng)
            incremental = analyze_file(str(path), _settings(True), edited.encode())
            body_edits += store.last_body_edit
            fresh = analyze_file(str(path), _settings(False), edited.encode())
            assert _observed(incremental) == _observed(fresh), f"seed {seed}, step {step}:\n{edited}"
            if fresh.problems or any(f.code == "SYN002" for f in fresh.findings):
                analyze_file(str(path), _settings(True), text.encode())  # undone
            else:
                text = edited
    finally:
        forget_reused()
        reuse.forget_stores()
    assert body_edits >= 5
