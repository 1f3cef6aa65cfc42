"""What the host code has checked by the time it launches a kernel.

`GGML_ASSERT(n % 32 == 0)`-style checks: `if (!(c)) fail(...);` where fail never returns
(preconditions.stops: abort, exit, functions declared [[noreturn]]), and `assert(c)` as the
real headers expand it (`c ? (void)0 : __assert_fail(...)`). A check counts for a launch when
it is a statement of the host function's body itself that comes before the statement holding
the launch: it then runs before every launch there (the body's statements run in order).
launch_shapes turns the checks on the values a launch passes into facts on the kernel's
parameters.
"""

from __future__ import annotations

from syncheck.analyses.preconditions import stops
from syncheck.ir.calls import call_args, parameter_types
from syncheck.ir.nodes import Node, strip_wrappers
from syncheck.ir.program import Function


def checks_before(host: Function, site: Node) -> list[tuple[Node, bool]]:
    """(condition, whether it holds) for each check the host function makes before the
    statement of its body that holds ``site``."""
    out: list[tuple[Node, bool]] = []
    body = host.body
    if body is None:
        return out
    for stmt in body.children:
        if any(n is site for n in stmt.walk()):
            return out
        if stmt.kind == "IF_STMT" and stmt.child_by_role("else") is None:
            cond = stmt.child_by_role("cond")
            if cond is not None and stops(stmt.child_by_role("then")):
                out.append((cond, False))
            continue
        expr = strip_wrappers(stmt)
        if expr.kind == "CONDITIONAL_OPERATOR" and len(expr.children) == 3 and stops(expr.children[2]):
            out.append((expr.children[0], True))
    return []  # the site is not in the body (a lambda's, another function's): nothing known


def unchanged_variables(host: Function, launches: set[int]) -> set[str]:
    """Keys of the host function's parameters and locals that keep the value they start with:
    no assignment, increment, taken address or non-const reference argument after their
    initialization. ``launches``: ids of the calls that launch a kernel (a launch helper's
    forwarding references pass the values on to the kernel, which gets copies)."""
    seen: set[str] = set()
    changed: set[str] = set()
    body = host.body
    if body is None:
        return set()

    def change(node: Node) -> None:
        target = strip_wrappers(node)
        if target.kind == "DECL_REF_EXPR" and target.decl is not None:
            changed.add(target.decl.key)

    for n in body.walk():
        if n.kind == "VAR_DECL" and n.decl is not None:
            seen.add(n.decl.key)
        elif not n.children:
            continue
        elif n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN:
            change(n.children[0])
        elif n.kind == "UNARY_OPERATOR" and n.op in ("&", "++", "--", "post++", "post--"):
            change(n.children[0])
        elif n.kind == "CALL_EXPR" and n.decl is not None and n.id not in launches:
            types = parameter_types(n.decl.type)
            for arg, type_ in zip(call_args(n), types):
                if type_.endswith("&") and not type_.startswith("const "):
                    change(arg)
    return (seen | {p.key for p in host.params}) - changed


_ASSIGN = {"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="}
