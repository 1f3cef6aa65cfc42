"""The C integer operators of syncheck/analyses/c_semantics.py: the scalar definitions against
results written from the C standard's rules (and, where nvcc is installed, against what
nvcc's code computes), the NumPy versions against the scalar ones on a grid of values and
types, and the z3 encoding against the scalar ones."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from syncheck.analyses import c_semantics as C

SCHAR, UCHAR = C.IntType(8, True), C.IntType(8, False)
SHORT, USHORT = C.IntType(16, True), C.IntType(16, False)
INT, UINT = C.INT, C.UNSIGNED_INT
LLONG, ULLONG = C.IntType(64, True), C.IntType(64, False)

C_NAMES = {SCHAR: "signed char", UCHAR: "unsigned char", SHORT: "short", USHORT: "unsigned short",
           INT: "int", UINT: "unsigned int", LLONG: "long long", ULLONG: "unsigned long long"}


def result_type(op: str, left: C.IntType, right: C.IntType) -> C.IntType:
    """The type clang gives a binary operator's expression (what the lowered node's type says)."""
    if op in C.COMPARISONS or op in C.LOGICAL:
        return C.BOOL
    if op in C.SHIFTS:
        return C.promoted(left)
    return C.common_type(left, right)


def operation(op: str, left: C.IntType, right: C.IntType) -> C.IntType:
    return C.common_type(left, right) if op in C.COMPARISONS else result_type(op, left, right)


# (operator, left value, left type, right value, right type, result): results from the C rules
# (C11 6.3.1.3 conversions, 6.3.1.8 usual arithmetic conversions, 6.5.5 truncating division,
# 6.5.7 shifts; C++20 for conversions to signed types and signed `<<`, which wrap); None where
# the behaviour is undefined.
BINARY_TABLE = [
    ("/", -7, INT, 2, INT, -3),
    ("%", -7, INT, 2, INT, -1),
    ("/", 7, INT, -2, INT, -3),
    ("%", 7, INT, -2, INT, 1),
    ("%", -7, INT, -2, INT, -1),
    ("/", -1, INT, 2, UINT, 2147483647),          # -1 / 2u: -1 converts to 0xffffffff
    ("%", -1, INT, 3, UINT, 0),                   # 4294967295 % 3
    (">>", 0xFFFFFFFF, UINT, 31, INT, 1),         # logical: zeros shift in
    (">>", -8, INT, 1, INT, -4),                  # arithmetic on a negative int
    (">>", -1, INT, 31, INT, -1),
    (">>", -2147483648, INT, 4, INT, -134217728),
    ("<<", 1, UINT, 31, INT, 2147483648),
    ("<<", 1, INT, 31, INT, -2147483648),
    ("<<", 1, LLONG, 40, INT, 1 << 40),
    ("<<", 1, UINT, 32, INT, None),               # shift by the width: undefined
    ("<<", 1, INT, -1, INT, None),
    (">>", 1, UINT, 32, INT, None),
    ("<<", 200, UCHAR, 1, INT, 400),              # unsigned char promotes to int
    ("+", 2147483647, INT, 1, INT, -2147483648),  # wraps (nvcc's code does)
    ("+", 0xFFFFFFFF, UINT, 1, UINT, 0),
    ("-", 0, UINT, 1, UINT, 4294967295),
    ("-", 0, ULLONG, 1, INT, (1 << 64) - 1),
    ("*", 65536, INT, 65536, INT, 0),
    ("*", 65536, LLONG, 65536, INT, 1 << 32),
    ("-", 3, INT, 5, UINT, 4294967294),
    ("+", -1, INT, 0, LLONG, -1),                 # long long holds every int
    ("+", -1, INT, 0, ULLONG, (1 << 64) - 1),
    ("+", -1, LLONG, 0, UINT, -1),                # long long holds every unsigned int
    ("&", -1, INT, 0xFF, UINT, 255),
    ("|", -256, INT, 0xFF, INT, -1),
    ("^", 0xF0F0, UINT, 0xFFFF, UINT, 0x0F0F),
    ("/", 1, INT, 0, INT, None),
    ("%", 1, UINT, 0, UINT, None),
    ("<", -1, INT, 1, UINT, 0),                   # compared as unsigned
    ("<", -1, INT, 1, INT, 1),
    ("<", -1, INT, 1, LLONG, 1),
    (">", -1, LLONG, 1, UINT, 0),
    ("==", -1, INT, 0xFFFFFFFF, UINT, 1),
    ("!=", -1, INT, 0xFFFFFFFF, UINT, 0),
    (">=", 255, UCHAR, -1, SCHAR, 1),             # both promote to int
    ("<=", 0, UINT, 0, UINT, 1),
    ("&&", 2, INT, 3, INT, 1),
    ("||", 0, INT, 0, INT, 0),
]

UNARY_TABLE = [
    ("~", 0, UINT, 4294967295),
    ("~", 0, INT, -1),
    ("~", 0, ULLONG, (1 << 64) - 1),
    ("~", 0, UCHAR, -1),               # promoted to int first
    ("-", 1, UINT, 4294967295),
    ("-", 5, INT, -5),
    ("+", 7, UCHAR, 7),
    ("!", 5, INT, 0),
    ("!", 0, UINT, 1),
]

CONVERSION_TABLE = [
    (-1, UINT, 4294967295),
    (4294967295, INT, -1),
    (300, UCHAR, 44),
    (-1, UCHAR, 255),
    (200, SCHAR, -56),
    (70000, SHORT, 4464),
    (-1, ULLONG, (1 << 64) - 1),
    (2.7, INT, 2),
    (-2.7, INT, -2),
    (5, C.BOOL, 1),
    (0, C.BOOL, 0),
]


def _unary_operand(op: str, t: C.IntType) -> C.IntType:
    return t if op == "!" else C.promoted(t)


@pytest.mark.parametrize("op,a,ta,b,tb,expected", BINARY_TABLE)
def test_binary_table(op, a, ta, b, tb, expected):
    assert C.binary(op, a, b, operation(op, ta, tb)) == expected


@pytest.mark.parametrize("op,a,t,expected", UNARY_TABLE)
def test_unary_table(op, a, t, expected):
    assert C.unary(op, a, _unary_operand(op, t)) == expected


@pytest.mark.parametrize("value,t,expected", CONVERSION_TABLE)
def test_conversion_table(value, t, expected):
    assert C.convert(value, t) == expected


def test_type_spellings():
    assert C.int_type("const unsigned int") == UINT
    assert C.int_type("std::size_t") == ULLONG
    assert C.int_type("uint8_t") == UCHAR
    assert C.int_type("long") == LLONG and C.int_type("long") != C.UNKNOWN_INTEGER
    assert C.int_type("bool") == C.BOOL
    for not_integer in ("float", "const float *", "__half", "uint4", "int2", "double"):
        assert C.int_type(not_integer) is None
    for unknown in ("T", "<dependent type>", "(unnamed enum at k.cu:3:1)", "index_t"):
        assert C.int_type(unknown) == C.UNKNOWN_INTEGER
    assert C.common_type(INT, UINT) == UINT
    assert C.common_type(LLONG, UINT) == LLONG
    assert C.common_type(ULLONG, INT) == ULLONG
    assert C.common_type(UCHAR, USHORT) == INT
    assert C.operation_type("<", "bool", "int", "unsigned int") == UINT
    assert C.operation_type("/", "unsigned int", "int", "unsigned int") == UINT


# -- the same rows computed by nvcc's code ------------------------------------------------------

def _literal(value: int, t: C.IntType) -> str:
    return f"(({C_NAMES[t]})({value}LL))" if value < (1 << 63) else f"(({C_NAMES[t]})({value}ULL))"


def _printed(expr: str, t: C.IntType) -> str:
    if t.is_bool or t.signed:
        return f'printf("%lld\\n", (long long)({expr}));'
    return f'printf("%llu\\n", (unsigned long long)({expr}));'


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_tables_agree_with_nvcc(tmp_path):
    """Every defined row of the tables, compiled by nvcc for the host and run."""
    lines = []
    expected = []
    for op, a, ta, b, tb, result in BINARY_TABLE:
        if result is None:
            continue
        expr = f"{_literal(a, ta)} {op} {_literal(b, tb)}"
        lines.append(_printed(expr, result_type(op, ta, tb)))
        expected.append(result)
    for op, a, t, result in UNARY_TABLE:
        lines.append(_printed(f"{op}{_literal(a, t)}", C.BOOL if op == "!" else C.promoted(t)))
        expected.append(result)
    for value, t, result in CONVERSION_TABLE:
        source = f"({value})" if isinstance(value, float) else _literal(value, ULLONG if value >= 0 else LLONG)
        lines.append(_printed(f"(({'bool' if t.is_bool else C_NAMES[t]}){source})", t))
        expected.append(result)
    program = tmp_path / "ops.cu"
    program.write_text("#include <cstdio>\nint main() {\n" + "\n".join("    " + line for line in lines)
                       + "\n    return 0;\n}\n")
    binary = tmp_path / "ops"
    subprocess.run(["nvcc", "-std=c++17", "-o", str(binary), str(program)], check=True,
                   capture_output=True)
    printed = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout.split()
    assert [int(v) for v in printed] == expected


# -- NumPy versions against the scalar ones -------------------------------------------------------

GRID = [0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 127, 128, 255, 256, 65535, 65536,
        2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1,
        -1, -2, -7, -8, -31, -32, -128, -129, -2**31, -2**31 - 1, -2**63]
GRID_TYPES = [SCHAR, UCHAR, SHORT, USHORT, INT, UINT, LLONG, ULLONG, C.BOOL]
BINARY_OPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!=",
              "&&", "||"]


def _fits_int64(v) -> bool:
    return v is None or -(1 << 63) <= v < (1 << 63)


@pytest.mark.parametrize("op", BINARY_OPS)
@pytest.mark.parametrize("t", GRID_TYPES, ids=str)
def test_vectorized_binary_agrees_with_scalar(op, t):
    xs = np.array(GRID, dtype=np.int64)
    for b in GRID:
        scalar = [C.binary(op, x, b, t) for x in GRID]
        vector = C.binary_array(op, xs, np.full(len(GRID), b, dtype=np.int64), t)
        if vector is None:
            # undefined for some element, or a value an int64 cannot hold
            assert any(v is None or not _fits_int64(v) for v in scalar), (op, t, b)
        else:
            assert vector.tolist() == scalar, (op, t, b)


@pytest.mark.parametrize("op", ["-", "+", "~", "!"])
@pytest.mark.parametrize("t", GRID_TYPES, ids=str)
def test_vectorized_unary_agrees_with_scalar(op, t):
    scalar = [C.unary(op, x, t) for x in GRID]
    vector = C.unary_array(op, np.array(GRID, dtype=np.int64), t)
    if vector is None:
        assert not all(_fits_int64(v) for v in scalar)
    else:
        assert vector.tolist() == scalar


@pytest.mark.parametrize("t", GRID_TYPES, ids=str)
def test_vectorized_conversion_agrees_with_scalar(t):
    scalar = [C.convert(x, t) for x in GRID]
    vector = C.convert_array(np.array(GRID, dtype=np.int64), t)
    if vector is None:
        assert not all(_fits_int64(v) for v in scalar)
    else:
        assert vector.tolist() == scalar


# -- the z3 encoding against the scalar ones (32-bit vectors: types of at most 32 bits) ----------

def _z3_value(z3, term, t: C.IntType):
    term = z3.simplify(term)
    if z3.is_bool(term):
        return int(z3.is_true(term))
    return term.as_signed_long() if t.signed else term.as_long()


Z3_OPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!="]
Z3_VALUES = [0, 1, 2, 7, 31, 32, 255, 65536, 2**31 - 1, 2**31, 2**32 - 1, -1, -7, -8, -2**31]


@pytest.mark.parametrize("op", Z3_OPS)
@pytest.mark.parametrize("t", [INT, UINT], ids=str)
def test_z3_encoding_agrees_with_scalar(op, t):
    z3 = pytest.importorskip("z3")
    for a in Z3_VALUES:
        for b in Z3_VALUES:
            expected = C.binary(op, a, b, t)
            if expected is None:
                continue  # undefined in C: the encoding may give anything
            a_term = z3.BitVecVal(C.convert(a, t), 32)
            b_term = z3.BitVecVal(b if op in C.SHIFTS else C.convert(b, t), 32)
            got = _z3_value(z3, C.z3_binary(z3, op, a_term, b_term, t), t)
            assert got == expected, (a, op, b, t)


@pytest.mark.parametrize("op,a,ta,b,tb,expected", [r for r in BINARY_TABLE if r[5] is not None
                                                   and r[1] is not None and r[0] not in C.LOGICAL
                                                   and max(r[2].bits, r[4].bits) <= 32])
def test_z3_encoding_of_the_table(op, a, ta, b, tb, expected):
    z3 = pytest.importorskip("z3")
    t = operation(op, ta, tb)
    a_term = z3.BitVecVal(C.convert(a, t), 32)
    b_term = z3.BitVecVal(b if op in C.SHIFTS else C.convert(b, t), 32)
    assert _z3_value(z3, C.z3_binary(z3, op, a_term, b_term, t), t) == expected


# -- the evaluators of lowered expressions use these definitions ----------------------------------

KERNEL = """
__global__ void k(int *out) {
    unsigned a = (unsigned)-1 / 2;
    int b = -7 / 2;
    unsigned c = ~0u >> 31;
    int d = (int)(0u - 16) / 4;
    unsigned e = -1 % 3u;
    int f = (unsigned char)300;
    long long g = 1LL << 40;
    int h = -1 < 1u;
    int m = (int)(threadIdx.x % 32 - 16) < 0;
    out[0] = a + b + c + d + e + f + g + h + m;
}
"""

KERNEL_VALUES = {"a": 2147483647, "b": -3, "c": 1, "d": -4, "e": 0, "f": 44, "g": 1 << 40, "h": 0}


def _lowered_kernel(tmp_path):
    from syncheck.frontend.parse import ParseOptions, parse_source
    from syncheck.ir.program import build_program
    path = tmp_path / "k.cu"
    path.write_text(KERNEL)
    program = build_program(parse_source(str(path), KERNEL.encode(), ParseOptions()))
    kernel = next(f for f in program.functions.values() if f.name == "k")
    inits = {n.decl.name: n.children[-1] for n in kernel.body.walk() if n.kind == "VAR_DECL"}
    return program, kernel, inits


def test_lowered_constants_fold_as_c_does(tmp_path):
    from syncheck.analyses.constants import integer_constant
    from syncheck.analyses.uniformity import UniformityService
    program, kernel, inits = _lowered_kernel(tmp_path)
    analysis = UniformityService(program).analyze(kernel)
    for name, expected in KERNEL_VALUES.items():
        assert analysis.values[inits[name].id].const == expected, name
    for name in ("a", "b", "c", "d", "f", "g"):  # the operators integer_constant folds
        assert integer_constant(inits[name]) == KERNEL_VALUES[name], name
    # lanes 0-15 of each warp have a negative signed offset
    lanes = analysis.values[inits["m"].id].per_thread
    assert lanes is not None and list(lanes)[:32] == [1] * 16 + [0] * 16


def test_z3_unsigned_division_by_a_power_of_two_is_a_shift():
    z3 = pytest.importorskip("z3")
    a, four = z3.BitVec("a", 32), z3.BitVecVal(4, 32)
    assert z3.eq(C.z3_binary(z3, "/", a, four, UINT), z3.LShR(a, 2))
    assert z3.eq(C.z3_binary(z3, "%", a, four, UINT), a & 3)
    assert z3.eq(C.z3_binary(z3, "<", a, four, UINT), z3.ULT(a, four))
    assert z3.eq(C.z3_binary(z3, "/", a, four, INT), a / four)


def test_z3_comparisons_of_a_signed_operand_converted_to_unsigned_stay_signed():
    """`threadIdx.x < r` of an int r: C compares unsigned, which lets every thread pass for a
    negative r; the encoder's symbols take negative values such a parameter never has."""
    assert C.z3_comparison_type("const unsigned int", "unsigned int") == UINT
    assert C.z3_comparison_type("unsigned int", "int") is None
    assert C.z3_comparison_type("int", "int") == INT
    assert C.z3_comparison_type("long long", "unsigned int") == LLONG


