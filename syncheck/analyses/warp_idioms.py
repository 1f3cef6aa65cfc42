"""Warp idioms whose result the per-statement taint rules cannot see.

A butterfly reduction combines every lane's value in log2(width) xor-shuffle steps:

    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);

Each step reads another lane's value, so step by step the accumulator looks
thread-dependent; after the last step every lane of each group of ``width`` lanes holds
the same combination. The uniformity analysis asks this module which loops are such
reductions and gives the accumulator its group-uniform level at the loop's exit.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncheck.ir.calls import call_args, callee_name
from syncheck.analyses.constants import integer_constant
from syncheck.ir.nodes import Node, strip_wrappers

_COMMUTATIVE = ("+", "*", "&", "|", "^", "&&", "||")
_COMPOUND = ("+=", "*=", "&=", "|=", "^=")
# Two-argument combiners that are commutative and associative.
_COMBINING_CALLS = ("max", "min", "fmaxf", "fminf", "fmax", "fmin", "__hmax", "__hmin",
                    "__hmax2", "__hmin2", "__hadd", "__hadd2", "__hmul", "__hmul2")


@dataclass(frozen=True)
class Butterfly:
    variable: str   # the accumulator's declaration key
    width: int      # lanes combined: 2, 4, 8, 16 or 32


def butterfly(loop: Node, known: dict[str, int] | None = None) -> Butterfly | None:
    """The reduction a for-loop performs, when it is an xor butterfly over a full mask.
    ``known``: values of names the loop may use (a generic helper's template arguments)."""
    if loop.kind != "FOR_STMT":
        return None
    init, cond, inc, body = (loop.child_by_role(r) for r in ("init", "cond", "inc", "body"))
    if init is None or cond is None or inc is None or body is None:
        return None
    counter, start = _counter_start(init, known)
    if counter is None or start is None:
        return None
    steps = _steps(counter, start, cond, inc, known)
    if steps is None:
        return None
    statement = _single_statement(body)
    if statement is None:
        return None
    update = _update(statement, counter, known)
    if update is None:
        return None
    variable, width_arg = update
    width = max(steps) * 2
    if steps != [1 << k for k in range(len(steps))][::-1] and steps != [1 << k for k in range(len(steps))]:
        return None
    if width_arg is not None and width_arg != width:
        return None
    if width not in (2, 4, 8, 16, 32):
        return None
    return Butterfly(variable, width)


def _counter_start(init: Node, known: dict[str, int] | None) -> tuple[str | None, int | None]:
    node = init
    if node.kind == "DECL_STMT" and len(node.children) == 1:
        node = node.children[0]
    if node.kind == "VAR_DECL" and node.decl is not None and node.children:
        return node.decl.key, integer_constant(node.children[-1], known=known)
    if node.kind == "BINARY_OPERATOR" and node.op == "=" and len(node.children) == 2:
        target = strip_wrappers(node.children[0])
        if target.kind == "DECL_REF_EXPR" and target.decl is not None:
            return target.decl.key, integer_constant(node.children[1], known=known)
    return None, None


def _is_counter(node: Node, counter: str) -> bool:
    node = strip_wrappers(node)
    return node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key == counter


def _steps(counter: str, start: int, cond: Node, inc: Node, known: dict[str, int] | None) -> list[int] | None:
    """The counter's values over the iterations (halving or doubling), or None."""
    cond = strip_wrappers(cond)
    if cond.kind != "BINARY_OPERATOR" or len(cond.children) != 2 or not _is_counter(cond.children[0], counter):
        return None
    bound = integer_constant(cond.children[1], known=known)
    if bound is None:
        return None
    tests = {">": lambda v: v > bound, ">=": lambda v: v >= bound, "<": lambda v: v < bound,
             "<=": lambda v: v <= bound, "!=": lambda v: v != bound}
    test = tests.get(cond.op)
    if test is None:
        return None
    step = _step(inc, counter, known)
    if step is None:
        return None
    values, value = [], start
    while test(value) and len(values) < 8:
        values.append(value)
        value = step(value)
    return values if values and not test(value) else None


def _step(inc: Node, counter: str, known: dict[str, int] | None):
    inc = strip_wrappers(inc)
    if inc.kind != "BINARY_OPERATOR" and inc.kind != "COMPOUND_ASSIGNMENT_OPERATOR":
        return None
    if len(inc.children) != 2 or not _is_counter(inc.children[0], counter):
        return None
    amount = integer_constant(inc.children[1], known=known)
    if (inc.op, amount) in ((">>=", 1), ("/=", 2)):
        return lambda v: v >> 1
    if (inc.op, amount) in (("<<=", 1), ("*=", 2)):
        return lambda v: v << 1
    if inc.op == "=":
        rhs = strip_wrappers(inc.children[1])
        if rhs.kind == "BINARY_OPERATOR" and len(rhs.children) == 2 and _is_counter(rhs.children[0], counter):
            k = integer_constant(rhs.children[1], known=known)
            if (rhs.op, k) in ((">>", 1), ("/", 2)):
                return lambda v: v >> 1
            if (rhs.op, k) in (("<<", 1), ("*", 2)):
                return lambda v: v << 1
    return None


def _single_statement(body: Node) -> Node | None:
    while body.kind == "COMPOUND_STMT":
        if len(body.children) != 1:
            return None
        body = body.children[0]
    return body


def _update(statement: Node, counter: str, known: dict[str, int] | None) -> tuple[str, int | None] | None:
    """(accumulator, shuffle width or None) of `v = v op shfl(v)` / `v op= shfl(v)`."""
    node = strip_wrappers(statement)
    if node.kind not in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") or len(node.children) != 2:
        return None
    target = strip_wrappers(node.children[0])
    if target.kind != "DECL_REF_EXPR" or target.decl is None:
        return None
    variable = target.decl.key
    rhs = strip_wrappers(node.children[1])
    if node.op in _COMPOUND:
        shuffle = rhs
    elif node.op == "=":
        operands = _combined(rhs)
        if operands is None:
            return None
        first, second = (strip_wrappers(o) for o in operands)
        # `v && shfl(v)` shuffles only in the lanes where v holds: not a butterfly.
        if _refers_to(first, variable) and _is_xor_shuffle(second) and rhs.op not in ("&&", "||"):
            shuffle = second
        elif _refers_to(second, variable) and _is_xor_shuffle(first):
            shuffle = first
        else:
            return None
    else:
        return None
    if not _is_xor_shuffle(shuffle):
        return None
    # A defaulted argument (the width) is an empty expression: as if not written.
    args = [a for a in call_args(shuffle) if not (a.kind == "UNEXPOSED_EXPR" and not a.children)]
    mask = integer_constant(args[0], known=known)
    if mask is None or mask & 0xFFFFFFFF != 0xFFFFFFFF:  # 0xffffffff, ~0u, -1
        return None
    if not _refers_to(strip_wrappers(args[1]), variable) or not _is_counter(args[2], counter):
        return None
    width = integer_constant(args[3], known=known) if len(args) > 3 else None
    if len(args) > 3 and width is None:
        return None
    return variable, width


def _combined(rhs: Node) -> tuple[Node, Node] | None:
    if rhs.kind == "BINARY_OPERATOR" and rhs.op in _COMMUTATIVE and len(rhs.children) == 2:
        return rhs.children[0], rhs.children[1]
    if rhs.kind == "CALL_EXPR" and callee_name(rhs) in _COMBINING_CALLS:
        args = call_args(rhs)
        if len(args) == 2:
            return args[0], args[1]
    return None


def _refers_to(node: Node, variable: str) -> bool:
    return node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key == variable


def _is_xor_shuffle(node: Node) -> bool:
    return node.kind == "CALL_EXPR" and callee_name(node) == "__shfl_xor_sync" and len(call_args(node)) >= 3
