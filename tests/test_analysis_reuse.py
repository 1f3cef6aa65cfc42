"""Per-part reuse of analysis results in the language server (syncheck/analysis_reuse.py):
after each edit, the analysis that takes unchanged parts' results from the previous analysis
gives exactly what a fresh analysis of the same text gives (findings with their lines,
messages, notes and fixes; problems; the file's facts; the diagnostics the server publishes),
and it analyzes again only the parts the edit can have changed. No timing is measured."""

from __future__ import annotations

import pytest

from syncheck.engine import Settings, analyze_file
from syncheck.frontend.parse import forget_reused
from syncheck.ir import reuse
from syncheck.lsp import diagnostics_for
from tests.test_incremental import _observed

# Five kernels in four parts (a helper and its caller are one part), launched from host code.
# Each edit below changes the findings of one kernel, through what that kernel depends on.
# (The else arms keep the threads that skip a barrier busy: a barrier in an `if` that ends the
# kernel with nothing else to do is the milder SYN101 warning.)
BASE = """#define GUARD blockIdx.x

__device__ int stage_of(int t) { return 5 - 0; }

__global__ void staged_barrier(float* a) {
    a[threadIdx.x] = 1.0f;
    if (stage_of(threadIdx.x) < 4) {
        __syncthreads();
    } else { a[0] = 0.0f; }
}

__global__ void guarded_barrier(float* a) {
    if (GUARD < 2) {
        __syncthreads();
    }
    a[threadIdx.x] += 1.0f;
}

__global__ void half_reader(float* x) {
    __shared__ float buf[256];
    buf[threadIdx.x] = x[threadIdx.x];
    if (threadIdx.x < 32) x[threadIdx.x] = buf[threadIdx.x + 32];
}

__global__ void plain_divergent(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = 2.0f;
        __syncthreads();
    } else { a[0] = 0.0f; }
}

__global__ void untouched_race(float* out) {
    __shared__ float s[128];
    s[threadIdx.x] = threadIdx.x * 2.0f;
    out[threadIdx.x] = s[(threadIdx.x + 1) % 128];
}

void launch_all(float* a, float* x, int n) {
    staged_barrier<<<4, 128>>>(a);
    guarded_barrier<<<4, 128>>>(a);
    half_reader<<<1, 32>>>(x);
    plain_divergent<<<n / 128, 128>>>(a, n);
    untouched_race<<<1, 128>>>(a);
}
"""

PARTS = 5  # stage_of and staged_barrier are one part


def _settings(incremental: bool) -> Settings:
    settings = Settings(isolate=False)
    settings.reuse_parse = settings.reuse_lowering = incremental
    return settings


def _steps():
    """(what the edit is, the new text, parts analyzed again (None: not checked), the finding
    (code, line) the edit must add or remove, or None)."""
    text = BASE
    yield "the same text again", text, 0, None
    text = text.replace("a[i] = 2.0f;", "a[i] = 3.0f;")
    yield "a number inside a kernel's body (same length)", text, 1, None
    text = text.replace("a[i] = 3.0f;", "a[i] = 3.25f;")
    yield "a number inside a kernel's body (longer: the parts after it moved in bytes)", text, 1, None
    text = text.replace("return 5 - 0;", "return 5 - t;")
    yield "a called __device__ helper returns a thread-dependent value", text, 1, ("SYN101", 8)
    text = text.replace("half_reader<<<1, 32>>>", "half_reader<<<1, 64>>>")
    yield "host code launches a kernel with another block size", text, PARTS, ("SYN401", 22)
    text = text.replace("#define GUARD blockIdx.x", "#define GUARD threadIdx.x")
    yield "a top-level macro a kernel uses", text, PARTS, ("SYN101", 14)
    text = text.replace("__global__ void half_reader", "// two lines\n\n__global__ void half_reader")
    yield "two lines added above a kernel", text, PARTS, ("SYN101", 31)
    text = text.replace("// two lines\n\n", "")
    yield "the two lines removed", text, PARTS, ("SYN101", 29)
    text = text.replace("    a[threadIdx.x] = 1.0f;\n", "    a[threadIdx.x] = 1.0f;\n    a[0] = 0.0f;\n")
    yield "a line added inside a kernel's body", text, PARTS, ("SYN101", 30)
    text = text.replace("if (stage_of(threadIdx.x) < 4)", "if (stage_of(+blockIdx.x) < 4)")
    yield "a kernel's call to the helper, changed back to a uniform argument", text, 1, ("SYN101", 9)
    text = text.replace("    a[0] = 0.0f;\n", "   \na[0] = 0.0f;\n")
    yield "a space inside a body becomes a line break (same length: the bodies after it move in " \
          "lines only)", text, PARTS, None


