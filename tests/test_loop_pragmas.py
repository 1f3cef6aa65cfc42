"""`#pragma unroll` before a statement that is not a loop (nvcc ignores it with a warning,
clang rejects it) gets an empty loop to apply to in the parsed copy of the source, without
moving the code around it; the file's kernels are then analyzed."""

import pytest

from syncheck.frontend.loop_pragmas import with_empty_loops_after_unroll
from syncheck.frontend.parse import ParseOptions, parse_source


@pytest.mark.parametrize("source, place, rewritten", [
    # a macro's pragma, then `;` at the end of its line: the `;` is the empty loop's body
    ("    UNROLL(4);\n    x = 1;", (1, 14), "    UNROLL(4)while(0);\n    x = 1;"),
    # a statement with nine blanks before it: the loop takes their place, the statement stays
    ("          UNROLL(4)\n          x = 1;", (2, 11), "          UNROLL(4)\n while(0);x = 1;"),
    # a pragma line of the file itself: blanked
    ("  #pragma unroll\n  x = 1;", (2, 3), " " * 16 + "\n  x = 1;"),
    ("  #pragma unroll 4\n  // why\n  x = 1;", (3, 3), " " * 18 + "\n  // why\n  x = 1;"),
    # no room: the loop goes before the statement
    ("UNROLL(4) x = 1;", (1, 11), "UNROLL(4) while(0);x = 1;"),
])
def test_an_empty_loop_follows_a_stray_pragma(source, place, rewritten):
    assert with_empty_loops_after_unroll(source, [place]) == rewritten


def test_columns_after_a_multibyte_character_are_bytes():
    source = "  s = \"\u00e9\"; UNROLL(4);\n"
    column = len("  s = \"\u00e9\"; UNROLL(4)".encode("utf-8")) + 1
    assert with_empty_loops_after_unroll(source, [(1, column)]) == "  s = \"\u00e9\"; UNROLL(4)while(0);\n"


def test_the_kernel_behind_a_stray_pragma_parses(tmp_path):
    source = (b"#define PRAGMA(x) _Pragma(#x)\n"
              b"#define UNROLL(n) PRAGMA(unroll(n))\n"
              b"__global__ void k(float* p) {\n"
              b"    UNROLL(4);\n"
              b"    for (int i = 0; i < 4; ++i) p[i] = 0.0f;\n"
              b"#pragma unroll\n"
              b"    p[threadIdx.x] += 1.0f;\n"
              b"}\n")
    path = tmp_path / "k.cu"
    path.write_bytes(source)
    parsed = parse_source(str(path), source, ParseOptions())
    assert parsed.problems == []
    assert path.read_bytes() == source  # the file itself is never rewritten
