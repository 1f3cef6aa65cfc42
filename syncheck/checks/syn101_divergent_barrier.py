"""SYN101 divergent-barrier: a block barrier reached by only part of the block."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.levels import Level
from syncheck.checks.divergent_sync import PartialReachCheck, describe_cause, exits_kernel_only, subject


class DivergentBarrier(PartialReachCheck):
    code = "SYN101"
    name = "divergent-barrier"

    def allowed(self, site):
        return Level.BLOCK if site.prim.category == P.BLOCK_BARRIER else None

    def accepts(self, reach) -> bool:
        return not exits_kernel_only(reach)  # SYN104

    def explain(self, ctx, reach):
        return (f"{subject(reach)} may be reached by only part of the block: "
                f"{describe_cause(ctx, reach)}; every thread of the block must reach "
                f"the same barrier")
