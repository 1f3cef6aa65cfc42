"""Barrier intervals: the stretches of a kernel between barriers.

All threads of a block start an interval together (at kernel entry or just after a
barrier) and run without synchronizing until the next barrier, so two accesses can be
concurrent only if some interval reaches both. Intervals are computed over CFG items:
a barrier item still belongs to the interval it closes (its arguments are evaluated before
it waits). Loops whose cycle contains no barrier let threads of one interval be in
different iterations; ``iteration_free_loops`` names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from syncheck.ir.cfg import CFG, depth_first
from syncheck.analyses.constants import integer_constant
from syncheck.ir.nodes import Node, strip_wrappers, structural_key


def _shape(node: Node) -> tuple:
    return structural_key(strip_wrappers(node))


def _counter_test(cond: Node, step_of: str | None = None):
    """`k < n` -> (k, '<', shape of n); with step_of=k, `k + s < n` or `k < n - s` -> (k, '<',
    shape of n, s)."""
    cond = strip_wrappers(cond)
    if cond.kind != "BINARY_OPERATOR" or cond.op not in ("<", "<=", "!=") or len(cond.children) != 2:
        return None
    left, right = strip_wrappers(cond.children[0]), cond.children[1]
    if step_of is None:
        if left.kind == "DECL_REF_EXPR" and left.decl is not None:
            return left.decl.key, cond.op, _shape(right)
        return None
    if left.kind == "BINARY_OPERATOR" and left.op == "+" and len(left.children) == 2:
        var, step = strip_wrappers(left.children[0]), strip_wrappers(left.children[1])
        if var.kind == "DECL_REF_EXPR" and var.decl is not None and var.decl.key == step_of \
                and step.kind == "INTEGER_LITERAL" and isinstance(step.value, int):
            return var.decl.key, cond.op, _shape(right), step.value
    bound = strip_wrappers(right)
    if left.kind == "DECL_REF_EXPR" and left.decl is not None and left.decl.key == step_of \
            and bound.kind == "BINARY_OPERATOR" and bound.op == "-" and len(bound.children) == 2:
        step = strip_wrappers(bound.children[1])
        if step.kind == "INTEGER_LITERAL" and isinstance(step.value, int):
            return left.decl.key, cond.op, _shape(bound.children[0]), step.value
    return None


def _counter_start(stmt: Node) -> tuple[str, int] | None:
    """(counter, its constant start) of `for (int i = c; ...)` / `for (i = c; ...)`."""
    init = stmt.child_by_role("init")
    if init is None:
        return None
    for n in init.walk():
        if n.kind == "VAR_DECL" and n.decl is not None and n.children:
            value = strip_wrappers(n.children[-1])
            if value.kind == "INTEGER_LITERAL" and isinstance(value.value, int):
                return n.decl.key, value.value
            return None
        if n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2:
            var, value = strip_wrappers(n.children[0]), strip_wrappers(n.children[1])
            if var.kind == "DECL_REF_EXPR" and var.decl is not None and value.kind == "INTEGER_LITERAL" \
                    and isinstance(value.value, int):
                return var.decl.key, value.value
            return None
    return None


def _past_start(cond: Node, var: str, first: int) -> bool:
    """Is ``cond`` true exactly when the counter ``var`` (rising from ``first``) is past it?"""
    cond = strip_wrappers(cond)
    if cond.kind == "DECL_REF_EXPR" and cond.decl is not None:
        return cond.decl.key == var and first == 0
    if cond.kind != "BINARY_OPERATOR" or len(cond.children) != 2:
        return False
    left, right = (strip_wrappers(c) for c in cond.children)
    op = cond.op
    if right.kind == "DECL_REF_EXPR" and left.kind == "INTEGER_LITERAL":
        left, right = right, left
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}.get(op)
    if left.kind != "DECL_REF_EXPR" or left.decl is None or left.decl.key != var \
            or right.kind != "INTEGER_LITERAL" or not isinstance(right.value, int):
        return False
    return (op in (">", "!=") and right.value == first) or (op == ">=" and right.value == first + 1)


def _counter_step(cfg: CFG, loop: "Loop", var: str) -> int | None:
    """The constant step of the loop's counter, when it is updated exactly once in the loop."""
    steps = _updates(cfg, loop).get(var, [])
    return steps[0] if len(steps) == 1 else None


