"""SYN203 legacy-warp-intrinsic: warp intrinsics without a mask."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.checks.base import Check, CheckContext


class LegacyWarpIntrinsic(Check):
    code = "SYN203"
    name = "legacy-warp-intrinsic"

    def run(self, ctx: CheckContext):
        for fn, node, prim in ctx.primitive_calls():
            if prim.category != P.LEGACY_WARP:
                continue
            new = P.LEGACY_REPLACEMENTS[prim.name]
            message = (f"{prim.name} is a legacy warp intrinsic with no mask; it is not "
                       f"available for sm_70 and newer, where lanes do not run in lockstep: "
                       f"use {new}(mask, ...) with the mask of the participating lanes")
            yield ctx.finding(self, node, message, fn.name)
