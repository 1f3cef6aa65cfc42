"""C integer operators: the one definition of what an operator computes, for every evaluator
of lowered expressions (constant folding in constants.py and uniformity.fold, the per-thread
NumPy values of per_thread.py, the z3 encoding of symbolic.py).

A value is a Python int holding what its C type holds: unsigned types in [0, 2**bits), signed
ones in [-2**(bits-1), 2**(bits-1)). Results wrap around to the type's width (two's
complement for signed types, as nvcc's code does and C++20 defines for conversions).
Division truncates toward zero and `%` keeps the dividend's sign; `>>` of a signed value is
arithmetic, of an unsigned one logical. What C leaves undefined and a fold must not invent
is None: division by zero, a shift by a negative amount or by the type's width or more.

The lowered trees keep explicit casts but not the implicit conversions, so an operator
converts its operands to the type it is carried out in (``operation_type``): the usual
arithmetic conversions of both operands' types for comparisons, the expression's own type
for the others (for a shift, the promoted left operand's).
"""

from __future__ import annotations

import re

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class IntType:
    bits: int      # 1 for bool
    signed: bool
    known: bool = True  # False: a spelling of no type this module knows (UNKNOWN_INTEGER)

    @property
    def is_bool(self) -> bool:
        return self.bits == 1


BOOL = IntType(1, False)
INT = IntType(32, True)
UNSIGNED_INT = IntType(32, False)
# A spelling that names no type this module knows (a template parameter, a typedef of the
# project): a wide signed integer, so that its values are not cut where the real type may
# be wider (which is what every evaluator did before they shared these definitions).
UNKNOWN_INTEGER = IntType(64, True, known=False)

_NAMED = {
    "bool": BOOL, "_Bool": BOOL,
    "char": IntType(8, True), "signed char": IntType(8, True), "unsigned char": IntType(8, False),
    "int8_t": IntType(8, True), "uint8_t": IntType(8, False),
    "short": IntType(16, True), "short int": IntType(16, True), "signed short": IntType(16, True),
    "unsigned short": IntType(16, False), "unsigned short int": IntType(16, False),
    "int16_t": IntType(16, True), "uint16_t": IntType(16, False), "char16_t": IntType(16, False),
    "int": INT, "signed": INT, "signed int": INT, "int32_t": INT,
    "unsigned": UNSIGNED_INT, "unsigned int": UNSIGNED_INT, "uint32_t": UNSIGNED_INT,
    "uint": UNSIGNED_INT, "char32_t": UNSIGNED_INT,
    "long": IntType(64, True), "long int": IntType(64, True), "long long": IntType(64, True),
    "long long int": IntType(64, True), "int64_t": IntType(64, True), "ptrdiff_t": IntType(64, True),
    "intptr_t": IntType(64, True), "ssize_t": IntType(64, True),
    "unsigned long": IntType(64, False), "unsigned long int": IntType(64, False),
    "unsigned long long": IntType(64, False), "unsigned long long int": IntType(64, False),
    "uint64_t": IntType(64, False), "size_t": IntType(64, False), "uintptr_t": IntType(64, False),
}

_FLOATING = ("float", "double", "half", "bfloat")

_VECTOR_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong",
                 "ulonglong", "float", "double")

_QUALIFIERS = ("const", "volatile", "__restrict__", "__restrict", "struct", "enum")


def is_floating(spelling: str) -> bool:
    """Does the type spelling name a floating-point value (not a pointer to one)?"""
    name = spelling.split("::")[-1].lower()
    return "*" not in spelling and any(f in name for f in _FLOATING)


def is_pointer_type(spelling: str) -> bool:
    """A pointer type's spelling (`Map *`, `float *const __restrict__`)."""
    t = spelling.strip()
    for qualifier in ("const", "volatile", "__restrict__", "__restrict", "restrict"):
        if t.endswith(qualifier):
            t = t[:-len(qualifier)].rstrip()
    return t.endswith("*")


