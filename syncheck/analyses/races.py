"""Shared-memory race detection: can two different threads touch the same element of a
shared array within one barrier interval, with at least one of them writing?

Index expressions and guards are encoded for two symbolic threads and handed to z3.
Anything syncheck cannot encode (data-dependent indices, opaque thread-dependent guards)
makes it give up on that pair instead of guessing: precision first.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncheck.analyses.barrier_intervals import BarrierIntervals
from syncheck.analyses.levels import Level
from syncheck.analyses.shared_memory import Access, KernelAccesses, Scope
from syncheck.analyses.uniformity import UniformityService
from syncheck.ir.nodes import POINTER_WRAPPERS, Node, strip_wrappers, structural_key
from syncheck.ir.program import Function, Program

_Z3 = None


def _z3():
    global _Z3
    if _Z3 is None:
        import z3
        _Z3 = z3
    return _Z3


_BITS = 32
# Symbols other than thread indices stay in this range, so that index arithmetic cannot wrap
# around and invent collisions (indices are assumed not to overflow).
_SYMBOL_RANGE = 1 << 20


def fresh_solver_context() -> None:
    """Start a new z3 context: z3 keeps caches per context, so the same query under the same
    resource budget can be decided or not depending on the queries before it."""
    if _Z3 is not None:
        import z3.z3 as core
        core._main_ctx = None


def _bv(z3, name: str):
    return z3.BitVec(name, _BITS)


def _val(z3, v: int):
    return z3.BitVecVal(v, _BITS)


# Deterministic solver budget (z3 resource units, not seconds): the same query gets the same
# answer on a loaded machine. Queries seen on real code use at most ~1.4M units.
RESOURCE_LIMIT = 4_000_000
# Proofs that a decision is uniform only remove findings, so they get a smaller budget.
PROOF_LIMIT = 1_000_000
# A pair the solver could not decide within the budget (reported in a note, never a finding).
UNDECIDED = "undecided"


# How the race pairs of this process were decided (read by bench/phases.py): by a check
# without the solver ("fast: ..."), or by the solver ("solver: sat|unsat|unknown|not encoded");
# and the proofs that a decision is the same for every thread ("proof fast: ...", "proof
# solver: ...").
PAIR_COUNTS: dict[str, int] = {}


def _count(what: str) -> None:
    PAIR_COUNTS[what] = PAIR_COUNTS.get(what, 0) + 1


class _Unknown(Exception):
    """An expression the encoder cannot represent."""


@dataclass
class Race:
    first: Access
    second: Access
    intra_warp_only: bool
    threads: tuple[tuple[int, int, int], tuple[int, int, int]] | None  # an example pair
    shape: tuple[int, int, int] = (0, 0, 0)   # the block shape the verdict assumed
    shape_source: str = ""


class _Encoder:
    def __init__(self, thread: int, shared: dict, varying_vars: set[str], dims, program: Program,
                 next_iteration: "_NextIteration | None" = None, thread_shifts: bool = False):
        self.z3 = _z3()
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
        self.tid = [_bv(self.z3, f"t{thread}.{a}") for a in "xyz"]
        self.private: dict[str, object] = {}
        self.iteration_counters: list = []

    def sym(self, name: str, per_thread: bool):
        if per_thread:
            key = f"{name}#{self.t}"
            if key not in self.private:
                self.private[key] = _bv(self.z3, key)
            return self.private[key]
        if name not in self.shared:
            self.shared[name] = _bv(self.z3, name)
        return self.shared[name]

    def linear(self):
        bx, by, _ = self.dims
        return self.tid[0] + bx * (self.tid[1] + by * self.tid[2])

    def expr(self, node: Node, scope: Scope, depth: int = 0):
        z3 = self.z3
        if depth > 40:
            raise _Unknown()
        node = _strip(node) if node.kind != "PAREN_EXPR" else node
        k = node.kind
        if k == "PAREN_EXPR":
            return self.expr(node.children[-1], scope, depth + 1)
        if k in ("INTEGER_LITERAL", "CHARACTER_LITERAL", "CXX_BOOL_LITERAL_EXPR", "CXX_UNARY_EXPR"):
            if isinstance(node.value, int):
                return _val(z3, node.value)
            raise _Unknown()
        if k == "MEMBER_REF_EXPR" and node.children and node.children[0].kind == "DECL_REF_EXPR" \
                and node.children[0].decl is not None and node.children[0].decl.storage == "builtin":
            name, member = node.children[0].decl.name, node.spelling
            axis = "xyz".index(member) if member in ("x", "y", "z") else 0
            if name == "threadIdx":
                return self.tid[axis]
            if name == "blockDim":
                return self.dims[axis]
            return self.sym(f"{name}.{member}", per_thread=False)
        if k == "DECL_REF_EXPR":
            return self._ref(node, scope, depth)
        if k in ("BINARY_OPERATOR",) and len(node.children) == 2:
            return self._binary(node, scope, depth)
        if k == "UNARY_OPERATOR" and node.children:
            if node.op == "-":
                return -self.expr(node.children[0], scope, depth + 1)
            if node.op == "+":
                return self.expr(node.children[0], scope, depth + 1)
            raise _Unknown()
        if k == "CONDITIONAL_OPERATOR" and len(node.children) == 3:
            c, a, b = node.children
            return z3.If(self.cond(c, scope, depth + 1), self.expr(a, scope, depth + 1),
                         self.expr(b, scope, depth + 1))
        if k == "CALL_EXPR":
            if isinstance(node.value, int):
                return _val(z3, node.value)  # folded by the compiler
            return self._call(node, scope, depth)
        raise _Unknown()

    def _ref(self, node: Node, scope: Scope, depth: int):
        z3 = self.z3
        d = node.decl
        if d is None:
            raise _Unknown()
        nxt = self.next_iteration
        if nxt is not None and d.key in nxt.updates and d.key not in self._advancing:
            update = nxt.updates[d.key]
            if update is None:
                raise _Unknown()  # changed in more than one place per iteration
            self._advancing.add(d.key)
            try:
                return self._advanced(update, node, scope, depth)
            finally:
                self._advancing.discard(d.key)
        if d.storage == "builtin" and d.name == "warpSize":
            return _val(z3, 32)
        if d.value is not None and isinstance(d.value, int):
            return _val(z3, d.value)
        if d.key in scope.bindings:
            arg, arg_scope = scope.bindings[d.key]
            return self.expr(arg, arg_scope, depth + 1)
        if d.storage in ("global", "constant", "template", "enum"):
            return self.sym(d.key, per_thread=False)
        if d.storage == "param" and d.key not in scope.multi_defs:
            return self.sym(d.key, per_thread=False)
        if d.storage in ("local", "param"):
            # A local defined once stands for its definition, also inside a loop that threads
            # run out of step: its inputs are then read in the same iteration as it is.
            if d.key in scope.single_defs:
                try:
                    return self.expr(scope.single_defs[d.key], scope, depth + 1)
                except _Unknown:
                    # A definition the encoder cannot model (a load, a call) whose value is
                    # the same for the whole block: an unknown, but one both threads share.
                    value = scope.analysis.values.get(node.id)
                    if value is not None and value.level <= Level.BLOCK and d.key not in self.varying:
                        return self.sym(d.key, per_thread=False)
                    raise
            induction = scope.inductions.get(d.key)
            if induction is not None:
                # One iteration count per loop: the inductions of a loop move together.
                where = induction.loop if induction.loop is not None else f"line {induction.line}"
                k = self.sym(f"iter:{scope.analysis.function.key}:{where}", per_thread=d.key in self.varying)
                self.iteration_counters.append(k)
                count = k + induction.updates_before(node)
                start = self.expr(induction.init, scope, depth + 1)
                step = induction.step
                if isinstance(step, Node):
                    step = self.expr(step, scope, depth + 1)
                return {"+": lambda: start + count * step, "-": lambda: start - count * step,
                        ">>": lambda: z3.LShR(start, count * step),
                        "<<": lambda: start << (count * step)}[induction.op]()
            value = scope.analysis.values.get(node.id)
            if value is not None and value.const is not None and isinstance(value.const, int):
                return _val(z3, value.const)
            if value is not None and value.level <= Level.BLOCK:
                return self.sym(d.key, per_thread=d.key in self.varying)
        raise _Unknown()

    def _advanced(self, update: Node, ref: Node, scope: Scope, depth: int):
        """A variable's value one iteration later: its update applied to its value now."""
        now = self.expr(ref, scope, depth + 1)
        if update.kind == "UNARY_OPERATOR":
            return now + 1 if "+" in update.op else now - 1
        rhs = self.expr(update.children[1], scope, depth + 1)
        if update.op == "=":
            return rhs
        op = update.op[:-1]
        if op in ("+", "-", "*"):
            return {"+": now + rhs, "-": now - rhs, "*": now * rhs}[op]
        raise _Unknown()

    def _binary(self, node: Node, scope: Scope, depth: int):
        z3 = self.z3
        op = node.op
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return z3.If(self.cond(node, scope, depth), _val(z3, 1), _val(z3, 0))
        a = self.expr(node.children[0], scope, depth + 1)
        b = self.expr(node.children[1], scope, depth + 1)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b          # signed division: indices are not negative in practice
        if op == "%":
            return z3.SRem(a, b)  # C's remainder keeps the dividend's sign
        if op in ("&", "|", "^", "<<", ">>"):
            # Bit tricks on run-time values (masks from parameters) would let the solver pick
            # values the program never has: only constant right operands are modeled.
            if not z3.is_bv_value(z3.simplify(b)) and not (self.thread_shifts and op in ("<<", ">>")):
                raise _Unknown()
            return {"&": a & b, "|": a | b, "^": a ^ b, "<<": a << b, ">>": a >> b}[op]
        raise _Unknown()

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
        if prim is not None and prim.name.endswith("meta_group_rank()") and prim.tile_size:
            return self.linear() / prim.tile_size
        name = node.decl.name if node.decl is not None else ""
        args = call_args(node)
        if name in ("min", "max", "umin", "umax") and len(args) == 2:
            a, b = (self.expr(x, scope, depth + 1) for x in args)
            return self.z3.If(a < b, a, b) if "min" in name else self.z3.If(a > b, a, b)
        returned = self._single_return(node)
        if returned is not None:
            # A getter (`return threadIdx.y;`, `return blockDim.y;`): its expression, with
            # the callee's parameters bound to this call's arguments.
            callee, expr = returned
            bindings = {p.key: (a, scope) for p, a in zip(callee.params, args)}
            inner = Scope(scope.analysis, bindings)
            return self.expr(expr, inner, depth + 1)
        raise _Unknown()

    def _single_return(self, call: Node):
        callee = self.program.resolve_call(call.decl)
        if callee is None or callee.body is None or len(callee.body.children) != 1:
            return None
        stmt = callee.body.children[0]
        if stmt.kind != "RETURN_STMT" or len(stmt.children) != 1:
            return None
        if any(n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "local"
               for n in stmt.walk()):
            return None
        return callee, stmt.children[0]

    def cond(self, node: Node, scope: Scope, depth: int = 0):
        z3 = self.z3
        n = _strip(node) if node.kind != "PAREN_EXPR" else node
        if n.kind == "PAREN_EXPR":
            return self.cond(n.children[-1], scope, depth + 1)
        if n.kind == "BINARY_OPERATOR" and len(n.children) == 2:
            op = n.op
            if op in ("&&", "||"):
                a, b = (self.cond(c, scope, depth + 1) for c in n.children)
                return z3.And(a, b) if op == "&&" else z3.Or(a, b)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                a, b = (self.expr(c, scope, depth + 1) for c in n.children)
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b,
                        "==": a == b, "!=": a != b}[op]
        if n.kind == "UNARY_OPERATOR" and n.op == "!" and n.children:
            return z3.Not(self.cond(n.children[0], scope, depth + 1))
        return self.expr(n, scope, depth + 1) != 0


