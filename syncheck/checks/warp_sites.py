"""Mask-taking warp intrinsic sites, shared by the SYN2xx rules."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.analyses.uniformity import Site
from syncheck.ir.calls import is_default_argument


def explicit_mask(site: Site):
    """(mask node, mask value) when the call passes a mask; None otherwise."""
    prim = site.prim
    if prim is None or prim.mask_arg is None or prim.category not in (P.WARP_COLLECTIVE, P.TILE_SYNC):
        return None
    if len(site.args) <= prim.mask_arg or is_default_argument(site.args[prim.mask_arg]):
        return None
    return site.args[prim.mask_arg], site.arg_values[prim.mask_arg]
