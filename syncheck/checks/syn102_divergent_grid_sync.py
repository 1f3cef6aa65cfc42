"""SYN102 divergent-grid-sync: grid-wide sync under thread- or block-dependent control."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.divergence import partial_reaches
from syncheck.analyses.levels import Level
from syncheck.checks.base import Check, CheckContext
from syncheck.checks.divergent_sync import cause_notes, describe_cause, subject


class DivergentGridSync(Check):
    code = "SYN102"
    name = "divergent-grid-sync"

    def run(self, ctx: CheckContext):
        def allowed(site):
            return Level.UNIFORM if site.prim.category == P.GRID_SYNC else None

        for reach in partial_reaches(ctx.uniformity, allowed):
            if not reach.anchor_function.in_main_file:
                continue
            message = (f"{subject(reach)} may be reached by only part of the grid: "
                       f"{describe_cause(ctx, reach)}; every thread of every block must reach "
                       f"each grid sync")
            yield ctx.finding(self, reach.anchor, message, reach.anchor_function.name,
                              cause_notes(ctx, reach))