@dataclass
class _NextIteration:
    """What changes from one iteration of a loop to the next: var key -> its one update in
    the loop (None: updated in several places), for variables declared outside it."""

    updates: dict[str, Node | None]


def _next_iteration(ka: KernelAccesses, loop) -> _NextIteration:
    declared: set[str] = set()
    updates: dict[str, Node | None] = {}
    for b in loop.blocks:
        for item in ka.cfg.blocks[b].items:
            for n in item.walk():
                if n.kind == "VAR_DECL" and n.decl is not None:
                    declared.add(n.decl.key)
                target = None
                if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op and \
                        n.op.endswith("=") and n.op not in ("==", "!=", "<=", ">=") and len(n.children) == 2:
                    target = _strip(n.children[0])
                elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--") and n.children:
                    target = _strip(n.children[0])
                if target is not None and target.kind == "DECL_REF_EXPR" and target.decl is not None:
                    key = target.decl.key
                    updates[key] = n if key not in updates else None
    return _NextIteration({k: v for k, v in updates.items() if k not in declared})


def _varying_loop_vars(ka: KernelAccesses, access: Access, intervals: BarrierIntervals) -> set[str]:
    """Variables that may hold different values for two threads at this access: those
    assigned in a loop that threads can go round without meeting a barrier."""
    out: set[str] = set()
    # A thread can be iterations ahead of another at this access only if it can come back to
    # the access without meeting a barrier (a loop that is barrier-free only on a path that
    # skips the access, e.g. an inner loop running zero times, does not count).
    if access.point not in intervals.reach_from(*access.point):
        loops = []
    else:
        loops = intervals.loops_containing(access.point[0])
    for loop in loops:
        if loop.barrier_free_cycle:
            for b in loop.blocks:
                for item in ka.cfg.blocks[b].items:
                    out |= _assigned(item)
    if access.instance is not None:
        out |= access.scope.multi_defs  # inlined callee: no barrier inside, its loops run freely
    return out


