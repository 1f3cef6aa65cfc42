"""SYN501 partial-warpgroup-collective: wgmma or another warpgroup collective reached by only
part of its warpgroup (128 aligned threads), or an aligned named barrier reached by part of a warp."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.levels import Level
from syncheck.checks.divergent_sync import PartialReachCheck, describe_cause, subject


class PartialWarpgroupCollective(PartialReachCheck):
    code = "SYN501"
    name = "partial-warpgroup-collective"
    defers_to_block_barriers = True

    def allowed(self, site):
        if site.prim.category == P.WARPGROUP_COLLECTIVE:
            return Level.WARPGROUP
        if site.prim.category == P.ALIGNED_NAMED_BARRIER:
            return Level.WARP
        return None

    def explain(self, ctx, reach):
        if reach.site.prim.category == P.ALIGNED_NAMED_BARRIER:
            return (f"{subject(reach)} is an aligned barrier but may be reached by only part of a "
                    f"warp: {describe_cause(ctx, reach)}; every thread of a warp must execute the "
                    f"same aligned bar.sync (use 'barrier.sync' without .aligned, or make the "
                    f"condition warp-uniform)")
        return (f"{subject(reach)} may be reached by only part of its warpgroup (128 aligned "
                f"threads, warps 4k..4k+3): {describe_cause(ctx, reach)}; all four warps of the "
                f"warpgroup must execute it together (assuming blockDim.x is a multiple of 128)")
