"""Values as a function of threadIdx.x, one entry per thread, computed with NumPy.

Only integer expressions built from threadIdx.x and constants get one; they let the mask
checks compute exactly which lanes of each warp reach a call."""

from __future__ import annotations

import numpy as np

_CMP = {"<": np.less, ">": np.greater, "<=": np.less_equal, ">=": np.greater_equal,
        "==": np.equal, "!=": np.not_equal}


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


def _mask(type_spelling: str):
    t = type_spelling
    if "unsigned" in t or "size_t" in t or t.startswith("uint"):
        return (1 << 64) - 1 if ("long" in t or "size_t" in t or "64" in t) else 0xFFFFFFFF
    return None


def _operand(x, n: int):
    if isinstance(x, PerThread):
        return x.values
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return np.full(n, int(x), dtype=np.int64)
    if isinstance(x, bool):
        return np.full(n, int(x), dtype=np.int64)
    return None


def binary(op: str, a, b, type_spelling: str) -> PerThread | None:
    n = len(a) if isinstance(a, PerThread) else len(b)
    xs, ys = _operand(a, n), _operand(b, n)
    if xs is None or ys is None or len(xs) != len(ys):
        return None
    with np.errstate(all="ignore"):
        if op in _CMP:
            return PerThread(_CMP[op](xs, ys).astype(np.int64))
        if op == "&&":
            return PerThread(((xs != 0) & (ys != 0)).astype(np.int64))
        if op == "||":
            return PerThread(((xs != 0) | (ys != 0)).astype(np.int64))
        if op in ("/", "%"):
            if (ys == 0).any():
                return None
            q = np.sign(xs) * np.sign(ys) * (np.abs(xs) // np.abs(ys))
            out = q if op == "/" else xs - ys * q
        elif op in ("<<", ">>"):
            if (ys < 0).any() or (ys >= 63).any():
                return None
            out = np.left_shift(xs, ys) if op == "<<" else np.right_shift(xs, ys)
        else:
            fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and,
                  "|": np.bitwise_or, "^": np.bitwise_xor}.get(op)
            if fn is None:
                return None
            out = fn(xs, ys)
    mask = _mask(type_spelling)
    if mask is not None and mask <= 0xFFFFFFFF:
        out = np.bitwise_and(out, mask)
    return PerThread(out.astype(np.int64))


def unary(op: str, a: PerThread, type_spelling: str) -> PerThread | None:
    xs = a.values
    if op == "-":
        out = -xs
    elif op == "+":
        out = xs
    elif op == "!":
        return PerThread((xs == 0).astype(np.int64))
    elif op == "~":
        out = np.invert(xs)
    else:
        return None
    mask = _mask(type_spelling)
    if mask is not None and mask <= 0xFFFFFFFF:
        out = np.bitwise_and(out, mask)
    return PerThread(out.astype(np.int64))


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
