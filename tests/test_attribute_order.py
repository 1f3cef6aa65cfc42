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