def _assigned(item: Node) -> set[str]:
    keys = set()
    for n in item.walk():
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op and n.op.endswith("=") \
                and n.op not in ("==", "!=", "<=", ">=") and n.children:
            t = _strip(n.children[0])
            if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                keys.add(t.decl.key)
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--") and n.children:
            t = _strip(n.children[0])
            if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                keys.add(t.decl.key)
        elif n.kind == "VAR_DECL" and n.decl is not None:
            keys.add(n.decl.key)
    return keys


class _Concurrency:
    """May two accesses run in one barrier interval, for two different threads?"""

    def __init__(self, ka: KernelAccesses, warp: bool):
        self.ka = ka
        self.warp = warp
        self.kernel = ka.warp_intervals if warp else ka.block_intervals
        self._reach: dict[tuple[int, int], set] = {}
        # Branches that can split the threads in question: within a warp only if the
        # condition varies within warps; across warps already if it varies between warps.
        limit = Level.WARP if warp else Level.BLOCK
        self.divergent = [(b, len(ka.cfg.blocks[b].items) - 1)
                          for b, level in ka.cond_levels.items()
                          if level > limit and ka.cfg.blocks[b].items]

    def _from(self, point):
        r = self._reach.get(point)
        if r is None:
            r = self._reach[point] = self.kernel.reach_from(*point)
        return r

    def _callee(self, access: Access) -> BarrierIntervals:
        return self.ka.instances[access.instance][1 if self.warp else 0]

    def _leaves_free(self, a: Access) -> bool:
        return a.instance is None or self._callee(a).exit_free(*a.local_point)

    def _enters_free(self, a: Access) -> bool:
        return a.instance is None or self._callee(a).entry_free(*a.local_point)

    def _before(self, x: Access, y: Access) -> bool:
        return y.point in self._from(x.point) and self._leaves_free(x) and self._enters_free(y)

    def iterations(self, a: Access, b: Access) -> list[tuple[str, object]]:
        """How the two accesses' loop iterations relate when they are concurrent: ("same",
        None) and/or ("first", loop) / ("second", loop), the access named running one
        iteration of the loop earlier than the other (a loop-carried pair)."""
        loop = self.kernel.innermost_synchronized_loop(a.point[0], b.point[0])
        if loop is None or a.instance is not None or b.instance is not None:
            return [("same", None)]
        within = lambda p: self.kernel.reach_within_iteration(*p, loop)
        # Where the two threads part: one access's position, or a divergent branch.
        starts = [a.point, b.point] + [d for d in self.divergent
                                       if a.point in self._from(d) and b.point in self._from(d)]
        same = first = second = False
        for start in starts:
            now, later = within(start), self._from(start)
            a_now = a.point == start or a.point in now
            b_now = b.point == start or b.point in now
            same |= a_now and b_now or a.point == b.point
            first |= a_now and b.point in later and not b_now
            second |= b_now and a.point in later and not a_now
        out = [("same", None)] if same else []
        if first:
            out.append(("first", loop))   # a's iteration, then b's in the next one
        if second:
            out.append(("second", loop))  # b's iteration, then a's in the next one
        return out or [("same", None)]

    def __call__(self, a: Access, b: Access) -> bool:
        if a.point == b.point and a.instance == b.instance:
            if a.instance is None or a.local_point == b.local_point:
                return True
            callee = self._callee(a)
            if b.local_point in callee.reach_from(*a.local_point) or \
                    a.local_point in callee.reach_from(*b.local_point):
                return True
        if self._before(a, b) or self._before(b, a):
            return True
        return any(a.point in self._from(d) and b.point in self._from(d) and
                   self._enters_free(a) and self._enters_free(b) for d in self.divergent)


