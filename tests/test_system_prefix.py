"""The precompiled system prefix (syncheck/frontend/system_prefix.py): which system headers
a file reads before its own code, one header per list, rebuilt when a file it read changes
or its file is damaged, never used where the file could read something else, and a parse
with it reads like the plain parse."""

from __future__ import annotations

import json
import os

import pytest

from syncheck.engine import Settings, analyze_file
from syncheck.frontend import include_prefix, system_prefix
from syncheck.frontend.parse import MODEL_DIR, ParseOptions, parse_source
from syncheck.ir.program import build_program

HELPER = """// helper
#ifndef SYSPREFIX_TEST_HELPER_H
#define SYSPREFIX_TEST_HELPER_H

#include <stdio.h>
#include <string>
__device__ int sysprefix_twice(int x) { return x * 2; }
#include <vector>
#endif
"""

MAIN = """/* licence */
#include <stdlib.h>
#include "helper.cuh"
#include <cooperative_groups.h>

__global__ void sysprefix_k(int* p) {
    __shared__ int s[32];
    s[threadIdx.x] = sysprefix_twice(p[threadIdx.x]);
    if (threadIdx.x < 16) __syncthreads();
    p[threadIdx.x] = s[31 - threadIdx.x];
}
void run(int* p) { std::string name("k"); sysprefix_k<<<1, 32>>>(p); }
"""


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """Each test its own folder of system prefixes (their keys do not name the project)."""
    folder = tmp_path / "pch"
    monkeypatch.setattr(system_prefix, "cache_dir", lambda: folder)
    system_prefix._checked.clear()


def _write(tmp_path, main=MAIN, helper=HELPER, name="a.cu"):
    (tmp_path / "helper.cuh").write_text(helper)
    f = tmp_path / name
    f.write_text(main)
    return f


def _args():
    return ParseOptions().clang_args()


def _get(path, allows=lambda f: True):
    return system_prefix.get(str(path), path.read_bytes(), _args(), allows)


def _shared(tmp_path, main=MAIN, helper=HELPER, names=("a.cu", "b.cu")):
    """Two files with the same list; the second one's request builds its header (a list
    only one file asks for is never built). Returns the first file and the header."""
    first = _write(tmp_path, main=main, helper=helper, name=names[0])
    second = _write(tmp_path, main=main.replace("sysprefix_", "sysprefix2_"), helper=helper, name=names[1])
    assert _get(first) is None
    built = _get(second)
    assert built is not None
    return first, built


def _scan(path):
    return system_prefix.system_prefix(str(path), path.read_bytes(),
                                       _args() + ["-I", os.path.dirname(str(path))], lambda f: True)


def test_the_prefix_is_what_the_plain_parse_reads_before_project_code(tmp_path):
    f = _write(tmp_path)
    scan = _scan(f)
    # depth first into the project header, up to its first line of code; the main file's
    # later include is never reached
    assert scan.system == ["<stdlib.h>", "<stdio.h>", "<string>"]
    assert scan.guards == ["SYSPREFIX_TEST_HELPER_H"]
    # a model header other than the forced one counts as a system header
    g = _write(tmp_path, main="#include <cooperative_groups.h>\n#include <cstdio>\nint x;\n#include <vector>\n",
               name="g.cu")
    assert _scan(g).system == ["<cooperative_groups.h>", "<cstdio>"]
    # a #define, a conditional or a name made by a macro ends it
    for head in ("#define N 4\n", "#ifdef _WIN32\n#include <windows.h>\n#endif\n", "#include HEADER\n"):
        h = _write(tmp_path, main="#include <cstdio>\n" + head + "#include <vector>\n", name="h.cu")
        assert _scan(h).system == ["<cstdio>"], head
    # a header without an include guard ends it (a later include line would read it again)
    _write(tmp_path, helper="#include <cstdio>\n", name="i.cu")
    assert _scan(tmp_path / "i.cu").system == ["<stdlib.h>", "<cstdio>"]


