"""The precompiled include prefix (syncheck/frontend/include_prefix.py): built only for a
prefix two files share, rebuilt when a header it read changes, never used where the file
could read something else, and a parse with it reads like the plain parse."""

from __future__ import annotations

import json
import os

from syncheck.engine import Settings, analyze_file
from syncheck.frontend import include_prefix, precompiled
from syncheck.frontend.parse import ParseOptions, parse_source
from syncheck.ir.program import build_program

HELPER = """
#pragma once
#include <stdio.h>
__device__ int helper_twice(int x) { return x * 2; }
"""

# (`run` names `k`, which the renamed kernels are not: no launch fixes the shape; the race
# between lanes 0 and 31 is block code's, SYN401.)
MAIN = """// a comment before the includes
#include "helper.cuh"
#include <cooperative_groups.h>

__global__ void k(int* p) {
    __shared__ int s[32];
    s[threadIdx.x] = helper_twice(p[threadIdx.x]);
    if (threadIdx.x < 16) __syncthreads();
    p[threadIdx.x] = s[31 - threadIdx.x];
}
void run(int* p) { k<<<1, 32>>>(p); }
"""


def _project(tmp_path, helper=HELPER):
    (tmp_path / "helper.cuh").write_text(helper)
    files = []
    for name in ("a.cu", "b.cu"):
        f = tmp_path / name
        f.write_text(MAIN.replace("void k(", f"void k_{name[0]}("))
        files.append(f)
    return files


def _args(path):
    return ParseOptions().clang_args() + ["-I", os.path.dirname(os.path.abspath(path))]


def _prefix(path):
    return include_prefix.get(str(path), path.read_bytes(), _args(path), lambda f: True)


def test_leading_includes_stop_at_the_first_other_line(tmp_path):
    (tmp_path / "local.h").write_text("#pragma once\n")
    source = (b"/* licence\n   text */\n#pragma once\n#include \"local.h\" // why\n\n"
              b"#include <vector>\n#define X 1\n#include <string>\n")
    assert include_prefix.leading_includes(source, str(tmp_path)) == [
        f'"{tmp_path}/local.h"', "<vector>"]
    # a quoted name not in the file's folder resolves through the search path, as written
    assert include_prefix.leading_includes(b'#include "elsewhere.h"\nint x;\n', str(tmp_path)) == [
        '"elsewhere.h"']


def test_built_only_when_a_second_file_asks(tmp_path):
    a, b = _project(tmp_path)
    assert _prefix(a) is None          # first asker: parsed plainly
    assert _prefix(a) is None          # the same file again is not a second asker
    built = _prefix(b)
    assert built is not None and built.pch.startswith(str(precompiled.pch_dir()))
    assert str(tmp_path / "helper.cuh") in built.files
    assert _prefix(a).pch == built.pch  # now every file with that prefix uses it


def test_rebuilt_when_a_header_it_read_changes(tmp_path):
    a, b = _project(tmp_path)
    _prefix(a)
    first = _prefix(b)
    manifest = json.loads(open(first.pch[:-4] + ".json").read())
    helper = str(tmp_path / "helper.cuh")
    assert [e for e in manifest["files"] if e[0] == helper]
    (tmp_path / "helper.cuh").write_text(HELPER.replace("x * 2", "x * 3 "))
    os.utime(tmp_path / "helper.cuh", ns=(10**18, 10**18))
    second = _prefix(b)
    assert second is not None
    manifest = json.loads(open(second.pch[:-4] + ".json").read())
    assert [helper, os.path.getsize(helper), 10**18] in manifest["files"]
    # and the parse sees the new header
    parsed = parse_source(str(b), b.read_bytes(), ParseOptions())
    assert parsed.prefix_includes
    helper_fn = next(c for c in parsed.tu.cursor.get_children() if c.spelling == "helper_twice")
    body = next(c for c in helper_fn.get_children() if c.kind.name == "COMPOUND_STMT")
    assert [t.spelling for t in body.get_tokens()] == ["{", "return", "x", "*", "3", ";", "}"]