@dataclass
class RaceResult:
    races: list[Race]
    # Pairs the solver could not decide within its budget: said in a note, never guessed.
    undecided: list[tuple[Access, Access]]


def find_races(program: Program, service: UniformityService, kernel: Function) -> RaceResult:
    ka = KernelAccesses(program, service, kernel)
    undecided: list[tuple[Access, Access]] = []
    if not any(a.write for a in ka.accesses):
        return RaceResult([], undecided)
    by_array: dict[str, list[Access]] = {}
    for a in ka.accesses:
        by_array.setdefault(a.array, []).append(a)
    block_concurrent = _Concurrency(ka, warp=False)
    warp_concurrent = _Concurrency(ka, warp=True)
    races: dict[tuple[str, int], Race] = {}
    for accesses in by_array.values():
        if not any(a.write for a in accesses):
            continue  # read-only shared data
        # Accesses in other files (headers) are reported when their own kernels are analyzed
        # (or through the instantiations this file creates).
        accesses = [a for a in accesses if a.function is None or a.function.reported]
        ordered = sorted(accesses, key=lambda x: (x.node.line, x.node.col, x.node.id))
        for i, a in enumerate(ordered):
            for b in ordered[i:]:
                if not (a.write or b.write) or (a is b and not a.write):
                    continue
                if (b.array, b.node.line) in races:
                    continue  # one finding per line and array: the first conflict found
                if not block_concurrent(a, b):
                    continue
                if _same_own_element(a, b, ka.uses_y, ka.uses_z):
                    _count("fast: each thread its own element")
                    continue
                verdict = None
                for iteration in block_concurrent.iterations(a, b):
                    if iteration[0] == "same":
                        fast = _never_the_same_element(ka, a, b)
                        if fast is not None:
                            _count(f"fast: {fast}")
                            continue
                    verdict = _check_pair(ka, a, b, iteration=iteration)
                    if verdict is not None:
                        break
                if verdict == UNDECIDED:
                    undecided.append((a, b))
                    continue
                if verdict is None:
                    continue
                intra_only, example, found_shape = verdict
                if intra_only and not warp_concurrent(a, b):
                    continue  # __syncwarp() orders the lanes of the warp here
                if intra_only and a is b and a.write and not a.read and a.value_level <= Level.WARP:
                    continue  # lanes of one warp store one warp-uniform value: benign
                if intra_only:
                    # Lanes of one warp cannot be in different iterations of a loop whose
                    # cycle holds a __syncwarp(): decide again with the warp's intervals.
                    verdict = _check_pair(ka, a, b, ka.warp_intervals, iteration)
                    if verdict in (None, UNDECIDED):
                        if verdict == UNDECIDED:
                            undecided.append((a, b))
                        continue
                    intra_only, example, found_shape = verdict
                shape, source = assumed_shape(ka)
                if source == SMALLEST_SHAPE:
                    shape = found_shape
                races[(b.array, b.node.line)] = Race(a, b, intra_only, example, shape, source)
    return RaceResult(list(races.values()), undecided)


