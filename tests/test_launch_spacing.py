"""Spaced launch chevrons (`k << <g, b >> >(a)`), which nvcc accepts and clang does not, are
joined in the parsed copy of the source without moving any line, column or offset."""

import pytest

from syncheck.frontend.launch_spacing import with_launches_joined


@pytest.mark.parametrize("source, joined", [
    ("k << <grid, block >> >(a, b);", "k <<< grid, block >>> (a, b);"),
    ("k << < g, b >>>(a);", "k <<<  g, b >>>(a);"),
    ("k << <dim3(2, 2), Cfg<int>::threads, 0, s >> >\n    (a);",
     "k <<< dim3(2, 2), Cfg<int>::threads, 0, s >>> \n    (a);"),
    ("k<<<g, b>>>(x);", "k<<<g, b>>>(x);"),
])
def test_launches_are_joined_in_place(source, joined):
    out = with_launches_joined(source)
    assert out == joined
    assert len(out) == len(source)
    assert [len(line) for line in out.splitlines()] == [len(line) for line in source.splitlines()]


@pytest.mark.parametrize("source", [
    "x = a << <b;",                       # a shift, then a comparison: no launch closer
    "y = (a << 2) < b; z = c >> > 1;",
    "bool f = (a << <b); int g(int);",     # a closer-like `(` only after the statement ends
])
def test_other_code_is_left_alone(source):
    assert with_launches_joined(source) == source
