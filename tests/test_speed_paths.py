"""The fast paths of issue 15 keep results: reachability-based lowering, the precompiled model
header, and race pairs decided without the solver."""

from __future__ import annotations

import os

from syncheck.analyses import symbolic
from syncheck.engine import Settings, analyze_file
from syncheck.frontend import precompiled
from syncheck.frontend.parse import MODEL_DIR, ParseOptions, parse_source
from syncheck.ir.program import build_program

HEADER = """
#pragma once
__device__ int leaf(int x) { return x * 2; }
__device__ int used(int x) { return leaf(x) + 1; }
__device__ int unused(int x) { return x - 1; }
__global__ void header_kernel(int* p) { p[threadIdx.x] = unused(threadIdx.x); }
inline void header_launch(int* p) { header_kernel<<<1, 32>>>(p); }
inline int header_host_helper(int n) { return n * 2; }
"""

MAIN = """
#include "lib.cuh"
__global__ void k(int* p) { p[threadIdx.x] = used(threadIdx.x); }
void run(int* p) { k<<<1, 32>>>(p); }
"""


def _program(tmp_path):
    (tmp_path / "lib.cuh").write_text(HEADER)
    main = tmp_path / "main.cu"
    main.write_text(MAIN)
    parsed = parse_source(str(main), main.read_bytes(), ParseOptions())
    return build_program(parsed)


def test_only_reached_header_device_functions_are_lowered(tmp_path):
    program = _program(tmp_path)
    names = {f.name for f in program.functions.values()}
    assert {"k", "run", "used", "leaf"} <= names  # the kernel's callees, transitively
    assert "unused" not in names and "header_kernel" not in names
    assert program.unreached_library == 2
    # header host functions stay known (host-side value tracking resolves calls to them)
    assert {"header_launch", "header_host_helper"} <= names
    # and a header host function that launches is still searched for launches
    hosts = {f.key: f.name for f in program.functions.values()}
    assert {(l.kernel_name, hosts[l.host_function]) for l in program.launches} == {
        ("k", "run"), ("header_kernel", "header_launch")}


def test_functions_keep_the_translation_unit_order(tmp_path):
    program = _program(tmp_path)
    names = [f.name for f in program.functions.values()]
    assert names.index("used") < names.index("k")  # the header comes first in the file


def test_model_pch_key_follows_model_files_and_include_folders(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "a.h").write_text("int a;\n")
    inc = tmp_path / "inc"
    inc.mkdir()
    args = ["-x", "cuda", "-I", str(inc), "-include", str(model / "a.h")]
    first = precompiled.model_key(args, str(model))
    assert precompiled.model_key(args, str(model)) == first
    (model / "a.h").write_text("int a; int b;\n")
    second = precompiled.model_key(args, str(model))
    assert second != first
    os.utime(inc, ns=(1, 1))
    (inc / "math.h").write_text("")  # a header added to an -I folder could shadow one
    assert precompiled.model_key(args, str(model)) != second
    assert precompiled.model_key(args + ["-DX=1"], str(model)) != precompiled.model_key(args, str(model))


def test_model_pch_is_skipped_when_the_folder_shadows_a_header(tmp_path):
    args = ParseOptions().clang_args()
    pch = precompiled.model_get(args, str(MODEL_DIR))
    assert pch is not None
    plain = tmp_path / "plain"
    plain.mkdir()
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "math.h").write_text("")
    assert precompiled.model_usable_for(str(plain / "k.cu"), pch)
    assert not precompiled.model_usable_for(str(shadow / "k.cu"), pch)


def test_model_pch_parse_reads_like_the_plain_parse(tmp_path):
    (tmp_path / "lib.cuh").write_text(HEADER)
    main = tmp_path / "main.cu"
    main.write_text(MAIN + "\n__global__ void broken() { undeclared_name(); }\n#include <missing_header.h>\n")
    options = ParseOptions()
    with_pch = parse_source(str(main), main.read_bytes(), options)
    without = parse_source(str(main), main.read_bytes(), options, use_pch=False)
    assert [(p.line, p.kind, p.message) for p in with_pch.problems] == \
        [(p.line, p.kind, p.message) for p in without.problems]
    assert [f.name for f in build_program(with_pch).functions.values()] == \
        [f.name for f in build_program(without).functions.values()]


