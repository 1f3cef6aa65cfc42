"""Facts a kernel states about its inputs at entry, for every analysis that reasons about
values: `__builtin_assume(c)` (GPUVerify's `__requires`), `static_assert(c, ...)` on template
parameters, and `if (bad) __trap();` or a call of another function that never returns (an
`assert` is not among them: the model headers define it away, as NDEBUG builds do). They hold
for every thread after the kernel's first statements: the race encoder and the uniformity
proofs add them as constraints (see symbolic.py), and parameters they pin to a number
(`__builtin_assume(n == 2 * blockDim.x)` with a known block shape) are constants wherever a
number is needed (a loop's first test).
"""

from __future__ import annotations

from syncheck.analyses.constants import integer_constant
from syncheck.ir.calls import call_args
from syncheck.ir.nodes import POINTER_WRAPPERS, Node, strip_wrappers
from syncheck.ir.program import Function

_ABORTS = {"__trap", "abort", "__assertfail"}
_ASSUMES = {"__builtin_assume", "__assume"}
_ASSIGN = {"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="}


def _strip(node: Node) -> Node:
    return strip_wrappers(node, POINTER_WRAPPERS)


_LEAVES = {"RETURN_STMT", "BREAK_STMT", "CONTINUE_STMT", "GOTO_STMT"}


def stops(node: Node | None) -> bool:
    """Does the statement always end in an abort (or another call that never returns)? A
    block may do other things first (print why), as long as nothing in it leaves the block
    another way."""
    if node is not None and node.kind == "COMPOUND_STMT" and node.children:
        if any(n.kind in _LEAVES for n in node.walk()):
            return False
        node = node.children[-1]
    call = _strip(node) if node is not None else None
    return call is not None and call.kind == "CALL_EXPR" and call.decl is not None \
        and (call.decl.name in _ABORTS or call.decl.no_return)


def kernel_preconditions(kernel: Function) -> list[tuple[Node, bool]]:
    """(condition, whether it holds) for the statements directly in the kernel's body that
    stop or promise: `if (cond) __trap();` (cond is false after it),
    `__builtin_assume(cond);` and `static_assert(cond, ...)` (cond holds)."""
    out = []
    for stmt in kernel.body.children if kernel.body is not None else ():
        if stmt.kind == "DECL_STMT":
            # `static_assert(D % 64 == 0, "...")`: every instantiation that compiles satisfies
            # it, so it holds of the template's parameters wherever the body is analyzed
            # generically (one in a discarded `if constexpr` branch is not at this level)
            for decl in stmt.children:
                if decl.kind == "STATIC_ASSERT" and decl.children:
                    out.append((decl.children[0], True))
            continue
        call = _strip(stmt)
        if call.kind == "CALL_EXPR" and call.decl is not None and call.decl.name in _ASSUMES:
            args = call_args(call)
            if args:
                out.append((args[0], True))
            continue
        if stmt.kind != "IF_STMT" or stmt.child_by_role("else") is not None:
            continue
        cond = stmt.child_by_role("cond")
        if cond is not None and stops(stmt.child_by_role("then")):
            out.append((cond, False))
    return out


def _equalities(cond: Node, holds: bool):
    """The `a == b` facts a precondition states (through `&&` when it holds, `||` when not)."""
    node = _strip(cond)
    while node.kind == "PAREN_EXPR" and node.children:
        node = _strip(node.children[-1])
    if node.kind == "UNARY_OPERATOR" and node.op == "!" and node.children:
        yield from _equalities(node.children[0], not holds)
        return
    if node.kind != "BINARY_OPERATOR" or len(node.children) != 2:
        return
    if node.op == ("&&" if holds else "||"):
        for child in node.children:
            yield from _equalities(child, holds)
    elif node.op == ("==" if holds else "!="):
        yield node.children[0], node.children[1]


def assigned_variables(kernel: Function) -> set[str]:
    """Keys of the variables the kernel's body writes."""
    out = set()
    for n in kernel.body.walk() if kernel.body is not None else ():
        if (n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN) or \
                (n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--")) or \
                (n.kind == "UNARY_OPERATOR" and n.op == "&"):  # its address escapes
            target = _strip(n.children[0]) if n.children else None
            if target is not None and target.kind == "DECL_REF_EXPR" and target.decl is not None:
                out.add(target.decl.key)
    return out


def known_parameters(kernel: Function, block_dim: tuple[int, int, int] | None) -> dict[str, int]:
    """Parameters a precondition equates with a number (given the block shape, when known),
    for a kernel that never changes them: key -> value."""
    facts = kernel_preconditions(kernel) if kernel.kind == "kernel" else []
    if not facts:
        return {}
    params = {p.key for p in kernel.params} - assigned_variables(kernel)
    known: dict[str, int] = {}
    for cond, holds in facts:
        for left, right in _equalities(cond, holds):
            for side, other in ((left, right), (right, left)):
                ref = _strip(side)
                if ref.kind == "DECL_REF_EXPR" and ref.decl is not None and ref.decl.key in params:
                    value = integer_constant(other, block_dim)
                    if value is not None:
                        known.setdefault(ref.decl.key, value)
    return known