def is_array_type(spelling: str) -> bool:
    """An array type's spelling (`float [4]`, `int [8][8]`), not a pointer or reference to
    an array (`float (*)[4]`, `int (&)[8]`), whose variable holds an address."""
    return "[" in spelling and not re.search(r"\(\s*[*&]", spelling)


def array_extents(spelling: str) -> list[int | None]:
    """The extents an array type's spelling names, outermost first (`int [8][4]` -> [8, 4];
    an unsized one, `[]`, is None)."""
    return [int(m) if m else None for m in re.findall(r"\[(\d*)\]", spelling)]


def int_type(spelling: str) -> IntType | None:
    """The integer type a type spelling names; None for a type that is not an integer
    (floating point, pointers, CUDA vector types such as uint4). A spelling of no known
    type (a template parameter, a typedef or enum of the project) is UNKNOWN_INTEGER."""
    if spelling.startswith("("):
        return UNKNOWN_INTEGER  # `(unnamed enum at file:line:col)`
    words = [w for w in spelling.replace("::", " ").split() if w not in _QUALIFIERS and w != "std"]
    name = " ".join(words)
    known = _NAMED.get(name)
    if known is not None:
        return known
    if "*" in name or "&" in name or any(f in name for f in _FLOATING) or \
            name[-1:].isdigit() and name.rstrip("0123456789") in _VECTOR_BASES:
        return None
    # whole words: cuDF's `size_type` is a 32-bit int, not a size_t
    if "unsigned" in words or "size_t" in words or name.startswith("uint"):
        return IntType(64, False) if "long" in words or "size_t" in words or "64" in name else UNSIGNED_INT
    return UNKNOWN_INTEGER


def promoted(t: IntType) -> IntType:
    """Integer promotion: types narrower than int compute as int."""
    return INT if t.bits < 32 else t


def common_type(a: IntType, b: IntType) -> IntType:
    """The usual arithmetic conversions of two integer operands."""
    a, b = promoted(a), promoted(b)
    if a.signed == b.signed:
        return a if a.bits >= b.bits else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    if unsigned.bits >= signed.bits:
        return unsigned
    return signed  # a wider signed type holds every value of the unsigned one


COMPARISONS = ("<", ">", "<=", ">=", "==", "!=")
LOGICAL = ("&&", "||")
SHIFTS = ("<<", ">>")


def operation_type(op: str, result_spelling: str, left_spelling: str, right_spelling: str) -> IntType | None:
    """The type an operator of a lowered expression is carried out in."""
    if op in COMPARISONS:
        left, right = int_type(left_spelling), int_type(right_spelling)
        if left is None or right is None:
            return None
        return common_type(left, right)
    return int_type(result_spelling)


def convert(value, t: IntType):
    """A value converted to integer type t (C's conversions; a floating value truncates)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        if t.is_bool:
            return int(value != 0)
        value = int(value)
    if t.is_bool:
        return int(value != 0)
    value &= (1 << t.bits) - 1
    if t.signed and value >> (t.bits - 1):
        value -= 1 << t.bits
    return value


def _truncating_division(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def binary(op: str, a: int, b: int, t: IntType) -> int | None:
    """``a op b`` for an operator carried out in type t (see ``operation_type``): 0 or 1 for
    comparisons and `&&`/`||`, else a value of t. None where C leaves it undefined."""
    if op in LOGICAL:
        return int(bool(a) and bool(b)) if op == "&&" else int(bool(a) or bool(b))
    if t.is_bool:
        t = INT  # bool operands are promoted to int (a compound assignment's result converts back)
    a = convert(a, t)
    if op in SHIFTS:
        if b < 0 or b >= t.bits:
            return None
        return convert(a << b if op == "<<" else a >> b, t)
    b = convert(b, t)
    if op in COMPARISONS:
        return int({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op])
    if op in ("/", "%"):
        if b == 0:
            return None
        q = _truncating_division(a, b)
        return convert(q if op == "/" else a - b * q, t)
    arithmetic = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                  "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b}.get(op)
    return None if arithmetic is None else convert(arithmetic(), t)


def unary(op: str, a: int, t: IntType) -> int | None:
    """``op a`` for `-`, `+`, `~` and `!`; t is the expression's (promoted) type."""
    if op == "!":
        return int(a == 0)
    if t.is_bool:
        t = INT
    a = convert(a, t)
    if op == "-":
        return convert(-a, t)
    if op == "+":
        return a
    if op == "~":
        return convert(~a, t)
    return None


