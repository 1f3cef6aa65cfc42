"""SYN103 divergent-tile-sync: a tile barrier or tile collective reached by part of its tile."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.levels import group_level
from syncheck.checks.divergent_sync import PartialReachCheck, describe_cause, subject


class DivergentTileSync(PartialReachCheck):
    code = "SYN103"
    name = "divergent-tile-sync"
    defers_to_block_barriers = True

    def allowed(self, site):
        prim = site.prim
        if prim.scope == "coalesced":
            return None  # a coalesced group is made of exactly the threads that got here
        if prim.category == P.TILE_SYNC and prim.scope == "warp":
            return None  # __syncwarp(): its mask, implicit or not, is SYN201/SYN202's
        if prim.category in (P.TILE_SYNC, P.TILE_COLLECTIVE):
            return group_level(prim.tile_size or 32)
        return None

    def explain(self, ctx, reach):
        prim = reach.site.prim
        group = "warp" if prim.scope == "warp" or not prim.tile_size else f"{prim.tile_size}-thread tile"
        assumed = "" if prim.tile_size or prim.scope == "warp" else " (tile size unknown: assuming 32)"
        return (f"{subject(reach)} may be reached by only part of its {group}{assumed}: "
                f"{describe_cause(ctx, reach)}; all threads of the {group} must take part")