KERNEL = """
__global__ void pairs(float* out) {
    __shared__ float rows[4][64];
    __shared__ float two[2];
    rows[0][threadIdx.x] = 1.0f;
    rows[1][threadIdx.x] = rows[0][threadIdx.x] + 2.0f;
    if (threadIdx.x == 0) two[0] = 3.0f;
    if (threadIdx.x == 1) two[1] = 4.0f;
    __syncthreads();
    out[threadIdx.x] = rows[1][threadIdx.x] + two[threadIdx.x & 1];
}
"""


def test_race_pairs_decided_without_the_solver(tmp_path):
    path = tmp_path / "pairs.cu"
    path.write_text(KERNEL)
    symbolic.PAIR_COUNTS.clear()
    result = analyze_file(str(path), Settings(isolate=False, timeout=None))
    assert [f.code for f in result.findings] == []
    assert symbolic.PAIR_COUNTS.get("fast: the same thread-affine subscript", 0) >= 1
    assert symbolic.PAIR_COUNTS.get("fast: different constant subscripts", 0) >= 1
    assert not any(k.startswith("solver") for k in symbolic.PAIR_COUNTS)


DIVERGENT = """
__device__ void helper(float* a, int i, int n) {
    if (i >= n) return;
    a[i] = 2.0f * a[i];
    __syncthreads();
}
__global__ void k(float* a, int n) {
    helper(a, blockIdx.x * blockDim.x + threadIdx.x, n);
}
"""


def test_uniformity_proof_refuted_by_two_concrete_threads(tmp_path):
    """`i >= n` differs between threads 0 and 1 when n == 1: no solver call needed to know
    it cannot be proved the same for every thread, and the finding stays."""
    path = tmp_path / "divergent.cu"
    path.write_text(DIVERGENT)
    symbolic.PAIR_COUNTS.clear()
    result = analyze_file(str(path), Settings(isolate=False, timeout=None))
    assert [f.code for f in result.findings] == ["SYN101"]
    assert symbolic.PAIR_COUNTS.get("proof fast: two concrete threads decide differently", 0) >= 1
    assert not any(k.startswith("proof solver") for k in symbolic.PAIR_COUNTS)


GLIBC_CLASSIFIERS = """
__global__ void count_special(const float* x, const double* y, int* flags) {
    int i = threadIdx.x;
    flags[i] = __isnanf(x[i]) + __isinff(x[i]) + __finitef(x[i])
             + __isnan(y[i]) + __isinf(y[i]) + __finite(y[i]);
}
"""


def test_model_headers_read_the_glibc_float_classifiers_in_device_code(tmp_path):
    # CUDA's math headers declare __isnanf and its kin for the device too (ggml calls
    # __isnanf in a kernel); without them the model parse fails and `auto` parses again.
    main = tmp_path / "classify.cu"
    main.write_text(GLIBC_CLASSIFIERS)
    parsed = parse_source(str(main), main.read_bytes(), ParseOptions())
    assert parsed.problems == []
    from syncheck.coverage import analyzed_and_missed
    assert analyzed_and_missed(parsed, build_program(parsed)) == (1, 0)


# Issue 15, template-heavy code: a kernel's callees in library headers are lowered (and a
# barrier they reach is reported at the kernel's call), the header's other functions are not.
TILE_HEADER = """
#pragma once
template <typename T>
__device__ T exchange_with_neighbour(T* tile, T value) {
    tile[threadIdx.x] = value;
    __syncthreads();
    return tile[(threadIdx.x + 1) % 32];
}
template <typename T>
__device__ T left_unused(T* tile) {
    if (threadIdx.x == 0) __syncthreads();
    return tile[0];
}
"""

TILE_MAIN = """
#include "tile_exchange.cuh"
__global__ void exchange_tiles(float* out, int n) {
    __shared__ float tile[32];
    if (threadIdx.x < n) {
        out[threadIdx.x] = exchange_with_neighbour(tile, out[threadIdx.x]);
    }
    out[n] = 0.0f;
}
"""


def test_header_template_callee_is_lowered_and_unreached_one_is_not(tmp_path):
    (tmp_path / "tile_exchange.cuh").write_text(TILE_HEADER)
    main = tmp_path / "exchange.cu"
    main.write_text(TILE_MAIN)
    program = build_program(parse_source(str(main), main.read_bytes(), ParseOptions()))
    names = {f.name for f in program.functions.values()}
    assert "exchange_with_neighbour<float>" in names  # the instantiation the kernel calls
    assert not any(n.startswith("left_unused") for n in names)
    assert program.unreached_library == 1  # left_unused: found in the header, never lowered
    result = analyze_file(str(main), Settings(isolate=False, timeout=None))
    assert [(f.code, f.line, os.path.basename(f.path)) for f in result.findings] == [
        ("SYN101", 6, "exchange.cu")]  # the call under `threadIdx.x < n` reaches the barrier
    assert [(os.path.basename(n.path), n.line) for n in result.findings[0].notes][-1] == \
        ("tile_exchange.cuh", 6)


