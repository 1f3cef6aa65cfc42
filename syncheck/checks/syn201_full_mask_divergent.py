"""SYN201 full-mask-in-divergent-code: a full-mask warp intrinsic where the warp has diverged."""

from __future__ import annotations

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
        mask = explicit_mask(site)
        if mask is None or mask_constant(mask[1].const) != FULL_MASK:
            return None
        return Level.WARP

    def explain(self, ctx, reach):
        if reach.site.prim is not None and reach.site.prim.full_warp:
            return (f"{subject(reach)} is a collective of all 32 lanes (full-mask shuffles inside) "
                    f"but may be reached by only part of the warp: {describe_cause(ctx, reach)}; "
                    f"every lane must call it (give the others a neutral value instead)")
        return (f"{subject(reach)} uses the full mask 0xffffffff but may be reached by only "
                f"part of the warp: {describe_cause(ctx, reach)}; every lane named in the "
                f"mask must execute it")
