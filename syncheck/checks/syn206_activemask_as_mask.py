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
        service = ctx.uniformity
        seen = set()
        for root in service.root_functions():
            for site, _frames in service.walk_sites(root):
                mask = explicit_mask(site)
                if mask is None or not site.function.in_main_file:
                    continue
                node, value = mask
                if not value.from_activemask:
                    continue
                key = (node.line, node.col)
                if key in seen:
                    continue
                seen.add(key)
                message = (f"the mask of {site.prim.name} comes from __activemask(), which only "
                           f"reports the lanes that happen to be converged now and does not make "
                           f"lanes converge: compute the mask before the divergent code "
                           f"(e.g. __ballot_sync(0xffffffff, pred)) or use cg::coalesced_threads()")
                yield ctx.finding(self, node, message, site.function.name)