def _updates(cfg: CFG, loop: "Loop") -> dict[str, list[int | None]]:
    """variable -> the steps of its updates in the loop (None: not a constant increment)."""
    return _updates_in([item for b in loop.blocks for item in cfg.blocks[b].items])


def _updates_in(items: list[Node]) -> dict[str, list[int | None]]:
    steps: dict[str, list[int | None]] = {}
    for item in items:
        for n in item.walk():
            target = None
            if n.kind == "UNARY_OPERATOR" and n.op in ("++", "post++") and n.children:
                target, step = strip_wrappers(n.children[0]), 1
            elif n.kind == "COMPOUND_ASSIGNMENT_OPERATOR" and n.op == "+=" and len(n.children) == 2:
                rhs = strip_wrappers(n.children[1])
                target = strip_wrappers(n.children[0])
                step = rhs.value if rhs.kind == "INTEGER_LITERAL" and isinstance(rhs.value, int) else None
            elif n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR", "UNARY_OPERATOR") and \
                    n.op and (n.op.endswith("=") and n.op not in ("==", "!=", "<=", ">=") or "-" in n.op) \
                    and n.children:
                target, step = strip_wrappers(n.children[0]), None
            if target is not None and target.kind == "DECL_REF_EXPR" and target.decl is not None:
                steps.setdefault(target.decl.key, []).append(step)
    return steps


@dataclass(frozen=True, order=True)
class Point:
    block: int
    index: int  # item index in the block; -1 is the block's start


@dataclass
class Loop:
    header: int
    blocks: frozenset[int]
    barrier_free_cycle: bool = False


def natural_loops(cfg: CFG, live: set[int] | None = None) -> list[Loop]:
    """The CFG's loops (over the live blocks): one per header, with every block of a cycle
    through it."""
    blocks = cfg.blocks
    alive = (lambda b: True) if live is None else (lambda b: b in live)
    _, back_edges = depth_first(cfg.entry, lambda b: [s for s in blocks[b].succs if alive(s)])
    loops: dict[int, set[int]] = {}
    for latch, header in back_edges:
        body = loops.setdefault(header, {header})
        work = [latch]
        while work:
            x = work.pop()
            if x in body:
                continue
            body.add(x)
            work.extend(p for p in blocks[x].preds if alive(p))
    return [Loop(h, frozenset(b)) for h, b in loops.items()]


def last_iteration_branches(cfg: CFG, loops: list[Loop]) -> dict[int, int]:
    """branch block -> loop header, for ifs whose condition is the loop's own condition one
    step ahead (`if (k + 1 < n)` in `for (k = 0; k < n; ++k)`): false only on the last
    iteration, so past their false arm the thread leaves the loop (its second successor)."""
    out: dict[int, int] = {}
    for loop in loops:
        header = cfg.blocks[loop.header]
        if header.branch_kind != "loop" or header.branch is None:
            continue
        counter = _counter_test(header.branch)
        if counter is None:
            continue
        var, op, bound = counter
        step = _counter_step(cfg, loop, var)
        if step is None:
            continue
        for b in loop.blocks:
            blk = cfg.blocks[b]
            if b == loop.header or blk.branch_kind != "if" or blk.branch is None:
                continue
            test = _counter_test(blk.branch, step_of=var)
            if test is not None and test == (var, op, bound, step):
                out[b] = loop.header
    return out


