"""Integer constants of expressions, as the compiler folds them: literals (template
arguments substituted into an instantiation are literals), warpSize, and, when the caller
knows the block shape, blockDim, and parameters a kernel's preconditions pin to a number
(``known``). Used where a fact needs a number, not a symbol (loop bounds of warp idioms, a
loop's first test)."""

from __future__ import annotations

from syncheck.ir.nodes import Node, strip_wrappers

WARP_SIZE = 32  # on every architecture syncheck targets


def integer_constant(node: Node, block_dim: tuple[int, int, int] | None = None,
                     known: dict[str, int] | None = None) -> int | None:
    node = strip_wrappers(node)
    if isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if known and node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key in known:
        return known[node.decl.key]
    if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.name == "warpSize" \
            and node.decl.storage in ("builtin", "global"):
        return WARP_SIZE
    if node.kind == "MEMBER_REF_EXPR" and node.children and block_dim is not None:
        base = strip_wrappers(node.children[0])
        if base.kind == "DECL_REF_EXPR" and base.decl is not None and base.decl.storage == "builtin" \
                and base.decl.name == "blockDim" and node.spelling in ("x", "y", "z"):
            return block_dim["xyz".index(node.spelling)]
        return None
    if node.kind == "UNARY_OPERATOR" and node.op in ("-", "~") and node.children:
        inner = integer_constant(node.children[0], block_dim, known)
        if inner is None:
            return None
        return -inner if node.op == "-" else ~inner
    if node.kind == "BINARY_OPERATOR" and len(node.children) == 2:
        a, b = (integer_constant(c, block_dim, known) for c in node.children)
        if a is None or b is None:
            return None
        if node.op == "/":
            # C division truncates toward zero
            return None if b == 0 else (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
               ">>": lambda: a >> b if 0 <= b < 64 else None,
               "<<": lambda: a << b if 0 <= b < 64 else None}
        return ops[node.op]() if node.op in ops else None
    return None
