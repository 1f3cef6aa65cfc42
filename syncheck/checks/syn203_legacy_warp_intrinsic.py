"""SYN203 legacy-warp-intrinsic: warp intrinsics without a mask.

Fix (safe): where every context proves that the whole warp reaches the call, the `_sync`
form with the full mask 0xffffffff does what the legacy call did. Elsewhere no fix is
offered: the mask must name the lanes that really get there."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.levels import Level
from syncheck.analyses.uniformity import effective_controllers
from syncheck.checks.base import Check, CheckContext
from syncheck.diagnostics import SAFE, Edit, Fix

FULL_MASK = "0xffffffff"


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
            finding = ctx.finding(self, node, message, fn.name)
            if _whole_warp(ctx, node):
                finding.fix = _sync_form(ctx, node, prim.name, new)
            yield finding


def _whole_warp(ctx: CheckContext, node) -> bool:
    """Is the call reached by every lane of its warp in every context a kernel reaches it in?"""
    service = ctx.uniformity
    reached = False
    for root in service.root_functions():
        for site, frames in service.walk_sites(root):
            if site.node.id != node.id:
                continue
            analysis = frames[-1].analysis if frames else service.analyze(root)
            shape = analysis.shape
            if shape is None or (shape.block_dim and shape.block_dim[0] % 32) or \
                    (not shape.block_dim and not shape.x_multiple_of_32):
                return False  # a partial last warp: the full mask would name absent lanes
            level = max((c.level for _, c in effective_controllers(site, frames)), default=Level.UNIFORM)
            if level > Level.WARP:
                return False
            reached = True
    return reached


def _sync_form(ctx: CheckContext, node, old: str, new: str) -> Fix | None:
    """`__shfl_down(v, d)` -> `__shfl_down_sync(0xffffffff, v, d)`, when the call is written
    out at its position (not produced by a macro)."""
    text = ctx.program.source_lines[node.line - 1] if node.line <= len(ctx.program.source_lines) else ""
    start = node.col - 1
    if not text.startswith(old, start):
        return None
    rest = text[start + len(old):]
    paren = len(rest) - len(rest.lstrip())
    if not rest[paren:].startswith("("):
        return None
    open_col = node.col + len(old) + paren + 1  # just after '('
    empty = rest[paren + 1:].lstrip().startswith(")")
    return Fix(f"replace {old}(...) by {new}({FULL_MASK}, ...): the whole warp reaches it",
               SAFE, [Edit(ctx.path, node.line, node.col, node.line, node.col + len(old), new),
                      Edit(ctx.path, node.line, open_col, node.line, open_col,
                           FULL_MASK if empty else f"{FULL_MASK}, ")])