class BarrierIntervals:
    def __init__(self, cfg: CFG, live: set[int], is_barrier: Callable[[Node], bool],
                 runs_once: Callable[[Node], bool] | None = None):
        """``runs_once(loop_statement)``: does the loop's first test always pass (so a thread
        that reaches the loop runs its body at least once)?"""
        self.cfg = cfg
        self.live = live
        self.barrier_items = {(b, i) for b in live for i, item in enumerate(cfg.blocks[b].items)
                              if is_barrier(item)}
        self.loops = self._loops()
        self.entered: dict[int, Loop] = {}
        for loop in self.loops:
            header = cfg.blocks[loop.header]
            if runs_once is not None and header.branch_kind == "loop" and header.branch_stmt is not None \
                    and header.branch_stmt.kind in ("FOR_STMT", "WHILE_STMT") and len(header.succs) == 2 \
                    and runs_once(header.branch_stmt):
                self.entered[loop.header] = loop
        # Branches that fail only on a loop's last iteration (`if (k + 1 < n)` in
        # `for (k = 0; k < n; ++k)`): past their false arm the thread leaves the loop.
        self.last_iteration_branches = self._last_iteration_branches()
        # Branches that repeat their for loop's own test (`if (j < n)` in `for (j = 0; j < n;
        # ++j)`, neither side written in the body): always true inside the body.
        self.always_true_branches = self._always_true_branches()
        # Branches that fail only on a for loop's first iteration (`if (i > 0) __syncthreads();`
        # at the top of `for (i = 0; ...; ++i)`): true on every path that came round the loop.
        self.first_iteration_branches = self._first_iteration_branches()
        self._loop_of_header = {loop.header: loop for loop in self.loops}
        self._reached: dict[Point, set[tuple[int, int]]] = {}
        for loop in self.loops:
            loop.barrier_free_cycle = self._cycle_is_barrier_free(loop)

    def starts(self) -> list[Point]:
        return [Point(self.cfg.entry, -1)] + sorted(Point(b, i) for b, i in self.barrier_items)

    def reach(self, start: Point) -> set[tuple[int, int]]:
        """Items executed in the interval that begins at ``start`` (computed once per start:
        the race checks ask for the same points again and again; callers only read it)."""
        found = self._reached.get(start)
        if found is None:
            found = self._reached[start] = self._scan(start)[0]
        return found

    def reach_within_iteration(self, block: int, index: int, loop: "Loop") -> set[tuple[int, int]]:
        """Items reached from (block, index) before a barrier without starting another
        iteration of ``loop`` (its header is not entered again)."""
        if (block, index) in self.barrier_items:
            return set()
        return self._scan(Point(block, index), stop=loop.header)[0]

    def innermost_synchronized_loop(self, *blocks: int) -> "Loop | None":
        """The innermost loop holding all the blocks whose every cycle meets a barrier."""
        best = None
        for loop in self.loops:
            if all(b in loop.blocks for b in blocks) and not loop.barrier_free_cycle:
                if best is None or len(loop.blocks) < len(best.blocks):
                    best = loop
        return best

    def _scan(self, start: Point, stop: int | None = None) -> tuple[set[tuple[int, int]], set[int]]:
        """Items reached from ``start`` before a barrier, and the blocks left without one.
        A path carries the loop headers it must leave by (after a last-iteration branch)."""
        seen: set[tuple[int, frozenset, bool, frozenset]] = set()
        reached: set[tuple[int, int]] = set()
        left: set[int] = set()
        # (point, loop headers to leave, arriving at a loop that runs once from outside it,
        # loop headers come back to from their body: those loops are past their first iteration)
        work: list[tuple[Point, frozenset, bool, frozenset]] = [(start, frozenset(), False, frozenset())]
        first = True
        while work:
            p, exiting, entering, repeated = work.pop()
            if not first:
                if (p.block, exiting, entering, repeated) in seen:
                    continue
                seen.add((p.block, exiting, entering, repeated))
            first = False
            block = self.cfg.blocks[p.block]
            items = block.items
            stopped = False
            for i in range(p.index + 1, len(items)):
                reached.add((p.block, i))
                if (p.block, i) in self.barrier_items:
                    stopped = True
                    break
            if stopped:
                continue
            left.add(p.block)
            succs = block.succs
            if p.block in exiting and len(succs) == 2:
                succs, exiting = [succs[1]], exiting - {p.block}  # the loop's last iteration ended
            elif entering or p.block in self.always_true_branches:
                succs = succs[:1]  # the first test of a loop that runs at least once
            elif self.first_iteration_branches.get(p.block) in repeated and len(succs) == 2:
                succs = succs[:1]  # a later iteration: past the first, the test holds
            header = self.last_iteration_branches.get(p.block)
            for n, s in enumerate(succs):
                if s in self.live and s != stop:
                    leaving = exiting | {header} if header is not None and n == 1 else exiting
                    loop = self.entered.get(s)
                    again = repeated
                    started = self._loop_of_header.get(s)
                    if started is not None:
                        # round the loop again, or a new run of it from outside (counter reset)
                        again = repeated | {s} if p.block in started.blocks else repeated - {s}
                    work.append((Point(s, -1), leaving, loop is not None and p.block not in loop.blocks,
                                 again))
        return reached, left

    def _last_iteration_branches(self) -> dict[int, int]:
        return last_iteration_branches(self.cfg, self.loops)

    def _first_iteration_branches(self) -> dict[int, int]:
        """branch block -> loop header, for ifs in a for loop's body that test its counter
        against its start (`i > 0`, `i != 0`, `i >= 1`, `0 < i`, `i` with `for (i = 0; ...;
        ++i)`, the counter changed only by the loop's increment, a positive constant): false
        only on the loop's first iteration."""
        out: dict[int, int] = {}
        for loop in self.loops:
            header = self.cfg.blocks[loop.header]
            stmt = header.branch_stmt
            if header.branch_kind != "loop" or stmt is None or stmt.kind != "FOR_STMT":
                continue
            start = _counter_start(stmt)
            inc = stmt.child_by_role("inc")
            if start is None or inc is None:
                continue
            var, first = start
            steps = _updates(self.cfg, loop).get(var, [])
            if len(steps) != 1 or len(_updates_in([inc]).get(var, [])) != 1 \
                    or not isinstance(steps[0], int) or steps[0] <= 0:
                continue
            for b in loop.blocks:
                blk = self.cfg.blocks[b]
                if b != loop.header and blk.branch_kind == "if" and blk.branch is not None \
                        and len(blk.succs) == 2 and _past_start(blk.branch, var, first):
                    out[b] = loop.header
        return out

    def _always_true_branches(self) -> set[int]:
        out: set[int] = set()
        for loop in self.loops:
            header = self.cfg.blocks[loop.header]
            stmt = header.branch_stmt
            if header.branch_kind != "loop" or header.branch is None or stmt is None or stmt.kind != "FOR_STMT":
                continue
            counter = _counter_test(header.branch)
            inc = stmt.child_by_role("inc")
            if counter is None or inc is None:
                continue
            var = counter[0]
            updates = _updates(self.cfg, loop)
            if len(updates.get(var, [])) != len(_updates_in([inc]).get(var, [])):
                continue  # the counter also changes inside the body
            cond = strip_wrappers(header.branch)
            bound_names = {n.decl.key for n in cond.children[1].walk()
                           if n.kind == "DECL_REF_EXPR" and n.decl is not None}
            if bound_names & set(updates) or any(n.kind == "CALL_EXPR" for n in cond.children[1].walk()):
                continue  # a bound the body may change
            for b in loop.blocks:
                blk = self.cfg.blocks[b]
                if b != loop.header and blk.branch_kind == "if" and blk.branch is not None \
                        and len(blk.succs) == 2 and _counter_test(blk.branch) == counter:
                    out.add(b)
        return out

    def uniform_choices(self, start: Point, uniform: Callable[[int], bool]) -> dict[int, frozenset]:
        """block -> the arms of block-uniform branches that every barrier-free path from
        ``start`` to the block takes, as (branch block, successor position). Only branches
        outside barrier-free cycles count: a thread decides them at most once before its next
        barrier, the same way as every other thread, so two threads whose paths need
        different arms of one of them are not between the same two barriers."""
        once = {b: uniform(b) and not any(loop.barrier_free_cycle for loop in self.loops_containing(b))
                for b in self.live if len(self.cfg.blocks[b].succs) > 1}
        facts: dict[int, frozenset] = {start.block: frozenset()}
        work = [start.block]
        while work:
            b = work.pop()
            items = self.cfg.blocks[b].items
            first = start.index + 1 if b == start.block else 0
            if any((b, i) in self.barrier_items for i in range(first, len(items))):
                continue
            for n, succ in enumerate(self.cfg.blocks[b].succs):
                if succ not in self.live or succ == start.block:
                    continue
                new = facts[b] | {(b, n)} if once.get(b) else facts[b]
                old = facts.get(succ)
                merged = new if old is None else old & new
                if merged != old:
                    facts[succ] = merged
                    work.append(succ)
        return facts

    def arms_to_next_iteration(self, block: int, index: int, loop: Loop) -> frozenset | None:
        """The arms of `if` branches of the loop's own body (not of a loop inside it) that
        every barrier-free path from item (block, index) to the loop's next iteration takes,
        as (branch block, successor position): a barrier the body skips only under a
        condition (`if (d > 32) __syncthreads();`) is passed by only when that condition
        says so in this iteration. None: no barrier-free path reaches the next iteration."""
        inner = {b for lp in self.loops if lp is not loop and lp.blocks < loop.blocks for b in lp.blocks}
        facts: dict[int, frozenset] = {}
        arrived: frozenset | None = None
        work: list[tuple[int, int, frozenset]] = [(block, index + 1, frozenset())]
        while work:
            b, first, known = work.pop()
            items = self.cfg.blocks[b].items
            if any((b, i) in self.barrier_items for i in range(first, len(items))):
                continue
            node = self.cfg.blocks[b]
            for n, succ in enumerate(node.succs):
                if succ not in self.live or succ not in loop.blocks:
                    continue
                step = {(b, n)} if node.branch_kind == "if" and b not in inner and len(node.succs) == 2 else set()
                new = known | step
                if succ == loop.header:
                    arrived = new if arrived is None else arrived & new
                    continue
                old = facts.get(succ)
                merged = new if old is None else old & new
                if merged != old:
                    facts[succ] = merged
                    work.append((succ, 0, merged))
        return arrived

    def reach_from(self, block: int, index: int) -> set[tuple[int, int]]:
        """Items a thread can execute after item (block, index) before its next barrier."""
        if (block, index) in self.barrier_items:
            return set()
        return self.reach(Point(block, index))

    def entry_free(self, block: int, index: int) -> bool:
        """Is the item reachable from the function's entry without a barrier? (The point
        before the entry's first item, where a constructor's member initializers run, is.)"""
        if (block, index) == (self.cfg.entry, -1):
            return True
        return (block, index) in self.reach(Point(self.cfg.entry, -1))

    def exit_free(self, block: int, index: int) -> bool:
        """Can the function be left from the item without a barrier?"""
        if (block, index) in self.barrier_items:
            return False
        return self.cfg.exit in self._scan(Point(block, index))[1]

    def made_first(self, first: tuple[int, int], then: tuple[int, int],
                   block_uniform: Callable[[int], bool]) -> bool:
        """Does every thread that makes item ``then`` make item ``first`` before it in the same
        trip round the loops around ``first``, given that some thread made ``first``? Every
        path from the entry to ``then`` passes ``first``, where at a block-uniform branch a
        thread goes the way of the one that made ``first`` (one that can still reach it), and
        the loops around ``first`` hold ``then`` and meet a barrier on every trip round (a
        thread can be a trip behind nowhere)."""
        (fb, fi), (tb, ti) = first, then
        for loop in self.loops_containing(fb):
            if tb not in loop.blocks or loop.barrier_free_cycle:
                return False
        if fb == tb:
            return ti > fi
        blocks = self.cfg.blocks
        # (within one trip round the loops around ``first``: not back round their cycles)
        back_edges = {(p, lp.header) for lp in self.loops_containing(fb) for p in blocks[lp.header].preds
                      if p in lp.blocks}
        reaches_first = {fb}
        work = [fb]
        while work:
            b = work.pop()
            for p in blocks[b].preds:
                if p in self.live and p not in reaches_first and (p, b) not in back_edges:
                    reaches_first.add(p)
                    work.append(p)
        seen = {self.cfg.entry}
        work = [self.cfg.entry]
        while work:
            b = work.pop()
            if b == tb:
                return False
            if b == fb:
                continue  # past ``first``
            succs = [x for x in blocks[b].succs if x in self.live]
            if len(succs) > 1 and block_uniform(b) and any(x in reaches_first for x in succs):
                succs = [x for x in succs if x in reaches_first]
            for x in succs:
                if x not in seen:
                    seen.add(x)
                    work.append(x)
        return True

    def loops_containing(self, block: int) -> list[Loop]:
        return [lp for lp in self.loops if block in lp.blocks]

    def _loops(self) -> list[Loop]:
        return natural_loops(self.cfg, self.live)

    def _cycle_is_barrier_free(self, loop: Loop) -> bool:
        """Can a thread go once around the loop without meeting a barrier? An inner loop
        that runs at least once is entered, not skipped, when reached from outside it."""
        seen: set[tuple[int, bool]] = set()
        work = [(loop.header, False)]
        while work:
            b, entering = work.pop()
            if (b, entering) in seen:
                continue
            seen.add((b, entering))
            if any((b, i) in self.barrier_items for i in range(len(self.cfg.blocks[b].items))):
                continue
            succs = self.cfg.blocks[b].succs
            if entering:
                succs = succs[:1]  # the first test of a loop that runs at least once
            for s in succs:
                if s == loop.header:
                    return True
                if s in loop.blocks:
                    inner = self.entered.get(s)
                    work.append((s, inner is not None and inner is not loop and b not in inner.blocks))
        return False