ATTRIBUTE_FORMS = """
struct Acc {
    __host__ __device__ Acc(int v) : value(v) {}
    __device__ operator int() const { return value; }
    template <class U> __device__ __forceinline__ void add(U u) { value += u; }
    template <class U> __host__ void host_add(U u);
    int value;
};
template <class U> __host__ void Acc::host_add(U u) { value += u; }
template <class T> struct Box { template <class U> __device__ T get(U u); T t; };
template <class T> template <class U> __device__ T Box<T>::get(U u) { return t + u; }
template <typename T> requires (sizeof(T) > 1) __device__ T wide(T x) { return x; }
template <typename T, int N = 4> __global__ void __launch_bounds__(128) fill(T* p) { p[N] = 0; }
template <> __global__ void fill<float, 4>(float* p) { p[0] = 1.0f; }
[[deprecated]] __device__ __noinline__ int old(int x) { return x; }
auto __device__ trailing(int x) -> decltype(x + 1) { return x + 1; }
int host_only(int x) { return x; }
"""


def test_attributes_read_early_are_every_attribute_child(tmp_path):
    """function_attribute_kinds stops at the first child after the attributes; it must find
    what a visit of every child finds, for every form a function definition takes."""
    from syncheck.frontend import clang_api
    import clang.cindex as ci
    main = tmp_path / "forms.cu"
    main.write_text(ATTRIBUTE_FORMS)
    parsed = parse_source(str(main), main.read_bytes(), ParseOptions(std="c++20"))
    assert parsed.errors == []
    kinds = {ci.CursorKind.FUNCTION_DECL, ci.CursorKind.FUNCTION_TEMPLATE, ci.CursorKind.CXX_METHOD,
             ci.CursorKind.CONSTRUCTOR, ci.CursorKind.CONVERSION_FUNCTION}
    names: dict[int, str] = {}
    seen = 0
    for cursor in parsed.tu.cursor.walk_preorder():
        if cursor.kind not in kinds or cursor.location.file is None:
            continue
        assert clang_api.location_file(cursor.location, names) == cursor.location.file.name
        if str(cursor.location.file.name) != str(main):
            continue
        seen += 1
        every = [c.kind.value for c in cursor.get_children() if c.kind.is_attribute()]
        assert clang_api.function_attribute_kinds(cursor) == every, cursor.spelling
    assert seen >= 13


def test_kernel_queries_get_an_eighth_of_the_budget_after_repeated_unknowns():
    """A kernel whose race queries keep running out of the solver's budget (hundreds of pairs
    of carved buffers with run-time offsets) has its later queries decided within an eighth
    of it: counted per kernel, so the answers do not depend on the machine."""
    from types import SimpleNamespace

    from syncheck.analyses import races
    from syncheck.analyses.symbolic import RESOURCE_LIMIT, z3_module

    z3 = z3_module()
    kernel = SimpleNamespace(solver_unknowns=0)
    x, y = z3.BitVecs("x y", 64)
    # inverting a multiply-xorshift mix of 64-bit words: beyond the budget
    hard = [(x * 0x9E3779B97F4A7C15 ^ z3.LShR(x, 29)) * 0xBF58476D1CE4E5B9 == 0x123456789ABCDEF1]
    verdict, _ = races._decide(z3, hard, kernel)
    assert verdict == z3.unknown
    assert kernel.solver_unknowns == 1
    assert races._query_limit(kernel) == RESOURCE_LIMIT
    kernel.solver_unknowns = races._FULL_LIMIT_UNKNOWNS
    assert races._query_limit(kernel) == RESOURCE_LIMIT // 8
    easy = [x + 1 == y, x == 3]
    assert races._decide(z3, easy, kernel)[0] == z3.sat
    assert kernel.solver_unknowns == races._FULL_LIMIT_UNKNOWNS
    # a search with sizes fixed gets a share of the budget and does not count
    races._decide(z3, hard, kernel, races._WITNESS_SHARE)
    assert kernel.solver_unknowns == races._FULL_LIMIT_UNKNOWNS