def test_each_edit_gives_what_a_fresh_analysis_gives(tmp_path):
    path = tmp_path / "parts.cu"
    path.write_text(BASE)
    incremental = _settings(True)
    try:
        before = analyze_file(str(path), incremental, BASE.encode())
        (store,) = reuse._STORES.values()
        assert store.last_parts == (PARTS, 0)
        previous = {(f.code, f.line) for f in before.findings}
        for what, text, analyzed, changed in _steps():
            result = analyze_file(str(path), incremental, text.encode())
            fresh = analyze_file(str(path), _settings(False), text.encode())
            assert _observed(result) == _observed(fresh), what
            assert result.facts == fresh.facts, what
            assert sorted(map(repr, diagnostics_for(str(path), text, incremental, result))) == \
                sorted(map(repr, diagnostics_for(str(path), text, _settings(False), fresh))), what
            if analyzed is not None:
                assert store.last_parts == (analyzed, PARTS - analyzed), what
            found = {(f.code, f.line) for f in result.findings}
            if changed is not None:
                # the edit changed the findings: results kept too eagerly would show the old ones
                assert changed in found ^ previous, what
            previous = found
    finally:
        forget_reused()
        reuse.forget_stores()


def test_a_longer_line_inside_one_body_analyzes_only_its_part(tmp_path):
    """A longer line inside a body: the parts after it moved in bytes, not in lines or columns;
    they keep their results, the same as a fresh analysis's (their findings on the same lines)."""
    path = tmp_path / "parts.cu"
    path.write_text(BASE)
    try:
        analyze_file(str(path), _settings(True), BASE.encode())
        text = BASE.replace("    if (GUARD < 2) {", "    if (GUARD < 12) {")
        result = analyze_file(str(path), _settings(True), text.encode())
        (store,) = reuse._STORES.values()
        assert store.last_parts == (1, PARTS - 1)
        fresh = analyze_file(str(path), _settings(False), text.encode())
        assert _observed(result) == _observed(fresh) and result.facts == fresh.facts
        assert {(f.code, f.line) for f in result.findings} >= {("SYN101", 29), ("SYN401", 36)}
        # and shorter again, on a line of its own: the parts after it moved back
        text = text.replace("    if (GUARD < 12) {", "    if (GUARD<2){")
        result = analyze_file(str(path), _settings(True), text.encode())
        assert store.last_parts == (1, PARTS - 1)
        fresh = analyze_file(str(path), _settings(False), text.encode())
        assert _observed(result) == _observed(fresh) and result.facts == fresh.facts
    finally:
        forget_reused()
        reuse.forget_stores()


@pytest.mark.parametrize("change", ["select", "block_dim"])
def test_other_settings_analyze_every_part_again(tmp_path, change):
    path = tmp_path / "parts.cu"
    path.write_text(BASE)
    try:
        analyze_file(str(path), _settings(True), BASE.encode())
        settings = _settings(True)
        if change == "select":
            settings.select = ("SYN4",)
        else:
            settings.block_dim = (64, 1, 1)
        result = analyze_file(str(path), settings, BASE.encode())
        (store,) = reuse._STORES.values()
        assert store.last_parts == (PARTS, 0)
        fresh_settings = _settings(False)
        fresh_settings.select, fresh_settings.block_dim = settings.select, settings.block_dim
        assert _observed(result) == _observed(analyze_file(str(path), fresh_settings, BASE.encode()))
    finally:
        forget_reused()
        reuse.forget_stores()