# -- the same operators over NumPy arrays, one C value per element --------------------------
# Arrays are int64; each operator computes in the NumPy dtype of its C type, whose machine
# arithmetic wraps as C's does. A result an int64 cannot hold (an unsigned 64-bit value of
# 2**63 or more) gives None, as the per-thread values hold int64.

_INT64_MAX = (1 << 63) - 1


def _dtype(t: IntType) -> np.dtype:
    return np.dtype(f"{'' if t.signed else 'u'}int{t.bits}")


def _as_int64(values: np.ndarray) -> np.ndarray | None:
    if values.dtype == np.uint64 and (values > _INT64_MAX).any():
        return None
    return values.astype(np.int64)


def convert_array(xs: np.ndarray, t: IntType) -> np.ndarray | None:
    if t.is_bool:
        return (xs != 0).astype(np.int64)
    return _as_int64(xs.astype(_dtype(t)))


_ARRAY_COMPARISONS = {"<": np.less, ">": np.greater, "<=": np.less_equal, ">=": np.greater_equal,
                      "==": np.equal, "!=": np.not_equal}
_ARRAY_ARITHMETIC = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and,
                     "|": np.bitwise_or, "^": np.bitwise_xor}


def binary_array(op: str, xs: np.ndarray, ys: np.ndarray, t: IntType) -> np.ndarray | None:
    """``binary`` element by element over two int64 arrays; None where any element's result
    is undefined."""
    if op in LOGICAL:
        both = (xs != 0) & (ys != 0) if op == "&&" else (xs != 0) | (ys != 0)
        return both.astype(np.int64)
    if t.is_bool:
        t = INT
    dtype = _dtype(t)
    with np.errstate(all="ignore"):
        a = xs.astype(dtype)
        if op in SHIFTS:
            if (ys < 0).any() or (ys >= t.bits).any():
                return None
            amounts = ys.astype(dtype)
            if op == ">>":
                return _as_int64(np.right_shift(a, amounts))  # arithmetic when signed
            # shifted as the unsigned bits, so a signed value wraps instead of overflowing
            unsigned = _dtype(IntType(t.bits, False))
            return _as_int64(np.left_shift(a.view(unsigned), amounts.view(unsigned)).view(dtype))
        b = ys.astype(dtype)
        if op in _ARRAY_COMPARISONS:
            return _ARRAY_COMPARISONS[op](a, b).astype(np.int64)
        if op in ("/", "%"):
            if (b == 0).any():
                return None
            q = np.floor_divide(a, b)
            if t.signed:
                # floor differs from truncation where the division is inexact and the
                # operands' signs differ
                q = q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0))).astype(dtype)
            return _as_int64(q if op == "/" else a - b * q)
        fn = _ARRAY_ARITHMETIC.get(op)
        return None if fn is None else _as_int64(fn(a, b))


def unary_array(op: str, xs: np.ndarray, t: IntType) -> np.ndarray | None:
    if op == "!":
        return (xs == 0).astype(np.int64)
    if t.is_bool:
        t = INT
    with np.errstate(all="ignore"):
        a = xs.astype(_dtype(t))
        if op == "-":
            return _as_int64(np.negative(a))
        if op == "+":
            return _as_int64(a)
        if op == "~":
            return _as_int64(np.invert(a))
    return None


