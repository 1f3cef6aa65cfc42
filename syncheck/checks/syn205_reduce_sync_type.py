"""SYN205 reduce-sync-type: __reduce_*_sync on a non-integer operand."""

from __future__ import annotations

import re

from syncheck.checks.base import Check, CheckContext

_NON_INTEGER = re.compile(r"\b(float|double|__half|half|__half2|half2|__nv_bfloat16|bfloat16)\b")


class ReduceSyncType(Check):
    code = "SYN205"
    name = "reduce-sync-type"

    def run(self, ctx: CheckContext):
        for fn, node, prim in ctx.primitive_calls():
            args = node.children[1:]
            if not prim.name.startswith("__reduce_") or len(args) < 2:
                continue
            operand = args[1]
            arg_type = _operand_type(operand)
            if _NON_INTEGER.search(arg_type):
                message = (f"{prim.name} takes 32-bit integers only (int or unsigned), but the "
                           f"operand has type '{arg_type}'; reduce floats with a __shfl_xor_sync "
                           f"butterfly or cg::reduce")
                yield ctx.finding(self, operand, message, fn.name)


def _operand_type(node) -> str:
    """The operand's type before any implicit conversion to the parameter type."""
    while node.kind == "UNEXPOSED_EXPR" and node.children:
        node = node.children[0]
    return node.type
