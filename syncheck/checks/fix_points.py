"""Where a check may put a fix: statements, their control level in every calling context, and
edits that insert or move whole statements. Used by the rules that offer fixes."""

from __future__ import annotations

from syncheck.analyses.levels import Level
from syncheck.analyses.uniformity import effective_controllers
from syncheck.checks.base import CheckContext
from syncheck.diagnostics import Edit
from syncheck.ir.nodes import Node

_LOOPS = ("FOR_STMT", "WHILE_STMT", "DO_STMT", "CXX_FOR_RANGE_STMT")


def inside(outer: Node, node: Node) -> bool:
    return (outer.line, outer.col) <= (node.line, node.col) and \
        (node.end_line, node.end_col) <= (outer.end_line, outer.end_col)


def statement_path(body: Node, node: Node) -> list[tuple[Node, Node]]:
    """(compound, child) pairs from the function body down to ``node``: each compound
    statement containing it, with its direct child statement that contains it."""
    out = []
    current = body
    while True:
        nxt = None
        for c in current.children:
            if c.line and inside(c, node):
                nxt = c
                break
        if nxt is None:
            return out
        if current.kind == "COMPOUND_STMT":
            out.append((current, nxt))
        if nxt is node:
            return out
        current = nxt


def function_of(ctx: CheckContext, node: Node):
    """The main-file function whose body holds the node. A template's instantiations share
    its place: the one whose lowered body holds this very node (the instantiation analyzed),
    else the first in the file's order."""
    found = [fn for fn in ctx.program.functions.values()
             if fn.in_main_file and fn.body is not None and fn.body.line and inside(fn.body, node)
             and fn.body.start <= node.start <= fn.body.end]
    if len(found) > 1:
        return next((fn for fn in found if any(n is node for n in fn.body.walk())), found[0])
    return found[0] if found else None


def control_level(ctx: CheckContext, fn, stmt: Node) -> Level | None:
    """The most divergent decision over ``stmt`` (in ``fn``), over every context in which a
    root (kernel) reaches it; None when no context reaches it or the function is a lambda."""
    if fn.is_lambda:
        return None
    service = ctx.uniformity
    contexts = []
    for root in service.root_functions():
        if root is fn:
            contexts.append((Level.UNIFORM, service.analyze(root)))
        for site, frames in service.walk_sites(root):
            if site.callee is not fn:
                continue
            outer = max((c.level for _, c in effective_controllers(site, frames)), default=Level.UNIFORM)
            caller = frames[-1].analysis if frames else service.analyze(root)
            args = tuple(site.arg_values[:len(fn.params)]) + tuple(
                service.analyze(fn).param_values[len(site.arg_values):])
            contexts.append((outer, service.analyze(fn, args, shape=caller.shape)))
    if not contexts:
        return None
    worst = Level.UNIFORM
    for outer, analysis in contexts:
        block = next((analysis.node_block[n.id] for n in stmt.walk() if n.id in analysis.node_block), None)
        if block is None:
            return None
        level = max((c.level for c in analysis.block_controllers.get(block, ())), default=Level.UNIFORM)
        worst = max(worst, outer, level)
    return worst


def line_text(ctx: CheckContext, line: int) -> str:
    lines = ctx.program.source_lines
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def indent_of(ctx: CheckContext, line: int) -> str:
    text = line_text(ctx, line)
    return text[:len(text) - len(text.lstrip())]


def starts_line(ctx: CheckContext, node: Node) -> bool:
    return not line_text(ctx, node.line)[:node.col - 1].strip()


def insert_before(ctx: CheckContext, stmt: Node, text: str) -> Edit:
    """Insert the statement ``text`` before ``stmt``: on a line of its own when ``stmt``
    starts its line, else just before it."""
    if starts_line(ctx, stmt):
        return Edit(ctx.path, stmt.line, 1, stmt.line, 1, f"{indent_of(ctx, stmt.line)}{text}\n")
    return Edit(ctx.path, stmt.line, stmt.col, stmt.line, stmt.col, f"{text} ")


def statement_end(ctx: CheckContext, stmt: Node) -> tuple[int, int]:
    """(line, column) just after ``stmt`` including its ';' when it has one."""
    text = line_text(ctx, stmt.end_line)
    col = stmt.end_col
    rest = text[col - 1:]
    if rest.lstrip().startswith(";"):
        col += len(rest) - len(rest.lstrip()) + 1
    return stmt.end_line, col


def delete_statement(ctx: CheckContext, stmt: Node) -> Edit:
    """Remove ``stmt`` (and its line when nothing but a comment is left on it)."""
    end_line, end_col = statement_end(ctx, stmt)
    after = line_text(ctx, end_line)[end_col - 1:].strip()
    if starts_line(ctx, stmt) and stmt.line == end_line and (not after or after.startswith("//")):
        if end_line < len(ctx.program.source_lines):
            return Edit(ctx.path, stmt.line, 1, stmt.line + 1, 1, "")
    return Edit(ctx.path, stmt.line, stmt.col, end_line, end_col, "")


def is_loop(node: Node) -> bool:
    return node.kind in _LOOPS


def exact_text(ctx: CheckContext, node: Node) -> str | None:
    """A single-line node's source text as written (None across lines)."""
    if node.line != node.end_line or not node.line:
        return None
    return line_text(ctx, node.line)[node.col - 1:node.end_col - 1]
