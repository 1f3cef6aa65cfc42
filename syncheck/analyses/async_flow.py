"""Path-sensitive facts about asynchronous operations along a function's control flow.

Each CFG block's statements become a sequence of steps in evaluation order: the async events
of ``async_ops`` (including those a called device function performs, with its parameters
mapped to the caller's arguments), block barriers, reads and writes of shared memory, of
local variables and of global memory (through pointer parameters), and the function's exit.
A rule supplies an abstract state, a transfer function over steps and a join; ``solve``
runs the forward data flow to a fixpoint and then replays every block once with the
converged input so the rule can report. The SYN5xx rules (async results before their wait,
proxy fences, mbarrier init, programmatic dependent launch, cluster exit) are all written on
this one engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

from syncheck.analyses import async_ops as A
from syncheck.analyses import primitives as P
from syncheck.analyses.barrier_intervals import last_iteration_branches, natural_loops
from syncheck.analyses.constants import integer_constant
from syncheck.ir.calls import call_args, source_text
from syncheck.ir.cfg import CFG, build_cfg
from syncheck.ir.nodes import Decl, Node
from syncheck.ir.program import Function, Program

_CASTS = {"CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
          "CXX_REINTERPRET_CAST_EXPR", "CXX_CONST_CAST_EXPR", "PAREN_EXPR", "UNEXPOSED_EXPR"}
_ASSIGN = {"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="}

READ, WRITE, EVENT, BARRIER, EXIT = "read", "write", "event", "barrier", "exit"
# The cache-hinted global loads: each reads what its pointer argument points at.
_LOAD_INTRINSICS = frozenset({"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"})
WARP_BARRIER = "warp barrier"  # __syncwarp(), a tile's sync(): orders the lanes of a warp


@dataclass
class Step:
    kind: str
    node: Node
    event: A.AsyncEvent | None = None
    decl: Decl | None = None
    space: str = ""       # shared | local | global
    via: Node | None = None  # the call in this function that performs a callee's event
    # a read through the non-coherent (read-only) path, `__ldg(p)`: the data is promised not
    # to change while the kernel runs, so the compiler may move the load anywhere
    noncoherent: bool = False


def is_pointer_param(decl: Decl | None) -> bool:
    return decl is not None and decl.storage == "param" and "*" in decl.type


class FunctionSteps:
    """The steps of each block of one function's CFG."""

    def __init__(self, program: Program, fn: Function, cfg: CFG | None = None):
        self.program = program
        self.fn = fn
        self.cfg = cfg or build_cfg(fn.body)
        self.defs = A.local_definitions(fn.body)
        self.blocks: dict[int, list[Step]] = {}
        for block in self.cfg.blocks:
            out: list[Step] = []
            for item in block.items:
                self._visit(item, out)
            if block.id == self.cfg.exit:
                out.append(Step(EXIT, fn.body))
            self.blocks[block.id] = out

    def text_of(self, node: Node) -> str:
        return source_text(self.program.source_lines, node, limit=400) if self.fn.in_main_file else ""

    def all_steps(self) -> Iterable[Step]:
        for steps in self.blocks.values():
            yield from steps

    def events(self) -> Iterable[Step]:
        return (s for s in self.all_steps() if s.kind == EVENT)

    # -- resolving what an expression points into --
    def base_decl(self, expr: Node | None, depth: int = 0) -> Decl | None:
        """The variable an address or lvalue expression is rooted at (shared array, pointer
        parameter, local), following local pointers to their definitions."""
        if expr is None or depth > 6:
            return None
        n = expr
        while True:
            if n.kind in _CASTS and n.children:
                n = n.children[-1]
            elif n.kind == "ARRAY_SUBSCRIPT_EXPR" and n.children:
                n = n.children[0]
            elif n.kind == "UNARY_OPERATOR" and n.op in ("*", "&") and n.children:
                n = n.children[0]
            elif n.kind == "BINARY_OPERATOR" and n.op in ("+", "-") and n.children:
                left = n.children[0]
                n = left if "*" in left.type or "[" in left.type else n.children[-1]
            elif n.kind == "MEMBER_REF_EXPR" and n.children:
                n = n.children[0]
            else:
                break
        if n.kind == "DECL_REF_EXPR" and n.decl is not None:
            d = n.decl
            if d.storage == "local" and "[" not in d.type and d.key in self.defs:
                inner = self.base_decl(self.defs[d.key], depth + 1)
                if inner is not None and inner.storage in ("shared", "param"):
                    return inner
            return d
        if n.kind == "CALL_EXPR":
            # __cvta_generic_to_shared(&s[i]) and similar address conversions
            for a in call_args(n):
                found = self.base_decl(a, depth + 1)
                if found is not None and found.storage in ("shared", "param"):
                    return found
        return None

    def shared_of(self, expr: Node | None) -> Decl | None:
        d = self.base_decl(expr)
        if d is not None and d.storage == "shared":
            return d
        if expr is not None:
            found = A.shared_base(expr, self.defs)
            if found is not None:
                return found
        return None

    def shared_buffer(self, expr: Node | None) -> Decl | None:
        """The variable naming the shared-memory operand of an asynchronous copy: a __shared__
        variable, or the pointer (a parameter, a local) the address is taken from; the
        instruction itself says that it points into shared memory."""
        found = self.shared_of(expr)
        if found is not None:
            return found
        d = self.base_decl(expr)
        return d if d is not None and d.storage in ("param", "local") and "*" in d.type else None

    # -- lowering a statement into steps --
    def _visit(self, node: Node, out: list[Step], depth: int = 0) -> None:
        k = node.kind
        if k == "ASM_STMT":
            for ev in A.asm_events(node):
                if ev.kind != A.OPERAND_FENCE:
                    out.append(Step(EVENT, node, ev))
            return
        if k == "CALL_EXPR":
            self._visit_call(node, out)
            return
        if k in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and node.op in _ASSIGN \
                and len(node.children) == 2:
            lhs, rhs = node.children
            self._visit(rhs, out)
            if node.op != "=":
                self._read(lhs, out)
            self._write(lhs, out)
            return
        if k == "UNARY_OPERATOR" and node.op in ("++", "--", "post++", "post--") and node.children:
            self._read(node.children[0], out)
            self._write(node.children[0], out)
            return
        if k == "UNARY_OPERATOR" and node.op == "&":
            self._indices(node.children[0] if node.children else None, out)
            return
        if k in ("ARRAY_SUBSCRIPT_EXPR",) or (k == "UNARY_OPERATOR" and node.op == "*"):
            self._read(node, out)
            return
        if k == "DECL_REF_EXPR":
            d = node.decl
            if d is not None and d.storage == "local" and "[" not in d.type:
                out.append(Step(READ, node, decl=d, space="local"))
            return
        if k in ("LAMBDA_EXPR",):
            return
        for c in node.children:
            self._visit(c, out, depth)

    def _indices(self, lvalue: Node | None, out: list[Step]) -> None:
        """Evaluate the index and pointer-offset parts of an lvalue (they are reads)."""
        n = lvalue
        while n is not None:
            if n.kind in _CASTS and n.children:
                n = n.children[-1]
            elif n.kind == "ARRAY_SUBSCRIPT_EXPR" and len(n.children) == 2:
                self._visit(n.children[1], out)
                n = n.children[0]
            elif n.kind == "UNARY_OPERATOR" and n.op == "*" and n.children:
                inner = n.children[0]
                if inner.kind == "BINARY_OPERATOR" and len(inner.children) == 2:
                    self._visit(inner.children[1], out)
                    n = inner.children[0]
                else:
                    n = inner
            elif n.kind == "MEMBER_REF_EXPR" and n.children:
                n = n.children[0]
            else:
                break

    def _space(self, d: Decl | None) -> str:
        if d is None:
            return ""
        if d.storage == "shared":
            return "shared"
        if is_pointer_param(d):
            return "global"
        if d.storage == "local":
            return "local"
        return ""

    def _read(self, node: Node, out: list[Step]) -> None:
        self._indices(node, out)
        d = self.base_decl(node)
        if d is None and node.kind in ("ARRAY_SUBSCRIPT_EXPR",):
            return
        space = self._space(d)
        if node.kind == "DECL_REF_EXPR" and space == "local" and "[" in (d.type if d else ""):
            return
        if space:
            out.append(Step(READ, node, decl=d, space=space))

    def _write(self, node: Node, out: list[Step]) -> None:
        n = node
        while n.kind in _CASTS and n.children:
            n = n.children[-1]
        if n.kind == "DECL_REF_EXPR":
            if n.decl is not None and n.decl.storage == "local":
                out.append(Step(WRITE, n, decl=n.decl, space="local"))
            return
        self._indices(n, out)
        d = self.base_decl(n)
        space = self._space(d)
        if space:
            out.append(Step(WRITE, n, decl=d, space=space))

    def _visit_call(self, node: Node, out: list[Step]) -> None:
        events = A.call_events(node, self.text_of)
        if events:
            out.extend(Step(EVENT, node, ev) for ev in events)
            return
        if node.decl is not None and node.decl.name in _LOAD_INTRINSICS:
            # `__ldg(p)`: a read of what p points at, made by the call
            args = call_args(node)
            for a in args:
                self._visit(a, out)
            d = self.base_decl(args[0]) if args else None
            # (global memory whatever the pointer is rooted at: a field of a parameter struct)
            out.append(Step(READ, node, decl=d, space="global", noncoherent=node.decl.name == "__ldg"))
            return
        prim = P.classify(node)
        args = call_args(node)
        callee = None if prim is not None else self.program.resolve_call(node.decl)
        inner = []
        if callee is not None and callee.body is not None and callee.key != self.fn.key:
            inner = callee_events(self.program, callee, args, depth=0)
        # Arguments that the callee's async operations take as operands (accumulators
        # passed by reference to a wgmma helper) are not reads by this call.
        operand_ids = {id(x) for ev in inner if isinstance(ev, A.AsyncEvent)
                       for x in ev.operands + ev.inputs + [ev.dst, ev.src, ev.mbar] if x is not None}
        for a in args:
            if (a.kind == "UNARY_OPERATOR" and a.op == "&") or id(a) in operand_ids:
                continue
            self._visit(a, out)
        if prim is not None:
            if prim.category in (P.BLOCK_BARRIER, P.GRID_SYNC):
                out.append(Step(BARRIER, node))
            elif prim.category == P.TILE_SYNC:
                out.append(Step(WARP_BARRIER, node))
            return
        if inner:
            for ev in inner:
                out.append(Step(EVENT, node, ev, via=node) if isinstance(ev, A.AsyncEvent)
                           else Step(BARRIER, node))