def admitted_block_shapes(uses_y: bool, uses_z: bool, launch_bounds: int | None = None):
    """The block shapes a kernel with no known launch is analyzed for (as the race pairs
    are): power-of-two sizes up to 1,024 threads within its launch bounds; a dimension the
    kernel never reads has size 1, and a 1-D block is whole warps."""
    limit = min(1024, launch_bounds or 1024)
    xs = [1 << k for k in range(5 if not (uses_y or uses_z) else 0, 11)]
    ys = [1 << k for k in range(11)] if uses_y or uses_z else [1]
    zs = [1 << k for k in range(7)] if uses_z else [1]
    return [(x, y, z) for x in xs for y in ys for z in zs if x * y * z <= limit]


def first_test_passes_for_all(loop: Node, shapes, body: Node | None = None) -> bool:
    """Does the loop's first test pass for every one of these block shapes?"""
    return bool(shapes) and all(first_test_passes(loop, shape, body=body) for shape in shapes)


def first_test_passes(loop: Node, block_dim: tuple[int, int, int] | None,
                      known: dict[str, int] | None = None, body: Node | None = None) -> bool:
    """Does `for (v = init; v OP bound; ...)` enter its body, with init and bound constants
    (literals, template arguments, the block shape when it is known, parameters the kernel's
    preconditions pin: ``known``)? With the function's ``body``, init may also grow with the
    counters of the loops around this one (`j = k >> 1` inside `for (k = 2; k <= n; k <<= 1)`):
    the test must then pass over the whole range those counters take."""
    header = _counter_loop(loop, block_dim, known)
    if header is None:
        return False
    _, start_node, op, bound = header
    start = integer_constant(start_node, block_dim, known)
    if start is not None:
        return _TESTS[op](start, bound)
    if body is None or op not in ("<", "<=", ">", ">="):
        return False
    ranges = _enclosing_counter_ranges(body, loop, block_dim, known)
    low = _monotone_value(start_node, ranges, 0, block_dim, known)
    high = _monotone_value(start_node, ranges, 1, block_dim, known)
    if low is None or high is None:
        return False
    return _TESTS[op](low if op in (">", ">=") else high, bound)


