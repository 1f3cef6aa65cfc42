"""SYN101 divergent-barrier: a block barrier reached by only part of the block."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.divergence import partial_reaches
from syncheck.analyses.levels import Level
from syncheck.checks.base import Check, CheckContext
from syncheck.checks.divergent_sync import cause_notes, describe_cause, subject


class DivergentBarrier(Check):
    code = "SYN101"
    name = "divergent-barrier"

    def run(self, ctx: CheckContext):
        def allowed(site):
            return Level.BLOCK if site.prim.category == P.BLOCK_BARRIER else None

        for reach in partial_reaches(ctx.uniformity, allowed):
            if not reach.anchor_function.in_main_file:
                continue
            message = (f"{subject(reach)} may be reached by only part of the block: "
                       f"{describe_cause(ctx, reach)}; every thread of the block must reach "
                       f"the same barrier")
            yield ctx.finding(self, reach.anchor, message, reach.anchor_function.name,
                              cause_notes(ctx, reach))