def _same_own_element(a: Access, b: Access, uses_y: bool, uses_z: bool) -> bool:
    """Both accesses use the same index, one that names the thread itself (threadIdx.x plus a
    uniform offset; with threadIdx.y as another dimension in 2-D kernels): each thread touches
    its own element, so no two threads meet. Saves the solver the commonest pair."""
    if a.offsets or b.offsets or not a.indices or a.scope is not b.scope or len(a.indices) != len(b.indices) \
            or not a.indices or uses_z:
        return False
    loop_vars = set(a.scope.inductions) | a.scope.multi_defs
    has_x = has_y = False
    for (na, sa), (nb, _) in zip(a.indices, b.indices):
        if structural_key(na) != structural_key(nb) or _refs(na) & loop_vars:
            return False
        value = sa.analysis.values.get(na.id)
        has_x |= value is not None and value.lane_linear
        has_y |= _is_thread_y(na)
    return has_x and (has_y or not uses_y) and (len(a.indices) == 1 or has_y)


_MAX_COEFFICIENT = 1 << 16  # |c| * 1024 threads stays far from 32-bit wrap-around


def _never_the_same_element(ka: KernelAccesses, a: Access, b: Access) -> str | None:
    """Decide, without the solver, that two different threads in the same iteration cannot
    touch one element; None when it takes the solver. Two cheap, exact arguments (the solver
    would find the same pair unsatisfiable from the indices alone, whatever the guards):
    - one subscript is a different constant in the two accesses;
    - subscripts written the same in both accesses (no variable that can differ between
      the threads) are c.x*threadIdx.x + c.y*threadIdx.y + block-uniform rest, and those
      equations, equal for the two threads, leave only the same thread (full rank over the
      block's axes)."""
    if ka.uses_z or a.scope is not b.scope or len(a.indices) != len(b.indices) or not a.indices \
            or a.instance is not None or b.instance is not None:
        return None
    varying = None
    rows = []
    for d, ((na, sa), (nb, sb)) in enumerate(zip(a.indices, b.indices)):
        if d == 0 and (a.offsets or b.offsets):
            continue  # through a pointer: the first subscript gets the pointer's offset
        la, lb = _strip(na), _strip(nb)
        if la.kind == lb.kind == "INTEGER_LITERAL" and isinstance(la.value, int) \
                and isinstance(lb.value, int) and la.value != lb.value:
            return "different constant subscripts"
        va = sa.analysis.values.get(na.id)
        if va is None or structural_key(na) != structural_key(nb):
            continue
        if varying is None:
            intervals = ka.block_intervals
            varying = (set(a.scope.inductions) | a.scope.multi_defs
                       | _varying_loop_vars(ka, a, intervals) | _varying_loop_vars(ka, b, intervals))
        if _refs(na) & varying:
            continue
        affine = va.thread_affine()
        if affine is None or affine[1] > Level.BLOCK:
            continue
        coefficients = affine[0]
        if any(abs(c) >= _MAX_COEFFICIENT for c in coefficients):
            continue
        rows.append(coefficients)
    if not rows:
        return None
    if not ka.uses_y:  # blockDim.y == 1: the threads differ in x
        if any(r[0] != 0 for r in rows):
            return "the same thread-affine subscript"
        return None
    for i, r in enumerate(rows):
        for s in rows[i:]:
            if r[0] * s[1] - r[1] * s[0] != 0:
                return "the same thread-affine subscripts"
    return None


def _is_thread_y(node: Node) -> bool:
    node = _strip(node)
    return node.kind == "MEMBER_REF_EXPR" and node.spelling == "y" and bool(node.children) and \
        node.children[0].decl is not None and node.children[0].decl.name == "threadIdx"


def _refs(node: Node) -> set[str]:
    return {n.decl.key for n in node.walk() if n.kind == "DECL_REF_EXPR" and n.decl is not None}


def _strip(node: Node) -> Node:
    return strip_wrappers(node, POINTER_WRAPPERS)