def test_one_header_per_list_and_the_key(tmp_path):
    a = _write(tmp_path)
    assert _get(a) is None and _get(a) is None   # asked by one file only: not built
    b = _write(tmp_path, main=MAIN.replace("sysprefix_k", "sysprefix_k2"), name="b.cu")
    built = _get(b)                              # a second file asks: built
    assert built is not None and built.pch.startswith(str(tmp_path / "pch"))
    assert _get(a).pch == built.pch              # the same list: the same header
    # another list: another header, once asked for twice; until then the longest built
    # first part of it serves
    longer = "#include <stdlib.h>\n#include <vector>\nint x;\n"
    c = _write(tmp_path, main=longer, name="c.cu")
    d = _write(tmp_path, main=longer + "int y;\n", name="d.cu")
    shorter = _shared(tmp_path, main="#include <stdlib.h>\nint sysprefix_z;\n", names=("e.cu", "f.cu"))[1]
    assert _get(c).pch == shorter.pch
    assert _get(d).pch not in (shorter.pch, built.pch)
    args = _args()
    key = system_prefix.key(args, ["<vector>"])
    assert system_prefix.key(args, ["<vector>"]) == key
    assert system_prefix.key(args + ["-DX"], ["<vector>"]) != key
    assert system_prefix.key(args, ["<vector>", "<string>"]) != key
    assert system_prefix.key(args, ["<string>", "<vector>"]) != system_prefix.key(args, ["<vector>", "<string>"])
    inc = tmp_path / "inc"
    inc.mkdir()
    with_inc = args + ["-I", str(inc)]
    before = system_prefix.key(with_inc, ["<vector>"])
    os.utime(inc, ns=(1, 1))
    (inc / "vector").write_text("")  # a header added to an -I folder could shadow one
    assert system_prefix.key(with_inc, ["<vector>"]) != before


def test_rebuilt_when_a_file_it_read_changed(tmp_path):
    f, built = _shared(tmp_path)
    stem = built.pch[:-4]
    manifest = json.loads(open(stem + ".json").read())
    stdio = next(e for e in manifest["files"] if e[0].endswith("/stdio.h"))
    # as if stdio.h had changed since the build: its recorded identity no longer matches
    stdio[2] -= 1
    with open(stem + ".json", "w") as out:
        json.dump(manifest, out)
    os.utime(built.pch, ns=(1, 1))
    again = _get(f)
    assert again is not None and again.pch == built.pch
    assert os.stat(built.pch).st_mtime_ns != 1  # written anew
    manifest = json.loads(open(stem + ".json").read())
    assert [stdio[0], os.path.getsize(stdio[0]), os.stat(stdio[0]).st_mtime_ns] in manifest["files"]


def _findings(path):
    result = analyze_file(str(path), Settings(parse=ParseOptions(), isolate=False, timeout=None))
    return [(f.code, f.line, f.message) for f in result.findings], result.dependencies


def test_a_damaged_header_is_rebuilt_or_the_file_parsed_plainly(tmp_path, monkeypatch):
    f, built = _shared(tmp_path)
    monkeypatch.setattr(system_prefix, "ENABLED", False)
    plain = _findings(f)
    monkeypatch.setattr(system_prefix, "ENABLED", True)
    assert _findings(f) == plain
    pch = built.pch
    # cut short (a build interrupted after the move, or a full disk): rebuilt before use
    with open(pch, "r+b") as out:
        out.truncate(1000)
    assert _findings(f) == plain
    assert os.path.getsize(pch) > 1000
    # same size, but not a header clang can read: the parse falls back to the plain one
    size = os.path.getsize(pch)
    with open(pch, "wb") as out:
        out.write(b"\0" * size)
    system_prefix._checked.clear()
    assert _findings(f) == plain
    assert not os.path.exists(pch)  # discarded: built afresh when the other file asks again
    assert _get(tmp_path / "b.cu").pch == pch and os.path.getsize(pch) == size
    assert _findings(f) == plain