# -- the same operators as z3 bit-vector terms ------------------------------------------------
# The symbolic layer encodes a value of an unsigned 64-bit type (size_t, unsigned long, uint64_t:
# sizes, byte counts and offsets, where sizeof's results live; nvcc's device code is LP64) in a
# 64-bit vector: such arithmetic wraps at 2**64 in C, never at 2**32. Every other integer is a
# 32-bit vector: narrower types compute as int; a spelling of no known type stays 32-bit; so
# do signed 64-bit types, whose overflow C leaves undefined: real code uses them for products
# it divides right away (`(long long)a * b / c`), and 64-bit signed division costs the solver
# far more than its budget allows (a race pair of the dev set went undecided). Operands convert
# to the operation's type as C converts them; the type's signedness picks the operator.

def z3_bits(t: IntType | None) -> int:
    """The width of the bit-vector that encodes a value of type t (see above)."""
    return 64 if t is not None and t.known and t.bits == 64 and not t.signed else 32


def z3_convert(z3, term, source: IntType | None, bits: int):
    """A term of type ``source`` converted to a ``bits``-wide vector as C converts integers:
    narrowing keeps the low bits, widening extends an unsigned value with zeros and a signed
    one with its sign. A term of unknown type (a symbol standing for a value) keeps its value:
    its sign is extended."""
    size = term.size()
    if size == bits:
        return term
    if size > bits:
        return z3.Extract(bits - 1, 0, term)
    if source is not None and source.known and not source.signed:
        return z3.ZeroExt(bits - size, term)
    return z3.SignExt(bits - size, term)


def z3_wrapped(z3, term, t: IntType):
    """``term`` as a value of type t holds it: a char or short type (encoded in 32 bits, see
    z3_bits) keeps the low 8 or 16 bits, extended by its sign (`(unsigned char)(v >> 8)` is
    0 to 255, a valid index of a 256-entry table)."""
    if not t.known or not 8 <= t.bits < 32 or term.size() <= t.bits:
        return term
    low = z3.Extract(t.bits - 1, 0, term)
    grow = z3.SignExt if t.signed else z3.ZeroExt
    return grow(term.size() - t.bits, low)


def z3_comparison_type(left_spelling: str, right_spelling: str) -> IntType | None:
    """The type the z3 encoding compares two operands in: C's, except where a signed operand
    converts to unsigned (`threadIdx.x < r` of an int r). The encoder's symbols range over
    negative values that such a parameter (a radius, a count) never holds in a program that
    compares it with an index, and C's comparison would let every thread pass the test for
    them; compared signed, the two agree on every value the parameter has."""
    t = operation_type("<", "", left_spelling, right_spelling)
    if t is None or t.signed:
        return t
    if any(side is not None and side.signed for side in (int_type(left_spelling), int_type(right_spelling))):
        return None
    return t


def z3_binary(z3, op: str, a, b, t: IntType | None):
    unsigned = t is not None and not t.signed and not t.is_bool
    if op in ("/", "%") and unsigned:
        divisor = _constant(z3, b)
        if divisor is not None and divisor > 0 and divisor & (divisor - 1) == 0:
            # the same value as UDiv/URem, as bit operations the solver decides far faster
            return z3.LShR(a, divisor.bit_length() - 1) if op == "/" else a & (divisor - 1)
        return z3.UDiv(a, b) if op == "/" else z3.URem(a, b)
    if op == "/":
        return a / b
    if op == "%":
        return z3.SRem(a, b)
    if op == ">>":
        return z3.LShR(a, b) if unsigned else a >> b
    if op in COMPARISONS:
        if unsigned and op not in ("==", "!="):
            return {"<": z3.ULT, "<=": z3.ULE, ">": z3.UGT, ">=": z3.UGE}[op](a, b)
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "&": lambda: a & b,
            "|": lambda: a | b, "^": lambda: a ^ b, "<<": lambda: a << b}[op]()


def _constant(z3, term) -> int | None:
    term = z3.simplify(term)
    return term.as_long() if z3.is_bv_value(term) else None
