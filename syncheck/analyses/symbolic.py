"""The symbolic layer: expressions of a kernel over two symbolic threads, as z3 terms.

One encoding of index expressions, guards and conditions (thread and block indices, the
block shape, loop counters and inductions, kernel parameters, template arguments folded to
constants, launch relations) shared by every analysis that asks "can two threads differ?":
the race rules (races.py), the proofs that a thread-dependent-looking decision is the same
for every thread of a block or warp (used by the divergence service), and the lane sets of
run-time warp masks (SYN202). Limits are z3 resource units, never seconds, so answers do not
depend on machine load.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from syncheck.analyses import c_semantics as C
from syncheck.analyses.levels import GROUP_THREADS, Level
from syncheck.analyses.reaching_definitions import ASSIGN_OPS, COMPOUND_ASSIGN_OPS, INCOMING
from syncheck.analyses.shared_memory import Scope, field_binding
from syncheck.analyses.solver_context import drop_side_context
from syncheck.analyses.uniformity import UniformityService
from syncheck.ir.calls import bound_arguments, call_args, is_default_argument, template_bindings
from syncheck.ir.nodes import (LANE_ID, POINTER_WRAPPERS, Node, asm_written_operands, lane_id_target, names_declaration,
                               referenced_keys, strip_wrappers)
from syncheck.ir.program import Function, Program, written_reference_arguments

_Z3 = None


@dataclass
class NextIteration:
    """What changes from one iteration of a loop to the next: var key -> its one update in
    the loop (None: updated in several places), for variables declared outside it."""

    updates: dict[str, Node | None]
    # the loop assigns through a reference (which may name any variable), and the variables
    # it hands to calls (which may change them)
    through_references: bool = False
    handed: frozenset[str] = frozenset()

    def keeps(self, key: str) -> bool:
        """Does the variable keep its value from one iteration to the next (the loop changes
        it neither by name, nor through a reference, nor in a call it is handed to)?"""
        return key not in self.updates and not self.through_references and key not in self.handed


def _strip(node: Node) -> Node:
    return strip_wrappers(node, POINTER_WRAPPERS)


def z3_module():
    global _Z3
    if _Z3 is None:
        import z3
        _Z3 = z3
    return _Z3


BITS = 32


# Symbols other than thread indices stay in this range, so that index arithmetic cannot wrap
# around and invent collisions (indices are assumed not to overflow).
SYMBOL_RANGE = 1 << 20

# What a proof may take as an unknown value when the encoder cannot model it.
_MODELLED_AS_UNKNOWN = ("ARRAY_SUBSCRIPT_EXPR", "UNARY_OPERATOR", "MEMBER_REF_EXPR", "CALL_EXPR",
                        "DECL_REF_EXPR")
# Unknowns that are bit masks over a warp's lanes (a ballot): every 32-bit value, not small.
WHOLE_WORD = "ballot "


# A context made ahead of the analysis that will use it (prepare_solver_context).
_spare_context = None


def fresh_solver_context() -> None:
    """Start a new z3 context: z3 keeps caches per context, so the same query under the same
    resource budget can be decided or not depending on the queries before it. A context made
    ahead and not used since is as fresh."""
    global _spare_context
    drop_side_context()
    if _Z3 is not None:
        import z3.z3 as core
        core._main_ctx, _spare_context = _spare_context, None


def prepare_solver_context() -> None:
    """Release the last analysis's context and make the next one's now (a language server's
    worker, between edits: making one is a few milliseconds of an analysis otherwise)."""
    global _spare_context
    z3 = z3_module()
    import z3.z3 as core
    drop_side_context()
    core._main_ctx = None
    if _spare_context is None:
        _spare_context = z3.Context()


def bitvector(z3, name: str):
    return z3.BitVec(name, BITS)


def constant_term(z3, v: int, bits: int = BITS):
    return z3.BitVecVal(v, bits)


# Deterministic solver budget (z3 resource units, not seconds): the same query gets the same
# answer on a loaded machine. Queries seen on real code use at most ~1.4M units.
RESOURCE_LIMIT = 4_000_000


# A loop's trip count is bounded (the solver's search stays small) but never below what a
# loop of a constant bound runs: `for (k = 0; k < 128; ++k)` must be able to end (with 64, a
# race in its last iteration could not be).
_MAX_TRIPS = 1 << 16

# Proofs that a decision is uniform only remove findings, so they get a smaller budget.
PROOF_LIMIT = 1_000_000


# A pair the solver could not decide within the budget (reported in a note, never a finding).
UNDECIDED = "undecided"


# How the race pairs of this process were decided (read by bench/phases.py): by a check
# without the solver ("fast: ..."), or by the solver ("solver: sat|unsat|unknown|not encoded");
# and the proofs that a decision is the same for every thread ("proof fast: ...", "proof
# solver: ...").
PAIR_COUNTS: dict[str, int] = {}


def count_decision(what: str) -> None:
    PAIR_COUNTS[what] = PAIR_COUNTS.get(what, 0) + 1


# A local set in more places than this is read as an unknown of its own (each value costs the
# solver a case).
_MAX_MERGED_DEFINITIONS = 4
# Expressions that assign inside a definition's value (`a = b = 0`): not one plain value.
_ASSIGNMENT_KINDS = ("COMPOUND_ASSIGNMENT_OPERATOR",)

# Symbols whose values the encoding constrains exactly: iteration and trip counts of loops
# (bounded by their tests) and the block shape.
_EXACT_SYMBOLS = ("iter:", "trip:", "blockDim.")


class NotEncodable(Exception):
    """An expression the encoder cannot represent."""


class MergedDefinitions(NotEncodable):
    """A thread's local that several definitions reach (set in branches on the thread's
    indices): its value there is the thread's own, unknown here."""


class SharedSymbols(dict):
    """The symbols two threads' encoders share (name -> term), and the tags their scopes
    get in symbol names: numbered in the order the encoders meet them, so the names, and
    with them z3's search, are the same on every run (an object's address is not)."""

    def __init__(self):
        super().__init__()
        self.scope_tags: dict[int, tuple[int, object]] = {}
        # The applications of argument-only helpers met so far (helper key -> [(argument
        # terms, value)]), for their one-to-one facts.
        self.helper_values: dict[str, list] = {}

    def tag(self, scope) -> int:
        entry = self.scope_tags.get(id(scope))
        if entry is None:
            # the scope is kept with its tag, so its address is not reused by another one
            entry = self.scope_tags[id(scope)] = (len(self.scope_tags), scope)
        return entry[0]


