"""Launch configurations with braced grid and block lists (`k<<<{g, 2}, {64, 16}>>>(a)`),
which nvcc accepts and clang does not, are typed as dim3 in the parsed copy of the source
without moving anything outside the configuration."""

import pytest

from syncheck.frontend.launch_braces import with_braced_launches_typed


@pytest.mark.parametrize("source, typed", [
    ("k<<< {(uint)T,(uint)F,2}, {64,16}, 96*1024, s >>>\n(a);",
     "k<<<${(uint)T,(uint)F,2},${64,16}, 96*1024, s >>>\n(a);"),
    ("k<<<g, {64, 4}>>>(x);", "k<<<g,${64, 4}>>>(x);"),
    # no blank before the first list: one is taken from inside the configuration
    ("k<<<{1, 2}, {3, 4}>>>(a);", "k<<<${1, 2},${3,4}>>>(a);"),
])
def test_braced_lists_are_typed_in_place(source, typed):
    out = with_braced_launches_typed(source)
    assert out == typed
    assert len(out) == len(source)
    assert out.index(">>>") == source.index(">>>")


@pytest.mark.parametrize("source", [
    "k<<<{1,2},{3,4}>>>(a);",           # no blank to take: left as written
    "k<<<dim3{1, 2}, b>>>(x);",         # a list nested in an expression has its type
    "k<<<g, b>>>(x); int v[] = {1, 2};",
    "if (a <<< {",                      # no configuration closer
    "unsigned int x = f<<<{a}, {b}; c>>>(d);",  # a statement ends inside: not a launch
])
def test_other_code_is_left_alone(source):
    assert with_braced_launches_typed(source) == source


def test_words_are_never_joined():
    # `unsigned int` must keep its blank; the others may go
    source = "k<<<{(unsigned int)n, 1},{64, 1}>>>(a);"
    out = with_braced_launches_typed(source)
    assert "unsigned int" in out and len(out) == len(source)