_TESTS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
          ">=": lambda a, b: a >= b, "!=": lambda a, b: a != b}


def _counter_loop(loop: Node, block_dim, known) -> tuple[str, Node, str, int] | None:
    """(counter, its initial value, test operator, constant bound) of `for (v = init; v OP
    bound; ...)`."""
    if loop.kind != "FOR_STMT":
        return None
    init, cond = loop.child_by_role("init"), loop.child_by_role("cond")
    if init is None or cond is None:
        return None
    node = init.children[0] if init.kind == "DECL_STMT" and len(init.children) == 1 else init
    if node.kind == "VAR_DECL" and node.decl is not None and node.children:
        var, start = node.decl.key, node.children[-1]
    elif node.kind == "BINARY_OPERATOR" and node.op == "=" and len(node.children) == 2 and \
            strip_wrappers(node.children[0]).kind == "DECL_REF_EXPR" and strip_wrappers(node.children[0]).decl:
        var, start = strip_wrappers(node.children[0]).decl.key, node.children[1]
    else:
        return None
    cond = strip_wrappers(cond)
    while cond.kind == "BINARY_OPERATOR" and cond.op == "," and len(cond.children) == 2:
        cond = strip_wrappers(cond.children[1])  # `check, v < bound`: the last operand decides
    if cond.kind != "BINARY_OPERATOR" or len(cond.children) != 2 or cond.op not in _TESTS:
        return None
    left = strip_wrappers(cond.children[0])
    if left.kind != "DECL_REF_EXPR" or left.decl is None or left.decl.key != var:
        return None
    bound = integer_constant(cond.children[1], block_dim, known)
    return None if bound is None else (var, start, cond.op, bound)