# Four parts; the last has a finding (its text names lines), the others none.
MOVED_BASE = """__global__ void edited_kernel(float* a) {
    a[threadIdx.x] = 1.0f;
}

__device__ float twice(float v) { return 2.0f * v; }

__global__ void clean_caller(float* a) {
    a[threadIdx.x] = twice(a[threadIdx.x]);
}

__global__ void clean_reversal(float* a) {
    __shared__ float s[128];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[127 - threadIdx.x];
}

__global__ void divergent_after(float* a, int n) {
    if (threadIdx.x < n) {
        __syncthreads();
    } else { a[0] = 0.0f; }
}

void launch_moved(float* a, int n) {
    edited_kernel<<<1, 128>>>(a);
    clean_caller<<<1, 128>>>(a);
    clean_reversal<<<1, 128>>>(a);
    divergent_after<<<1, 128>>>(a, n);
}
"""


def test_lines_added_inside_a_body_move_the_results_after_it(tmp_path):
    """A line added to (or removed from) one kernel's body: the parts after it moved in lines;
    those whose results name no line are moved with them instead of analyzed again, and the
    results are a fresh analysis's."""
    path = tmp_path / "moved.cu"
    path.write_text(MOVED_BASE)
    added = MOVED_BASE.replace("    a[threadIdx.x] = 1.0f;\n", "    a[threadIdx.x] = 1.0f;\n    a[0] = 2.0f;\n")
    middle = added.replace("    __syncthreads();\n    a[threadIdx.x] = s[127",
                           "    __syncthreads();\n\n    a[threadIdx.x] = s[127")
    steps = [(added, (2, 2), 21), (MOVED_BASE, (2, 2), 20), (added, (2, 2), 21),
             (middle, (2, 2), 22), (added, (2, 2), 21)]
    try:
        analyze_file(str(path), _settings(True), MOVED_BASE.encode())
        (store,) = reuse._STORES.values()
        assert store.last_parts == (4, 0)
        for step, (text, parts, barrier_line) in enumerate(steps):
            result = analyze_file(str(path), _settings(True), text.encode())
            fresh = analyze_file(str(path), _settings(False), text.encode())
            assert _observed(result) == _observed(fresh) and result.facts == fresh.facts, step
            assert store.last_parts == parts, step
            assert [(f.code, f.line) for f in result.findings] == [("SYN101", barrier_line)], step
    finally:
        forget_reused()
        reuse.forget_stores()


TEMPLATE_RACE = """template <int N>
__global__ void tiled(float* x) {
    __shared__ float t[N];
    t[threadIdx.x] = x[threadIdx.x];
    if (threadIdx.x < N / 2) x[threadIdx.x] = t[threadIdx.x + N / 2];
}

__global__ void other(float* a) {
    a[threadIdx.x] = 1.0f;
}

void launch(float* x) {
    tiled<128><<<1, 128>>>(x);
    other<<<1, 128>>>(x);
}
"""


def test_a_race_in_a_template_instantiation_gets_the_fix_a_fresh_analysis_gives(tmp_path):
    """The instantiation's part is analyzed without the generic template beside it: the fix
    (a barrier between the accesses) is the instantiation's in both analyses."""
    path = tmp_path / "tiled.cu"
    path.write_text(TEMPLATE_RACE)
    edited = TEMPLATE_RACE.replace("a[threadIdx.x] = 1.0f;", "a[threadIdx.x] = 2.0f;")
    try:
        for text in (TEMPLATE_RACE, edited):
            result = analyze_file(str(path), _settings(True), text.encode())
            fresh = analyze_file(str(path), _settings(False), text.encode())
            assert _observed(result) == _observed(fresh)
            races = [f for f in fresh.findings if f.code == "SYN401"]
            assert races and all(f.fix is not None for f in races)
    finally:
        forget_reused()
        reuse.forget_stores()