def callee_events(program: Program, fn: Function, args: list[Node], depth: int):
    """The async events (and block barriers, as the string 'barrier') a device function
    performs, in source order, with operands that are its parameters replaced by the
    caller's arguments. Control flow inside the callee is not followed."""
    if depth > 3 or fn.body is None:
        return []
    params = {p.key: i for i, p in enumerate(fn.params)}
    defs = A.local_definitions(fn.body)

    def mapped(n: Node | None, depth: int = 0) -> Node | None:
        """The operand in the caller's terms: a parameter becomes the argument, a local is
        followed to its definition, a __shared__ variable stays itself."""
        if n is None or depth > 6:
            return None
        for m in n.walk():
            if m.kind != "DECL_REF_EXPR" or m.decl is None:
                continue
            d = m.decl
            if d.key in params:
                i = params[d.key]
                return args[i] if i < len(args) else None
            if d.storage == "shared":
                return n
            if d.storage == "local" and d.key in defs:
                found = mapped(defs[d.key], depth + 1)
                if found is not None:
                    return found
        return None

    out = []
    for node in _live_walk(fn.body, params, args):
        if node.kind == "ASM_STMT":
            evs = A.asm_events(node)
        elif node.kind == "CALL_EXPR":
            evs = A.call_events(node)
            if not evs:
                prim = P.classify(node)
                if prim is not None and prim.category == P.BLOCK_BARRIER:
                    out.append("barrier")
                    continue
                callee = program.resolve_call(node.decl)
                if callee is not None and callee.key != fn.key and callee.body is not None:
                    # (a constant argument stands for itself: `load(..., /*with_wait=*/false)`)
                    inner_args = [mapped(a) if any(n.kind == "DECL_REF_EXPR" for n in a.walk()) else a
                                  for a in call_args(node)]
                    out.extend(callee_events(program, callee, inner_args, depth + 1))
                continue
        else:
            continue
        for ev in evs:
            if ev.kind == A.OPERAND_FENCE:
                continue
            out.append(replace(ev, dst=mapped(ev.dst), src=mapped(ev.src), mbar=mapped(ev.mbar),
                               parity_node=mapped(ev.parity_node),
                               operands=[x for x in (mapped(o) for o in ev.operands) if x is not None],
                               inputs=[x for x in (mapped(o) for o in ev.inputs) if x is not None]))
    return out


