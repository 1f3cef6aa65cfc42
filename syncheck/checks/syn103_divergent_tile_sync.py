"""SYN103 divergent-tile-sync: a tile barrier or tile collective reached by part of its tile."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.levels import group_level
from syncheck.checks.divergent_sync import PartialReachCheck, describe_cause, subject
from syncheck.ir.calls import is_default_argument


class DivergentTileSync(PartialReachCheck):
    code = "SYN103"
    name = "divergent-tile-sync"
    defers_to_block_barriers = True

    def allowed(self, site):
        prim = site.prim
        if prim.scope == "coalesced":
            return None  # a coalesced group is made of exactly the threads that got here
        if prim.category == P.TILE_SYNC and prim.scope == "warp":
            # __syncwarp(): only the implicit full mask belongs here; explicit masks are SYN201/202.
            explicit = [a for a in site.args if not is_default_argument(a)]
            return group_level(32) if not explicit else None
        if prim.category in (P.TILE_SYNC, P.TILE_COLLECTIVE):
            return group_level(prim.tile_size or 32)
        return None

    def explain(self, ctx, reach):
        prim = reach.site.prim
        group = "warp" if prim.scope == "warp" or not prim.tile_size else f"{prim.tile_size}-thread tile"
        assumed = "" if prim.tile_size or prim.scope == "warp" else " (tile size unknown: assuming 32)"
        return (f"{subject(reach)} may be reached by only part of its {group}{assumed}: "
                f"{describe_cause(ctx, reach)}; all threads of the {group} must take part")
