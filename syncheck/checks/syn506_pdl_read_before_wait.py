"""SYN506 pdl-read-before-wait: in a kernel written for programmatic dependent launch (it
calls griddepcontrol.wait / cudaGridDependencySynchronize), global memory read on a path
that has not yet passed the wait, or read with __ldg (the read-only path) at all."""

from __future__ import annotations

from syncheck.analyses import async_ops as A
from syncheck.analyses.async_flow import EVENT, READ, FunctionSteps, solve
from syncheck.checks.base import Check, CheckContext
from syncheck.diagnostics import Severity


class PdlReadBeforeWait(Check):
    code = "SYN506"
    name = "pdl-read-before-wait"
    severity = Severity.WARNING

    def run(self, ctx: CheckContext):
        program = ctx.program
        for fn in program.kernels:
            if not fn.in_main_file or fn.body is None or fn.has_errors or not program.analyzed_generically(fn):
                continue
            if not fn.mentions("griddepcontrol", "GridDependency", "wait_on_dependent", "launch_dependents"):
                continue
            steps = FunctionSteps(program, fn)
            waits = [s for s in steps.events() if s.event.kind == A.PDL_WAIT]
            if not waits:
                continue
            yield from self._kernel(ctx, fn, steps, waits[0])

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

        solve(steps, False, transfer, lambda a, b: a and b, report)
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
