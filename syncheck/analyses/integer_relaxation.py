"""A race query read over the integers, with no wrap-around.

The race queries are 32-bit bit-vector formulas, and a product of two run-time values
(`row * width`, `t * meqn * mwave`) makes the solver build a multiplier circuit: carved
buffers indexed by such products exhaust the query's budget, pair after pair. But the
analysis assumes that indices do not wrap around (races.SYMBOL_RANGE, _unwrapped_products),
and over the integers such a query is mostly linear: each product of unknowns becomes an
unknown of its own, tied to its factors by a few facts (signs, `a < b` and `c >= 0` give
`a * c + c <= b * c`). That relaxation admits every solution that does not wrap around (and
more), so when it has none, neither has the query: the pair is settled as the wrap-free
query would be. When it has one, the bit-vector query decides (which solution the integer
solver finds depends on the solver's history: a conflict taken from it would not be the same
in every run). Arithmetic that wraps around on purpose (a hash's
large multiplier, bits shifted out, a narrow type's truncation) is left as unknowns.
"""

from __future__ import annotations


class Untranslatable(Exception):
    """A term the relaxation does not read (arrays, floating point, quantifiers)."""


# A polynomial over the integers: monomial (the sorted ids of its factors; () for the
# constant) -> coefficient. Products of sums are multiplied out, so `(1 + k) * m * w` and
# `m * w * t` share the monomial `m * w` and its relation to them.
Polynomial = dict

# A product with more terms than this is one unknown of its own.
_MAX_TERMS = 64

# Multipliers (and shifts) this large are a hash's or a bit packing's, whose wrap-around is
# the point: their products are unknowns, not integers.
_LARGE = 1 << 16