def test_a_parse_with_it_reads_like_the_plain_parse(tmp_path, monkeypatch):
    f, _ = _shared(tmp_path)
    parsed = parse_source(str(f), f.read_bytes(), ParseOptions())
    assert any("system-" in a for a in parsed.args)
    unaided = parse_source(str(f), f.read_bytes(), ParseOptions(), use_pch=False)
    assert [p.message for p in parsed.problems] == [p.message for p in unaided.problems] == []
    assert [fn.name for fn in build_program(parsed).functions.values()] == \
        [fn.name for fn in build_program(unaided).functions.values()]
    with_it = _findings(f)
    monkeypatch.setattr(system_prefix, "ENABLED", False)
    assert with_it == _findings(f)
    assert [code for code, _, _ in with_it[0]] == ["SYN101", "SYN401"]
    # the project's headers it read count as read by the file, as with the model's header
    # alone (which system headers clang lists as entered differs: they are never dependencies)
    model_only = parse_source(str(f), f.read_bytes(), ParseOptions())
    assert not any("system-" in a for a in model_only.args)

    def project(parse):
        return {os.path.realpath(n) for n in parse.included_files()
                if not os.path.realpath(n).startswith(("/usr/", str(MODEL_DIR)))}
    assert project(parsed) == project(model_only) == {os.path.realpath(tmp_path / "helper.cuh")}


def test_not_used_where_the_file_could_read_something_else(tmp_path, monkeypatch):
    f, _ = _shared(tmp_path)
    assert _get(f) is not None
    # the file's folder holds a file named like a header it read (searched before the system's)
    (tmp_path / "string.h").write_text("")
    system_prefix._folder_names.cache_clear()
    assert _get(f) is None
    (tmp_path / "string.h").unlink()
    system_prefix._folder_names.cache_clear()
    # the include policy refuses a file it read
    assert _get(f, allows=lambda name: not name.endswith("/stdio.h")) is None
    # a project guard named like a macro the system headers read: the plain parse defines it
    # before them (here it even keeps <stdio.h> out); the output stays the plain parse's
    g = _write(tmp_path, helper=HELPER.replace("SYSPREFIX_TEST_HELPER_H", "_STDIO_H"), name="g.cu")
    assert _scan(g).guards == ["_STDIO_H"]
    assert _scan(g).system == _scan(f).system  # the header is built: f uses it
    assert _get(g) is None
    with_it = _findings(g)
    monkeypatch.setattr(system_prefix, "ENABLED", False)
    assert with_it == _findings(g)


def test_a_header_found_nowhere_ends_the_list_before_it(tmp_path):
    f, built = _shared(tmp_path, main="#include <cstdio>\n#include <no_such_header_anywhere.h>\n"
                                      "#include <vector>\n__global__ void sysprefix_m(int* p) { p[0] = 1; }\n",
                       names=("m.cu", "n.cu"))
    manifest = json.loads(open(built.pch[:-4] + ".json").read())
    assert not [e for e in manifest["files"] if e[0].endswith("/vector")]
    parsed = parse_source(str(f), f.read_bytes(), ParseOptions())
    unaided = parse_source(str(f), f.read_bytes(), ParseOptions(), use_pch=False)
    assert [(p.line, p.message) for p in parsed.problems] == [(p.line, p.message) for p in unaided.problems]
    assert [p.kind for p in parsed.problems] == ["missing-include"]


def test_the_include_prefix_still_comes_first(tmp_path):
    main = MAIN.replace("#include <stdlib.h>\n", "")
    a = _write(tmp_path, main=main)
    b = _write(tmp_path, main=main.replace("sysprefix_k", "sysprefix_k2"), name="b.cu")
    args = _args() + ["-I", str(tmp_path)]
    include_prefix.get(str(a), a.read_bytes(), args, lambda f: True)
    assert include_prefix.get(str(b), b.read_bytes(), args, lambda f: True) is not None
    parsed = parse_source(str(b), b.read_bytes(), ParseOptions())
    assert any("prefix-" in arg for arg in parsed.args)
