"""Shared-memory accesses of a kernel, with their indices, guards and barrier intervals.

Accesses through the array itself, through a local pointer that aliases it
(``volatile float* v = sdata;``) and through device functions that receive it as an
argument (inlined here, parameters replaced by the caller's arguments) are collected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from syncheck.analyses import primitives as P
from syncheck.analyses.barrier_intervals import BarrierIntervals
from syncheck.analyses.uniformity import FunctionAnalysis, UniformityService
from syncheck.ir.calls import call_args
from syncheck.ir.nodes import Node
from syncheck.ir.program import Function, Program

_ASSIGN = {"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="}
_WRAPPERS = ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR",
             "CXX_REINTERPRET_CAST_EXPR", "CXX_CONST_CAST_EXPR")


@dataclass(frozen=True)
class Guard:
    cond: Node
    polarity: bool | None
    level: int           # uniformity level of the condition
    scope: "Scope"


@dataclass
class Scope:
    """Where names in an expression resolve: a function context and argument bindings."""

    analysis: FunctionAnalysis
    bindings: dict[str, tuple[Node, "Scope"]] = field(default_factory=dict)
    single_defs: dict[str, Node] = field(default_factory=dict)
    multi_defs: set[str] = field(default_factory=set)
    pointer_alias: dict[str, tuple[str, Node | None, "Scope"]] = field(default_factory=dict)
    # Loop counters: var -> (initial value, "+" | "-" | ">>" | "<<", constant step, line of
    # the update: counters updated on one line, as in 'k += R, i += R', advance together)
    inductions: dict[str, tuple[Node, str, int, int]] = field(default_factory=dict)

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other) -> bool:
        return self is other


@dataclass
class Access:
    array: str            # declaration key of the shared array
    name: str
    node: Node            # the outermost subscript
    indices: list[tuple[Node, Scope]]   # outermost dimension first
    offset: tuple[Node, Scope] | None   # added to the first index (pointer aliases)
    read: bool
    write: bool
    point: tuple[int, int]  # (block, item) in the kernel's CFG
    guards: list[Guard]
    scope: Scope
    value_level: int = 0   # level of the stored value, for writes
    extents: list[int | None] = field(default_factory=list)  # array size per dimension
    function: Function | None = None
    instance: int | None = None              # the inlined call it is in, if any
    local_point: tuple[int, int] | None = None  # (block, item) in that callee's CFG

    @property
    def line(self) -> int:
        return self.node.line


def _strip(n: Node) -> Node:
    while n.kind in _WRAPPERS and n.children:
        n = n.children[-1]
    return n


def _inductions(fn: Function, single_init: dict[str, Node]) -> dict[str, tuple[Node, str, int, int]]:
    """Variables with one initial value and one constant-step update (i += 4, s >>= 1)."""
    updates: dict[str, list[tuple[str, int | None]]] = {}
    for n in fn.body.walk():
        op = None
        step = None
        target = None
        if n.kind == "COMPOUND_ASSIGNMENT_OPERATOR" and n.op in ("+=", "-=", ">>=", "<<=", "*=", "/=") \
                and len(n.children) == 2:
            target, op = _strip(n.children[0]), n.op[:-1]
            rhs = _strip(n.children[1])
            step = rhs.value if rhs.kind == "INTEGER_LITERAL" and isinstance(rhs.value, int) else None
            if op in ("*", "/"):
                if step is not None and step > 0 and step & (step - 1) == 0:
                    op, step = ("<<" if op == "*" else ">>"), step.bit_length() - 1
                else:
                    step = None
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--") and n.children:
            target, op, step = _strip(n.children[0]), "+" if "+" in n.op else "-", 1
        elif n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2:
            target = _strip(n.children[0])
            op, step = "=", None
        if target is not None and target.kind == "DECL_REF_EXPR" and target.decl is not None:
            updates.setdefault(target.decl.key, []).append((op, step, n.line))
    out = {}
    for key, ups in updates.items():
        if len(ups) == 1 and ups[0][1] is not None and ups[0][0] != "=" and key in single_init:
            out[key] = (single_init[key], ups[0][0], ups[0][1], ups[0][2])
    return out


def _extents(type_spelling: str) -> list[int | None]:
    import re
    return [int(m) if m else None for m in re.findall(r"\[(\d*)\]", type_spelling)]


def _definitions(fn: Function) -> tuple[dict[str, Node], set[str]]:
    """Locals assigned exactly once (at their declaration) and those assigned more often."""
    counts: dict[str, int] = {}
    init: dict[str, Node] = {}
    for n in fn.body.walk():
        if n.kind == "VAR_DECL" and n.decl is not None:
            counts[n.decl.key] = counts.get(n.decl.key, 0) + 1
            if n.children and "[" not in n.type:
                init[n.decl.key] = n.children[-1]
        elif n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN \
                and n.children:
            t = _strip(n.children[0])
            if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                counts[t.decl.key] = counts.get(t.decl.key, 0) + 2
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children:
            t = _strip(n.children[0])
            if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                counts[t.decl.key] = counts.get(t.decl.key, 0) + 2
    for p in fn.params:
        counts[p.key] = counts.get(p.key, 0) + 1
    single = {k: v for k, v in init.items() if counts.get(k) == 1}
    multi = {k for k, c in counts.items() if c > 1}
    return single, multi, init


class KernelAccesses:
    """All shared accesses of one kernel, and its barrier intervals."""

    def __init__(self, program: Program, service: UniformityService, kernel: Function):
        self.program = program
        self.service = service
        self.kernel = kernel
        self.analysis = service.analyze(kernel)
        cfg, live, _ = service.cfg_of(kernel)
        self.cfg, self.live = cfg, live
        self.accesses: list[Access] = []
        # inlined calls: instance id -> (callee block intervals, callee warp intervals)
        self.instances: dict[int, tuple[BarrierIntervals, BarrierIntervals]] = {}
        self.uses_y, self.uses_z = _uses_dimensions(program, kernel)
        self.launch_block_dim = _launch_block_dim(program, kernel)
        self.unknown_barrier_calls = False
        self.block_intervals = BarrierIntervals(cfg, live, lambda item: self._barrier(item, warp=False))
        self.warp_intervals = BarrierIntervals(cfg, live, lambda item: self._barrier(item, warp=True))
        root = self._scope(kernel, self.analysis, {})
        for b in sorted(live):
            controllers = self.analysis.block_controllers.get(b, ())
            guards = [Guard(c.cond, c.polarity, int(c.level), root) for c in controllers]
            for i, item in enumerate(cfg.blocks[b].items):
                self._collect(item, (b, i), guards, root, depth=0, instance=None, local=None)

    def _scope(self, fn: Function, analysis: FunctionAnalysis, bindings) -> Scope:
        single, multi, init = _definitions(fn)
        scope = Scope(analysis, bindings, single, multi)
        scope.inductions = _inductions(fn, init)
        for key, init in single.items():
            base = _strip(init)
            if base.kind == "UNARY_OPERATOR" and base.op == "&" and base.children:
                inner = _strip(base.children[0])
                if inner.kind == "ARRAY_SUBSCRIPT_EXPR" and len(inner.children) == 2:
                    arr = self._shared_base(_strip(inner.children[0]), scope)
                    if arr is not None:
                        scope.pointer_alias[key] = (arr[0], inner.children[1], scope)
                continue
            arr = self._shared_base(base, scope)
            if arr is not None:
                scope.pointer_alias[key] = (arr[0], None, scope)
        return scope

    # -- barriers --
    def _barrier(self, item: Node, warp: bool) -> bool:
        for n in item.walk():
            if n.kind != "CALL_EXPR":
                continue
            prim = P.classify(n)
            if prim is not None:
                if prim.category in (P.BLOCK_BARRIER, P.GRID_SYNC):
                    return True
                if warp and prim.category == P.TILE_SYNC and (prim.tile_size or 32) >= 32:
                    return True
                continue
            callee = self.program.resolve_call(n.decl)
            if callee is not None and callee.body is not None and self._contains_barrier(callee, warp, set()):
                return True
        return False

    def _contains_barrier(self, fn: Function, warp: bool, seen: set[str]) -> bool:
        if fn.key in seen:
            return False
        seen.add(fn.key)
        for n in fn.body.walk():
            if n.kind == "CALL_EXPR":
                prim = P.classify(n)
                if prim is not None and (prim.category in (P.BLOCK_BARRIER, P.GRID_SYNC) or (
                        warp and prim.category == P.TILE_SYNC)):
                    return True
                callee = self.program.resolve_call(n.decl)
                if callee is not None and callee.body is not None and \
                        self._contains_barrier(callee, warp, seen):
                    return True
        return False

    # -- accesses --
    def _shared_base(self, node: Node, scope: Scope) -> tuple[str, str] | None:
        node = _strip(node)
        if node.kind != "DECL_REF_EXPR" or node.decl is None:
            return None
        d = node.decl
        if d.storage == "shared":
            return d.key, d.name
        if d.key in scope.pointer_alias:
            key = scope.pointer_alias[d.key][0]
            return key, d.name
        if d.key in scope.bindings:
            arg, arg_scope = scope.bindings[d.key]
            return self._shared_base(arg, arg_scope)
        return None

    def _collect(self, item: Node, point, guards: list[Guard], scope: Scope, depth: int,
                 instance: int | None, local: tuple[int, int] | None) -> None:
        stack: list[tuple[Node, str, list[Guard], int]] = [(item, "read", guards, 0)]
        while stack:
            node, mode, gs, stored = stack.pop()
            kind = node.kind
            if kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage == "shared" \
                    and "[" not in node.decl.type and mode in ("read", "write", "update"):
                self._add(Access(array=node.decl.key, name=node.decl.name, node=node, indices=[],
                                 offset=None, read=mode in ("read", "update"),
                                 write=mode in ("write", "update"), point=point, guards=list(gs),
                                 scope=scope, value_level=stored,
                                 function=scope.analysis.function), instance, local)
                continue
            if kind == "ARRAY_SUBSCRIPT_EXPR" and self._record(node, mode, point, gs, scope, stored,
                                                                instance, local):
                # index expressions are reads of their own
                for idx in self._index_nodes(node):
                    stack.append((idx, "read", gs, 0))
                continue
            if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and node.op in _ASSIGN \
                    and len(node.children) == 2:
                lhs_mode = "write" if node.op == "=" else "update"
                rhs = node.children[1]
                level = int(scope.analysis.values.get(rhs.id, _U).level) if node.op == "=" else 7
                stack.append((rhs, "read", gs, 0))
                stack.append((node.children[0], lhs_mode, gs, level))
                continue
            if kind == "UNARY_OPERATOR" and node.op in ("++", "--", "post++", "post--") and node.children:
                stack.append((node.children[0], "update", gs, 7))
                continue
            if kind == "UNARY_OPERATOR" and node.op == "&":
                continue  # taking an address is not an access
            if kind == "CONDITIONAL_OPERATOR" and len(node.children) == 3:
                c, a, b = node.children
                stack.append((c, "read", gs, 0))
                level = int(scope.analysis.values.get(c.id, _U).level)
                stack.append((a, mode, gs + [Guard(c, True, level, scope)], stored))
                stack.append((b, mode, gs + [Guard(c, False, level, scope)], stored))
                continue
            if kind == "BINARY_OPERATOR" and node.op in ("&&", "||") and len(node.children) == 2:
                lhs, rhs = node.children
                level = int(scope.analysis.values.get(lhs.id, _U).level)
                stack.append((lhs, "read", gs, 0))
                stack.append((rhs, "read", gs + [Guard(lhs, node.op == "&&", level, scope)], 0))
                continue
            if kind == "CALL_EXPR" and depth < 4:
                self._inline_call(node, point, gs, scope, depth, instance, local)
            if kind == "LAMBDA_EXPR":
                continue
            for c in node.children:
                keep = mode in ("write", "update") and kind in _WRAPPERS
                stack.append((c, mode if keep or mode == "read" else "read", gs, stored))

    def _index_nodes(self, node: Node) -> list[Node]:
        out = []
        while node.kind == "ARRAY_SUBSCRIPT_EXPR" and len(node.children) == 2:
            out.append(node.children[1])
            node = _strip(node.children[0])
        return out

    def _add(self, access: Access, instance, local) -> None:
        access.instance, access.local_point = instance, local
        self.accesses.append(access)

    def _record(self, node: Node, mode: str, point, guards, scope: Scope, stored: int,
                instance, local) -> bool:
        indices = []
        cur = node
        while cur.kind == "ARRAY_SUBSCRIPT_EXPR" and len(cur.children) == 2:
            indices.append((cur.children[1], scope))
            cur = _strip(cur.children[0])
        base = self._shared_base(cur, scope)
        if base is None:
            return False
        offset = None
        d = cur.decl
        if d is not None and d.key in scope.pointer_alias:
            _, off, off_scope = scope.pointer_alias[d.key]
            offset = (off, off_scope) if off is not None else None
        elif d is not None and d.key in scope.bindings:
            offset = None
        indices.reverse()
        extents = _extents(cur.decl.type) if cur.decl is not None and cur.decl.storage == "shared" else []
        if offset is not None or len(extents) != len(indices):
            extents = [None] * len(indices)
        self._add(Access(
            array=base[0], name=base[1], node=node, indices=indices, offset=offset,
            read=mode in ("read", "update"), write=mode in ("write", "update"), point=point,
            guards=list(guards), scope=scope, value_level=stored,
            function=scope.analysis.function, extents=extents), instance, local)
        return True

    def _inline_call(self, call: Node, point, guards, scope: Scope, depth: int,
                     instance: int | None, local) -> None:
        callee = self.program.resolve_call(call.decl)
        if callee is None or callee.body is None or callee.is_lambda:
            return
        args = call_args(call)
        passes_shared = any(self._shared_base(a, scope) is not None for a in args)
        if not passes_shared:
            return
        if self._contains_barrier(callee, warp=False, seen=set()):
            self.unknown_barrier_calls = True
            return
        if instance is not None and self._contains_barrier(callee, warp=True, seen=set()):
            return  # a nested callee's own __syncwarp() points are not tracked: stay silent
        arg_values = tuple(scope.analysis.values.get(a.id, _U) for a in args)
        sub = self.service.analyze(callee, arg_values[:len(callee.params)] + tuple(
            _U for _ in callee.params[len(arg_values):]))
        bindings = {p.key: (a, scope) for p, a in zip(callee.params, args)}
        sub_scope = self._scope(callee, sub, bindings)
        cfg, live, _ = self.service.cfg_of(callee)
        if instance is None:  # nested calls share their outermost call's instance
            instance = len(self.instances)
            self.instances[instance] = (
                BarrierIntervals(cfg, live, lambda item: self._barrier(item, warp=False)),
                BarrierIntervals(cfg, live, lambda item: self._barrier(item, warp=True)))
            nested = False
        else:
            nested = True
        for b in sorted(live):
            sub_guards = [Guard(c.cond, c.polarity, int(c.level), sub_scope)
                          for c in sub.block_controllers.get(b, ())]
            for i, item in enumerate(cfg.blocks[b].items):
                self._collect(item, point, guards + sub_guards, sub_scope, depth + 1, instance,
                              local if nested else (b, i))


def _launch_block_dim(program: Program, kernel: Function) -> tuple[int, int, int] | None:
    """The block shape every launch of the kernel in this file uses, when it is constant."""
    from syncheck.analyses.host_values import HostValues
    shapes = set()
    for launch in program.launches:
        if launch.kernel_key != kernel.key:
            continue
        block = None
        if launch.api == "<<<>>>" and len(launch.config) > 1:
            block = launch.config[1]
        elif launch.api in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel") and len(launch.args) > 2:
            block = launch.args[2]
        if block is None:
            return None
        hv = HostValues(program, program.functions[launch.host_function])
        dims = hv.dim3(block)
        if dims is None:
            return None
        shapes.add(dims)
    return shapes.pop() if len(shapes) == 1 else None


def _uses_dimensions(program: Program, kernel: Function) -> tuple[bool, bool]:
    """Does the kernel (or a device function it calls) read threadIdx.y / threadIdx.z?"""
    uses = {"y": False, "z": False}
    seen: set[str] = set()
    work = [kernel]
    while work:
        fn = work.pop()
        if fn.key in seen or fn.body is None:
            continue
        seen.add(fn.key)
        for n in fn.body.walk():
            if n.kind == "MEMBER_REF_EXPR" and n.spelling in uses and n.children and \
                    n.children[0].kind == "DECL_REF_EXPR" and n.children[0].decl is not None and \
                    n.children[0].decl.name in ("threadIdx", "blockDim"):
                uses[n.spelling] = True
            elif n.kind == "CALL_EXPR":
                if n.decl is not None and n.decl.name in ("thread_index", "dim_threads"):
                    uses["y"] = uses["z"] = True
                callee = program.resolve_call(n.decl)
                if callee is not None:
                    work.append(callee)
    return uses["y"], uses["z"]


from syncheck.analyses.levels import UNIFORM as _U  # noqa: E402  (after the classes that use it)
