"""SYN101 divergent-barrier: a block barrier reached by only part of the block.

Fix (unsafe: it moves a barrier, and what the branch computed before it may need the barrier
where it was): when the only divergent decision is a simple `if` (no else) whose body ends
with the barrier statement, and every thread of the block reaches the `if`, move the barrier
to just after the `if`."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.levels import Level
from syncheck.checks.fix_points import control_level, delete_statement, indent_of, statement_end
from syncheck.diagnostics import UNSAFE, Edit, Fix, Severity
from syncheck.checks.divergent_sync import (PartialReachCheck, barrier_skipping_decisions, describe_cause,
                                           exits_kernel_only, skipped_only_by_exits, subject)
from syncheck.checks.shared_races import access_text, ordered, races_through_skipped_barrier, stale_read


class DivergentBarrier(PartialReachCheck):
    code = "SYN101"
    name = "divergent-barrier"

    def allowed(self, site):
        return Level.BLOCK if site.prim.category == P.BLOCK_BARRIER else None

    def severity_of(self, ctx, reach) -> Severity:
        # Threads that left the kernel count as arrived on Volta and later (measured: it
        # completes, with exact results): a warning, unless a read after the barrier shows
        # what they skipped, an element only they would have stored.
        if skipped_only_by_exits(ctx, reach):
            return Severity.WARNING
        return self.severity

    def explain(self, ctx, reach):
        if exits_kernel_only(reach):
            stale = stale_read(ctx, reach)
            if stale is not None:
                return self._explain_stale(ctx, reach, stale)
            return (f"{subject(reach)} is reached only by the threads that stay in the kernel; "
                    f"the others leave it first: {describe_cause(ctx, reach)}; CUDA asks every "
                    f"thread of the block to reach the barrier. Since Volta the barrier waits only "
                    f"for the threads still running, so this completes, but the threads that left "
                    f"skip all the work after it: keep every thread to the barrier and guard the "
                    f"work instead")
        return (f"{subject(reach)} may be reached by only part of the block: "
                f"{describe_cause(ctx, reach)}; every thread of the block must reach "
                f"the same barrier")

    def consequence_notes(self, ctx, reach):
        # Races that exist only because threads skip this barrier: fixing it removes them.
        notes = []
        for race in races_through_skipped_barrier(ctx, reach, barrier_skipping_decisions(ctx)):
            for r in [race] + race.other_members:
                first, second = ordered(r)
                notes.append(ctx.note(second.node, (
                    f"threads that skip this barrier are not held back by it: one may "
                    f"{access_text(ctx, first, bare=True)} (line {first.line}) while another "
                    f"{access_text(ctx, second)} (line {second.line}), on shared '{second.name}'")))
        return notes

    @staticmethod
    def _explain_stale(ctx, reach, stale):
        example = ""
        if stale.threads:
            left, reader = (t[0] if not (t[1] or t[2]) else t for t in stale.threads)
            example = f" (for example thread {reader} reads what thread {left} would have stored)"
        return (f"{subject(reach)} is reached only by the threads that stay in the kernel: "
                f"threads for which '{ctx.text(stale.decision)}' "
                f"{'holds' if stale.leaves_when else 'fails'} leave at line {stale.decision.line} "
                f"and never store {ctx.text(stale.write.node)} (line {stale.write.line}), "
                f"yet after this barrier {ctx.text(stale.read.node)} (line {stale.read.line}) "
                f"reads an element only they would have stored, and no thread still running "
                f"stores it{example}; keep every thread to the barrier and guard the work instead")

    def fix(self, ctx, reach):
        if reach.chain or len(reach.causes) != 1:
            return None
        cause = reach.causes[0]
        stmt = cause.stmt
        if cause.kind != "if" or stmt is None or stmt.kind != "IF_STMT" or \
                stmt.child_by_role("else") is not None:
            return None
        body = stmt.child_by_role("then")
        if body is None or body.kind != "COMPOUND_STMT" or not body.children or \
                body.children[-1] is not reach.anchor or reach.anchor.kind != "CALL_EXPR":
            return None
        line = ctx.program.source_lines[reach.anchor.line - 1]
        call = line[reach.anchor.col - 1:reach.anchor.end_col - 1]
        if reach.anchor.line != reach.anchor.end_line or not call.endswith(")"):
            return None
        level = control_level(ctx, reach.anchor_function, stmt)
        if level is None or level > Level.BLOCK:
            return None
        end_line, end_col = statement_end(ctx, stmt)
        return Fix(f"move {call} out of the divergent 'if', to just after it", UNSAFE, [
            delete_statement(ctx, reach.anchor),
            Edit(ctx.path, end_line, end_col, end_line, end_col,
                 f"\n{indent_of(ctx, stmt.line)}{call};")])
