"""The reference kernels: for each, its source, launch configuration, inputs and NumPy reference.

Inputs are fresh random data for every run (never zeros); outputs are poisoned before the
launch, so a kernel that writes nothing cannot pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

N = 1 << 20


@dataclass(frozen=True)
class Case:
    name: str
    source: str                      # file in reference_kernels/
    kernel: str                      # extern "C" name
    block: tuple[int, int, int]
    grid: Callable[[dict], tuple[int, int, int]] | tuple[int, int, int]
    inputs: Callable[[np.random.Generator], dict]
    args: tuple[str, ...]            # names of inputs/outputs in argument order
    outputs: dict[str, Callable[[dict], np.ndarray]]   # name -> NumPy reference
    shared_bytes: int = 0
    cooperative: bool = False
    arch: str = "sm_90"
    tolerance: float = 1e-5
    unordered: tuple[str, ...] = ()  # outputs compared as sorted multisets
    note: str = ""


def _floats(rng, n=N):
    return rng.standard_normal(n).astype(np.float32)


def _block_sums(x, size):
    pad = (-len(x)) % size
    return np.concatenate([x, np.zeros(pad, np.float32)]).reshape(-1, size).sum(axis=1, dtype=np.float64)


def _stencil_ref(d):
    x = d["in"]
    tiles = x.reshape(-1, 256).astype(np.float64)
    left = np.zeros_like(tiles)
    right = np.zeros_like(tiles)
    left[:, 1:] = tiles[:, :-1]
    right[:, :-1] = tiles[:, 1:]
    return (0.25 * left + 0.5 * tiles + 0.25 * right).reshape(-1)


def _compact_ref(d):
    x = d["in"].reshape(-1, 32)
    out = np.full(x.shape, np.nan, np.float32)
    for w, row in enumerate(x):
        kept = row[row > 0]
        out[w, :len(kept)] = kept
    return out.reshape(-1)


def _phases_ref(d):
    x = 2.0 * d["x"].astype(np.float64)
    y = x + np.roll(x, -1)
    return y - np.roll(y, 1)


def _f16(rng, shape):
    return rng.standard_normal(shape).astype(np.float16)


def _wgmma_inputs(rng):
    return {"A": _f16(rng, (64, 16)), "B": _f16(rng, (16, 8)), "D": np.full((64, 8), np.nan, np.float32)}


def _reverse_tiles(x, tile, width=1):
    """x as tiles of ``tile`` elements (each ``width`` floats wide), each tile reversed."""
    return x.reshape(-1, tile, width)[:, ::-1, :].reshape(-1)


_HOPPER_BLOCKS, _HOPPER_TILES = 64, 8


def _wgmma_k64_inputs(rng):
    return {"A": _f16(rng, (64, 64)), "B": _f16(rng, (64, 8)), "D": np.full((64, 8), np.nan, np.float32)}


CASES: tuple[Case, ...] = (
    Case("stencil", "stencil.cu", "stencil", (256, 1, 1), (N // 256, 1, 1),
         lambda r: {"in": _floats(r), "out": np.full(N, np.nan, np.float32), "n": np.int32(N)},
         ("in", "out", "n"), {"out": _stencil_ref}),
    Case("reduceShared", "reductions.cu", "reduceShared", (256, 1, 1), (N // 256, 1, 1),
         lambda r: {"in": _floats(r), "out": np.full(N // 256, np.nan, np.float32), "n": np.int32(N)},
         ("in", "out", "n"), {"out": lambda d: _block_sums(d["in"], 256)}, shared_bytes=256 * 4),
    Case("reduceShfl", "reductions.cu", "reduceShfl", (256, 1, 1), (N // 256, 1, 1),
         lambda r: {"in": _floats(r), "out": np.full(N // 256, np.nan, np.float32), "n": np.int32(N)},
         ("in", "out", "n"), {"out": lambda d: _block_sums(d["in"], 256)}),
    Case("reduceCG", "reductions.cu", "reduceCG", (256, 1, 1), (N // 256, 1, 1),
         lambda r: {"in": _floats(r), "out": np.full(N // 256, np.nan, np.float32), "n": np.int32(N)},
         ("in", "out", "n"), {"out": lambda d: _block_sums(d["in"], 256)}),
    Case("reduceTile16 (tiled_partition<16>)", "reductions.cu", "reduceTile16", (256, 1, 1),
         (N // 256, 1, 1),
         lambda r: {"in": _floats(r), "out": np.full(N // 16, np.nan, np.float32), "n": np.int32(N)},
         ("in", "out", "n"), {"out": lambda d: _block_sums(d["in"], 16)}),
    Case("sumAtomic (cross-block atomicAdd)", "reductions.cu", "sumAtomic", (256, 1, 1), (528, 1, 1),
         lambda r: {"in": _floats(r), "total": np.zeros(1, np.float32), "n": np.int32(N)},
         ("in", "total", "n"), {"total": lambda d: np.array([d["in"].sum(dtype=np.float64)])},
         tolerance=1e-4, note="total starts at 0 (it accumulates); float atomics add in any order"),
    Case("compactWarp (__ballot/__any/__all_sync)", "warp_primitives.cu", "compactWarp", (256, 1, 1),
         (N // 256, 1, 1),
         lambda r: {"in": _floats(r), "out": np.full(N, np.nan, np.float32),
                    "counts": np.full(N // 32, -1, np.int32), "flags": np.full(N // 32, -1, np.int32),
                    "n": np.int32(N)},
         ("in", "out", "counts", "flags", "n"),
         {"out": _compact_ref,
          "counts": lambda d: (d["in"].reshape(-1, 32) > 0).sum(axis=1),
          "flags": lambda d: (d["in"].reshape(-1, 32) > 0).any(axis=1) + 2 * (d["in"].reshape(-1, 32) > 0).all(axis=1)}),
    Case("warpSumInt (__reduce_add_sync)", "warp_primitives.cu", "warpSumInt", (256, 1, 1), (N // 256, 1, 1),
         lambda r: {"in": r.integers(-1000, 1000, N, dtype=np.int32), "out": np.full(N // 32, -7, np.int32),
                    "n": np.int32(N)},
         ("in", "out", "n"), {"out": lambda d: d["in"].reshape(-1, 32).sum(axis=1)}, tolerance=0.0),
    Case("butterfly (__shfl_xor_sync)", "warp_primitives.cu", "butterfly", (256, 1, 1), (N // 256, 1, 1),
         lambda r: {"in": _floats(r), "out": np.full(N, np.nan, np.float32), "n": np.int32(N)},
         ("in", "out", "n"), {"out": lambda d: np.repeat(_block_sums(d["in"], 32), 32)}),
    Case("compactCoalesced (coalesced_threads)", "warp_primitives.cu", "compactCoalesced", (256, 1, 1),
         (N // 256, 1, 1),
         lambda r: {"in": _floats(r), "out": np.full(N, np.nan, np.float32),
                    "counter": np.zeros(1, np.int32), "n": np.int32(N)},
         ("in", "out", "counter", "n"),
         {"out": lambda d: np.concatenate([d["in"][d["in"] > 0],
                                           np.full(int((d["in"] <= 0).sum()), np.nan, np.float32)]),
          "counter": lambda d: np.array([int((d["in"] > 0).sum())])},
         unordered=("out",), note="slots are claimed by atomics: compared as sorted values"),
    Case("phases (grid.sync x3, cooperative)", "grid_sync.cu", "phases", (256, 1, 1), "occupancy",
         lambda r: {"x": _floats(r), "y": np.full(N, np.nan, np.float32), "n": np.int32(N)},
         ("x", "y", "n"), {"x": _phases_ref}, cooperative=True),
    Case("globalReduce (grid.sync, cooperative)", "grid_sync.cu", "globalReduce", (256, 1, 1), "occupancy",
         lambda r: {"in": _floats(r), "partials": np.full(4096, np.nan, np.float32),
                    "out": np.full(1, np.nan, np.float32), "n": np.int32(N)},
         ("in", "partials", "out", "n"), {"out": lambda d: np.array([d["in"].sum(dtype=np.float64)])},
         cooperative=True, tolerance=1e-4),
    Case("wgmma m64n8k16 (warpgroup, sm_90a)", "wgmma.cu", "wgmma_m64n8k16", (128, 1, 1), (1, 1, 1),
         _wgmma_inputs, ("A", "B", "D"),
         {"D": lambda d: d["A"].astype(np.float32) @ d["B"].astype(np.float32)},
         arch="sm_90a", tolerance=1e-5),
    Case("cp.async 3-stage pipeline (commit/wait_group 1)", "hopper_async.cu", "cp_async_pipeline",
         (128, 1, 1), (_HOPPER_BLOCKS, 1, 1),
         lambda r: {"in": _floats(r, _HOPPER_BLOCKS * _HOPPER_TILES * 512),
                    "out": np.full(_HOPPER_BLOCKS * _HOPPER_TILES * 512, np.nan, np.float32),
                    "tiles": np.int32(_HOPPER_TILES)},
         ("in", "out", "tiles"), {"out": lambda d: 2.0 * _reverse_tiles(d["in"], 128, 4) + 1.0},
         arch="sm_90a"),
    Case("cp.async.bulk + mbarrier, double-buffered", "hopper_async.cu", "bulk_pipeline",
         (128, 1, 1), (_HOPPER_BLOCKS, 1, 1),
         lambda r: {"in": _floats(r, _HOPPER_BLOCKS * _HOPPER_TILES * 1024),
                    "out": np.full(_HOPPER_BLOCKS * _HOPPER_TILES * 1024, np.nan, np.float32),
                    "tiles": np.int32(_HOPPER_TILES)},
         ("in", "out", "tiles"), {"out": lambda d: 3.0 * _reverse_tiles(d["in"], 1024)},
         arch="sm_90a"),
    Case("wgmma K=64 loop (fence/commit x4, wait_group 0)", "hopper_async.cu", "wgmma_k64",
         (128, 1, 1), (1, 1, 1), _wgmma_k64_inputs, ("A", "B", "D"),
         {"D": lambda d: d["A"].astype(np.float32) @ d["B"].astype(np.float32)},
         arch="sm_90a", tolerance=1e-5),
    Case("named barriers, producer/consumer warps", "hopper_async.cu", "named_producer_consumer",
         (256, 1, 1), (_HOPPER_BLOCKS, 1, 1),
         lambda r: {"in": _floats(r, _HOPPER_BLOCKS * _HOPPER_TILES * 128),
                    "out": np.full(_HOPPER_BLOCKS * _HOPPER_TILES * 128, np.nan, np.float32),
                    "tiles": np.int32(_HOPPER_TILES)},
         ("in", "out", "tiles"), {"out": lambda d: 0.5 * _reverse_tiles(d["in"], 128) + 1.0},
         arch="sm_90a"),
    Case("2-block cluster sum (distributed shared memory)", "hopper_async.cu", "cluster_sum",
         (256, 1, 1), (264, 1, 1),
         lambda r: {"in": _floats(r, 264 * 256), "out": np.full(132, np.nan, np.float32)},
         ("in", "out"), {"out": lambda d: _block_sums(d["in"], 512)}, arch="sm_90a"),
)


@dataclass(frozen=True)
class SanitizerCase:
    """A buggy fixture kernel to run under compute-sanitizer."""

    fixture: str      # path under fixtures/
    kernel: str
    block: tuple[int, int, int]
    grid: tuple[int, int, int]
    args: tuple[tuple[str, int], ...]   # ("f32", length) arrays, ("i32", value) scalars
    shared_bytes: int = 0
    tools: tuple[str, ...] = ("synccheck", "racecheck")


SANITIZER_CASES: tuple[SanitizerCase, ...] = (
    SanitizerCase("seeds/lecture_divergent_barrier.cu", "load_wrong", (256, 1, 1), (4, 1, 1),
                  (("f32", 1024), ("f32", 1024), ("i32", 1000))),
    SanitizerCase("SYN101/bad_branches.cu", "thread_branch", (256, 1, 1), (4, 1, 1),
                  (("f32", 1024), ("i32", 1000))),
    SanitizerCase("SYN101/bad_branches.cu", "warp_uniform_branch_still_splits_block", (256, 1, 1),
                  (2, 1, 1), (("f32", 512),)),
    SanitizerCase("SYN101/bad_exits_and_loops.cu", "early_return", (256, 1, 1), (4, 1, 1),
                  (("f32", 1024), ("i32", 1000))),
    SanitizerCase("SYN103/bad_tile_sync.cu", "tile_sync_by_lane", (256, 1, 1), (2, 1, 1),
                  (("f32", 512),)),
    SanitizerCase("SYN103/bad_tile_sync.cu", "syncwarp_default_mask", (256, 1, 1), (2, 1, 1),
                  (("f32", 512),)),
    SanitizerCase("SYN201/bad_full_mask.cu", "odd_lanes_skip", (256, 1, 1), (2, 1, 1),
                  (("f32", 512), ("f32", 512))),
    SanitizerCase("SYN202/bad_partial_masks.cu", "whole_warp_half_mask", (256, 1, 1), (2, 1, 1),
                  (("f32", 512), ("f32", 512))),
    SanitizerCase("SYN401/bad_races.cu", "stencil_no_barrier", (256, 1, 1), (4, 1, 1),
                  (("f32", 1024), ("f32", 1024), ("i32", 1024))),
    SanitizerCase("SYN401/bad_races.cu", "reduce_no_barrier_per_step", (256, 1, 1), (4, 1, 1),
                  (("f32", 1024), ("f32", 4)), shared_bytes=256 * 4),
    SanitizerCase("SYN401/bad_races.cu", "transpose_no_barrier", (32, 32, 1), (1, 1, 1),
                  (("f32", 1024), ("f32", 1024), ("i32", 32))),
    SanitizerCase("SYN401/bad_races.cu", "shift_war", (256, 1, 1), (1, 1, 1),
                  (("f32", 512), ("i32", 4))),
    SanitizerCase("SYN401/bad_races.cu", "scan_one_barrier", (256, 1, 1), (1, 1, 1), (("f32", 256),)),
    SanitizerCase("SYN401/bad_races.cu", "everyone_writes_own_value", (256, 1, 1), (1, 1, 1),
                  (("f32", 256), ("f32", 256))),
    SanitizerCase("SYN402/bad_warp_synchronous.cu", "reduce6", (256, 1, 1), (4, 1, 1),
                  (("f32", 1024), ("f32", 4))),
    SanitizerCase("SYN402/bad_warp_synchronous.cu", "lane_exchange", (256, 1, 1), (1, 1, 1),
                  (("f32", 256),)),
    SanitizerCase("SYN301/bad_cupy.py", "scale_twice", (256, 1, 1), (64, 1, 1),
                  (("f32", 16384), ("i32", 16384)), tools=("plain",)),
)
