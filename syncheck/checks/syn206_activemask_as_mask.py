"""SYN206 activemask-as-mask: __activemask() passed as a collective's mask."""

from __future__ import annotations

from syncheck.checks.base import Check, CheckContext
from syncheck.checks.warp_sites import explicit_mask
from syncheck.diagnostics import Severity


class ActivemaskAsMask(Check):
    code = "SYN206"
    name = "activemask-as-mask"
    severity = Severity.WARNING

    def run(self, ctx: CheckContext):
        for site, _frames in ctx.uniformity.main_file_sites():
            mask = explicit_mask(site)
            if mask is None or not mask[1].from_activemask:
                continue
            message = (f"the mask of {site.prim.name} comes from __activemask(), which only "
                       f"reports the lanes that happen to be converged now and does not make "
                       f"lanes converge: compute the mask before the divergent code "
                       f"(e.g. __ballot_sync(0xffffffff, pred)) or use cg::coalesced_threads()")
            yield ctx.finding(self, mask[0], message, site.function.name)
