"""What the asynchronous and Hopper synchronization operations in a body mean.

One place classifies a statement (an inline-PTX ``asm`` statement or a call) into the
asynchronous events it performs, with their operands: wgmma fence/commit/wait/mma, cp.async
copies and their groups, bulk (TMA) copies, proxy fences, mbarrier init/arrive/expect_tx/wait,
named barriers with their id and thread count, programmatic-dependent-launch control and
cluster barriers. The forms people write are recognized: PTX strings, ``__pipeline_*``
intrinsics, libcu++ (``cuda::barrier``, ``cuda::pipeline``, ``cuda::memcpy_async``,
``cuda::ptx::*``), cooperative groups ``memcpy_async``/``wait``, and the CUTLASS/CuTe
wrappers by name. The SYN5xx rules read events from here and never match names themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from syncheck.ir.calls import call_args, callee_name, member_object
from syncheck.ir.nodes import Node

# Event kinds.
WGMMA_FENCE = "wgmma_fence"        # wgmma.fence: registers/shared ready for wgmma
WGMMA_MMA = "wgmma_mma"            # wgmma.mma_async: a warpgroup collective
COMMIT = "commit"                  # closes a group of a queue
WAIT = "wait"                      # waits until at most `count` groups of a queue are pending
ASYNC_COPY = "async_copy"          # global -> shared through the cp.async path (dst)
BULK_LOAD = "bulk_load"            # cp.async.bulk / TMA global -> shared, completes on mbar
BULK_STORE = "bulk_store"          # cp.async.bulk / TMA shared -> global (reads src by async proxy)
PROXY_FENCE = "proxy_fence"        # fence.proxy.async: generic writes visible to the async proxy
MBAR_INIT = "mbar_init"
MBAR_INIT_FENCE = "mbar_init_fence"  # fence.mbarrier_init
MBAR_ARRIVE = "mbar_arrive"
MBAR_EXPECT_TX = "mbar_expect_tx"
MBAR_WAIT = "mbar_wait"
NAMED_SYNC = "named_sync"          # bar.sync / barrier.sync id, count
NAMED_ARRIVE = "named_arrive"      # bar.arrive id, count
PDL_WAIT = "pdl_wait"              # griddepcontrol.wait / cudaGridDependencySynchronize
PDL_LAUNCH = "pdl_launch"          # griddepcontrol.launch_dependents
CLUSTER_ARRIVE = "cluster_arrive"
CLUSTER_WAIT = "cluster_wait"
CLUSTER_SYNC = "cluster_sync"      # arrive + wait (cluster.sync())
DSM_MAP = "dsm_map"                # mapa / map_shared_rank: an address in another block's smem
DSM_ACCESS = "dsm_access"          # ld/st/atom/red .shared::cluster
OPERAND_FENCE = "operand_fence"    # asm volatile("" : "+f"(x) :: "memory"): keeps the order only

# Queues of committed groups.
Q_CP_ASYNC = "cp.async"
Q_WGMMA = "wgmma"
Q_BULK = "cp.async.bulk"
Q_CG = "cooperative-groups memcpy_async"
Q_PIPELINE = "cuda::pipeline"

WARPGROUP_COLLECTIVES = (WGMMA_FENCE, WGMMA_MMA)


@dataclass
class AsyncEvent:
    kind: str
    node: Node
    name: str                          # as written, for messages
    queue: str = ""
    count: int | None = None           # wait_group N, init count, bar.sync thread count, arrive count
    bar_id: int | None = None
    bar_node: Node | None = None       # the operand that names a named barrier's id
    bytes: int | None = None           # copy size or expect_tx bytes
    parity: int | None = None
    parity_node: Node | None = None
    dst: Node | None = None
    src: Node | None = None
    mbar: Node | None = None
    operands: list[Node] = field(default_factory=list)  # wgmma accumulators (outputs)
    inputs: list[Node] = field(default_factory=list)    # wgmma descriptors / register operands
    aligned: bool = False
    implicit_commit: bool = False      # the copy is a group by itself (cg::memcpy_async)
    remote: bool = False               # addresses another block of the cluster
    managed: bool = False              # a library copy (cuda::memcpy_async) that fences its barrier itself
    offset_id: bool = False            # a wrapper's barrier id (CUTLASS adds its reserved barriers)


ConstOf = Callable[[Node], "int | None"]


def _literal_const(node: Node) -> int | None:
    n = node
    while n.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR",
                     "CXX_FUNCTIONAL_CAST_EXPR") and n.children:
        n = n.children[-1]
    if n.kind == "INTEGER_LITERAL" and isinstance(n.value, int):
        return n.value
    if n.decl is not None and isinstance(n.decl.value, int) and n.kind == "DECL_REF_EXPR":
        return n.decl.value
    return None


# -- inline PTX -----------------------------------------------------------------------

_OPERAND = re.compile(r"%(\d+)")
# (`%=` is inline asm's unique number: labels of a loop written in one asm statement)
_LABEL = re.compile(r"^[A-Za-z_$][\w$]*(?:%=)?:\s*")


def _instructions(template: str) -> list[tuple[str, list[str]]]:
    out = []
    for raw in re.split(r";|\n", template):
        s = raw.strip()
        while s.startswith("{") or s.startswith("}"):
            s = s[1:].strip()
        s = _LABEL.sub("", s)
        if s.startswith("@"):
            s = s.split(None, 1)[1] if " " in s else ""
        if not s or s.startswith(".reg") or s.startswith("//") or s.startswith("}"):
            continue
        parts = s.split(None, 1)
        opcode = parts[0]
        args = _split_args(parts[1]) if len(parts) > 1 else []
        out.append((opcode, args))
    return out


def _split_args(text: str) -> list[str]:
    args, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        args.append(cur.strip().rstrip("}").strip())
    return args


class _Operands:
    def __init__(self, node: Node, const_of: ConstOf | None):
        self.children = node.children
        self.constraints = node.type.split("\x1f") if node.type else []
        self.const_of = const_of

    def node(self, arg: str | None) -> Node | None:
        if arg is None:
            return None
        m = _OPERAND.search(arg)
        if m and int(m.group(1)) < len(self.children):
            return self.children[int(m.group(1))]
        return None

    def const(self, arg: str | None) -> int | None:
        if arg is None:
            return None
        a = arg.strip().strip("[]").strip()
        if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", a):
            return int(a, 0)
        n = self.node(a)
        if n is None:
            return None
        value = _literal_const(n)
        if value is None and self.const_of is not None:
            value = self.const_of(n)
        return value if isinstance(value, int) else None

    def outputs(self) -> list[Node]:
        return [c for c, k in zip(self.children, self.constraints) if k.startswith(("=", "+"))]

    def inputs(self) -> list[Node]:
        return [c for c, k in zip(self.children, self.constraints) if not k.startswith(("=", "+"))]


def _arg(args: list[str], i: int) -> str | None:
    return args[i] if i < len(args) else None


def asm_events(node: Node, const_of: ConstOf | None = None) -> list[AsyncEvent]:
    template = node.spelling or ""
    ops = _Operands(node, const_of)
    if not template.strip():
        return [AsyncEvent(OPERAND_FENCE, node, "asm operand fence", operands=ops.outputs())] \
            if ops.outputs() else []
    events: list[AsyncEvent] = []
    for opcode, args in _instructions(template):
        ev = _ptx_event(node, opcode, args, ops)
        if ev is not None:
            events.extend(ev if isinstance(ev, list) else [ev])
    return events


def asm_warp_collective(node: Node) -> tuple[str, Node, Node | None] | None:
    """The first warp-synchronous instruction of an inline-PTX statement whose member mask
    is one of the statement's operands (`shfl.sync.up.b32 r|p, %1, %2, %3, %4;`, `vote.sync`,
    `match.*.sync`, `redux.sync`, `bar.warp.sync`, `elect.sync`): (its opcode, the mask operand, the value
    operand it exchanges or combines, if any). None otherwise (a mask written as a literal
    in the text names no operand)."""
    ops = _Operands(node, None)
    for opcode, args in _instructions(node.spelling or ""):
        parts = opcode.split(".")
        if "sync" not in parts:
            continue
        if parts[0] == "shfl" and len(args) == 5:   # d[|p], a, b, c, membermask
            mask, value = args[4], args[1]
        elif parts[0] in ("match", "redux") and len(args) == 3:   # d, a, membermask
            mask, value = args[2], args[1]
        elif parts[0] == "vote" and len(args) >= 3:   # d, {!}p, membermask
            mask, value = args[-1], None
        elif parts[:2] == ["bar", "warp"] and len(args) == 1:
            mask, value = args[0], None
        elif parts[0] == "elect" and len(args) == 2:   # d|p, membermask: one lane of the mask
            mask, value = args[1], None
        else:
            continue
        mask_node = ops.node(mask) if _OPERAND.fullmatch(mask.strip()) else None
        if mask_node is not None:
            value_node = ops.node(value) if value is not None and _OPERAND.fullmatch(value.strip()) else None
            return opcode, mask_node, value_node
    return None


def _ptx_event(node: Node, op: str, args: list[str], ops: _Operands):
    E = lambda kind, name=op, **kw: AsyncEvent(kind, node, name, **kw)  # noqa: E731  (the op as written)
    if op.startswith("wgmma.fence"):
        return E(WGMMA_FENCE, aligned=True)
    if op.startswith("wgmma.commit_group"):
        return E(COMMIT, queue=Q_WGMMA, aligned=True)
    if op.startswith("wgmma.wait_group"):
        return E(WAIT, queue=Q_WGMMA, count=ops.const(_arg(args, 0)), aligned=True)
    if op.startswith("wgmma.mma_async"):
        return E(WGMMA_MMA, queue=Q_WGMMA, operands=ops.outputs(), inputs=ops.inputs(), aligned=True)
    if op.startswith("fence.proxy.async"):
        return E(PROXY_FENCE)
    if op.startswith("fence.mbarrier_init"):
        return E(MBAR_INIT_FENCE)
    if op.startswith("cp.async.bulk.commit_group"):
        return E(COMMIT, queue=Q_BULK)
    if op.startswith("cp.async.bulk.wait_group"):
        return E(WAIT, queue=Q_BULK, count=ops.const(_arg(args, 0)))
    if op.startswith("cp.async.bulk.prefetch"):
        return None
    if op.startswith("cp.reduce.async.bulk"):
        # a reduction into global (or another block's shared) memory reads its shared source
        # by the async proxy just as a bulk store does, with the same operands and completion
        op = "cp.async.bulk" + op[len("cp.reduce.async.bulk"):]
    if op.startswith("cp.async.bulk"):
        tensor = ".tensor" in op
        if ".global.shared::c" in op or ".shared::cluster.shared::cta" in op:
            # shared -> global (or to another block's shared memory): the source is read
            # by the async proxy; completion through a bulk group (or an mbarrier).
            src = _arg(args, 1)
            remote = ".shared::cluster.shared::cta" in op
            return E(BULK_STORE, queue=Q_BULK, src=ops.node(src), dst=ops.node(_arg(args, 0)),
                     bytes=None if tensor else ops.const(_arg(args, 2)), remote=remote,
                     mbar=ops.node(_arg(args, 3)) if remote else None)
        if ".shared::cluster.global" in op or ".shared::cta.global" in op:
            mbar_i = 2 if tensor else 3
            return E(BULK_LOAD, dst=ops.node(_arg(args, 0)), src=ops.node(_arg(args, 1)),
                     mbar=ops.node(_arg(args, mbar_i)),
                     bytes=None if tensor else ops.const(_arg(args, 2)))
        return None
    if op.startswith("cp.async.commit_group"):
        return E(COMMIT, queue=Q_CP_ASYNC)
    if op.startswith("cp.async.wait_group"):
        return E(WAIT, queue=Q_CP_ASYNC, count=ops.const(_arg(args, 0)))
    if op.startswith("cp.async.wait_all"):
        return [E(COMMIT, queue=Q_CP_ASYNC), E(WAIT, queue=Q_CP_ASYNC, count=0)]
    if op.startswith("cp.async.mbarrier.arrive"):
        return E(MBAR_ARRIVE, mbar=ops.node(_arg(args, 0)))
    if op.startswith("cp.async.ca") or op.startswith("cp.async.cg"):
        return E(ASYNC_COPY, queue=Q_CP_ASYNC, dst=ops.node(_arg(args, 0)),
                 src=ops.node(_arg(args, 1)), bytes=ops.const(_arg(args, 2)))
    if op.startswith("mbarrier.init"):
        return E(MBAR_INIT, mbar=ops.node(_arg(args, 0)), count=ops.const(_arg(args, 1)))
    if op.startswith("mbarrier.arrive.expect_tx") or op.startswith("mbarrier.arrive_expect_tx"):
        # mbarrier.arrive.expect_tx.shared.b64 state, [addr], tx
        i = 1 if len(args) >= 3 and "[" not in args[0] else 0
        return E(MBAR_EXPECT_TX, mbar=ops.node(_arg(args, i)), bytes=ops.const(_arg(args, i + 1)),
                 count=1, remote=".shared::cluster" in op)
    if op.startswith("mbarrier.expect_tx"):
        return E(MBAR_EXPECT_TX, mbar=ops.node(_arg(args, 0)), bytes=ops.const(_arg(args, 1)), count=0)
    if op.startswith("mbarrier.arrive"):
        i = 1 if args and "[" not in args[0] else 0
        count = ops.const(_arg(args, i + 1)) if len(args) > i + 1 else 1
        return E(MBAR_ARRIVE, mbar=ops.node(_arg(args, i)), count=count,
                 remote=".shared::cluster" in op)
    if op.startswith(("mbarrier.try_wait", "mbarrier.test_wait")):
        parity = ".parity" in op
        parity_arg = _arg(args, 2)
        return E(MBAR_WAIT, mbar=ops.node(_arg(args, 1)),
                 parity=ops.const(parity_arg) if parity else None,
                 parity_node=ops.node(parity_arg) if parity else None)
    if op.startswith(("bar.sync", "barrier.sync", "barrier.cta.sync", "bar.red", "barrier.red",
                      "bar.cta.sync", "barrier.cta.red")):
        red = ".red" in op
        first = 1 if red else 0
        aligned = op.startswith("bar.") or ".aligned" in op
        return E(NAMED_SYNC, bar_id=ops.const(_arg(args, first)), bar_node=ops.node(_arg(args, first)),
                 count=ops.const(_arg(args, first + 1)) if len(args) > first + 1 and not red else None,
                 aligned=aligned)
    if op.startswith(("bar.arrive", "barrier.arrive", "barrier.cta.arrive", "bar.cta.arrive")):
        return E(NAMED_ARRIVE, bar_id=ops.const(_arg(args, 0)), bar_node=ops.node(_arg(args, 0)),
                 count=ops.const(_arg(args, 1)), aligned=op.startswith("bar.") or ".aligned" in op)
    if op.startswith("griddepcontrol.wait"):
        return E(PDL_WAIT)
    if op.startswith("griddepcontrol.launch_dependents"):
        return E(PDL_LAUNCH)
    if op.startswith("barrier.cluster.arrive"):
        return E(CLUSTER_ARRIVE, aligned=".aligned" in op)
    if op.startswith("barrier.cluster.wait"):
        return E(CLUSTER_WAIT, aligned=".aligned" in op)
    if op.startswith("mapa"):
        return E(DSM_MAP, dst=ops.node(_arg(args, 0)), src=ops.node(_arg(args, 1)))
    if re.match(r"(ld|st|atom|red|multimem)\..*shared::cluster", op):
        return E(DSM_ACCESS, remote=True)
    return None


# -- calls ----------------------------------------------------------------------------

_TEMPLATE_INT = re.compile(r"<\s*(\d+)\s*>")

# CUTLASS/CuTe and CUDA runtime wrappers: name -> kind (queue)
_WRAPPERS = {
    "warpgroup_arrive": (WGMMA_FENCE, ""),
    "warpgroup_fence": (WGMMA_FENCE, ""),
    "wgmma_fence": (WGMMA_FENCE, ""),
    "warpgroup_commit_batch": (COMMIT, Q_WGMMA),
    "wgmma_commit_group": (COMMIT, Q_WGMMA),
    "warpgroup_wait": (WAIT, Q_WGMMA),
    "wgmma_wait_group": (WAIT, Q_WGMMA),
    "fence_view_async_shared": (PROXY_FENCE, ""),
    "fence_proxy_async": (PROXY_FENCE, ""),
    "tma_store_fence": (PROXY_FENCE, ""),
    "fence_barrier_init": (MBAR_INIT_FENCE, ""),
    "fence_mbarrier_init": (MBAR_INIT_FENCE, ""),
    "cudaGridDependencySynchronize": (PDL_WAIT, ""),
    "griddepcontrol_wait": (PDL_WAIT, ""),
    "wait_on_dependent_grids": (PDL_WAIT, ""),
    "cudaTriggerProgrammaticLaunchCompletion": (PDL_LAUNCH, ""),
    "griddepcontrol_launch_dependents": (PDL_LAUNCH, ""),
    "launch_dependent_grids": (PDL_LAUNCH, ""),
    "__pipeline_commit": (COMMIT, Q_CP_ASYNC),
    "cp_async_fence": (COMMIT, Q_CP_ASYNC),
    "cp_async_wait": (WAIT, Q_CP_ASYNC),
    "__pipeline_wait_prior": (WAIT, Q_CP_ASYNC),
    "cluster_arrive": (CLUSTER_ARRIVE, ""),
    "cluster_arrive_relaxed": (CLUSTER_ARRIVE, ""),
    "cluster_wait": (CLUSTER_WAIT, ""),
    "cluster_sync": (CLUSTER_SYNC, ""),
    "barrier_cluster_arrive": (CLUSTER_ARRIVE, ""),
    "barrier_cluster_wait": (CLUSTER_WAIT, ""),
    "tma_store_arrive": (COMMIT, Q_BULK),
    "tma_store_wait": (WAIT, Q_BULK),
    "cp_async_bulk_commit_group": (COMMIT, Q_BULK),
    "cp_async_bulk_wait_group": (WAIT, Q_BULK),
    "cp_async_bulk_wait_group_read": (WAIT, Q_BULK),
}
_BARRIER_TYPES = ("ClusterBarrier", "ClusterTransactionBarrier", "cuda::barrier", "barrier<",
                  "NamedBarrier")


def call_events(call: Node, text_of: Callable[[Node], str] | None = None,
                const_of: ConstOf | None = None) -> list[AsyncEvent]:
    name = callee_name(call)
    if not name:
        return []
    decl = call.decl
    qualified = decl.qualified if decl is not None else ""
    args = call_args(call)

    def const(i: int) -> int | None:
        if i >= len(args):
            return None
        v = _literal_const(args[i])
        if v is None and const_of is not None:
            v = const_of(args[i])
        return v if isinstance(v, int) else None

    def template_int() -> int | None:
        text = text_of(call) if text_of is not None else ""
        m = _TEMPLATE_INT.search(text.split("(")[0]) if text else None
        return int(m.group(1)) if m else None

    E = lambda kind, **kw: [AsyncEvent(kind, call, name, **kw)]  # noqa: E731
    obj = member_object(call)
    obj_type = (obj.type if obj is not None else "") + " " + qualified
    if name in _WRAPPERS:
        kind, queue = _WRAPPERS[name]
        count = None
        if kind == WAIT:
            count = template_int()
            if count is None:
                count = const(0)
            if count is None and name in ("cp_async_bulk_wait_group", "tma_store_wait"):
                count = None
        aligned = kind in (WGMMA_FENCE,) or queue == Q_WGMMA
        return E(kind, queue=queue, count=count, aligned=aligned)
    if name == "__pipeline_memcpy_async":
        return E(ASYNC_COPY, queue=Q_CP_ASYNC, dst=args[0] if args else None,
                 src=args[1] if len(args) > 1 else None, bytes=const(2))
    if name == "memcpy_async":
        # cuda::memcpy_async([group,] dst, src, size, barrier|pipeline) and
        # cooperative_groups::memcpy_async(group, dst, src, size)
        if qualified.startswith("cooperative_groups") or (args and "group" in args[0].type
                                                            and "pipeline" not in args[-1].type
                                                            and "barrier" not in args[-1].type):
            dst = args[1] if len(args) > 1 else None
            return E(ASYNC_COPY, queue=Q_CG, dst=dst, bytes=const(3), implicit_commit=True)
        offset = 1 if args and ("group" in args[0].type or "thread_block" in args[0].type) else 0
        last = args[-1] if args else None
        if last is not None and "pipeline" in last.type:
            return E(ASYNC_COPY, queue=Q_PIPELINE, dst=args[offset] if len(args) > offset else None)
        return E(BULK_LOAD, dst=args[offset] if len(args) > offset else None, mbar=last, managed=True)
    if name in ("wait", "wait_prior") and (qualified.startswith("cooperative_groups") or
                                           (args and "group" in args[0].type) or
                                           (args and "thread_block" in args[0].type)):
        count = 0 if name == "wait" else template_int()
        return E(WAIT, queue=Q_CG, count=count)
    if name == "pipeline_consumer_wait_prior" and args and "pipeline" in args[0].type:
        # cuda::pipeline_consumer_wait_prior<N>(pipe): all but the N newest committed stages
        return E(WAIT, queue=Q_PIPELINE, count=template_int())
    if obj is not None and "pipeline" in obj_type:
        if name == "producer_commit":
            return E(COMMIT, queue=Q_PIPELINE)
        if name in ("consumer_wait", "consumer_wait_for", "consumer_wait_until"):
            return E(WAIT, queue=Q_PIPELINE, count=0)
        return []
    if obj is not None and "cluster_group" in obj_type:
        if name == "sync":
            return E(CLUSTER_SYNC)
        if name == "barrier_arrive":
            return E(CLUSTER_ARRIVE)
        if name == "barrier_wait":
            return E(CLUSTER_WAIT)
        if name == "map_shared_rank":
            return E(DSM_MAP, src=args[0] if args else None)
        return []
    if name == "init" and args and ("barrier" in args[0].type or "Barrier" in args[0].type):
        return E(MBAR_INIT, mbar=args[0], count=const(1))
    if any(t in obj_type for t in _BARRIER_TYPES):
        if "NamedBarrier" in obj_type:
            if name in ("sync", "arrive_and_wait"):
                return E(NAMED_SYNC, count=const(0), bar_id=const(1), aligned=True, offset_id=True)
            if name == "arrive":
                return E(NAMED_ARRIVE, count=const(0), bar_id=const(1), aligned=True, offset_id=True)
            return []
        if name == "init":
            return E(MBAR_INIT, mbar=obj, count=const(0) if len(args) == 1 else const(1))
        if name in ("arrive_and_expect_tx", "expect_transaction", "arrive_and_reset_bytes"):
            return E(MBAR_EXPECT_TX, mbar=obj, bytes=const(0), count=1 if "arrive" in name else 0)
        if name == "arrive":
            return E(MBAR_ARRIVE, mbar=obj, count=1, remote=len(args) >= 2)
        if name in ("wait", "try_wait", "test_wait", "wait_parity", "try_wait_parity"):
            return E(MBAR_WAIT, mbar=obj, parity=const(0), parity_node=args[0] if args else None)
        if name == "arrive_and_wait":
            return E(MBAR_ARRIVE, mbar=obj, count=1) + E(MBAR_WAIT, mbar=obj)
        return []
    if qualified.startswith("cuda::ptx") or qualified.startswith("cuda::__4::ptx"):
        return _ptx_namespace(call, name, args, const)
    return []


def _ptx_namespace(call: Node, name: str, args: list[Node], const) -> list[AsyncEvent]:
    E = lambda kind, **kw: [AsyncEvent(kind, call, f"cuda::ptx::{name}", **kw)]  # noqa: E731
    if name == "fence_proxy_async":
        return E(PROXY_FENCE)
    if name == "fence_mbarrier_init":
        return E(MBAR_INIT_FENCE)
    if name == "mbarrier_init":
        return E(MBAR_INIT, mbar=args[0] if args else None, count=const(1))
    if name == "mbarrier_arrive_expect_tx":
        return E(MBAR_EXPECT_TX, mbar=args[-2] if len(args) >= 2 else None, bytes=const(len(args) - 1), count=1)
    if name == "mbarrier_arrive":
        return E(MBAR_ARRIVE, mbar=args[-1] if args else None, count=1)
    if name in ("mbarrier_try_wait_parity", "mbarrier_test_wait_parity", "mbarrier_try_wait"):
        return E(MBAR_WAIT, mbar=args[0] if args else None, parity_node=args[1] if len(args) > 1 else None,
                 parity=const(1))
    if name in ("cp_async_bulk", "cp_async_bulk_tensor"):
        return E(BULK_LOAD)  # operand order depends on the overload: completion only
    if name == "cp_async_bulk_commit_group":
        return E(COMMIT, queue=Q_BULK)
    if name in ("cp_async_bulk_wait_group", "cp_async_bulk_wait_group_read"):
        return E(WAIT, queue=Q_BULK, count=None)
    return []


def events_of(node: Node, text_of=None, const_of: ConstOf | None = None) -> list[AsyncEvent]:
    """The asynchronous events a statement or call performs (empty for anything else)."""
    if node.kind == "ASM_STMT":
        return asm_events(node, const_of)
    if node.kind == "CALL_EXPR":
        return call_events(node, text_of, const_of)
    return []


def shared_base(expr: Node | None, defs: dict[str, Node] | None = None, depth: int = 0):
    """The __shared__ variable an address expression points into, following local variables
    through their initializers (``uint32_t a = __cvta_generic_to_shared(&s[i])``)."""
    if expr is None or depth > 6:
        return None
    for n in expr.walk():
        if n.kind == "DECL_REF_EXPR" and n.decl is not None:
            if n.decl.storage == "shared":
                return n.decl
            if n.decl.storage == "local" and defs is not None and n.decl.key in defs:
                found = shared_base(defs[n.decl.key], defs, depth + 1)
                if found is not None:
                    return found
    return None


def local_definitions(body: Node) -> dict[str, Node]:
    """Each local variable's initializer (or its only assigned value), for shared_base."""
    defs: dict[str, Node] = {}
    counts: dict[str, int] = {}
    for n in body.walk():
        if n.kind == "VAR_DECL" and n.decl is not None and n.children:
            defs[n.decl.key] = n.children[-1]
            counts[n.decl.key] = counts.get(n.decl.key, 0) + 1
        elif n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2:
            lhs = n.children[0]
            if lhs.kind == "DECL_REF_EXPR" and lhs.decl is not None and lhs.decl.storage == "local":
                defs.setdefault(lhs.decl.key, n.children[1])
    return defs