def _live_walk(body: Node, params: dict[str, int], args: list[Node]) -> Iterable[Node]:
    """The callee's nodes in source order, without the arm of an `if` that a constant argument
    rules out (`if (with_wait) wait(block);` called with `false`)."""
    stack = [body]
    while stack:
        node = stack.pop()
        yield node
        children = node.children
        if node.kind == "IF_STMT":
            taken = _constant_test(node.child_by_role("cond"), params, args)
            if taken is not None:
                dropped = node.child_by_role("else" if taken else "then")
                children = [c for c in children if c is not dropped]
        stack.extend(reversed(children))


def _constant_test(cond: Node | None, params: dict[str, int], args: list[Node]) -> bool | None:
    """The value of a test of a parameter (`flag`, `!flag`) the call passes a constant for."""
    negated = False
    while cond is not None and cond.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "UNARY_OPERATOR") and cond.children:
        if cond.kind == "UNARY_OPERATOR":
            if cond.op != "!":
                return None
            negated = not negated
        cond = cond.children[-1] if cond.kind != "UNARY_OPERATOR" else cond.children[0]
    if cond is None or cond.kind != "DECL_REF_EXPR" or cond.decl is None or cond.decl.key not in params:
        return None
    i = params[cond.decl.key]
    if i >= len(args) or args[i] is None:
        return None
    value = integer_constant(args[i])
    if value is None:
        arg = args[i]
        while arg.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and arg.children:
            arg = arg.children[-1]
        value = {"true": 1, "false": 0}.get(arg.spelling) if arg.kind == "CXX_BOOL_LITERAL_EXPR" else None
    return None if value is None else bool(value) != negated


