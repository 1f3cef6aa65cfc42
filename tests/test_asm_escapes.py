"""The parse's copy of a source with inline PTX names that clang rejects written `%%name`
(frontend/asm_escapes.py): only extended asm templates change, and positions stay."""

from __future__ import annotations

from syncheck.frontend.asm_escapes import with_ptx_names_escaped


def test_local_and_special_registers_are_escaped_in_place():
    line = 'asm("{ .reg.pred %p; setp.ne.u32 %p, %1, 0; @%p mov.u32 %0, %laneid; }" : "=r"(r) : "r"(x));'
    out = with_ptx_names_escaped(line)
    assert len(out) == len(line)
    assert out.index(':') == line.index(':')  # the operands keep their columns
    assert "%%p" in out and "%%laneid" in out and "%0" in out and "%1" in out
    assert "%%0" not in out and "%%1" not in out


def test_references_clang_accepts_are_kept():
    line = 'asm volatile("%w0 %[name] %% %= %{ %| %} %c1" : "+r"(a) : [name] "r"(b), "r"(c));'
    assert with_ptx_names_escaped(line) == line


def test_basic_asm_comments_and_other_strings_are_kept():
    text = ('// asm("mov.u32 %0, %laneid;" : "=r"(r));\n'
            '/* asm("%v" : ) */ const char *s = "asm(\\"%v\\" : )";\n'
            'char q = \'"\'; my_asm("%v" : "=r"(r));\n'
            'auto raw = R"x(asm("%v" : ))x";\n'
            'asm("trap; // %v");\n')
    assert with_ptx_names_escaped(text) == text


def test_templates_in_macros_and_split_over_lines():
    text = ('#define SCAN(v) asm("{ .reg.b32 %t; shfl.sync.up.b32 %t, %0, 1, 0, -1; }" \\\n'
            '                    : "+r"(v))\n'
            'asm __volatile__ (\n'
            '    "{ .reg.b32 %v;"   // the register\n'
            '    "  mov.b32 %v, %1; }"\n'
            '    : "=r"(a) : "r"(b));\n')
    out = with_ptx_names_escaped(text)
    assert out.count("\n") == text.count("\n")
    assert [len(l) for l in out.splitlines()] == [len(l) for l in text.splitlines()]
    assert out.count("%%t") == 2 and out.count("%%v") == 2
    assert "// the register" in out


def test_no_room_moves_only_the_rest_of_the_line():
    line = 'asm("%v":"=r"(r));'
    out = with_ptx_names_escaped(line)
    assert out == 'asm("%%v":"=r"(r));'