def _enclosing_counter_ranges(body: Node, loop: Node, block_dim, known) -> dict[str, tuple[int, int]]:
    """Counters of the for loops around ``loop`` that only their increment moves, each with
    the (lowest, highest) value it has inside its loop's body."""
    path: list[Node] = []

    def find(node: Node) -> bool:
        if node is loop:
            return True
        for c in node.children:
            if find(c):
                if node.kind == "FOR_STMT" and c.role == "body":
                    path.append(node)
                return True
        return False

    if not find(body):
        return {}
    ranges: dict[str, tuple[int, int]] = {}
    for outer in path:
        header = _counter_loop(outer, block_dim, known)
        inc = outer.child_by_role("inc")
        if header is None or inc is None:
            continue
        var, start_node, op, bound = header
        start = integer_constant(start_node, block_dim, known)
        direction = _monotone_step(inc, var)
        updates = _updates_in([c for c in outer.children if c.role in ("body", "cond")]).get(var, [])
        if start is None or direction is None or updates or bound.bit_length() > 30:
            continue  # (a bound far from the word size: doubling up to it cannot wrap)
        if direction > 0 and op in ("<", "<="):
            high = bound - 1 if op == "<" else bound
            if start <= high:
                ranges[var] = (start, high)
        elif direction < 0 and op in (">", ">=") and start >= 0:
            low = bound + 1 if op == ">" else bound
            if low <= start:
                ranges[var] = (low, start)
    return ranges


