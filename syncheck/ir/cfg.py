"""Control-flow graphs over lowered function bodies.

Blocks hold the statements and expressions to evaluate, in order. A block that
ends in a branch names its condition; the condition is also the block's last
item, so the uniformity analysis sees its value. Ternaries and ``&&``/``||``
cannot contain jumps, so their arms are guarded inside the expression evaluator
(see ``analyses.uniformity``) instead of being split into blocks here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from syncheck.ir.nodes import Node


@dataclass
class Block:
    id: int
    items: list[Node] = field(default_factory=list)
    succs: list[int] = field(default_factory=list)
    preds: list[int] = field(default_factory=list)
    branch: Node | None = None     # condition deciding between succs
    branch_stmt: Node | None = None  # the if/loop/switch statement owning the branch
    branch_kind: str = ""          # if | loop | switch
    # A switch's dispatch: (case label expression, the block it starts) for each label; None
    # for where control goes when no label matches (`default:`, or past the switch).
    cases: list[tuple[Node | None, int]] = field(default_factory=list)


@dataclass
class CFG:
    blocks: list[Block]
    entry: int
    exit: int

    def reachable(self) -> set[int]:
        seen = {self.entry}
        stack = [self.entry]
        while stack:
            b = stack.pop()
            for s in self.blocks[b].succs:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        return seen

    def reverse_postorder(self) -> list[int]:
        order, _ = depth_first(self.entry, lambda b: self.blocks[b].succs)
        order.reverse()
        return order


def depth_first(start: int, successors) -> tuple[list[int], list[tuple[int, int]]]:
    """Iterative depth-first search: the postorder, and the back edges (to a node on the stack)."""
    order: list[int] = []
    back: list[tuple[int, int]] = []
    seen = {start}
    on_stack = {start}
    stack = [(start, iter(successors(start)))]
    while stack:
        b, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            on_stack.discard(b)
            order.append(b)
        elif nxt in on_stack:
            back.append((b, nxt))
        elif nxt not in seen:
            seen.add(nxt)
            on_stack.add(nxt)
            stack.append((nxt, iter(successors(nxt))))
    return order, back


_LOOPS = ("FOR_STMT", "WHILE_STMT", "DO_STMT", "CXX_FOR_RANGE_STMT")


class _Builder:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.break_targets: list[int] = []
        self.continue_targets: list[int] = []
        self.labels: dict[str, int] = {}
        self.gotos: list[tuple[int, str]] = []
        self.switches: list[tuple[int, list[bool]]] = []  # (dispatch block, [has default])

    def new(self) -> int:
        b = Block(len(self.blocks))
        self.blocks.append(b)
        return b.id

    def edge(self, a: int, b: int) -> None:
        if b not in self.blocks[a].succs:
            self.blocks[a].succs.append(b)
            self.blocks[b].preds.append(a)

    def branch(self, block: int, cond: Node, stmt: Node, kind: str) -> None:
        blk = self.blocks[block]
        blk.items.append(cond)
        blk.branch, blk.branch_stmt, blk.branch_kind = cond, stmt, kind

    def build(self, body: Node) -> CFG:
        entry = self.new()
        self.exit = self.new()
        end = self.stmt(body, entry)
        self.edge(end, self.exit)
        for block, label in self.gotos:
            if label in self.labels:
                self.edge(block, self.labels[label])
        return CFG(self.blocks, entry, self.exit)

    # Each handler takes the current block and returns the block that follows.
    def stmt(self, node: Node, cur: int) -> int:
        kind = node.kind
        if kind == "COMPOUND_STMT":
            for child in node.children:
                cur = self.stmt(child, cur)
            return cur
        if kind == "IF_STMT":
            return self._if(node, cur)
        if kind in _LOOPS:
            return self._loop(node, cur)
        if kind == "SWITCH_STMT":
            return self._switch(node, cur)
        if kind in ("CASE_STMT", "DEFAULT_STMT"):
            return self._case(node, cur)
        if kind == "BREAK_STMT":
            if self.break_targets:
                self.edge(cur, self.break_targets[-1])
            return self.new()
        if kind == "CONTINUE_STMT":
            if self.continue_targets:
                self.edge(cur, self.continue_targets[-1])
            return self.new()
        if kind == "RETURN_STMT":
            self.blocks[cur].items.append(node)
            self.edge(cur, self.exit)
            return self.new()
        if kind == "GOTO_STMT":
            label = node.children[0].spelling if node.children else ""
            self.gotos.append((cur, label))
            return self.new()
        if kind == "LABEL_STMT":
            target = self.new()
            self.edge(cur, target)
            self.labels[node.spelling] = target
            for child in node.children:
                if child.kind != "LABEL_REF":
                    target = self.stmt(child, target)
            return target
        if kind in ("NULL_STMT", "LABEL_REF"):
            return cur
        if kind in ("UNEXPOSED_STMT", "ATTRIBUTED_STMT") and node.children:
            # '#pragma unroll' and attributes wrap the statement they apply to.
            for child in node.children:
                cur = self.stmt(child, cur)
            return cur
        if kind == "CXX_TRY_STMT":
            for child in node.children:
                cur = self.stmt(child, cur)
            return cur
        self.blocks[cur].items.append(node)
        return cur

    def _if(self, node: Node, cur: int) -> int:
        for c in node.children:
            if c.role == "init":
                cur = self.stmt(c, cur)
        cond = node.child_by_role("cond")
        then = node.child_by_role("then")
        other = node.child_by_role("else")
        if cond is None or then is None:  # unrecognized shape: evaluate it in order
            self.blocks[cur].items.append(node)
            return cur
        self.branch(cur, cond, node, "if")
        join = self.new()
        t = self.new()
        self.edge(cur, t)
        self.edge(self.stmt(then, t), join)
        if other is not None:
            e = self.new()
            self.edge(cur, e)
            self.edge(self.stmt(other, e), join)
        else:
            self.edge(cur, join)
        return join

    def _loop(self, node: Node, cur: int) -> int:
        for c in node.children:
            if c.role == "init":
                cur = self.stmt(c, cur)
        body = node.child_by_role("body")
        cond = node.child_by_role("cond") or node.child_by_role("range")
        inc = node.child_by_role("inc")
        if body is None:
            self.blocks[cur].items.append(node)
            return cur
        after = self.new()
        header = self.new()
        latch = self.new()
        if node.kind == "DO_STMT":
            first = self.new()
            self.edge(cur, first)
            self.edge(latch, header)
            self._body(body, first, latch, after)
        else:
            self.edge(cur, header)
            first = self.new()
            self.edge(header, first)
            self._body(body, first, latch, after)
            if inc is not None:
                self.blocks[latch].items.append(inc)
            self.edge(latch, header)
        if cond is not None:
            self.branch(header, cond, node, "loop")
            if node.kind == "DO_STMT":
                self.edge(header, first)
            self.edge(header, after)
        elif node.kind == "DO_STMT":
            self.edge(header, first)
        return after

    def _body(self, body: Node, first: int, latch: int, after: int) -> None:
        self.break_targets.append(after)
        self.continue_targets.append(latch)
        end = self.stmt(body, first)
        self.edge(end, latch)
        self.break_targets.pop()
        self.continue_targets.pop()

    def _switch(self, node: Node, cur: int) -> int:
        for c in node.children:
            if c.role == "init":
                cur = self.stmt(c, cur)
        cond = node.child_by_role("cond")
        body = node.child_by_role("body")
        if cond is None or body is None:
            self.blocks[cur].items.append(node)
            return cur
        self.branch(cur, cond, node, "switch")
        after = self.new()
        self.switches.append((cur, [False]))
        self.break_targets.append(after)
        start = self.new()  # code before the first label is unreachable
        end = self.stmt(body, start)
        self.edge(end, after)
        self.break_targets.pop()
        dispatch, has_default = self.switches.pop()
        if not has_default[0]:
            self.edge(dispatch, after)
            self.blocks[dispatch].cases.append((None, after))
        return after

    def _case(self, node: Node, cur: int) -> int:
        target = self.new()
        self.edge(cur, target)  # fall-through
        if self.switches:
            dispatch, has_default = self.switches[-1]
            self.edge(dispatch, target)
            if node.kind == "DEFAULT_STMT":
                has_default[0] = True
                self.blocks[dispatch].cases.append((None, target))
            else:  # (a label the IR lost stays unreadable: the switch is then never settled)
                self.blocks[dispatch].cases.append((node.children[0] if node.children else node, target))
        sub = node.children[-1] if node.children else None
        if node.kind == "CASE_STMT" and len(node.children) >= 2:
            sub = node.children[-1]
        elif node.kind == "CASE_STMT":
            sub = None
        return self.stmt(sub, target) if sub is not None else target


def build_cfg(body: Node) -> CFG:
    return _Builder().build(body)
