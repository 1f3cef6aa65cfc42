"""Shared-memory race detection: can two different threads touch the same element of a
shared array within one barrier interval, with at least one of them writing?

Index expressions and guards are encoded for two symbolic threads by the symbolic layer
(analyses/symbolic.py) and handed to z3. Anything syncheck cannot encode (data-dependent
indices, opaque thread-dependent guards) makes it give up on that pair instead of guessing:
precision first.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import zip_longest

from syncheck.analyses import c_semantics as C
from syncheck.analyses import primitives as P
from syncheck.analyses.barrier_intervals import BarrierIntervals, Point
from syncheck.analyses.constants import WARP_SIZE, integer_constant
from syncheck.analyses.integer_relaxation import multiple_of, relaxed
from syncheck.analyses.levels import GROUP_THREADS, Level
from syncheck.analyses.shared_memory import WARP_PART_START, Access, Guard, KernelAccesses, Offset
from syncheck.analyses.solver_context import side_context
from syncheck.analyses.symbolic import (RESOURCE_LIMIT, SYMBOL_RANGE, UNDECIDED, WHOLE_WORD, Encoder,
                                        MergedDefinitions, SharedSymbols, NextIteration, NotEncodable, bitvector, count_decision,
                                        launch_relations, parameter_facts, relation_term, tied_parameters, same_in_scopes, smallest_example,
                                        term_variables, z3_module)
from syncheck.analyses.uniformity import UniformityService, effective_controllers
from syncheck.ir.calls import callee_name
from syncheck.ir.nodes import LANE_ID, POINTER_WRAPPERS, Node, referenced_keys, strip_wrappers, structural_key
from syncheck.ir.program import Function, Program


@dataclass
class Race:
    first: Access
    second: Access
    intra_warp_only: bool
    threads: tuple[tuple[int, int, int], tuple[int, int, int]] | None  # an example pair
    shape: tuple[int, int, int] = (0, 0, 0)   # the block shape the verdict assumed
    shape_source: str = ""
    # races told with this one: on other members of the same shared struct, or sharing
    # one of its accesses (see _one_per_access)
    other_members: list["Race"] = field(default_factory=list)
    # the access the races told with this one share: the finding is reported there
    anchor: Access | None = None
    # Branches (condition node ids) the two threads must decide differently for the accesses
    # to meet in one interval, when a barrier lies between them on every path otherwise:
    # such a race exists only through a barrier those branches let part of the block skip.
    parted_at: tuple[int, ...] = ()
    # For a block race (and the races told with it): the way (first access, later access,
    # _BarrierWays) whose later access comes first, where one barrier placed before that
    # access orders every race told (None: the race's own two accesses tell where)
    barrier_way: tuple[Access, Access] | None = None
    # ... and one of the ways it orders runs round a loop (its later access comes before its
    # first in the loop's body): the barrier goes right before that later access, inside
    # the loop, where it also orders the way from before the loop
    barrier_round_loop: bool = False
    # The header block of the loop whose next trip makes one of the accesses (a loop-carried
    # race), None for two accesses of one trip: races at one place carried by different
    # loops need barriers of their own
    carrier: int | None = None


def _next_iteration(ka: KernelAccesses, loop) -> NextIteration:
    declared: set[str] = set()
    updates: dict[str, Node | None] = {}
    handed: set[str] = set()
    through_references = False
    for b in loop.blocks:
        for item in ka.cfg.blocks[b].items:
            for n in item.walk():
                if n.kind == "VAR_DECL" and n.decl is not None:
                    declared.add(n.decl.key)
                if n.kind == "CALL_EXPR":
                    handed.update(r.decl.key for arg in n.children[1:] for r in arg.walk()
                                  if r.kind == "DECL_REF_EXPR" and r.decl is not None)
                target = None
                if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op and \
                        n.op.endswith("=") and n.op not in ("==", "!=", "<=", ">=") and len(n.children) == 2:
                    target = _strip(n.children[0])
                elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--") and n.children:
                    target = _strip(n.children[0])
                if target is not None and target.kind == "DECL_REF_EXPR" and target.decl is not None:
                    key = target.decl.key
                    updates[key] = n if key not in updates else None
                    through_references |= "&" in (target.decl.type or "")
    return NextIteration({k: v for k, v in updates.items() if k not in declared},
                         through_references, frozenset(handed))


def _varying_loop_vars(ka: KernelAccesses, access: Access, intervals: BarrierIntervals) -> frozenset[str]:
    """Variables that may hold different values for two threads at this access: those
    assigned in a loop that threads can go round without meeting a barrier. (Asked for
    every pair an access is in: kept per access and intervals in the kernel's accesses.)"""
    memo = getattr(ka, "_varying_memo", None)
    if memo is None:
        memo = ka._varying_memo = {}
    key = (id(access), id(intervals))
    if key not in memo:
        memo[key] = (access, intervals, frozenset(_compute_varying_loop_vars(ka, access, intervals)))
    return memo[key][2]


def _compute_varying_loop_vars(ka: KernelAccesses, access: Access, intervals: BarrierIntervals) -> set[str]:
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
    if access.instance is not None and access.scope.inlined:
        # inlined callee: no barrier inside, its loops run freely (what it sets outside its
        # loops, `idx += 32` after `int idx = 2 * t`, each thread computes alike)
        out |= access.scope.multi_defs & _assigned_in_loops(access.scope.analysis.function)
    return out


_LOOP_STATEMENTS = ("FOR_STMT", "WHILE_STMT", "DO_STMT", "CXX_FOR_RANGE_STMT")


def _assigned_in_loops(fn: Function) -> set[str]:
    """The variables a function assigns inside its loops."""
    if fn.body is None:
        return set()
    keys: set[str] = set()
    # Outermost loops only: what a nested loop assigns is inside its outer loop's walk.
    pending = [fn.body]
    while pending:
        n = pending.pop()
        if n.kind in _LOOP_STATEMENTS:
            keys |= _assigned(n)
        else:
            pending.extend(n.children)
    return keys


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

    def __init__(self, ka: KernelAccesses, warp: bool, rendezvous: bool = False, group: bool = False):
        """``rendezvous``: within a warp, with its whole-warp collectives as points that
        separate intervals as well (KernelAccesses.rendezvous_intervals). ``group``: for two
        threads of one group, whose `cuda::barrier` waits separate intervals as well
        (KernelAccesses.group_intervals)."""
        self.ka = ka
        self.warp = warp
        self.rendezvous = rendezvous
        self.kernel = ka.rendezvous_intervals() if rendezvous else ka.warp_intervals if warp else \
            ka.group_intervals if group else ka.block_intervals
        self._reach: dict[tuple[int, int], set] = {}
        # Branches that can split the threads in question: within a warp only if the
        # condition varies within warps; across warps already if it varies between warps.
        limit = Level.WARP if warp else Level.BLOCK
        levels = {b: Level.BLOCK if not warp and level > Level.BLOCK and _proven_loop_test(ka, b) else level
                  for b, level in ka.cond_levels.items()}
        self.divergent = [(b, len(ka.cfg.blocks[b].items) - 1)
                          for b, level in levels.items()
                          if level > limit and ka.cfg.blocks[b].items]
        self._uniform = lambda b: levels.get(b, Level.UNIFORM) <= limit
        self._choices: dict[tuple[int, int], dict[int, frozenset]] = {}

    def _parted(self, d, x, y) -> bool:
        """Can two threads that part at divergent branch ``d`` reach ``x`` and ``y`` before
        their next barrier? Not when the two need different arms of a branch that the block
        takes alike after ``d`` (a loop's test that one would pass and the other fail)."""
        if not (x in self._from(d) and y in self._from(d)):
            return False
        choices = self._choices.get(d)
        if choices is None:
            choices = self._choices[d] = self.kernel.uniform_choices(Point(*d), self._uniform)
        cx, cy = choices.get(x[0]), choices.get(y[0])
        if cx is None or cy is None:
            return True
        arms = dict(cx)
        return not any(branch in arms and arms[branch] != arm for branch, arm in cy)

    def _from(self, point):
        r = self._reach.get(point)
        if r is None:
            r = self._reach[point] = self.kernel.reach_from(*point)
        return r

    def _callee(self, access: Access) -> BarrierIntervals:
        if self.rendezvous:
            return self.ka.rendezvous_intervals(access.instance)
        return self.ka.instances[access.instance][1 if self.warp else 0]

    def _leaves_free(self, a: Access) -> bool:
        return a.instance is None or self._callee(a).exit_free(*a.local_point)

    def _enters_free(self, a: Access) -> bool:
        return a.instance is None or self._callee(a).entry_free(*a.local_point)

    def before(self, x: Access, y: Access) -> bool:
        """Can a thread go on from x to y with no barrier (into and out of the helpers they are in)?"""
        return y.point in self._from(x.point) and self._leaves_free(x) and self._enters_free(y)

    def in_order(self, x: Access, y: Access) -> bool:
        """Does a thread make ``y`` after ``x`` with no barrier between, counting accesses at
        one place (one statement, one inlined call) in their order there?"""
        if x.point == y.point and x.instance == y.instance:
            if x.instance is not None and x.local_point != y.local_point:
                return y.local_point in self._callee(x).reach_from(*x.local_point)
            return (x.node.line, x.node.col) <= (y.node.line, y.node.col)
        return self.before(x, y)

    def writes_reach(self, write: Access, read: Access) -> bool:
        """Can a thread go from ``write`` on to ``read`` within one interval (the same point
        again in a loop, or one reached from the other)?"""
        if write.point == read.point and write.instance == read.instance:
            return True
        return self.before(write, read)

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

    def last_iterations(self, x: Access, y: Access) -> set[int]:
        """Loops (statement ids) that ``x`` must be in the last iteration of to run in one
        interval with ``y``: loops around x and not y whose every cycle meets a barrier and
        that are left only through their test, when y comes after the loop (reached from x)
        and not before it. Leaving such a loop takes its test failing right after x's
        iteration, with no barrier in between."""
        if x.instance is not None or y.instance is not None:
            return set()
        if y.point not in self._from(x.point) or x.point in self._from(y.point):
            return set()
        out = set()
        blocks = self.ka.cfg.blocks
        for loop in self.kernel.loops_containing(x.point[0]):
            if y.point[0] in loop.blocks or loop.barrier_free_cycle:
                continue
            if any(d[0] not in loop.blocks and x.point in self._from(d) and y.point in self._from(d)
                   for d in self.divergent):
                continue  # threads parted before the loop: x may be in any iteration
            header = blocks[loop.header]
            if header.branch_stmt is None or header.branch_stmt.kind not in ("FOR_STMT", "WHILE_STMT"):
                continue
            if any(s not in loop.blocks for b in loop.blocks if b != loop.header for s in blocks[b].succs):
                continue  # a break or return leaves it from inside
            out.add(header.branch_stmt.id)
        return out

    def partings(self, a: Access, b: Access) -> list[tuple[int, int]] | None:
        """The divergent branches at which two threads must have parted for the accesses to
        run in one interval; None when they need not part (the same point, or one access
        reaches the other with no barrier)."""
        if a.point == b.point and a.instance == b.instance or self.before(a, b) or self.before(b, a):
            return None
        return [d for d in self.divergent if self._parted(d, a.point, b.point)
                and self._enters_free(a) and self._enters_free(b)]

    def __call__(self, a: Access, b: Access) -> bool:
        if a.point == b.point and a.instance == b.instance:
            if a.instance is None or a.local_point == b.local_point:
                return True
            callee = self._callee(a)
            if b.local_point in callee.reach_from(*a.local_point) or \
                    a.local_point in callee.reach_from(*b.local_point):
                return True
        if self.before(a, b) or self.before(b, a):
            return True
        return any(self._parted(d, a.point, b.point) and
                   self._enters_free(a) and self._enters_free(b) for d in self.divergent)


def _read_before_rendezvous(a: Access, b: Access, warp_concurrent: _Concurrency,
                            rendezvous_concurrent: _Concurrency) -> bool:
    """A read by one lane and a write by another that a whole-warp collective always comes
    between, read first (the write comes after it and, before a __syncwarp(), never before the
    read): the reading lane made its read before it reached the collective, which the writing
    lane leaves only once every lane has reached it. A write first is not ordered so: its
    value need not be visible to the reader without a __syncwarp()."""
    if a is b or a.write == b.write:
        return False
    read, write = (a, b) if b.write else (b, a)
    if read.write:
        return False
    return not rendezvous_concurrent(read, write) and not warp_concurrent.writes_reach(write, read)


@dataclass
class RaceResult:
    races: list[Race]
    # Pairs the solver could not decide within its budget: said in a note, never guessed.
    undecided: list[tuple[Access, Access]]


def find_races(program: Program, service: UniformityService, kernel: Function,
               reported: set[tuple[str, int, int]] = frozenset(),
               ka: KernelAccesses | None = None) -> RaceResult:
    """``reported``: places (array name, line, column) another kernel of the file (another
    instantiation of the same template, a kernel sharing the helper) already has a race at:
    one finding per place is shown, so their pairs are not checked again. ``ka``: the
    kernel's accesses, where the caller has them already."""
    ka = ka or KernelAccesses(program, service, kernel)
    undecided: list[tuple[Access, Access]] = []
    if not any(a.write for a in ka.accesses):
        return RaceResult([], undecided)
    by_array: dict[str, list[Access]] = {}
    for a in ka.accesses:
        by_array.setdefault(a.array, []).append(a)
    _add_whole_struct_accesses(by_array)
    block_concurrent = _Concurrency(ka, warp=False)
    warp_concurrent = _Concurrency(ka, warp=True)
    group_concurrent = _Concurrency(ka, warp=False, group=True) if ka.group_intervals is not None else None
    rendezvous_concurrent = None  # built for the first pair within a warp
    races: dict[tuple[str, int, int | None], Race] = {}
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
                if a.atomic and b.atomic:
                    continue  # atomics on one location are ordered among themselves
                told = reported_at(b, a, program)
                if (b.name, told.line, told.col) in reported:
                    continue
                if not block_concurrent(a, b):
                    continue
                if _same_own_element(a, b, ka.uses_y, ka.uses_z):
                    count_decision("fast: each thread its own element")
                    continue
                # one finding per line and array (the first conflict found), and per loop whose
                # next trip makes one of the accesses
                iterations = [it for it in block_concurrent.iterations(a, b)
                              if (b.array, told.line, _carrier(it)) not in races]
                if not iterations:
                    continue
                verdict = None
                last = (block_concurrent.last_iterations(a, b), block_concurrent.last_iterations(b, a))
                parted = block_concurrent.partings(a, b)
                for iteration in iterations:
                    if iteration[0] == "same":
                        fast = _never_the_same_element(ka, a, b)
                        if fast is not None:
                            count_decision(f"fast: {fast}")
                            continue
                    verdict = _check_pair(ka, a, b, iteration=iteration, last=last, example_if_intra=False,
                                          parted=parted)
                    if verdict is not None:
                        carrier = _carrier(iteration)
                        break
                if verdict not in (None, UNDECIDED) and group_concurrent is not None and not group_concurrent(a, b):
                    # two threads of one group wait for each other at their barrier between
                    # the accesses: only threads of two groups can race here
                    verdict = _check_pair(ka, a, b, iteration=iteration, last=last, example_if_intra=False,
                                          parted=parted, distinct=ka.group_barrier)
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
                if intra_only and _matrix_tile(a) and _matrix_tile(b):
                    # two wmma loads or stores are made by the whole warp together, each element
                    # by one lane: which lane touches which is the implementation's, not a race
                    # between lanes the code could order. (A lane's own read of a tile the warp
                    # stored, `out[warp][lane]` after store_matrix_sync, reads what another lane
                    # may have written: that needs __syncwarp(), and is checked.)
                    continue
                if intra_only:
                    rendezvous_concurrent = rendezvous_concurrent or _Concurrency(ka, warp=True, rendezvous=True)
                    if _read_before_rendezvous(a, b, warp_concurrent, rendezvous_concurrent):
                        count_decision("fast: read made before a whole-warp collective")
                        continue
                if intra_only:
                    # Lanes of one warp cannot be in different iterations of a loop whose
                    # cycle holds a __syncwarp(), and meet one iteration's accesses only in
                    # the next one if one comes between them: decide again with the warp's
                    # intervals and iterations.
                    verdict = None
                    warp_last = (warp_concurrent.last_iterations(a, b), warp_concurrent.last_iterations(b, a))
                    for warp_iteration in warp_concurrent.iterations(a, b):
                        verdict = _check_pair(ka, a, b, ka.warp_intervals, warp_iteration, warp_last,
                                              parted=warp_concurrent.partings(a, b))
                        if verdict is not None:
                            break
                    if verdict in (None, UNDECIDED):
                        if verdict == UNDECIDED:
                            undecided.append((a, b))
                        continue
                    intra_only, example, found_shape = verdict
                shape, source = assumed_shape(ka)
                launched_one_warp = source != SMALLEST_SHAPE and _one_warp_block(shape)
                if source == SMALLEST_SHAPE:
                    shape = found_shape  # (whichever shape: the example's lanes share a warp)
                if intra_only and _block_code(ka) and not _under_one_lane_split(a, b) \
                        and not (_in_first_warp(a) and _in_first_warp(b)) \
                        and (launched_one_warp or not (_written_for_a_warp(a) or _written_for_a_warp(b))):
                    intra_only = False  # a block race between lanes the block or its layout puts in one warp
                branches = [ka.cfg.blocks[d[0]].branch for d in parted or ()]
                # (lanes of one warp too: the block barrier the parting skips would order them)
                parted_at = tuple(c.id for c in branches) if branches and None not in branches else ()
                races[(b.array, told.line, carrier)] = Race(a, b, intra_only, example, shape, source,
                                                              parted_at=parted_at, carrier=carrier)
    grouped = _one_per_fill(ka, _one_per_store(ka, _one_per_access(list(races.values()))))
    ways = _BarrierWays(block_concurrent)
    told = _lane_races_with_block_race(ways, _one_per_missing_barrier(ways, _one_per_struct(ka, grouped)))
    _place_shared_barriers(ways, told)
    told = [_told_within_one_trip(ways, race) for race in told]
    return RaceResult(_one_per_warp_exchange(ka, told), undecided)


def call_made_at(access: Access, other: Access) -> Node:
    """Where the function that makes both accesses makes this one: where it is written, or,
    where the two accesses are made by calls of two different helpers, the call that made it
    (a barrier between the two goes between the calls). An access in a helper racing with one
    the caller makes itself stays in the helper, as do two calls of one helper racing with each
    other (a barrier in it orders every pair)."""
    if _one_definition(access.function, other.function):
        return access.node
    for mine, theirs in zip_longest(access.calls, other.calls):
        if mine is not theirs:
            return mine if mine is not None and theirs is not None else access.node
    return access.node


def reported_at(access: Access, other: Access, program=None) -> Node:
    """Where a race's access is told: at the access itself, the line to read, also where it
    is made in a helper (the call that made it is a note; the fix still goes between the
    calls, call_made_at). Races of one access through several calls of its helper are one
    finding there."""
    return access.node


def _one_definition(f: Function | None, g: Function | None) -> bool:
    """The same function as written (instances of one template count as one)."""
    return f is g or (f is not None and g is not None and (f.file, f.line, f.col) == (g.file, g.line, g.col))


def _carrier(iteration: tuple[str, object]) -> int | None:
    """The header of the loop whose next trip makes one access of the pair (None: one trip)."""
    relation, loop = iteration
    return None if relation == "same" or loop is None else loop.header


_WARP_LEVEL = frozenset({P.TILE_SYNC, P.WARP_COLLECTIVE, P.TILE_COLLECTIVE, P.LEGACY_WARP})


def _block_code(ka: KernelAccesses) -> bool:
    """Is the kernel block code: ordered by block barriers, with nothing written for a warp
    (no __syncwarp(), no warp or tile collective, no __activemask() or lane-mask query, no
    volatile shared view, no block barrier skipped once the work fits in a warp)? Two of its threads that race may be lanes of one warp (a block of
    at most 32 threads, or a layout where each group of 8 threads reads what its own group
    wrote), but the code does not rely on that: the race is the block race SYN401 reports (its
    authors fix it with __syncthreads()), not a reliance on lockstep lanes (SYN402)."""
    if ka.block_code is None:
        sites = [(site, frames) for site, frames in ka.service.walk_sites(ka.kernel) if site.prim is not None]
        prims = [site.prim for site, _ in sites]
        categories = {prim.category for prim in prims}
        ka.block_code = P.BLOCK_BARRIER in categories \
            and not categories & _WARP_LEVEL \
            and not any(prim.name in P.WARP_QUERIES for prim in prims) \
            and not any("volatile" in a.node.type for a in ka.accesses) \
            and not any(_skipped_within_a_warp(site, frames) for site, frames in sites
                        if site.prim.category == P.BLOCK_BARRIER)
    return ka.block_code


def _skipped_within_a_warp(site, frames) -> bool:
    """Is the block barrier skipped once the work fits in a warp (`if (d > 32)
    __syncthreads();` in a tree reduction)? The steps below it are written for one warp's
    lanes in lockstep."""
    for _, controller in effective_controllers(site, frames):
        cond = _strip(controller.cond)
        if cond.kind == "BINARY_OPERATOR" and cond.op in ("<", "<=", ">", ">=") and len(cond.children) == 2 \
                and any(integer_constant(c) == WARP_SIZE for c in cond.children):
            return True
    return False


def _one_warp_block(shape) -> bool:
    """Do the launches make the block one warp (at most 32 threads)? Its code may well name
    the warp size (`(t + 1) % 32` wrapping round the block) without being written for a warp."""
    return bool(shape) and shape[0] * shape[1] * shape[2] <= 32


_WARP_SIZED = {("%", 32), ("/", 32), ("&", 31), (">>", 5)}


def _written_for_a_warp(access: Access) -> bool:
    """Do the access's index or its guards name a thread's lane or warp (`threadIdx.x % 32`,
    `t / 32`, `t & 31`, `t >> 5`, warpSize, the lane id), also through the locals they read?
    Such code is laid out for a warp, and its lanes' exchange relies on the warp (SYN402)."""
    pending = [(n, s) for n, s in access.indices] + [(o.node, o.scope) for o in access.offsets] \
        + [(g.cond, g.scope) for g in access.guards]
    seen: set[int] = set()
    while pending:
        node, scope = pending.pop()
        if node is None or node.id in seen or len(seen) > 200:
            continue
        seen.add(node.id)
        for n in node.walk():
            if n is LANE_ID or n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.name == "warpSize":
                return True
            if n.kind == "BINARY_OPERATOR" and len(n.children) == 2 \
                    and any((n.op, integer_constant(c)) in _WARP_SIZED for c in n.children[1:]):
                return True
            if n.kind == "DECL_REF_EXPR" and n.decl is not None and scope is not None:
                defined = scope.single_defs.get(n.decl.key)
                if defined is not None:
                    pending.append((defined, scope))
                elif n.decl.key in scope.bindings:
                    pending.append(scope.bindings[n.decl.key])
                elif n.decl.key in scope.multi_defs and scope.analysis.function.body is not None:
                    pending.extend((value, scope) for value in _assigned_values(scope.analysis.function.body,
                                                                                n.decl.key))
    return False


def _in_first_warp(access: Access) -> bool:
    """Is the access made only by lanes of the block's first warp, by a guard of its own
    (`if (tid < 16) s[tid] += s[tid + 16];`)? Two such accesses are the warp-synchronous
    tail of a tree, written for that warp (SYN402)."""
    return any(_confines_to_first_warp(g) for g in access.guards)


def _confines_to_first_warp(guard: Guard) -> bool:
    """Is the guard a thread-dependent test that only threads below a constant of at most 32
    pass (`if (tid < 16)`, `tid < offset` of a reduction's last steps, also as one side of
    `&&`)? The code under it is the warp-synchronous tail of a tree, written for the first
    warp's lanes."""
    if guard.level <= Level.BLOCK or guard.polarity is False:
        return False
    values = guard.scope.analysis.values
    varies_in_warp = lambda n: (v := values.get(n.id)) is not None and v.level > Level.WARP
    pending = [_strip(guard.cond)]
    while pending:
        node = pending.pop()
        if node.kind != "BINARY_OPERATOR" or len(node.children) != 2:
            continue
        if node.op == "&&":
            pending.extend(_strip(c) for c in node.children)
            continue
        tested, bound = (node.children[0], integer_constant(node.children[1])) if node.op in ("<", "<=") else \
            (node.children[1], integer_constant(node.children[0])) if node.op in (">", ">=") else (None, None)
        # (the tested value differs between lanes: a lane index, not a warp's, `warp < 4`)
        if bound is not None and 0 < bound + (node.op in ("<=", ">=")) <= 32 and varies_in_warp(tested):
            return True
    return False


def _assigned_values(body: Node, key: str) -> list[Node]:
    """What flows into a local in a function's body: its initializer and the right sides of
    all its assignments, compound ones too (`idx = 2 * t - lane; idx += 32;`). Evidence of
    what the local is made of, not its value (symbolic.py's exact definitions answer that)."""
    out = []
    for n in body.walk():
        if n.kind == "VAR_DECL" and n.decl is not None and n.decl.key == key and n.children:
            out.append(n.children[-1])
        elif n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and len(n.children) == 2 \
                and _strip(n.children[0]).kind == "DECL_REF_EXPR" and _strip(n.children[0]).decl is not None \
                and _strip(n.children[0]).decl.key == key and n.op.endswith("=") and n.op not in ("==", "!=", "<=", ">="):
            out.append(n.children[1])
    return out


def _under_one_lane_split(a: Access, b: Access) -> bool:
    """Are both accesses under one branch that part of the block skips (`if (tx < 4)` around
    a tree's steps)? No block barrier can go between them there: the lanes that take the
    branch order them with __syncwarp(mask) alone, so they are lanes of one warp relying on
    lockstep (SYN402), even in block code."""
    split = lambda access: {(id(g.cond), g.polarity): g for g in access.guards if g.level > Level.BLOCK}
    common = split(a).keys() & split(b).keys()
    return any(not _branch_holds_block_barrier(split(a)[key]) for key in common)


def _branch_holds_block_barrier(guard: Guard) -> bool:
    """Does the statement the guard decides hold a block barrier of its own (`if (col <
    ncol) { ...; __syncthreads(); ... }`)? Its code is then written for the block."""
    body = guard.scope.analysis.function.body
    for stmt in body.walk() if body is not None else ():
        if stmt.kind in ("IF_STMT", "WHILE_STMT", "FOR_STMT", "DO_STMT") and any(c is guard.cond for c in stmt.children):
            return any(n.kind == "CALL_EXPR" and (prim := P.classify(n)) is not None
                       and prim.category == P.BLOCK_BARRIER for n in stmt.walk())
    return False


def _place(race: Race) -> tuple:
    return (race.second.node.line, race.second.node.col, race.first.node.line, race.first.node.col)


def _follow(leader: Race, race: Race) -> None:
    """``race`` is told with ``leader`` (with those told with it)."""
    leader.other_members.append(race)
    leader.other_members.extend(race.other_members)
    race.other_members = []


def _one_per_access(races: list[Race]) -> list[Race]:
    """Races of several stores with one read (a reduction's first read racing with both the
    initialization's and the accumulation loop's stores, with no barrier before the
    reduction) are one missing barrier, before that read: the first by place stands for them,
    reported at the read, the others go with it as notes. (One store racing with reads at
    several places, the steps of a reduction, stays one finding per read here; the steps of
    a warp-synchronous one go together in _one_per_warp_exchange.) Block and warp races stay
    apart."""
    leaders: dict[tuple, Race] = {}
    kept = []
    for race in sorted(races, key=_place):
        keys = [(id(shared), race.intra_warp_only, race.carrier)
                for shared, other in ((race.first, race.second), (race.second, race.first))
                if shared.read and not shared.write and other.write]
        found = next((k for k in keys if k in leaders), None)
        if found is None:
            kept.append(race)
            for k in keys:
                leaders.setdefault(k, race)
            continue
        leader = leaders[found]
        if leader.anchor is None:
            leader.anchor = next(a for a in (leader.first, leader.second) if id(a) == found[0])
        _follow(leader, race)
    return kept


def _one_per_store(ka: KernelAccesses, races: list[Race]) -> list[Race]:
    """A store that races with reads at several places, with no other store to the array
    on the way from it to any of them (a fill loop with no barrier or __syncwarp() before the
    code that reads what it filled), is one missing synchronization between the store and its
    first read: the first race by place stands for them, reported at that read, and the
    others go with it as notes. The steps of a reduction store between their reads, so
    each step stays a finding of its own here (a warp-synchronous one's steps go together
    in _one_per_warp_exchange)."""
    leaders: dict[tuple, Race] = {}
    kept = []
    for race in sorted(races, key=_place):
        found = _store_before_reads(ka, race)
        if found is None:
            kept.append(race)
            continue
        store, store_first = found
        key = (id(store), store_first, race.intra_warp_only)
        leader = leaders.get(key)
        if leader is None:
            leaders[key] = race
            kept.append(race)
            continue
        if leader.anchor is None:
            # the synchronization goes before the first read of what was stored, or before
            # the store that follows the reads
            read = leader.second if leader.first is store else leader.first
            leader.anchor = read if store_first else store
        _follow(leader, race)
    return kept


def _one_per_fill(ka: KernelAccesses, races: list[Race]) -> list[Race]:
    """Races of several parts carved from one buffer, each a store then a read (a fill of
    `sdx[j]`, `sdy[j]`, ... then the loop that reads them all, with no synchronization between
    the two, or lane 0 then updating them), are one missing synchronization when every store
    comes before every read: one barrier before the first read orders them all. The first race
    by place stands for them. So do the accesses after one store, all racing with it (a whole
    buffer cleared by every thread, also in a helper, then written and read in slots by
    others). Parts stored and read in turns (store a, read a, store b, read b) stay apart."""
    concurrency: dict[bool, _Concurrency] = {}

    def order(race: Race) -> _Concurrency:
        if race.intra_warp_only not in concurrency:
            concurrency[race.intra_warp_only] = _Concurrency(ka, warp=race.intra_warp_only)
        return concurrency[race.intra_warp_only]

    def fill(race: Race):
        found = _store_before_reads(ka, race, updates=True)
        if found is not None:
            store = found[0]
            return (store, race.second if race.first is store else race.first) if found[1] else None
        if race.first.instance is None and race.second.instance is None:
            return None
        before = order(race).before
        for store, other in ((race.first, race.second), (race.second, race.first)):
            if store.write and not store.read and before(store, other) and not before(other, store):
                return store, other
        return None

    leaders: dict[tuple, list[Race]] = {}
    kept = []
    for race in sorted(races, key=_place):
        parts = fill(race)
        if parts is None:
            kept.append(race)
            continue
        before = order(race).before
        key = (race.second.array, race.intra_warp_only)
        store, read = parts
        leader = None
        for candidate in leaders.get(key, []):
            lead_store, lead_read = fill(candidate)
            stores, reads = {id(store): store, id(lead_store): lead_store}.values(), (read, lead_read)
            if (store is lead_store or before(lead_store, store) or before(store, lead_store)) \
                    and all(before(s, r) for s in stores for r in reads) \
                    and not any(before(r, s) for s in stores for r in reads):
                leader = candidate
                break
        if leader is None:
            leaders.setdefault(key, []).append(race)
            kept.append(race)
            continue
        if leader.anchor is None:
            leader.anchor = fill(leader)[1]
        _follow(leader, race)
    return kept


def _store_before_reads(ka: KernelAccesses, race: Race, updates: bool = False) -> tuple[Access, bool] | None:
    """The race's store (and whether it comes first), when the race is a store and a read of the same interval with no
    other store through the same name between them (store then read: a fill read at several
    places; read then store: the reads of one loop iteration and the next one's store): a
    reduction's next step, `s[t] += s[t + 8]`, stores between its reads; a fill of another
    part of the buffer (`sdy[j] = ...` after `sdx[j] = ...`) does not. With ``updates`` the
    access after a plain store may be any access (lane 0 adding to what the fill stored, a
    thread writing its own slot of a buffer another thread is still clearing), a plain read
    may follow an update, and the updates of one loop body are not stores between."""
    for store, read in ((race.first, race.second), (race.second, race.first)):
        plain_store = store.write and not store.read
        if not (plain_store and (updates or read.read and not read.write)
                or updates and store.write and read.read and not read.write) \
                or store.instance is not None or read.instance is not None:
            continue
        intervals = ka.warp_intervals if race.intra_warp_only else ka.block_intervals
        name = _stored_through(store)
        # the store, then the read (a fill read at several places), or the read, then the
        # store (several reads of one iteration before the next one's store)
        for first, then in ((store, read), (read, store)):
            after = intervals.reach_from(*first.point)
            if then.point not in after:
                continue
            if any(other.array == store.array and _stored_through(other) == name and other is not store
                   and other.write and other.point in after and then.point in intervals.reach_from(*other.point)
                   and not (updates and (_same_cycle(intervals, other, read)
                                         or _same_cycle(intervals, other, store)))
                   for other in ka.accesses):
                continue
            return store, first is store
    return None


def _same_cycle(intervals, a: Access, b: Access) -> bool:
    """Do a and b reach each other with no synchronization (one access, or the updates of
    one loop body): neither comes between the other and a store before both."""
    return a is b or (b.point in intervals.reach_from(*a.point) and a.point in intervals.reach_from(*b.point))


def _stored_through(access: Access) -> str | None:
    """The variable an access names its memory by (`sdx` of `sdx[j]`, `s` of `s[t]`)."""
    node = _strip(access.node)
    while node.kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR") and node.children:
        node = _strip(node.children[0])
    return node.decl.key if node.kind == "DECL_REF_EXPR" and node.decl is not None else None


def _one_per_struct(ka: KernelAccesses, races: list[Race]) -> list[Race]:
    """Races on members of one shared struct (a task descriptor thread 0 refills while the
    others still read its fields) are one bug, with one missing barrier: the first race (by
    line) stands for the struct, the others go with it. Block and warp races stay apart, and
    so do races made by other functions (a scan helper's buffer and a broadcast slot of one
    storage struct are two bugs)."""
    function = lambda access: access.function.key if access.function is not None else None
    leaders: dict[tuple, Race] = {}
    for race in sorted(races, key=_place):
        root = ka.member_roots.get(race.second.array)
        if root is None:
            continue
        group = (root, race.intra_warp_only, function(race.first), function(race.second))
        leader = leaders.setdefault(group, race)
        if leader is not race:
            _follow(leader, race)
    followers = {id(r) for leader in leaders.values() for r in leader.other_members}
    return [r for r in races if id(r) not in followers]


_RENDEZVOUS = frozenset({P.BLOCK_BARRIER, P.GRID_SYNC, P.TILE_SYNC, P.WARP_COLLECTIVE, P.TILE_COLLECTIVE,
                         P.LEGACY_WARP, P.ALIGNED_NAMED_BARRIER, P.NAMED_BARRIER})


def _rendezvous_lines(ka: KernelAccesses) -> dict[str, set[int]]:
    """Function key -> the lines where the kernel's lanes meet in it: a barrier, a
    __syncwarp(), a warp collective, or a call on the way to one."""
    lines: dict[str, set[int]] = {}
    for site, frames in ka.service.walk_sites(ka.kernel):
        if site.prim is not None and site.prim.category in _RENDEZVOUS:
            lines.setdefault(site.function.key, set()).add(site.node.line)
            for frame in frames:
                lines.setdefault(frame.site.function.key, set()).add(frame.site.node.line)
    return lines


def _one_per_warp_exchange(ka: KernelAccesses, races: list[Race]) -> list[Race]:
    """The steps of one warp-synchronous exchange (a volatile tree reduction's `s[t] += s[t +
    16]; s[t] += s[t + 8]; ...` over two arrays, one lane broadcasting values one after
    another through one slot) are one reliance on lockstep lanes, fixed as one (a
    __syncwarp() at every step, or shuffles instead of the buffer): lane races made by the
    same functions go together while their lines overlap and no place where the lanes meet
    (a __syncwarp(), a shuffle) lies between one's later access and the next's. The first
    by place stands for them. Block races stay apart."""
    function = lambda access: access.function.key if access.function is not None else None
    meets = _rendezvous_lines(ka) if any(r.intra_warp_only for r in races) else {}
    groups: dict[tuple, tuple[Race, int, int]] = {}  # functions -> (leader, last read line, end)
    followers: set[int] = set()
    for race in sorted(races, key=_place):
        if not race.intra_warp_only:
            continue
        key = (function(race.first), function(race.second))
        lines = [a.node.line for r in [race] + race.other_members for a in (r.first, r.second)]
        line = race.second.node.line
        current = groups.get(key)
        if current is not None:
            leader, last, end = current
            # (a meeting on the line of the last access, a call whose shuffles follow the read
            # of its argument, parts the steps too)
            apart = any(last <= m < line for m in meets.get(key[1], ()))
            if not apart and min(lines) <= end:
                _follow(leader, race)
                followers.add(id(race))
                groups[key] = (leader, line, max(end, *lines))
                continue
        groups[key] = (race, line, max(lines))
    return [r for r in races if id(r) not in followers]


class _BarrierWays:
    """Where a barrier would order a race: on its way, from the access a thread makes first
    to the one it makes later with no barrier between (a loop-carried race's way runs round
    the loop)."""

    def __init__(self, concurrency: "_Concurrency"):
        self.concurrency = concurrency  # the block's (warp=False), shared with the race checks
        self._ways: dict[int, tuple[Access, Access] | None] = {}

    def way(self, race: Race) -> tuple[Access, Access] | None:
        if id(race) not in self._ways:  # asked by each grouping stage: computed once
            a, b = race.first, race.second
            forward, backward = self.concurrency.before(a, b), self.concurrency.before(b, a)
            self._ways[id(race)] = None if forward == backward else (a, b) if forward else (b, a)
        return self._ways[id(race)]

    def ways(self, race: Race) -> list[tuple[Access, Access]]:
        """The ways of the race and of the races told with it, where they have one."""
        return [w for w in map(self.way, [race] + race.other_members) if w is not None]

    def _starts_within(self, start: Access, point: Access, end: Access) -> bool:
        """Is ``point`` made from ``start`` on and before ``end`` (not ``end`` itself)?"""
        in_order = self.concurrency.in_order
        return point is not end and (point is start or (in_order(start, point) and in_order(point, end)))

    def _ends_within(self, way: tuple[Access, Access], point: Access) -> bool:
        """Is ``point`` made after the way's start and no later than its end?"""
        start, end = way
        in_order = self.concurrency.in_order
        return point is not start and in_order(start, point) and (point is end or in_order(point, end))

    def meet(self, one: tuple[Access, Access], other: tuple[Access, Access]) -> bool:
        """Is there room for one barrier on both ways: after both starts, before both ends?
        Just after the later start where it lies on the other way, or just before the earlier
        end where it lies on the other way (a way from before a loop and a way round the loop's
        back edge that both end in its body: a barrier at the top of the body orders both)."""
        return one[1] is other[1] or self._starts_within(one[0], other[0], one[1]) \
            or self._starts_within(other[0], one[0], other[1]) \
            or self._ends_within(one, other[1]) or self._ends_within(other, one[1])


def _one_per_missing_barrier(ways: _BarrierWays, races: list[Race]) -> list[Race]:
    """Block races that one barrier fixes are one finding: races whose ways (_BarrierWays)
    all meet (a loop's three stores `d[3*i+0..2] = ...` racing with the previous iteration's
    reads of the three; the even phase's stores racing with the odd phase's reads and its
    reads with the odd phase's stores; a GEMM loop's next loads of its A and B tiles racing
    with the reads of both) need one barrier where they meet, whichever arrays they touch.
    The first by place stands for them, the others are its notes (each naming its array);
    races that exist only through a skipped barrier stay apart (SYN101 tells them)."""
    groups: list[tuple[Race, list]] = []
    followers: set[int] = set()
    for race in sorted(races, key=_place):
        if race.intra_warp_only or race.parted_at:
            continue
        mine = ways.ways(race)
        if not mine:
            continue
        group = next((g for g in groups if all(ways.meet(m, w) for m in mine for w in g[1])), None)
        if group is None:
            groups.append((race, mine))
            continue
        _follow(group[0], race)
        group[1].extend(mine)
        followers.add(id(race))
    return [r for r in races if id(r) not in followers]


def _place_shared_barriers(ways: _BarrierWays, races: list[Race]) -> None:
    """For block races (and those told with them, whose ways all meet): the way whose later
    access comes first, before which one barrier orders them all (Race.barrier_way), and
    whether one of them runs round a loop (Race.barrier_round_loop)."""
    for race in races:
        if race.intra_warp_only:
            continue
        told = ways.ways(race)
        if not told or not all(ways.meet(a, b) for i, a in enumerate(told) for b in told[i + 1:]):
            continue
        race.barrier_way = next((w for w in told if all(ways.concurrency.in_order(w[1], o[1]) for o in told)), None)
        race.barrier_round_loop = any(_textual(w[1]) < _textual(w[0]) for w in told)


def _told_within_one_trip(ways: _BarrierWays, race: Race) -> Race:
    """Races that one barrier fixes, told by a loop-carried one (the next trip's reload of
    an input that slower threads still read), are told by the first whose two accesses fall
    in one trip when there is one (atomics into a tile read back at once): the barrier that
    fixes that race goes between them, and fixes the others on its way round the loop."""
    if not race.other_members or race.carrier is None:
        return race
    straight = sorted((r for r in race.other_members if r.intra_warp_only == race.intra_warp_only
                       and r.carrier is None and ways.way(r) is not None), key=_place)
    if not straight:
        return race
    leader = straight[0]
    leader.other_members = [race] + [r for r in race.other_members if r is not leader]
    race.other_members = []
    leader.barrier_way, leader.barrier_round_loop = race.barrier_way, race.barrier_round_loop
    return leader


def _textual(access: Access) -> tuple[int, int]:
    return access.node.line, access.node.col


def _lane_races_with_block_race(ways: _BarrierWays, races: list[Race]) -> list[Race]:
    """A lane race whose way meets the ways of a block race (_BarrierWays) is fixed by the
    barrier the block race needs (a loop whose next iteration's store races
    with the reads of the thread's own row, lanes of its warp, and of other rows, other
    warps; a sort's phases with no barrier between, whose pairs of one warp race too): it
    is told with the block race. Not with a block race that exists only through a skipped
    barrier (SYN101 tells those)."""
    blocks = [r for r in races if not r.intra_warp_only and not r.parted_at]
    lanes = [r for r in races if r.intra_warp_only]
    if not blocks or not lanes:
        return races
    block_ways = {id(b): ways.ways(b) for b in blocks}
    followers: set[int] = set()
    for lane in lanes:
        mine = ways.ways(lane)
        block = next((b for b in blocks if mine and block_ways[id(b)]
                      and all(ways.meet(m, w) for m in mine for w in block_ways[id(b)])), None)
        if block is not None:
            _follow(block, lane)
            followers.add(id(lane))
    return [r for r in races if id(r) not in followers]


@dataclass
class StaleRead:
    """A read after a barrier of an element that only threads which left the kernel before
    the barrier would have stored."""
    write: Access    # the store the threads that left skip
    read: Access     # the read, by a thread still running, after the barrier
    decision: Node   # the decision whose other arm leaves the kernel
    leaves_when: bool  # the decision's value for the threads that leave
    threads: tuple[tuple[int, int, int], tuple[int, int, int]] | None  # (one that left, the reader)


def stale_read_after_exit(ka: KernelAccesses, barrier_call: Node, exits: list[Node]) -> StaleRead | None:
    """Threads that leave the kernel (`if (i >= n) return;`) before ``barrier_call`` skip
    their stores; the barrier then waits only for the others (defined since Volta). Is an
    element read after it that, had they stayed, one of them would have stored and that no
    thread still running stores? The reader then sees what no thread wrote (a block
    reduction over a partial tail block). ``exits``: the decisions whose other arm leaves.
    Every store to the array must be made after the exit, by the running threads only, for
    "no one stores it" to be decided; otherwise the answer is None."""
    intervals = ka.block_intervals
    exit_ids = {c.id for c in exits}
    barriers = sorted(p for p in intervals.barrier_items
                      if any(n.id == barrier_call.id for n in ka.cfg.blocks[p[0]].items[p[1]].walk()))
    by_line = sorted(ka.accesses, key=lambda x: (x.node.line, x.node.col, x.node.id))
    for point in barriers:
        after = intervals.reach(Point(*point))
        for write, guard in ((w, g) for w in by_line for g in _exit_guards(w, exit_ids)):
            decision = guard.cond  # one of the exits the write stays behind (each is tried)
            if not write.write or write.atomic or write.instance is not None \
                    or point not in intervals.reach_from(*write.point):
                continue
            stores = [x for x in ka.accesses if x.array == write.array and x.write]
            if any(x.instance is not None or not _exit_guards(x, exit_ids) for x in stores):
                continue  # stored before the exit, or somewhere not followed: maybe filled
            unfilled = None  # no running thread stores the element (asked once per store)
            for read in by_line:
                if read.array != write.array or not read.read or read.instance is not None \
                        or read.point not in after \
                        or not any(g.cond is decision for g in _exit_guards(read, exit_ids)):
                    continue
                verdict = _check_pair(ka, write, read, exited=(1, decision.id))
                if verdict is None or verdict == UNDECIDED:
                    continue
                if unfilled is None:
                    unfilled = all(_check_pair(ka, replace(x) if x is write else x, write,
                                               exited=(2, decision.id), example=False) is None
                                   for x in stores)
                if unfilled:
                    return StaleRead(write, read, decision, not guard.polarity, verdict[1])
    return None


def _exit_guards(access: Access, exit_ids: set[int]) -> list:
    """The access's guards that are exits' decisions (taken the staying way)."""
    return [g for g in access.guards if g.cond.id in exit_ids and g.polarity is not None]


def _same_own_element(a: Access, b: Access, uses_y: bool, uses_z: bool) -> bool:
    """Both accesses use the same index, one that names the thread itself (threadIdx.x plus a
    uniform offset; with threadIdx.y as another dimension in 2-D kernels): each thread touches
    its own element, so no two threads meet. Saves the solver the commonest pair."""
    if a.offsets or b.offsets or not a.indices or a.scope is not b.scope or len(a.indices) != len(b.indices) \
            or not a.indices or uses_z or a.element != b.element:
        return False
    loop_vars = set(a.scope.inductions) | a.scope.multi_defs
    has_x = has_y = False
    for (na, sa), (nb, _) in zip(a.indices, b.indices):
        if structural_key(na) != structural_key(nb) or referenced_keys(na) & loop_vars:
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
            or a.instance is not None or b.instance is not None or not _same_units(a, b):
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
        if referenced_keys(na) & varying:
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


def _strip(node: Node) -> Node:
    return strip_wrappers(node, POINTER_WRAPPERS)


def _add_whole_struct_accesses(by_array: dict[str, list[Access]]) -> None:
    """A shared struct read or written as a whole (`Field f = s_field;`, a reference to it
    handed to a constructor that copies it) touches every field: it joins the accesses of
    each field (`s_field.words[t] = ...`), so that the pair is checked."""
    for key in list(by_array):
        whole = [a for a in by_array[key] if not a.indices and not a.offsets and not a.atomic
                 and strip_wrappers(a.node).kind in ("DECL_REF_EXPR", "MEMBER_REF_EXPR")]
        if not whole:
            continue
        for other in by_array:
            if other.startswith(key + "."):
                by_array[other] = by_array[other] + [a for a in whole if a not in by_array[other]]


def _check_pair(ka: KernelAccesses, a: Access, b: Access, intervals: BarrierIntervals | None = None,
                iteration: tuple[str, object] = ("same", None), last: tuple[set, set] = (set(), set()),
                example_if_intra: bool = True, exited: tuple[int, int] | None = None,
                example: bool = True, parted: list[tuple[int, int]] | None = None,
                distinct: tuple[Node, object] | None = None):
    """None when no race is possible (or syncheck cannot tell); otherwise
    (all conflicts are between lanes of one warp, an example pair of threads, the shape).
    Without ``example_if_intra``, a conflict between lanes of one warp comes without its
    example (the caller decides it again with the warp's own intervals); without
    ``example``, no conflict comes with one. ``exited`` (thread 1 or 2, a decision's node
    id): that thread took the other arm of the decision, which left the kernel, and makes
    its access only as it would have had it stayed (see stale_read_after_exit). ``parted``:
    the divergent branches at which the two threads must have gone different ways to make
    the two accesses in one interval (see _Concurrency.partings). ``distinct``: an expression
    (and its scope) whose value the two threads must not share (their groups' barrier)."""
    z3 = z3_module()
    shape = known_shape(ka)
    shared = SharedSymbols()
    bx, by, bz = (bitvector(z3, "blockDim.x"), bitvector(z3, "blockDim.y"), bitvector(z3, "blockDim.z"))
    dims = (bx, by, bz)
    intervals = intervals or ka.block_intervals
    relation, loop = iteration
    later = _next_iteration(ka, loop) if loop is not None else None
    e1 = Encoder(1, shared, _varying_loop_vars(ka, a, intervals), dims, ka.program,
                  later if relation == "second" else None)
    e2 = Encoder(2, shared, _varying_loop_vars(ka, b, intervals), dims, ka.program,
                  later if relation == "first" else None)
    e1.last_iterations, e2.last_iterations = last
    e1.free_data_decisions = e2.free_data_decisions = True
    e1.pairs_one_statement = e2.pairs_one_statement = a.node is b.node
    solver = z3.Solver()
    solver.set("rlimit", _query_limit(ka))
    try:
        idx_a = _indices(e1, a)
        idx_b = _indices(e2, b)
        same_element = _same_place(e1, a, e2, b)
        if same_element is None:
            return None
        if same_element == UNDECIDED:
            count_decision("solver: byte ranges not formed")
            return UNDECIDED
        encoded = _guard_terms(z3, e1, a, e2, b, exited, ka)
        if encoded is None:
            return None
        guards, warp_decisions = encoded
        if distinct is not None:
            first, second = e1.expr(*distinct), e2.expr(*distinct)
            bits = max(first.size(), second.size())
            solver.add(C.z3_convert(z3, first, None, bits) != C.z3_convert(z3, second, None, bits))
    except NotEncodable:
        count_decision("solver: not encoded")
        return None
    if a is b and a.write and not a.read and a.value_level <= Level.BLOCK:
        count_decision("fast: one block-uniform value stored")
        return None  # every thread stores the same block-uniform value: benign
    if relation == "same" and exited is None and _reader_stored_it_first(ka, intervals, a, b):
        count_decision("fast: the reader stored the same block-uniform value first")
        return None
    if a.write and b.write and e1.input_tests and e2.input_tests \
            and (a is b or not a.read and not b.read and not _different_constants_stored(a, b)):
        # One store made by the threads the input selects (`if (col == row) s_diag[w] = v;`,
        # the lane holding the diagonal; or the arms of one search, `if (h[t] < m && m <
        # h[t + 1]) pos = t; else if (h[t] == m ...) pos = t;` over a sorted scan): two
        # writers need an input with two matches, which the author rules out and nothing in
        # the code states. Not judged. (Two stores of different constants, a flag's reset
        # and its setting, `changed = false` against `if (embed(...)) changed = true;`, are.)
        count_decision("fast: store by the input-selected thread")
        return None
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
        if name.startswith("blockIdx"):
            solver.add(sym >= 0, sym < SYMBOL_RANGE)
        elif name.startswith("gridDim"):
            solver.add(sym >= 0, sym < SYMBOL_RANGE)
        elif not name.startswith(("blockDim", WHOLE_WORD)):
            solver.add(sym > -SYMBOL_RANGE, sym < SYMBOL_RANGE)
    for k in e1.iteration_counters + e2.iteration_counters:
        solver.add(k >= 0, k < 64)
    solver.add(*e1.facts, *e2.facts)
    # A store that copies the element onto itself (`s[t] = s[0]` by thread 0) changes nothing
    # a reader could see: against a read, only a thread whose source is another element
    # writes. (Against another write it may undo that write: still a race.)
    for enc, acc, other in ((e1, a, b), (e2, b, a)):
        if acc.copied_from is not None and not other.write:
            try:
                itself = _same_place(enc, acc, enc, acc.copied_from)
            except NotEncodable:
                itself = None
            if itself and itself is not UNDECIDED:
                solver.add(z3.Not(z3.And(*itself)))
    # Each access stays inside its array (out-of-bounds indexing is a different bug), and
    # inside its carve of a buffer split into parts by a size the analysis does not know
    # (`s_b = s_a + n` for a parameter n: s_a[i] has i < n). Not assumed where it is a bug to
    # find: a carve of a known size (from constants and the block shape), or an access whose
    # own guard tests the size (`if (t <= n) s_a[t] = ...`: that test is checked instead).
    for idx, acc in ((idx_a, a), (idx_b, b)):
        for value, extent in zip(idx, acc.extents):
            if extent is not None:
                solver.add(value >= 0, value < extent)
    for enc, acc in ((e1, a), (e2, b)):
        solver.add(*_layout_facts(enc, acc))
    between_parts = []  # bounds of parts carved between two others: asked for on a conflict
    for enc, acc in ((e1, a), (e2, b)):
        if acc.carve_extent is not None and not _guards_name(acc, acc.carve_extent[0]):
            count, count_scope, unknown, own_start, unit = acc.carve_extent
            try:
                if not acc.indices:  # an atomic's target `part + offset`: its offsets
                    first = _indices(enc, acc)[0]
                else:
                    first = _index_term(enc, acc, acc.indices[0][0], acc.indices[0][1], 0)
                for node, node_scope in acc.carve_moves:
                    move = enc.expr(node, node_scope)
                    bits = max(first.size(), move.size())
                    first = C.z3_convert(z3, first, None, bits) + C.z3_convert(z3, move, None, bits)
                end = _carve_end(enc, count, count_scope, unknown)
                start = enc.expr(own_start, count_scope) if own_start is not None else None
            except NotEncodable:
                continue
            if own_start is WARP_PART_START and enc.exact(end) and enc.exact(first, own_thread=True) \
                    and not any(str(v).startswith("iter:") for v in term_variables(z3, first)):
                # a warp's own part of known size indexed by the thread ids and constants
                # alone: an index past the part's end is a conflict with the next warp the
                # code has (checked); one stepped by a loop runs as far as the loop's bound
                # lets it
                continue
            if enc.exact(end) and (start is None or enc.exact(first, own_thread=True)):
                # a part of known size, indexed by the threads and constants alone: an index
                # that runs into the next part is a conflict the code has (checked). One that
                # depends on run-time values (a row offset) leaves its part only for values
                # the author keeps out, as for parts of run-time size (below)
                continue
            if start is None:
                # (a part's size may be wider than the index: `buf2 = buf + N` with a size_t N)
                bits = max(first.size(), end.size())
                first, end = (C.z3_convert(z3, t, None, bits) for t in (first, end))
                solver.add(first >= 0, first < end)
            else:
                # a part between two others: from its start to the next one's (parts laid
                # out in the order they are defined, as `b = a + n` has a's part below b)
                bits = max(first.size(), start.size(), end.size())
                first, start, end = (C.z3_convert(z3, t, None, bits) for t in (first, start, end))
                if isinstance(unit, int) and isinstance(acc.element, int) and acc.element and unit != acc.element:
                    # (`(T *)(bytes + 1920)`: the parts counted in bytes, the index in T's)
                    first, start, end = first * acc.element, start * unit, end * unit
                between_parts += [first >= 0, start + first < end, *enc.facts]
    # An array that starts where the access counts from (no offset, one index) is not read
    # below its start either; and an access every thread of the block makes at the same
    # point (block-uniform guards, an index of the thread ids and block-wide values only) is
    # in bounds for thread (0, 0, 0) as well: `s[(r + ty) * w + r + tx]` then needs r >= 0.
    for idx, acc, enc in ((idx_a, a, e1), (idx_b, b, e2)):
        if len(idx) != 1 or acc.offsets or acc.atomic \
                or not _signed_integer(acc.indices[0][0].type):
            continue  # an unsigned index below 0 is a huge one, in bounds of an unknown size
        solver.add(idx[0] >= 0)
        own = {str(t) for t in enc.tid}
        if all(g.level <= Level.BLOCK for g in acc.guards) and _symbols(idx) <= own | set(shared) | {
                "blockDim.x", "blockDim.y", "blockDim.z"}:
            zero = z3.BitVecVal(0, enc.tid[0].size())
            solver.add(z3.substitute(idx[0], *[(t, zero) for t in enc.tid]) >= 0)
    # Where an access stands in a part of a buffer, as the layout it is written against has
    # it (see _part_position_facts).
    for acc, enc in ((a, e1), (b, e2)):
        solver.add(*_part_position_facts(z3, enc, acc))
    # So do the other accesses of the same statement that the thread makes under the same
    # conditions: `buf[t - 256] += buf[t]` is made only by threads whose t fits buf, which
    # bounds the block shapes a pair can need.
    for enc, acc in ((e1, a), (e2, b)):
        for other in _same_statement(ka, acc):
            try:
                values = _indices(enc, other)
            except NotEncodable:
                continue
            for value, extent in zip(values, other.extents):
                if extent is not None:
                    solver.add(value >= 0, value < extent)
    for axis, form in ka.block_relations.items():
        term = relation_term(e1, form)
        if term is not None:
            solver.add(dims[axis] == term)  # what the launches pass as the block size
    for key, value in ka.argument_constants.items():
        if key in shared:
            solver.add(shared[key] == value)  # what every launch passes for the parameter
    solver.add(*launch_relations(e1, ka.grid_relations, ka.kernel))  # the launches' grid sizes
    solver.add(*parameter_facts(e1, ka.argument_facts, ka.kernel))  # what the host checked
    solver.add(*launch_relations(e1, ka.argument_relations, ka.kernel))  # what it passed
    if ka.kernel.launch_bounds and not shape:
        solver.add(bx * by * bz <= ka.kernel.launch_bounds)
    elif ka.kernel.launch_bound_expr is not None and not shape:
        try:
            bound = C.z3_convert(z3, e1.expr(ka.kernel.launch_bound_expr, ka.kernel_scope), None, 32)
            # a launch bound is a block size: 1 to 1,024 threads
            solver.add(bx * by * bz <= bound, bound >= 1, bound <= 1024, *e1.facts)
        except NotEncodable:
            pass  # a bound the encoder cannot read bounds nothing
    solver.add(z3.Or(*[x != y for x, y in zip(e1.tid, e2.tid)]))
    solver.add(*_iterations_apart(ka, intervals, e1, a, e2, b))
    if relation in ("first", "second") and loop is not None:
        # The thread a trip ahead went round the loop from where the other is with no barrier:
        # the decisions of the whole block on its way let it (`for (y = 0; y < ny; ++y) {
        # ...; __syncthreads(); }` ran no trip: ny < 1).
        behind, enc = (b, e2) if relation == "second" else (a, e1)
        way = _skip_terms(ka, intervals, enc, behind, loop)
        if way:
            solver.add(*way)
    if parted and relation == "same":
        made = len(e1.facts), len(e2.facts)
        solver.add(*_parted_terms(ka, e1, e2, parted))
        solver.add(*e1.facts[made[0]:], *e2.facts[made[1]:])  # what the decisions' terms need
    group = _same_value_group(a, b)
    if group:
        # Threads of one aligned group store one value there: only stores from different
        # groups can disagree.
        solver.add(e1.linear() / group != e2.linear() / group)
    solver.add(*same_element)
    if warp_decisions:
        solver.add(e1.linear() / 32 == e2.linear() / 32)
    facts = list(solver.assertions())
    if (e1.input_tests or e2.input_tests) and _decide(z3, facts, ka)[0] == z3.unsat:
        # No two threads touch one element whatever the conditions: settled without them, as
        # tests of values read from memory (a compare-exchange's) make the full query costly.
        count_decision("solver: unsat without the guards")
        return None
    verdict, solver = _decide(z3, facts + [g for g, _ in guards], ka)
    if verdict == z3.unknown:
        # Decisions the whole block takes alike (often divisions of parameters) are the
        # costly part and do not tell the two threads apart: decide again without them.
        # A decision that names a value each thread has for itself (a loop counter the
        # threads run out of step, `x < d`) does tell them apart and stays.
        # A block-wide decision on a value the compared indices use (`e < E` beside
        # `s[t * E + e]`: E >= 1) still bounds those indices, and stays as well.
        own = set(shared)
        indexed = _symbols(same_element) & own
        kept = [g for g, level in guards if level > Level.BLOCK or not _only_symbols(g, own)
                or _symbols([g]) & indexed]
        if len(kept) < len(guards):
            verdict, solver = _decide(z3, facts + kept, ka)
    if verdict == z3.unknown:
        # Products of run-time sizes in the indices (`t * width + i`) are what the 32-bit
        # solver finds costly: look for a conflict with those sizes fixed to a few values
        # (a conflict found so is one the kernel admits; none found leaves it undecided).
        tied = tied_parameters(ka.block_relations, ka.argument_relations, ka.argument_facts)
        # (global and __constant__ variables: run-time values the host sets, as it does the
        # kernel's parameters)
        run_time = {p.key for p in ka.kernel.params} | ka.program.global_value_keys()
        free = {k: v for k, v in shared.items() if k in run_time and k not in tied}
        verdict, solver = _with_fixed_factors(z3, facts + [g for g, _ in guards], idx_a + idx_b, free, ka)
    if verdict == z3.unknown:
        count_decision("solver: unknown")
        return UNDECIDED
    if verdict != z3.sat:
        count_decision("solver: unsat")
        return None
    count_decision("solver: sat")
    # Facts asked for only once a conflict is found, as they make the first query costlier:
    # the bounds of parts carved between two others (products of run-time sizes), and that
    # products of run-time values in an index do not wrap around. Undecided, the conflict
    # found stands.
    for extra, unsat_means in ((between_parts, "outside the carved parts only"),
                               (_unwrapped_products(z3, idx_a + idx_b), "only by wrapping around")):
        if not extra:
            continue
        refined, refined_solver = _decide(z3, list(solver.assertions()) + extra, ka)
        if refined == z3.unsat:
            count_decision(f"solver: {unsat_means}")
            return None
        if refined == z3.sat:
            solver = refined_solver
    # Is there a conflict between threads of different warps?
    across = e1.linear() / 32 != e2.linear() / 32
    inter_verdict, inter_solver = _decide(z3, list(solver.assertions()) + [across], ka)
    # Undecided: threads of different warps may conflict too, so it is not a warp-level race.
    inter = inter_verdict != z3.unsat
    if inter_verdict == z3.sat:
        solver = inter_solver
    if not inter and not example_if_intra or not example:
        return (not inter, None, shape)
    example = smallest_example(solver, e1, e2, None if shape else dims)
    if example is None:
        return (not inter, None, shape)
    threads, found_shape = example
    return (not inter, threads, shape or found_shape)


def _iterations_apart(ka: KernelAccesses, intervals: BarrierIntervals, e1: Encoder, a: Access,
                      e2: Encoder, b: Access) -> list:
    """Two threads in different iterations of a loop that a barrier ends only under a
    block-wide condition (`if (d > 32) __syncthreads();`) are there only if the one behind
    went on without the barrier: in its own iteration the condition let it pass. So for each
    such loop around both accesses: the same iteration (its test's variables equal for the
    two), or the earlier thread's iteration skipped the barrier."""
    z3 = e1.z3
    out = []
    if a.instance is not None or b.instance is not None:
        return out
    for loop in intervals.loops:
        if not loop.barrier_free_cycle or a.point[0] not in loop.blocks or b.point[0] not in loop.blocks:
            continue
        header = ka.cfg.blocks[loop.header]
        ctx = ka.contexts.get(loop.header)
        if header.branch is None or ctx is None:
            continue
        counters = [n for n in header.branch.walk() if n.kind == "DECL_REF_EXPR" and n.decl is not None
                    and n.decl.key in e1.varying and n.decl.key in e2.varying]
        skips = [_skip_terms(ka, intervals, enc, acc, loop) for enc, acc in ((e1, a), (e2, b))]
        if not counters or all(s == [] for s in skips):
            continue  # either thread may run ahead, under no known condition: nothing to add
        try:
            for n in counters:  # makes each thread's iteration count of the loop
                e1.expr(n, ctx.scope), e2.expr(n, ctx.scope)
        except NotEncodable:
            continue
        if header.branch_stmt is None:
            continue
        key = ctx.scope.analysis.function.key
        k1, k2 = e1.iteration_of(key, header.branch_stmt.id), e2.iteration_of(key, header.branch_stmt.id)
        if k1 is None or k2 is None:
            continue
        ahead = [k1 == k2]
        if skips[0] is not None:
            ahead.append(z3.And(z3.ULT(k1, k2), *skips[0]))  # thread 1 is behind
        if skips[1] is not None:
            ahead.append(z3.And(z3.ULT(k2, k1), *skips[1]))
        out.append(z3.Or(*ahead))
    return out


def _parted_terms(ka: KernelAccesses, e1: Encoder, e2: Encoder, parted: list[tuple[int, int]]) -> list:
    """The two threads decide at least one of the branches differently (those they must part
    at to be in one interval: two lanes of one 16-thread row under a test of the row alike go
    the same way, and meet the barriers inside it together); [] where one cannot be read."""
    z3 = e1.z3
    apart = []
    for block, _ in parted:
        node, ctx = ka.cfg.blocks[block], ka.contexts.get(block)
        if node.branch is None or ctx is None:
            return []
        try:
            apart.append(e1.cond(node.branch, ctx.scope) != e2.cond(node.branch, ctx.scope))
        except NotEncodable:
            return []
    return [z3.Or(*apart)] if apart else []


def _skip_terms(ka: KernelAccesses, intervals: BarrierIntervals, enc: Encoder, acc: Access, loop):
    """The block-wide decisions, as terms of this thread, under which it goes from the access
    to the loop's next iteration with no barrier; [] when nothing is known of them (any
    path may do), None when every path meets a barrier (it cannot run ahead)."""
    arms = intervals.arms_to_next_iteration(*acc.point, loop)
    if arms is None:
        return None
    terms = []
    for block, arm in sorted(arms):
        node, ctx, level = ka.cfg.blocks[block], ka.contexts.get(block), ka.cond_levels.get(block)
        if node.branch is None or ctx is None or level is None or level > Level.BLOCK:
            continue
        try:
            c = enc.cond(node.branch, ctx.scope)
        except NotEncodable:
            continue
        terms.append(c if arm == 0 else enc.z3.Not(c))
    return terms


def _guard_terms(z3, e1: Encoder, a: Access, e2: Encoder, b: Access, exited: tuple[int, int] | None = None,
                 ka: KernelAccesses | None = None):
    """The two accesses' conditions as terms, each with its level, and whether a decision the
    whole warp takes alike is among them; None when the pair is not judged. ``exited``: the
    thread (1 or 2) whose decision (node id) is taken the other way. A thread's local that
    several definitions reach stays its own in a decision (Encoder.one_of_definitions)."""
    e1.one_of_definitions = e2.one_of_definitions = False
    try:
        return _decision_terms(z3, e1, a, e2, b, exited, ka)
    finally:
        e1.one_of_definitions = e2.one_of_definitions = True


def _decision_terms(z3, e1: Encoder, a: Access, e2: Encoder, b: Access, exited: tuple[int, int] | None,
                    ka: KernelAccesses | None):
    guards = []
    warp_decisions = False
    unread = set()  # the accesses under a thread's decision the encoder cannot read
    for enc, acc in ((e1, a), (e2, b)):
        for g in acc.guards:
            tests_before = enc.input_tests
            try:
                c = enc.cond(g.cond, g.scope)
                if g.level <= Level.BLOCK:
                    # (a test of the input that the whole block takes alike, `if (length)`
                    # around the block's work, selects no thread: see the store exception)
                    enc.input_tests = tests_before
            except NotEncodable as unknown:
                if g.level <= Level.BLOCK:
                    continue  # a uniform decision does not tell threads apart
                if g.level > Level.WARP:
                    # A decision on a local that branches on the thread's indices set
                    # (`if (edges == 0)`): for one of the two accesses, some thread takes
                    # it, as code no thread runs is rare. Under such decisions on both
                    # sides the two threads could in truth be one (a single leader's two
                    # steps): not judged.
                    if isinstance(unknown, MergedDefinitions):
                        unread.add(enc.t)
                        if len(unread) > 1:
                            return None
                        guards.append((z3.Bool(f"thread decision {g.cond.id}#{enc.t}"), g.level))
                        continue
                    if _proven_block_uniform(ka, g):
                        continue  # the taint says thread-dependent; a proof says it is not
                    if exited is not None and g.cond.id == exited[1]:
                        # the exit whose two arms the stale-read check compares (`if (!done)
                        # return;` with done from a helper's result): each thread's own
                        # decision, which the taint says differs between threads
                        c = z3.Bool(f"exit decision {g.cond.id}#{enc.t}")
                    else:
                        # A test of the thread's indices against values the same over its
                        # warp that the encoder cannot model (`lane == __ffs(mask) - 1`, the
                        # lane a warp picks): those values as unknowns of the warp (or
                        # block); other decisions the encoder cannot read are not judged.
                        c = _with_group_unknowns(enc, lambda: enc.cond(g.cond, g.scope))
                        if c is None:
                            # (a test of loaded data, `if (k == key[blk])` in a search: for one
                            # of the two accesses, some thread's data passes it, as for the
                            # thread decisions above)
                            unread.add(enc.t)
                            if len(unread) > 1:
                                return None
                            c = z3.Bool(f"data decision {g.cond.id}#{enc.t}")
                elif _proven_block_uniform(ka, g):
                    continue  # the taint says it differs between warps; a proof says it does not
                else:
                    # A decision the whole warp takes alike that the encoder cannot read (a
                    # count loaded from shared memory): an unknown value of the warp, so two
                    # lanes of one warp see the same. Only pairs within a warp are judged then.
                    decide = z3.Function(f"warp_decision_{g.cond.id}_{enc.scope_tag(g.scope)}",
                                         enc.linear().sort(), z3.BoolSort())
                    c = decide(enc.linear() / 32)
                    warp_decisions = True
            if g.polarity is None:
                continue
            holds = g.polarity
            if exited is not None and enc.t == exited[0] and g.cond.id == exited[1]:
                holds = not holds
            guards.append((c if holds else z3.Not(c), g.level))
    # an unknown of a warp could be a bound that takes a thread past its warp's part of a
    # carved buffer, an unknown part of an index any element: such pairs are judged within a
    # warp only
    return guards, warp_decisions or any(
        (enc.warp_unknowns_made and not enc.loaded_index) or enc.index_unknowns for enc in (e1, e2))


def _proven_loop_test(ka: KernelAccesses, block: int) -> bool:
    """Is the test of the loop that branches at ``block`` proved the same for every thread of
    the block at each iteration (a grid-stride loop to a bound rounded up to the block), though
    the taint says it varies? Then the threads leave that loop together and do not part there."""
    b = ka.cfg.blocks[block]
    ctx = ka.contexts.get(block)
    if b.branch is None or ctx is None or b.branch_stmt is None \
            or b.branch_stmt.kind not in ("FOR_STMT", "WHILE_STMT", "DO_STMT"):
        return False
    with side_context():  # (its terms leave the race queries' context as it was)
        return _proven_block_uniform(ka, Guard(b.branch, True, int(Level.THREAD), ctx.scope))


def _proven_block_uniform(ka: KernelAccesses | None, guard) -> bool:
    """Is the guard's decision, which the taint calls thread-dependent and the race encoding
    cannot read, proved the same for every thread of the block (a loop left when a helper's
    block-wide count says all is done)? Once per decision and context."""
    if ka is None:
        return False
    key = (guard.cond.id, id(guard.scope))
    if key not in ka.proven_uniform:
        scopes = [ka.kernel_scope] if guard.scope is ka.kernel_scope else [ka.kernel_scope, guard.scope]
        ka.proven_uniform[key] = same_in_scopes(ka.program, ka.service, ka.kernel, scopes, len(scopes) - 1,
                                                guard.cond, 1024)
    return ka.proven_uniform[key]


def _with_group_unknowns(enc: Encoder, encode, where: str = "guard"):
    """``encode()`` (a guard's condition, an index) with the values the encoder cannot model
    that are the same over a warp or the block as unknowns of it (Encoder._group_unknown);
    None if it still cannot be read."""
    enc.group_unknowns = where
    try:
        return encode()
    except NotEncodable:
        return None
    finally:
        enc.group_unknowns = None


_TILE_THREADS = {level: GROUP_THREADS[level] for level in (Level.TILE16, Level.TILE8, Level.TILE4, Level.TILE2)}


def _layout_facts(enc: Encoder, acc: Access) -> list:
    """What the layout an access is written against says about the sizes in it:
    - a part carved from a buffer at the top of a function (`s_b = &s_a[n]`, `s_a + n`)
      starts at or after the part it is carved from: n is not negative;
    - a thread's row (`s[t * w + 1]`, a run-time width w and a constant column) is wider than
      the columns the thread addresses in it: w > 1. Otherwise rows would overlap, and each
      thread would address another's row, which is not what such an index means;
    - the part each row or warp of threads is given (`smem + threadIdx.y * stride`) is at
      least one element long: a stride of 0 would hand every row the one part, which is not
      what carving per-row parts means."""
    z3 = enc.z3
    facts = []
    for k, o in enumerate(acc.offsets):
        if o.uniform_in is None and o.scale > 0:
            facts.extend(_part_stride_facts(enc, o))
        if o.uniform_in is None or o.scale <= 0:
            continue
        try:
            term = _index_term(enc, acc, o.node, o.scope, len(acc.indices) + k, o)
        except NotEncodable:
            continue
        facts.append(term >= 0)
        if _nonlinear(z3, term):
            # the factors of a size that is a product are sizes too (`&s_a[n * width]`):
            # none is negative (the solver then need not try products that wrap around)
            facts.extend(f >= 0 for f in _product_factors(z3, term))
    for node, scope in acc.indices[-1:]:
        row = _row_and_column(node)
        if row is None:
            continue
        factors, column = row
        try:
            terms = [enc.expr(f, scope) for f in factors]
        except NotEncodable:
            continue
        thread = [enc.names_thread(t) for t in terms]
        if thread.count(True) != 1 or any(z3.is_bv_value(z3.simplify(t)) for t in terms):
            continue
        width = terms[thread.index(False)]
        facts.append(width > column)
    return facts


def _part_stride_facts(enc: Encoder, offset: Offset) -> list:
    """stride >= 1 for a thread-dependent offset that is a product `t * stride` (through the
    locals it is defined by) whose other factor is the same for every thread and not a
    constant."""
    z3 = enc.z3
    try:
        term = enc.expr(offset.node, offset.scope)
    except NotEncodable:
        return []
    if not z3.is_app_of(term, z3.Z3_OP_BMUL) or term.num_args() != 2:
        return []
    factors = [term.arg(0), term.arg(1)]
    thread = [enc.names_thread(f) for f in factors]
    if thread.count(True) != 1:
        return []
    stride = factors[thread.index(False)]
    if z3.is_bv_value(z3.simplify(stride)):
        return []
    return [stride >= 1]


def _part_position_facts(z3, enc: Encoder, acc: Access) -> list:
    """What the layout says of an access through a pointer into a part of a buffer (one
    index, or none: `*p`, index 0):
    - a subscript the same for the whole block (`ppath[len - 1]`) indexes the part, not what
      lies before it: it is not negative. (A subscript of the thread, `tile[tx - R]` of a
      stencil's halo, may reach below the part's start, and is left alone.)
    - a thread's own slice (`buf + t * len`, t naming the thread, len the same for the block)
      is addressed within its length: 0 <= position < len, the position being what is added
      after the slice (the index, `*(p + len - 1)`'s offsets), where it does not name the
      thread itself (`s[lane + 16]` in a warp's slice may overflow). A guard of the access
      that tests its index against the slice's size (`i <= n` around `mine[i]` in
      `data + t * n`) is checked instead of the upper bound: overrunning is the bug there."""
    if len(acc.indices) > 1 or acc.atomic or not acc.offsets:
        return []
    facts = []
    index = None
    if acc.indices:
        try:
            index = _index_term(enc, acc, acc.indices[0][0], acc.indices[0][1], 0)
        except NotEncodable:
            return []
        if _signed_integer(acc.indices[0][0].type) and not enc.names_thread(index) \
                and not any(str(v).startswith("iter:") for v in term_variables(z3, index)):
            facts.append(index >= 0)
    try:
        terms = [_index_term(enc, acc, o.node, o.scope, len(acc.indices) + k, o)
                 for k, o in enumerate(acc.offsets)]
    except NotEncodable:
        return facts
    slices = []
    for k, (o, term) in enumerate(zip(acc.offsets, terms)):
        for product in _products(z3, term):
            factors = product.children()
            thread = [enc.names_thread(f) for f in factors]
            if o.scale == 1 and len(factors) == 2 and thread.count(True) == 1 \
                    and not any(z3.is_bv_value(f) for f in factors):
                slices.append((k, factors[thread.index(False)]))
    if len(slices) != 1:
        return facts
    k, length = slices[0]
    after = list(zip(acc.offsets[k + 1:], terms[k + 1:]))
    if any(o.unit != acc.offsets[k].unit for o, _ in after) or \
            any(enc.names_thread(t) for _, t in after) or index is not None and enc.names_thread(index):
        return facts
    if any(multiple_of(z3, t, length) for _, t in after):
        # a move by whole slices (`flux + meqn` of `flux = buf + meqn * t`, `waves + inc *
        # len`): the neighbour's slice, on purpose
        return facts
    parts = [t * o.scale if o.scale != 1 else t for o, t in after] + ([index] if index is not None else [])
    if not parts:
        return facts + [length >= 1]
    bits = max([length.size()] + [t.size() for t in parts])
    position = sum((C.z3_convert(z3, t, None, bits) for t in parts[1:]), C.z3_convert(z3, parts[0], None, bits))
    length = C.z3_convert(z3, length, None, bits)
    slice_names = referenced_keys(acc.offsets[k].node)
    index_names = referenced_keys(acc.indices[0][0]) if acc.indices else set()
    if any(referenced_keys(g.cond) & slice_names and referenced_keys(g.cond) & index_names for g in acc.guards):
        return facts + [position >= 0]
    return facts + [position >= 0, position < length]


def _unwrapped_products(z3, terms: list) -> list:
    """A product of two run-time values in an index (`row * width`, `jc * (stride / 2)`)
    does not wrap around: each factor stays below 2^15 in size. A shared buffer holds at
    most 2^18 bytes, so an index whose product is larger is out of bounds anyway; and without
    this, the solver's 32-bit arithmetic lets rows of a run-time width meet by wrapping."""
    facts = []
    bound = 1 << 15
    for term in terms:
        for product in _products(z3, term):
            factors = product.children()
            if product.size() < 32 or sum(not z3.is_bv_value(f) for f in factors) < 2:
                continue  # (narrow products are the solver's rewriting of low bits)
            for f in factors:
                if not z3.is_bv_value(f):
                    facts += [f > -bound, f < bound]
    return facts


# Sizes a conflict is looked for at when the query with free sizes is undecided.
_FIXED_FACTOR_VALUES = (8, 32, 3)


def _with_fixed_factors(z3, facts: list, indices: list, shared: dict, ka: KernelAccesses):
    """The query decided again with the run-time values that multiply each other in the
    indices fixed to one of a few values; ``shared``: the symbols that may be fixed (the
    kernel's parameters that no launch ties to the block shape or to each other). sat is a
    conflict the kernel admits at those sizes; otherwise (unknown, None) as undecided."""
    own = {str(v) for v in shared.values()}
    factors = {}
    for term in indices:
        for operation in _products(z3, term, divisions=True):
            for f in term_variables(z3, operation):
                if str(f) in own:
                    factors[str(f)] = f
    if not factors:
        return z3.unknown, None
    for value in _FIXED_FACTOR_VALUES:
        fixed = [f == value for _, f in sorted(factors.items())]
        verdict, solver = _decide(z3, facts + fixed, ka, _WITNESS_SHARE)
        if verdict == z3.sat:
            count_decision("solver: sat with sizes fixed")
            return verdict, solver
    return z3.unknown, None


_DIVISIONS = ("Z3_OP_BUDIV", "Z3_OP_BSDIV", "Z3_OP_BUDIV_I", "Z3_OP_BSDIV_I", "Z3_OP_BUREM", "Z3_OP_BSREM",
              "Z3_OP_BUREM_I", "Z3_OP_BSREM_I", "Z3_OP_BSMOD", "Z3_OP_BSMOD_I")


def _products(z3, term, divisions: bool = False):
    """The multiplications in a term (each once); with ``divisions``, its divisions and
    remainders as well."""
    kinds = {z3.Z3_OP_BMUL} | ({getattr(z3, name) for name in _DIVISIONS} if divisions else set())
    seen, work = set(), [z3.simplify(term)]
    while work:
        t = work.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_app(t) and t.decl().kind() in kinds:
            yield t
        work.extend(t.children())


def _product_factors(z3, term) -> list:
    """The factors that are not constants of the products of unknowns in a term."""
    return [c for t in _products(z3, term) for c in t.children()
            if not z3.is_bv_value(c) and not z3.is_app_of(c, z3.Z3_OP_BMUL)]


def _nonlinear(z3, term) -> bool:
    """Does the term multiply two values neither of which is a constant?"""
    return any(sum(not z3.is_bv_value(c) for c in t.children()) > 1 for t in _products(z3, term))


def _row_and_column(node: Node) -> tuple[tuple[Node, Node], int] | None:
    """((factor, factor), column) for an index `a * b + column` with a constant column."""
    n = _strip(node)
    while n.kind == "PAREN_EXPR" and n.children:
        n = _strip(n.children[-1])
    if n.kind != "BINARY_OPERATOR" or n.op != "+" or len(n.children) != 2:
        return None
    product, column = (_strip(c) for c in n.children)
    if product.kind == "INTEGER_LITERAL":
        product, column = column, product
    while product.kind == "PAREN_EXPR" and product.children:
        product = _strip(product.children[-1])
    if column.kind != "INTEGER_LITERAL" or not isinstance(column.value, int) or column.value < 0 \
            or product.kind != "BINARY_OPERATOR" or product.op != "*" or len(product.children) != 2:
        return None
    return (product.children[0], product.children[1]), column.value


def _guards_name(acc: Access, expression: Node) -> bool:
    """Does one of the access's guards relate its index to the expression (name every
    variable of the size and one of the index: `if (t <= n) s_a[t]`)? A loop's test on the
    size alone (`k < n` around `s_a[t - 1]`) bounds the counter, not the index; nor does a
    test on one factor of a size that is a product (`i < width` around `s_a[t * width + i]`
    in a part of n * width values: it bounds the column within a row)."""
    names = referenced_keys(expression)
    index = referenced_keys(acc.indices[0][0]) if acc.indices else set()
    return any(names <= _defined_names(g.cond, g.scope) and referenced_keys(g.cond) & index for g in acc.guards)


def _defined_names(node: Node, scope, depth: int = 3) -> set[str]:
    """The variables an expression reads, and those its locals defined once are made of
    (`i < words + 1` with `words = npairs * 6` reads npairs too)."""
    out = set()
    for n in node.walk():
        if n.kind != "DECL_REF_EXPR" or n.decl is None:
            continue
        out.add(n.decl.key)
        definition = scope.single_defs.get(n.decl.key) if scope is not None and depth > 0 else None
        if definition is not None and not any(c in n.decl.type for c in "*&["):
            # (a number, not an address: `*count` of `count = &s[n]` reads the counter)
            out |= _defined_names(definition, scope, depth - 1)
    return out


def _reader_stored_it_first(ka: KernelAccesses, intervals: BarrierIntervals, a: Access, b: Access) -> bool:
    """A store of one block-uniform value to a scalar, paired with a read of it that every
    reading thread makes only after that store of its own (`map = nullptr; ... if (map !=
    nullptr)`): any store of the pair it can see holds the value it stored itself. (Other
    stores to the scalar are pairs of their own.)"""
    store, read = (a, b) if a.write else (b, a)
    if not store.write or store.read or read.write or store.atomic or read.atomic \
            or store.value_level > Level.BLOCK or store.array != read.array or store.element != read.element:
        return False
    if store.instance is not None or read.instance is not None \
            or store.indices or read.indices or store.offsets or read.offsets:
        return False
    return intervals.made_first((store.point[0], store.point[1]), (read.point[0], read.point[1]),
                                lambda block: ka.cond_levels.get(block, Level.UNIFORM) <= Level.BLOCK)


def _different_constants_stored(a: Access, b: Access) -> bool:
    """Do two plain stores of one function store two different constants (`changed = false`
    and `changed = true` in one fixpoint loop)? (Stores in two helpers are left to the
    exception: which of their calls can meet depends on more than the two stores.)"""
    if not _one_definition(a.function, b.function):
        return False
    values = [_stored_value(x) for x in (a, b)]
    if None in values:
        return False
    constants = [integer_constant(v) for v in values]
    return None not in constants and constants[0] != constants[1]


def _stored_value(access: Access) -> Node | None:
    """The right side of the assignment the access is the target of, if it is one."""
    function = access.function or (access.scope.analysis.function if access.scope is not None else None)
    return function.assigned_value(access.node) if function is not None else None


def _same_value_group(a: Access, b: Access) -> int | None:
    """Threads per aligned group that store the same value, when a store is paired with
    itself and its value is uniform within tiles smaller than a warp (a tile reduction's
    result); warp-uniform stores are judged after the fact (see find_races)."""
    if a is b and a.write and not a.read:
        return _TILE_THREADS.get(a.value_level)
    return None


def _same_statement(ka: KernelAccesses, acc: Access) -> list[Access]:
    """Accesses to arrays of known size in the same statement as ``acc``, made under the same
    conditions (not in another arm of a `?:` or behind a `&&`)."""
    by_statement = getattr(ka, "_sized_by_statement", None)
    if by_statement is None:
        by_statement = ka._sized_by_statement = {}
        for c in ka.accesses:
            if any(e is not None for e in c.extents):
                by_statement.setdefault((c.point, c.instance, c.local_point), []).append(c)
    return [c for c in by_statement.get((acc.point, acc.instance, acc.local_point), ())
            if c is not acc and c.guards == acc.guards and c.scope is acc.scope]


def _decide(z3, assertions: list, ka: KernelAccesses | None = None, share: int = 1):
    """Check the assertions with a solver of their own. A solver that has been pushed works
    incrementally and skips the preprocessing that settles products of a thread index and a
    parameter (`tx * d + x` against `ty * d + y`), leaving such pairs undecided. With the
    kernel's accesses: within the kernel's budget (_query_limit), counting what it spends.
    Settled first over the integers (integer_relaxation), where products of run-time values
    cost the solver little: no solution there, no solution that does not wrap around."""
    # (Only its "no solution" is taken: which solution the integer solver finds depends on
    # the context's history, and a conflict found so would name other threads, or be found
    # at all, in one run and not in another.)
    relaxation = relaxed(z3, assertions)
    if relaxation is not None:
        first = z3.Solver()
        first.set("rlimit", _query_limit(ka) // (share * _RELAXATION_SHARE))
        first.add(*relaxation.formulas)
        if first.check() == z3.unsat:
            count_decision("relaxation: unsat over the integers")
            return z3.unsat, first
    solver = z3.Solver()
    solver.set("rlimit", _query_limit(ka) // share)
    solver.add(*assertions)
    verdict = solver.check()
    if verdict == z3.unknown and ka is not None and share == 1:
        ka.solver_unknowns += 1
    return verdict, solver


# A kernel's queries get the full budget until this many have run out of it; the rest get
# an eighth (queries that use all of it are most of the time of a kernel with hundreds of
# hard pairs: gpu4pyscf's md_j kernel took minutes). Counted, not timed: the same kernel
# gets the same answers on any machine. (With 16, a race of MGARD's mass-multiply kernel,
# decided after 46 such queries, was lost.)
_FULL_LIMIT_UNKNOWNS = 64


# The query over the integers gets a sixteenth of the budget of its query: linear where the
# bit-vector query multiplies, it is settled in a small part of that when it is at all.
_RELAXATION_SHARE = 16


# A search for a conflict with the run-time sizes fixed (_with_fixed_factors) finds one soon
# when there is one: it gets an eighth of the budget of its query.
_WITNESS_SHARE = 8


def _query_limit(ka: KernelAccesses | None) -> int:
    if ka is None or ka.solver_unknowns < _FULL_LIMIT_UNKNOWNS:
        return RESOURCE_LIMIT
    return RESOURCE_LIMIT // 8


def _only_symbols(term, names: set[str]) -> bool:
    """Are all the free symbols of a z3 term among ``names`` (and the block shape)?"""
    return all(name in names or name.startswith("blockDim.") for name in _symbols([term]))


def _signed_integer(type_spelling: str) -> bool:
    t = C.int_type(type_spelling)
    return t is not None and t.known and t.signed


def _symbols(terms: list) -> set[str]:
    """The names of the free symbols of some z3 terms."""
    return {v.decl().name() for v in term_variables(z3_module(), *terms)}


def _flattened(values: list, acc: Access):
    if len(values) == 1:
        return values[0]
    if acc.strides is None or len(acc.strides) != len(values):
        return None
    total = values[0] * acc.strides[0]
    for v, s in zip(values[1:], acc.strides[1:]):
        total = total + v * s
    return total


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


def _same_units(a: Access, b: Access) -> bool:
    """Do both accesses count their indices and offsets in one element size (positions then
    compare as element indices)?"""
    return a.element == b.element and all(o.unit == a.element for o in a.offsets + b.offsets)


def _unit_bytes(enc: Encoder, unit: int | str, bits: int):
    """The size of an element as a term: a constant, or for a type whose size is unknown (a
    dependent type) one shared unknown of at least one byte."""
    if isinstance(unit, int):
        return enc.z3.BitVecVal(unit, bits)
    return C.z3_convert(enc.z3, enc.size_of_type(unit), None, bits)


def _same_place(e1: Encoder, a: Access, e2: Encoder, b: Access):
    """Conditions for the two accesses to touch one element (some byte of it, where their
    positions count different element sizes); None when the positions cannot be compared,
    UNDECIDED when byte ranges cannot be formed."""
    if not (a.indices or a.offsets) or not (b.indices or b.offsets):
        return []  # a whole scalar, struct member or collective's storage: every part of it
    values_a, offsets_a = _position_terms(e1, a)
    values_b, offsets_b = _position_terms(e2, b)
    offsets_a, offsets_b = _cancelled(offsets_a, offsets_b)
    terms = [t for t, _ in values_a + values_b + offsets_a + offsets_b]
    bits = max([t.size() for t in terms], default=32)
    if _same_units(a, b):
        pos_a = _element_position(e1, a, values_a, offsets_a, bits)
        pos_b = _element_position(e2, b, values_b, offsets_b, bits)
        if len(pos_a) != len(pos_b):
            # One access through a row pointer, the other with all its subscripts: compare
            # the flattened positions.
            pos_a, pos_b = [_flattened(pos_a, a)], [_flattened(pos_b, b)]
            if pos_a[0] is None or pos_b[0] is None:
                return None
        return [x == y for x, y in zip(pos_a, pos_b)]
    # Positions counted in different element sizes (a view of another type, sub-arrays carved
    # out of one buffer): compare the byte ranges, as pointer arithmetic computes them
    # (ptrdiff_t: 64 bits on the device).
    span_a = _byte_span(e1, a, values_a, offsets_a, 64)
    span_b = _byte_span(e2, b, values_b, offsets_b, 64)
    if span_a is None or span_b is None:
        return UNDECIDED
    (start_a, size_a), (start_b, size_b) = span_a, span_b
    return [start_a < start_b + size_b, start_b < start_a + size_a]


def _position_terms(enc: Encoder, acc: Access):
    """The access's index terms (with their nodes) and offset terms (with their offsets), each
    in the width of its own type."""
    values = [(_index_term(enc, acc, n, s, k), n) for k, (n, s) in enumerate(acc.indices)]
    offsets = [(_index_term(enc, acc, o.node, o.scope, len(acc.indices) + k, o), o)
               for k, o in enumerate(acc.offsets)]
    return values, offsets


def _cancelled(offsets_a: list, offsets_b: list) -> tuple[list, list]:
    """The offsets less those both accesses add alike (the same term, scale and unit: a
    pointer both go through, whose offset the two threads compute alike). Positions into a
    buffer do not wrap around (pointer arithmetic past it is undefined), so comparing the
    rest is the same test, and the solver is spared the wide sums."""
    rest_b = list(offsets_b)
    kept_a = []
    for term, offset in offsets_a:
        match = next((i for i, (other, o) in enumerate(rest_b)
                      if o.scale == offset.scale and o.unit == offset.unit and term.eq(other)), None)
        if match is None:
            kept_a.append((term, offset))
        else:
            rest_b.pop(match)
    return kept_a, rest_b


def _element_position(enc: Encoder, acc: Access, values: list, offsets: list, bits: int) -> list:
    """Element indices per dimension, the offsets added to the first (or alone: `*p`)."""
    out = [_widened(enc, t, n, bits) for t, n in values]
    total = None
    for term, o in offsets:
        term = _widened(enc, term, o.node, bits)
        term = term * o.scale if o.scale != 1 else term
        total = term if total is None else total + term
    if total is not None:
        if out:
            out[0] = out[0] + total
        else:
            out = [total]
    return out or [enc.z3.BitVecVal(0, bits)]


def _byte_span(enc: Encoder, acc: Access, values: list, offsets: list, bits: int):
    """(first byte, size) of the element an access touches, counted from the place the offsets
    left out start from, in ``bits``-wide terms; None when the subscripts are not one flat
    index."""
    values = [_widened(enc, t, n, bits) for t, n in values]
    accessed = _unit_bytes(enc, acc.element, bits)
    if len(values) > 1:
        flat = _flattened(values, acc)
        if flat is None:
            return None
        values = [flat]
    start = values[0] * accessed if values else enc.z3.BitVecVal(0, bits)
    for term, offset in offsets:
        start = start + _widened(enc, term, offset.node, bits) * (_unit_bytes(enc, offset.unit, bits) * offset.scale)
    return start, accessed


def _widened(enc: Encoder, term, node: Node, bits: int):
    """An index or offset converted to the width positions are compared in, as C converts it
    to ptrdiff_t (an unsigned index with zeros, a signed one with its sign)."""
    return C.z3_convert(enc.z3, term, C.int_type(node.type) if node.type else None, bits)


def _indices(enc: Encoder, acc: Access, bits: int | None = None):
    """The positions an access touches, one per dimension, in element units; 32-bit terms
    unless one is wider (then all are, as C converts them to ptrdiff_t), or ``bits``. A union
    member's place in its union is left out: these are positions within the member, which
    its extents bound."""
    moves = [o for o in acc.offsets if not o.member]
    out = [_index_term(enc, acc, n, s, k) for k, (n, s) in enumerate(acc.indices)]
    offsets = [_index_term(enc, acc, o.node, o.scope, len(acc.indices) + k, o) for k, o in enumerate(moves)]
    bits = bits or max([t.size() for t in out + offsets], default=32)
    out = [_widened(enc, t, n, bits) for t, (n, _) in zip(out, acc.indices)]
    offsets = [_widened(enc, t, o.node, bits) for t, o in zip(offsets, moves)]
    if moves:
        offset = None
        for term, o in zip(offsets, moves):
            term = term * o.scale if o.scale != 1 else term
            offset = term if offset is None else offset + term
        if out:
            out[0] = out[0] + offset
        else:
            out = [offset]  # *p or *(p + n): one element past the pointer's target
    return out


def _computed_in_floating_point(node: Node, scope, depth: int = 0) -> bool:
    """Is an index computed from floating-point values (through the values the locals it
    reads are given), with no value read from memory or returned by an atomic on the way?"""
    return _float_position(node, scope, depth) is True


def _float_position(node: Node, scope, depth: int) -> bool | None:
    """True: floating-point values go into the expression; False: none do; None: a value
    read from memory (or an atomic's result, or a local given no value here) does."""
    found = False
    for n in node.walk():
        builtin = n.kind == "MEMBER_REF_EXPR" and n.children and _strip(n.children[0]).kind == "DECL_REF_EXPR" \
            and _strip(n.children[0]).decl is not None and _strip(n.children[0]).decl.storage == "builtin"
        if n.kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR") and not builtin \
                or n.kind == "UNARY_OPERATOR" and n.op == "*":
            return None
        if n.kind == "CALL_EXPR" and callee_name(n) in P.ATOMIC_FUNCTIONS:
            return None
        if n.type and C.int_type(n.type) is None and any(w in n.type for w in ("float", "double", "half")):
            found = True
        if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "local":
            values = _assigned_values(scope.analysis.function.body, n.decl.key)
            if not values or depth >= 4:
                return None
            for value in values:
                inner = _float_position(value, scope, depth + 1)
                if inner is None:
                    return None
                found = found or inner
    return found


def _added_alone(enc: Encoder, term, unknowns: list) -> bool:
    """Does each unknown enter the index only as a summand (`fill + rank`, a queue's fill
    level plus the lane's rank)? Scaled by a thread's own value (`i * width + j`, a row width
    loaded from memory) it would let rows of any width overlap."""
    z3 = enc.z3
    for u in unknowns:
        moved = z3.substitute(term, (u, u + 1))
        step = z3.simplify(moved - term)
        if not (z3.is_bv_value(step) and step.as_signed_long() in (1, 0, -1)):
            return False
    return True


def _carve_end(enc: Encoder, count: Node, scope, unknown: str | None):
    """Where a carved part ends, in its elements: the count the next part starts at (`&s_a[n]`);
    a count the encoder cannot read (`*limit`, loaded from memory) is the same unknown the
    next part's offset is (see _index_term), so the part ends where the next begins."""
    try:
        return enc.expr(count, scope)
    except NotEncodable:
        if unknown is None or unknown in enc.varying:
            raise
        return enc.sym(f"{unknown}+{count.id}", per_thread=False)


def _matrix_tile(access: Access) -> bool:
    return any(o.tile is not None for o in access.offsets)


def _tile_element(enc: Encoder, acc: Access, offset: Offset, position: int):
    """Some element of a warp's matrix tile (Offset.tile): row * leading dimension + column,
    the row and column the thread's own unknowns within the tile's shape."""
    z3 = enc.z3
    rows, cols = offset.tile
    ldm = enc.expr(offset.node, offset.scope)
    row = enc.sym(f"tile row {acc.node.id}.{position}", per_thread=True)
    col = enc.sym(f"tile column {acc.node.id}.{position}", per_thread=True)
    row, col = (C.z3_convert(z3, t, None, ldm.size()) for t in (row, col))
    enc.facts += [z3.ULT(row, rows), z3.ULT(col, cols)]
    return row * ldm + col


def _index_term(enc: Encoder, acc: Access, node: Node, scope, position: int, offset: Offset | None = None):
    """An index as a term. An atomic's index that depends on data (a histogram's bin) may be
    any cell: a free value of that thread. A plain update's (`hist[key[i] & 63] += 1`) reads
    the keys as values of memory: two threads' keys may be equal, which is what a histogram
    counts, so such updates collide; a plain read's likewise (a lookup table's entry chosen by
    the data is any entry the expression can name). A plain store's stays undecided:
    scattering through loaded positions (a permutation, a compaction's offsets) is assumed
    to hit distinct cells, and the code's own tests keep them in their part; a position
    computed in floating point is any element for another statement's access (a reset of
    the whole buffer meets the scatter wherever it lands).
    An offset every thread computes alike in a pointer's definition (a count loaded from
    memory) is one unknown both threads share. Parts of an index that are the same over a
    warp or the block (a queue's fill level from popcounts of ballots, a base loaded once)
    are unknowns of it, the rest as the threads compute it (Encoder._group_unknown)."""
    if offset is not None and offset.tile is not None:
        return _tile_element(enc, acc, offset, position)
    try:
        return enc.expr(node, scope)
    except NotEncodable:
        if offset is not None and offset.uniform_in is not None and offset.uniform_in not in enc.varying:
            return enc.sym(f"{offset.uniform_in}+{node.id}", per_thread=False)
        if acc.atomic:
            return enc.sym(f"data index {acc.node.id}.{position}", per_thread=True)
        made = len(enc.group_unknown_terms)
        grouped = _with_group_unknowns(enc, lambda: enc.expr(node, scope), "index")
        if grouped is not None and _added_alone(enc, grouped, enc.group_unknown_terms[made:]):
            # An unknown index part may be any value: across warps it could name any element.
            # Within one warp the lanes share it, and differ only by what they compute alike.
            enc.index_unknowns = True
            return grouped
        if not acc.read:
            if enc.pairs_one_statement:
                raise
            if _computed_in_floating_point(node, scope):
                # A store at a position computed in floating point (a rounded quantile), against
                # another statement's access: whatever element it names, the other access may
                # name it too (a reset of the whole buffer, then a scatter into it). A position
                # read from memory (a loaded offset, an atomic's ticket) stays undecided: the
                # code's own tests keep it where it belongs.
                enc.loaded_index = True
                return enc.sym(f"store index {acc.node.id}.{position}", per_thread=True)
            raise
        loaded = enc.expr_with_loads(node, scope)
        enc.loaded_index = enc.loaded_index or not acc.write
        # a position read from memory is one of the view it indexes: not below its start,
        # within its extent where that is known
        enc.facts.append(loaded >= 0)
        if position < len(acc.extents) and acc.extents[position] is not None:
            enc.facts.append(loaded < acc.extents[position])
        return loaded
