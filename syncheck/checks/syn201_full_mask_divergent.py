"""SYN201 full-mask-in-divergent-code: a full-mask warp intrinsic where the warp has diverged."""

from __future__ import annotations

from syncheck.analyses.divergence import partial_reaches
from syncheck.analyses.lanes import FULL_MASK, mask_constant
from syncheck.analyses.levels import Level
from syncheck.checks.base import Check, CheckContext
from syncheck.checks.divergent_sync import cause_notes, describe_cause, subject
from syncheck.checks.warp_sites import explicit_mask


class FullMaskInDivergentCode(Check):
    code = "SYN201"
    name = "full-mask-in-divergent-code"

    def run(self, ctx: CheckContext):
        def allowed(site):
            mask = explicit_mask(site)
            if mask is None or mask_constant(mask[1].const) != FULL_MASK:
                return None
            return Level.WARP

        for reach in partial_reaches(ctx.uniformity, allowed):
            if not reach.anchor_function.in_main_file:
                continue
            message = (f"{subject(reach)} uses the full mask 0xffffffff but may be reached by only "
                       f"part of the warp: {describe_cause(ctx, reach)}; every lane named in the "
                       f"mask must execute it")
            yield ctx.finding(self, reach.anchor, message, reach.anchor_function.name,
                              cause_notes(ctx, reach))
