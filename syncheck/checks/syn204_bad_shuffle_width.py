"""SYN204 bad-shuffle-width: a width that is not a power of two, or an offset/lane beyond it."""

from __future__ import annotations

from syncheck.analyses import primitives as P
from syncheck.checks.base import Check, CheckContext
from syncheck.checks.warp_sites import mask_is_exchanged_data
from syncheck.ir.calls import is_default_argument

_SHUFFLES = {"__shfl_sync": "source lane", "__shfl_up_sync": "offset", "__shfl_down_sync": "offset",
             "__shfl_xor_sync": "lane mask"}
_TILE_SHUFFLES = {"shfl": "source rank", "shfl_up": "offset", "shfl_down": "offset",
                  "shfl_xor": "lane mask"}


def _consequence(what: str, name: str, value: int, width: int) -> str:
    if what == "offset":
        return f"every lane gets its own value back, so {name} does nothing"
    if what == "lane mask":
        return "lanes exchange with lanes outside their segment"
    return f"it is taken modulo {width} (lane {value % width} of each segment)"


class BadShuffleWidth(Check):
    code = "SYN204"
    name = "bad-shuffle-width"

    def run(self, ctx: CheckContext):
        for site, _frames in ctx.uniformity.main_file_sites():
            if site.prim is not None:
                finding = self._check(ctx, site, site.prim)
                if finding is not None:
                    yield finding

    def _check(self, ctx: CheckContext, site, prim):
        if prim.category == P.WARP_COLLECTIVE and prim.name in _SHUFFLES:
            if mask_is_exchanged_data(ctx, site) is not None:
                return None  # arguments shifted by one: SYN202 tells the cause
            what = _SHUFFLES[prim.name]
            width = 32
            if len(site.args) >= 4 and not is_default_argument(site.args[3]):
                w = site.arg_values[3].const
                if isinstance(w, int):
                    if w < 1 or w > 32 or w & (w - 1):
                        return ctx.finding(self, site.args[3], (
                            f"width {w} of {prim.name} must be a power of two from 1 to 32"),
                            site.function.name)
                    width = w
            if len(site.args) >= 3:
                v = site.arg_values[2].const
                if isinstance(v, int) and v >= width:
                    return ctx.finding(self, site.args[2], (
                        f"{what} {v} of {prim.name} is not below the width {width}: "
                        f"{_consequence(what, prim.name, v, width)}"), site.function.name)
        elif prim.category == P.TILE_COLLECTIVE and prim.tile_size:
            method = prim.name.rsplit(".", 1)[-1].rstrip("()")
            what = _TILE_SHUFFLES.get(method)
            if what and len(site.args) >= 2:
                v = site.arg_values[1].const
                if isinstance(v, int) and v >= prim.tile_size:
                    return ctx.finding(self, site.args[1], (
                        f"{what} {v} of {prim.name} is not below the tile size {prim.tile_size}: "
                        f"{_consequence(what, prim.name, v, prim.tile_size)}"), site.function.name)
        return None
