"""SYN201 full-mask-in-divergent-code: a full-mask warp intrinsic where the warp has diverged."""

from __future__ import annotations

from syncheck.analyses.lanes import FULL_MASK, mask_constant
from syncheck.analyses.levels import Level
from syncheck.checks.divergent_sync import PartialReachCheck, describe_cause, helpers_called_once, subject
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

    def told_at(self, ctx, reach):
        """At the full mask itself, where it is written in a helper made for this one call
        (the mask is the code to change; the call is a note); at the call otherwise (a mask
        the caller passes, a helper called from several places)."""
        if reach.chain and reach.site.function.reported and _mask_written_at(reach.site) \
                and helpers_called_once(ctx, reach):
            return reach.site.node
        return reach.anchor

    def explain(self, ctx, reach):
        what = subject(reach, self.told_at(ctx, reach))
        if reach.site.prim is not None and reach.site.prim.full_warp:
            return (f"{what} is a collective of all 32 lanes (full-mask shuffles inside) "
                    f"but may be reached by only part of the warp: {describe_cause(ctx, reach)}; "
                    f"every lane must call it (give the others a neutral value instead)")
        return (f"{what} uses the full mask 0xffffffff but may be reached by only "
                f"part of the warp: {describe_cause(ctx, reach)}; every lane named in the "
                f"mask must execute it")


def _mask_written_at(site) -> bool:
    """Is the call's mask written there (a constant, not a parameter its caller fills in)?"""
    mask = explicit_mask(site)
    return mask is not None and not any(n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "param"
                                        for n in mask[0].walk())