def _monotone_step(inc: Node, var: str) -> int | None:
    """+1 when the increment moves the counter up (`k++`, `k += 2`, `k <<= 1`, `k *= 2`), -1
    when down (`k--`, `k -= 2`, `k >>= 1`, `k /= 2`), by a positive constant; else None."""
    inc = strip_wrappers(inc)
    if inc.kind == "UNARY_OPERATOR" and inc.op in ("++", "post++", "--", "post--") and inc.children:
        target, direction = strip_wrappers(inc.children[0]), 1 if "+" in inc.op else -1
    elif inc.kind == "COMPOUND_ASSIGNMENT_OPERATOR" and len(inc.children) == 2:
        step = integer_constant(inc.children[1])
        ups, downs = {"+=": 1, "<<=": 1, "*=": 2}, {"-=": 1, ">>=": 1, "/=": 2}
        least = ups.get(inc.op, downs.get(inc.op))
        if step is None or least is None or step < least:
            return None
        target, direction = strip_wrappers(inc.children[0]), 1 if inc.op in ups else -1
    else:
        return None
    if target.kind != "DECL_REF_EXPR" or target.decl is None or target.decl.key != var:
        return None
    return direction


def _monotone_value(node: Node, ranges: dict[str, tuple[int, int]], end: int, block_dim, known) -> int | None:
    """The value of an expression that never decreases as the ranged counters grow, at their
    lowest (end 0) or highest (end 1) values; None for other expressions."""
    node = strip_wrappers(node)
    if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key in ranges:
        return ranges[node.decl.key][end]
    if node.kind == "BINARY_OPERATOR" and len(node.children) == 2 and node.op in ("+", "*", ">>", "<<", "/"):
        left = _monotone_value(node.children[0], ranges, end, block_dim, known)
        if node.op in (">>", "<<", "/"):
            right = integer_constant(node.children[1], block_dim, known)
            if left is None or right is None or left < 0 or right < (1 if node.op == "/" else 0) or right > 30:
                return None
            return {">>": left >> right, "<<": left << right, "/": left // right}[node.op]
        right = _monotone_value(node.children[1], ranges, end, block_dim, known)
        if left is None or right is None or left < 0 or right < 0:
            return None
        return left + right if node.op == "+" else left * right
    value = integer_constant(node, block_dim, known)
    return value if value is not None and value >= 0 else None