def test_key_follows_arguments_prefix_and_include_folders(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    args = ["-x", "cuda", "-I", str(inc)]
    key = include_prefix.prefix_key(args, ["<vector>"])
    assert include_prefix.prefix_key(args, ["<vector>"]) == key
    assert include_prefix.prefix_key(args + ["-DX"], ["<vector>"]) != key
    assert include_prefix.prefix_key(args, ["<vector>", "<string>"]) != key
    os.utime(inc, ns=(1, 1))
    (inc / "vector").write_text("")  # a header added to an -I folder could shadow one
    assert include_prefix.prefix_key(args, ["<vector>"]) != key


def test_not_built_for_a_header_without_include_guard(tmp_path):
    (tmp_path / "unguarded.h").write_text("__device__ int twice(int x) { return 2 * x; }\n")
    for name in ("a.cu", "b.cu"):
        (tmp_path / name).write_text('#include "unguarded.h"\n__global__ void k(int* p) { p[0] = twice(1); }\n')
    assert _prefix(tmp_path / "a.cu") is None
    assert _prefix(tmp_path / "b.cu") is None
    parsed = parse_source(str(tmp_path / "b.cu"), (tmp_path / "b.cu").read_bytes(), ParseOptions())
    assert not parsed.prefix_includes and not parsed.problems


def test_not_used_when_the_policy_refuses_a_header_it_read(tmp_path):
    a, b = _project(tmp_path)
    _prefix(a)
    assert _prefix(b) is not None
    helper = str(tmp_path / "helper.cuh")
    refused = include_prefix.get(str(b), b.read_bytes(), _args(b), lambda f: f != helper)
    assert refused is None


def test_a_parse_with_the_prefix_reads_like_the_plain_parse(tmp_path):
    a, b = _project(tmp_path)
    settings = Settings(parse=ParseOptions(), isolate=False, timeout=None)
    plain = analyze_file(str(a), settings)      # first asker: plain parse
    with_prefix = analyze_file(str(b), settings)  # second: builds and uses the prefix
    assert [(f.code, f.line) for f in plain.findings] == [(f.code, f.line) for f in with_prefix.findings]
    assert [(f.code, f.line) for f in plain.findings] == [("SYN101", 8), ("SYN401", 9)]
    assert plain.dependencies == with_prefix.dependencies and str(tmp_path / "helper.cuh") in plain.dependencies
    parsed = parse_source(str(b), b.read_bytes(), ParseOptions())
    assert parsed.prefix_includes
    unaided = parse_source(str(b), b.read_bytes(), ParseOptions(), use_pch=False)
    assert [f.name for f in build_program(parsed).functions.values()] == \
        [f.name for f in build_program(unaided).functions.values()]


def test_files_named_by_relative_paths_use_it_too(tmp_path, monkeypatch):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    settings = Settings(parse=ParseOptions(), isolate=False, timeout=None)
    plain = analyze_file("a.cu", settings)
    with_prefix = analyze_file("b.cu", settings)
    assert parse_source("b.cu", b"".join([open("b.cu", "rb").read()]), ParseOptions()).prefix_includes
    assert [(f.code, f.line) for f in plain.findings] == [(f.code, f.line) for f in with_prefix.findings] \
        == [("SYN101", 8), ("SYN401", 9)]
    assert plain.dependencies == with_prefix.dependencies


def test_checking_include_guards_leaves_the_clang_bindings_working(tmp_path):
    # The guard check calls clang_getFile with bytes; it must not retype the bindings' own
    # function, whose TranslationUnit.get_file passes a str (the language server's kept
    # bodies find instantiations again through it).
    header = tmp_path / "guarded.cuh"
    header.write_text("#pragma once\n__device__ int twice(int x) { return 2 * x; }\n")
    main = tmp_path / "k.cu"
    main.write_text('#include "guarded.cuh"\n__global__ void k(int* a) { a[0] = twice(a[1]); }\n')
    parsed = parse_source(str(main), main.read_bytes(), ParseOptions(), use_pch=False)
    assert include_prefix._guarded(parsed.tu, [str(header)])
    assert parsed.tu.get_file(str(main)).name == str(main)