def _check_pair(ka: KernelAccesses, a: Access, b: Access, intervals: BarrierIntervals | None = None,
                iteration: tuple[str, object] = ("same", None)):
    """None when no race is possible (or syncheck cannot tell); otherwise
    (all conflicts are between lanes of one warp, an example pair of threads)."""
    z3 = _z3()
    shape = known_shape(ka)
    shared: dict = {}
    bx, by, bz = (_bv(z3, "blockDim.x"), _bv(z3, "blockDim.y"), _bv(z3, "blockDim.z"))
    dims = (bx, by, bz)
    intervals = intervals or ka.block_intervals
    relation, loop = iteration
    later = _next_iteration(ka, loop) if loop is not None else None
    e1 = _Encoder(1, shared, _varying_loop_vars(ka, a, intervals), dims, ka.program,
                  later if relation == "second" else None)
    e2 = _Encoder(2, shared, _varying_loop_vars(ka, b, intervals), dims, ka.program,
                  later if relation == "first" else None)
    solver = z3.Solver()
    solver.set("rlimit", RESOURCE_LIMIT)
    try:
        idx_a = _indices(e1, a)
        idx_b = _indices(e2, b)
        same_element = [x == y for x, y in zip(idx_a, idx_b)]
        if len(idx_a) != len(idx_b):
            # One access through a row pointer, the other with all its subscripts: compare
            # the flattened positions.
            flat_a, flat_b = _flattened(idx_a, a), _flattened(idx_b, b)
            if flat_a is None or flat_b is None:
                return None
            same_element = [flat_a == flat_b]
        guards = []
        for enc, acc in ((e1, a), (e2, b)):
            for g in acc.guards:
                try:
                    c = enc.cond(g.cond, g.scope)
                except _Unknown:
                    if g.level <= Level.BLOCK:
                        continue  # a uniform decision does not tell threads apart
                    return None
                if g.polarity is None:
                    continue
                guards.append((c if g.polarity else z3.Not(c), g.level))
    except _Unknown:
        _count("solver: not encoded")
        return None
    if a is b and a.write and not a.read and a.value_level <= Level.BLOCK:
        _count("fast: one block-uniform value stored")
        return None  # every thread stores the same block-uniform value: benign
    for enc in (e1, e2):
        tx, ty, tz = enc.tid
        solver.add(tx >= 0, tx < bx, ty >= 0, ty < by, tz >= 0, tz < bz)
    if shape:
        solver.add(bx == shape[0], by == shape[1], bz == shape[2])
    else:
        # No launch says: every shape the kernel admits (up to 1,024 threads, within its
        # arrays and launch bounds), each dimension a power of two as tree reductions and
        # scans assume. A dimension the kernel never reads has size 1; a 1-D block is whole
        # warps (the analysis's stated assumption).
        power = lambda d, low, high: z3.Or(*[d == 1 << k for k in range(low, high + 1)])
        solver.add(power(bx, 5 if not (ka.uses_y or ka.uses_z) else 0, 10),
                   by == 1 if not (ka.uses_y or ka.uses_z) else power(by, 0, 10),
                   bz == 1 if not ka.uses_z else power(bz, 0, 6),
                   z3.ULE(bx * by * bz, 1024))
    for name, sym in list(shared.items()) + list(e1.private.items()) + list(e2.private.items()):
        if name.startswith("blockIdx") or name.startswith("gridDim"):
            solver.add(sym >= 0, sym < _SYMBOL_RANGE)
        elif not name.startswith("blockDim"):
            solver.add(sym > -_SYMBOL_RANGE, sym < _SYMBOL_RANGE)
    for k in e1.iteration_counters + e2.iteration_counters:
        solver.add(k >= 0, k < 64)
    # Each access stays inside its array (out-of-bounds indexing is a different bug).
    for idx, acc in ((idx_a, a), (idx_b, b)):
        for value, extent in zip(idx, acc.extents):
            if extent is not None:
                solver.add(value >= 0, value < extent)
    for axis, form in ka.block_relations.items():
        term = _relation_term(e1, form)
        if term is not None:
            solver.add(dims[axis] == term)  # what the launches pass as the block size
    if ka.kernel.launch_bounds and not shape:
        solver.add(bx * by * bz <= ka.kernel.launch_bounds)
    solver.add(z3.Or(*[x != y for x, y in zip(e1.tid, e2.tid)]))
    solver.add(*same_element)
    solver.push()
    solver.add(*[g for g, _ in guards])
    verdict = solver.check()
    if verdict == z3.unknown:
        # Decisions the whole block takes alike (often divisions of parameters) are the
        # costly part and do not tell the two threads apart: decide again without them.
        solver.pop()
        solver.push()
        solver.add(*[g for g, level in guards if level > Level.BLOCK])
        verdict = solver.check()
    if verdict == z3.unknown:
        _count("solver: unknown")
        return UNDECIDED
    if verdict != z3.sat:
        _count("solver: unsat")
        return None
    _count("solver: sat")
    # Is there a conflict between threads of different warps?
    across = e1.linear() / 32 != e2.linear() / 32
    solver.push()
    solver.add(across)
    inter = solver.check() == z3.sat
    if not inter:
        solver.pop()
    example = _smallest_example(solver, e1, e2, None if shape else dims)
    if example is None:
        return (not inter, None, shape)
    threads, found_shape = example
    return (not inter, threads, shape or found_shape)