class _Relaxation:
    def __init__(self, z3):
        self.z3 = z3
        self.memo: dict[int, object] = {}
        self.names: dict[str, object] = {}      # an unknown's name -> its integer
        self.functions: dict[str, object] = {}
        self.factors: dict[str, object] = {}    # a factor's text -> the factor (an integer term)
        self.monomials: dict[tuple, object] = {}  # a product of two or more factors -> its unknown
        self.atoms = 0
        self.facts: list = []

    # -- polynomials --
    def _factor_polynomial(self, x) -> Polynomial:
        z3 = self.z3
        x = z3.simplify(x)
        if z3.is_int_value(x):
            return {(): x.as_long()} if x.as_long() else {}
        # (keyed by its text, not by the term's id in this z3 context: the same query is the
        # same relaxation, in the same order, whatever the context saw before)
        key = x.sexpr()
        self.factors[key] = x
        return {(key,): 1}

    def _sum(self, *polys) -> Polynomial:
        out: Polynomial = {}
        for p in polys:
            for m, c in p.items():
                out[m] = out.get(m, 0) + c
        return {m: c for m, c in out.items() if c}

    def _scaled(self, p: Polynomial, k: int) -> Polynomial:
        return {m: c * k for m, c in p.items()} if k else {}

    def _times(self, p: Polynomial, q: Polynomial) -> Polynomial:
        if len(p) * len(q) > _MAX_TERMS:
            return self._factor_polynomial(self._product_unknown(self.z3_of(p), self.z3_of(q)))
        out: Polynomial = {}
        for m1, c1 in p.items():
            for m2, c2 in q.items():
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, 0) + c1 * c2
        return {m: c for m, c in out.items() if c}

    def _product_unknown(self, a, b):
        atom = self._atom()
        self.facts += [self.z3.Implies(self.z3.Or(a == 0, b == 0), atom == 0)]
        return atom

    def z3_of(self, p: Polynomial):
        z3 = self.z3
        terms = []
        for m, c in sorted(p.items()):
            if not m:
                terms.append(z3.IntVal(c))
                continue
            t = self._monomial(m)
            terms.append(t if c == 1 else c * t)
        if not terms:
            return z3.IntVal(0)
        return terms[0] if len(terms) == 1 else z3.Sum(*terms)

    def _monomial(self, m: tuple):
        if len(m) == 1:
            return self.factors[m[0]]
        if m not in self.monomials:
            z3 = self.z3
            unknown = z3.Int(f"relaxed product #{len(self.monomials)}")
            self.monomials[m] = unknown
            fs = [self.factors[i] for i in m]
            self.facts += [
                z3.Implies(z3.Or(*[f == 0 for f in fs]), unknown == 0),
                z3.Implies(z3.And(*[f >= 0 for f in fs]), unknown >= 0),
            ]
            for j, f in enumerate(fs):
                others = [g >= 1 for i, g in enumerate(fs) if i != j]
                self.facts.append(z3.Implies(z3.And(f >= 0, *others), unknown >= f))
        return self.monomials[m]

    def relate_products(self):
        """Products that differ in one factor (`a * F` and `b * F`, or `F` and `b * F`) are
        as far apart as their factors: `a < b` and `F >= 0` give `a * F + F <= b * F`."""
        z3 = self.z3
        done = set()
        keys = list(self.monomials)
        for m in keys:
            for i in range(len(m)):
                common = m[:i] + m[i + 1:]
                for other in [k for k in keys if k != m] + ([common] if len(common) >= 1 else []):
                    pair = (m, other)
                    if pair in done or (other, m) in done:
                        continue
                    rest = list(other)
                    try:
                        for f in common:
                            rest.remove(f)
                    except ValueError:
                        continue
                    if len(rest) > 1 or (rest and rest[0] == m[i]):
                        continue
                    done.add(pair)
                    a = self.factors[m[i]]
                    b = self.factors[rest[0]] if rest else z3.IntVal(1)
                    mine, theirs, shared = self._monomial(m), self._monomial(other), self._monomial(common)
                    self.facts += [
                        z3.Implies(z3.And(a < b, shared >= 0), mine + shared <= theirs),
                        z3.Implies(z3.And(b < a, shared >= 0), theirs + shared <= mine),
                        z3.Implies(a == b, mine == theirs),
                    ]

    # -- terms --
    def term(self, e) -> Polynomial:
        key = e.get_id()
        if key not in self.memo:
            self.memo[key] = self._term(e)
        return self.memo[key]

    def value(self, e):
        return self.z3_of(self.term(e))

    def _term(self, e) -> Polynomial:
        z3 = self.z3
        if z3.is_bv_value(e):
            v = e.as_signed_long()
            return {(): v} if v else {}
        if not z3.is_app(e):
            raise Untranslatable()
        k = e.decl().kind()
        args = e.children()
        factor = self._factor_polynomial
        if k == z3.Z3_OP_UNINTERPRETED:
            if not args:
                return factor(self._constant(e))
            return factor(self._function(e)(*[self._any(a) for a in args]))
        if k == z3.Z3_OP_BADD:
            return self._sum(*[self.term(a) for a in args])
        if k == z3.Z3_OP_BSUB:
            return self._sum(self.term(args[0]), self._scaled(self.term(args[1]), -1))
        if k == z3.Z3_OP_BNEG:
            return self._scaled(self.term(args[0]), -1)
        if k == z3.Z3_OP_BNOT:
            return self._sum(self._scaled(self.term(args[0]), -1), {(): -1})
        if k == z3.Z3_OP_BMUL:
            if any(z3.is_bv_value(a) and abs(a.as_signed_long()) >= _LARGE for a in args):
                return factor(self._atom())  # a hash's multiplier wraps around on purpose
            out = self.term(args[0])
            for a in args[1:]:
                out = self._times(out, self.term(a))
            return out
        if k in (z3.Z3_OP_BSDIV, z3.Z3_OP_BSDIV_I, z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I):
            c = self._positive_constant(args[1])
            if c is None:
                return factor(self._atom())
            x = self.value(args[0])
            return factor(z3.If(x >= 0, x / c, -((-x) / c)))  # C division truncates toward zero
        if k in (z3.Z3_OP_BSREM, z3.Z3_OP_BSREM_I, z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I):
            c = self._positive_constant(args[1])
            if c is None:
                return factor(self._atom())
            x = self.value(args[0])
            return factor(z3.If(x >= 0, x % c, -((-x) % c)))
        if k in (z3.Z3_OP_BSMOD, z3.Z3_OP_BSMOD_I):
            c = self._positive_constant(args[1])
            return factor(self.value(args[0]) % c if c is not None else self._atom())
        if k == z3.Z3_OP_BSHL:
            c = self._shift(args[1])
            if c is None or 1 << c >= _LARGE:
                return factor(self._atom())  # (bits shifted out on purpose: packing, hashing)
            return self._scaled(self.term(args[0]), 1 << c)
        if k in (z3.Z3_OP_BLSHR, z3.Z3_OP_BASHR):
            c = self._shift(args[1])
            return factor(self.value(args[0]) / (1 << c) if c is not None else self._atom())
        if k == z3.Z3_OP_BAND and len(args) == 2:
            return factor(self._masked(args))
        if k in (z3.Z3_OP_BAND, z3.Z3_OP_BOR, z3.Z3_OP_BXOR):
            return factor(self._atom())
        if k in (z3.Z3_OP_ZERO_EXT, z3.Z3_OP_SIGN_EXT):
            return self.term(args[0])
        if k == z3.Z3_OP_EXTRACT:
            high, low = e.params()
            if low == 0 and high + 1 >= 32:
                return self.term(args[0])  # a 64-bit index kept in 32 bits: no wrap-around
            if low == 0:
                return factor(self._atom())  # a narrow type (char, short) wraps on purpose
            return factor(self.value(args[0]) / (1 << low))
        if k == z3.Z3_OP_CONCAT:
            if len(args) == 2 and z3.is_bv_value(args[0]) and args[0].as_long() == 0:
                return self.term(args[1])
            return factor(self._atom())
        if k == z3.Z3_OP_ITE:
            return factor(z3.If(self.boolean(args[0]), self.value(args[1]), self.value(args[2])))
        raise Untranslatable()

    def _any(self, e):
        return self.boolean(e) if self.z3.is_bool(e) else self.value(e)

    def _constant(self, e):
        name = e.decl().name()
        if name not in self.names:
            if self.z3.is_bool(e):
                self.names[name] = self.z3.Bool(name)
            elif self.z3.is_bv(e):
                self.names[name] = self.z3.Int(name)
            else:
                raise Untranslatable()
        return self.names[name]

    def _function(self, e):
        z3 = self.z3
        decl = e.decl()
        name = decl.name()
        if name not in self.functions:
            sorts = []
            for i in range(decl.arity()):
                sorts.append(self._sort(decl.domain(i)))
            sorts.append(self._sort(decl.range()))
            self.functions[name] = z3.Function(name, *sorts)
        return self.functions[name]

    def _sort(self, sort):
        z3 = self.z3
        if sort.kind() == z3.Z3_BOOL_SORT:
            return z3.BoolSort()
        if sort.kind() == z3.Z3_BV_SORT:
            return z3.IntSort()
        raise Untranslatable()

    def _atom(self):
        self.atoms += 1
        return self.z3.Int(f"relaxed value #{self.atoms}")

    def _positive_constant(self, e) -> int | None:
        if self.z3.is_bv_value(e) and e.as_signed_long() > 0:
            return e.as_signed_long()
        return None

    def _shift(self, e) -> int | None:
        if self.z3.is_bv_value(e) and 0 <= e.as_long() < 64:
            return e.as_long()
        return None

    def _masked(self, args):
        """`x & (2^k - 1)` is x mod 2^k, `x & ~(2^k - 1)` is x less that; other masks an
        unknown (between 0 and a non-negative constant mask)."""
        z3 = self.z3
        for mask, other in ((args[1], args[0]), (args[0], args[1])):
            if not z3.is_bv_value(mask):
                continue
            m, bits = mask.as_long(), mask.size()
            if m & (m + 1) == 0:
                return self.value(other) % (m + 1)
            low = ((1 << bits) - 1) ^ m
            if low & (low + 1) == 0:
                x = self.value(other)
                return x - x % (low + 1)
            if mask.as_signed_long() >= 0:
                atom = self._atom()
                self.facts += [atom >= 0, atom <= mask.as_signed_long()]
                return atom
        return self._atom()

    # -- formulas --
    def boolean(self, e):
        key = e.get_id()
        if key not in self.memo:
            self.memo[key] = self._boolean(e)
        return self.memo[key]

    def _boolean(self, e):
        z3 = self.z3
        if z3.is_true(e):
            return z3.BoolVal(True)
        if z3.is_false(e):
            return z3.BoolVal(False)
        if not z3.is_app(e):
            raise Untranslatable()
        k = e.decl().kind()
        args = e.children()
        if k == z3.Z3_OP_UNINTERPRETED:
            return self._constant(e) if not args else self._function(e)(*[self._any(a) for a in args])
        if k == z3.Z3_OP_AND:
            return z3.And(*[self.boolean(a) for a in args])
        if k == z3.Z3_OP_OR:
            return z3.Or(*[self.boolean(a) for a in args])
        if k == z3.Z3_OP_NOT:
            return z3.Not(self.boolean(args[0]))
        if k == z3.Z3_OP_IMPLIES:
            return z3.Implies(self.boolean(args[0]), self.boolean(args[1]))
        if k == z3.Z3_OP_XOR:
            return z3.Xor(self.boolean(args[0]), self.boolean(args[1]))
        if k == z3.Z3_OP_ITE:
            return z3.If(self.boolean(args[0]), self.boolean(args[1]), self.boolean(args[2]))
        if k in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT):
            values = [self._any(a) for a in args]
            return values[0] == values[1] if k == z3.Z3_OP_EQ and len(values) == 2 else (
                z3.And(*[v == values[0] for v in values[1:]]) if k == z3.Z3_OP_EQ else z3.Distinct(*values))
        compare = {z3.Z3_OP_SLEQ: "<=", z3.Z3_OP_ULEQ: "<=", z3.Z3_OP_SLT: "<", z3.Z3_OP_ULT: "<",
                   z3.Z3_OP_SGEQ: ">=", z3.Z3_OP_UGEQ: ">=", z3.Z3_OP_SGT: ">", z3.Z3_OP_UGT: ">"}.get(k)
        if compare is not None:
            unsigned = k in (z3.Z3_OP_ULEQ, z3.Z3_OP_ULT, z3.Z3_OP_UGEQ, z3.Z3_OP_UGT)
            a, b = (self._compared(x, unsigned) for x in args)
            return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b}[compare]
        raise Untranslatable()

    def _compared(self, e, unsigned: bool):
        # a constant compared without sign is its unsigned value (`x < 0xFFFFFFFF`)
        if unsigned and self.z3.is_bv_value(e):
            return self.z3.IntVal(e.as_long())
        return self.value(e)


class Relaxed:
    """A query over the integers (``formulas``)."""

    def __init__(self, formulas: list):
        self.formulas = formulas


def relaxed(z3, assertions: list) -> Relaxed | None:
    """The assertions over the integers, products of unknowns as unknowns of their own with
    their facts; None where a term cannot be read so."""
    relaxation = _Relaxation(z3)
    try:
        out = [relaxation.boolean(a) for a in assertions]
        relaxation.relate_products()
    except (Untranslatable, z3.Z3Exception):
        return None
    return Relaxed(out + relaxation.facts)


def multiple_of(z3, term, factor) -> bool:
    """Is ``term`` a multiple of ``factor`` written as a product (`inc * m * w` of `m * w`,
    `n` of `n`), its products multiplied out? A constant factor or a sum is not judged."""
    relaxation = _Relaxation(z3)
    try:
        whole, part = relaxation.term(term), relaxation.term(factor)
    except (Untranslatable, z3.Z3Exception):
        return False
    if len(part) != 1 or () in part or not whole:
        return False
    (monomial, coefficient), = part.items()
    for m, c in whole.items():
        rest = list(m)
        try:
            for f in monomial:
                rest.remove(f)
        except ValueError:
            return False
        if c % coefficient:
            return False
    return True
