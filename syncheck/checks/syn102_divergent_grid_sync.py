"""SYN102 divergent-grid-sync: grid-wide sync under thread- or block-dependent control."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.levels import Level
from syncheck.checks.divergent_sync import PartialReachCheck, describe_cause, subject


class DivergentGridSync(PartialReachCheck):
    code = "SYN102"
    name = "divergent-grid-sync"

    def allowed(self, site):
        return Level.UNIFORM if site.prim.category == P.GRID_SYNC else None

    def explain(self, ctx, reach):
        return (f"{subject(reach)} may be reached by only part of the grid: "
                f"{describe_cause(ctx, reach)}; every thread of every block must reach "
                f"each grid sync")
