"""`__syncthreads;` (a barrier named without a call: nvcc compiles it to nothing, clang rejects
it) is read as `(void)0` in the parsed copy of the source, without moving any line, column or
offset."""

import pytest

from syncheck.frontend.bare_builtins import with_bare_builtins_voided


@pytest.mark.parametrize("source, voided", [
    ("      __syncthreads;", "      (void)0      ;"),
    ("if (i > 0) __syncthreads ;\nx = 1;", "if (i > 0) (void)0       ;\nx = 1;"),
    ("__threadfence_block;", "(void)0            ;"),
])
def test_a_bare_barrier_name_is_no_statement_in_place(source, voided):
    out = with_bare_builtins_voided(source)
    assert out == voided
    assert [len(line) for line in out.splitlines()] == [len(line) for line in source.splitlines()]


@pytest.mark.parametrize("source", [
    "__syncthreads();",
    "__syncthreads ();",
    "int n = __syncthreads_count(p);",
    "s.__syncthreads;",                 # a member of that name: not the builtin
    "// __syncthreads_and;",
])
def test_calls_and_other_names_are_left_alone(source):
    assert with_bare_builtins_voided(source) == source
