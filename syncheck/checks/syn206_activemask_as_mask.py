"""SYN206 activemask-as-mask: __activemask() passed as a collective's mask."""

from __future__ import annotations

from syncheck.analyses.divergence import partial_reaches
from syncheck.analyses.levels import Level
from syncheck.analyses.preconditions import assigned_variables
from syncheck.checks.base import Check, CheckContext
from syncheck.checks.warp_sites import explicit_mask
from syncheck.diagnostics import Severity
from syncheck.ir.nodes import Node, strip_wrappers


def _broadcast_from_own_leader(site, mask: Node) -> bool:
    """`__shfl_sync(mask, v, leader)` with the source lane chosen from the mask itself
    (`leader = __ffs(mask) - 1`, a warp-aggregated atomic): whatever lanes the mask holds,
    each gets the value of a lane among them, so no lane outside it is waited for or read."""
    mask = strip_wrappers(mask)
    if site.prim.name != "__shfl_sync" or len(site.args) < 3 or mask.kind != "DECL_REF_EXPR" \
            or mask.decl is None or site.function.body is None:
        return False
    initializers = {n.decl.key: n.children[-1] for n in site.function.body.walk()
                    if n.kind == "VAR_DECL" and n.decl is not None and n.children}
    assigned = assigned_variables(site.function)
    if mask.decl.key in assigned:
        return False
    todo, seen = [site.args[2]], set()
    while todo:
        for n in todo.pop().walk():
            if n.kind != "DECL_REF_EXPR" or n.decl is None or n.decl.key in seen:
                continue
            if n.decl.key == mask.decl.key:
                return True
            seen.add(n.decl.key)
            if n.decl.key in initializers and n.decl.key not in assigned:
                todo.append(initializers[n.decl.key])
    return False


class ActivemaskAsMask(Check):
    code = "SYN206"
    name = "activemask-as-mask"
    severity = Severity.WARNING

    def run(self, ctx: CheckContext):
        sites = [(site, mask) for site, _frames in ctx.uniformity.main_file_sites()
                 for mask in [explicit_mask(site)] if mask is not None and mask[1].from_activemask]
        if not sites:
            return
        # Where whole warps reach the collective, the lanes converged there are the warp's:
        # the mask names the lanes that run it. Only where part of a warp may reach it (a
        # decision that differs between lanes, in some calling context) does the mask depend
        # on which lanes happen to run together.
        judged = {site.node.id for site, _ in sites}
        divergent = {r.site.node.id for r in partial_reaches(
            ctx.uniformity, lambda s: Level.WARP if s.node.id in judged else None)}
        for site, mask in sites:
            if site.node.id not in divergent:
                continue
            if _broadcast_from_own_leader(site, mask[0]):
                continue
            message = (f"the mask of {site.prim.name} comes from __activemask(), which only "
                       f"reports the lanes that happen to be converged now and does not make "
                       f"lanes converge: compute the mask before the divergent code "
                       f"(e.g. __ballot_sync(0xffffffff, pred)) or use cg::coalesced_threads()")
            yield ctx.finding(self, mask[0], message, site.function.name)