def solve(steps: FunctionSteps, init, transfer: Callable, join: Callable, report: Callable | None = None,
          max_rounds: int = 60, edge: Callable | None = None):
    """Forward data flow: ``transfer(state, step, emit)`` returns the new state (``emit`` is
    None while iterating, the rule's ``report`` in the final replay); ``join(a, b)``;
    ``edge(pred, block, state)``, where given, the state a CFG edge passes on.
    Paths that took the false arm of a loop's last-iteration test (`if (k < n - 1) { wait;
    __syncthreads(); }` in `for (k = 0; k < n; ++k)`) do not go round that loop again: their
    states are kept apart, keyed by those loops, and dropped at the loop's back edge."""
    cfg = steps.cfg
    loops = natural_loops(cfg)
    last_trip = last_iteration_branches(cfg, loops)
    loop_of = {loop.header: loop for loop in loops}
    order = cfg.reverse_postorder()
    ins: dict[int, dict] = {cfg.entry: {frozenset(): init}}
    outs: dict[int, dict] = {}

    def passed(pred: int, block: int, states: dict) -> dict:
        out: dict = {}
        preds_succs = cfg.blocks[pred].succs
        for ended, state in states.items():
            loop = loop_of.get(block)
            if loop is not None:
                if pred in loop.blocks:
                    if loop.header in ended:
                        continue  # the last iteration does not come round again
                else:
                    ended = ended - {loop.header}  # a new run of the loop
            if pred in last_trip and len(preds_succs) == 2 and preds_succs[1] == block \
                    and preds_succs[0] != block:
                ended = ended | {last_trip[pred]}
            state = state if edge is None else edge(pred, block, state)
            out[ended] = join(out[ended], state) if ended in out else state
        return out

    for _ in range(max_rounds):
        changed = False
        for b in order:
            if b != cfg.entry:
                merged: dict = {}
                for p in cfg.blocks[b].preds:
                    if p not in outs:
                        continue
                    for ended, state in passed(p, b, outs[p]).items():
                        merged[ended] = join(merged[ended], state) if ended in merged else state
                if not merged:
                    continue
                ins[b] = merged
            out = {}
            for ended, state in ins[b].items():
                for step in steps.blocks[b]:
                    state = transfer(state, step, None)
                out[ended] = state
            if outs.get(b) != out:
                outs[b] = out
                changed = True
        if not changed:
            break
    if report is not None:
        for b in order:
            for ended in sorted(ins.get(b, {}), key=sorted):
                state = ins[b][ended]
                for step in steps.blocks[b]:
                    state = transfer(state, step, report)
    return ins, outs


def mentioning_functions(program: Program, words: tuple[str, ...]) -> set[str]:
    """Device functions whose text mentions one of the words, or that call (through any
    chain of calls) one that does: a kernel that copies through a helper (`load_async(...)`
    wrapping cg::memcpy_async) is the helper's caller."""
    found = {fn.key for fn in program.functions.values()
             if fn.runs_on_device and fn.has_body and fn.mentions(*words)}
    if not found:
        return found
    callers = program.device_calls()
    work = list(found)
    while work:
        for caller in callers.get(work.pop(), ()):
            if caller not in found:
                found.add(caller)
                work.append(caller)
    return found


def analyzable_functions(program: Program):
    """Main-file device functions and kernels the SYN5xx flow rules analyze."""
    for fn in program.functions.values():
        if fn.in_main_file and fn.runs_on_device and fn.body is not None and not fn.has_errors \
                and program.analyzed_generically(fn):
            yield fn


def loops_enclosing(body: Node, node: Node) -> list[Node]:
    """The loop statements whose source range contains ``node``, innermost last."""
    out = []
    for n in body.walk():
        if n.kind in ("FOR_STMT", "WHILE_STMT", "DO_STMT", "CXX_FOR_RANGE_STMT") and \
                n.start <= node.start and node.end <= n.end and n is not node:
            out.append(n)
    out.sort(key=lambda n: n.start)
    return out
