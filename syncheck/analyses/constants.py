"""Integer constants of expressions, as the compiler folds them: literals (template
arguments substituted into an instantiation are literals), warpSize, and, when the caller
knows the block shape, blockDim, and parameters a kernel's preconditions pin to a number
(``known``). Used where a fact needs a number, not a symbol (loop bounds of warp idioms, a
loop's first test)."""

from __future__ import annotations

from syncheck.analyses import c_semantics as C
from syncheck.ir.nodes import VALUE_WRAPPERS, Node, strip_wrappers

WARP_SIZE = 32  # on every architecture syncheck targets

# Casts written in the source convert; parentheses and the implicit conversions libclang
# shows as UNEXPOSED_EXPR keep the value.
_CONVERTING = ("CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR")

# The operators folded here (comparisons and bit operations have no use as loop bounds yet).
_OPERATORS = ("+", "-", "*", "/", "<<", ">>")


def integer_constant(node: Node, block_dim: tuple[int, int, int] | None = None,
                     known: dict[str, int] | None = None) -> int | None:
    if node.kind in VALUE_WRAPPERS and node.children:
        inner = integer_constant(node.children[-1], block_dim, known)
        target = C.int_type(node.type) if node.kind in _CONVERTING else None
        return inner if inner is None or target is None else C.convert(inner, target)
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
        return None if inner is None else C.unary(node.op, inner, C.int_type(node.type) or C.UNKNOWN_INTEGER)
    if node.kind == "BINARY_OPERATOR" and len(node.children) == 2 and node.op in _OPERATORS:
        a, b = (integer_constant(c, block_dim, known) for c in node.children)
        if a is None or b is None:
            return None
        left, right = node.children
        t = C.operation_type(node.op, node.type, left.type, right.type)
        return C.binary(node.op, a, b, t or C.UNKNOWN_INTEGER)
    return None
