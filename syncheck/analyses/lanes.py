"""Which lanes of each warp may execute a call, from conditions on threadIdx.x.

Uses the per-thread values the uniformity analysis keeps for expressions that depend on
threadIdx.x alone. Controllers that are uniform within a warp admit the whole warp;
any finer controller without per-thread values makes the answer unknown (None), so the
mask checks stay silent rather than guess.
"""

from __future__ import annotations

from syncheck.analyses import c_semantics as C
from syncheck.analyses.levels import Level
from syncheck.analyses.uniformity import Frame, Site, effective_controllers

FULL_MASK = 0xFFFFFFFF


def active_lanes(site: Site, frames: tuple[Frame, ...], block_threads: int | None = None) -> list[int] | None:
    """Per warp of the block, the mask of lanes that may reach ``site``. ``block_threads``:
    the block's size when it is one row of threads (known from its launches); a last warp it
    does not fill has only its existing lanes."""
    controllers = [c for _, c in effective_controllers(site, frames)]
    threads = None
    for c in controllers:
        if c.value.per_thread is not None:
            threads = len(c.value.per_thread)
            break
    if threads is None:
        threads = block_threads or 1024
    masks = [FULL_MASK] * (threads // 32)
    if threads % 32:
        masks.append((1 << (threads % 32)) - 1)
    for c in controllers:
        values = c.value.per_thread
        if values is not None and c.polarity is not None and len(values) == threads:
            for tid, v in enumerate(values):
                if bool(v) != c.polarity:
                    masks[tid // 32] &= ~(1 << (tid % 32))
        elif c.level <= Level.WARP:
            continue  # the whole warp goes the same way
        else:
            return None
    return masks


def lane_list(mask: int) -> str:
    """'0-15, 17' for the lanes set in ``mask``."""
    lanes = [i for i in range(32) if mask >> i & 1]
    parts = []
    i = 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        parts.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    return ", ".join(parts) if parts else "none"


def mask_constant(value) -> int | None:
    """A mask argument's constant value as the 32-bit unsigned the hardware sees."""
    if isinstance(value, int):
        return C.convert(value, C.UNSIGNED_INT)
    return None
