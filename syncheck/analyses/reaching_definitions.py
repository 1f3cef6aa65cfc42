"""Which assignment of a local a use reads, where exactly one can reach it.

Index variables are often assigned more than once (`x = blockIdx.x * T + threadIdx.x; ...
x = blockIdx.y * T + threadIdx.x;` between the load and the store of a transpose). A use
that only one definition reaches along every path stands for that definition's value; a use
that two reach (a branch assigned it, a loop updates it) stands for nothing known here.

Variables whose address is taken, references, and variables passed to a parameter that may
be a non-const reference are left out: a write through an alias is a definition this walk
does not see.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from syncheck.ir.calls import call_args
from syncheck.ir.cfg import CFG
from syncheck.ir.nodes import VALUE_WRAPPERS, Node, asm_written_operands, strip_wrappers
from syncheck.ir.program import written_reference_arguments

# What the use of a parameter reads when only its incoming value reaches it.
INCOMING = "incoming value"

# The assignment operators of C (`=` and the compound ones), shared by the analyses.
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
COMPOUND_ASSIGN_OPS = ASSIGN_OPS - {"="}
_STEP_OPS = {"++", "--", "post++", "post--"}
# Compound assignments whose definition has a value: what the expression itself evaluates to,
# x's value read just before (its use) combined with e. Masks are built so (`m |= m << d`);
# arithmetic ones (`tmp -= it * n` chains of block-wide divisions) are left unknown: encoded
# exactly they cost the solver more than a race check's budget.
_BIT_COMPOUNDS = {"&=", "|=", "^=", "<<=", ">>="}


@dataclass
class ReachingDefinitions:
    # use node id -> the value it reads (an expression, or INCOMING for a parameter's own
    # value), for uses that exactly one definition with a known value reaches
    unique: dict[int, Node | str] = field(default_factory=dict)
    # use node id -> the definitions that reach it (their nodes: an assignment, a `++`, a
    # declaration; None for a parameter's incoming value), for uses that several reach
    several: dict[int, tuple[Node | None, ...]] = field(default_factory=dict)
    # use node id -> the one definition that reaches it (an assignment, a `+=`, a `++`, a
    # declaration; None for a parameter's incoming value), whether or not its value is known
    definition: dict[int, Node | None] = field(default_factory=dict)


def reaching_definitions(params: list, cfg: CFG, live: set[int],
                         candidates: set[str], program=None) -> ReachingDefinitions:
    """The definitions of ``candidates`` (locals and parameters assigned more than once) that
    reach each of their uses."""
    result = ReachingDefinitions()
    if not candidates:
        return result
    excluded = _aliased(cfg, live, program)
    names = {k for k in candidates if k not in excluded}
    if not names:
        return result
    param_keys = {p.key for p in params}
    # A definition: (variable, id) with its value (None: not known, e.g. `x++`, `x += 1`).
    values: dict[tuple[str, int], Node | str | None] = {}
    def_nodes: dict[tuple[str, int], Node | None] = {}
    entry_state = {k: frozenset({(k, -1)}) for k in names if k in param_keys}
    for k in entry_state:
        values[(k, -1)] = INCOMING
        def_nodes[(k, -1)] = None

    def run(block_id: int, state: dict, record: ReachingDefinitions | None) -> dict:
        state = dict(state)
        for item in cfg.blocks[block_id].items:
            for event, var, node, value in _events(item, names):
                if event == "use":
                    if record is not None:
                        defs = state.get(var, frozenset())
                        if len(defs) == 1:
                            (only,) = defs
                            record.definition[node.id] = def_nodes[only]
                            known = values.get(only)
                            if known is not None:
                                record.unique[node.id] = known
                        elif len(defs) > 1:
                            record.several[node.id] = tuple(
                                def_nodes[d] for d in sorted(defs, key=lambda d: d[1]))
                else:
                    values[(var, node.id)] = value
                    def_nodes[(var, node.id)] = node
                    state[var] = frozenset({(var, node.id)})
        return state

    order = [b for b in cfg.reverse_postorder() if b in live]
    ins: dict[int, dict] = {cfg.entry: entry_state}
    outs: dict[int, dict] = {}
    changed = True
    rounds = 0
    while changed and rounds < 50:  # the lattice is finite; the bound only guards against bugs
        changed, rounds = False, rounds + 1
        for b in order:
            merged: dict[str, frozenset] = dict(entry_state) if b == cfg.entry else {}
            for p in cfg.blocks[b].preds:
                for var, defs in outs.get(p, {}).items():
                    merged[var] = merged.get(var, frozenset()) | defs
            ins[b] = merged
            out = run(b, merged, None)
            if out != outs.get(b):
                outs[b] = out
                changed = True
    if changed:
        return result
    for b in order:
        run(b, ins.get(b, {}), result)
    return result


def _target(node: Node) -> Node:
    return strip_wrappers(node, VALUE_WRAPPERS)


def _events(node: Node, names: set[str]):
    """Uses and definitions of ``names`` in evaluation order: (kind, var, node, value)."""
    kind = node.kind
    if kind == "LAMBDA_EXPR":
        return
    if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and node.op in ASSIGN_OPS \
            and len(node.children) == 2:
        lhs = _target(node.children[0])
        if lhs.kind == "DECL_REF_EXPR" and lhs.decl is not None and lhs.decl.key in names:
            if node.op != "=":
                yield "use", lhs.decl.key, lhs, None
            yield from _events(node.children[1], names)
            yield "def", lhs.decl.key, node, node.children[1] if node.op == "=" else \
                node if node.op in _BIT_COMPOUNDS else None
            return
    if kind == "UNARY_OPERATOR" and node.op in _STEP_OPS and node.children:
        operand = _target(node.children[0])
        if operand.kind == "DECL_REF_EXPR" and operand.decl is not None and operand.decl.key in names:
            yield "use", operand.decl.key, operand, None
            yield "def", operand.decl.key, node, None
            return
    if kind == "ASM_STMT":
        # the PTX reads its inputs and then writes its outputs (values not known here)
        written = {id(c) for c, _ in asm_written_operands(node)}
        for child in node.children:
            if id(child) not in written:
                yield from _events(child, names)
        for child, also_read in asm_written_operands(node):
            target = _target(child)
            if target.kind == "DECL_REF_EXPR" and target.decl is not None and target.decl.key in names:
                if also_read:
                    yield "use", target.decl.key, target, None
                yield "def", target.decl.key, node, None
        return
    if kind == "VAR_DECL" and node.decl is not None and node.decl.key in names:
        init = node.children[-1] if node.children and "[" not in node.type else None
        if init is not None:
            yield from _events(init, names)
        elif _uninitialized_scalar(node):
            # `T *buf;` set on each path below: its indeterminate value is no definition a
            # use can mean (reading it is undefined), so the assignments alone reach uses
            return
        yield "def", node.decl.key, node, init
        return
    if kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key in names:
        yield "use", node.decl.key, node, None
        return
    for child in node.children:
        yield from _events(child, names)


_SCALAR_WORDS = {"int", "unsigned", "signed", "long", "short", "char", "float", "double", "bool",
                 "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
                 "uint16_t", "uint32_t", "uint64_t", "const", "volatile"}


def _uninitialized_scalar(decl: Node) -> bool:
    """A declaration of a pointer or builtin number with no initializer."""
    if decl.children or "[" in decl.type or "&" in decl.type:
        return False
    return "*" in decl.type or all(w in _SCALAR_WORDS for w in decl.type.split())


def _aliased(cfg: CFG, live: set[int], program=None) -> set[str]:
    """Variables that may change through an alias: address taken, references, or passed
    to a parameter that may be a non-const reference."""
    out: set[str] = set()
    for b in live:
        for item in cfg.blocks[b].items:
            for n in item.walk():
                if n.kind == "UNARY_OPERATOR" and n.op == "&" and n.children:
                    t = _target(n.children[0])
                    if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                        out.add(t.decl.key)
                elif n.kind == "VAR_DECL" and n.decl is not None and "&" in n.type:
                    out.add(n.decl.key)
                    if n.children:
                        t = _target(n.children[-1])
                        if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                            out.add(t.decl.key)
                elif n.kind == "CALL_EXPR":
                    types = written_reference_arguments(program, n)
                    for i, arg in enumerate(call_args(n)):
                        t = _target(arg)
                        if t.kind == "DECL_REF_EXPR" and t.decl is not None and \
                                (types is None or i in types):
                            out.add(t.decl.key)
    return out
