"""SYN201 full-mask-in-divergent-code: a full-mask warp intrinsic where the warp has diverged."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.lanes import FULL_MASK, mask_constant
from syncheck.analyses.levels import Level
from syncheck.checks.divergent_sync import PartialReachCheck, describe_cause, subject
from syncheck.checks.warp_sites import explicit_mask


class FullMaskInDivergentCode(PartialReachCheck):
    code = "SYN201"
    name = "full-mask-in-divergent-code"
    defers_to_block_barriers = True

    def allowed(self, site):
        if site.prim is not None and site.prim.full_warp:
            return Level.WARP  # every lane must reach it, as if its mask were full
        if _implicit_full_mask(site):
            return Level.WARP
        mask = explicit_mask(site)
        if mask is None or mask_constant(mask[1].const) != FULL_MASK:
            return None
        return Level.WARP

    def explain(self, ctx, reach):
        if reach.site.prim is not None and reach.site.prim.full_warp:
            return (f"{subject(reach)} is a collective of all 32 lanes (full-mask shuffles inside) "
                    f"but may be reached by only part of the warp: {describe_cause(ctx, reach)}; "
                    f"every lane must call it (give the others a neutral value instead)")
        mask = "the implicit full mask" if _implicit_full_mask(reach.site) else "the full mask 0xffffffff"
        return (f"{subject(reach)} uses {mask} but may be reached by only "
                f"part of the warp: {describe_cause(ctx, reach)}; every lane named in the "
                f"mask must execute it")


def _implicit_full_mask(site) -> bool:
    """`__syncwarp()`: its mask defaults to the full warp, as if 0xffffffff were written."""
    prim = site.prim
    return prim is not None and prim.category == P.TILE_SYNC and prim.scope == "warp" \
        and prim.mask_arg is not None and explicit_mask(site) is None
