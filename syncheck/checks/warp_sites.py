"""Mask-taking warp intrinsic sites, shared by the SYN2xx rules."""

from __future__ import annotations

from syncheck.analyses import c_semantics as C
from syncheck.analyses import primitives as P
from syncheck.analyses.levels import Level
from syncheck.analyses.uniformity import Site
from syncheck.ir.calls import is_default_argument
from syncheck.ir.nodes import Node, strip_wrappers, structural_key


def explicit_mask(site: Site):
    """(mask node, mask value) when the call passes a mask; None otherwise."""
    prim = site.prim
    if prim is None or prim.mask_arg is None or prim.category not in (P.WARP_COLLECTIVE, P.TILE_SYNC):
        return None
    if len(site.args) <= prim.mask_arg or is_default_argument(site.args[prim.mask_arg]):
        return None
    return site.args[prim.mask_arg], site.arg_values[prim.mask_arg]


def mask_is_exchanged_data(ctx, site: Site) -> str | None:
    """How the mask of a shuffle is the data it exchanges, the sign of arguments shifted by
    one (a pre-CUDA 9 `__shfl_down(var, delta, width)` renamed to `_sync` with no mask added:
    var becomes the mask, delta the value, width the offset): a floating-point value, or the
    variable the call's result is stored back to (`a.x = __shfl_down_sync(a.x, d, w)`), or,
    varying between lanes, the value exchanged itself (`shfl.sync.up.b32 r|p, %1, %2, %3, %1;`
    in inline PTX). None otherwise. Asked by SYN202 and SYN204 of every shuffle: found once
    per call site (``ctx.memo``)."""
    cache = ctx.memo.setdefault("mask is exchanged data", {})
    if site.node.id not in cache:
        cache[site.node.id] = _mask_is_exchanged_data(site)
    return cache[site.node.id]


def _mask_is_exchanged_data(site: Site) -> str | None:
    mask = explicit_mask(site)
    shuffle = site.prim is not None and (site.prim.name in SHUFFLE_NAMES or site.prim.name.startswith("'shfl"))
    if mask is None or not shuffle or isinstance(mask[1].const, int):
        return None
    node = strip_wrappers(mask[0], ("UNEXPOSED_EXPR", "PAREN_EXPR"))
    if C.is_floating(node.type):
        return "a floating-point value"
    value = site.args[1] if len(site.args) > 1 else None
    if value is not None and mask[1].level > Level.WARP and \
            structural_key(strip_wrappers(value, ("UNEXPOSED_EXPR", "PAREN_EXPR"))) == structural_key(node):
        return VALUE_AS_MASK
    target = _stored_to(site.function.body, site.node)
    # (a lane mask stored back, `voters = __shfl_sync(voters, voters, 0)`, is the same in the lanes)
    if target is not None and structural_key(target) == structural_key(node) and mask[1].level > Level.WARP:
        return "the variable the call's result is stored to"
    return None


VALUE_AS_MASK = "the value the call exchanges"

SHUFFLE_NAMES = ("__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync")


def _stored_to(body: Node | None, call: Node) -> Node | None:
    """The left side of `x = call(...)` (or `T x = call(...)`'s variable) where the call is the
    whole right side."""
    if body is None:
        return None
    for n in body.walk():
        if n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2 and \
                strip_wrappers(n.children[1]) is call:
            return n.children[0]
    return None
