"""Shared-memory accesses of a kernel, with their indices, guards and barrier intervals.

Accesses through the array itself, through a local pointer that aliases it
(``volatile float* v = sdata;``) and through device functions that receive it as an
argument (inlined here, parameters replaced by the caller's arguments) are collected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from syncheck.analyses import c_semantics as C
from syncheck.analyses import primitives as P
from syncheck.analyses.async_ops import MBAR_INIT, MBAR_WAIT, NAMED_SYNC, call_events, events_of
from syncheck.analyses.barrier_intervals import (BarrierIntervals, admitted_block_shapes, first_test_passes,
                                                 first_test_passes_for_all)
from syncheck.analyses.constants import integer_constant
from syncheck.analyses.preconditions import kernel_preconditions, known_parameters
from syncheck.analyses.reaching_definitions import INCOMING, reaching_definitions
from syncheck.analyses.uniformity import FunctionAnalysis, UniformityService
from syncheck.analyses.levels import Level
from syncheck.ir.calls import (bound_arguments, call_args, callee_name, constructor_call, copied_object,
                               member_object, parameter_types, template_bindings)
from syncheck.ir.cfg import CFG, Block
from syncheck.ir.nodes import (BUILTIN_ELEMENT_BYTES, LANE_ID, POINTER_WRAPPERS, Node, asm_written_operands, element_spelling,
                               lane_id_target, referenced_keys, strip_wrappers, structural_key)
from syncheck.ir.program import Function, Program

_ASSIGN = {"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="}


@dataclass(frozen=True)
class Guard:
    cond: Node
    polarity: bool | None
    level: int           # uniformity level of the condition
    scope: "Scope"


@dataclass
class Scope:
    """Where names in an expression resolve: a function context and argument bindings."""

    analysis: FunctionAnalysis
    bindings: dict[str, tuple[Node, "Scope"]] = field(default_factory=dict)
    single_defs: dict[str, Node] = field(default_factory=dict)
    multi_defs: set[str] = field(default_factory=set)
    # variables a field or element of which is assigned (`p.x = v`, `a[i].y += w`; a store
    # through a pointer field, `p.data[i] = v`, writes memory, not the variable)
    fields_assigned: set[str] = field(default_factory=set)
    # uses of multi_defs that one definition alone reaches: use node id -> its value
    reaching: dict[int, object] = field(default_factory=dict)
    # uses of multi_defs that one definition alone reaches: use node id -> that definition
    # (None: a parameter's incoming value)
    reaching_definition: dict[int, Node | None] = field(default_factory=dict)
    # uses of a counter one loop steps, set just before that loop: use node id -> Induction
    loop_counters: dict[int, "Induction"] = field(default_factory=dict)
    # pointer -> (shared location key, offsets added to its position)
    pointer_alias: dict[str, tuple[str, list["Offset"]]] = field(default_factory=dict)
    # Loop counters: var -> (initial value, "+" | "-" | ">>" | "<<", constant step, line of
    # the update: counters updated on one line, as in 'k += R, i += R', advance together)
    inductions: dict[str, "Induction"] = field(default_factory=dict)
    # Variables given their only value by one assignment statement of the function's body
    # itself (not inside a branch or loop): `ai = threadIdx.x;` into an `int&` parameter or a
    # local declared without a value. var -> (value, scope it is read in or None for this
    # one, where the statement ends): reads after that point see the value.
    later_defs: dict[str, tuple[Node, "Scope | None", int]] = field(default_factory=dict)
    # Variables carried from one loop into the next (a scan's `offset`, doubled in the
    # up-sweep and halved in the down-sweep): var -> one induction per loop, in order; each
    # loop starts from the value the previous one left.
    phases: dict[str, list["Induction"]] = field(default_factory=dict)
    # A pointer into a shared buffer that a next part is carved from (`s_b = s_a + n`): key ->
    # (the count where its part ends, the count's scope, the name of the count's unknown where
    # it cannot be encoded, the count where its part starts (None: at the base), bytes per
    # counted element).
    carve_extents: dict[str, tuple[Node, "Scope", str | None, Node | None, int | str]] = field(default_factory=dict)
    # Pointers defined as a part carved from another (`s_b` of `s_b = s_a + n`): they index
    # their own part, not the one they were carved from.
    carved_parts: set[str] = field(default_factory=set)
    # A barrier-free callee inlined at its call: its loops run freely, so its variables may
    # differ between two threads at one access.
    inlined: bool = False
    # Local references declared once with an lvalue (`const T& f = *s_field;`): key -> that
    # lvalue. Binding one is no access; each use accesses what it is bound to.
    reference_targets: dict[str, Node] = field(default_factory=dict)
    # In a small helper the encoder runs statement by statement (symbolic.py,
    # _computed_return): its locals' values so far, key -> term. None elsewhere.
    local_terms: dict | None = None
    # Reads of a __shared__ scalar this function stores into: read node id -> the stores
    # that reach it (a label). Two reads with one label read one value; a store between
    # them (`if (control) return; ... control = true; ... if (control)`) gives them two.
    shared_versions: dict[int, str] = field(default_factory=dict)

    def bound(self, node: Node):
        """(expression, scope) a parameter or an own field (`mask`, `this->mask` inside a
        method, set by the object's constructor) names in this calling context; None for
        anything the call did not bind."""
        if node.decl is None or node.decl.key not in self.bindings:
            return None
        if node.kind == "DECL_REF_EXPR" and node.decl.storage == "param":
            if node.decl.key in self.multi_defs and "&" not in node.decl.type \
                    and self.reaching.get(node.id) is not INCOMING:
                return None  # the function changed it before this use (`len -= pre`)
            return self.bindings[node.decl.key]
        if node.kind == "MEMBER_REF_EXPR" and (not node.children or _strip(node.children[0]).kind == "CXX_THIS_EXPR"):
            return self.bindings[node.decl.key]
        return None

    def __hash__(self) -> int:
        # equality is identity; the hash is of what the scope is for, not of its address, so
        # that sets holding scopes keep one order from run to run
        return hash(self.analysis.function.key)

    def __eq__(self, other) -> bool:
        return self is other


@dataclass(frozen=True, eq=False)
class Offset:
    """A term added to an access's position: the value of ``node`` times ``scale`` elements
    of ``unit``. Pointers carved out of one buffer at offsets counted in different element
    types (`(float*)&structs[n]`, `(int*)(floats + m)`) keep each offset in its own unit."""
    node: Node
    scope: "Scope"
    scale: int
    unit: int | str   # bytes of the element it counts; the type's spelling when its size is unknown
    # The pointer whose definition at the top of its function computes this offset, once per
    # thread, to the same value for every thread of the block (`int* n = (int*)&f[*count];`):
    # the encoding names the value after it where it cannot model the value itself (a load).
    uniform_in: str | None = None
    # the byte offset of a union's member from the union's first byte (a constant)
    member: bool = False
    # A warp's matrix tile (wmma::load_matrix_sync / store_matrix_sync): (rows, columns), the
    # rows ``node`` elements apart (the leading dimension). The offset is some element of the
    # tile: row * node + column, row < rows, column < columns (which lane takes which element
    # is the implementation's).
    tile: tuple[int, int] | None = None

    def __hash__(self) -> int:
        # (equality stays identity; a hash of the content keeps sets of offsets in one order
        # from run to run, as an address would not)
        return hash((self.node.id, self.scale, str(self.unit)))


@dataclass
class Access:
    array: str            # declaration key of the shared array
    name: str
    node: Node            # the outermost subscript
    indices: list[tuple[Node, Scope]]   # outermost dimension first
    # added to the (flattened) index, each times its scale: pointer aliases, p + n, row
    # pointers of multi-dimensional arrays (`tile[row]` moves by a whole row)
    offsets: list[Offset]
    read: bool
    write: bool
    point: tuple[int, int]  # (block, item) in the kernel's CFG
    guards: list[Guard]
    scope: Scope
    value_level: int = 0   # level of the stored value, for writes
    # a read-modify-write atomic (atomicAdd(&s[i], v)): atomics do not race with each other,
    # and their index may be any cell (a histogram's bin comes from the data)
    atomic: bool = False
    extents: list[int | None] = field(default_factory=list)  # array size per dimension
    strides: list[int] | None = None  # elements per step of each index (flattening)
    function: Function | None = None
    instance: int | None = None              # the inlined call it is in, if any
    local_point: tuple[int, int] | None = None  # (block, item) in that callee's CFG
    # Bytes of the element accessed, which the indices count (its spelling when the size is
    # unknown); offsets may count other units (casts between element sizes). Unused for an
    # access without indices and offsets: it covers its whole location.
    element: int | str = 0
    # Through a pointer another carve of the buffer starts from: its first index stays below
    # that carve's start (elements, read in the scope given)
    carve_extent: tuple[Node, Scope, str | None, Node | None, int | str] | None = None
    # what the pointer was moved by within its carve before it was handed to the helper
    # that indexes it (`store(ev_buffer + offset)`): added to the index for that check
    carve_moves: list[tuple[Node, Scope]] = field(default_factory=list)
    # A plain store of an element of the same array (`s[t] = s[0]`): where the two are one
    # element for the storing thread, the store leaves the memory as it was.
    copied_from: "Access | None" = None
    # the calls the access is made through, outermost first: those of synchronizing helpers
    # expanded into the kernel's CFG, then the inlined call it is in (if any)
    calls: tuple[Node, ...] = ()
    # Made through a reference parameter (`count += add` of `int& count`): the caller's lvalue
    # it is bound to (`n_tracks`, `s[i]` of `swap(s[i], s[j])`); ``node`` is the use in the
    # helper, where the memory is touched.
    through: Node | None = None

    @property
    def line(self) -> int:
        return self.node.line


_ZERO = Node(-1, "INTEGER_LITERAL")
_ZERO.value = 0
_ZERO.type = "int"
_LITERALS: dict[int, Node] = {0: _ZERO}
# Where a warp's own part of a buffer starts, relative to the warp's pointer (a carve
# extent's start): the part is `W` elements from there (see _per_warp_part_size).
WARP_PART_START = Node(-2, "INTEGER_LITERAL")
WARP_PART_START.value = 0
WARP_PART_START.type = "int"


def _literal(value: int) -> Node:
    """An int constant made by the analysis (a shift amount read from `s = s * 4`)."""
    node = _LITERALS.get(value)
    if node is None:
        node = _LITERALS[value] = Node(-1, "INTEGER_LITERAL")
        node.value, node.type = value, "int"
    return node


def _named_if_uniform(offset: Offset, pointer_key: str) -> Offset:
    """An offset of a pointer defined once at the top of its function, named when its value
    is the same for every thread of the block (a count loaded through a kernel parameter)."""
    if offset.uniform_in is not None or offset.node is _ZERO:
        return offset
    value = offset.scope.analysis.values.get(offset.node.id)
    if value is None or value.level > Level.BLOCK:
        return offset
    return replace(offset, uniform_in=pointer_key)


_FRAGMENT = re.compile(r"fragment<\s*(?:[\w:]*::)?(matrix_a|matrix_b|accumulator)\s*,\s*(\d+)[uUlL]*\s*,"
                       r"\s*(\d+)[uUlL]*\s*,\s*(\d+)[uUlL]*\s*,[^,>]+(?:,\s*(?:[\w:]*::)?(row_major|col_major|void))?\s*>")


def matrix_tile_shape(fragment_type: str, layout: str) -> tuple[int, int] | None:
    """(rows, columns) in memory of the tile a wmma fragment of this type loads or stores:
    matrix_a is M x K, matrix_b K x N, the accumulator M x N, each transposed when its layout
    (the fragment's, or the call's mem_col_major for an accumulator) is column-major. None
    when the type does not tell (a dependent shape, an unknown layout)."""
    m = _FRAGMENT.search(fragment_type.replace("\n", " "))
    if m is None:
        return None
    use, rows, cols, depth, order = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5)
    shape = {"matrix_a": (rows, depth), "matrix_b": (depth, cols), "accumulator": (rows, cols)}[use]
    if use == "accumulator" or order in (None, "void"):
        order = {"mem_row_major": "row_major", "mem_col_major": "col_major"}.get(layout.split("::")[-1])
    if order is None:
        return None
    return shape if order == "row_major" else (shape[1], shape[0])


def _at_start(target_offsets: list[Offset], pointer: Node, scope: "Scope") -> list[Offset]:
    """An access at a pointer: its offsets, or the pointer's own place (`*p` is p[0])."""
    return target_offsets or [Offset(_ZERO, scope, 1, element_unit(pointer))]


# The binding key of the object a method is called on (`state.step()`: `state`, in the
# caller's scope): its own fields (`pos`, `this->pos`) are that object's members.
THIS_OBJECT = "<this object>"


def call_bindings(program: Program, call: Node, callee: Function, args: list[Node], scope: Scope,
              field_keys: set[str]) -> dict:
    """What the callee's names stand for: its parameters bound to the arguments, and for a
    method, the object's fields bound to what its constructor stored in them (a cub-style
    `BlockSum(temp).sum(x)` keeps a reference to the shared TempStorage). ``field_keys``
    collects the fields bound so far in this chain of calls (read and added to)."""
    bindings = {p.key: (a, scope) for p, a in bound_arguments(callee.params, args)}
    bindings.update(template_bindings(call, callee, scope))
    callee_node = call.children[0] if call.children else None
    member = _strip(callee_node) if callee_node is not None else None
    if member is not None and member.kind == "MEMBER_REF_EXPR":
        # no object written (`step()` inside a method) is `this`
        obj = _strip(member.children[0]) if member.children else None
    else:
        obj = member_object(call)  # `each(f)`: an operator method of the object `each`
        if obj is None:
            # a free function (or a functor the template left unresolved): the fields of
            # the object the caller runs on stay bound for what it calls back
            bindings.update({k: v for k, v in scope.bindings.items() if k in field_keys})
            return bindings
        obj = _strip(obj)
    if obj is None or obj.kind == "CXX_THIS_EXPR":
        # A call on the same object: the fields keep their bindings.
        bindings.update({k: v for k, v in scope.bindings.items() if k in field_keys or k == THIS_OBJECT})
        return bindings
    if obj.kind in ("DECL_REF_EXPR", "MEMBER_REF_EXPR"):
        bindings[THIS_OBJECT] = (obj, scope)  # the object the method's own fields belong to
    fields = constructed_fields(program, obj, scope)
    if fields and callee.body is not None:
        # a field the method itself changes (`pos++`) holds the stored value only until then
        changed = _own_fields_written(callee.body, through_views=False, address_taken=True)
        fields = {k: v for k, v in fields.items() if k not in changed}
    bindings.update(fields)
    field_keys.update(fields)
    return bindings


def _own_fields_written(body: Node, *, through_views: bool, address_taken: bool) -> set[str]:
    """The fields of its object a method writes: assigns or steps (`pos = 0`, `this->pos++`);
    with `through_views`, also through an element, a cast view of the field's address or a
    field of the field (`reinterpret_cast<float4*>(&mini)[0] = v`, `box.lo.x = v`); with
    `address_taken`, a field whose address it takes counts as written. Not reference fields,
    whose assignments write what they refer to."""
    steps = ("++", "--", "post++", "post--", "&") if address_taken else ("++", "--", "post++", "post--")
    out = set()
    for n in body.walk():
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN and n.children:
            target = _strip(n.children[0])
        elif n.kind == "UNARY_OPERATOR" and n.op in steps and n.children:
            target = _strip(n.children[0])
        else:
            continue
        if through_views:
            target = _viewed_field(target)
        if target.kind == "MEMBER_REF_EXPR" and target.decl is not None \
                and "&" not in (target.decl.type or "") \
                and (not target.children or _strip(target.children[0]).kind == "CXX_THIS_EXPR"):
            out.add(target.decl.key)
    return out


def _viewed_field(target: Node) -> Node:
    """The field under an element, a cast view of its address or a field of it."""
    for _ in range(8):
        target = _strip(target)
        if target.kind in ("ARRAY_SUBSCRIPT_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR",
                           "CXX_STATIC_CAST_EXPR") and target.children:
            target = target.children[0] if target.kind == "ARRAY_SUBSCRIPT_EXPR" else target.children[-1]
        elif target.kind == "UNARY_OPERATOR" and target.op in ("*", "&") and target.children:
            target = target.children[0]
        else:
            break
    while target.kind == "MEMBER_REF_EXPR" and target.children \
            and _strip(target.children[0]).kind == "MEMBER_REF_EXPR":
        target = _strip(target.children[0])  # `box.lo.x = v`: a field of a field
    return target


def constructed_fields(program: Program, obj: Node | None, scope: Scope) -> dict:
    """The fields of an object built by a constructor call (directly or through a local
    defined once), each bound to what the constructor's member initializer stored; and the
    fields of a local object that statements right after its declaration set once
    (`View v; v.data = &s[0];`, Function.field_assignments)."""
    assigned = {}
    obj = copied_object(obj)
    local = _strip(obj) if obj is not None else None
    if local is not None and local.kind == "DECL_REF_EXPR" and local.decl is not None \
            and local.decl.storage == "param" and local.decl.key in scope.bindings:
        # a parameter (`const View& in`, or a copy of the view) stands for the caller's object
        argument, caller_scope = scope.bindings[local.decl.key]
        return constructed_fields(program, argument, caller_scope) if caller_scope is not None else {}
    if local is not None and local.kind == "DECL_REF_EXPR" and local.decl is not None:
        assigned = {k: (value, scope) for k, value in
                    scope.analysis.function.field_assignments().get(local.decl.key, {}).items()}
        if local.decl.storage == "local" and scope.analysis.function.body is not None:
            assigned = {**_init_call_fields(program, local.decl.key, scope), **assigned}
    obj = constructor_call(obj, scope.single_defs.get)
    if obj is None:
        return assigned
    ctor = program.resolve_call(obj.decl)
    if ctor is None or not ctor.member_inits:
        return assigned
    ctor_args = call_args(obj)
    ctor_scope = Scope(scope.analysis, {p.key: (a, scope) for p, a in zip(ctor.params, ctor_args)})
    return {**{field_key: (init, ctor_scope) for field_key, init in ctor.member_inits.items()}, **assigned}


def field_binding(program: Program, node: Node, scope: Scope):
    """(expression, scope) a field names in this calling context: `data` or `this->data`
    inside a method, bound by the object's constructor; `view.data` of a local object whose
    constructor (or the statements after its declaration, or the one init call handed its
    address) set it; `cta->storage` or `self->data` through pointer parameters handed the
    caller's `this` or the address of its local object. None for anything else."""
    if node.kind != "MEMBER_REF_EXPR" or node.decl is None:
        return None
    obj = _strip(node.children[0]) if node.children else None
    if obj is None or obj.kind == "CXX_THIS_EXPR":
        return scope.bound(node)
    for _ in range(8):
        if obj.kind == "UNARY_OPERATOR" and obj.op == "&" and obj.children:
            obj = _strip(obj.children[0])  # `&ranker` handed down: the local object itself
            break
        # `cta->storage` with `cta` a parameter handed the caller's `this` (or handed on)
        if obj.kind != "DECL_REF_EXPR" or obj.decl is None or obj.decl.storage != "param" \
                or not C.is_pointer_type(obj.decl.type) or obj.decl.key not in scope.bindings:
            break
        arg, caller = scope.bindings[obj.decl.key]
        if caller is None:
            return None
        obj, scope = _strip(arg), caller
        if obj.kind == "CXX_THIS_EXPR":
            return scope.bindings.get(node.decl.key)
    if obj.kind != "DECL_REF_EXPR" or obj.decl is None or obj.decl.storage not in ("local", "param"):
        return None
    if obj.decl.storage == "param" and (C.is_pointer_type(obj.decl.type)
                                        or program.field_write_counts().get(node.decl.key, 0) != 1):
        # (a struct handed by reference or by value, `step(ctx)`, stands for the caller's,
        # where nothing but the one assignment the caller's binding comes from sets the field)
        return None
    return constructed_fields(program, obj, scope).get(node.decl.key)


def _init_call_fields(program: Program, key: str, scope: Scope) -> dict:
    """Fields of a local object that the one call handed its address right after its
    declaration sets (`ranker_init(&ranker, ..., &scratch, tid)` with `self->scratch =
    scratch;` a statement of the init function's body), where that assignment is the only
    place in the program that writes the field: field key -> (value, the init call's scope)."""
    fn = scope.analysis.function
    counts = program.field_write_counts()
    out: dict = {}
    for block in fn.body.walk():
        if block.kind != "COMPOUND_STMT":
            continue
        declared = False
        for stmt in block.children:
            if stmt.kind == "DECL_STMT":
                declared = declared or any(d.kind == "VAR_DECL" and d.decl is not None and d.decl.key == key
                                           for d in stmt.children)
                continue
            call = _strip(stmt)
            if not declared or call.kind != "CALL_EXPR" or call.decl is None:
                continue
            args = call_args(call)
            handed = [i for i, a in enumerate(args) if _address_of_local(a, key)]
            callee = program.resolve_call(call.decl) if len(handed) == 1 else None
            if callee is None or callee.body is None or handed[0] >= len(callee.params):
                continue
            param = callee.params[handed[0]].key
            callee_scope = Scope(scope.analysis, {p.key: (a, scope) for p, a in bound_arguments(callee.params, args)})
            for statement in callee.body.children:
                n = _strip(statement)
                if n.kind != "BINARY_OPERATOR" or n.op != "=" or len(n.children) != 2:
                    continue
                target = _strip(n.children[0])
                base = _strip(target.children[0]) if target.kind == "MEMBER_REF_EXPR" and target.children else None
                if base is not None and base.kind == "DECL_REF_EXPR" and base.decl is not None \
                        and base.decl.key == param and target.decl is not None and counts.get(target.decl.key) == 1:
                    out.setdefault(target.decl.key, (n.children[1], callee_scope))
    return out


def _address_of_local(arg: Node, key: str) -> bool:
    n = _strip(arg)
    return n.kind == "UNARY_OPERATOR" and n.op == "&" and bool(n.children) and _names_decl(_strip(n.children[0]), key)


def function_scope(fn: Function, analysis: FunctionAnalysis, bindings: dict, program: Program) -> Scope:
    """Where a function's names resolve for the symbolic encoder, in one calling context."""
    single, multi, init, fields_assigned = _definitions(fn, program)
    scope = Scope(analysis, bindings, single, multi, fields_assigned=fields_assigned,
                  reference_targets=_reference_targets(fn, init))
    top_level = _top_level_assignments(fn, init)
    # (a local declared without a value and set once by a statement of the body, `int
    # stride; stride = gridDim.x * blockDim.x;`, is as fixed a step as one set at its
    # declaration)
    fixed = {**init, **{k: value for k, (value, _) in top_level.items()}}
    scope.inductions, scope.phases = _inductions(fn, fixed)
    scope.later_defs = {k: (value, None, end) for k, (value, end) in top_level.items()}
    defs = reaching_definitions(fn.params, analysis.cfg, analysis.live_blocks(), multi, program)
    scope.reaching = defs.unique
    scope.reaching_definition = defs.definition
    scope.loop_counters = _loop_counters(fn, defs.several, fixed)
    scope.shared_versions = _shared_scalar_versions(fn, analysis)
    return scope


def _shared_scalar_versions(fn: Function, analysis: FunctionAnalysis) -> dict[int, str]:
    """The stores of the function's own that reach each read of a __shared__ scalar it
    stores into (see Scope.shared_versions)."""
    if fn.body is None:
        return {}
    stored = set()
    for n in fn.body.walk_evaluated():
        target = None
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN and n.children:
            target = _strip(n.children[0])
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--") and n.children:
            target = _strip(n.children[0])
        if target is not None and target.kind == "DECL_REF_EXPR" and target.decl is not None \
                and target.decl.storage == "shared" and "[" not in target.decl.type:
            stored.add(target.decl.key)
    if not stored:
        return {}
    defs = reaching_definitions([], analysis.cfg, analysis.live_blocks(), stored)
    versions = {use: str(d.id if d is not None else "") for use, d in defs.definition.items()}
    versions.update((use, ",".join(str(d.id) for d in several if d is not None))
                    for use, several in defs.several.items())
    return versions


def _top_level_assignments(fn: Function, init: dict[str, Node]) -> dict[str, tuple[Node, int]]:
    """Locals declared without a value and parameters that get exactly one assignment, a
    statement of the body itself (so it runs once, before everything that follows it)."""
    if fn.body is None:
        return {}
    assigned: dict[str, int] = {}
    for n in fn.body.walk():
        t = None
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN and n.children:
            t = _strip(n.children[0])
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children:
            t = _strip(n.children[0])
        if t is not None and t.kind == "DECL_REF_EXPR" and t.decl is not None:
            assigned[t.decl.key] = assigned.get(t.decl.key, 0) + 1
    params = {p.key for p in fn.params}
    out = {}
    for stmt in fn.body.children:
        n = _strip(stmt)
        if n.kind != "BINARY_OPERATOR" or n.op != "=" or len(n.children) != 2:
            continue
        target = _strip(n.children[0])
        if target.kind != "DECL_REF_EXPR" or target.decl is None:
            continue
        key = target.decl.key
        if assigned.get(key) == 1 and key not in init and (key in params or target.decl.storage == "local"):
            out[key] = (n.children[1], stmt.end)
    return out


def _loop_counters(fn: Function, several: dict[int, tuple], single_init: dict[str, Node]) -> dict[int, "Induction"]:
    """Uses of a counter that one loop steps and that was set just before the loop: in C-style
    code one variable serves several loops (`int i; ... for (i = 0; ...; i++) ...
    for (i = 8; ...; i++)`), so it is an induction of each loop, not of the function."""
    if not several:
        return {}
    loop_of = _innermost_loops(fn.body)
    inside: dict[int, set[int]] = {}
    out: dict[int, Induction] = {}
    for use, defs in several.items():
        if len(defs) != 2 or None in defs:
            continue
        steps = [d for d in defs if _counter_step(d, single_init) is not None]
        if len(steps) != 1:
            continue
        update = steps[0]
        start = defs[0] if defs[1] is update else defs[1]
        if start.kind == "VAR_DECL" and start.children and not C.is_array_type(start.type):
            init = start.children[-1]
        elif start.kind == "BINARY_OPERATOR" and start.op == "=" and len(start.children) == 2:
            init = start.children[1]
        else:
            continue
        loop, is_increment = loop_of.get(update.id, (None, False))
        if loop is None:
            continue
        nodes = inside.get(loop.id)
        if nodes is None:  # what runs every iteration: the loop without its init statement
            nodes = inside[loop.id] = {n.id for c in loop.children if c.role != "init" for n in c.walk()}
        if use not in nodes or start.id in nodes:
            continue
        op, step = _counter_step(update, single_init)
        out[use] = Induction(init, op, step, update.line, loop.id, None if is_increment else update.start,
                             loop_stmt=loop)
    return out


def _counter_step(update: Node, single_init: dict[str, Node]) -> tuple[str, int | Node] | None:
    """(op, step) of `i++`, `i -= 2`, `s >>= 1`, `k *= 2`, and of `x += blockDim.x * gridDim.x`
    (a step the loop does not change); None for anything else."""
    if update.kind == "UNARY_OPERATOR" and update.op in ("++", "--", "post++", "post--"):
        return ("+" if "+" in update.op else "-"), 1
    written_out = _written_out_step(update)
    if written_out is not None:
        op, step_node = written_out
        step = integer_constant(step_node)
        if step is None:
            return (op, step_node) if _invariant(step_node, single_init) else None
        return op, step
    if update.kind != "COMPOUND_ASSIGNMENT_OPERATOR" or len(update.children) != 2:
        return None
    step = integer_constant(update.children[1])
    op = update.op[:-1]
    if step is None:
        return (op, update.children[1]) if op in ("+", "-") and _invariant(update.children[1], single_init) else None
    if op in ("+", "-", ">>", "<<"):
        return op, step
    if op in ("*", "/") and step > 0 and step & (step - 1) == 0:
        return ("<<" if op == "*" else ">>"), step.bit_length() - 1
    return None


def _written_out_step(update: Node) -> tuple[str, Node] | None:
    """(op, step) of a step written out, `i = i + s` or `i = s + i` (+) and `i = i - s` (-),
    as the compound `i += s` / `i -= s` would give it."""
    if update.kind != "BINARY_OPERATOR" or update.op != "=" or len(update.children) != 2:
        return None
    target, value = _strip(update.children[0]), _strip(update.children[1])
    if target.kind != "DECL_REF_EXPR" or target.decl is None or value.kind != "BINARY_OPERATOR" \
            or value.op not in ("+", "-", ">>", "<<", "*", "/") or len(value.children) != 2:
        return None
    left, right = (_strip(c) for c in value.children)
    own = lambda n: n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.key == target.decl.key
    if value.op in (">>", "<<", "*", "/"):
        # `s = s >> 1`, `s = s * 2`: a shift by a constant (a product or quotient by a power
        # of two is one)
        step = integer_constant(value.children[1]) if own(left) else None
        if step is None or step <= 0:
            return None
        if value.op in ("*", "/"):
            if step & (step - 1):
                return None
            return ("<<" if value.op == "*" else ">>"), _literal(step.bit_length() - 1)
        return value.op, value.children[1]
    if own(left) and target.decl.key not in referenced_keys(right):
        return value.op, value.children[1]
    if value.op == "+" and own(right) and target.decl.key not in referenced_keys(left):
        return "+", value.children[0]
    return None


def _product(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def element_unit(node: Node) -> int | str:
    """Bytes of the element a pointer or array expression counts in (or of the value of a
    subscript or dereference), as the compiler lays it out; the element type's spelling
    when its size is unknown (a dependent type: equal spellings are equal units)."""
    if node.element_bytes:
        return node.element_bytes
    spelling = element_spelling(node.type)
    if "dependent type" in (node.type or ""):
        # an expression of a template (`yj + threadIdx.x * DIMY` with `TYPE yj[]`) has no type
        # of its own there: it counts in the elements of the pointer it moves
        moved = _moved_pointer(node)
        if moved is not None:
            return element_unit(moved)
    return BUILTIN_ELEMENT_BYTES.get(spelling) or spelling or "?"


def _moved_pointer(node: Node) -> Node | None:
    """The pointer operand of `p + n`, `n + p`, `p - n` (through parentheses and casts)."""
    node = _strip(node)
    while node.kind == "PAREN_EXPR" and node.children:
        node = _strip(node.children[-1])
    if node.kind != "BINARY_OPERATOR" or node.op not in ("+", "-") or len(node.children) != 2:
        return None
    for child in node.children:
        t = child.type or ""
        if ("*" in t or "[" in t) and "dependent type" not in t:
            return child
    return None


def _var_type(fn: Function, key: str) -> str:
    for n in fn.body.walk():
        if n.kind == "VAR_DECL" and n.decl is not None and n.decl.key == key:
            return n.type
    for p in fn.params:
        if p.key == key:
            return p.type
    return ""



_SEVERAL = object()  # several definitions reach a use


def _carve_of(node: Node, scope: Scope, through_aliases: bool = False):
    """The carve extent of the pointer an access indexes: its own, or, for a parameter, that
    of the caller's pointer it is bound to (a helper handed `genotype` indexes its part, or
    `ev_buffer + offset` a place in it); with the positions the caller moved the pointer by
    ((node, scope) pairs, added to the access's index when its carve is checked). With
    ``through_aliases``, also through a local that names a carved pointer (`T* ev = smem;`):
    for atomics, whose data-dependent targets would otherwise reach every part. Without it,
    such a local is followed only once a parameter was: a helper handed a place in a part
    (`v.store(ev + off, n)`) writes in that part; an access through the local itself in the
    function that carves (`keys[tx * d]` with `keys = tiles`) may overflow into the next
    part, which is a bug to find."""
    moved: list[tuple[Node, Scope]] = []
    bound_once = False
    for _ in range(8):
        while node.kind == "BINARY_OPERATOR" and node.op == "+" and len(node.children) == 2 \
                and "*" in (_strip(node.children[0]).type or ""):
            moved.append((node.children[1], scope))
            node = _strip(node.children[0])
        if node.kind == "MEMBER_REF_EXPR" and node.decl is not None:
            # a view's pointer field (`base[i]` in its accessor): what its constructor stored
            bound = scope.bound(node)
            if bound is None:
                return None
            node, scope = _strip(bound[0]), bound[1]
            bound_once = True
            continue
        if node.kind != "DECL_REF_EXPR" or node.decl is None:
            return None
        carve = scope.carve_extents.get(node.decl.key)
        if carve is not None:
            return carve, moved
        if node.decl.key in scope.carved_parts:
            return None  # the last part carved (`s_b = s_a + n`): it runs to the buffer's end
        if (through_aliases or bound_once) and node.decl.storage == "local" and node.decl.key in scope.single_defs:
            # another name for a carved pointer (`T* ev_buffer = smem;`, `smem` carved after)
            node = _strip(scope.single_defs[node.decl.key])
            continue
        if node.decl.storage != "param":
            return None
        bound = scope.bound(node)
        if bound is None:
            return None
        node, scope = _strip(bound[0]), bound[1]
        bound_once = True
    return None


def _bound_lvalue(node: Node, scope: Scope):
    """A reference parameter names the caller's lvalue (`swap(s[i], s[j])` binds `a` to
    `s[i]`): that lvalue and the caller's scope, one call level up; a local reference names
    the lvalue it was declared with, in this scope; None for anything else."""
    if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage == "param" \
            and "&" in node.decl.type and "[" not in node.decl.type:
        return scope.bound(node)
    if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage == "local" \
            and node.decl.key in scope.reference_targets:
        return scope.reference_targets[node.decl.key], scope
    return None

def _address_read_from_shared(holder: Node, scope: Scope) -> bool:
    """Is ``holder`` (the object of a `->`) a pointer variable in shared memory, or a
    parameter passed one (`reserve(map)`)?"""
    for _ in range(8):
        if holder.kind != "DECL_REF_EXPR" or holder.decl is None or not C.is_pointer_type(holder.decl.type):
            return False
        if holder.decl.storage == "shared":
            return True
        bound = scope.bindings.get(holder.decl.key)
        if bound is None:
            return False
        holder, scope = _strip(bound[0]), bound[1]
    return False


def _location_name(key: str, fallback: str) -> str:
    """A location key's name for messages (`smem.partials` of `...@smem.partials`; a union's
    storage, `smem.{<union key>}`, is named by what holds it)."""
    if "@" not in key:
        return fallback
    plain = re.sub(r"\.?\{[^{}]*\}", "", key)
    name = plain.rsplit("@", 1)[-1].split("#", 1)[0]
    return name or fallback


def _display_name(key: str, node: Node) -> str:
    """The shared variable's name for messages, from its declaration key."""
    tail = key.rsplit("@", 1)[-1]
    # (a member of a shared struct, `reval.low`, reached through a pointer to it)
    return tail if all(part.isidentifier() for part in tail.split(".")) else "shared memory"


def _pointer_kept_in_shared(node: Node) -> bool:
    """A pointer whose value lives in shared memory: a pointer field (`s->dict` of a shared
    struct) or a `__shared__ float* p` variable (a field reached otherwise is a value of the
    thread's own, which this is asked of only where the base was found shared)."""
    return C.is_pointer_type(node.type) and (node.kind == "MEMBER_REF_EXPR" or node.kind == "DECL_REF_EXPR"
                                             and node.decl is not None and node.decl.storage == "shared")


def _strip(n: Node) -> Node:
    return strip_wrappers(n, POINTER_WRAPPERS)


def _inductions(fn: Function, single_init: dict[str, Node]):
    """Variables with one initial value and one update by a step the loop does not change
    (i += 4, s >>= 1, x += blockDim.x); and variables with one such update in each of
    several loops that follow one another, outside any other loop (phases)."""
    updates: dict[str, list[tuple[str, int | None]]] = {}
    loop_of = _innermost_loops(fn.body)
    for n in fn.body.walk():
        op = None
        step = None
        target = None
        if n.kind == "COMPOUND_ASSIGNMENT_OPERATOR" and n.op not in ("+=", "-=", ">>=", "<<=", "*=", "/=") \
                and len(n.children) == 2:
            target, op = _strip(n.children[0]), n.op[:-1]  # `m &= 6`: an update, but no step
        elif n.kind == "COMPOUND_ASSIGNMENT_OPERATOR" and len(n.children) == 2:
            target, op = _strip(n.children[0]), n.op[:-1]
            step = _literal_constant(n.children[1])
            if step is None and op in ("+", "-") and _invariant(n.children[1], single_init):
                step = n.children[1]  # a step the loop does not change (blockDim.x, a parameter)
            if op in ("*", "/"):
                if step is not None and step > 0 and step & (step - 1) == 0:
                    op, step = ("<<" if op == "*" else ">>"), step.bit_length() - 1
                else:
                    step = None
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--") and n.children:
            target, op, step = _strip(n.children[0]), "+" if "+" in n.op else "-", 1
        elif n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2:
            target = _strip(n.children[0])
            op, step = "=", None
            written_out = _written_out_step(n)
            if written_out is not None:
                op, step_node = written_out
                step = _literal_constant(step_node)
                if step is None and _invariant(step_node, single_init):
                    step = step_node
        if target is not None and target.kind == "DECL_REF_EXPR" and target.decl is not None:
            updates.setdefault(target.decl.key, []).append((op, step, n))
    out = {}
    phases: dict[str, list[Induction]] = {}
    for key, ups in updates.items():
        if len(ups) == 1 and ups[0][1] is not None and ups[0][0] != "=" and key in single_init:
            update = ups[0][2]
            loop, is_increment = loop_of.get(update.id, (None, False))
            out[key] = Induction(single_init[key], ups[0][0], ups[0][1], update.line,
                                 loop.id if loop is not None else None,
                                 None if is_increment else update.start, loop)
        elif len(ups) > 1 and key in single_init and all(st is not None and op != "=" for op, st, _ in ups):
            steps = []
            for op, step, update in ups:
                loop, is_increment = loop_of.get(update.id, (None, False))
                if loop is None or loop.kind not in ("FOR_STMT", "WHILE_STMT") or loop.id in loop_of:
                    break  # outside a loop, or in a loop inside another one
                steps.append(Induction(single_init[key], op, step, update.line, loop.id,
                                       None if is_increment else update.start, loop))
            else:
                steps.sort(key=lambda i: i.loop_stmt.start)
                if len({i.loop for i in steps}) == len(steps) and all(
                        x.loop_stmt.end <= y.loop_stmt.start for x, y in zip(steps, steps[1:])):
                    phases[key] = steps
    return out, phases


@dataclass(frozen=True)
class Induction:
    """A variable that changes by a fixed step once per iteration of its loop. Inductions of
    one loop share its iteration count (`offset *= 2` beside `d >>= 1` keeps offset * d
    fixed)."""
    init: Node
    op: str               # + - << >>
    step: int | Node
    line: int
    loop: int | None      # the innermost loop statement holding the update
    body_offset: int | None  # where the update sits in the loop body; None: the loop's increment
    loop_stmt: Node | None = field(default=None, compare=False)

    def updates_before(self, node: Node) -> int:
        """Updates of the current iteration that have run when ``node`` is evaluated."""
        return 1 if self.body_offset is not None and self.body_offset < node.start else 0


def _innermost_loops(body: Node) -> dict[int, tuple[Node, bool]]:
    """node id -> (innermost loop statement around it, is it that loop's increment)."""
    out: dict[int, tuple[Node, bool]] = {}
    stack: list[tuple[Node, tuple[Node, bool] | None]] = [(body, None)]
    while stack:
        node, loop = stack.pop()
        if loop is not None:
            out[node.id] = loop
        for c in node.children:
            if node.kind in ("FOR_STMT", "WHILE_STMT", "DO_STMT"):
                stack.append((c, (node, c.role == "inc") if c.role != "init" else loop))
            else:
                stack.append((c, loop))
    return out


def _invariant(node: Node, single_init: dict[str, Node]) -> bool:
    """Is the expression the same every time it is evaluated (built from parameters, the
    block shape, constants and locals defined once)?"""
    for n in node.walk():
        if n.kind in ("CALL_EXPR", "ARRAY_SUBSCRIPT_EXPR") or (n.kind == "UNARY_OPERATOR" and n.op == "*"):
            return False
        if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "local" \
                and n.decl.key not in single_init:
            return False
        if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "builtin" \
                and n.decl.name == "threadIdx":
            return False
    return True


def _literal_constant(node: Node) -> int | None:
    """The value of an expression of integer literals (template arguments substituted into
    an instantiation, `nwarps * WARP_SIZE`), or None."""
    node = _strip(node)
    if node.kind == "INTEGER_LITERAL":
        return node.value if isinstance(node.value, int) else None
    if node.kind == "DECL_REF_EXPR" and node.decl is not None and isinstance(node.decl.value, int):
        return node.decl.value
    if node.kind == "BINARY_OPERATOR" and len(node.children) == 2 and node.op in ("+", "-", "*", "/", "<<"):
        a, b = (_literal_constant(c) for c in node.children)
        if a is None or b is None:
            return None
        left, right = node.children
        t = C.operation_type(node.op, node.type, left.type, right.type)
        return C.binary(node.op, a, b, t or C.UNKNOWN_INTEGER)
    return None


def _barrier_variable(node: Node) -> str | None:
    """The __shared__ variable a barrier operand names (`bar`, `&bar`)."""
    n = _strip(node)
    while n.kind == "UNARY_OPERATOR" and n.op == "&" and n.children:
        n = _strip(n.children[0])
    if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "shared":
        return n.decl.key
    return None


def _whole_block_count(count: Node) -> bool:
    """An expected-arrival count that is the block's thread count: `blockDim.x` (times the
    other dimensions) or a thread block's `size()` / `num_threads()`."""
    for n in count.walk():
        if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "builtin" \
                and n.decl.name == "blockDim":
            return True
        if n.kind == "CALL_EXPR" and callee_name(n) in ("size", "num_threads"):
            obj = member_object(n)
            if obj is not None and "thread_block" in (obj.type or "") and "tile" not in (obj.type or ""):
                return True
    return False


def whole_block_barriers(program: Program) -> tuple[frozenset[str], bool]:
    """The __shared__ `cuda::barrier` variables initialized to expect the whole block, and
    whether every barrier the program initializes does."""
    keys = set()
    others = False
    for fn in program.functions.values():
        if fn.body is None or not fn.mentions("init"):
            continue
        for n in fn.body.walk():
            if n.kind != "CALL_EXPR" or callee_name(n) != "init":
                continue
            args = call_args(n)
            for event in call_events(n):
                if event.kind != MBAR_INIT or event.mbar is None:
                    continue
                count = args[1] if member_object(n) is None and len(args) > 1 else (args[0] if args else None)
                base = _barrier_variable(event.mbar)
                if base is not None and count is not None and _whole_block_count(count):
                    keys.add(base)
                else:
                    others = True
    return frozenset(keys), bool(keys) and not others


def _definitions(fn: Function, program: Program) -> tuple[dict[str, Node], set[str], dict[str, Node], set[str]]:
    """Locals assigned exactly once (at their declaration), those assigned more often, the
    declarations' values, and the variables whose fields are assigned."""
    counts: dict[str, int] = {}
    init: dict[str, Node] = {}
    fields_assigned: set[str] = set()
    for n in fn.body.walk():
        if n.kind == "VAR_DECL" and n.decl is not None:
            counts[n.decl.key] = counts.get(n.decl.key, 0) + 1
            if n.children and not C.is_array_type(n.type):
                init[n.decl.key] = n.children[-1]
        elif n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN \
                and n.children:
            t = _strip(n.children[0])
            if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                counts[t.decl.key] = counts.get(t.decl.key, 0) + 2
            _note_field_target(t, fields_assigned)
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children:
            t = _strip(n.children[0])
            if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                counts[t.decl.key] = counts.get(t.decl.key, 0) + 2
            _note_field_target(t, fields_assigned)
        elif n.kind == "CALL_EXPR" and n.decl is not None:
            # an argument bound to a non-const reference may be assigned by the callee
            # (`cuda::std::tie(x, y) = f()`, `sincosf(a, &s, &c)` takes addresses: above)
            for i in program.written_reference_arguments(n) or ():
                args = call_args(n)
                t = _strip(args[i]) if i < len(args) else None
                if t is not None and t.kind == "DECL_REF_EXPR" and t.decl is not None \
                        and "&" not in t.decl.type and "[" not in t.decl.type:
                    # (a reference is not reseated, nor an array replaced, through one)
                    counts[t.decl.key] = counts.get(t.decl.key, 0) + 2
        elif n.kind == "ASM_STMT":
            lane = lane_id_target(n)
            lane = _strip(lane) if lane is not None else None
            if lane is not None and lane.kind == "DECL_REF_EXPR" and lane.decl is not None \
                    and counts.get(lane.decl.key) == 1 and lane.decl.key not in init:
                # `int lane; asm("mov.u32 %0, %%laneid;" : "=r"(lane));`: set once, to the lane
                init[lane.decl.key] = LANE_ID
                continue
            for operand, _ in asm_written_operands(n):  # `asm("..." : "+r"(v))` sets v
                t = _strip(operand)
                if t.kind == "DECL_REF_EXPR" and t.decl is not None:
                    counts[t.decl.key] = counts.get(t.decl.key, 0) + 2
    for p in fn.params:
        counts[p.key] = counts.get(p.key, 0) + 1
    single = {k: v for k, v in init.items() if counts.get(k) == 1}
    multi = {k for k, c in counts.items() if c > 1}
    return single, multi, init, fields_assigned


def _note_field_target(target: Node, fields_assigned: set[str]) -> None:
    """Add the variable an assigned field or element belongs to (not through a pointer)."""
    if target.kind not in ("MEMBER_REF_EXPR", "ARRAY_SUBSCRIPT_EXPR"):
        return
    while target.kind in ("MEMBER_REF_EXPR", "ARRAY_SUBSCRIPT_EXPR") and target.children:
        inner = _strip(target.children[0])
        if "*" in inner.type and "[" not in inner.type:
            return  # a store through a pointer field writes memory, not the variable
        target = inner
    if target.kind == "DECL_REF_EXPR" and target.decl is not None:
        fields_assigned.add(target.decl.key)


@dataclass
class _BlockContext:
    """Which function context a block of the expanded kernel CFG belongs to."""

    scope: Scope
    guards: list[Guard]            # decisions that control the block (callers' included)
    cond_level: int | None = None  # level of the block's branch condition, if it branches
    calls: tuple[Node, ...] = ()   # the calls whose expansion the block is in, outermost first


# Bounds on expanding synchronizing helpers into the kernel's CFG.
_MAX_EXPANSION_DEPTH = 8
_MAX_EXPANDED_BLOCKS = 4000


class KernelAccesses:
    """All shared accesses of one kernel, and its barrier intervals.

    Device functions that synchronize (a barrier or a warp sync anywhere in their call tree)
    are expanded in place: the kernel's CFG is split at the call and the callee's CFG is
    copied in between, with the callee analyzed in the caller's context. Barrier intervals
    then span calls: a helper that writes a shared buffer after its last barrier is seen to
    race with the next call's reads, and loop-carried pairs cross the helper's body."""

    def __init__(self, program: Program, service: UniformityService, kernel: Function):
        self.program = program
        self.service = service
        # (cuda::barrier variables that expect the whole block, whether all of them do)
        self._full_barriers: tuple[frozenset[str], bool] | None = None
        # guard decisions (node id, scope id) proved the same for the whole block, or not
        self.proven_uniform: dict[tuple[int, int], bool] = {}
        self.kernel = kernel
        self.analysis = service.analyze(kernel)
        self.accesses: list[Access] = []
        self.expanded_calls: set[int] = set()  # call nodes whose callee body is in the CFG
        # a member of a shared struct (its location key) -> the struct variable's key
        self.member_roots: dict[str, str] = {}
        # locations that are a union's storage, shared by its members (_member_location)
        self.union_locations: set[str] = set()
        # block code (races.py: _block_code), once
        self.block_code: bool | None = None
        self._returning: set[str] = set()  # functions whose returned pointer is being followed
        # Every `extern __shared__ T buf[]` of a kernel and its helpers starts at the same
        # byte: one location, keyed by the first such declaration met
        self._dynamic_shared_key: str | None = None
        self._object_stores: dict[str, bool] = {}  # method key -> stores into its own object
        self._field_keys: set[str] = set()  # object fields bound by a constructor
        self._naming_shared: dict[str, bool] = {}
        self._scoping: set[str] = set()  # functions whose out-parameters are being followed
        self.contexts: dict[int, _BlockContext] = {}
        # inlined calls: instance id -> (callee block intervals, callee warp intervals)
        self.instances: dict[int, tuple[BarrierIntervals, BarrierIntervals]] = {}
        # intervals between warp rendezvous (see rendezvous_intervals), built when asked for:
        # the kernel's, and each inlined call's
        self._rendezvous: dict[int | None, BarrierIntervals] = {}
        self._instance_cfgs: dict[int, tuple[CFG, set[int]]] = {}
        # each inlined call's outermost call (in the kernel or a helper it expands)
        self.instance_calls: dict[int, Node] = {}
        self._rendezvous_callees: dict[str, bool] = {}
        self.uses_y, self.uses_z = _uses_dimensions(program, kernel)
        self.launch_block_dim = service.launch_shapes.block_dim(kernel)
        self.block_relations = service.launch_shapes.relations(kernel)
        self.grid_relations = service.launch_shapes.grid_relations(kernel)
        self.argument_constants = service.launch_shapes.argument_constants(kernel)
        self.argument_facts = service.launch_shapes.argument_facts(kernel)
        self.argument_relations = service.launch_shapes.argument_relations(kernel)
        self.unknown_barrier_calls = False
        # solver queries of the kernel's race checks that ran out of their budget (races.py)
        self.solver_unknowns = 0
        self._known_parameters: dict[str, int] | None = None
        self._collective_accesses: list[Access] = []
        root = self._scope(kernel, self.analysis, {})
        self.kernel_scope = root  # where the kernel's own names resolve (its launch bound)
        # `if (bad) __trap();` or `__builtin_assume(ok)` at the kernel's top level: every
        # access happens with !bad / ok.
        self.preconditions = [Guard(cond, holds, int(self.analysis.values.get(cond.id, _U).level), root)
                              for cond, holds in kernel_preconditions(kernel)]
        self.cfg = self._expanded_cfg(root)
        self.live = self.cfg.reachable() | {self.cfg.exit}
        cfg, live = self.cfg, self.live
        self.cond_levels = {b: ctx.cond_level for b, ctx in self.contexts.items()
                            if ctx.cond_level is not None and b in live}
        self.block_intervals = BarrierIntervals(cfg, live, lambda item: self._barrier(item, warp=False),
                                                self._runs_once)
        self.warp_intervals = BarrierIntervals(cfg, live, lambda item: self._barrier(item, warp=True),
                                               self._runs_once)
        # Waits on one `cuda::barrier` per group of threads (`bar = &bars[sample];
        # bar->arrive_and_wait();`): the index that picks a thread's barrier, and the
        # intervals between those waits (and the block's barriers). None where the kernel has
        # no such waits, or picks its barriers in more than one way.
        self.group_barrier: tuple[Node, Scope] | None = None
        self.group_intervals: BarrierIntervals | None = None
        waits = self._group_waits()
        if waits:
            picks = {(structural_key(index), id(scope)) for index, scope in waits.values()}
            if len(picks) == 1:
                self.group_barrier = next(iter(waits.values()))
                self.group_intervals = BarrierIntervals(
                    cfg, live, lambda item: self._barrier(item, warp=False) or item.id in waits, self._runs_once)
        for b in sorted(live):
            ctx = self.contexts.get(b)
            if ctx is None:
                continue
            for i, item in enumerate(cfg.blocks[b].items):
                self._collect(item, (b, i), self.preconditions + ctx.guards, ctx.scope, depth=0,
                              instance=None, local=None)
        for access in self._collective_accesses:
            if access.point[0] in live:
                access.guards = self.preconditions + access.guards
                self._add(access, None, None)

    # -- the kernel's CFG with synchronizing helpers expanded --
    def _runs_once(self, loop: Node) -> bool:
        shape = self.service.default_block_dim or self.kernel.block_dim or self.launch_block_dim
        if shape is None and not self.block_relations:
            # No launch fixes the shape: the loop runs once if it does for every shape the
            # race pairs are decided for (`d = blockDim.x / 2; d > 0` does for whole warps).
            return first_test_passes_for_all(loop, admitted_block_shapes(
                self.uses_y, self.uses_z, self.kernel.launch_bounds), self.kernel.body)
        if self._known_parameters is None:
            self._known_parameters = known_parameters(self.kernel, shape)
        return first_test_passes(loop, shape, self._known_parameters, self.kernel.body)

    def _expanded_cfg(self, root: Scope) -> CFG:
        blocks: list[Block] = []
        entry, exit_ = self._copy_function(root, [], blocks, depth=0)
        return CFG(blocks, entry, exit_)

    def _copy_function(self, scope: Scope, call_guards: list[Guard], blocks: list[Block],
                       depth: int, calls: tuple[Node, ...] = ()) -> tuple[int, int]:
        """Copy one function context's CFG into ``blocks``; returns its (entry, exit)."""
        fn = scope.analysis.function
        cfg, live, _ = self.service.cfg_of(fn)
        ids: dict[int, int] = {}
        for b in sorted(live):
            ids[b] = len(blocks)
            blocks.append(Block(ids[b]))
        for b in sorted(live):
            old, new = cfg.blocks[b], blocks[ids[b]]
            new.items = list(old.items)
            new.branch, new.branch_stmt, new.branch_kind = old.branch, old.branch_stmt, old.branch_kind
            guards = call_guards + [Guard(c.cond, c.polarity, int(c.level), scope)
                                    for c in scope.analysis.block_controllers.get(b, ())]
            level = scope.analysis.cond_levels.get(b)
            self.contexts[new.id] = _BlockContext(scope, guards, int(level) if level is not None else None, calls)
        for b in sorted(live):
            succs = cfg.blocks[b].succs
            taken = _constant_branch(cfg.blocks[b], scope.analysis)
            if taken is not None:
                succs = [succs[0 if taken else 1]]  # the other arm cannot run here
            for s in succs:
                if s in ids:
                    _link(blocks, ids[b], ids[s])
        for b in sorted(live):
            self._expand_calls(blocks, ids[b], depth)
        return ids[cfg.entry], ids[cfg.exit]

    def _expand_calls(self, blocks: list[Block], block_id: int, depth: int) -> None:
        """Split the block after each item that calls a synchronizing helper, and put a copy
        of the helper's CFG (in the caller's context) between the two halves."""
        if depth >= _MAX_EXPANSION_DEPTH:
            return
        current = blocks[block_id]
        ctx = self.contexts[block_id]
        i = 0
        while i < len(current.items):
            item = current.items[i]
            is_branch = current.branch is not None and i == len(current.items) - 1
            storage = None if is_branch else self._collective_storage(item, ctx.scope)
            if storage is not None and len(blocks) <= _MAX_EXPANDED_BLOCKS:
                # A CUB block collective: its threads store partials into the TempStorage, meet
                # at its barrier, and read the partials back after it; nothing orders those
                # reads before the next use of the storage (CUB asks for a barrier there).
                call, key, name = storage
                before, after = _placeholder(call), _placeholder(call)
                rest = self._split(blocks, current, ctx, current.items[:i] + [before, item],
                                   [after] + current.items[i + 1:])
                _link(blocks, current.id, rest.id)
                for point, write in (((current.id, i), True), ((rest.id, 0), False)):
                    self._collective_accesses.append(Access(
                        array=key, name=name, node=call, indices=[], offsets=[], read=not write,
                        write=write, point=point, guards=list(ctx.guards), scope=ctx.scope,
                        value_level=int(Level.BLOCK) if write else 0,
                        function=ctx.scope.analysis.function))
                current, ctx, i = rest, self.contexts[rest.id], 1
                continue
            # (a call in the branch's own condition, `if (reduce_and_sync(s))`, runs before the
            # branch: the branch moves to the block after the call's copy)
            calls = self._synchronizing_calls(item, ctx.scope)
            if not calls or len(blocks) > _MAX_EXPANDED_BLOCKS:
                i += 1
                continue
            # The rest of the block moves to a new block after the calls.
            rest = self._split(blocks, current, ctx, current.items[:i + 1], current.items[i + 1:])
            tail = current.id
            for call, callee, sub_scope in calls:
                self.expanded_calls.add(call.id)
                entry, exit_ = self._copy_function(sub_scope, ctx.guards, blocks, depth + 1, ctx.calls + (call,))
                _link(blocks, tail, entry)
                tail = exit_
            _link(blocks, tail, rest.id)
            current, ctx, i = rest, self.contexts[rest.id], 0

    def _split(self, blocks: list[Block], current: Block, ctx, head: list[Node], tail: list[Node]) -> Block:
        """Keep ``head`` in ``current`` and move ``tail`` (with the branch and the successors)
        to a new block, in the same context; the two are not linked yet."""
        rest = Block(len(blocks), items=tail, branch=current.branch,
                     branch_stmt=current.branch_stmt, branch_kind=current.branch_kind)
        blocks.append(rest)
        self.contexts[rest.id] = _BlockContext(ctx.scope, ctx.guards, ctx.cond_level, ctx.calls)
        ctx.cond_level = None
        for s in list(current.succs):
            _unlink(blocks, current.id, s)
            _link(blocks, rest.id, s)
        current.items = head
        current.branch = current.branch_stmt = None
        current.branch_kind = ""
        return rest

    def _collective_storage(self, item: Node, scope: Scope):
        """(call, shared location, name) of a CUB block collective in the item whose object
        was built on a shared TempStorage (`BlockReduce<T, N>(temp).Sum(x)`)."""
        for n in item.walk_evaluated():
            if n.kind != "CALL_EXPR":
                continue
            prim = P.classify(n)
            if prim is None or prim.category != P.BLOCK_BARRIER or not prim.name.startswith("cub::"):
                continue
            obj = member_object(n)
            if obj is None:
                continue
            stripped = _strip(obj)
            if stripped.kind == "DECL_REF_EXPR" and stripped.decl is not None:
                init = scope.single_defs.get(stripped.decl.key)
                if init is None:
                    continue
                stripped = init
            for arg in stripped.walk():
                if arg.kind not in ("DECL_REF_EXPR", "MEMBER_REF_EXPR", "UNARY_OPERATOR"):
                    continue
                found = self._shared_base(arg, scope) if arg.kind != "UNARY_OPERATOR" else None
                if found is None:
                    target = self._pointer_target(arg, scope) if arg.kind != "MEMBER_REF_EXPR" else None
                    found = (target[0], _display_name(target[0], arg)) if target is not None else None
                if found is not None:
                    return n, found[0], found[1]
        return None

    def _synchronizing_calls(self, item: Node, scope: Scope):
        out = []
        for n in item.walk_evaluated():
            if n.kind != "CALL_EXPR":
                continue
            if P.classify(n) is not None:
                continue
            callee = self.program.resolve_call(n.decl)
            if callee is None or callee.body is None or callee.has_errors:
                continue
            if not self._contains_barrier(callee, warp=True, seen=set()):
                continue
            outer_env = scope.analysis.call_envs.get(n.id)
            if callee.is_lambda and outer_env is None:
                continue  # (a lambda whose captures the caller's analysis did not record)
            args = call_args(n)
            sub = self._callee_analysis(n, callee, args, scope, outer_env)
            bindings = self._call_bindings(n, callee, args, scope)
            if callee.is_lambda:
                bindings.update(self._capture_bindings(callee, scope))
            out.append((n, callee, self._scope(callee, sub, bindings)))
        return out

    def _scope(self, fn: Function, analysis: FunctionAnalysis, bindings) -> Scope:
        scope = function_scope(fn, analysis, bindings, self.program)
        carved_from: dict[str, list[tuple[Node, str | None]]] = {}
        dynamic_bases: set[str] = set()  # `extern __shared__ T buf[]` carved from by name
        top_level = {d.decl.key for stmt in fn.body.children if stmt.kind == "DECL_STMT"
                     for d in stmt.children if d.kind == "VAR_DECL" and d.decl is not None}
        for key, init in scope.single_defs.items():
            if "*" not in _var_type(fn, key) and "&" not in _var_type(fn, key):
                continue
            target = self._pointer_target(init, scope)
            if target is not None:
                if key in top_level:
                    target = (target[0], [_named_if_uniform(o, key) for o in target[1]])
                scope.pointer_alias[key] = target
                start = _carve_start(init)
                count_value = scope.analysis.values.get(_strip(start[1]).id) if start is not None else None
                if start is not None and count_value is not None and count_value.level > Level.BLOCK:
                    # a thread's own place (`smemT + lane_id() * ITEMS`, `smemT + lane_id()`):
                    # a view each thread makes, not a part of the buffer that ends where the
                    # next begins; a warp's own part (`s_words + warp_idx * warp_words`) is
                    # one of `warp_words` elements that the warp indexes within
                    size = _per_warp_part_size(start[1], scope.analysis)
                    if size is not None:
                        scope.carve_extents.setdefault(key, (size, scope, None, WARP_PART_START, start[2]))
                    start = None
                if start is not None:
                    # the count, and the name of the unknown it is where the encoder cannot
                    # read it (the carved pointer's own offset, see races._index_term)
                    shared_unknown = key if key in top_level else None
                    carved_from.setdefault(start[0].key, []).append((start[1], shared_unknown, key, init, start[2]))
                    scope.carved_parts.add(key)
                    if _is_dynamic_shared(start[0]):
                        dynamic_bases.add(start[0].key)
        for key, starts in carved_from.items():
            if not (key in scope.pointer_alias or key in dynamic_bases):
                continue
            if len(starts) == 1:
                scope.carve_extents[key] = (starts[0][0], scope, starts[0][1], None, starts[0][4])
                continue
            # Several parts carved from one buffer at their own counts (`sdx = &smem[0]`,
            # `sdy = &smem[n]`, `sdz = &smem[2 * n]`): laid out in the order they are
            # defined, each part ends where the next one starts.
            starts.sort(key=lambda s: s[3].start)
            for (count, _, part, _, unit), (next_count, unknown, _, _, _) in zip(starts, starts[1:]):
                if part not in scope.carve_extents:
                    scope.carve_extents[part] = (next_count, scope, unknown, count, unit)
        if fn.key not in self._scoping:
            self._scoping.add(fn.key)
            try:
                self._out_parameters(fn, scope)
            finally:
                self._scoping.discard(fn.key)
        return scope

    def _out_parameters(self, fn: Function, scope: Scope) -> None:
        """Locals that a call statement of the body fills through an `int&` parameter the
        callee assigns once (`load(s, ai, bi);` with `ai = threadIdx.x;` inside): after that
        statement they hold the callee's value, read in the callee's context."""
        first_use: dict[str, int] = {}
        declared_bare = set()
        for n in fn.body.walk():
            if n.kind == "DECL_REF_EXPR" and n.decl is not None:
                first_use[n.decl.key] = min(n.start, first_use.get(n.decl.key, n.start))
            elif n.kind == "VAR_DECL" and n.decl is not None and not n.children:
                declared_bare.add(n.decl.key)
        if not declared_bare:
            return
        for stmt in fn.body.children:
            call = _strip(stmt)
            if call.kind != "CALL_EXPR" or P.classify(call) is not None:
                continue
            callee = self.program.resolve_call(call.decl)
            if callee is None or callee.body is None or callee.is_lambda or callee.has_errors:
                continue
            args = call_args(call)
            outs = []
            for param, arg in zip(callee.params, args):
                target = _strip(arg)
                if "&" not in param.type or "const" in param.type or target.kind != "DECL_REF_EXPR" \
                        or target.decl is None or target.decl.key not in declared_bare \
                        or target.decl.key in scope.later_defs:
                    continue
                # Written nowhere else: every other mention of it comes after this call.
                if first_use.get(target.decl.key, stmt.start) < stmt.start:
                    continue
                outs.append((param, target.decl.key))
            if not outs:
                continue
            sub = self._callee_analysis(call, callee, args, scope)
            callee_scope = self._scope(callee, sub, self._call_bindings(call, callee, args, scope))
            for param, key in outs:
                value = callee_scope.later_defs.get(param.key)
                if value is not None and value[1] is None:
                    scope.later_defs[key] = (value[0], callee_scope, stmt.end)

    def _callee_analysis(self, call: Node, callee: Function, args: list[Node], scope: Scope,
                         outer_env: dict | None = None) -> FunctionAnalysis:
        """The callee's uniformity in this call's context: the caller's values of the arguments
        (missing ones unknown), the kernel's block shape, whether its object is __shared__, and
        what the caller's analysis knew at the call (a lambda's captures, the fields of the
        object a method runs on), as the checks' walk of the calls has it."""
        if outer_env is None:
            outer_env = scope.analysis.call_envs.get(call.id)
        arg_values = tuple(scope.analysis.values.get(a.id, _U) for a in args)
        return self.service.analyze(
            callee, arg_values[:len(callee.params)] + tuple(_U for _ in callee.params[len(arg_values):]),
            shape=self.analysis.shape, outer_env=outer_env,
            object_in_shared=call.id in scope.analysis.shared_object_calls)

    def _call_bindings(self, call: Node, callee: Function, args: list[Node], scope: Scope) -> dict:
        return call_bindings(self.program, call, callee, args, scope, self._field_keys)

    def _constructed_fields(self, obj: Node | None, scope: Scope) -> dict:
        return constructed_fields(self.program, obj, scope)

    def _field_binding(self, node: Node, scope: Scope):
        return field_binding(self.program, node, scope)

    def _stores_into_object(self, call: Node) -> bool:
        """Is the call a method called on an element of an array (`a[i].set(v)`,
        `a[i].box.load(v)`) that stores into its object? (The accesses of a method on a named
        object, `state.step()` or `p->step()`, are followed field by field inside it.)"""
        member = _strip(call.children[0]) if call.children else None
        if member is None or member.kind != "MEMBER_REF_EXPR" or not member.children or call.decl is None:
            return False
        obj = _strip(member.children[0])
        while obj.kind == "MEMBER_REF_EXPR" and obj.children and not C.is_pointer_type(_strip(obj.children[0]).type):
            obj = _strip(obj.children[0])
        if obj.kind != "ARRAY_SUBSCRIPT_EXPR":
            return False
        callee = self.program.resolve_call(call.decl)
        if callee is None or callee.body is None or callee.is_lambda:
            return False
        if callee.key not in self._object_stores:
            self._object_stores[callee.key] = bool(_own_fields_written(callee.body, through_views=True, address_taken=False))
        return self._object_stores[callee.key]

    def _returned_pointer(self, call: Node, scope: Scope):
        """What a function that hands out shared memory returns (the SharedMemory<T>
        conversion operator, `float* buffer() { extern __shared__ float s[]; return s; }`)."""
        callee = self.program.resolve_call(call.decl)
        if callee is None or callee.body is None or callee.is_lambda or callee.key in self._returning:
            return None
        returns = [n for n in callee.body.walk() if n.kind == "RETURN_STMT" and n.children]
        if len(returns) != 1:
            return None
        args = call_args(call)
        bindings = self._call_bindings(call, callee, args, scope)
        self._returning.add(callee.key)
        try:
            sub = self._scope(callee, self.service.analyze(callee, shape=self.analysis.shape), bindings)
            return self._pointer_target(returns[0].children[0], sub)
        finally:
            self._returning.discard(callee.key)

    def _pointer_target(self, node: Node, scope: Scope):
        """(shared location, offsets) a pointer expression points into: ``s``, ``&s[i]``,
        ``s + i``, ``p + i`` for an alias p, or a parameter bound to one of these. Casts to
        other element types are followed: each offset keeps the unit it counts, so views
        and sub-arrays carved out of one buffer stay one location, compared by bytes."""
        base = _strip(node)
        if base.kind == "UNARY_OPERATOR" and base.op == "&" and base.children:
            inner = _strip(base.children[0])
            if inner.kind == "ARRAY_SUBSCRIPT_EXPR" and len(inner.children) == 2:
                target = self._pointer_target(inner.children[0], scope)
                if target is None:
                    return None
                # `&tile[i][j]` of a `T tile[N][M][2]`: j steps over a whole `T[2]`
                row = C.array_extents(inner.type) if "[" in inner.type else []
                if not all(e is not None for e in row):
                    return None
                return target[0], target[1] + [Offset(inner.children[1], scope, _product(row),
                                                      element_unit(inner))]
            if "[" not in inner.type:
                # &state of a shared struct or scalar (`state_s* s = &state_g;`): s->field is
                # that struct's field
                whole = self._shared_base(inner, scope)
                if whole is not None:
                    return whole[0], self._pointee_offsets(inner, scope) + self._union_offsets(inner, scope)
                return None
            # the address of a whole array (`(float *) &smem`): where the array starts, as
            # the array itself decays to
            return self._pointer_target(inner, scope)
        if base.kind == "ARRAY_SUBSCRIPT_EXPR" and len(base.children) == 2 and "*" in base.type \
                and "[" not in base.type:
            # an element of a local array of pointers, read where it was stored in the same
            # trip (`counters[i] = &s.digit[d][warp]; ... *counters[i]`)
            stored = _stored_pointer(base, scope.analysis.function.body)
            return self._pointer_target(stored, scope) if stored is not None else None
        if base.kind == "ARRAY_SUBSCRIPT_EXPR" and len(base.children) == 2 and "[" in base.type:
            # tile[row] of a multi-dimensional array: a pointer to that row
            row = C.array_extents(base.type)
            target = self._pointer_target(base.children[0], scope)
            if target is not None and row and all(e is not None for e in row):
                return target[0], target[1] + [Offset(base.children[1], scope, _product(row), element_unit(base))]
            return None
        if base.kind == "BINARY_OPERATOR" and base.op in ("+", "-") and len(base.children) == 2:
            left, right = base.children
            target = self._pointer_target(left, scope)
            if target is not None:
                return target[0], target[1] + [Offset(right, scope, 1 if base.op == "+" else -1,
                                                      element_unit(base))]
            return None
        if base.kind == "CALL_EXPR" and P.classify(base) is None:
            return self._returned_pointer(base, scope)
        if base.kind == "UNARY_OPERATOR" and base.op == "*" and base.children and "*" not in base.type:
            # the object a pointer points at, bound to a reference (`S& s = *(S*)smem;`)
            return self._pointer_target(base.children[0], scope)
        field = self._field_binding(base, scope)
        if field is not None:
            return self._pointer_target(*field)
        if base.kind == "DECL_REF_EXPR" and base.decl is not None and base.decl.storage in ("param", "local") \
                and base.decl.key in scope.multi_defs and "*" in base.type and "&" not in base.decl.type:
            # a pointer the function moves (`out += n`) or sets after its declaration
            # (`T *buf; if constexpr (in_shared) buf = smem; else buf = scratch;`): what it
            # holds at this use, where one definition alone reaches it
            definition = scope.reaching_definition.get(base.id, _SEVERAL)
            if definition is not None:
                return self._moved_pointer_target(definition, scope)
        if base.kind == "DECL_REF_EXPR" and base.decl is not None:
            if base.decl.key in scope.pointer_alias:
                return scope.pointer_alias[base.decl.key]
            if base.decl.key in scope.bindings:
                arg, arg_scope = scope.bindings[base.decl.key]
                return self._pointer_target(arg, arg_scope)
        if _pointer_kept_in_shared(base):
            return None  # it points wherever it was set to, not at itself
        arr = self._shared_base(base, scope)
        return (arr[0], self._pointee_offsets(base, scope) + self._union_offsets(base, scope)) \
            if arr is not None else None

    def _pointee_offsets(self, node: Node, scope: Scope) -> list[Offset]:
        """For a member reached through a pointer (`p->data`, `p->inner.cells`): where that
        pointer points in its buffer (`p = &slots[threadIdx.x]`: threadIdx.x slots in), as
        the offsets of its target; none for a member of a named variable."""
        node = _strip(node)
        for _ in range(8):
            if node.kind != "MEMBER_REF_EXPR" or not node.children:
                return []
            base = _strip(node.children[0])
            if C.is_pointer_type(base.type):
                target = self._pointer_target(base, scope)
                return [o for o in target[1] if not o.member] if target is not None else []
            node = base
        return []

    def _moved_pointer_target(self, definition, scope: Scope):
        """The target of a pointer at a use one definition reaches: its declaration's or
        assignment's value, or the pointer before a `p += n` / `p -= n` moved by n. Several
        definitions, a `++`, or any other change: not known (None)."""
        if definition is _SEVERAL:
            return None
        if definition.kind == "VAR_DECL" and definition.children and not C.is_array_type(definition.type):
            return self._pointer_target(definition.children[-1], scope)
        if definition.kind not in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") \
                or len(definition.children) != 2:
            return None
        target, value = definition.children
        if definition.op == "=":
            return self._pointer_target(value, scope)
        if definition.op not in ("+=", "-="):
            return None
        before = self._pointer_target(target, scope)
        if before is None:
            return None
        return before[0], before[1] + [Offset(value, scope, 1 if definition.op == "+=" else -1,
                                              element_unit(target))]

    # -- barriers --
    def _barrier(self, item: Node, warp: bool) -> bool:
        for n in item.walk_evaluated():
            if _named_barrier(n):
                return True
            if n.kind != "CALL_EXPR" or n.id in self.expanded_calls:
                continue
            if self._whole_block_wait(n):
                return True
            prim = P.classify(n)
            if prim is not None:
                if prim.category in (P.BLOCK_BARRIER, P.GRID_SYNC):
                    return True
                if warp and prim.category == P.TILE_SYNC and (prim.tile_size or 32) >= 32:
                    return True
                continue
            callee = self.program.resolve_call(n.decl)
            if callee is not None and callee.body is not None and self._contains_barrier(callee, warp, set()):
                return True
        return False

    def rendezvous_intervals(self, instance: int | None = None) -> BarrierIntervals:
        """The kernel's (or an inlined call's) intervals between warp rendezvous: a
        `__syncwarp()`, or a collective of the whole warp (a full-mask `__shfl_sync`,
        `__ballot_sync`, ..., a 32-thread tile's `shfl`, `any`, `cg::reduce`), which no lane
        leaves before every lane has reached it. A lane's shared-memory read made before a
        rendezvous has been performed when another lane passes it (see races.find_races)."""
        if instance not in self._rendezvous:
            cfg, live = (self.cfg, self.live) if instance is None else self._instance_cfgs[instance]
            self._rendezvous[instance] = BarrierIntervals(
                cfg, live, lambda item: self._barrier(item, warp=True) or self._rendezvous_in(item),
                self._runs_once)
        return self._rendezvous[instance]

    def _rendezvous_in(self, item: Node) -> bool:
        for n in item.walk_evaluated():
            if n.kind != "CALL_EXPR" or n.id in self.expanded_calls:
                continue
            if _whole_warp_collective(n):
                return True
            callee = self.program.resolve_call(n.decl)
            if callee is not None and callee.body is not None and self._callee_has_rendezvous(callee, set()):
                return True
        return False

    def _callee_has_rendezvous(self, fn: Function, seen: set[str]) -> bool:
        """Does every call of ``fn`` pass a whole-warp collective, on its straight-line path
        from the entry (statements before the first branch, loop or return; the body of a
        loop whose first test passes on constants counts), or in a helper called there?"""
        if fn.key not in self._rendezvous_callees:
            if fn.key in seen:
                return False
            seen.add(fn.key)
            self._rendezvous_callees[fn.key] = self._passes_rendezvous(fn.body.children, seen)
        return self._rendezvous_callees[fn.key]

    def _passes_rendezvous(self, statements: list[Node], seen: set[str]) -> bool:
        for stmt in statements:
            if stmt.kind == "COMPOUND_STMT":
                if self._passes_rendezvous(stmt.children, seen):
                    return True
                continue
            if stmt.kind == "FOR_STMT" and stmt.children and first_test_passes(stmt, None):
                body = stmt.children[-1]
                return self._passes_rendezvous(body.children if body.kind == "COMPOUND_STMT" else [body], seen)
            if stmt.kind in _BRANCHING_STATEMENTS:
                if stmt.kind in _LEAVES_FUNCTION or any(n.kind in _LEAVES_FUNCTION for n in stmt.walk()):
                    return False  # past it, later statements may be skipped
                continue  # (a branch or loop every path leaves at its end: what follows runs)
            for n in stmt.walk():
                if n.kind != "CALL_EXPR":
                    continue
                if _whole_warp_collective(n):
                    return True
                callee = self.program.resolve_call(n.decl)
                if callee is not None and callee.body is not None and self._callee_has_rendezvous(callee, seen):
                    return True
        return False

    def _group_waits(self) -> dict[int, tuple[Node, Scope]]:
        """The kernel's CFG items that wait on a group's `cuda::barrier`: item id -> (the
        index that picks the thread's barrier out of a __shared__ array of them, its scope).
        The index differs between threads; every thread that picks the same barrier is one
        group, which the barrier's expected count is written for."""
        out: dict[int, tuple[Node, Scope]] = {}
        for b in sorted(self.live):
            ctx = self.contexts.get(b)
            if ctx is None:
                continue
            for item in self.cfg.blocks[b].items:
                for n in item.walk_evaluated():
                    if n.kind == "CALL_EXPR" and n.id not in self.expanded_calls:
                        pick = self._group_barrier_pick(n, ctx.scope)
                        # (The whole-block test reads every kernel's barriers: asked only here.)
                        if pick is not None and not self._whole_block_wait(n):
                            out[item.id] = pick
        return out

    def _group_barrier_pick(self, call: Node, scope: Scope) -> tuple[Node, Scope] | None:
        if "wait" not in callee_name(call):
            return None
        for event in call_events(call):
            if event.kind != MBAR_WAIT or event.mbar is None:
                continue
            target, where = _strip(event.mbar), scope
            for _ in range(4):  # through the pointer it is held in (`barrier* bar = &bars[i];`)
                if target.kind == "UNARY_OPERATOR" and target.op in ("&", "*") and target.children:
                    target = _strip(target.children[0])
                elif target.kind == "DECL_REF_EXPR" and target.decl is not None \
                        and target.decl.key in where.single_defs:
                    target = _strip(where.single_defs[target.decl.key])
                else:
                    break
            if target.kind != "ARRAY_SUBSCRIPT_EXPR" or len(target.children) != 2 \
                    or "arrier" not in (target.type or ""):
                continue
            if self._shared_base(_strip(target.children[0]), where) is None:
                continue
            index = target.children[1]
            level = where.analysis.values.get(index.id)
            if level is not None and level.level > Level.BLOCK:
                return index, where
        return None

    def _whole_block_wait(self, call: Node) -> bool:
        """A wait on a __shared__ `cuda::barrier` that every thread of the block arrives at
        (`init(&bar, blockDim.x)`; `bar.wait(bar.arrive())`, `bar.arrive_and_wait()`): no
        thread passes it before all have arrived, as at __syncthreads()."""
        if "wait" not in callee_name(call):
            return False
        if self._full_barriers is None:
            self._full_barriers = whole_block_barriers(self.program)
        variables, every_one = self._full_barriers
        for event in call_events(call):
            if event.kind == MBAR_WAIT and event.mbar is not None:
                base = _barrier_variable(event.mbar)
                if base in variables:
                    return True
                target = _strip(event.mbar)
                if base is None and every_one and target.kind == "DECL_REF_EXPR" and target.decl is not None \
                        and target.decl.storage == "param" and "arrier" in target.decl.type \
                        and "Cluster" not in target.decl.type and "Named" not in target.decl.type:
                    return True  # a helper's barrier parameter, where every barrier expects the block
        return False

    def _names_shared(self, fn: Function, seen: set[str]) -> bool:
        """Does the function, or one it calls, name a __shared__ variable itself (a helper's
        own `__shared__ int s[256];`)?"""
        cached = self._naming_shared.get(fn.key)
        if cached is not None:
            return cached
        if fn.key in seen or fn.body is None:
            return False
        seen.add(fn.key)
        found = False
        for n in fn.body.walk():
            if n.kind in ("DECL_REF_EXPR", "VAR_DECL") and n.decl is not None and n.decl.storage == "shared":
                found = True
                break
            if n.kind == "CALL_EXPR" and n.decl is not None and P.classify(n) is None:
                inner = self.program.resolve_call(n.decl)
                if inner is not None and self._names_shared(inner, seen):
                    found = True
                    break
        self._naming_shared[fn.key] = found
        return found

    def _contains_barrier(self, fn: Function, warp: bool, seen: set[str]) -> bool:
        if fn.key in seen:
            return False
        seen.add(fn.key)
        for n in fn.body.walk():
            if _named_barrier(n):
                return True
            if n.kind == "CALL_EXPR":
                prim = P.classify(n)
                if prim is not None and (prim.category in (P.BLOCK_BARRIER, P.GRID_SYNC) or (
                        warp and prim.category == P.TILE_SYNC)):
                    return True
                callee = self.program.resolve_call(n.decl)
                if callee is not None and callee.body is not None and \
                        self._contains_barrier(callee, warp, seen):
                    return True
        return False

    # -- accesses --
    def _shared_base(self, node: Node, scope: Scope) -> tuple[str, str] | None:
        node = _strip(node)
        field = self._field_binding(node, scope)
        if field is None and node.kind == "MEMBER_REF_EXPR" and node.spelling and THIS_OBJECT in scope.bindings \
                and (not node.children or _strip(node.children[0]).kind == "CXX_THIS_EXPR"):
            # a method's own field, called on a shared object (`block_input_begin.get()`
            # returning `storage`): that object's member
            obj, obj_scope = scope.bindings[THIS_OBJECT]
            base = self._shared_base(obj, obj_scope)
            if base is None:
                return None
            key = self._member_location(base[0], node)
            if key != base[0]:
                self.member_roots[key] = self.member_roots.get(base[0], base[0])
            return key, f"{base[1]}.{node.spelling}"
        if field is not None:
            found = self._shared_base(*field)
            if found is None and "*" in node.type:
                target = self._pointer_target(*field)  # a pointer field set to `&s[k]`
                if target is not None:
                    return target[0], _display_name(target[0], node)
            return found
        if node.kind == "MEMBER_REF_EXPR" and node.children and node.spelling:
            if _address_read_from_shared(_strip(node.children[0]), scope):
                # `map->ids` with `__shared__ Map *map` (or a parameter given `map`): shared
                # memory holds the address, the field is where it points (the read of `map`
                # itself is an access of its own)
                return None
            base = self._shared_base(node.children[0], scope)
            if base is None:
                return None
            key = self._member_location(base[0], node)
            if key != base[0]:
                self.member_roots[key] = self.member_roots.get(base[0], base[0])
            return key, f"{base[1]}.{node.spelling}"
        if node.kind != "DECL_REF_EXPR" or node.decl is None:
            return None
        d = node.decl
        if d.storage == "shared":
            if _is_dynamic_shared(d):
                self._dynamic_shared_key = self._dynamic_shared_key or d.key
                return self._dynamic_shared_key, d.name
            return d.key, d.name
        if d.key in scope.pointer_alias:
            key = scope.pointer_alias[d.key][0]
            return key, _location_name(key, d.name)
        if d.key in scope.bindings:
            arg, arg_scope = scope.bindings[d.key]
            found = self._shared_base(arg, arg_scope)
            if found is None and "*" in d.type:
                # a pointer parameter bound to an address into shared memory (`&state`,
                # `f(&counts[warp])`)
                target = self._pointer_target(arg, arg_scope)
                if target is not None:
                    return target[0], _display_name(target[0], node)
            return found
        if d.storage == "local" and d.key in scope.multi_defs and "*" in d.type and "&" not in d.type:
            # a pointer set after its declaration: where the one definition reaching this use
            # points
            definition = scope.reaching_definition.get(node.id, _SEVERAL)
            target = self._moved_pointer_target(definition, scope) if definition is not None else None
            if target is not None:
                return target[0], _display_name(target[0], node)
        return None

    def _member_location(self, base: str, member: Node) -> str:
        """The location a member of a shared struct or union is in. Members of a struct (cub
        TempStorage, CUTLASS SharedStorage, a policy's storage) are each a location of their
        own; the members of a union share theirs (the union's), where each lies at its byte
        offset (union_member_offset)."""
        layout = member.decl.layout if member.decl is not None else None
        if base in self.union_locations:
            if layout is not None and layout.offset_in_record is not None:
                return base
        elif layout is not None and layout.union:
            key = f"{base}.{{{layout.union}}}" if layout.anonymous_union else base
            self.union_locations.add(key)
            return key
        return f"{base}.{member.spelling}"

    def _union_offsets(self, node: Node, scope: Scope) -> list[Offset]:
        """The offset of a union member's bytes in the union's location, as an access adds it
        (counted in bytes); none for other expressions."""
        offset = self.union_member_offset(node, scope)
        if offset is None:
            return []
        literal = Node(-(1 << 24) - offset, "INTEGER_LITERAL")  # an id per value: never confused
        literal.value, literal.type = offset, "unsigned long"
        return [Offset(literal, scope, 1, 1, member=True)]

    def union_member_offset(self, node: Node, scope: Scope) -> int | None:
        """Bytes from the start of its union's location to the member expression ``node``
        (`temp.scan.partial` in `union { Load load; Scan scan; } temp`); None where the node is
        not a member lying in a union."""
        node = _strip(node)
        if node.kind != "MEMBER_REF_EXPR" or not node.children or node.decl is None \
                or node.decl.layout is None or self._field_binding(node, scope) is not None:
            return None
        base = self._shared_base(node.children[0], scope)
        if base is None:
            return None
        layout = node.decl.layout
        if base[0] in self.union_locations and layout.offset_in_record is not None:
            outer = self.union_member_offset(node.children[0], scope)
            return (outer or 0) + layout.offset_in_record
        if layout.union and layout.offset_in_union is not None:
            return layout.offset_in_union
        return None

    def _collect(self, item: Node, point, guards: list[Guard], scope: Scope, depth: int,
                 instance: int | None, local: tuple[int, int] | None, mode: str = "read",
                 stored: int = 0) -> None:
        stack: list[tuple[Node, str, list[Guard], int]] = [(item, mode, guards, stored)]
        first = len(self.accesses)
        copies: dict[int, int] = {}  # `dst = src` of subscripts: dst node id -> src node id
        while stack:
            node, mode, gs, stored = stack.pop()
            kind = node.kind
            if kind == "DECL_REF_EXPR" and mode in ("read", "write", "update"):
                bound = _bound_lvalue(node, scope)
                if bound is not None:
                    # the access is to the caller's element, whose index reads in its scope
                    made = len(self.accesses)
                    self._collect(bound[0], point, gs, bound[1], depth, instance, local, mode, stored)
                    for access in self.accesses[made:]:
                        # made (and shown) here, through a local reference or a reference
                        # parameter; the lvalue it names is kept for the message
                        if bound[1] is not scope and access.through is None:
                            access.through = access.node
                        access.node, access.function = node, scope.analysis.function
                    continue
            if kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage == "shared" \
                    and "[" not in node.decl.type and mode in ("read", "write", "update"):
                self._add(Access(array=node.decl.key, name=node.decl.name, node=node, indices=[],
                                 offsets=[], read=mode in ("read", "update"),
                                 write=mode in ("write", "update"), point=point, guards=list(gs),
                                 scope=scope, value_level=stored,
                                 function=scope.analysis.function), instance, local)
                continue
            if kind == "MEMBER_REF_EXPR" and "[" not in node.type and mode in ("read", "write", "update") \
                    and (not node.children or _strip(node.children[0]).kind != "ARRAY_SUBSCRIPT_EXPR") \
                    and not ("*" in node.type and self._field_binding(node, scope) is not None):
                # (a pointer field that a constructor pointed into shared memory is a copy of
                # that address, read from the object: not an access to the memory)
                member = self._shared_base(node, scope)
                if member is not None:
                    in_union = self._union_offsets(node, scope)
                    self._add(Access(array=member[0], name=member[1], node=node, indices=[],
                                     offsets=in_union, read=mode in ("read", "update"),
                                     write=mode in ("write", "update"), point=point,
                                     guards=list(gs), scope=scope, value_level=stored,
                                     function=scope.analysis.function,
                                     element=element_unit(node) if in_union else 0), instance, local)
                    continue
            if kind == "MEMBER_REF_EXPR" and "[" in node.type and node.children \
                    and _names_only(node.children[0]) and self._shared_base(node, scope) is not None:
                continue  # an array member named whole (`warp_scan(storage.scan)`): its address
            if kind == "ARRAY_SUBSCRIPT_EXPR" and self._record(node, mode, point, gs, scope, stored,
                                                                instance, local):
                # index expressions are reads of their own
                for idx in self._index_nodes(node):
                    stack.append((idx, "read", gs, 0))
                continue
            if kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and node.op in _ASSIGN \
                    and len(node.children) == 2:
                lhs_mode = "write" if node.op == "=" else "update"
                rhs = node.children[1]
                if node.op == "=" and _strip(rhs).kind == "ARRAY_SUBSCRIPT_EXPR":
                    copies[_strip(node.children[0]).id] = _strip(rhs).id

                level = int(scope.analysis.values.get(rhs.id, _U).level) if node.op == "=" else 7
                stack.append((rhs, "read", gs, 0))
                stack.append((node.children[0], lhs_mode, gs, level))
                continue
            if kind == "UNARY_OPERATOR" and node.op in ("++", "--", "post++", "post--") and node.children:
                stack.append((node.children[0], "update", gs, 7))
                continue
            if kind == "UNARY_OPERATOR" and node.op == "*" and node.children:
                target = self._pointer_target(node.children[0], scope)
                if target is not None:
                    self._add(Access(array=target[0], name=_display_name(target[0], node),
                                     node=node, indices=[],
                                     offsets=_at_start(target[1], node.children[0], scope),
                                     read=mode in ("read", "update"), write=mode in ("write", "update"),
                                     point=point, guards=list(gs), scope=scope, value_level=stored,
                                     function=scope.analysis.function, element=element_unit(node)),
                              instance, local)
                    for offset in target[1]:
                        if offset.scope is scope:  # index expressions are reads of their own
                            stack.append((offset.node, "read", gs, 0))
                    continue
            if kind == "UNARY_OPERATOR" and node.op == "&":
                continue  # taking an address is not an access
            if kind == "CXX_UNARY_EXPR":
                continue  # `sizeof(s->map)`: its operand is not evaluated
            if kind == "CONDITIONAL_OPERATOR" and len(node.children) == 3:
                c, a, b = node.children
                stack.append((c, "read", gs, 0))
                level = int(scope.analysis.values.get(c.id, _U).level)
                stack.append((a, mode, gs + [Guard(c, True, level, scope)], stored))
                stack.append((b, mode, gs + [Guard(c, False, level, scope)], stored))
                continue
            if kind == "BINARY_OPERATOR" and node.op in ("&&", "||") and len(node.children) == 2:
                lhs, rhs = node.children
                level = int(scope.analysis.values.get(lhs.id, _U).level)
                stack.append((lhs, "read", gs, 0))
                stack.append((rhs, "read", gs + [Guard(lhs, node.op == "&&", level, scope)], 0))
                continue
            if kind == "CALL_EXPR" and self._collect_atomic(node, point, gs, scope, instance, local, stack):
                continue
            if kind == "CALL_EXPR" and self._collect_matrix_tile(node, point, gs, scope, instance, local, stack):
                continue
            if kind == "CALL_EXPR" and depth < 4:
                # an access through a returned reference (`view[i] = v` of `T& operator[](i)
                # { return data[i]; }`): to the element the callee names, made here (reported
                # at the call, not inside the accessor)
                returned = self._returned_reference(node, scope)
                if returned is not None:
                    made = len(self.accesses)
                    self._collect(returned[0], point, gs, returned[1], depth + 1, instance, local, mode, stored)
                    for access in self.accesses[made:]:
                        access.node = node
                    stack.extend((a, "read", gs, 0) for a in call_args(node))
                    continue
            if kind == "CALL_EXPR" and depth < 4 and node.id not in self.expanded_calls:
                self._inline_call(node, point, gs, scope, depth, instance, local)
            if kind == "LAMBDA_EXPR":
                continue
            # a method that stores into its own object (`s_boxes[i].set(a, b)` on a shared
            # element) writes the element it is called on
            stores_into_object = kind == "CALL_EXPR" and self._stores_into_object(node)
            bound = _cub_storage_arguments(node) | self._reference_bindings(node) \
                if kind in ("CALL_EXPR", "VAR_DECL") else set()
            if kind == "VAR_DECL" and node.decl is not None and node.decl.key in scope.reference_targets:
                bound = bound | {scope.reference_targets[node.decl.key].id}
            elif kind == "VAR_DECL" and _binds_reference(node):
                # a reference to an array (`T(&view)[N] = *reinterpret_cast<T(*)[N]>(&scratch)`)
                # names the memory; its accesses are made through it
                bound = bound | {node.children[-1].id}
            for c in node.children:
                if c.id in bound:
                    # binding a reference is no access: a CUB collective keeps one to its
                    # TempStorage; a function accesses what it names where it names it
                    continue
                # a store through a wrapper, to a field of an element (`tile[i].x = v`) or into
                # an array field of one (`tile[i].cells[k] = v`), stores to what it wraps: the
                # element is written, not read
                if stores_into_object and c is node.children[0]:
                    stack.append((c, "update", gs, 7))
                    continue
                keep = mode in ("write", "update") and (kind in POINTER_WRAPPERS or (
                    kind == "MEMBER_REF_EXPR" and c is node.children[0] and "*" not in c.type) or (
                    kind == "ARRAY_SUBSCRIPT_EXPR" and c is node.children[0] and "[" in c.type))
                stack.append((c, mode if keep or mode == "read" else "read", gs, stored))
        if copies:
            added = self.accesses[first:]
            reads = {acc.node.id: acc for acc in added if acc.read and not acc.write}
            for acc in added:
                src = reads.get(copies.get(acc.node.id, -1))
                if acc.write and src is not None and src.array == acc.array:
                    acc.copied_from = src


    def _collect_atomic(self, call: Node, point, guards: list[Guard], scope: Scope, instance, local,
                        stack: list) -> bool:
        """``atomicAdd(&s[i], v)`` and the other read-modify-write atomics on shared memory:
        one access that both reads and writes the target. Its index expressions and the
        other arguments are reads of their own (pushed on the walk's stack)."""
        if callee_name(call) not in P.ATOMIC_FUNCTIONS:
            return False
        args = call_args(call)
        if not args:
            return False
        target = self._pointer_target(args[0], scope)
        if target is None:
            return False
        carve, moves = _carve_of(_strip(args[0]), scope, through_aliases=True) or (None, [])
        if len(moves) != len(target[1]):
            carve = None  # the carved pointer is itself moved: its offsets are not the part's
        self._add(Access(array=target[0], name=_display_name(target[0], call), node=call, indices=[],
                         offsets=_at_start(target[1], args[0], scope), read=True, write=True,
                         point=point, guards=list(guards), scope=scope, value_level=7,
                         function=scope.analysis.function, atomic=True, element=element_unit(args[0]),
                         carve_extent=carve),
                  instance, local)
        for offset in target[1]:
            if offset.scope is scope:
                stack.append((offset.node, "read", guards, 0))
        for arg in args[1:]:
            stack.append((arg, "read", guards, 0))
        return True

    def _collect_matrix_tile(self, call: Node, point, guards: list[Guard], scope: Scope, instance, local,
                             stack: list) -> bool:
        """``wmma::load_matrix_sync(frag, &tile[r][c], ldm)`` reads, and ``store_matrix_sync(
        &tile[r][c], acc, ldm, layout)`` writes, a matrix tile of shared memory at the pointer:
        one access of the warp over the tile's elements (rows and columns from the fragment's
        shape, use and layout). The pointer's index expressions and the other arguments are
        reads of their own. A tile whose shape is not known from the types is not collected."""
        name = callee_name(call)
        if name not in ("load_matrix_sync", "store_matrix_sync"):
            return False
        args = call_args(call)
        if len(args) < 3:
            return False
        load = name == "load_matrix_sync"
        pointer, fragment, ldm = (args[1], args[0], args[2]) if load else (args[0], args[1], args[2])
        layout = args[3] if len(args) > 3 else None
        shape = matrix_tile_shape(fragment.type, _strip(layout).spelling if layout is not None else "")
        target = self._pointer_target(pointer, scope) if shape is not None else None
        if target is None:
            return False
        offsets = _at_start(target[1], pointer, scope) + [Offset(ldm, scope, 1, element_unit(pointer), tile=shape)]
        self._add(Access(array=target[0], name=_display_name(target[0], call), node=call, indices=[],
                         offsets=offsets, read=load, write=not load, point=point, guards=list(guards),
                         scope=scope, value_level=7, function=scope.analysis.function,
                         element=element_unit(pointer)),
                  instance, local)
        for offset in target[1]:
            if offset.scope is scope:
                stack.append((offset.node, "read", guards, 0))
        stack.extend((a, "read", guards, 0) for a in args if a is not pointer)
        return True

    def _reference_bindings(self, node: Node) -> set[int]:
        """Arguments a function with a body binds to reference parameters (`swap(s[i], s[j])`,
        a constructor's `tally(unsigned& c) : count(c)`): node ids. Binding a reference is no
        access: what the function (or the object's methods) do through it is collected where
        it happens."""
        call = _the_call(node)
        if call is None:
            return set()
        callee = self.program.resolve_call(call.decl) if call.decl is not None else None
        if callee is None or callee.body is None or callee.is_lambda:
            return set()
        return {arg.id for arg in _reference_arguments(call, callee)}

    def _shared_element(self, node: Node, scope: Scope) -> bool:
        """Is the lvalue in shared memory (`s[i]`, `tile[r][c]`, `p[k]` through an alias, a
        __shared__ scalar or a member of a shared struct, or a reference parameter bound to
        one: `swap(a, b)` inside `compare_swap(s[i], s[j])`)?"""
        node = _strip(node)
        for _ in range(8):
            bound = _bound_lvalue(node, scope)
            if bound is None:
                break
            node, scope = _strip(bound[0]), bound[1]
        while node.kind == "ARRAY_SUBSCRIPT_EXPR" and node.children:
            node = _strip(node.children[0])
            if self._pointer_target(node, scope) is not None:
                return True
        return self._shared_base(node, scope) is not None

    def _index_nodes(self, node: Node) -> list[Node]:
        out = []
        while node.kind == "ARRAY_SUBSCRIPT_EXPR" and len(node.children) == 2:
            out.append(node.children[1])
            node = _strip(node.children[0])
        return out

    def _add(self, access: Access, instance, local) -> None:
        access.instance, access.local_point = instance, local
        context = self.contexts.get(access.point[0])
        access.calls = (context.calls if context is not None else ()) + (
            (self.instance_calls[instance],) if instance is not None else ())
        self.accesses.append(access)

    def _record(self, node: Node, mode: str, point, guards, scope: Scope, stored: int,
                instance, local) -> bool:
        if "[" in node.type:
            return False  # `tile[row]` of a 2-D array is a row's address, not an access
        indices = []
        cur = node
        while cur.kind == "ARRAY_SUBSCRIPT_EXPR" and len(cur.children) == 2:
            indices.append((cur.children[1], scope))
            cur = _strip(cur.children[0])
        base = self._shared_base(cur, scope)
        if base is None:
            return False
        target = self._pointer_target(cur, scope) if cur.kind in ("DECL_REF_EXPR", "MEMBER_REF_EXPR") else None
        if target is None and indices and _pointer_kept_in_shared(cur):
            # `s->dict[k]`: the element is where the pointer points (global memory here), not
            # in the struct; reading the pointer itself is the only shared access
            return False
        offsets = target[1] if target is not None else []
        carve, carve_moves = _carve_of(cur, scope) or (None, [])
        indices.reverse()
        if cur.kind == "MEMBER_REF_EXPR":
            extents = C.array_extents(cur.type)
        else:
            extents = C.array_extents(cur.decl.type) if cur.decl is not None and cur.decl.storage == "shared" else []
        element = element_unit(node)
        moved = [o for o in offsets if not o.member]  # a union member's place keeps its extents
        if moved or len(extents) != len(indices) or element != element_unit(cur):
            # indices through a cast to another element size count other units than the extents
            extents = [None] * len(indices)
        strides = None
        if len(indices) > 1 and all(e is not None for e in extents):
            strides = [_product(extents[k + 1:]) for k in range(len(extents))]
        elif len(indices) > 1 and element == element_unit(cur):
            # A 2-D array parameter (`T tile[16][144]`, a pointer to rows of 144): the rows'
            # extents give the strides, whatever the number of rows.
            dims = C.array_extents(cur.type)
            rows = dims[1:] if len(dims) == len(indices) else dims if "(*)" in cur.type else None
            if rows is not None and len(rows) == len(indices) - 1 and all(e is not None for e in rows):
                strides = [_product(rows[k:]) for k in range(len(rows))] + [1]
        self._add(Access(
            array=base[0], name=base[1], node=node, indices=indices, offsets=offsets,
            read=mode in ("read", "update"), write=mode in ("write", "update"), point=point,
            guards=list(guards), scope=scope, value_level=stored,
            function=scope.analysis.function, extents=extents, strides=strides, element=element,
            carve_extent=carve if len(indices) == 1 else None,
            carve_moves=carve_moves if len(indices) == 1 else []),
            instance, local)
        return True

    def _views_shared(self, arg: Node, scope: Scope) -> bool:
        """Is the argument a local object whose constructor pointed a field into shared
        memory (a view handed to a helper: `pack(view, out)`)?"""
        obj = _strip(copied_object(arg))
        if obj.kind != "DECL_REF_EXPR" or obj.decl is None or obj.decl.storage not in ("local", "param"):
            return False
        return any(self._shared_base(_strip(value), value_scope) is not None
                   or self._pointer_target(_strip(value), value_scope) is not None
                   for value, value_scope in self._constructed_fields(obj, scope).values()
                   if value_scope is not None)

    def _capture_bindings(self, lambda_fn: Function, scope: Scope) -> dict:
        """A lambda's captured variables, read in the scope of the function that calls it."""
        captured = _captured_references(lambda_fn, self.program.resolve_call)
        return {key: (ref, scope) for key, ref in captured.items()}

    def _returned_reference(self, call: Node, scope: Scope) -> tuple[Node, Scope] | None:
        """The lvalue a call returns a reference to, and the callee's scope it reads in, for
        a callee whose body is one `return <lvalue>;` (an accessor, a view's operator[]),
        after statements that only compute locals (a swizzled layout's index arithmetic)."""
        decl = call.decl
        if decl is None or "&" not in decl.type.split("(", 1)[0]:
            return None
        callee = self.program.resolve_call(decl)
        if callee is None or callee.body is None or callee.is_lambda:
            return None
        statements = [c for c in callee.body.children if c.kind != "NULL_STMT"]
        if not statements or statements[-1].kind != "RETURN_STMT" or not statements[-1].children \
                or not all(_computes_locals(c) for c in statements[:-1]):
            return None
        returned = _strip(statements[-1].children[0])
        if returned.kind not in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR", "DECL_REF_EXPR") and not (
                returned.kind == "UNARY_OPERATOR" and returned.op == "*"):
            return None
        args = call_args(call)
        sub = self._callee_analysis(call, callee, args, scope, scope.analysis.call_envs.get(call.id))
        sub_scope = self._scope(callee, sub, self._call_bindings(call, callee, args, scope))
        sub_scope.inlined = True
        return returned, sub_scope

    def _inline_call(self, call: Node, point, guards, scope: Scope, depth: int,
                     instance: int | None, local) -> None:
        callee = self.program.resolve_call(call.decl)
        if callee is None or callee.body is None:
            return
        # what the caller's analysis knew at the call: a lambda's captures, the fields a
        # constructor set
        outer_env = scope.analysis.call_envs.get(call.id)
        if callee.is_lambda and outer_env is None:
            return
        args = call_args(call)
        bindings = self._call_bindings(call, callee, args, scope)
        # shared memory the callee (or a callee of its) declares or names itself
        touches_shared = self._names_shared(callee, set())
        if callee.is_lambda:
            captured = self._capture_bindings(callee, scope)
            bindings.update(captured)
            touches_shared = touches_shared or any(self._shared_base(r, scope) is not None
                                                   for r, _ in captured.values())
        # shared memory reaches the callee through an argument (an address, or an element bound
        # to a reference), a field of its object or a capture
        reaching = list(zip(args, [scope] * len(args))) + [
            value for key, value in bindings.items() if key in self._field_keys]
        if not touches_shared and not any(
                self._shared_base(a, s) is not None or self._pointer_target(a, s) is not None
                for a, s in reaching) and not any(
                self._shared_element(a, scope) for a in _reference_arguments(call, callee)) \
                and not any(self._views_shared(a, scope) for a in args):
            return
        if self._contains_barrier(callee, warp=False, seen=set()):
            self.unknown_barrier_calls = True
            return
        if instance is not None and self._contains_barrier(callee, warp=True, seen=set()):
            return  # a nested callee's own __syncwarp() points are not tracked: stay silent
        sub = self._callee_analysis(call, callee, args, scope, outer_env)
        sub_scope = self._scope(callee, sub, bindings)
        sub_scope.inlined = True
        cfg, live, _ = self.service.cfg_of(callee)
        if instance is None:  # nested calls share their outermost call's instance
            instance = len(self.instances)
            self.instances[instance] = (
                BarrierIntervals(cfg, live, lambda item: self._barrier(item, warp=False), self._runs_once),
                BarrierIntervals(cfg, live, lambda item: self._barrier(item, warp=True), self._runs_once))
            self._instance_cfgs[instance] = (cfg, live)
            self.instance_calls[instance] = call
            nested = False
        else:
            nested = True
        for field_key, init in callee.member_inits.items():
            # a constructor's member initializers run before its body (`m_field(field)`
            # copies what a reference argument is bound to; binding a reference field,
            # `storage(temp)`, accesses nothing)
            if field_key not in callee.reference_members:
                self._collect(init, point, guards, sub_scope, depth + 1, instance,
                              local if nested else (cfg.entry, -1))
        for b in sorted(live):
            sub_guards = [Guard(c.cond, c.polarity, int(c.level), sub_scope)
                          for c in sub.block_controllers.get(b, ())]
            for i, item in enumerate(cfg.blocks[b].items):
                self._collect(item, point, guards + sub_guards, sub_scope, depth + 1, instance,
                              local if nested else (b, i))


def _computes_locals(stmt: Node) -> bool:
    """A declaration of locals or an assignment to one, with no call, memory access or
    control flow: what an accessor computes before returning its element."""
    if stmt.kind not in ("DECL_STMT", "BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR", "UNARY_OPERATOR"):
        return False
    for n in stmt.walk():
        if n.kind in ("CALL_EXPR", "ARRAY_SUBSCRIPT_EXPR", "LAMBDA_EXPR") or \
                (n.kind == "UNARY_OPERATOR" and n.op in ("*", "&")) or \
                (n.kind == "MEMBER_REF_EXPR" and "*" in n.type):
            return False
    if stmt.kind != "DECL_STMT":
        target = _strip(stmt.children[0]) if stmt.children else None
        if target is None or target.kind != "DECL_REF_EXPR" or target.decl is None or target.decl.storage != "local":
            return False
    return True


def _whole_warp_collective(call: Node) -> bool:
    """A collective every lane of the warp must reach: a warp intrinsic with the full mask,
    or a 32-thread tile's collective."""
    prim = P.classify(call)
    if prim is None:
        return False
    if prim.category == P.WARP_COLLECTIVE and prim.mask_arg is not None:
        args = call_args(call)
        if len(args) <= prim.mask_arg:
            return False
        mask = integer_constant(args[prim.mask_arg])
        return mask is not None and C.convert(mask, C.UNSIGNED_INT) == 0xFFFFFFFF
    return prim.category == P.TILE_COLLECTIVE and prim.scope == "tile" and prim.tile_size == 32


# Statements that leave the function (or the statement list) before its end. (`break` and
# `continue` inside a branch of a function's own statement list belong to a loop or switch
# within it, or to the enclosing loop, when the list is a loop's body: counted as leaving.)
_LEAVES_FUNCTION = ("RETURN_STMT", "GOTO_STMT", "BREAK_STMT", "CONTINUE_STMT", "CXX_THROW_EXPR")

_BRANCHING_STATEMENTS = ("IF_STMT", "FOR_STMT", "WHILE_STMT", "DO_STMT", "SWITCH_STMT", "RETURN_STMT",
                         "BREAK_STMT", "CONTINUE_STMT", "GOTO_STMT", "CXX_FOR_RANGE_STMT")


def _reference_arguments(call: Node, callee: Function) -> list[Node]:
    """The call's arguments bound to the callee's lvalue-reference parameters."""
    return [arg for param, arg in bound_arguments(callee.params, call_args(call))
            if "&" in param.type and "&&" not in param.type]


def _is_dynamic_shared(decl) -> bool:
    """Is the declaration a dynamic shared array (`extern __shared__ T buf[]`)?"""
    return decl.storage == "shared" and decl.type.replace(" ", "").endswith("[]")


def _per_warp_part_size(count: Node, analysis: FunctionAnalysis) -> Node | None:
    """W where a pointer is placed at `w * W` (or `W * w`) elements into its buffer, with w
    the same for the lanes of a warp but not for the block (a warp or tile index) and W the
    same for the whole block: each warp's part is W elements long."""
    n = _strip(count)
    if n.kind != "BINARY_OPERATOR" or n.op != "*" or len(n.children) != 2:
        return None
    levels = [analysis.values.get(_strip(c).id) for c in n.children]
    if any(v is None for v in levels) or any(_names_row_index(c) for c in n.children):
        return None  # (rows of a 2-D block, `rows + threadIdx.y * pitch`, are not warps' parts)
    for (w, size), (wv, sv) in (((n.children[0], n.children[1]), (levels[0], levels[1])),
                                ((n.children[1], n.children[0]), (levels[1], levels[0]))):
        if wv.level == Level.WARP and sv.level <= Level.BLOCK:
            return size
    return None


def _names_row_index(node: Node) -> bool:
    return any(n.kind == "MEMBER_REF_EXPR" and n.spelling in ("y", "z") and n.children
               and _strip(n.children[0]).kind == "DECL_REF_EXPR" and _strip(n.children[0]).decl is not None
               and _strip(n.children[0]).decl.name == "threadIdx" for n in node.walk())


def _carve_start(init: Node):
    """(pointer's declaration, elements, bytes per element) for a pointer defined as another
    plus a count (`p + n`, `&p[n]`): where the earlier pointer's part of the buffer ends."""
    n = _strip(init)
    if n.kind == "UNARY_OPERATOR" and n.op == "&" and n.children:
        n = _strip(n.children[0])
        if n.kind != "ARRAY_SUBSCRIPT_EXPR" or len(n.children) != 2:
            return None
    elif not (n.kind == "BINARY_OPERATOR" and n.op == "+" and len(n.children) == 2):
        return None
    base = _strip(n.children[0])
    if base.kind != "DECL_REF_EXPR" or base.decl is None or element_unit(n.children[0]) != element_unit(base):
        return None  # counted in the earlier pointer's elements only (not `(float *)p + n`)
    return base.decl, n.children[1], element_unit(base)


def _captured_references(lambda_fn: Function, resolve, seen: frozenset = frozenset()) -> dict[str, Node]:
    """The enclosing function's locals and parameters a lambda's body names (its captures),
    and those of the lambdas it calls (`[&]` lambdas of one function calling each other
    reach its locals through the callee's captures): key -> one reference, to be read in the
    caller's scope."""
    own = {p.key for p in lambda_fn.params}
    own.update(n.decl.key for n in lambda_fn.body.walk() if n.kind == "VAR_DECL" and n.decl is not None)
    out: dict[str, Node] = {}
    for n in lambda_fn.body.walk():
        if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage in ("local", "param") \
                and n.decl.key not in own:
            out.setdefault(n.decl.key, n)
        elif n.kind == "CALL_EXPR" and n.decl is not None:
            inner = resolve(n.decl)
            if inner is not None and inner.is_lambda and inner.body is not None \
                    and inner.key != lambda_fn.key and inner.key not in seen:
                for key, ref in _captured_references(inner, resolve, seen | {lambda_fn.key}).items():
                    if key not in own:
                        out.setdefault(key, ref)
    return out


def _stored_pointer(use: Node, body: Node) -> Node | None:
    """What `ptrs[i]` holds at this use, where a local array of pointers has one store, `ptrs[i]
    = value` with the same index written alike, before the use inside the same loops (so in
    the same trip, with the index unchanged between them); None otherwise (any other store,
    its address taken, the array handed to a call)."""
    array = _strip(use.children[0])
    if array.kind != "DECL_REF_EXPR" or array.decl is None or array.decl.storage != "local" \
            or "[" not in (array.decl.type or ""):
        return None
    stores: list[tuple[Node, tuple]] = []
    use_loops: tuple | None = None
    pending: list[tuple[Node, tuple]] = [(body, ())]
    while pending:
        n, loops = pending.pop()
        if n is use:
            use_loops = loops
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN and n.children:
            target = _strip(n.children[0])
            if target.kind == "ARRAY_SUBSCRIPT_EXPR" and target.children and \
                    _names_decl(_strip(target.children[0]), array.decl.key):
                if n.op != "=" or len(n.children) != 2:
                    return None
                stores.append((n, loops))
        elif n.kind in ("UNARY_OPERATOR", "CALL_EXPR") and any(
                _names_decl(_strip(c), array.decl.key) for c in n.children):
            return None  # its address taken, stepped, or handed on whole
        inner = loops + (n.id,) if n.kind in ("FOR_STMT", "WHILE_STMT", "DO_STMT", "CXX_FOR_RANGE_STMT") else loops
        pending.extend((c, inner) for c in n.children)
    if len(stores) != 1 or use_loops is None:
        return None
    store, store_loops = stores[0]
    subscript = _strip(store.children[0])
    if store_loops != use_loops or store.end > use.start or \
            structural_key(subscript.children[1]) != structural_key(use.children[1]):
        return None
    return store.children[1]


def _reference_targets(fn: Function, init: dict[str, Node]) -> dict[str, Node]:
    """The function's local references declared once, each with the lvalue it is bound to
    (a reference is never reseated: stores through it change that lvalue, not the binding)."""
    declared: dict[str, int] = {}
    for n in fn.body.walk():
        if n.kind == "VAR_DECL" and n.decl is not None and n.decl.storage == "local":
            declared[n.decl.key] = declared.get(n.decl.key, 0) + 1
            ref = n.decl.type or ""
            if "&" not in ref or "&&" in ref or "[" in ref:
                declared[n.decl.key] += 1  # not a plain lvalue reference
    return {k: v for k, v in init.items() if declared.get(k) == 1 and _is_lvalue(_strip(v))}


def _binds_reference(decl: Node) -> bool:
    """Does the declaration bind a local lvalue reference to an lvalue (no access of it)?"""
    spelled = decl.decl.type or ""
    return decl.decl.storage == "local" and "&" in spelled and "&&" not in spelled \
        and bool(decl.children) and _is_lvalue(_strip(decl.children[-1]))


def _names_only(node: Node) -> bool:
    """A variable or a chain of its members (`storage`, `s.state`), no subscript or call in it."""
    node = _strip(node)
    while node.kind == "MEMBER_REF_EXPR" and node.children:
        node = _strip(node.children[0])
    return node.kind in ("DECL_REF_EXPR", "CXX_THIS_EXPR") or node.kind == "MEMBER_REF_EXPR"


def _is_lvalue(node: Node) -> bool:
    return node.kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR", "DECL_REF_EXPR") or \
        node.kind == "UNARY_OPERATOR" and node.op == "*"


def _names_decl(node: Node, key: str) -> bool:
    return node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key == key


_PLACEHOLDER_IDS = iter(range(-1, -(1 << 62), -1))


_CUB_CLASS_TYPE = re.compile(r"^cub::(?:\w+::)*Block\w+<")


def _the_call(node: Node) -> Node | None:
    """The call itself, or the constructor call that initializes a declared variable."""
    if node.kind != "VAR_DECL":
        return node
    inits = [c for c in node.children if c.kind == "CALL_EXPR"]
    return inits[-1] if inits else None


def _cub_storage_arguments(node: Node) -> set[int]:
    """Arguments a CUB class's constructor binds to a reference (`BlockReduce<T, N>(temp)`,
    `BlockScan<T, N> scan(temp);`): node ids of those bound to `&` parameters."""
    call = _the_call(node)
    if call is None:
        return set()
    decl = call.decl
    if decl is None and call.kind == "CALL_EXPR" and _CUB_CLASS_TYPE.match(call.type):
        # Built in template code (`BR(tmp)`), the constructor unknown: CUB's block classes
        # take their TempStorage by reference.
        return {a.id for a in call.children if "TempStorage" in a.type} | (
            {call.id} if call is not node else set())
    if decl is None or not decl.qualified.startswith("cub::"):
        return set()
    params = parameter_types(decl.type)
    out = set()
    for i, arg in enumerate(call_args(call)):
        if i < len(params) and "&" in params[i]:
            out.add(arg.id)
            if call is not node:
                out.add(call.id)  # the declaration's constructor call itself
    return out


def _placeholder(at: Node) -> Node:
    """An empty statement standing where a collective's own shared accesses happen."""
    node = Node(next(_PLACEHOLDER_IDS), "NULL_STMT")
    node.line, node.col, node.start = at.line, at.col, at.start
    node.end_line, node.end_col, node.end = at.end_line, at.end_col, at.end
    return node


def _named_barrier(node: Node) -> bool:
    """`bar.sync id, count` (inline PTX, CUTLASS's NamedBarrier::sync): the threads that run
    it wait for each other there, so it ends a barrier interval of theirs like
    __syncthreads(). Threads that do not run it are on other paths, whose intervals it does not
    cut. (`bar.arrive` does not wait, so it ends nothing.)"""
    if node.kind not in ("ASM_STMT", "CALL_EXPR"):
        return False
    return any(e.kind == NAMED_SYNC for e in events_of(node))


def _constant_branch(block: Block, analysis: FunctionAnalysis) -> bool | None:
    """The arm an if or loop condition always takes in this context (template arguments and
    the launch shape make many conditions constant), or None."""
    if block.branch is None or block.branch_kind not in ("if", "loop") or len(block.succs) != 2:
        return None
    value = analysis.values.get(block.branch.id)
    if value is None or not isinstance(value.const, (int, float)):
        return None
    return bool(value.const)


def _link(blocks: list[Block], a: int, b: int) -> None:
    if b not in blocks[a].succs:
        blocks[a].succs.append(b)
        blocks[b].preds.append(a)


def _unlink(blocks: list[Block], a: int, b: int) -> None:
    blocks[a].succs.remove(b)
    blocks[b].preds.remove(a)


def _uses_dimensions(program: Program, kernel: Function) -> tuple[bool, bool]:
    """Does the kernel (or a device function it calls) read threadIdx.y / threadIdx.z?"""
    uses = {"y": False, "z": False}
    seen: set[str] = set()
    work = [kernel]
    while work:
        fn = work.pop()
        if fn.key in seen or fn.body is None:
            continue
        seen.add(fn.key)
        for n in fn.body.walk():
            if n.kind == "MEMBER_REF_EXPR" and n.spelling in uses and n.children and \
                    n.children[0].kind == "DECL_REF_EXPR" and n.children[0].decl is not None and \
                    n.children[0].decl.name in ("threadIdx", "blockDim"):
                uses[n.spelling] = True
            elif n.kind == "CALL_EXPR":
                if n.decl is not None and n.decl.name in ("thread_index", "dim_threads"):
                    uses["y"] = uses["z"] = True
                callee = program.resolve_call(n.decl)
                if callee is not None:
                    work.append(callee)
    return uses["y"], uses["z"]


from syncheck.analyses.levels import UNIFORM as _U  # noqa: E402  (after the classes that use it)