class Encoder:
    def __init__(self, thread: int, shared: SharedSymbols, varying_vars: set[str], dims, program: Program,
                 next_iteration: "NextIteration | None" = None, thread_shifts: bool = False):
        self.z3 = z3_module()
        self.program = program
        # Shifts by amounts computed from thread indices (lane masks); the amounts are then
        # bounded by the block shape, so the solver cannot invent values.
        self.thread_shifts = thread_shifts
        # This thread runs one iteration of a loop later than the other thread.
        self.next_iteration = next_iteration
        self._advancing: set[str] = set()
        self.t = thread
        self.shared = shared        # symbols common to both threads
        self.varying = varying_vars  # loop variables that may differ between the two threads
        self.dims = dims             # (bdx, bdy, bdz) z3 terms
        self.tid = [bitvector(self.z3, f"t{thread}.{a}") for a in "xyz"]
        self.private: dict[str, object] = {}
        self.iteration_counters: list = []
        # Constraints that come with the terms made (what a loop's trip count satisfies).
        self.facts: list = []
        # symbols of fields of by-value struct parameters -> (the struct's type, the field path)
        self.parameter_members: dict[str, tuple[str, str]] = {}
        # symbols of locals assigned in several places, none of whose values was followed: one
        # value for the block, but any value
        self.merged_unknowns: set[str] = set()
        self._trips: dict[str, object] = {}
        # Iteration counts fixed while a loop's test is evaluated at its trip count.
        self.counter_override: dict[str, object] = {}
        # Loops (statement ids) this thread is in the last iteration of.
        self.last_iterations: set[int] = set()
        # Comparisons of two values loaded from memory are free decisions of each thread
        # (the race check: some input takes them); otherwise they are not encodable.
        self.free_data_decisions = False
        self._data_decisions: dict[tuple[int, int], object] = {}
        # How many tests the input decides were encoded (see _input_test).
        self.input_tests = 0
        # In a proof that a decision is the same for every thread of a group of this many
        # threads: values the encoder cannot model are unknowns (see _unknown_in_proof).
        self.proof_group: int | None = None
        # The uniformity service, in a proof: a helper's returned expression is then read in
        # the helper's own analysis for this call (see _returned_in_context).
        self.service: UniformityService | None = None
        self._proof_unknowns: dict[tuple[int, int], str] = {}
        # While an access's guards or (once plain encoding failed) its indices are encoded:
        # values the encoder cannot model that are the same over a warp or the block are
        # unknowns of it (see _group_unknown). An unknown of a warp could name one element for
        # two warps, so pairs that make one are judged within a warp only (unless the access
        # reads at a loaded position: any element already, see loaded_index).
        self.group_unknowns: str | None = None  # "guard" or "index" while it is on
        self.warp_unknowns_made = 0
        # Set where an index needed unknowns of a group: the pair is judged within a warp only.
        self.index_unknowns = False
        # Set where a read's index is a position loaded from memory: it may name any element,
        # whatever bound an unknown of its warp puts on the thread (see races._index_term).
        self.loaded_index = False
        # The race query pairs one statement with itself (a store's writes by two threads).
        self.pairs_one_statement = False
        self.group_unknown_terms: list = []  # the unknowns _group_unknown made, in order
        # Whether a thread's local that several definitions reach reads as one of their values
        # (_one_of_definitions). Off for decisions: a flag set where a thread finds something
        # (`if (found != -1) s = found;`) is set for one thread by the data, which no value of
        # ours tells; such decisions stay each thread's own (MergedDefinitions).
        self.one_of_definitions = True
        # While a test of values read from memory is encoded: loads are values of memory.
        self._loads_as_values = False
        # Shuffles encoded so far (each reads a lane of its own symbols).
        self._shuffles = 0
        # (function, variable) -> the constants a local takes, None where unknown
        self._value_sets: dict[tuple[str, str], set[int] | None] = {}

    def scope_tag(self, scope: Scope) -> str:
        return f"s{self.shared.tag(scope)}"

    def sym(self, name: str, per_thread: bool):
        if per_thread:
            key = f"{name}#{self.t}"
            if key not in self.private:
                self.private[key] = bitvector(self.z3, key)
            return self.private[key]
        if name not in self.shared:
            self.shared[name] = bitvector(self.z3, name)
        return self.shared[name]

    def linear(self):
        return self._linear_of(self.tid)

    def expr(self, node: Node, scope: Scope, depth: int = 0):
        """The value of an integer expression, in the width its C type is encoded in (see
        c_semantics.z3_bits), through the casts around it."""
        try:
            term = self._expr(node, scope, depth)
        except NotEncodable:
            if self.proof_group is not None:
                term = self._unknown_in_proof(node, scope)
            elif self.group_unknowns:
                term = self._group_unknown(node, scope)
            else:
                raise
        chain = [node]
        while chain[-1].kind in POINTER_WRAPPERS and chain[-1].children:
            chain.append(chain[-1].children[-1])
        source = None  # the innermost value's width follows its type, keeping its value
        for n in reversed(chain):
            t = C.int_type(n.type) if n.type else None
            if t is None:
                continue  # a pointer or floating wrapper: the value passes through
            term = C.z3_wrapped(self.z3, C.z3_convert(self.z3, term, source, C.z3_bits(t)), t)
            source = t
        return term

    def _unknown_in_proof(self, node: Node, scope: Scope):
        """A value the encoder cannot model (a load, a call, a variable set in branches), in a
        proof: any value at all, so what is proved holds for the real one too. The two threads
        share it where the uniformity analysis finds it the same over the proof's group (a
        warp's shuffle reduction, in a proof over one warp); otherwise each has its own."""
        n = _unknown_candidate(node)
        value = scope.analysis.values.get(n.id)
        shared = value is not None and GROUP_THREADS[value.level] >= self.proof_group
        key = (n.id, self.shared.tag(scope))  # (the tag keeps the scope: its address is not reused)
        if key not in self._proof_unknowns:  # named in the order met: the same on every run
            self._proof_unknowns[key] = f"unknown {len(self._proof_unknowns)} at {n.id}"
        term = self.sym(self._proof_unknowns[key], per_thread=not shared)
        self.facts += [term > -SYMBOL_RANGE, term < SYMBOL_RANGE]  # small, as every unknown
        literals = _literal_values(n, scope, self.program)
        if literals:  # a flag set to constants in places (`uniq = 1; ... uniq = 0;`): one of them
            self.facts.append(self.z3.Or(*[term == C.z3_convert(self.z3, constant_term(self.z3, v), None,
                                                                term.size()) for v in literals]))
        return term

    def _dependent_size(self, node: Node, scope: Scope):
        """`sizeof(typename E::param_type)` in a template whose instance is not known here: the
        type's one unknown size (see size_of_type); alignof and the like, one unknown each.
        Where the code computes with it (`&s_data[n * sizeof(P)]`, `tx * 4 / sizeof(T)`), it
        is taken to be the size of a scalar a kernel template is instantiated with, 1, 2 or
        4 bytes: a conflict that only a larger type would make is its instance's to show,
        and parts laid out by it stay apart whatever it is."""
        words = node.spelling.split()
        if len(words) > 3 and words[0] == "sizeof" and words[1] == "(" and words[-1] == ")":
            size = self.size_of_type("".join(words[2:-1]))
            self.facts.append(self.z3.Or(size == 1, size == 2, size == 4))
            return size
        term = self.sym("".join(words), per_thread=False)
        self.facts += [term >= 1, term < SYMBOL_RANGE]
        return term

    def size_of_type(self, spelling: str):
        """The size of a type the compiler has not laid out here (a dependent type): one
        unknown of at least one byte per spelling, shared by both threads and by every
        `sizeof` and element of that type (spaces do not count: `Foo<T, 4>` is `Foo<T,4>`)."""
        term = self.sym(f"sizeof {''.join(spelling.split())}", per_thread=False)
        self.facts += [term >= 1, term < SYMBOL_RANGE]
        return term

    def _group_unknown(self, node: Node, scope: Scope):
        """In a race check's guard or index, a value the encoder cannot model (a call, a variable set in a
        loop) that the uniformity analysis finds the same over a warp or the block (the lane a
        warp picks from a ballot, `__ffs(mask) - 1`): one unknown of the warp (or block), so
        two threads of one warp at this point see the same value and differ only by their own
        indices. Where the two threads may be in different iterations of a loop that sets
        it, each has its own. (Pairs under an unknown of a warp are judged within a warp
        only: an unknown bound could take a thread past its warp's part of a carved buffer.)"""
        n = _unknown_candidate(node)
        value = scope.analysis.values.get(n.id)
        if value is None or value.level > Level.WARP:
            raise NotEncodable()
        if value.level > Level.BLOCK:
            self.warp_unknowns_made += 1
        name = f"{value.level.name.lower()} value {n.id} {self.scope_tag(scope)}"
        apart = self.next_iteration is not None or any(
            r.kind == "DECL_REF_EXPR" and r.decl is not None and r.decl.key in self.varying for r in n.walk())
        if apart and self.next_iteration is not None and self.group_unknowns == "index":
            # in an index, one iteration's fill level against the next one's: any two values,
            # which would make every element of the part meet
            raise NotEncodable()
        if apart:
            term = self.sym(name, per_thread=True)
        elif value.level <= Level.BLOCK:
            term = self.sym(name, per_thread=False)
        else:
            sort = self.z3.BitVecSort(BITS)
            term = self.z3.Function(name, sort, sort)(self.linear() / 32)
        self.facts += [term > -SYMBOL_RANGE, term < SYMBOL_RANGE]  # small, as every unknown
        self.group_unknown_terms.append(term)
        return term

    def _as_type_of(self, term, value: Node, target: Node):
        """``term``, the value of ``value``, as the variable ``target`` holds it (C converts a
        definition's value to the variable's type)."""
        t = C.int_type(target.type) if target.type else None
        if t is None:
            return term
        return C.z3_wrapped(self.z3, C.z3_convert(self.z3, term, C.int_type(value.type) if value.type else None,
                                                   C.z3_bits(t)), t)

    def _expr(self, node: Node, scope: Scope, depth: int = 0):
        z3 = self.z3
        if depth > 40:
            raise NotEncodable()
        node = _strip(node) if node.kind != "PAREN_EXPR" else node
        k = node.kind
        if k == "PAREN_EXPR":
            return self.expr(node.children[-1], scope, depth + 1)
        if k in ("INTEGER_LITERAL", "CHARACTER_LITERAL", "CXX_BOOL_LITERAL_EXPR", "CXX_UNARY_EXPR"):
            if isinstance(node.value, int):
                return constant_term(z3, node.value, C.z3_bits(C.int_type(node.type) if node.type else None))
            if k == "CXX_UNARY_EXPR" and node.spelling:
                return self._dependent_size(node, scope)
            raise NotEncodable()
        builtin = self._builtin_vector(node.children[0], scope) \
            if k == "MEMBER_REF_EXPR" and node.children else None
        if builtin is not None:
            name, member = builtin, node.spelling
            axis = "xyz".index(member) if member in ("x", "y", "z") else 0
            if name == "threadIdx":
                return self.tid[axis]
            if name == "blockDim":
                return self.dims[axis]
            return self.sym(f"{name}.{member}", per_thread=False)
        if k == "DECL_REF_EXPR":
            return self._ref(node, scope, depth)
        if k == "ARRAY_SUBSCRIPT_EXPR" and len(node.children) == 2:
            looked_up = self._table_value(node, scope, depth)
            if looked_up is not None:
                return looked_up
        if self._loads_as_values and (k == "ARRAY_SUBSCRIPT_EXPR" or k == "UNARY_OPERATOR" and node.op == "*"):
            return self._memory_value(node, scope, depth)
        if node is LANE_ID:
            return z3.URem(self.linear(), 32)
        if isinstance(node, _Held):
            return node.term
        if k in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and len(node.children) == 2:
            return self._binary(node, scope, depth)
        if k == "UNARY_OPERATOR" and node.children:
            if node.op == "-":
                return -self.expr(node.children[0], scope, depth + 1)
            if node.op == "+":
                return self.expr(node.children[0], scope, depth + 1)
            if node.op == "~":
                return ~self.expr(node.children[0], scope, depth + 1)
            if node.op in ("post++", "post--"):  # `perm[lk++]`: the value before the step
                return self.expr(node.children[0], scope, depth + 1)
            if node.op in ("++", "--"):
                value = self.expr(node.children[0], scope, depth + 1)
                return value + 1 if node.op == "++" else value - 1
            raise NotEncodable()
        if k == "MEMBER_REF_EXPR":
            return self._field(node, scope, depth)
        if k == "CONDITIONAL_OPERATOR" and len(node.children) == 3:
            c, a, b = node.children
            then, other = self.expr(a, scope, depth + 1), self.expr(b, scope, depth + 1)
            if then.size() != other.size():
                then, other = self._as_type_of(then, a, node), self._as_type_of(other, b, node)
                if then.size() != other.size():  # not an integer type: the wider one's width
                    bits = max(then.size(), other.size())
                    then, other = (C.z3_convert(z3, then, _int(a), bits), C.z3_convert(z3, other, _int(b), bits))
            return z3.If(self.cond(c, scope, depth + 1), then, other)
        if k == "CALL_EXPR":
            if isinstance(node.value, int):
                return constant_term(z3, node.value)  # folded by the compiler
            return self._call(node, scope, depth)
        raise NotEncodable()

    def _table_value(self, node: Node, scope: Scope, depth: int):
        """An element of a lookup table read at an index the encoder folds to a constant
        (`FL_ORDER[row / 8]` with row 3 and `__constant__ int FL_ORDER[] = {0, 4, 2, 6, 1, 5,
        3, 7}`): the table's value there. None for other arrays, and for a table the host code
        copies into. At a run-time index the element stays unknown: which values the index
        takes depends on loop bounds the encoder may know only loosely, and a table read past
        them would make conflicts the code does not have."""
        table = _strip(node.children[0])
        decl = table.decl if table.kind == "DECL_REF_EXPR" else None
        if decl is None or decl.elements is None or decl.storage not in ("global", "constant") \
                or decl.key in self.program.host_written_symbols():
            return None
        index = self.z3.simplify(self.expr(node.children[1], scope, depth + 1))
        if not self.z3.is_bv_value(index):
            raise NotEncodable()
        at = index.as_signed_long()
        if not 0 <= at < len(decl.elements):
            raise NotEncodable()  # out of the table: another kind of bug
        return constant_term(self.z3, decl.elements[at], C.z3_bits(_int(node)))

    def _field(self, node: Node, scope: Scope, depth: int):
        """A field of the object a method runs on: what its constructor stored there, in
        this call; else, when it is the same for the whole block, an unknown both threads
        share."""
        bound = scope.bound(node) or field_binding(self.program, node, scope)
        if bound is not None:
            return self.expr(bound[0], bound[1], depth + 1)
        constant = _constant_member(node, scope)
        if constant is not None:
            # a field of a __constant__ struct (`cData.dockpars.num_of_genes`): read-only in
            # kernels, one value for the whole grid
            return self.sym(constant, per_thread=False)
        value = scope.analysis.values.get(node.id)
        path = _parameter_member(node, scope)
        if path is not None and value is not None and value.level <= Level.BLOCK:
            # a field of a struct passed by value (`img.cols` of a kernel's image view): one
            # value for the block, where the kernel never assigns it
            term = self.sym(path[0], per_thread=False)
            self.parameter_members[str(term)] = path[1]
            return term
        if node.decl is None or node.children and _strip(node.children[0]).kind != "CXX_THIS_EXPR":
            raise NotEncodable()
        if value is not None and value.level <= Level.BLOCK:
            return self.sym(f"field:{node.decl.key}", per_thread=False)
        raise NotEncodable()

    def _builtin_vector(self, node: Node, scope: Scope, depth: int = 0) -> str | None:
        """'threadIdx', 'blockDim', ... when the expression is that built-in vector, also
        through parameters bound to it (`offset(const dim3& idx, ...)` called with threadIdx)."""
        n = _strip(node)
        if n.kind == "CALL_EXPR" and n.decl is not None and n.decl.kind == "CONVERSION_FUNCTION" \
                and n.children and n.children[0].children:
            n = _strip(n.children[0].children[0])  # `threadIdx` converted to the dim3 parameter
        if n.kind != "DECL_REF_EXPR" or n.decl is None or depth > 4:
            return None
        if n.decl.storage == "builtin":
            return n.decl.name
        bound = scope.bound(n)
        return self._builtin_vector(bound[0], bound[1], depth + 1) if bound is not None else None

    def _ref(self, node: Node, scope: Scope, depth: int):
        term = self._ref_term(node, scope, depth)
        d = node.decl
        if self.z3.is_const(term) and term.decl().kind() == self.z3.Z3_OP_UNINTERPRETED:
            kind = C.int_type(d.type)
            if kind is not None and kind.known and not kind.signed and not kind.is_bool:
                # an unknown of an unsigned variable: small like every unknown, and not negative
                self.facts.append(term >= 0)
        return term

    def _ref_term(self, node: Node, scope: Scope, depth: int):
        z3 = self.z3
        d = node.decl
        if d is None:
            raise NotEncodable()
        if scope.local_terms is not None and d.storage == "local":
            if d.key in scope.local_terms:
                return scope.local_terms[d.key]
            raise NotEncodable()  # declared without a value
        nxt = self.next_iteration
        if nxt is not None and d.key in nxt.updates and d.key not in self._advancing \
                and not (nxt.updates[d.key] is None and node.id in scope.loop_counters):
            # (a counter of an inner loop, `for (k = 0; ...; k++)`, starts over in each
            # iteration of the outer one: read as that loop's counter, below)
            update = nxt.updates[d.key]
            if update is None:
                # Changed in more than one place per iteration: readable only where one
                # assignment alone reaches (`j = threadIdx.x; s[j] = ...` in a loop that
                # also counts j in an inner loop), as that iteration computes it.
                reached = scope.reaching.get(node.id)
                if reached is None or reached is INCOMING or d.key in referenced_keys(reached):
                    raise NotEncodable()
                return self._as_type_of(self.expr(reached, scope, depth + 1), reached, node)
            self._advancing.add(d.key)
            try:
                return self._advanced(update, node, scope, depth)
            finally:
                self._advancing.discard(d.key)
        if d.storage == "builtin" and d.name == "warpSize":
            return constant_term(z3, 32)
        if d.value is not None and isinstance(d.value, int):
            return constant_term(z3, d.value)
        later = scope.later_defs.get(d.key)
        if later is not None and node.start >= later[2]:
            value, value_scope, _ = later
            return self._as_type_of(self.expr(value, value_scope or scope, depth + 1), value, node)
        if d.key in scope.bindings and not (d.storage == "param" and scope.bound(node) is None):
            arg, arg_scope = scope.bindings[d.key]
            return self._as_type_of(self.expr(arg, arg_scope, depth + 1), arg, node)
        if d.storage == "global" and self.service is not None \
                and "global:" + d.key in self.service.atomic_locations():
            # a __device__ variable threads update atomically meanwhile: each thread's own
            # reading (a value the grid's threads agree on only where a grid sync publishes it,
            # which the uniformity analysis decides)
            value = scope.analysis.values.get(node.id)
            return self.sym(d.key, per_thread=value is None or value.level > Level.BLOCK)
        if d.storage in ("global", "constant", "template", "enum"):
            return self.sym(d.key, per_thread=False)
        if d.storage == "shared" and "[" not in d.type and (self.next_iteration is None
                                                             or self.next_iteration.keeps(d.key)):
            # A __shared__ scalar (`luc[firstBin]`): one word of the block, the same value for
            # two threads reading it in one interval (a store racing with the reads is a
            # finding of its own). Across iterations of a loop it may have changed: encoded
            # there only where the loop does not change it.
            version = scope.shared_versions.get(node.id)
            return self.sym(f"{d.key}@shared" + (f"@{version}" if version else ""), per_thread=False)
        if d.storage == "param" and d.key not in scope.multi_defs:
            return self.sym(d.key, per_thread=False)
        if d.storage in ("local", "param"):
            # A local defined once stands for its definition, also inside a loop that threads
            # run out of step: its inputs are then read in the same iteration as it is.
            if d.key in scope.single_defs:
                try:
                    value = scope.single_defs[d.key]
                    return self._as_type_of(self.expr(value, scope, depth + 1), value, node)
                except NotEncodable:
                    # A definition the encoder cannot model (a load, a call) whose value is
                    # the same for the whole block: an unknown, but one both threads share.
                    value = scope.analysis.values.get(node.id)
                    if value is not None and value.level <= Level.BLOCK and d.key not in self.varying:
                        return self.sym(d.key, per_thread=False)
                    raise
            induction = scope.loop_counters.get(node.id)
            if induction is None:
                induction = scope.inductions.get(d.key)
                if induction is not None and _before_its_loop(node, induction, scope):
                    # read before the loop that steps it ever runs: still its initial value
                    return self.expr(induction.init, scope, depth + 1)
            if induction is not None:
                count = self._counter(induction, scope, d.key) + induction.updates_before(node)
                start = self.expr(induction.init, scope, depth + 1)
                return self._stepped(induction, start, count, scope, depth, counter=node)
            if d.key in scope.multi_defs and node.id not in scope.analysis.values \
                    and scope.reaching.get(node.id) is None:
                captured = self._captured_block_value(d, scope)
                if captured is not None:
                    return captured
            phases = scope.phases.get(d.key)
            if phases is not None:
                try:
                    carried = self._carried(phases, node, scope, d.key, depth)
                except NotEncodable:
                    carried = None  # a loop's trip count differs between threads
                if carried is not None:
                    return carried
            reached = scope.reaching.get(node.id)
            if reached is INCOMING:
                return self.sym(d.key, per_thread=False)
            if reached is not None:
                # A variable assigned more than once, read where one assignment alone reaches.
                try:
                    return self._as_type_of(self.expr(reached, scope, depth + 1), reached, node)
                except NotEncodable:
                    value = scope.analysis.values.get(node.id)
                    if value is not None and value.level <= Level.BLOCK and d.key not in self.varying:
                        return self.sym(f"{d.key}@{reached.id}", per_thread=False)
                    raise
            value = scope.analysis.values.get(node.id)
            moved = self._moved_value(node, scope, depth)
            # A block-wide value moved through divisions by unknowns stays one unknown: chains
            # like `tmp -= it * n` of block-wide divisions cost the solver more than a race
            # check's budget. Sums of products (an offset carving parts one after another) are
            # cheap and bound each part by the next.
            if moved is not None and (value is None or value.level > Level.BLOCK
                                      or not _divides_by_unknown(self.z3, moved)):
                return moved
            if value is not None and value.const is not None and isinstance(value.const, int):
                return constant_term(z3, value.const, C.z3_bits(_int(node)))
            if value is not None and value.level <= Level.BLOCK:
                term = self.sym(d.key, per_thread=d.key in self.varying)
                choices = self._finite_values(d, scope) if d.key in scope.multi_defs else None
                if choices:
                    self.facts.append(z3.Or(*[term == v for v in choices]))
                elif d.key in scope.multi_defs:
                    self.merged_unknowns.add(str(term))
                return term
            if d.storage == "local" and d.key in scope.multi_defs and reached is None:
                gated = self._gated_value(d, node, scope, depth)
                if gated is not None:
                    return gated
                merged = self._one_of_definitions(d, scope, depth) if self.one_of_definitions else None
                if merged is None:
                    raise MergedDefinitions()
                return merged
        raise NotEncodable()

    def _captured_block_value(self, d, scope: Scope):
        """A local of the function read where its own analysis never looked: in a `[&]` lambda
        it calls, the reference bound to the capture. Where every read of it in the function
        is the same for the whole block, one unknown of the block, taking the values its
        definitions give (a ping-pong page `page ^= 1` from 0: 0 or 1); None otherwise."""
        if not scope.analysis.reads_block_wide(d.key):
            return None
        term = self.sym(f"{d.key}@captured", per_thread=d.key in self.varying)
        choices = self._finite_values(d, scope)
        if choices:
            self.facts.append(self.z3.Or(*[term == C.z3_convert(self.z3, v, None, term.size()) for v in choices]))
        else:
            self.merged_unknowns.add(str(term))
        return term

    def _gated_value(self, d, node: Node, scope: Scope, depth: int):
        """A local given one value and then another under one `if` (`int row = -1; if (ty <
        rows) row = ty;`), read after that `if`: the branch's value where its test holds, the
        first one where not. None for any other shape, or where what the test or the values
        read may have changed in between (a variable assigned more than once)."""
        body = scope.analysis.function.body
        gate = _gated_definitions(body, d.key, self.program)
        if gate is None:
            return None
        branch, taken, otherwise = gate
        if node.start < branch.end:
            return None  # read before the `if` is over
        read = {n.decl.key for part in (branch.children[0], taken, otherwise) for n in part.walk()
                if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage in ("local", "param")}
        if read & scope.multi_defs or d.key in read:
            return None
        kind = C.int_type(d.type)
        if kind is None or not kind.known:
            return None
        bits = C.z3_bits(kind)
        try:
            test = self.cond(branch.children[0], scope, depth + 1)
            values = [C.z3_convert(self.z3, self.expr(v, scope, depth + 1), _int(v), bits) for v in (taken, otherwise)]
        except NotEncodable:
            return None
        return self.z3.If(test, values[0], values[1])

    def _one_of_definitions(self, d, scope: Scope, depth: int):
        """A thread's local that several definitions reach (`tile = 0;` then `tile = i * 10;`
        in a search loop that breaks): an unknown of the thread that equals one of the values
        its definitions compute, each read where it is made (a loop counter there is some
        iteration of its loop). None when a definition is not a plain value the encoder reads
        (a load, a step of the variable itself, a change through `+=` or its address)."""
        key = f"{d.key}@one-of#{self.t}"
        if key in self.private:
            return self.private[key]  # its values are the facts already added
        defs = _definitions(scope.analysis.function.body, d.key, self.program)
        if not defs or len(defs) > _MAX_MERGED_DEFINITIONS or any(
                n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.key == d.key
                or n.kind in _ASSIGNMENT_KINDS for value in defs for n in value.walk()):
            return None
        kind = C.int_type(d.type)
        if kind is None or not kind.known:
            return None
        bits = C.z3_bits(kind)
        values = []
        for value in defs:
            try:
                values.append(C.z3_convert(self.z3, self.expr(value, scope, depth + 1), _int(value), bits))
            except NotEncodable:
                return None
        self.private[key] = self.z3.BitVec(key, bits)
        self.facts.append(self.z3.Or(*[self.private[key] == v for v in values]))
        return self.private[key]

    def _moved_value(self, node: Node, scope: Scope, depth: int):
        """A variable read where one `x += e` / `x -= e` alone reaches (`len -= prefix;` before
        the loop over what is left): its value before, moved by e. None where another kind of
        definition reaches, or the parts cannot be encoded."""
        definition = scope.reaching_definition.get(node.id)
        if definition is None or definition.kind != "COMPOUND_ASSIGNMENT_OPERATOR" \
                or definition.op not in ("+=", "-=") or len(definition.children) != 2:
            return None
        before, step = definition.children
        try:
            old = self.expr(before, scope, depth + 1)
            delta = C.z3_convert(self.z3, self.expr(step, scope, depth + 1), _int(step), old.size())
        except NotEncodable:
            return None
        return old + delta if definition.op == "+=" else old - delta

    def _finite_values(self, d, scope: Scope) -> list | None:
        """The values a local takes that is computed from its own previous value (a ping-pong
        `start = N - start` from 0 takes 0 and N), when each of its definitions is a
        block-wide value (a constant, a template parameter) or such a step, as terms; None
        otherwise, or when the values do not close."""
        key = (scope.analysis.function.key, d.key)
        if key in self._value_sets:
            return self._value_sets[key]
        self._value_sets[key] = None  # while being found: a definition naming another
        defs = _definitions(scope.analysis.function.body, d.key, self.program)
        if not defs or not any(n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.key == d.key
                               for value in defs for n in value.walk()):
            return None  # a flag set in places: an unknown as before (its values cost the solver)
        values: list = []
        for _ in range(8):
            found = list(values)
            for value in defs:
                own = any(n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.key == d.key
                          for n in value.walk())
                for previous in (values if own else [None]):
                    term = self._value_with(value, scope, d, previous)
                    if term is None:
                        return None
                    if not any(term.eq(t) for t in found):
                        found.append(term)
            if len(found) == len(values):
                self._value_sets[key] = values
                return values
            if len(found) > 8:
                return None
            values = found
        return None

    def _value_with(self, value: Node, scope: Scope, d, previous):
        """A definition's value, the variable holding the term ``previous``: a term of
        constants and block-wide symbols only (None otherwise)."""
        bindings = dict(scope.bindings)
        if previous is not None:
            bindings[d.key] = (_Held(previous, d.type), scope)
        try:
            term = self.expr(value, replace(scope, bindings=bindings))
        except NotEncodable:
            return None
        term = self.z3.simplify(C.z3_convert(self.z3, term, _int(value), C.z3_bits(C.int_type(d.type))))
        if self.names_thread(term) or any(str(v).startswith("iter:") for v in term_variables(self.z3, term)):
            return None
        return term

    def _counter(self, induction, scope: Scope, key: str):
        """The iteration count of the induction's loop: one per loop (the inductions of a
        loop move together); in a loop's last iteration, its trip count less one."""
        where = induction.loop if induction.loop is not None else f"line {induction.line}"
        name = _iteration_name(scope.analysis.function.key, where)
        if name in self.counter_override:
            return self.counter_override[name]
        if induction.loop is not None and induction.loop in self.last_iterations and \
                induction.loop_stmt is not None:
            try:
                return self.trip_count(induction.loop_stmt, scope) - 1
            except NotEncodable:
                pass  # threads may leave the loop after different counts: any iteration
        k = self.sym(name, per_thread=key in self.varying)
        self.iteration_counters.append(k)
        return k

    def iteration_of(self, function_key: str, loop_id: int):
        """This thread's own iteration count of a loop, once an induction of the loop has
        made one for it (None otherwise, or where both threads share one)."""
        return self.private.get(f"{_iteration_name(function_key, loop_id)}#{self.t}")

    def _stepped(self, induction, start, count, scope: Scope, depth: int, counter: Node | None = None):
        z3 = self.z3
        step = induction.step
        bits = start.size()
        count = C.z3_convert(z3, count, None, bits)  # an iteration count: small, not negative
        if isinstance(step, Node):
            step = C.z3_convert(z3, self.expr(step, scope, depth + 1), _int(step), bits)
            toward = _step_toward_bound(induction, counter) if counter is not None else 0
            if toward:
                # A signed counter that steps away from the bound its loop runs to never gets
                # there: it overflows (undefined), unless the loop had another way out.
                self.facts.append(step > 0 if toward > 0 else step < 0)
        if induction.op == "<<":
            # `s *= 2` doubles up to its loop's bound: shifting past the word would wrap s to 0,
            # which the program never reaches (indices do not overflow, as for symbols). Nor
            # does a signed counter double into its sign bit (`for (d = 2; d < n; d <<= 1)`
            # would then run on with d negative).
            self.facts.append(z3.ULT(count * step, bits - 1))
            shifted = start << (count * step)
            self.facts.append(z3.LShR(shifted, count * step) == start)
            kind = _int(counter) if counter is not None else None
            if kind is not None and kind.signed:
                self.facts.append(z3.Implies(start >= 0, shifted >= 0))
        return {"+": lambda: start + count * step, "-": lambda: start - count * step,
                ">>": lambda: z3.LShR(start, count * step),
                "<<": lambda: start << (count * step)}[induction.op]()

    def _carried(self, phases, node: Node, scope: Scope, key: str, depth: int):
        """A variable updated in several loops one after another, at ``node``: inside one of
        them, that loop's induction from the value the loops before it left; between them,
        the value the last loop before ``node`` left. None where it cannot be told."""
        for i, phase in enumerate(phases):
            loop = phase.loop_stmt
            if node.start >= loop.end:
                continue
            if node.start < loop.start:
                break
            count = self._counter(phase, scope, key) + phase.updates_before(node)
            return self._stepped(phase, self._phase_start(phases, i, scope, depth), count, scope, depth)
        done = [i for i, p in enumerate(phases) if p.loop_stmt.end <= node.start]
        if not done:
            return None  # before the first loop: the ordinary definitions apply
        return self._phase_start(phases, done[-1] + 1, scope, depth)

    def _phase_start(self, phases, i: int, scope: Scope, depth: int):
        """The value the variable has when loop ``i`` starts (when ``i`` is past the last loop,
        the value the last one leaves)."""
        if i == 0:
            return self.expr(phases[0].init, scope, depth + 1)
        before = phases[i - 1]
        trips = self.trip_count(before.loop_stmt, scope)
        return self._stepped(before, self._phase_start(phases, i - 1, scope, depth), trips, scope, depth)

    def trip_count(self, loop: Node, scope: Scope):
        """How many times a loop whose test the whole block takes alike runs: the first
        iteration count at which its test fails (its inductions at that count)."""
        z3 = self.z3
        fn = scope.analysis.function.key
        name = f"trip:{fn}:{loop.id}"
        if name in self._trips:
            return self._trips[name]
        cond = loop.child_by_role("cond")
        level = scope.analysis.values.get(cond.id) if cond is not None else None
        if cond is None or level is None or level.level > Level.BLOCK:
            raise NotEncodable()  # threads may leave it after different counts
        trips = self.sym(name, per_thread=False)
        self._trips[name] = trips
        self.facts += [trips >= 0, trips < _MAX_TRIPS]
        counter = f"iter:{fn}:{loop.id}"
        saved = self.counter_override.get(counter)
        try:
            self.counter_override[counter] = trips
            fails = z3.Not(self.cond(cond, scope))
            self.counter_override[counter] = trips - 1
            passed = self.cond(cond, scope)
            self.facts += [fails, z3.Or(trips == 0, passed)]
        except NotEncodable:
            pass  # only bounded
        finally:
            if saved is None:
                self.counter_override.pop(counter, None)
            else:
                self.counter_override[counter] = saved
        return trips

    def _advanced(self, update: Node, ref: Node, scope: Scope, depth: int):
        """A variable's value one iteration later: its update applied to its value now."""
        now = self.expr(ref, scope, depth + 1)
        if update.kind == "UNARY_OPERATOR":
            return now + 1 if "+" in update.op else now - 1
        rhs = self.expr(update.children[1], scope, depth + 1)
        if update.op == "=":
            return self._as_type_of(rhs, update.children[1], ref)
        rhs = C.z3_convert(self.z3, rhs, _int(update.children[1]), now.size())
        op = update.op[:-1]
        if op in ("+", "-", "*"):
            return {"+": now + rhs, "-": now - rhs, "*": now * rhs}[op]
        if op in ("/", "<<", ">>") and self.z3.is_bv_value(self.z3.simplify(rhs)):
            # a halving or doubling counter (`j >>= 1`, `s /= 2`, `k <<= 1`)
            return C.z3_binary(self.z3, op, now, rhs, C.int_type(ref.type))
        raise NotEncodable()

    def _binary(self, node: Node, scope: Scope, depth: int):
        z3 = self.z3
        op = node.op
        if op == ",":
            return self.expr(node.children[1], scope, depth + 1)  # `a, b` has b's value
        if op in COMPOUND_ASSIGN_OPS:
            # `m |= m << d`: the variable's new value (what the expression and the
            # definition it makes both hold), from the value its left side reads
            left, right = node.children
            target, other = _int(left), _int(right)
            if target is None or other is None:
                raise NotEncodable()
            # computed in the operands' common type (a shift in the left one's), stored back
            t = C.common_type(target, target if op in ("<<=", ">>=") else other)
            term = self._operation(op[:-1], left, right, t, scope, depth)
            return C.z3_convert(z3, term, t, C.z3_bits(target))
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return z3.If(self.cond(node, scope, depth), constant_term(z3, 1), constant_term(z3, 0))
        left, right = node.children
        return self._operation(op, left, right, _operation_type(node), scope, depth)

    def _operation(self, op: str, left: Node, right: Node, t: "C.IntType | None", scope: Scope, depth: int):
        """``left op right`` computed in the operation's type ``t``."""
        z3 = self.z3
        a = self.expr(left, scope, depth + 1)
        b = self.expr(right, scope, depth + 1)
        if op not in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"):
            raise NotEncodable()
        # the operands convert to the operation's type (a shift's amount to the left's width)
        bits = C.z3_bits(t) if t is not None else max(a.size(), b.size())
        a, b = C.z3_convert(z3, a, _int(left), bits), C.z3_convert(z3, b, _int(right), bits)
        if op in ("&", "|", "^", "<<", ">>"):
            # Bit tricks on run-time values (masks from parameters) would let the solver pick
            # values the program never has: only right operands the encoding pins down are
            # modeled (constants; a halving or doubling loop counter, `tid ^ j` in a bitonic
            # step, is a constant shifted by the iteration count; a lane mask `(1 << lane) - 1`
            # is fixed by the thread). A proof may take any values: more only weakens it.
            # One-bit masks are modeled too: `1 << k` for a run-time k is a power of two, and
            # `t ^ (1 << k)` (a butterfly's partner), `t & (1 << k)`, `t | (1 << k)` flip,
            # test or set that one bit: the solver can pick no value no k gives.
            if not self.exact(b, own_thread=True) and not (self.thread_shifts and op in ("<<", ">>")) \
                    and self.proof_group is None and not (op == "^" and self._mixes_itself(a, b)) \
                    and not (op == "<<" and _is_one(z3, a)) \
                    and not (op in ("&", "|", "^") and (_one_bit_mask(z3, b) or _one_bit_mask(z3, a))):
                raise NotEncodable()
        # the operand type's signedness picks division, remainder and `>>` (`0xffffffff >> n`
        # shifts zeros in: a mask, not -1)
        return C.z3_binary(z3, op, a, b, t)

    def names_thread(self, term) -> bool:
        """Does the term depend on this thread's indices?"""
        own = f"t{self.t}."
        return any(str(v).startswith(own) for v in term_variables(self.z3, term))

    def _mixes_itself(self, a, b) -> bool:
        """A swizzle, `col ^ row` with both parts cut from one index (`row = i >> 3`, `col = i
        & 7`): the right operand reads no value the left one does not, so the solver can pick
        nothing for it that the index itself does not allow."""
        z3 = self.z3
        names = lambda t: {v.decl().name() for v in term_variables(z3, z3.simplify(t))}
        accepted = _EXACT_SYMBOLS + (f"t{self.t}.",)
        free_b = {n for n in names(b) if not n.startswith(accepted)}
        return bool(free_b) and free_b <= names(a)

    def exact(self, term, own_thread: bool = False) -> bool:
        """Is the term a function of constants, the block shape and loop iteration counts
        alone (no parameter or unknown the solver could choose freely)? With ``own_thread``,
        this thread's indices count too (the block shape bounds them)."""
        accepted = _EXACT_SYMBOLS + ((f"t{self.t}.",) if own_thread else ())
        return all(v.decl().name().startswith(accepted)
                   for v in term_variables(self.z3, self.z3.simplify(term)))

    def _call(self, node: Node, scope: Scope, depth: int):
        z3 = self.z3
        from syncheck.analyses import primitives as P
        from syncheck.ir.calls import call_args
        prim = P.classify(node)
        if prim is not None and prim.category == P.QUERY and prim.name.endswith("thread_rank()"):
            if prim.scope == "block":
                return self.linear()
            if prim.scope == "tile" and prim.tile_size:
                return z3.SRem(self.linear(), prim.tile_size)
        if prim is not None and prim.category == P.QUERY and prim.scope == "coalesced" \
                and prim.name.endswith(("thread_rank()", "size()", "num_threads()")):
            return self._active_rank(node, prim, scope, rank=prim.name.endswith("thread_rank()"))
        if prim is not None and prim.name.endswith("meta_group_rank()") and prim.tile_size:
            return self.linear() / prim.tile_size
        name = node.decl.name if node.decl is not None else ""
        args = call_args(node)
        if prim is not None and prim.name == "__ballot_sync" and len(args) == 2:
            return self._ballot(node, args, scope, depth)
        shuffle = _shuffle_operands(node, prim, args)
        if shuffle is not None:
            return self._shuffled(node, *shuffle, scope, depth)
        if name in ("__popc", "__popcll") and len(args) == 1:
            return _popcount(z3, self.expr(args[0], scope, depth + 1))
        if prim is not None and name in _LANE_MASKS and not args:
            lane = z3.URem(self.linear(), 32)
            return _LANE_MASKS[name](z3, lane)
        if name in ("min", "max", "umin", "umax") and len(args) == 2:
            a, b = (self.expr(x, scope, depth + 1) for x in args)
            bits = max(a.size(), b.size())
            a, b = C.z3_convert(z3, a, _int(args[0]), bits), C.z3_convert(z3, b, _int(args[1]), bits)
            return self.z3.If(a < b, a, b) if "min" in name else self.z3.If(a > b, a, b)
        returned = self._single_return(node)
        if returned is not None:
            # A getter (`return threadIdx.y;`, `return blockDim.y;`): its expression, with
            # the callee's parameters bound to this call's arguments.
            callee, expr, local_values = returned
            bindings = {p.key: (a, scope) for p, a in bound_arguments(callee.params, args)}
            bindings.update(template_bindings(node, callee, scope))
            inner = Scope(scope.analysis, bindings)
            for key, value in local_values.items():
                bindings[key] = (value, inner)  # `int tid = ...; return tid >> 5;`
            try:
                return self.expr(expr, inner, depth + 1)
            except NotEncodable:
                pass  # `return table(t).nthreads;`: maybe a pure call as a whole, below
        computed = self._computed_return(node, scope, depth)
        if computed is not None:
            return computed
        callee = self.program.resolve_call(node.decl)
        if callee is not None and self.program.is_pure(callee):
            # A constexpr function of its arguments alone: equal arguments, equal values
            # (the body's `nthreads(type)` and the one in `__launch_bounds__`).
            terms = [C.z3_convert(z3, self.expr(a, scope, depth + 1), _int(a), BITS) for a in args]
            sort = z3.BitVecSort(BITS)
            value = z3.Function(f"call:{callee.key}", *([sort] * len(terms)), sort)(*terms)
            # in the range of every other symbol, so that index arithmetic cannot wrap
            self.facts += [value > -SYMBOL_RANGE, value < SYMBOL_RANGE]
            return value
        if callee is not None and self.program.computes_from_arguments(callee):
            # A helper of its scalar arguments alone (`bit_reverse(i, bits)`, a loop the
            # encoder cannot unroll): an unknown function of them, taken one-to-one (an index
            # helper maps different positions to different ones), so that two threads meet at
            # one element only where the code's other indices lead them there.
            terms = [C.z3_convert(z3, self.expr(a, scope, depth + 1), _int(a), BITS) for a in args]
            sort = z3.BitVecSort(BITS)
            value = z3.Function(f"helper:{callee.key}", *([sort] * len(terms)), sort)(*terms)
            self.facts += [value > -SYMBOL_RANGE, value < SYMBOL_RANGE]
            made = self.shared.helper_values.setdefault(callee.key, [])
            for other_terms, other in made:
                differ = z3.Or(*[x != y for x, y in zip(terms, other_terms)])
                self.facts.append(z3.Implies(differ, value != other))
            made.append((terms, value))
            return value
        if self.proof_group is not None and self.service is not None and callee is not None:
            returned = self._returned_in_context(node, callee, scope, depth)
            if returned is not None:
                return returned
        raise NotEncodable()

    def _returned_in_context(self, call: Node, callee: Function, scope: Scope, depth: int):
        """In a proof, what a helper whose body ends in its only `return e;` returns: e read
        in the helper's analysis for this call, its locals unknowns as the proof makes them
        (a block-wide count read from shared memory is one value for both threads: `uniq |
        (n - 1 - negatives) >> 31` is negative for both or for neither). None where the helper
        returns elsewhere too, or the call is not one the analysis met."""
        from syncheck.analyses.shared_memory import call_bindings, function_scope
        from syncheck.analyses.uniformity import UNIFORM
        final = _final_return(callee)
        site = next((x for x in scope.analysis.sites if x.node.id == call.id), None)
        if final is None or site is None or depth > 20:
            return None
        params = tuple(site.arg_values[:len(callee.params)]) + tuple(
            UNIFORM for _ in callee.params[len(site.arg_values):])
        # (with what the caller knew at the call: the fields of an object handed by pointer)
        sub = self.service.analyze(callee, params, shape=scope.analysis.shape,
                                   template_values=site.template_values,
                                   outer_env=scope.analysis.call_envs.get(call.id))
        inner = function_scope(callee, sub, call_bindings(self.program, call, callee, site.args, scope, set()),
                               self.program)
        return self.expr(final, inner, depth + 1)

    def _ballot(self, call: Node, args: list[Node], scope: Scope, depth: int):
        """`__ballot_sync(m, p)`: a word whose bit for this thread's lane is p (where the
        encoding reads p) and is clear when m leaves the lane out; the other lanes' bits are
        theirs to decide."""
        z3 = self.z3
        word = self._warp_word(f"{WHOLE_WORD}{call.id} {self.scope_tag(scope)}")
        lane = z3.URem(self.linear(), 32)
        own_bit = z3.LShR(word, lane) & 1 == 1
        try:
            self.facts.append(own_bit == self.cond(args[1], scope, depth + 1))
        except NotEncodable:
            # decided by data: either way, but as the same test decides elsewhere
            named = self.named_decision(args[1], scope)
            if named is not None:
                self.facts.append(own_bit == named)
        try:
            mask = self.expr(args[0], scope, depth + 1)
            self.facts.append(z3.Implies(z3.LShR(mask, lane) & 1 == 0, z3.Not(own_bit)))
        except NotEncodable:
            pass
        return word

    def named_decision(self, node: Node, scope: Scope):
        """A decision the encoder cannot read, when it is a local defined once (`bool p =
        flags[w] > 0;`): one unknown truth value of this thread, the same wherever the local is
        tested in this scope (`__ballot_sync(m, p)` and `if (p)`). None for anything else."""
        n = _strip(node)
        if n.kind != "DECL_REF_EXPR" or n.decl is None or n.decl.key not in scope.single_defs \
                or n.decl.key in scope.multi_defs:
            return None
        return self.z3.Bool(f"decision {n.decl.key} {self.scope_tag(scope)}#{self.t}")

    def _warp_word(self, name: str):
        """A 32-bit word the lanes of a warp share (a vote, the set of active lanes). Where
        both threads are at the same call in the same iteration, the lanes of one warp get one
        word, so ranks counted in it differ between lanes; otherwise each thread's own."""
        z3 = self.z3
        if not self.varying and self.next_iteration is None:
            sort = z3.BitVecSort(BITS)
            return z3.Function(name, sort, sort)(self.linear() / 32)
        return self.sym(name, per_thread=True)

    def _active_rank(self, call: Node, prim, scope: Scope, rank: bool):
        """A coalesced group's `thread_rank()` (how many active lanes are below this one) or
        its size: counted in the word of the lanes active where the group was made, which
        has this lane's bit set."""
        z3 = self.z3
        group = _strip(prim.group) if prim.group is not None else None
        made = group.decl.key if group is not None and group.kind == "DECL_REF_EXPR" and group.decl else call.id
        word = self._warp_word(f"{WHOLE_WORD}active {made} {self.scope_tag(scope)}")
        lane = z3.URem(self.linear(), 32)
        self.facts.append(z3.LShR(word, lane) & 1 == 1)
        return _popcount(z3, word & ((constant_term(z3, 1) << lane) - 1) if rank else word)

    def _shuffled(self, call: Node, kind: str, value: Node, source: Node, width: Node | None,
                  scope: Scope, depth: int):
        """A shuffle's result: ``value`` as the lane it reads from has it. That lane is a
        thread of the same warp, in the same iteration (a shuffle is a collective of the
        warp), whose indices are fresh symbols tied to this thread's by the lane formula."""
        z3 = self.z3
        w = 32
        if width is not None:
            w_term = z3.simplify(self.expr(width, scope, depth + 1))
            if not z3.is_bv_value(w_term) or w_term.as_long() not in (1, 2, 4, 8, 16, 32):
                raise NotEncodable()
            w = w_term.as_long()
        lane = z3.URem(self.linear(), 32)
        arg = C.z3_convert(z3, self.expr(source, scope, depth + 1), _int(source), BITS)
        segment = lane & ~(w - 1)
        within = lane & (w - 1)
        if kind == "idx":
            src = segment + (arg & (w - 1))
        elif kind == "up":
            src = z3.If(z3.UGE(within, arg), lane - arg, lane)
        elif kind == "down":
            src = z3.If(z3.ULT(within + arg, w), lane + arg, lane)
        else:  # xor
            src = z3.If((lane ^ arg) & ~(w - 1) == segment, lane ^ arg, lane)
        self._shuffles += 1
        other = [bitvector(z3, f"t{self.t}.lane{self._shuffles}.{a}") for a in "xyz"]
        mine = self.tid
        self.facts += [z3.ULT(t, d) for t, d in zip(other, self.dims)]
        self.tid = other
        self.facts.append(self.linear() == z3.Concat(z3.Extract(BITS - 1, 5, self._linear_of(mine)),
                                                    z3.Extract(4, 0, src)))
        try:
            return self.expr(value, scope, depth + 1)
        finally:
            self.tid = mine

    def _linear_of(self, tid):
        bx, by, _ = self.dims
        return tid[0] + bx * (tid[1] + by * tid[2])

    def _single_return(self, call: Node):
        """(callee, the expression it returns, the locals it reads -> their values) for a
        getter: `return e;`, a local set once and returned (`unsigned r; r = e; return r;`,
        `asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r;` gives the lane id), or an
        expression of locals each declared once with its value (`int tid = ...; return tid
        >> 5;`); e naming parameters and such locals only."""
        callee = self.program.resolve_call(call.decl)
        if callee is None or callee.body is None or not callee.body.children:
            return None
        *before, stmt = callee.body.children
        if stmt.kind != "RETURN_STMT" or len(stmt.children) != 1:
            return None
        returned = stmt.children[0]
        local_values: dict[str, Node] = {}
        if before:
            value = _returned_local_value(before, returned)
            if value is not None:
                returned = value
            else:
                local_values = _declared_once(before)
                if not local_values:
                    return None
        if any(n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "local"
               and n.decl.key not in local_values
               for e in (returned, *local_values.values()) for n in e.walk()):
            return None
        return callee, returned, local_values

    def _computed_return(self, call: Node, scope: Scope, depth: int):
        """What a small helper returns when its body is straight-line code over its parameters
        and locals (declarations, assignments, `if`/`else`) ending in `return e;`
        (`offset = 0; if (Z) offset += idx.z; if (Y) offset = offset * dim.y + idx.y; return
        offset;`): run statement by statement, a variable after an `if` being the branch's value
        where the test holds and the other's where not. None for anything else (loops, stores
        outside its locals, early returns, calls the encoder cannot read)."""
        callee = self.program.resolve_call(call.decl)
        if callee is None or callee.body is None or len(callee.body.children) < 2 \
                or callee.body.children[-1].kind != "RETURN_STMT" or len(callee.body.children[-1].children) != 1:
            return None
        bindings = {p.key: (a, scope) for p, a in bound_arguments(callee.params, call_args(call))}
        bindings.update(template_bindings(call, callee, scope))
        inner = Scope(scope.analysis, bindings, local_terms={})
        try:
            for stmt in callee.body.children[:-1]:
                inner.local_terms = self._run_statement(stmt, inner, dict(inner.local_terms), depth + 1)
            returned = callee.body.children[-1].children[0]
            return self._as_type_of(self.expr(returned, inner, depth + 1), returned, call)
        except NotEncodable:
            return None

    def _run_statement(self, stmt: Node, scope: Scope, terms: dict, depth: int) -> dict:
        """The helper's locals after one statement (see _computed_return)."""
        z3 = self.z3
        if depth > 20:
            raise NotEncodable()
        here = replace(scope, local_terms=terms)
        if stmt.kind == "COMPOUND_STMT":
            for child in stmt.children:
                terms = self._run_statement(child, scope, terms, depth + 1)
            return terms
        if stmt.kind == "NULL_STMT":
            return terms
        if stmt.kind == "DECL_STMT":
            for var in stmt.children:
                if var.kind != "VAR_DECL" or var.decl is None or C.int_type(var.type or "") is None:
                    raise NotEncodable()
                init = [c for c in var.children if c.kind not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
                if init:
                    terms = {**terms, var.decl.key: self._as_type_of(self.expr(init[-1], here, depth + 1), init[-1], var)}
            return terms
        if stmt.kind == "IF_STMT" and len(stmt.children) in (2, 3):
            test = z3.simplify(self.cond(stmt.children[0], here, depth + 1))
            if z3.is_true(test):
                return self._run_statement(stmt.children[1], scope, terms, depth + 1)
            if z3.is_false(test):
                return self._run_statement(stmt.children[2], scope, terms, depth + 1) if len(stmt.children) == 3 else terms
            taken = self._run_statement(stmt.children[1], scope, terms, depth + 1)
            other = self._run_statement(stmt.children[2], scope, terms, depth + 1) if len(stmt.children) == 3 else terms
            return {k: (v if taken[k] is other[k] else z3.If(test, taken[k], other[k]))
                    for k, v in terms.items()}
        target = _strip(stmt.children[0]) if stmt.children else None
        if target is None or target.kind != "DECL_REF_EXPR" or target.decl is None \
                or target.decl.storage != "local":
            raise NotEncodable()
        key = target.decl.key
        if stmt.kind == "BINARY_OPERATOR" and stmt.op == "=" and len(stmt.children) == 2:
            return {**terms, key: self._as_type_of(self.expr(stmt.children[1], here, depth + 1), stmt.children[1], target)}
        if key not in terms:
            raise NotEncodable()  # changed before it has a value
        if stmt.kind == "COMPOUND_ASSIGNMENT_OPERATOR" and stmt.op in COMPOUND_ASSIGN_OPS and len(stmt.children) == 2:
            value = self.expr(stmt.children[1], here, depth + 1)
            kind = _int(target)
            value = C.z3_convert(z3, value, _int(stmt.children[1]), terms[key].size())
            return {**terms, key: C.z3_binary(z3, stmt.op[:-1], terms[key], value, kind)}
        if stmt.kind == "UNARY_OPERATOR" and stmt.op in ("++", "--", "post++", "post--"):
            one = constant_term(z3, 1, terms[key].size())
            return {**terms, key: terms[key] + one if "++" in stmt.op else terms[key] - one}
        raise NotEncodable()

    def cond(self, node: Node, scope: Scope, depth: int = 0):
        z3 = self.z3
        n = _strip(node) if node.kind != "PAREN_EXPR" else node
        if n.kind == "PAREN_EXPR":
            return self.cond(n.children[-1], scope, depth + 1)
        if n.kind == "BINARY_OPERATOR" and len(n.children) == 2:
            op = n.op
            if op == ",":  # `(void)0, i < n` (annotations in a loop's test): the last operand decides
                return self.cond(n.children[1], scope, depth + 1)
            if op in ("&&", "||"):
                a, b = (self.cond(c, scope, depth + 1) for c in n.children)
                return z3.And(a, b) if op == "&&" else z3.Or(a, b)
            if op in C.COMPARISONS:
                if self.free_data_decisions and not self._loads_as_values and (
                        all(self._loaded(c, scope) for c in n.children) or self._decided_by_input(n, scope)):
                    # Values read from memory compared (a sort's compare-exchange, a flag
                    # against a constant): the input decides.
                    return self._input_test(n, scope, depth)
                try:
                    a, b = (self.expr(c, scope, depth + 1) for c in n.children)
                except NotEncodable as unknown:
                    return self._test_on_loads(n, scope, depth, unknown)
                left, right = n.children
                common = C.operation_type(op, "", left.type, right.type)
                bits = C.z3_bits(common) if common is not None else max(a.size(), b.size())
                a, b = C.z3_convert(z3, a, _int(left), bits), C.z3_convert(z3, b, _int(right), bits)
                return C.z3_binary(z3, op, a, b, C.z3_comparison_type(left.type, right.type))
        if n.kind == "UNARY_OPERATOR" and n.op == "!" and n.children:
            return z3.Not(self.cond(n.children[0], scope, depth + 1))
        if self.free_data_decisions and not self._loads_as_values and self._decided_by_input(n, scope):
            # A test of values read from memory (`if (flags[cell] & FACE)`): the input decides.
            return self._input_test(n, scope, depth)
        try:
            return self.expr(n, scope, depth + 1) != 0
        except NotEncodable as unknown:
            return self._test_on_loads(n, scope, depth, unknown)

    def _test_on_loads(self, node: Node, scope: Scope, depth: int, unknown: NotEncodable):
        """A test the encoder cannot read whose operands include values read from memory
        (`col == row` with `col = it < end ? cols[it] : -1`): the input decides it, as a free
        decision of this thread where the loads cannot be encoded as values of memory. Tests
        without a load stay unencodable."""
        if not (self.free_data_decisions and not self._loads_as_values and _reads_memory(node, scope)):
            raise unknown
        return self._input_test(node, scope, depth)

    def expr_with_loads(self, node: Node, scope: Scope):
        """`expr`, with each element read from memory a value of memory (see _input_test)."""
        saved, self._loads_as_values = self._loads_as_values, True
        try:
            return self.expr(node, scope)
        finally:
            self._loads_as_values = saved

    def _input_test(self, node: Node, scope: Scope, depth: int):
        """A test the input decides, with each element read a value of memory that both
        threads share (one element, one value: `b[y][x] == NONE` and `b[y][k] != NONE`
        cannot both hold where x == k); where the loads cannot be encoded so, a free
        decision of this thread."""
        self._loads_as_values = True
        self.input_tests += 1
        try:
            return self.cond(node, scope, depth)
        except NotEncodable:
            return self._data_decision(node, scope)
        finally:
            self._loads_as_values = False

    def _memory_value(self, node: Node, scope: Scope, depth: int):
        """The value at a subscript or dereference: a function of the array and the
        position, the same for both threads."""
        z3 = self.z3
        indices: list[Node] = []
        n = _strip(node)
        if n.kind == "UNARY_OPERATOR":
            n = _strip(n.children[0])
            indices.append(_ZERO_INDEX)
        while n.kind == "ARRAY_SUBSCRIPT_EXPR" and len(n.children) == 2:
            indices.append(n.children[1])
            n = _strip(n.children[0])
        # positions as 32-bit values, the width the memory function takes
        terms = [C.z3_convert(z3, self.expr(i, scope, depth + 1), _int(i), BITS) for i in reversed(indices)]
        key, offset = self._memory_base(n, scope, depth)
        if offset is not None:
            terms[0] = terms[0] + C.z3_convert(z3, offset, None, BITS)
        sort = z3.BitVecSort(BITS)
        value = z3.Function(f"memory:{key}:{len(terms)}", *([sort] * len(terms)), sort)(*terms)
        self.facts += [value > -SYMBOL_RANGE, value < SYMBOL_RANGE]
        return value

    def _memory_base(self, node: Node, scope: Scope, depth: int):
        """(the array or pointer read, an offset added to the first subscript) for a load,
        through parameters, fields and locals defined once as `base + offset`."""
        n = _strip(node)
        while n.kind == "PAREN_EXPR" and n.children:
            n = _strip(n.children[-1])
        if depth > 12:
            raise NotEncodable()
        if n.kind == "BINARY_OPERATOR" and n.op == "+" and len(n.children) == 2:
            key, offset = self._memory_base(n.children[0], scope, depth + 1)
            extra = self.expr(n.children[1], scope, depth + 1)
            return key, extra if offset is None else offset + extra
        if n.kind not in ("DECL_REF_EXPR", "MEMBER_REF_EXPR") or n.decl is None:
            raise NotEncodable()
        bound = scope.bound(n)
        if bound is not None:
            return self._memory_base(bound[0], bound[1], depth + 1)
        d = n.decl
        if n.kind == "DECL_REF_EXPR" and d.storage == "local" and "[" not in d.type:
            if d.key not in scope.single_defs:
                raise NotEncodable()
            return self._memory_base(scope.single_defs[d.key], scope, depth + 1)
        if n.kind == "MEMBER_REF_EXPR" and n.children and _strip(n.children[0]).kind != "CXX_THIS_EXPR":
            raise NotEncodable()  # a field of some object: which one is not tracked here
        if d.storage == "local":
            return f"{d.key}#{self.t}", None  # a thread's own array
        return d.key, None

    def _decided_by_input(self, node: Node, scope: Scope, depth: int = 0) -> bool:
        """Does the value depend on the thread only through values read from memory, and
        on at least one of them? (Its other operands are constants or the same in the block.)"""
        return self._input_operands(node, scope, depth) is True

    def _input_operands(self, node: Node, scope: Scope, depth: int) -> bool | None:
        """None: a thread-dependent operand other than a load; else whether a load is in it."""
        n = _strip(node)
        while n.kind == "PAREN_EXPR" and n.children:
            n = _strip(n.children[-1])
        if depth > 8:
            return None
        if self._loaded(n, scope):
            return True
        if n.kind in ("INTEGER_LITERAL", "CHARACTER_LITERAL", "CXX_BOOL_LITERAL_EXPR"):
            return False
        if n.children and (n.kind == "BINARY_OPERATOR" and not n.op.endswith("=") or n.op in C.COMPARISONS
                           or n.kind == "UNARY_OPERATOR" and n.op in ("!", "~", "-", "+")
                           or n.kind == "CONDITIONAL_OPERATOR"):
            parts = [self._input_operands(c, scope, depth + 1) for c in n.children]
            return None if any(p is None for p in parts) else any(parts)
        bound = scope.bound(n)
        if bound is not None:
            return self._input_operands(bound[0], bound[1], depth + 1)
        if n.kind in ("DECL_REF_EXPR", "MEMBER_REF_EXPR") and n.decl is not None:
            if isinstance(n.decl.value, int):
                return False
            if n.kind == "DECL_REF_EXPR" and n.decl.storage == "local" and n.decl.key in scope.single_defs:
                return self._input_operands(scope.single_defs[n.decl.key], scope, depth + 1)
            value = scope.analysis.values.get(n.id)
            if value is not None and value.level <= Level.BLOCK and n.decl.key not in self.varying:
                return False
        return None

    def _data_decision(self, node: Node, scope: Scope):
        """This thread's free decision at a comparison (one per comparison and scope), named
        in the order made so that the solver sees the same names on every run."""
        key = (node.id, self.shared.tag(scope))  # (the tag keeps the scope alive, as an id would not)
        decision = self._data_decisions.get(key)
        if decision is None:
            decision = self._data_decisions[key] = self.z3.Bool(
                f"data decision {len(self._data_decisions)} at {node.id}#{self.t}")
        return decision

    def _loaded(self, node: Node, scope: Scope, depth: int = 0) -> bool:
        """Is the value read from memory (a subscript or dereference, or a local defined
        once as one), with nothing else in it?"""
        n = _strip(node)
        while n.kind == "PAREN_EXPR" and n.children:
            n = _strip(n.children[-1])
        if _is_load(n):
            return True
        named = _named_value(n, scope) if depth < 4 else None
        return named is not None and self._loaded(named[0], named[1], depth + 1)


def _reads_memory(node: Node, scope: Scope, depth: int = 0) -> bool:
    """Does the expression read an element of memory, directly or through locals defined
    once and bound parameters?"""
    if depth > 4:
        return False
    for n in node.walk():
        if _is_load(n):
            return True
        named = _named_value(n, scope) if n.kind == "DECL_REF_EXPR" else None
        if named is not None and _reads_memory(named[0], named[1], depth + 1):
            return True
    return False


def _iteration_name(function_key: str, loop) -> str:
    return f"iter:{function_key}:{loop}"


def _member_base(node: Node, scope: "Scope | None", by_value: bool = False):
    """(base, path, element, scope) of a field read `b.a.c` / `b->a` / `b[k].a`: the variable
    it is a field of (followed through the parameters the calls bound, up to 4 levels), the
    field names outermost first, the literal element index k (None without one) and the scope
    the base is read in; None for anything else. With ``by_value``, not through a pointer."""
    path = []
    n = node
    while n.kind == "MEMBER_REF_EXPR" and n.children and n.spelling:
        if by_value and "*" in _strip(n.children[0]).type:
            return None  # through a pointer: memory the kernel may write
        path.append(n.spelling)
        n = _strip(n.children[0])
    element = None
    if not by_value and n.kind == "ARRAY_SUBSCRIPT_EXPR" and len(n.children) == 2 \
            and _strip(n.children[1]).kind == "INTEGER_LITERAL" and isinstance(_strip(n.children[1]).value, int):
        element = _strip(n.children[1]).value
        n = _strip(n.children[0])
    for _ in range(4):
        bound = scope.bound(n) if scope is not None and n.kind == "DECL_REF_EXPR" else None
        if bound is None:
            break
        n, scope = _strip(bound[0]), bound[1]
    if n.kind != "DECL_REF_EXPR" or n.decl is None or not path or C.int_type(node.type) is None:
        return None
    return n, path[::-1], element, scope


def _constant_member(node: Node, scope: "Scope | None" = None) -> str | None:
    """`c.a.b` of a `__constant__` struct variable c, named by its path; None otherwise. The
    struct may be an element of a `__constant__` array (`cfg->a` of `cfg[1]`, `cfg[0].a`) and
    reached through a pointer parameter bound to it in this call (`p->a` with p = cfg)."""
    found = _member_base(node, scope)
    if found is None or found[0].decl.storage != "constant":
        return None
    base, path, element, _ = found
    if "[" in base.decl.type:
        # an array's element: `cfg->a` is its first, `cfg[k].a` its k-th
        return ".".join([f"{base.decl.key}[{element or 0}]"] + path)
    if element is not None:
        return None
    return ".".join([base.decl.key] + path)


def _parameter_member(node: Node, scope: "Scope") -> tuple[str, tuple[str, str]] | None:
    """`p.a.b` of a struct parameter p passed by value (also through parameters of the calls
    that bound it), when its function never assigns p or its fields: its name, and (p's type,
    the field path `a.b`); None otherwise."""
    found = _member_base(node, scope, by_value=True)
    if found is None:
        return None
    base, path, _, base_scope = found
    key, spelling = base.decl.key, base.decl.type
    if base.decl.storage != "param" or "*" in spelling or "&" in spelling \
            or key in base_scope.multi_defs or key in base_scope.fields_assigned:
        return None
    field_path = ".".join(path)
    return f"{key}.{field_path}", (_plain_type(spelling), field_path)


def _plain_type(spelling: str) -> str:
    return " ".join(w for w in spelling.split() if w not in ("const", "volatile"))


def _is_load(n: Node) -> bool:
    """A read of memory: a subscript, a dereference, or a __shared__ scalar or struct member
    (`task.count`), which every thread reads from the one copy the block shares."""
    if n.kind == "ARRAY_SUBSCRIPT_EXPR" or (n.kind == "UNARY_OPERATOR" and n.op == "*"):
        return True
    base = n
    while base.kind == "MEMBER_REF_EXPR" and base.children:
        base = _strip(base.children[0])
    return base.kind == "DECL_REF_EXPR" and base.decl is not None and base.decl.storage == "shared" \
        and "[" not in base.decl.type


def _named_value(n: Node, scope: Scope):
    """What a name stands for, where one expression gives it: a local defined once (its
    definition, in this scope) or a bound parameter (the caller's argument, in its scope)."""
    if n.kind not in ("DECL_REF_EXPR", "MEMBER_REF_EXPR") or n.decl is None:
        return None
    if n.kind == "DECL_REF_EXPR" and n.decl.storage == "local" and n.decl.key in scope.single_defs:
        return scope.single_defs[n.decl.key], scope
    return scope.bound(n)


_BIT_UPDATES = {"^=", "&=", "|="}


def _gated_definitions(body: Node | None, key: str, program=None):
    """(the `if`, the value its then-arm gives the local, the value otherwise) where the
    function's body declares the local with a value and assigns it once more, in a statement
    of an `if` without an else that both sit at the top of the body (or the two arms of an
    `if`/`else` there assign it, each once, and nothing else does); None otherwise."""
    if body is None:
        return None
    defs = _definitions(body, key, program)
    if defs is None or len(defs) not in (2, 3):
        return None
    declared = None
    for stmt in body.children:
        if stmt.kind == "DECL_STMT":
            for var in stmt.children:
                if var.kind == "VAR_DECL" and var.decl is not None and var.decl.key == key:
                    declared = var.children[-1] if var.children else None
        if stmt.kind != "IF_STMT" or len(stmt.children) not in (2, 3):
            continue
        arms = [_arm_value(arm, key) for arm in stmt.children[1:]]
        if len(arms) == 2 and arms[0] is not None and arms[1] is not None and len(defs) == len(arms) + (declared is not None):
            return stmt, arms[0], arms[1]
        if len(arms) == 1 and arms[0] is not None and declared is not None and len(defs) == 2:
            return stmt, arms[0], declared
    return None


def _arm_value(arm: Node, key: str) -> Node | None:
    """The value an arm of an `if` assigns the local by a plain `=` among its top
    statements."""
    statements = arm.children if arm.kind == "COMPOUND_STMT" else [arm]
    for stmt in statements:
        if stmt.kind == "BINARY_OPERATOR" and stmt.op == "=" and len(stmt.children) == 2:
            target = _strip(stmt.children[0])
            if target.kind == "DECL_REF_EXPR" and target.decl is not None and target.decl.key == key:
                return stmt.children[1]
    return None


def _definitions(body: Node | None, key: str, program=None) -> list[Node] | None:
    """The values a function's body gives a local (its initializer, plain assignments, and
    bit updates, `buf ^= 1`, as the expression that computes the new value); None when it
    also changes it otherwise (`+=`, `++`, through its address, a reference parameter the
    callee may assign (with the program: one it only reads is no change) or an asm output)."""
    if body is None:
        return None
    out = []
    for n in body.walk():
        if n.kind == "VAR_DECL" and n.decl is not None and n.decl.key == key:
            if not n.children:
                return None
            out.append(n.children[-1])
        elif n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in ASSIGN_OPS \
                and len(n.children) == 2:
            target = _strip(n.children[0])
            if target.kind == "DECL_REF_EXPR" and target.decl is not None and target.decl.key == key:
                if n.op in _BIT_UPDATES:
                    out.append(n)  # a double buffer's `read ^= 1`: the value it computes
                    continue
                if n.op != "=":
                    return None
                out.append(n.children[1])
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children:
            target = _strip(n.children[0])
            if target.kind == "DECL_REF_EXPR" and target.decl is not None and target.decl.key == key:
                return None
        elif n.kind == "CALL_EXPR" and n.decl is not None:
            # bound to a non-const reference (`cuda::std::tie(inside, index) = f()`)
            args = call_args(n)
            if any(i < len(args) and names_declaration(_strip(args[i]), key)
                   for i in written_reference_arguments(program, n) or ()):
                return None
        elif n.kind == "ASM_STMT" and any(names_declaration(_strip(operand), key) for operand, _ in asm_written_operands(n)):
            target = lane_id_target(n)
            if target is None or not names_declaration(_strip(target), key):
                return None
            out.append(LANE_ID)  # `asm("mov.u32 %0, %%laneid;" : "=r"(lane))`
    return out


def _unknown_candidate(node: Node) -> Node:
    """The expression an unknown may stand for (an integer load, dereference, field, call or
    variable), wrappers stripped; NotEncodable for anything else."""
    n = _strip(node)
    if not (n.type and C.int_type(n.type) is not None) or n.kind not in _MODELLED_AS_UNKNOWN \
            or n.kind == "UNARY_OPERATOR" and n.op != "*":
        raise NotEncodable()
    return n


def helpers_read_as_unknown(program: Program, expression: Node) -> list[str]:
    """The argument-only helpers called in an expression that the encoder reads as unknown
    one-to-one functions of their arguments (their bodies loop or return early, which it does
    not run), for a finding to say that it took them so."""
    names = []
    for n in expression.walk_evaluated():
        callee = program.resolve_call(n.decl) if n.kind == "CALL_EXPR" and n.decl is not None else None
        if callee is None or callee.name in names or program.is_pure(callee) \
                or not program.computes_from_arguments(callee):
            continue
        if any(m.kind in ("FOR_STMT", "WHILE_STMT", "DO_STMT") for m in callee.body.walk()) \
                or sum(m.kind == "RETURN_STMT" for m in callee.body.walk()) > 1:
            names.append(callee.name)
    return names


def _final_return(fn: Function) -> Node | None:
    """The expression of a body's last statement `return e;` when it is the body's only
    return (not inside a lambda)."""
    if fn.body is None or not fn.body.children:
        return None
    last = fn.body.children[-1]
    if last.kind != "RETURN_STMT" or len(last.children) != 1:
        return None
    returns = [n for n in fn.body.walk() if n.kind == "RETURN_STMT"]
    if len(returns) != 1 or any(n.kind == "LAMBDA_EXPR" for n in fn.body.walk()):
        return None
    return last.children[0]


def _literal_values(node: Node, scope: Scope, program=None) -> list[int] | None:
    """The constants a local takes where every definition of it is an integer literal."""
    if node.kind != "DECL_REF_EXPR" or node.decl is None or node.decl.storage != "local":
        return None
    defs = _definitions(scope.analysis.function.body, node.decl.key, program)
    if not defs:
        return None
    values = []
    for d in defs:
        d = _strip(d)
        if d.kind != "INTEGER_LITERAL" or not isinstance(d.value, int):
            return None
        values.append(d.value)
    return sorted(set(values))


def _popcount(z3, word):
    """How many bits of the word are set, as a 32-bit value."""
    return z3.Sum(*[z3.ZeroExt(BITS - 1, z3.Extract(i, i, word)) for i in range(word.size())])


def term_variables(z3, *terms) -> list:
    """The uninterpreted constants some terms are made of."""
    seen, work, found = set(), list(terms), []
    while work:
        t = work.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.append(t)
        work.extend(t.children())
    return found


def _before_its_loop(node: Node, induction, scope: Scope) -> bool:
    """Is the reference read before the induction's loop, with no loop around both (which
    would bring it back after the loop has stepped it)?"""
    loop = induction.loop_stmt
    if loop is None or node.start >= loop.start:
        return False
    body = scope.analysis.function.body
    return body is not None and not any(
        n.kind in ("FOR_STMT", "WHILE_STMT", "DO_STMT") and n.start <= node.start and loop.end <= n.end
        for n in body.walk())


class _Held(Node):
    """A variable's value given as a term (while the values a local takes are worked out)."""

    def __init__(self, term, type_spelling: str):
        super().__init__(-5, "HELD_VALUE")
        self.term = term
        self.type = type_spelling


# The lane masks CUDA offers for a thread's lane.
_LANE_MASKS = {
    "__lanemask_lt": lambda z3, lane: (constant_term(z3, 1) << lane) - 1,
    "__lanemask_le": lambda z3, lane: ((constant_term(z3, 1) << lane) << 1) - 1,
    "__lanemask_eq": lambda z3, lane: constant_term(z3, 1) << lane,
    "__lanemask_gt": lambda z3, lane: ~(((constant_term(z3, 1) << lane) << 1) - 1),
    "__lanemask_ge": lambda z3, lane: ~((constant_term(z3, 1) << lane) - 1),
}


# How each shuffle picks the lane it reads: (kind, index of the value, of the lane or
# delta, of the width or None), by the name the call is written with.
_SHUFFLES = {"__shfl_sync": ("idx", 1, 2, 3), "__shfl_up_sync": ("up", 1, 2, 3),
             "__shfl_down_sync": ("down", 1, 2, 3), "__shfl_xor_sync": ("xor", 1, 2, 3),
             "__shfl": ("idx", 0, 1, 2), "__shfl_up": ("up", 0, 1, 2),
             "__shfl_down": ("down", 0, 1, 2), "__shfl_xor": ("xor", 0, 1, 2)}
_TILE_SHUFFLES = {"shfl": "idx", "shfl_up": "up", "shfl_down": "down", "shfl_xor": "xor"}


def _shuffle_operands(call: Node, prim, args: list[Node]):
    """(kind, value, lane or delta, width or None) for a shuffle of the whole warp or of a
    tile of it; None for any other call."""
    from syncheck.analyses import primitives as P
    if prim is None:
        return None
    if prim.category in (P.WARP_COLLECTIVE, P.LEGACY_WARP) and prim.name in _SHUFFLES:
        kind, v, s, w = _SHUFFLES[prim.name]
        if len(args) <= s:
            return None
        width = args[w] if len(args) > w else None
        if width is not None and is_default_argument(width):
            width = None  # the default argument: the whole warp
        return kind, args[v], args[s], width
    method = prim.name.rsplit(".", 1)[-1].split("(")[0]
    if prim.category == P.TILE_COLLECTIVE and prim.group is not None and method in _TILE_SHUFFLES \
            and prim.tile_size in (1, 2, 4, 8, 16, 32) and len(args) == 2:
        width = Node(-4, "INTEGER_LITERAL")
        width.value = prim.tile_size
        return _TILE_SHUFFLES[method], args[0], args[1], width
    return None


def _returned_local_value(statements: list[Node], returned: Node) -> Node | None:
    """The value a function returns through a local that its other statements declare and
    set exactly once; None when they do anything else."""
    ref = _strip(returned)
    if ref.kind != "DECL_REF_EXPR" or ref.decl is None or ref.decl.storage != "local":
        return None
    key = ref.decl.key
    value = None
    for stmt in statements:
        if stmt.kind == "DECL_STMT" and len(stmt.children) == 1:
            stmt = stmt.children[0]
        found = None
        if stmt.kind == "VAR_DECL" and stmt.decl is not None and stmt.decl.key == key:
            found = stmt.children[-1] if stmt.children else None
        elif stmt.kind == "BINARY_OPERATOR" and stmt.op == "=" and len(stmt.children) == 2 \
                and _strip(stmt.children[0]).kind == "DECL_REF_EXPR" \
                and _strip(stmt.children[0]).decl is not None and _strip(stmt.children[0]).decl.key == key:
            found = stmt.children[1]
        elif lane_id_target(stmt) is not None and names_declaration(_strip(lane_id_target(stmt)), key):
            found = LANE_ID
        else:
            return None
        if found is not None:
            if value is not None:
                return None
            value = found
    return value


def _declared_once(statements: list[Node]) -> dict[str, Node]:
    """local -> its value, where every statement declares locals with their values (each
    once, none assigned later); {} when any statement does anything else."""
    values: dict[str, Node] = {}
    for stmt in statements:
        if stmt.kind != "DECL_STMT" or not stmt.children:
            return {}
        for var in stmt.children:
            if var.kind != "VAR_DECL" or var.decl is None or not var.children or var.decl.key in values \
                    or "&" in (var.decl.type or "") or "[" in (var.decl.type or ""):
                return {}
            values[var.decl.key] = var.children[-1]
    return values


_ZERO_INDEX = Node(-2, "INTEGER_LITERAL")
_ZERO_INDEX.value = 0


def _int(node: Node) -> "C.IntType | None":
    """The integer type of an expression (None: not an integer, or no type recorded)."""
    return C.int_type(node.type) if node.type else None


def _is_one(z3, term) -> bool:
    simple = z3.simplify(term)
    return z3.is_bv_value(simple) and simple.as_long() == 1


def _one_bit_mask(z3, term) -> bool:
    """Is the term `1 << k` (through widening conversions)?"""
    while z3.is_app_of(term, z3.Z3_OP_ZERO_EXT) or z3.is_app_of(term, z3.Z3_OP_SIGN_EXT):
        term = term.arg(0)
    return z3.is_app_of(term, z3.Z3_OP_BSHL) and _is_one(z3, term.arg(0))


def _operation_type(node: Node) -> "C.IntType | None":
    left, right = node.children
    return C.operation_type(node.op, node.type, left.type, right.type)


_LOOP_EXITS = ("BREAK_STMT", "RETURN_STMT", "GOTO_STMT")


def _step_toward_bound(induction, counter: Node) -> int:
    """For a counter stepped by `+= s` or `-= s` with s not a constant, in a loop whose only
    exit is its test `counter < bound` (or `<=`, `>`, `>=`, either side): +1 when s must be
    positive for the loop to end, -1 when negative, 0 when nothing follows."""
    loop = induction.loop_stmt
    if loop is None or induction.op not in ("+", "-") or counter.decl is None:
        return 0
    counter_type = C.int_type(counter.type)
    if counter_type is not None and not counter_type.signed:
        return 0  # wrapping is defined: a huge step leaves the loop at once
    cond = loop.child_by_role("cond")
    body = loop.child_by_role("body")
    if cond is None or body is None or any(n.kind in _LOOP_EXITS for n in body.walk()):
        return 0
    cond = _strip(cond)
    if cond.kind != "BINARY_OPERATOR" or cond.op not in ("<", "<=", ">", ">=") or len(cond.children) != 2:
        return 0
    sides = [_strip(c) for c in cond.children]
    is_counter = [c.kind == "DECL_REF_EXPR" and c.decl is not None and c.decl.key == counter.decl.key
                  for c in sides]
    if is_counter[0] == is_counter[1]:
        return 0
    rising = (cond.op in ("<", "<=")) == is_counter[0]  # the loop runs while the counter is low
    return (1 if rising else -1) * (1 if induction.op == "+" else -1)


def context_scopes(service: UniformityService, root: Function, frames) -> list:
    """One encoder scope per frame of a call chain, parameters bound to the callers' arguments."""
    from syncheck.analyses.shared_memory import call_bindings, function_scope
    scopes = [function_scope(root, service.analyze(root), {}, service.program)]
    field_keys: set[str] = set()
    for frame in frames:
        callee = frame.analysis.function
        # parameters, template arguments, and a method's fields as its object's constructor set them
        bindings = call_bindings(service.program, frame.site.node, callee, frame.site.args, scopes[-1], field_keys)
        scopes.append(function_scope(callee, frame.analysis, bindings, service.program))
    return scopes


def same_for_every_thread(program: Program, service: UniformityService, root: Function, frames,
                          depth: int, cond: Node, group: int, assumed: tuple = (), value: bool = False) -> bool:
    """Proof that a decision the taint analysis calls thread-dependent comes out the same for
    any two threads of one group of ``group`` threads (a block: 1024), over every block shape
    the kernel admits (or the one its launches use), the launch relations and, in loops, at
    the same iteration: `for (t = base + tid; t < end + tid; t += C)` or a bound rounded up
    to the block size. ``assumed``: (depth, condition, polarity) of compile-time decisions
    that hold where the decision matters. False when unproven (undecided within the budget
    included). ``value``: the decision is a switch on ``cond``, whose value must be the same."""
    return same_in_scopes(program, service, root, context_scopes(service, root, frames), depth, cond,
                          group, assumed, value)


def implies_for_every_thread(program: Program, service: UniformityService, root: Function, frames,
                             depth: int, premise: Node, premise_holds: bool, conclusion: Node) -> bool:
    """Proof that for every thread, where ``premise`` comes out ``premise_holds``, the
    ``conclusion`` holds too, evaluated at one point (the same iteration of the loops
    around both): `i < align_down(n, 32)` implies `i < n`. False when unproven."""
    z3 = z3_module()
    shape = service.shape_of(root).block_dim
    dims = tuple(constant_term(z3, d) for d in shape) if shape else tuple(bitvector(z3, f"blockDim.{a}") for a in "xyz")
    scopes = context_scopes(service, root, frames)
    enc = Encoder(1, SharedSymbols(), set(), dims, program)
    enc.service = service
    try:
        given = enc.cond(premise, scopes[depth])
        then = enc.cond(conclusion, scopes[depth])
    except NotEncodable:
        return False
    solver = z3.Solver()
    solver.set("rlimit", PROOF_LIMIT)
    tx, ty, tz = enc.tid
    bx, by, bz = dims
    solver.add(tx >= 0, tx < bx, ty >= 0, ty < by, tz >= 0, tz < bz)
    if not shape:
        solver.add(bx >= 1, bx <= 1024, by >= 1, by <= 1024, bz >= 1, bz <= 64, z3.ULE(bx * by * bz, 1024))
    for k in enc.iteration_counters:
        solver.add(k >= 0, k < SYMBOL_RANGE)
    solver.add(*enc.facts)
    solver.add(given if premise_holds else z3.Not(given), z3.Not(then))
    verdict = solver.check()
    count_decision(f"implication solver: {verdict}")
    return verdict == z3.unsat


def same_in_scopes(program: Program, service: UniformityService, root: Function, scopes: list,
                   depth: int, cond: Node, group: int, assumed: tuple = (), value: bool = False) -> bool:
    """same_for_every_thread, with the encoder scopes of the call chain given (``scopes[0]``
    the kernel's, ``scopes[depth]`` the decision's)."""
    z3 = z3_module()
    shape = service.shape_of(root).block_dim
    dims = tuple(constant_term(z3, d) for d in shape) if shape else tuple(bitvector(z3, f"blockDim.{a}") for a in "xyz")
    shared = SharedSymbols()
    e1 = Encoder(1, shared, set(), dims, program)
    e2 = Encoder(2, shared, set(), dims, program)
    e1.proof_group = e2.proof_group = group
    e1.service = e2.service = service
    try:
        if value:
            c1, c2 = e1.expr(cond, scopes[depth]), e2.expr(cond, scopes[depth])
        else:
            c1, c2 = e1.cond(cond, scopes[depth]), e2.cond(cond, scopes[depth])
    except NotEncodable:
        return False
    if not value:
        c1, c2 = (_rounded_to_block(z3, c, enc.tid, dims) for c, enc in ((c1, e1), (c2, e2)))
        if group == 32:
            c1, c2 = (_rounded_to_warp(z3, c, enc.tid, dims) for c, enc in ((c1, e1), (c2, e2)))
    solver = z3.Solver()
    solver.set("rlimit", PROOF_LIMIT)
    bx, by, bz = dims
    if not shape:
        solver.add(bx >= 1, bx <= 1024, by >= 1, by <= 1024, bz >= 1, bz <= 64, z3.ULE(bx * by * bz, 1024))
        choices = service.launch_shapes.shape_choices(root) if root.kind == "kernel" else None
        if choices:
            # The launches pick among a few shapes: the decision must be the same under each.
            solver.add(z3.Or(*[z3.And(bx == x, by == y, bz == z) for x, y, z in choices]))
    for enc in (e1, e2):
        tx, ty, tz = enc.tid
        solver.add(tx >= 0, tx < bx, ty >= 0, ty < by, tz >= 0, tz < bz)
    for name, sym in list(shared.items()):
        if name.startswith("blockIdx") or name.startswith("gridDim"):
            solver.add(sym >= 0, sym < SYMBOL_RANGE)
        elif not name.startswith(("blockDim", WHOLE_WORD)):
            solver.add(sym > -SYMBOL_RANGE, sym < SYMBOL_RANGE)
    for k in e1.iteration_counters + e2.iteration_counters:
        solver.add(k >= 0, k < SYMBOL_RANGE)
    solver.add(*e1.facts, *e2.facts)
    for axis, form in service.launch_shapes.relations(root).items():
        term = relation_term(e1, form)
        if term is not None:
            solver.add(dims[axis] == term)
    if root.kind == "kernel":
        for key, value in service.launch_shapes.argument_constants(root).items():
            if key in shared:
                solver.add(shared[key] == value)  # what every launch passes for it
    if root.kind == "kernel":
        solver.add(*parameter_facts(e1, service.launch_shapes.argument_facts(root), root))
        solver.add(*launch_relations(e1, service.launch_shapes.argument_relations(root), root))
        solver.add(*launch_relations(e1, service.launch_shapes.grid_relations(root), root))
    from syncheck.analyses.preconditions import kernel_preconditions
    for fact, holds in kernel_preconditions(root) if root.kind == "kernel" else ():
        try:
            for enc in (e1, e2):
                term = enc.cond(fact, scopes[0])
                solver.add(term if holds else z3.Not(term))
        except NotEncodable:
            pass  # a promise the encoder cannot read only weakens the proof
    for at, fact, holds in assumed:
        try:
            for enc in (e1, e2):
                term = enc.cond(fact, scopes[at])
                solver.add(term if holds else z3.Not(term))
        except NotEncodable:
            pass  # only weakens the proof
    if group < 1024:
        solver.add(e1.linear() / group == e2.linear() / group)
    solver.add(c1 != c2)
    symbols = [*e1.tid, *e2.tid, *shared.values(), *e1.private.values(), *e2.private.values(),
               *e1.iteration_counters, *e2.iteration_counters]
    if not shape:
        symbols += list(dims)
    if _concrete_witness(z3, solver, symbols, e1.tid, e2.tid, None if shape else dims):
        count_decision("proof fast: two concrete threads decide differently")
        return False  # satisfiable: the solver could not have proved it either
    verdict = solver.check()
    count_decision(f"proof solver: {verdict}")
    return verdict == z3.unsat


# Block shapes, values of the other symbols and second threads tried before the solver when a
# proof is wanted that a decision is the same for every thread (the first thread is 0,0,0).
_WITNESS_SHAPES = ((256, 1, 1), (32, 1, 1), (1024, 1, 1), (64, 1, 1), (16, 16, 1), (32, 32, 1))


_WITNESS_VALUES = (0, 1, 1024, 3)


# A strict comparison, and the side of it that may hold the thread index (0: left): `t + k*bd
# < n` reads `t` on the small side; `n > t + k*bd` on the right; `>=` and `<=` are the negations.
_STRICT_SIDES = {"Z3_OP_SLT": 0, "Z3_OP_ULT": 0, "Z3_OP_SGEQ": 0, "Z3_OP_UGEQ": 0,
                 "Z3_OP_SGT": 1, "Z3_OP_UGT": 1, "Z3_OP_SLEQ": 1, "Z3_OP_ULEQ": 1}


def _rounded_to_block(z3, cond, tid, dims):
    """A test of a thread index against a bound rounded up to the block size, both stepped by
    whole blocks: `tid + bid*bd + k*bd*gd < ((n + bd - 1) / bd) * bd` (a grid-stride loop
    that keeps every thread of the block for the same iterations). When everything but the
    index is a multiple of the block's extent bd on that axis and 0 <= tid < bd, the test is
    the same as with tid = 0: between two multiples of bd, adding less than bd never crosses
    the next one. The bit-vector solver cannot see that through the division and products
    within its budget; the terms are rewritten so that it need not. Indices do not wrap around
    (as the race check assumes)."""
    def is_extent(term, extent):
        while z3.is_app_of(term, z3.Z3_OP_ZERO_EXT):
            term = term.arg(0)
        return term.eq(extent)

    def multiple(term, extent) -> bool:
        if is_extent(term, extent) or (z3.is_bv_value(term) and term.as_long() == 0):
            return True
        if z3.is_app_of(term, z3.Z3_OP_EXTRACT) and term.params()[1] == 0:
            return multiple(term.arg(0), extent)  # the low bits of a wider value (no wrap)
        if z3.is_app_of(term, z3.Z3_OP_ZERO_EXT) or z3.is_app_of(term, z3.Z3_OP_SIGN_EXT):
            return multiple(term.arg(0), extent)
        if z3.is_app_of(term, z3.Z3_OP_BMUL):
            return any(multiple(c, extent) for c in term.children())
        if z3.is_app_of(term, z3.Z3_OP_BADD) or z3.is_app_of(term, z3.Z3_OP_BSUB):
            return all(multiple(c, extent) for c in term.children())
        return False

    def rewritten(atom):
        side = _STRICT_SIDES.get(_op_name(z3, atom))
        if side is None or atom.num_args() != 2:
            return None
        small, large = atom.arg(side), atom.arg(1 - side)
        for axis, t in enumerate(tid):
            parts = _summands(z3, small)
            at = [i for i, p in enumerate(parts) if p.eq(t)]
            rest = parts[:at[0]] + parts[at[0] + 1:] if len(at) == 1 else None
            if rest is None or not all(multiple(p, dims[axis]) for p in rest) or \
                    not all(multiple(p, dims[axis]) for p in _summands(z3, large)):
                continue
            if any(_mentions(z3, p, t) for p in rest) or _mentions(z3, large, t):
                continue
            zero = z3.BitVecVal(0, t.size())
            args = [z3.substitute(small, (t, zero)), large]
            return atom.decl()(*(args if side == 0 else args[::-1]))
        return None

    return _comparisons_rewritten(z3, cond, rewritten)


def _rounded_to_warp(z3, cond, tid, dims):
    """A test of a lane against a bound that starts and ends on whole warps: `s + lane + k*32
    < s + E` where E is a multiple of 32 (`(n + 31) & ~31`), a warp's range of elements
    walked 32 at a time. Without the summands both sides share (s, the warp's start) the
    rest is a multiple of 32 but the lane, and 0 <= lane < 32: the test is the same as with
    lane 0, for every lane of the warp. threadIdx.x in a block whose rows are whole warps is
    its warp's first index plus the lane. Rewritten so, as the solver does not see it
    through the masks within its budget. Indices do not wrap around (as the race check
    assumes)."""
    row = dims[0].as_long() if z3.is_bv_value(dims[0]) else None
    whole_rows = row is not None and row % 32 == 0

    def constant(term) -> int | None:
        folded = z3.simplify(term)
        return folded.as_long() if z3.is_bv_value(folded) else None

    def lane(term) -> bool:
        """`x & 31` or `x % 32` of a thread's index."""
        if not any(_mentions(z3, term, t) for t in tid):
            return False
        if z3.is_app_of(term, z3.Z3_OP_BAND) and term.num_args() == 2:
            return 31 in (constant(term.arg(0)), constant(term.arg(1)))
        if term.decl().kind() in (z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I) and term.num_args() == 2:
            return constant(term.arg(1)) == 32
        return False

    def multiple(term, depth: int = 0) -> bool:
        value = constant(term) if not any(_mentions(z3, term, t) for t in tid) and depth < 8 else None
        if value is not None:
            return value % 32 == 0
        if depth > 8 or not z3.is_app(term):
            return False
        if z3.is_app_of(term, z3.Z3_OP_EXTRACT) and term.params()[1] == 0:
            return multiple(term.arg(0), depth + 1)
        if z3.is_app_of(term, z3.Z3_OP_ZERO_EXT) or z3.is_app_of(term, z3.Z3_OP_SIGN_EXT):
            return multiple(term.arg(0), depth + 1)
        if z3.is_app_of(term, z3.Z3_OP_BMUL):
            return any(multiple(c, depth + 1) for c in term.children())
        if z3.is_app_of(term, z3.Z3_OP_BADD) or z3.is_app_of(term, z3.Z3_OP_BSUB):
            return all(multiple(c, depth + 1) for c in term.children())
        if z3.is_app_of(term, z3.Z3_OP_BAND):
            masks = [constant(c) for c in term.children()]
            return any(m is not None and m % 32 == 0 for m in masks) or \
                any(multiple(c, depth + 1) for c in term.children())
        if z3.is_app_of(term, z3.Z3_OP_BSHL) and term.num_args() == 2:
            shift = constant(term.arg(1))
            return (shift is not None and shift >= 5) or multiple(term.arg(0), depth + 1)
        return False

    def rewritten(atom):
        side = _STRICT_SIDES.get(_op_name(z3, atom))
        if side is None or atom.num_args() != 2:
            return None
        small, large = _summands(z3, atom.arg(side)), _summands(z3, atom.arg(1 - side))
        for part in list(large):
            same = next((i for i, q in enumerate(small) if q.eq(part)), None)
            if same is not None:
                small.pop(same)
                large.remove(part)
        lanes = [p for p in small if lane(p) or (whole_rows and p.eq(tid[0]))]
        if len(lanes) != 1 or not large:
            return None
        rest = [p for p in small if p is not lanes[0]]
        if not all(multiple(p) for p in rest) or not all(multiple(p) for p in large):
            return None
        width = atom.arg(side).size()
        if lanes[0].eq(tid[0]):
            rest.append(tid[0] & z3.BitVecVal(~31 & ((1 << width) - 1), width))  # the warp's first index
        zero = z3.BitVecVal(0, width)
        low = z3.Sum(rest) if rest else zero
        high = z3.Sum(large) if len(large) > 1 else large[0]
        args = [low, high]
        return atom.decl()(*(args if side == 0 else args[::-1]))

    return _comparisons_rewritten(z3, cond, rewritten)


def _summands(z3, term) -> list:
    """The terms a sum adds (a + (b + c): a, b, c)."""
    if z3.is_app_of(term, z3.Z3_OP_BADD):
        return [s for child in term.children() for s in _summands(z3, child)]
    return [term]


def _comparisons_rewritten(z3, cond, rewritten):
    """``cond`` with each comparison of bit-vectors that ``rewritten`` rewrites (None: kept)
    replaced, through and, or and not."""
    if z3.is_bool(cond) and z3.is_app(cond) and cond.num_args() == 2 and \
            cond.arg(0).sort().kind() == z3.Z3_BV_SORT:
        done = rewritten(cond)
        return done if done is not None else cond
    if z3.is_app_of(cond, z3.Z3_OP_AND) or z3.is_app_of(cond, z3.Z3_OP_OR) or \
            z3.is_app_of(cond, z3.Z3_OP_NOT):
        return cond.decl()(*[_comparisons_rewritten(z3, c, rewritten) for c in cond.children()])
    return cond


def _op_name(z3, term) -> str:
    kind = term.decl().kind()
    for name in _STRICT_SIDES:
        if kind == getattr(z3, name):
            return name
    return ""


def _divides_by_unknown(z3, term) -> bool:
    """Does the term divide (or take a remainder) by anything but a constant?"""
    seen: set[int] = set()
    todo = [term]
    while todo:
        t = todo.pop()
        if not z3.is_app(t) or t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if t.decl().kind() in _division_kinds(z3) and not z3.is_bv_value(t.arg(1)):
            return True
        todo.extend(t.children())
    return False


def _division_kinds(z3) -> tuple:
    return (z3.Z3_OP_BUDIV, z3.Z3_OP_BSDIV, z3.Z3_OP_BUREM, z3.Z3_OP_BSREM, z3.Z3_OP_BSMOD,
            z3.Z3_OP_BUDIV_I, z3.Z3_OP_BSDIV_I, z3.Z3_OP_BUREM_I, z3.Z3_OP_BSREM_I, z3.Z3_OP_BSMOD_I)


def _mentions(z3, term, symbol) -> bool:
    if term.eq(symbol):
        return True
    return z3.is_app(term) and any(_mentions(z3, c, symbol) for c in term.children())


def _concrete_witness(z3, solver, symbols, t1, t2, dims) -> bool:
    """Do concrete values of every symbol satisfy all the solver's assertions? Then the query
    is satisfiable, whatever the solver would say under its budget (sat, or unknown: both
    mean "not proven", which is what the caller returns). Checked by z3's own evaluation of
    the substituted formula, so the arithmetic is the solver's; a formula that does not come
    out a constant (a symbol this list misses) is no witness."""
    formula = z3.And(*solver.assertions())
    others = [s for s in symbols if not any(s.eq(t) for t in (*t1, *t2, *(dims or ())))]
    shapes = _WITNESS_SHAPES if dims is not None else (None,)
    val = lambda v: z3.BitVecVal(v, BITS)  # noqa: E731
    for shape in shapes:
        fixed_dims = list(zip(dims, map(val, shape))) if shape else []
        bx = shape[0] if shape else 1024
        for value in _WITNESS_VALUES:
            # the first iteration in the first block of a one-block grid; every other symbol
            # the value tried
            rest = [(s, val(0 if str(s).startswith(("blockIdx", "iter:")) else
                            1 if str(s).startswith("gridDim") else value)) for s in others]
            for second in ((1, 0, 0), (32, 0, 0), (bx - 1, 0, 0), (0, 1, 0)):
                subst = fixed_dims + rest + [(t, val(0)) for t in t1] + \
                    [(t, val(v)) for t, v in zip(t2, second)]
                if z3.is_true(z3.simplify(z3.substitute(formula, *subst))):
                    return True
    return False


def lane_outside_mask(program: Program, service: UniformityService, root: Function, frames,
                      site, mask_node: Node):
    """A thread that executes a *_sync call although its own lane is not in the mask it
    passes (every calling lane must name itself), as ((x, y, z), lane, mask), or None. Needs
    the block shape (from the launches or a pin): masks are usually built from it."""
    from syncheck.analyses.uniformity import effective_controllers
    shape = service.shape_of(root).block_dim
    if not shape:
        return None
    z3 = z3_module()
    scopes = context_scopes(service, root, frames)
    dims = tuple(constant_term(z3, d) for d in shape)
    enc = Encoder(1, SharedSymbols(), set(), dims, program, thread_shifts=True)
    try:
        mask = C.z3_convert(z3, enc.expr(mask_node, scopes[-1]), _int(mask_node), BITS)
        if any(str(v) in enc.merged_unknowns for v in term_variables(z3, mask)):
            return None  # a mask assigned in places syncheck did not follow: any word at all
        guards = []
        for depth, c in effective_controllers(site, frames):
            if c.polarity is None:
                continue
            try:
                g = enc.cond(c.cond, scopes[depth])
            except NotEncodable:
                if c.level > Level.WARP:
                    return None
                # the whole warp decides alike: as a vote of the same local decides
                # (`m = __ballot_sync(FULL, p); if (p) __syncwarp(m);`), or unrelated to the
                # mask (`if (__all_sync(FULL, k == next))`): some warp takes this side, with
                # every lane; which lanes call is not in it
                g = enc.named_decision(c.cond, scopes[depth])
                if g is None:
                    continue
            guards.append(g if c.polarity else z3.Not(g))
    except NotEncodable:
        return None
    solver = z3.Solver()
    solver.set("rlimit", RESOURCE_LIMIT)
    tx, ty, tz = enc.tid
    solver.add(tx >= 0, tx < dims[0], ty >= 0, ty < dims[1], tz >= 0, tz < dims[2])
    for name, sym in list(enc.shared.items()) + list(enc.private.items()):
        if not name.startswith(WHOLE_WORD):
            solver.add(sym > -SYMBOL_RANGE, sym < SYMBOL_RANGE)
    lane = z3.URem(enc.linear(), 32)
    for k in enc.iteration_counters:
        solver.add(k >= 0, k < SYMBOL_RANGE)  # an iteration count is not negative
    solver.add(*guards, *enc.facts)
    solver.add(z3.LShR(mask, lane) & 1 == 0)
    if solver.check() != z3.sat:
        return None
    # Two views of one struct type passed together (an input and an output image) describe
    # one extent: a mask that leaves a lane out only where `img.cols` and `labels.cols`
    # differ is not reported.
    same_views = _same_view_fields(z3, enc)
    if same_views:
        solver.push()
        solver.add(*same_views)
        if solver.check() != z3.sat:
            return None
    model = solver.model()
    value = lambda t: model.eval(t, model_completion=True).as_long()
    return (value(tx), value(ty), value(tz)), value(lane), value(mask)


def _same_view_fields(z3, enc: Encoder) -> list:
    """Equalities between the same field of by-value struct parameters of one type."""
    symbols = {str(t): t for t in enc.shared.values()}
    groups: dict[tuple[str, str], list] = {}
    for name, view in enc.parameter_members.items():
        if name in symbols:
            groups.setdefault(view, []).append(symbols[name])
    return [t == terms[0] for terms in groups.values() for t in terms[1:] if t.size() == terms[0].size()]


def relation_term(enc: Encoder, form: tuple):
    kind = form[0]
    if kind == "param":
        return enc.sym(form[1], per_thread=False)
    if kind == "const":
        return constant_term(enc.z3, form[1]) if isinstance(form[1], int) else None
    if kind == "block":
        return enc.dims[form[1]]
    if kind == "?":
        test = fact_term(enc, form[1])
        then, other = relation_term(enc, form[2]), relation_term(enc, form[3])
        if test is None or then is None or other is None:
            return None
        return enc.z3.If(test, then, other)
    left, right = relation_term(enc, form[1]), relation_term(enc, form[2])
    if left is None or right is None:
        return None
    return {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
            "/": lambda: left / right, "%": lambda: enc.z3.SRem(left, right)}[kind]()


def fact_term(enc: Encoder, fact: tuple):
    """A launch fact (launch_shapes.argument_facts: a comparison of two relation trees) as a
    condition, or None when a side cannot be written."""
    op, left, right = fact
    a, b = relation_term(enc, left), relation_term(enc, right)
    if a is None or b is None:
        return None
    return {"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
            ">": lambda: a > b, ">=": lambda: a >= b}[op]()


def launch_relations(enc: Encoder, relations: dict[str, tuple], kernel: Function) -> list:
    """What every launch gives some of the kernel's symbols (a parameter's argument, a
    gridDim axis) in terms of the block shape and the other arguments, as relation trees keyed
    by the symbol's name (launch_shapes.argument_relations, grid_relations): the equalities for
    symbols and parameters the encoder has met and the kernel never assigns."""
    from syncheck.analyses.preconditions import assigned_variables
    if not relations:
        return []
    changed = assigned_variables(kernel)
    out = []
    for name, form in sorted(relations.items()):
        names = _parameters_of(form)
        if not names <= set(enc.shared) or (names | {name}) & changed:
            continue
        if name not in enc.shared and not name.startswith("gridDim."):
            continue
        term = relation_term(enc, form)
        if term is None:
            continue
        if name in enc.shared:
            out.append(enc.shared[name] == term)
        else:
            # a grid the query does not name still has every dimension of at least one
            # block: `<<<dim3(b, min(nx, ny)), ...>>>` runs only where nx and ny are >= 1
            out.append(term >= 1)
    return out


def parameter_facts(enc: Encoder, facts: tuple, kernel: Function) -> list:
    """What every launch's host code checked on the kernel's parameters (``facts``, from
    launch_shapes.argument_facts), for parameters the encoder has met and the kernel never
    assigns (the facts speak of their values at entry)."""
    from syncheck.analyses.preconditions import assigned_variables
    if not facts:
        return []
    changed = assigned_variables(kernel)
    out = []
    for fact in facts:
        names = _parameters_of(fact)
        if not names <= set(enc.shared) or names & changed:
            continue
        term = fact_term(enc, fact)
        if term is not None:
            out.append(term)
    return out


def tied_parameters(block_relations: dict, argument_relations: dict, argument_facts: tuple) -> set[str]:
    """The kernel parameters that what the launches pass relates to other values: those a
    relation names or defines, and those a checked fact names."""
    forms = list(block_relations.values()) + list(argument_relations.values()) + list(argument_facts)
    return set(argument_relations).union(*(_parameters_of(f) for f in forms))


def _parameters_of(form: tuple) -> set[str]:
    if form[0] == "param":
        return {form[1]}
    if form[0] in ("const", "block"):
        return set()
    return set().union(*(_parameters_of(f) for f in form[1:]))


def smallest_example(solver, e1: Encoder, e2: Encoder, dims=None):
    """The example pair with the lowest thread ids, in lexicographic order (z, y, x of the
    first thread, then of the second): the same answer whatever the solver saw before, so
    output does not depend on -j or on the order files are analyzed in. Each coordinate is
    fixed in turn by bisection on the incremental solver (much cheaper than z3's Optimize)."""
    z3 = z3_module()
    fixed = 0
    # With a free block shape the smallest block comes first (z, y, then x).
    free = [(d, 1) for d in reversed(dims)] if dims is not None else []
    # The least value is unique, so narrowing the search with each model's own value (a
    # solution with that value exists) finds the same one in far fewer checks.
    model = solver.model() if solver.check() == z3.sat else None
    for t, least in free + [(t, 0) for t in (e1.tid[2], e1.tid[1], e1.tid[0],
                                                 e2.tid[2], e2.tid[1], e2.tid[0])]:
        low, high = least, 1024  # indices and sizes are at most 1024 in every dimension
        best = None  # a model whose value of t is ``high``
        if model is not None:
            v = model_value(model, t)
            if low <= v <= high:
                high, best = v, model
        # Two probes settle most coordinates at once: is the least value possible (thread 0
        # of a dimension), else is the model's value already the least. The least value is
        # the same whichever bounds are asked on the way.
        probes = [low, high - 1] if low < high else []
        while low < high:
            mid = probes.pop(0) if probes else (low + high) // 2
            if not low <= mid < high:
                continue
            solver.push()
            solver.add(z3.ULE(t, mid))
            found = solver.check() == z3.sat
            if found:
                m = solver.model()
                v = model_value(m, t)
                high, best = (v, m) if low <= v <= mid else (mid, None)
            solver.pop()
            if not found:
                low = mid + 1
        solver.push()
        fixed += 1
        solver.add(t == low)
        if best is not None and model_value(best, t) == low:
            model = best
        else:
            model = solver.model() if solver.check() == z3.sat else None
    ok = solver.check() == z3.sat
    model = solver.model() if ok else None
    for _ in range(fixed):
        solver.pop()
    if model is None:
        return None
    shape = tuple(model.eval(d, model_completion=True).as_long() for d in dims) if dims is not None else None
    return example_threads(model, e1, e2), shape


def model_value(model, t) -> int:
    v = model.eval(t, model_completion=True)
    try:
        return v.as_long()
    except AttributeError:
        return 1024


def example_threads(model, e1: Encoder, e2: Encoder):
    def val(t):
        v = model.eval(t, model_completion=True)
        try:
            return v.as_long()
        except AttributeError:
            return 0
    return (tuple(val(t) for t in e1.tid), tuple(val(t) for t in e2.tid))
