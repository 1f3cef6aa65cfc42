"""`__shared__ alignas(N)` (accepted by nvcc, rejected by clang) is written `alignas(N)
__shared__` in the parsed copy of the source, without moving any line, column or offset."""

import pytest

from syncheck.frontend.attribute_order import with_alignas_first


@pytest.mark.parametrize("source, reordered", [
    ("__shared__ alignas(128) T x[4];", "alignas(128) __shared__ T x[4];"),
    ("  __shared__  alignas(sizeof(float4)) float4 t[8];", "  alignas(sizeof(float4))  __shared__ float4 t[8];"),
    ("__shared__ alignas (16) char b[64];\nint y;", "alignas (16) __shared__ char b[64];\nint y;"),
])
def test_alignas_moves_before_shared_in_place(source, reordered):
    out = with_alignas_first(source)
    assert out == reordered
    assert len(out) == len(source)
    assert [len(line) for line in out.splitlines()] == [len(line) for line in source.splitlines()]


@pytest.mark.parametrize("source", [
    "alignas(16) __shared__ float t[4];",      # already in clang's order
    "__shared__ __align__(16) float t[4];",     # a GNU attribute: clang accepts it
    "__shared__ float t[4]; struct alignas(16) S {};",
])
def test_other_declarations_are_left_alone(source):
    assert with_alignas_first(source) == source


@pytest.mark.parametrize("source, reordered", [
    ("__device__ [[nodiscard]] inline int f();", "[[nodiscard]] __device__ inline int f();"),
    ("__device__ __host__ [[nodiscard]] constexpr T v() const;",
     "[[nodiscard]] __device__ __host__ constexpr T v() const;"),
    ("  __device__  __forceinline__ [[maybe_unused]] static int g(int a);",
     "  [[maybe_unused]] __device__  __forceinline__ static int g(int a);"),
])
def test_attribute_lists_move_before_cuda_keywords_in_place(source, reordered):
    from syncheck.frontend.attribute_order import with_attribute_lists_first
    out = with_attribute_lists_first(source)
    assert out == reordered
    assert len(out) == len(source)


@pytest.mark.parametrize("source", [
    "[[nodiscard]] __device__ int f();",         # already in clang's order
    "__device__ int f() { return a[b[0]]; }",   # subscripts, not an attribute list
    "__device__ int f(); [[nodiscard]] int g();",
])
def test_other_attribute_lists_are_left_alone(source):
    from syncheck.frontend.attribute_order import with_attribute_lists_first
    assert with_attribute_lists_first(source) == source
