"""Block shapes that the host code fixes when it launches a kernel."""

from __future__ import annotations

from syncheck.analyses.host_values import HostValues
from syncheck.ir.nodes import Node
from syncheck.ir.program import Function, LaunchSite, Program


def launches_of(program: Program, kernel: Function) -> list[LaunchSite]:
    """Launches of this kernel in the file: of exactly this instantiation, or, for a kernel
    analyzed as written, of any of its instantiations."""
    if kernel.instance_of is not None:
        return [l for l in program.launches if l.kernel_instance == kernel.key]
    return [l for l in program.launches if l.kernel_key == kernel.key]


def launch_block_dim(program: Program, kernel: Function) -> tuple[int, int, int] | None:
    """The block shape every launch of the kernel in this file uses, when it is constant."""
    shapes = set()
    for launch in launches_of(program, kernel):
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


# A launch relation: an expression over the kernel's parameters, as a small tree:
# ("param", key) | ("const", value) | (operator, left, right).
_OPERATORS = ("+", "-", "*", "/")


def block_dim_relations(program: Program, kernel: Function) -> dict[int, tuple]:
    """For each axis, the expression over the kernel's own parameters that every launch in
    the file gives blockDim (``<<<rows, ncols>>>(m, ncols)`` ties blockDim.x to ``ncols``;
    ``<<<1, n / 2>>>(a, n)`` gives blockDim.x == n / 2)."""
    common: dict[int, tuple] | None = None
    for launch in launches_of(program, kernel):
        block = None
        if launch.api == "<<<>>>" and len(launch.config) > 1:
            block = launch.config[1]
        if block is None:
            return {}
        hv = HostValues(program, program.functions[launch.host_function])
        axes = hv.dim3_expressions(block)
        if axes is None:
            return {}
        arguments = {_shape(a): p.key for a, p in zip(launch.args, kernel.params)}
        found = {}
        for axis, expr in enumerate(axes):
            form = _kernel_terms(expr, arguments, hv) if expr is not None else ("const", 1)
            if form is not None:
                found[axis] = form
        common = found if common is None else {a: f for a, f in common.items() if found.get(a) == f}
    return common or {}


def _kernel_terms(expr: Node, arguments: dict[tuple, str], hv: HostValues, depth: int = 0):
    if depth > 8:
        return None
    while expr.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR",
                        "CXX_FUNCTIONAL_CAST_EXPR") and expr.children:
        key = _shape(expr)
        if key in arguments:
            return ("param", arguments[key])
        expr = expr.children[-1]
    key = _shape(expr)
    if key in arguments:
        return ("param", arguments[key])
    value = hv.constant(expr)
    if value is not None:
        return ("const", value)
    if expr.kind == "BINARY_OPERATOR" and expr.op in _OPERATORS and len(expr.children) == 2:
        left, right = (_kernel_terms(c, arguments, hv, depth + 1) for c in expr.children)
        if left is not None and right is not None:
            return (expr.op, left, right)
    return None


def _shape(node: Node) -> tuple:
    """A structural key: two host expressions with the same key compute the same value here."""
    while node.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and len(node.children) == 1:
        node = node.children[0]
    return tuple((n.kind, n.spelling, n.op, n.value, n.decl.key if n.decl else "") for n in node.walk())