@pytest.mark.parametrize("op,a,ta,b,tb,expected", [r for r in BINARY_TABLE if r[5] is not None
                                                   and r[1] is not None and r[0] not in C.LOGICAL
                                                   and C.z3_bits(operation(r[0], r[2], r[4])) == 64])
def test_z3_encoding_of_unsigned_64_bit_operations(op, a, ta, b, tb, expected):
    """Operations in an unsigned 64-bit type are 64-bit vectors; narrower operands convert to
    the operation's width as C converts them (an unsigned value with zeros, a signed one with
    its sign)."""
    z3 = pytest.importorskip("z3")
    t = operation(op, ta, tb)
    bits = C.z3_bits(t)
    a_term = C.z3_convert(z3, z3.BitVecVal(C.convert(a, ta), C.z3_bits(ta)), ta, bits)
    b_term = C.z3_convert(z3, z3.BitVecVal(b if op in C.SHIFTS else C.convert(b, tb), C.z3_bits(tb)), tb, bits)
    assert _z3_value(z3, C.z3_binary(z3, op, a_term, b_term, t), t) == expected


def test_z3_size_t_product_does_not_wrap_at_32_bits(tmp_path):
    """`n * sizeof(S)` is a size_t product (64-bit on the device): for n = 2**27 and a 56-byte
    struct it is 7 * 2**30, which a 32-bit encoding would wrap to 3 * 2**30."""
    z3 = pytest.importorskip("z3")
    from syncheck.analyses.shared_memory import function_scope
    from syncheck.analyses.symbolic import Encoder, SharedSymbols, bitvector
    from syncheck.analyses.uniformity import UniformityService
    from syncheck.frontend.parse import ParseOptions, parse_source
    from syncheck.ir.program import build_program
    source = ("struct S { float a[14]; };\n"
              "__global__ void k(char* out, unsigned n) { unsigned long bytes = n * sizeof(S); out[bytes] = 0; }\n")
    path = tmp_path / "k.cu"
    path.write_text(source)
    program = build_program(parse_source(str(path), source.encode(), ParseOptions()))
    kernel = next(f for f in program.functions.values() if f.name == "k")
    init = next(n for n in kernel.body.walk() if n.kind == "VAR_DECL").children[-1]
    dims = tuple(bitvector(z3, f"blockDim.{a}") for a in "xyz")
    encoder = Encoder(1, SharedSymbols(), set(), dims, program)
    term = encoder.expr(init, function_scope(kernel, UniformityService(program).analyze(kernel), {}, program))
    assert term.size() == 64
    n = next(s for name, s in encoder.shared.items() if name.endswith("@n"))
    assert z3.simplify(z3.substitute(term, (n, z3.BitVecVal(1 << 27, 32)))).as_long() == 7 << 30
