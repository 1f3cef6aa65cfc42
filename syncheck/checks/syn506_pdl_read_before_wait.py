"""SYN506 pdl-read-before-wait: in a kernel written for programmatic dependent launch (it
calls griddepcontrol.wait / cudaGridDependencySynchronize, or the file launches it with
programmatic stream serialization), global memory read on a path that has not yet passed
the wait, or read with __ldg (the read-only path) at all."""

from __future__ import annotations

from syncheck.analyses import async_ops as A
from syncheck.analyses.async_flow import EVENT, READ, FunctionSteps, solve
from syncheck.analyses.launch_shapes import launches_of
from syncheck.checks.base import Check, CheckContext
from syncheck.diagnostics import Severity
from syncheck.ir.nodes import Node


class PdlReadBeforeWait(Check):
    code = "SYN506"
    name = "pdl-read-before-wait"
    severity = Severity.WARNING

    def run(self, ctx: CheckContext):
        program = ctx.program
        for fn in program.kernels:
            if not fn.in_main_file or fn.body is None or fn.has_errors or not program.analyzed_generically(fn):
                continue
            programmatic = [l for l in launches_of(program, fn) if l.programmatic]
            if not programmatic and not fn.mentions("griddepcontrol", "GridDependency", "wait_on_dependent",
                                                    "launch_dependents"):
                continue
            steps = FunctionSteps(program, fn)
            waits = [s for s in steps.events() if s.event.kind == A.PDL_WAIT]
            if waits:
                yield from self._kernel(ctx, fn, steps, waits[0])
            elif programmatic:
                yield from self._never_waits(ctx, fn, steps, programmatic[0])

    def _never_waits(self, ctx, fn, steps, launch):
        """A kernel launched with programmatic stream serialization that never waits: its first
        read of global memory (one finding for the kernel: the fix is one wait before it)."""
        reads = sorted((st for st in steps.all_steps() if st.kind == READ and st.space == "global"),
                       key=lambda st: (st.node.line, st.node.col))
        if not reads:
            return
        first = reads[0]
        what = f"'{first.decl.name}' is read" if first.decl is not None else "global memory is read"
        yield ctx.finding(self, first.node, (
            f"{what} from global memory in a kernel launched with programmatic stream serialization "
            f"(line {launch.node.line}) that never calls griddepcontrol.wait / "
            f"cudaGridDependencySynchronize(): it may run while the previous kernel is still writing "
            f"its output; wait before the first read of what an earlier kernel writes"),
            fn.name, [ctx.note(launch.node, "launched with programmatic stream serialization here")])

    def _kernel(self, ctx, fn, steps, wait):
        findings = []
        seen: set[int] = set()
        noncoherent = []  # __ldg reads after the wait: one finding for the kernel

        def transfer(waited, step, emit):
            if step.kind == EVENT:
                ev = step.event
                if ev.kind == A.PDL_WAIT:
                    return True
                if ev.kind in (A.ASYNC_COPY, A.BULK_LOAD) and not waited and emit is not None:
                    emit(step, "the asynchronous copy reads global memory")
                return waited
            if step.kind == READ and step.space == "global" and not waited and emit is not None:
                emit(step, f"'{step.decl.name}' is read from global memory" if step.decl is not None
                     else "global memory is read")
            elif step.kind == READ and step.space == "global" and step.noncoherent and emit is not None:
                emit(step, None)
            return waited

        def report(step, what):
            if step.node.id in seen:
                return
            seen.add(step.node.id)
            if what is None:
                noncoherent.append(step)
                return
            findings.append(ctx.finding(self, step.node, (
                f"{what} before griddepcontrol.wait / cudaGridDependencySynchronize() (line "
                f"{wait.node.line}) on some path: launched with programmatic stream serialization, "
                f"this kernel may run while the previous kernel is still writing its output; move "
                f"the read after the wait (reads of data no earlier kernel writes are safe)"),
                fn.name, [ctx.note(wait.node, "the dependency wait is here")]))

        switches = _launch_switch_edges(steps, fn)
        solve(steps, False, transfer, lambda a, b: a and b, report,
              edge=lambda pred, block, waited: waited or (pred, block) in switches)
        if noncoherent:
            first, *others = sorted(noncoherent, key=lambda st: (st.node.line, st.node.col))
            findings.append(ctx.finding(self, first.node, (
                f"__ldg reads global memory through the read-only path, which promises the data "
                f"does not change while this kernel runs: that promise also covers the time before "
                f"griddepcontrol.wait / cudaGridDependencySynchronize() (line {wait.node.line}), "
                f"while the previous kernel may still write it, and the compiler may move the load "
                f"above the wait; read what the previous kernel writes with plain loads"),
                fn.name, [ctx.note(wait.node, "the dependency wait is here")] +
                [ctx.note(st.node, "another __ldg after the wait") for st in others]))
        return findings


def _launch_switch_edges(steps: FunctionSteps, fn) -> set[tuple[int, int]]:
    """The CFG edges that skip a dependency wait under a test of the kernel's parameters alone
    (`if (enable_pdl) cudaGridDependencySynchronize();`): the author's switch between a launch
    with programmatic stream serialization and one without, where there is nothing to wait
    for. Threads on such an edge count as having waited."""
    parents: dict[int, Node] = {}
    for n in fn.body.walk():
        for c in n.children:
            parents[c.id] = n
    edges: set[tuple[int, int]] = set()
    for wait in (st for st in steps.events() if st.event.kind == A.PDL_WAIT):
        child, node = wait.node, parents.get(wait.node.id)
        while node is not None:
            if node.kind == "IF_STMT" and _parameters_only(node.child_by_role("cond")) and \
                    child is not node.child_by_role("cond"):
                then_arm = child is node.child_by_role("then")
                for b, block in enumerate(steps.cfg.blocks):
                    if block.branch_stmt is node and len(block.succs) == 2:
                        edges.add((b, block.succs[1 if then_arm else 0]))
                break
            child, node = node, parents.get(node.id)
    return edges


def _parameters_only(cond: Node | None) -> bool:
    """A condition on the kernel's parameters and constants alone (`enable_pdl`, `!params.pdl`,
    `mode == 2`): the same for the whole grid."""
    if cond is None:
        return False
    named = False
    for n in cond.walk():
        if n.kind in ("CALL_EXPR", "ARRAY_SUBSCRIPT_EXPR") or n.kind == "UNARY_OPERATOR" and n.op == "*":
            return False
        if n.kind == "DECL_REF_EXPR":
            if n.decl is None or n.decl.storage not in ("param", "template", "enum"):
                return False
            named = named or n.decl.storage == "param"
    return named
