"""The uniformity lattice and abstract values.

A level says over which group of threads a value is guaranteed to be the same.
Lower is more uniform. The tile levels sit between a warp and a single thread:
``TILE16`` means "the same within each aligned 16-thread group".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Level(IntEnum):
    UNIFORM = 0   # same for every thread of the grid (kernel params, blockDim, constants)
    BLOCK = 1     # same within a block (blockIdx, block-wide barrier results)
    WARPGROUP = 2  # same within an aligned warpgroup of 128 threads (threadIdx.x / 128)
    WARP = 3      # same within a warp (threadIdx.x / 32)
    TILE16 = 4
    TILE8 = 5
    TILE4 = 6
    TILE2 = 7
    THREAD = 8    # may differ between any two threads

    def describe(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    Level.UNIFORM: "uniform",
    Level.BLOCK: "block-uniform (differs between blocks)",
    Level.WARPGROUP: "warpgroup-uniform (differs between warpgroups of 128 threads)",
    Level.WARP: "warp-uniform (differs between warps)",
    Level.TILE16: "uniform only within 16-thread tiles",
    Level.TILE8: "uniform only within 8-thread tiles",
    Level.TILE4: "uniform only within 4-thread tiles",
    Level.TILE2: "uniform only within 2-thread tiles",
    Level.THREAD: "thread-dependent",
}

# Threads over which a value of each level is the same (aligned groups; a block's and the
# grid's: more than any group).
GROUP_THREADS = {Level.UNIFORM: 1 << 30, Level.BLOCK: 1 << 30, Level.WARPGROUP: 128, Level.WARP: 32,
                 Level.TILE16: 16, Level.TILE8: 8, Level.TILE4: 4, Level.TILE2: 2, Level.THREAD: 1}

_TILE_LEVELS = {1: Level.THREAD, 2: Level.TILE2, 4: Level.TILE4, 8: Level.TILE8,
                16: Level.TILE16, 32: Level.WARP}


def group_level(threads: int) -> Level:
    """The finest level still uniform within aligned groups of ``threads`` threads."""
    if threads >= 128 and threads % 128 == 0:
        return Level.WARPGROUP
    if threads >= 32:
        return Level.WARP
    best = Level.THREAD
    for size, level in sorted(_TILE_LEVELS.items()):
        if size <= threads:
            best = level
    return best


def run_level(run: int) -> Level:
    """The level of a value that is the same over aligned runs of ``run`` consecutive threads
    (threadIdx.y over runs of blockDim.x): the largest group size dividing the run."""
    if run > 0 and run % 32 == 0:
        return Level.WARP
    size = 1
    while run > 0 and run % (size * 2) == 0 and size * 2 < 32:
        size *= 2
    return _TILE_LEVELS[size]


@dataclass(frozen=True, slots=True)
class Origin:
    """Why a value varies: a short chain of (what, line), most recent first."""

    steps: tuple[tuple[str, int], ...]

    def through(self, what: str, line: int) -> "Origin":
        if self.steps and self.steps[0][0] == what:
            return self
        return Origin(((what, line),) + self.steps[:3])

    def describe(self) -> str:
        parts = []
        for i, (what, line) in enumerate(self.steps):
            parts.append(f"{what} (line {line})" if i == 0 or line else what)
        return " <- ".join(parts)

    @property
    def root(self) -> tuple[str, int]:
        return self.steps[-1]


@dataclass(frozen=True, slots=True)
class Value:
    level: Level = Level.UNIFORM
    const: int | float | None = None
    # threadIdx.x plus a warp-aligned uniform offset: its lane is value % 32.
    lane_linear: bool = False
    # A multiple of 32 (blockDim.x, under the default block-shape assumption).
    aligned: bool = False
    origin: Origin | None = None
    # For cooperative-groups handles: the tile size, when known (tiled_partition(g, 16)).
    group_size: int | None = None
    # The value as a function of threadIdx.x (one entry per x index), when it depends on
    # nothing else: lets the mask checks compute which lanes reach a call.
    per_thread: tuple | None = None
    # Derived from __activemask(): not a convergence guarantee (SYN206).
    from_activemask: bool = False
    # The value as c.x*threadIdx.x + c.y*threadIdx.y + c.z*threadIdx.z + rest, when it has
    # that form: ((cx, cy, cz), level of rest). Differences that cancel the thread part
    # (``j - threadIdx.x`` with ``j = base + threadIdx.x``) are then as uniform as the rest.
    affine: tuple[tuple[int, int, int], Level] | None = None
    # Exactly threadIdx.<axis> / exactly blockDim.<axis> (a kernel parameter the launches tie
    # to the block size counts): `threadIdx.x < blockDim.x` always holds.
    thread_axis: str | None = None
    block_axis: str | None = None
    # Depends on the thread only through its lane (threadIdx.x % 32 with whole warps): the
    # same in every warp, so a full-mask warp vote over it is block-uniform.
    lane_only: bool = False
    # Exactly the warp index threadIdx.x / 32 (warps numbered from 0 in the block): its
    # aligned groups of four are warpgroups, so warp / 4 is warpgroup-uniform.
    warp_linear: bool = False
    # A pointer into __shared__ memory: what a thread stores through it is the block's, not
    # the thread's own (after a barrier every thread reads the same cell).
    block_shared: bool = False
    # For a group handle made by splitting a tile by a value (cg::binary_partition,
    # labeled_partition): the threads of one tile that share the value form one group, so
    # what its members agree on (a vote) is the same over any threads that share the value
    # within one tile: the coarser of the value's level and the tile's.
    members_level: Level | None = None
    # For a tuple built of values (`return {a, b};`, `make_tuple(a, b)`): each element's value,
    # so that `tie(x, y) = f()` gives each variable its own (the level above joins them all).
    elements: tuple["Value", ...] | None = None

    def thread_affine(self) -> tuple[tuple[int, int, int], Level] | None:
        if self.affine is not None:
            return self.affine
        if self.level <= Level.BLOCK:
            return (0, 0, 0), self.level
        return None

    def join(self, other: "Value") -> "Value":
        if self == other:
            return self
        level = max(self.level, other.level)
        origin = self.origin if self.level >= other.level else other.origin
        if origin is None:
            origin = self.origin or other.origin
        return Value(
            level=Level(level),
            const=self.const if self.const == other.const else None,
            lane_linear=self.lane_linear and other.lane_linear,
            aligned=self.aligned and other.aligned,
            origin=origin if level > Level.UNIFORM else None,
            group_size=self.group_size if self.group_size == other.group_size else None,
            per_thread=self.per_thread if self.per_thread == other.per_thread else None,
            from_activemask=self.from_activemask or other.from_activemask,
            affine=_join_affine(self.thread_affine(), other.thread_affine()) if level > Level.BLOCK else None,
            thread_axis=self.thread_axis if self.thread_axis == other.thread_axis else None,
            block_axis=self.block_axis if self.block_axis == other.block_axis else None,
            lane_only=level > Level.BLOCK and self.lane_like and other.lane_like,
            warp_linear=self.warp_linear and other.warp_linear,
            block_shared=self.block_shared and other.block_shared,
            members_level=None if self.members_level is None or other.members_level is None
            else Level(max(self.members_level, other.members_level)),
            elements=tuple(a.join(b) for a, b in zip(self.elements, other.elements))
            if self.elements is not None and other.elements is not None
            and len(self.elements) == len(other.elements) else None,
        )

    @property
    def lane_like(self) -> bool:
        """The same in every warp of a block (lane-only or block-uniform)."""
        return self.lane_only or self.level <= Level.BLOCK

    def at_least(self, level: Level, origin: Origin | None) -> "Value":
        """The value made at least ``level``-varying (e.g. assigned under divergent control)."""
        if level <= self.level:
            return self
        return Value(level=level, origin=origin, aligned=False,
                     from_activemask=self.from_activemask,
                     elements=None if self.elements is None
                     else tuple(e.at_least(level, origin) for e in self.elements))


def _join_affine(a, b):
    """Merging two affine forms keeps the thread part only when both have the same one."""
    if a is None or b is None or a[0] != b[0]:
        return None
    return a[0], Level(max(a[1], b[1]))


UNIFORM = Value()
THREAD = Value(Level.THREAD)


def join_all(values) -> Value:
    out = UNIFORM
    for v in values:
        out = out.join(v)
    return out