def _flattened(values: list, acc: Access):
    if len(values) == 1:
        return values[0]
    if acc.strides is None or len(acc.strides) != len(values):
        return None
    total = values[0] * acc.strides[0]
    for v, s in zip(values[1:], acc.strides[1:]):
        total = total + v * s
    return total


def _context_scopes(service: UniformityService, root: Function, frames) -> list:
    """One encoder scope per frame of a call chain, parameters bound to the callers' arguments."""
    from syncheck.analyses.shared_memory import function_scope
    scopes = [function_scope(root, service.analyze(root), {})]
    for frame in frames:
        callee = frame.analysis.function
        bindings = {p.key: (a, scopes[-1]) for p, a in zip(callee.params, frame.site.args)}
        scopes.append(function_scope(callee, frame.analysis, bindings))
    return scopes


def same_for_every_thread(program: Program, service: UniformityService, root: Function, frames,
                          depth: int, cond: Node, group: int) -> bool:
    """Proof that a decision the taint analysis calls thread-dependent comes out the same for
    any two threads of one group of ``group`` threads (a block: 1024), over every block shape
    the kernel admits (or the one its launches use), the launch relations and, in loops, at
    the same iteration: `for (t = base + tid; t < end + tid; t += C)` or a bound rounded up
    to the block size. False when unproven (undecided within the budget included)."""
    z3 = _z3()
    scopes = _context_scopes(service, root, frames)
    shape = service.shape_of(root).block_dim
    dims = tuple(_val(z3, d) for d in shape) if shape else tuple(_bv(z3, f"blockDim.{a}") for a in "xyz")
    shared: dict = {}
    e1 = _Encoder(1, shared, set(), dims, program)
    e2 = _Encoder(2, shared, set(), dims, program)
    try:
        c1, c2 = e1.cond(cond, scopes[depth]), e2.cond(cond, scopes[depth])
    except _Unknown:
        return False
    solver = z3.Solver()
    solver.set("rlimit", PROOF_LIMIT)
    bx, by, bz = dims
    if not shape:
        solver.add(bx >= 1, bx <= 1024, by >= 1, by <= 1024, bz >= 1, bz <= 64, z3.ULE(bx * by * bz, 1024))
    for enc in (e1, e2):
        tx, ty, tz = enc.tid
        solver.add(tx >= 0, tx < bx, ty >= 0, ty < by, tz >= 0, tz < bz)
    for name, sym in list(shared.items()):
        if name.startswith("blockIdx") or name.startswith("gridDim"):
            solver.add(sym >= 0, sym < _SYMBOL_RANGE)
        elif not name.startswith("blockDim"):
            solver.add(sym > -_SYMBOL_RANGE, sym < _SYMBOL_RANGE)
    for k in e1.iteration_counters + e2.iteration_counters:
        solver.add(k >= 0, k < _SYMBOL_RANGE)
    for axis, form in service.launch_shapes.relations(root).items():
        term = _relation_term(e1, form)
        if term is not None:
            solver.add(dims[axis] == term)
    from syncheck.analyses.shared_memory import kernel_preconditions
    for fact, holds in kernel_preconditions(root) if root.kind == "kernel" else ():
        try:
            for enc in (e1, e2):
                term = enc.cond(fact, scopes[0])
                solver.add(term if holds else z3.Not(term))
        except _Unknown:
            pass  # a promise the encoder cannot read only weakens the proof
    if group < 1024:
        solver.add(e1.linear() / group == e2.linear() / group)
    solver.add(c1 != c2)
    symbols = [*e1.tid, *e2.tid, *shared.values(), *e1.private.values(), *e2.private.values(),
               *e1.iteration_counters, *e2.iteration_counters]
    if not shape:
        symbols += list(dims)
    if _concrete_witness(z3, solver, symbols, e1.tid, e2.tid, None if shape else dims):
        _count("proof fast: two concrete threads decide differently")
        return False  # satisfiable: the solver could not have proved it either
    verdict = solver.check()
    _count(f"proof solver: {verdict}")
    return verdict == z3.unsat


# Block shapes, values of the other symbols and second threads tried before the solver when a
# proof is wanted that a decision is the same for every thread (the first thread is 0,0,0).
_WITNESS_SHAPES = ((256, 1, 1), (32, 1, 1), (1024, 1, 1), (64, 1, 1), (16, 16, 1), (32, 32, 1))
_WITNESS_VALUES = (0, 1, 1024, 3)


