"""Values as a function of threadIdx.x, one entry per thread, computed with NumPy.

Only integer expressions built from threadIdx.x and constants get one; they let the mask
checks compute exactly which lanes of each warp reach a call."""

from __future__ import annotations

import numpy as np

from syncheck.analyses import c_semantics as C


class PerThread:
    __slots__ = ("values", "_hash")

    def __init__(self, values: np.ndarray):
        values.setflags(write=False)
        self.values = values
        self._hash = None

    def __eq__(self, other) -> bool:
        return isinstance(other, PerThread) and (self is other or np.array_equal(self.values, other.values))

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.values.tobytes())
        return self._hash

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values.tolist())


_RANGES: dict[int, PerThread] = {}


def thread_range(n: int) -> PerThread:
    cached = _RANGES.get(n)
    if cached is None:
        cached = _RANGES[n] = PerThread(np.arange(n, dtype=np.int64))
    return cached


def _operand(x, n: int):
    if isinstance(x, PerThread):
        return x.values
    if isinstance(x, (int, np.integer)) and -(1 << 63) <= int(x) < (1 << 63):
        return np.full(n, int(x), dtype=np.int64)
    return None


def binary(op: str, a, b, t: C.IntType | None) -> PerThread | None:
    """``a op b`` for every thread (either side may be a constant), for an operator carried
    out in type t (c_semantics.operation_type; None: a floating or pointer operation, on
    integral values: exact but for a quotient)."""
    if t is None:
        if op in ("/", "%"):
            return None
        t = C.UNKNOWN_INTEGER
    n = len(a) if isinstance(a, PerThread) else len(b)
    xs, ys = _operand(a, n), _operand(b, n)
    if xs is None or ys is None or len(xs) != len(ys):
        return None
    out = C.binary_array(op, xs, ys, t)
    return None if out is None else PerThread(out)


def unary(op: str, a: PerThread, t: C.IntType | None) -> PerThread | None:
    out = C.unary_array(op, a.values, t or C.UNKNOWN_INTEGER)  # None: a floating operand, integral values
    return None if out is None else PerThread(out)


def convert(a: PerThread, t: C.IntType) -> PerThread | None:
    out = C.convert_array(a.values, t)
    return None if out is None else PerThread(out)


def select(cond: PerThread, a, b) -> PerThread | None:
    n = len(cond)
    xs, ys = _operand(a, n), _operand(b, n)
    if xs is None or ys is None:
        return None
    return PerThread(np.where(cond.values != 0, xs, ys))


def ballot(predicate: PerThread) -> PerThread | None:
    """__ballot_sync(full mask, predicate) for every thread: the mask of the lanes of its warp
    whose predicate holds (the same for the 32 threads of a warp)."""
    values = predicate.values
    # A last warp the block does not fill: its missing lanes do not exist and vote nothing.
    padded = np.concatenate([values, np.zeros(-len(values) % 32, dtype=values.dtype)])
    bits = (padded.reshape(-1, 32) != 0).astype(np.uint64) << np.arange(32, dtype=np.uint64)
    per_warp = bits.sum(axis=1).astype(np.int64)
    return PerThread(np.repeat(per_warp, 32)[:len(values)])


def constant_run(values: PerThread) -> int:
    """The largest aligned group size (1, 2, 4, ..., 32) over which the value is the same for
    every thread: 32 means it differs only between warps (with whole-warp rows)."""
    v = values.values
    size = 1
    for g in (2, 4, 8, 16, 32):
        if len(v) % g or not np.all(v.reshape(-1, g) == v.reshape(-1, g)[:, :1]):
            break
        size = g
    return size
