"""SYN402 implicit-warp-synchronous: lanes of a warp exchange data through shared memory
without __syncwarp(), relying on lockstep execution."""

from __future__ import annotations

from syncheck.checks.base import Check, CheckContext
from syncheck.checks.shared_races import access_text, kernel_races, ordered, shape_note


class ImplicitWarpSynchronous(Check):
    code = "SYN402"
    name = "implicit-warp-synchronous"

    def run(self, ctx: CheckContext):
        for kernel, race in kernel_races(ctx):
            if not race.intra_warp_only:
                continue
            first, second = ordered(race)
            example = ""
            if race.threads:
                (a, _, _), (b, _, _) = race.threads
                example = f" (for example lanes {a % 32} and {b % 32} of one warp)"
            message = (f"lanes of one warp exchange data through shared '{first.name}' with no "
                       f"__syncwarp(): one lane {access_text(ctx, first)} (line {first.line}) and "
                       f"another {access_text(ctx, second)} (line {second.line}){example}; since "
                       f"Volta lanes do not run in lockstep and 'volatile' does not order them: put "
                       f"__syncwarp() between the steps")
            notes = [] if first is second else [ctx.note(first.node, f"the other access: {access_text(ctx, first)}")]
            yield ctx.finding(self, second.node, message, kernel.name, notes + [shape_note(ctx, race, kernel)])
