"""What the CUDA calls that syncheck reasons about mean.

Each call to a synchronization primitive, a collective or a thread-identity query
is classified once here; the uniformity analysis and every check read the result,
so no check matches function names on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from syncheck.analyses.levels import Level, group_level
from syncheck.ir.calls import call_args, callee_name, group_kind, member_object
from syncheck.ir.nodes import Node

BLOCK_BARRIER = "block_barrier"
GRID_SYNC = "grid_sync"
TILE_SYNC = "tile_sync"          # tile.sync(), __syncwarp()
WARP_COLLECTIVE = "warp_collective"  # __shfl*_sync, __ballot_sync, ...: mask-taking intrinsics
TILE_COLLECTIVE = "tile_collective"  # tile.shfl_down(), cg::reduce(tile, ...)
LEGACY_WARP = "legacy_warp"      # __shfl, __any, ... without _sync
QUERY = "query"                  # thread_rank(), meta_group_rank(), __activemask(), atomics
GROUP_HANDLE = "group_handle"    # this_thread_block(), tiled_partition<N>(), coalesced_threads()
WARPGROUP_COLLECTIVE = "warpgroup_collective"  # wgmma.fence/mma_async/commit/wait (128 threads)
ALIGNED_NAMED_BARRIER = "aligned_named_barrier"  # bar.sync / barrier.sync.aligned id, count
NAMED_BARRIER = "named_barrier"  # barrier.sync / barrier.arrive id, count (not .aligned)


@dataclass(frozen=True)
class Primitive:
    name: str                 # as the user would write it, for messages
    category: str
    scope: str = ""           # block | grid | warp | tile | coalesced
    tile_size: int | None = None
    mask_arg: int | None = None
    group: Node | None = None  # the group object (member call or first argument)
    result: Level | None = None  # fixed result level; None: computed by the analysis
    returns_lane_linear: bool = False
    # The lane index itself (thread_rank() of a tile of at most 32 threads): the same for
    # lane L of every warp.
    returns_lane: bool = False
    # Every member gets the combination of all members' values (votes, reductions): over
    # a whole warp, values the same in every warp give a result the same in every warp.
    combines: bool = False
    # A library's warp collective with no mask argument that every lane of the warp must
    # reach (CUB's WarpReduce and WarpScan over the 32 lanes, built on full-mask shuffles).
    full_warp: bool = False

    @property
    def is_barrier_like(self) -> bool:
        return self.category in (BLOCK_BARRIER, GRID_SYNC, TILE_SYNC)


_BARRIER_FUNCS = {"__syncthreads": None, "__syncthreads_count": Level.BLOCK,
                  "__syncthreads_and": Level.BLOCK, "__syncthreads_or": Level.BLOCK,
                  "__barrier_sync": None}
_WARP_RESULT = {
    "__shfl_sync": None, "__shfl_up_sync": Level.THREAD, "__shfl_down_sync": Level.THREAD,
    "__shfl_xor_sync": Level.THREAD, "__ballot_sync": Level.WARP, "__any_sync": Level.WARP,
    "__all_sync": Level.WARP, "__uni_sync": Level.WARP, "__match_any_sync": Level.THREAD,
    "__match_all_sync": Level.WARP, "__reduce_add_sync": Level.WARP,
    "__reduce_min_sync": Level.WARP, "__reduce_max_sync": Level.WARP,
    "__reduce_and_sync": Level.WARP, "__reduce_or_sync": Level.WARP,
    "__reduce_xor_sync": Level.WARP,
}
LEGACY_REPLACEMENTS = {
    "__shfl": "__shfl_sync", "__shfl_up": "__shfl_up_sync", "__shfl_down": "__shfl_down_sync",
    "__shfl_xor": "__shfl_xor_sync", "__any": "__any_sync", "__all": "__all_sync",
    "__ballot": "__ballot_sync",
}
# Read-modify-write atomics: the first argument points at the updated location.
ATOMIC_FUNCTIONS = frozenset(
    f"{op}{scope}" for op in ("atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax",
                              "atomicCAS", "atomicInc", "atomicDec", "atomicAnd", "atomicOr",
                              "atomicXor")
    for scope in ("", "_block", "_system"))
# Queries that only mean something for a warp (code that asks them is written for a warp).
WARP_QUERIES = frozenset({"__activemask", "__lanemask_lt", "__lanemask_le", "__lanemask_eq",
                          "__lanemask_gt", "__lanemask_ge"})
_THREAD_QUERIES = WARP_QUERIES | {"clock", "clock64", "__globaltimer", "malloc"} | ATOMIC_FUNCTIONS
_TILE_COLLECTIVE_METHODS = {"shfl": None, "shfl_down": Level.THREAD, "shfl_up": Level.THREAD,
                            "shfl_xor": Level.THREAD, "any": "tile", "all": "tile",
                            "ballot": "tile", "match_any": Level.THREAD, "match_all": "tile"}
_CG_FREE_COLLECTIVES = {"reduce": "tile", "inclusive_scan": Level.THREAD,
                        "exclusive_scan": Level.THREAD}
_COMBINING = {"__all_sync", "__any_sync", "__ballot_sync", "__reduce_add_sync", "__reduce_min_sync",
              "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
              "any", "all", "ballot", "reduce"}
_SCOPE_OF_GROUP = {"block": "block", "grid": "grid", "tile": "tile", "coalesced": "coalesced",
                   "thread_group": "tile"}


def _is_cg(call: Node) -> bool:
    d = call.decl
    return d is None or d.in_model or d.qualified.startswith("cooperative_groups")


def classify(call: Node) -> Primitive | None:
    """The primitive a call expression invokes, or None for an ordinary call."""
    name = callee_name(call)
    decl = call.decl
    if decl is not None and not decl.in_model and not decl.qualified.startswith("cooperative_groups"):
        if decl.name != "__syncthreads":  # a clang builtin, declared nowhere
            return None
    collective = _cub_block_collective(decl) if decl is not None else _cub_dependent_collective(call, name)
    if collective is not None:
        return Primitive(collective, BLOCK_BARRIER, "block")
    warp_collective = _cub_warp_collective(decl)
    if warp_collective is not None:
        # (the aggregate is defined in lane 0 only, the scan's values differ by lane)
        return Primitive(warp_collective, WARP_COLLECTIVE, "warp", 32, result=Level.THREAD, full_warp=True)
    obj = member_object(call)
    if obj is not None:
        return _classify_member(call, name, obj)
    if name in _BARRIER_FUNCS:
        return Primitive(f"{name}()", BLOCK_BARRIER, "block", result=_BARRIER_FUNCS[name])
    if name == "__syncwarp":
        return Primitive("__syncwarp()", TILE_SYNC, "warp", 32, mask_arg=0)
    if name in _WARP_RESULT:
        return Primitive(name, WARP_COLLECTIVE, "warp", 32, mask_arg=0, result=_WARP_RESULT[name],
                         combines=name in _COMBINING)
    if name in LEGACY_REPLACEMENTS:
        return Primitive(name, LEGACY_WARP, "warp", 32, result=Level.THREAD)
    if name in _THREAD_QUERIES:
        return Primitive(name, QUERY, result=Level.THREAD)
    if name in ("this_thread_block", "this_grid", "coalesced_threads", "tiled_partition"):
        return Primitive(name, GROUP_HANDLE, result=Level.UNIFORM)
    if name in ("binary_partition", "labeled_partition") and _is_cg(call):
        return Primitive(name, GROUP_HANDLE, result=Level.UNIFORM)
    args = call_args(call)
    if name in ("sync", "thread_rank", "group_size") and _is_cg(call) and args:
        return _classify_group_call(call, name, args[0], free=True)
    if name in _CG_FREE_COLLECTIVES and _is_cg(call) and args:
        kind, size = group_kind(args[0].type)
        if kind in ("tile", "coalesced", "thread_group"):
            scope = _SCOPE_OF_GROUP[kind]
            res = _CG_FREE_COLLECTIVES[name]
            result = group_level(size or 32) if res == "tile" and kind == "tile" else (
                Level.THREAD if res == "tile" else res)
            return Primitive(f"cg::{name}", TILE_COLLECTIVE, scope, size, group=args[0], result=result,
                             combines=name in _COMBINING)
    return None


# CUB's block-wide scans and reductions: with more than one warp each exchanges the warps'
# partial results through shared memory between two block barriers, so a call is (at least)
# a barrier the whole block reaches. Their instantiation's USR names the block shape.
_CUB_BLOCK_COLLECTIVES = {"BlockScan": {"InclusiveSum", "ExclusiveSum", "InclusiveScan", "ExclusiveScan"},
                          "BlockReduce": {"Reduce", "Sum"}}
_CUB_INSTANCE = re.compile(r"@S@(BlockScan|BlockReduce)>#.*?@F@(\w+)[#<]")


def _cub_block_collective(decl) -> str | None:
    """'cub::BlockScan::InclusiveSum()' for a CUB block collective of more than 32 threads."""
    if decl is None or not decl.in_model or not decl.qualified.startswith("cub::") or not decl.instance:
        return None
    m = _CUB_INSTANCE.search(decl.instance)
    if m is None or m.group(2) not in _CUB_BLOCK_COLLECTIVES[m.group(1)]:
        return None
    # template arguments: T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z, ...
    dims = [int(v) for v in re.findall(r"#VI(\d+)", m.group(0))[:3]]
    if len(dims) < 3 or dims[0] * dims[1] * dims[2] <= 32:
        return None
    return f"cub::{m.group(1)}::{m.group(2)}()"


_CUB_CLASS = re.compile(r"^cub::(?:\w+::)*(BlockScan|BlockReduce)<(.*)>$")

# CUB's warp-wide reductions and scans: over a logical warp of the 32 lanes, full-mask
# shuffles every lane must reach. Their instantiation's USR names the logical warp size
# (the template argument after the item type).
_CUB_WARP_COLLECTIVES = {"WarpReduce": {"Reduce", "Sum", "HeadSegmentedSum", "TailSegmentedSum",
                                        "HeadSegmentedReduce", "TailSegmentedReduce"},
                         "WarpScan": {"InclusiveSum", "ExclusiveSum", "InclusiveScan", "ExclusiveScan",
                                      "Scan", "Broadcast"}}
_CUB_WARP_INSTANCE = re.compile(r"@S@(WarpReduce|WarpScan)>#[^@#]*#VI(\d+)[^@]*@F@(\w+)[#<]")


def _cub_warp_collective(decl) -> str | None:
    """'cub::WarpReduce::Sum()' for a CUB warp collective over the whole warp."""
    if decl is None or not decl.in_model or not decl.qualified.startswith("cub::") or not decl.instance:
        return None
    m = _CUB_WARP_INSTANCE.search(decl.instance)
    if m is None or m.group(3) not in _CUB_WARP_COLLECTIVES[m.group(1)] or int(m.group(2)) != 32:
        return None
    return f"cub::{m.group(1)}::{m.group(3)}()"


def _cub_dependent_collective(call: Node, method: str) -> str | None:
    """The same for a call in template code that names no function (`BR(tmp).Sum(x)`, `BR`
    a dependent `cub::BlockReduce<T, BLOCK>`), known by the class of the object it is made
    on. A block size that is a template parameter counts as more than one warp: CUB's
    contract (the whole block calls it, a barrier before the storage is reused) holds for
    every size."""
    obj = member_object(call)
    if obj is None:
        return None
    m = _CUB_CLASS.match(obj.type.replace("const ", "").strip())
    if m is None or method not in _CUB_BLOCK_COLLECTIVES[m.group(1)]:
        return None
    # template arguments: T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z, ...
    arguments = _template_arguments(m.group(2))
    dims = [arguments[i] if i < len(arguments) else "1" for i in (1, 3, 4)]
    if all(d.isdigit() for d in dims) and int(dims[0]) * int(dims[1]) * int(dims[2]) <= 32:
        return None
    return f"cub::{m.group(1)}::{method}()"


def _template_arguments(text: str) -> list[str]:
    """'T, 256, Pair<int, 2>' -> ['T', '256', 'Pair<int, 2>']."""
    out, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
            continue
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(ch, 0)
        current += ch
    return out + [current.strip()]


def _classify_member(call: Node, method: str, obj: Node) -> Primitive | None:
    return _classify_group_call(call, method, obj, free=False)


def _classify_group_call(call: Node, method: str, obj: Node, free: bool) -> Primitive | None:
    kind, size = group_kind(obj.type)
    if kind is None:
        return None
    scope = _SCOPE_OF_GROUP[kind]
    shown = f"cg::{method}({obj.spelling or 'group'})" if free else f"{obj.spelling or 'group'}.{method}()"
    if method in ("sync", "synchronize", "barrier_wait"):
        category = {"block": BLOCK_BARRIER, "grid": GRID_SYNC}.get(kind, TILE_SYNC)
        return Primitive(shown, category, scope, size, group=obj)
    if method == "thread_rank":
        return Primitive(shown, QUERY, scope, size, group=obj, result=Level.THREAD,
                         returns_lane_linear=kind in ("block", "grid"),
                         returns_lane=kind == "tile" and size is not None and size <= 32)
    if method in ("size", "num_threads", "meta_group_size", "dim_threads", "group_dim",
                  "dim_blocks", "num_blocks", "is_valid", "group_size", "num_clusters", "dim_clusters"):
        return Primitive(shown, QUERY, scope, size, group=obj, result=Level.UNIFORM)
    if method in ("group_index", "block_rank", "block_index", "cluster_rank", "cluster_index"):
        return Primitive(shown, QUERY, scope, size, group=obj, result=Level.BLOCK)
    if method == "thread_index":
        return Primitive(shown, QUERY, scope, size, group=obj, result=Level.THREAD)
    if method == "meta_group_rank":
        level = group_level(size) if size else Level.THREAD
        return Primitive(shown, QUERY, scope, size, group=obj, result=level)
    if method in _TILE_COLLECTIVE_METHODS and kind in ("tile", "coalesced", "thread_group"):
        res = _TILE_COLLECTIVE_METHODS[method]
        if res == "tile":
            res = group_level(size) if size else Level.THREAD
        return Primitive(shown, TILE_COLLECTIVE, scope, size, group=obj, result=res,
                         combines=method in _COMBINING)
    return None


def classify_async(node: Node) -> Primitive | None:
    """The collective an inline-PTX statement or a CUTLASS-style wrapper call performs, for
    the partial-reach rules: warpgroup collectives (wgmma) and aligned named barriers.
    Their meaning (operands, counts) comes from ``async_ops``."""
    from syncheck.analyses import async_ops as A
    if node.kind == "ASM_STMT":
        if "wgmma" not in node.spelling and "bar" not in node.spelling:
            return None
        events = A.asm_events(node)
    elif node.kind == "CALL_EXPR":
        name = callee_name(node)
        if not name.startswith(("warpgroup_", "wgmma_")) and "NamedBarrier" not in (node.type + name) \
                and not (node.decl is not None and "NamedBarrier" in node.decl.qualified):
            return None
        events = A.call_events(node)
    else:
        return None
    for ev in events:
        if ev.kind in A.WARPGROUP_COLLECTIVES or (ev.queue == A.Q_WGMMA and ev.kind in (A.COMMIT, A.WAIT)):
            shown = ev.name if node.kind == "CALL_EXPR" else f"'{ev.name}'"
            return Primitive(shown, WARPGROUP_COLLECTIVE, "warpgroup", 128)
    for ev in events:
        if ev.kind in (A.NAMED_SYNC, A.NAMED_ARRIVE):
            shown = ev.name if node.kind == "CALL_EXPR" else f"'{ev.name}'"
            return Primitive(shown, ALIGNED_NAMED_BARRIER if ev.aligned else NAMED_BARRIER, "warp", 32)
    return None


def classify_asm_warp(node: Node) -> tuple[Primitive, list[Node]] | None:
    """A warp-synchronous inline-PTX statement as the intrinsic it stands for: a warp
    collective named by its opcode, with its arguments (the member-mask operand first, then
    the value operand it exchanges or combines, if any); None for any other statement."""
    from syncheck.analyses import async_ops as A
    if node.kind != "ASM_STMT" or "sync" not in (node.spelling or ""):
        return None
    found = A.asm_warp_collective(node)
    if found is None:
        return None
    opcode, mask, value = found
    prim = Primitive(f"'{opcode}'", WARP_COLLECTIVE, "warp", 32, mask_arg=0, result=Level.THREAD)
    return prim, [mask] + ([value] if value is not None else [])