def _concrete_witness(z3, solver, symbols, t1, t2, dims) -> bool:
    """Do concrete values of every symbol satisfy all the solver's assertions? Then the query
    is satisfiable, whatever the solver would say under its budget (sat, or unknown: both
    mean "not proven", which is what the caller returns). Checked by z3's own evaluation of
    the substituted formula, so the arithmetic is the solver's; a formula that does not come
    out a constant (a symbol this list misses) is no witness."""
    formula = z3.And(*solver.assertions())
    others = [s for s in symbols if not any(s.eq(t) for t in (*t1, *t2, *(dims or ())))]
    shapes = _WITNESS_SHAPES if dims is not None else (None,)
    val = lambda v: z3.BitVecVal(v, _BITS)  # noqa: E731
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
    z3 = _z3()
    scopes = _context_scopes(service, root, frames)
    dims = tuple(_val(z3, d) for d in shape)
    enc = _Encoder(1, {}, set(), dims, program, thread_shifts=True)
    try:
        mask = enc.expr(mask_node, scopes[-1])
        guards = []
        for depth, c in effective_controllers(site, frames):
            if c.polarity is None:
                continue
            try:
                g = enc.cond(c.cond, scopes[depth])
            except _Unknown:
                if c.level <= Level.BLOCK:
                    continue  # the whole block decides alike: not about one lane
                return None
            guards.append(g if c.polarity else z3.Not(g))
    except _Unknown:
        return None
    solver = z3.Solver()
    solver.set("rlimit", RESOURCE_LIMIT)
    tx, ty, tz = enc.tid
    solver.add(tx >= 0, tx < dims[0], ty >= 0, ty < dims[1], tz >= 0, tz < dims[2])
    for name, sym in list(enc.shared.items()) + list(enc.private.items()):
        solver.add(sym > -_SYMBOL_RANGE, sym < _SYMBOL_RANGE)
    lane = z3.URem(enc.linear(), 32)
    solver.add(*guards)
    solver.add(z3.LShR(mask, lane) & 1 == 0)
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    value = lambda t: model.eval(t, model_completion=True).as_long()
    return (value(tx), value(ty), value(tz)), value(lane), value(mask)


def _relation_term(enc: _Encoder, form: tuple):
    kind = form[0]
    if kind == "param":
        return enc.sym(form[1], per_thread=False)
    if kind == "const":
        return _val(enc.z3, form[1]) if isinstance(form[1], int) else None
    left, right = _relation_term(enc, form[1]), _relation_term(enc, form[2])
    if left is None or right is None:
        return None
    return {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
            "/": lambda: left / right}[kind]()


SMALLEST_SHAPE = "the smallest block that shows it"


def known_shape(ka: KernelAccesses) -> tuple[int, int, int] | None:
    return ka.service.default_block_dim or ka.kernel.block_dim or ka.launch_block_dim


def assumed_shape(ka: KernelAccesses) -> tuple[tuple[int, int, int] | None, str]:
    if ka.service.default_block_dim:
        return ka.service.default_block_dim, "--block-dim"
    if ka.kernel.block_dim:
        return ka.kernel.block_dim, "the block-dim comment"
    if ka.launch_block_dim:
        return ka.launch_block_dim, ka.service.launch_shapes.origin(ka.kernel)
    return None, SMALLEST_SHAPE


def _indices(enc: _Encoder, acc: Access):
    out = [enc.expr(n, s) for n, s in acc.indices]
    if acc.offsets:
        offset = None
        for n, s, scale in acc.offsets:
            term = enc.expr(n, s) * scale if scale != 1 else enc.expr(n, s)
            offset = term if offset is None else offset + term
        if out:
            out[0] = out[0] + offset
        else:
            out = [offset]  # *p or *(p + n): one element past the pointer's target
    return out


def _smallest_example(solver, e1: _Encoder, e2: _Encoder, dims=None):
    """The example pair with the lowest thread ids, in lexicographic order (z, y, x of the
    first thread, then of the second): the same answer whatever the solver saw before, so
    output does not depend on -j or on the order files are analyzed in. Each coordinate is
    fixed in turn by bisection on the incremental solver (much cheaper than z3's Optimize)."""
    z3 = _z3()
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
            v = _model_value(model, t)
            if low <= v <= high:
                high, best = v, model
        while low < high:
            mid = (low + high) // 2
            solver.push()
            solver.add(z3.ULE(t, mid))
            found = solver.check() == z3.sat
            if found:
                m = solver.model()
                v = _model_value(m, t)
                high, best = (v, m) if low <= v <= mid else (mid, None)
            solver.pop()
            if not found:
                low = mid + 1
        solver.push()
        fixed += 1
        solver.add(t == low)
        if best is not None and _model_value(best, t) == low:
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
    return _example(model, e1, e2), shape


def _model_value(model, t) -> int:
    v = model.eval(t, model_completion=True)
    try:
        return v.as_long()
    except AttributeError:
        return 1024


def _example(model, e1: _Encoder, e2: _Encoder):
    def val(t):
        v = model.eval(t, model_completion=True)
        try:
            return v.as_long()
        except AttributeError:
            return 0
    return (tuple(val(t) for t in e1.tid), tuple(val(t) for t in e2.tid))
