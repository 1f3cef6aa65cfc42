"""SYN104 barrier-after-exit: a block barrier that some threads skip only by leaving the kernel."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.levels import Level
from syncheck.checks.divergent_sync import PartialReachCheck, describe_cause, exits_kernel_only, subject
from syncheck.checks.shared_races import stale_read
from syncheck.diagnostics import Severity


class BarrierAfterExit(PartialReachCheck):
    code = "SYN104"
    name = "barrier-after-exit"
    severity = Severity.WARNING
    opt_in = True  # defined behaviour since Volta: reported when asked for

    def allowed(self, site):
        return Level.BLOCK if site.prim.category == P.BLOCK_BARRIER else None

    def accepts(self, ctx, reach) -> bool:
        # where a read after the barrier shows what the exits cost, it is SYN101's
        return exits_kernel_only(reach) and stale_read(ctx, reach) is None

    def explain(self, ctx, reach):
        return (f"{subject(reach)} is reached only by threads that stay in the kernel; the others "
                f"leave it first: {describe_cause(ctx, reach)}; the barrier then waits only for "
                f"the threads still running (defined since Volta), but those that left skip all "
                f"later work")
