"""A lowered, pure-Python copy of the libclang syntax tree of function bodies.

The libclang bindings cost a foreign call per property read, and the analyses
walk each body several times, so each body is copied once into small ``Node``
objects and everything after the front end works on those.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace

import clang.cindex as ci

from syncheck.frontend import clang_api
from syncheck.frontend.cuda_headers import cuda_declaration_prefixes

K = ci.CursorKind

# Cursor kinds that only name types or namespaces: no value, no control flow.
_SKIPPED = {K.NAMESPACE_REF, K.TYPE_REF, K.TEMPLATE_REF, K.CUDAGLOBAL_ATTR, K.CUDADEVICE_ATTR,
            K.CUDAHOST_ATTR, K.CUDASHARED_ATTR, K.CUDACONSTANT_ATTR, K.UNEXPOSED_ATTR,
            K.ANNOTATE_ATTR, K.ALIGNED_ATTR, K.CXX_FINAL_ATTR, K.CXX_OVERRIDE_ATTR,
            K.VISIBILITY_ATTR, K.WARN_UNUSED_RESULT_ATTR}
_TRANSPARENT = {K.UNEXPOSED_EXPR}
# Statements need neither a type nor a spelling: skipping those foreign calls is most of the
# lowering cost they would otherwise add.
_STATEMENTS = {K.COMPOUND_STMT, K.DECL_STMT, K.IF_STMT, K.FOR_STMT, K.WHILE_STMT, K.DO_STMT,
               K.SWITCH_STMT, K.CASE_STMT, K.DEFAULT_STMT, K.BREAK_STMT, K.CONTINUE_STMT,
               K.RETURN_STMT, K.NULL_STMT, K.CXX_FOR_RANGE_STMT, K.GOTO_STMT}
_REF_KINDS = {K.DECL_REF_EXPR, K.MEMBER_REF_EXPR, K.CALL_EXPR, K.OVERLOADED_DECL_REF}
_LITERALS = {K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR}
_LITERAL_NAMES = {k.name for k in _LITERALS}
_INTEGRAL_TYPES = {ci.TypeKind.INT, ci.TypeKind.UINT, ci.TypeKind.LONG, ci.TypeKind.ULONG,
                   ci.TypeKind.LONGLONG, ci.TypeKind.ULONGLONG, ci.TypeKind.SHORT, ci.TypeKind.USHORT,
                   ci.TypeKind.BOOL}


_FLOATING_TYPES = {ci.TypeKind.FLOAT, ci.TypeKind.DOUBLE, ci.TypeKind.LONGDOUBLE, ci.TypeKind.HALF,
                   ci.TypeKind.FLOAT128}


def _scalar(t: ci.Type) -> bool:
    """An arithmetic, enum or pointer type (not an aggregate a braced list would fill)."""
    kind = t.get_canonical().kind
    return kind in (ci.TypeKind.POINTER, ci.TypeKind.ENUM) or \
        ci.TypeKind.BOOL.value <= kind.value <= ci.TypeKind.LONGDOUBLE.value


@dataclass(frozen=True, slots=True)
class Decl:
    """What a reference or call resolves to."""

    kind: str          # the CursorKind name of the declaration
    name: str
    key: str           # stable identity: USR (templates: of the template itself)
    storage: str       # local | param | global | shared | constant | builtin | field | function | enum | template | other
    type: str
    qualified: str     # namespace/class qualified name
    in_model: bool     # declared in syncheck's CUDA model headers
    line: int
    file: str
    value: int | None = None  # enum constants and constant-initialized variables
    is_const: bool = False
    # For a function template specialization: its own USR (``key`` names the template), so
    # that a call can reach the instantiation the translation unit created.
    instance: str = ""
    # A function that never returns to its caller ([[noreturn]], __attribute__((noreturn))).
    no_return: bool = False
    # Fields: where the field's bytes lie (see _field_layout). A field of a union (directly or
    # through anonymous structs) shares its bytes with the union's other members.
    layout: "FieldLayout | None" = None
    # An array whose initializer gives every element as a constant (a lookup table, `__constant__
    # int order[] = {0, 4, 2, 6}`; only where the elements are const or in constant memory).
    elements: tuple[int, ...] | None = None


@dataclass(frozen=True)
class FieldLayout:
    offset_in_record: int | None  # bytes from the start of the named record it is reached in
    union: str = ""               # key of the innermost union around it, if any
    anonymous_union: bool = False  # that union is an anonymous member (`union { ... };`)
    offset_in_union: int | None = None  # bytes from the start of that union


# Functions of the C and C++ libraries that never return, for declarations that do not say so.
NO_RETURN_FUNCTIONS = frozenset({"abort", "exit", "_Exit", "quick_exit", "__assert_fail",
                                 "__assert_rtn", "_assert", "_wassert", "terminate", "__trap",
                                 "__assertfail", "__builtin_trap", "__builtin_unreachable"})
_NO_RETURN_ATTRIBUTES = ("noreturn", "__noreturn__", "_Noreturn")


def _declared_no_return(cursor: ci.Cursor) -> bool:
    """[[noreturn]] (libclang shows it only as an unexposed attribute, whose first token
    names it even when a macro spells it) or __attribute__((noreturn)) (part of the type),
    on any declaration of the function."""
    canonical = cursor.canonical
    for decl in (cursor,) if canonical == cursor else (cursor, canonical):
        if "noreturn" in decl.type.spelling:
            return True
        for child in decl.get_children():
            if child.kind == K.UNEXPOSED_ATTR:
                tokens = [t.spelling for t in itertools.islice(child.get_tokens(), 3)]
                if tokens and (tokens[0] in _NO_RETURN_ATTRIBUTES or
                               (len(tokens) == 3 and tokens[1] == "::" and tokens[2] in _NO_RETURN_ATTRIBUTES)):
                    return True
    return False


class Node:
    __slots__ = ("id", "kind", "spelling", "type", "line", "col", "end_line", "end_col",
                 "start", "end", "children", "decl", "op", "value", "role", "element_bytes")

    def __init__(self, nid: int, kind: str):
        self.id = nid
        self.kind = kind
        self.spelling = ""
        self.type = ""
        self.line = self.col = self.end_line = self.end_col = 0
        self.start = self.end = 0
        self.children: list[Node] = []
        self.decl: Decl | None = None
        self.op: str | None = None
        self.value: int | float | None = None
        # For statement headers: "init", "cond", "inc", "body", "then", "else".
        self.role: str | None = None
        # Bytes of the element a pointer or array expression points to, or of the value of a
        # subscript, member or dereference (structs and typedefs included, as the compiler
        # lays them out); None where unknown (a dependent type) or not recorded.
        self.element_bytes: int | None = None

    def __hash__(self) -> int:
        # Equality stays identity; hashing by the parse-order id keeps the order of sets of
        # nodes the same from run to run (an address-based hash made it vary, and with it
        # which query ran out of solver budget first).
        return hash(self.id)

    def walk(self):
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def walk_evaluated(self):
        """The nodes that running this statement or expression evaluates: as walk(), less the
        bodies of the lambdas it defines (a lambda's body runs where the lambda is called)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.kind != "LAMBDA_EXPR":
                stack.extend(reversed(node.children))

    def child_by_role(self, role: str) -> "Node | None":
        for c in self.children:
            if c.role == role:
                return c
        return None

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<{self.kind} {self.spelling!r} {self.line}:{self.col}>"


# Expression wrappers that keep a value (and a pointer's target) as it is.
VALUE_WRAPPERS = ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR")
POINTER_WRAPPERS = VALUE_WRAPPERS + ("CXX_REINTERPRET_CAST_EXPR", "CXX_CONST_CAST_EXPR")


# Bytes of the element types whose size needs no question to the compiler.
BUILTIN_ELEMENT_BYTES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "int8_t": 1, "uint8_t": 1, "bool": 1,
    "short": 2, "unsigned short": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2, "int16_t": 2,
    "uint16_t": 2, "int": 4, "unsigned int": 4, "unsigned": 4, "float": 4, "int32_t": 4,
    "uint32_t": 4, "half2": 4, "__half2": 4, "__nv_bfloat162": 4, "double": 8, "long long": 8,
    "unsigned long long": 8, "int64_t": 8, "uint64_t": 8, "float2": 8, "int2": 8,
    "double2": 16, "float4": 16, "int4": 16, "uint4": 16}


def element_spelling(type_spelling: str) -> str:
    """'float' for 'const float *', 'volatile float *' and 'float[33]'."""
    t = type_spelling.split("[", 1)[0].replace("*", " ")
    return " ".join(w for w in t.split() if w not in ("const", "volatile", "__restrict__", "restrict",
                                                      "__restrict"))


# Expressions whose element size the shared-memory model reads (pointer casts, subscripts,
# pointer arithmetic and the declarations of pointers and arrays).
_SIZED = {K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR,
          K.ARRAY_SUBSCRIPT_EXPR, K.DECL_REF_EXPR, K.MEMBER_REF_EXPR, K.UNARY_OPERATOR, K.BINARY_OPERATOR,
          K.PAREN_EXPR, K.VAR_DECL, K.PARM_DECL}
# A fragment type spelled with its shape in digits (`fragment<matrix_a, 16, 16, 16, ...>`).
_FRAGMENT_NUMBERS = re.compile(r"fragment<[^,<>]+,\s*\d+[uUlL]*\s*,\s*\d+[uUlL]*\s*,\s*\d+")
_ARRAY_KINDS = {ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY,
                ci.TypeKind.DEPENDENTSIZEDARRAY}


def type_spelling(t: ci.Type) -> str:
    """A type's spelling, with a project's name for a pointer type (`typedef er_float_t*
    er_float_ptr;`) spelled as the pointer it is: the analyses tell pointers by their `*`."""
    if t.kind != ci.TypeKind.POINTER and t.get_canonical().kind == ci.TypeKind.POINTER:
        return t.get_canonical().spelling
    return t.spelling


def _element_bytes(t: ci.Type, spelling: str, kind: ci.CursorKind) -> int | None:
    """Bytes of what a pointer or array type points to (the innermost element of an array of
    arrays), or of the type itself for a subscript, member or dereference."""
    known = BUILTIN_ELEMENT_BYTES.get(element_spelling(spelling))
    if known is not None and spelling.count("*") <= 1:
        return known
    pointer_like = "*" in spelling or "[" in spelling
    if not pointer_like and kind not in (K.ARRAY_SUBSCRIPT_EXPR, K.MEMBER_REF_EXPR, K.UNARY_OPERATOR):
        return None
    t = t.get_canonical()
    if t.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
        t = t.get_pointee().get_canonical()
    if t.kind == ci.TypeKind.POINTER:
        t = t.get_pointee().get_canonical()
    while t.kind in _ARRAY_KINDS:
        t = t.element_type.get_canonical()
    kind = t.kind
    # Only laid-out types: asking the size of others (a bound member function) aborts libclang.
    if kind not in (ci.TypeKind.RECORD, ci.TypeKind.ENUM, ci.TypeKind.POINTER) and \
            not ci.TypeKind.BOOL.value <= kind.value <= ci.TypeKind.LONGDOUBLE.value and \
            kind != ci.TypeKind.HALF:
        return None
    size = t.get_size()
    return size if size > 0 else None


def strip_wrappers(node: "Node", kinds: tuple[str, ...] = VALUE_WRAPPERS) -> "Node":
    """The expression inside parentheses, implicit conversions and the given casts."""
    while node.kind in kinds and node.children:
        node = node.children[-1]
    return node


_ARRAY_TYPES = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY)
_MAX_TABLE = 4096


def _table_elements(cursor: ci.Cursor) -> tuple[int, ...] | None:
    """The constant elements of a one-dimensional array's braced initializer (None where one
    is not an integer constant, or the array is longer than the initializer)."""
    lists = [c for c in cursor.get_children() if c.kind == ci.CursorKind.INIT_LIST_EXPR]
    if len(lists) != 1:
        return None
    values = []
    for item in lists[0].get_children():
        if item.kind == ci.CursorKind.INIT_LIST_EXPR or len(values) >= _MAX_TABLE:
            return None
        value = clang_api.evaluate(item)
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        values.append(value)
    extent = cursor.type.get_array_size()
    if not values or extent > len(values):
        return None  # elements the initializer leaves zero: not read as a table
    return tuple(values)


def names_declaration(node: "Node", key: str) -> bool:
    """Does the expression, inside value wrappers, name the declaration `key`?"""
    node = strip_wrappers(node)
    return node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key == key


def structural_key(node: "Node") -> tuple:
    """Two expressions with the same key are written alike over the same declarations (so,
    where nothing they read changes between them, they compute the same value)."""
    while node.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and len(node.children) == 1:
        node = node.children[0]
    return tuple((n.kind, n.spelling, n.op, n.value, n.decl.key if n.decl else "") for n in node.walk())


def referenced_keys(node: "Node") -> set[str]:
    """The keys of the declarations an expression names."""
    return {n.decl.key for n in node.walk() if n.kind == "DECL_REF_EXPR" and n.decl is not None}


def in_model_header(cursor: ci.Cursor) -> bool:
    f = cursor.location.file
    return f is not None and f.name.startswith(cuda_declaration_prefixes())


def _member_depth(cursor: ci.Cursor) -> int:
    """How many member references lie on the leftmost spine of ``cursor``, itself included:
    2 for the reference to c in `a.b.c` (c, then b), the `.`s before c's name."""
    count, node = 0, cursor
    while node is not None:
        if node.kind == K.MEMBER_REF_EXPR:
            count += 1
        node = next(iter(node.get_children()), None)
    return count


def _c_string(token: str) -> str:
    """The text of one C string literal token (prefixes and common escapes handled)."""
    start = token.find('"')
    if start < 0:
        return ""
    body = token[start + 1:token.rfind('"')]
    return (body.replace("\\n", "\n").replace("\\t", "\t").replace('\\"', '"')
            .replace("\\\\", "\\"))


def asm_written_operands(node: Node) -> list[tuple[Node, bool]]:
    """An inline-asm statement's output operands, each with whether it is also read (`+r`);
    [] where the constraints are not known."""
    constraints = node.type.split("\x1f") if node.kind == "ASM_STMT" and node.type else []
    if len(constraints) != len(node.children):
        return []
    return [(child, c.startswith("+")) for child, c in zip(node.children, constraints)
            if c.startswith(("=", "+"))]


# The value `%laneid` holds where an inline-PTX move gives it to a variable (`asm("mov.u32
# %0, %%laneid;" : "=r"(lane))`): the analyses read it as the thread's lane.
LANE_ID = Node(-3, "BINARY_OPERATOR")
LANE_ID.op = "%"
_LANE_ID_MOVE = re.compile(r"mov\.[us]32\s+%0\s*,\s*%+laneid")


def lane_id_target(node: Node) -> Node | None:
    """The variable an inline-PTX statement that does nothing but move %laneid into it sets."""
    if node.kind != "ASM_STMT" or len(node.children) != 1:
        return None
    statements = [part.strip() for part in (node.spelling or "").split(";") if part.strip()]
    outputs = asm_written_operands(node)
    if len(statements) != 1 or not _LANE_ID_MOVE.fullmatch(statements[0]) or len(outputs) != 1 or outputs[0][1]:
        return None
    return strip_wrappers(outputs[0][0])


def asm_text(cursor: ci.Cursor) -> tuple[str, str]:
    """An inline-asm statement's template and its operand constraints.

    libclang shows only the operand expressions as children of an ASM_STMT; the PTX text
    (the template) and the constraints are read from the tokens: (template, constraints
    joined by '\\x1f', outputs first, in the order of the children)."""
    template: list[str] = []
    constraints: list[str] = []
    depth = 0
    section = 0  # 0: template, 1: outputs, 2: inputs, 3: clobbers
    for tok in cursor.get_tokens():
        sp = tok.spelling
        if sp == "(":
            depth += 1
            continue
        if sp == ")":
            depth -= 1
            if depth == 0:
                break
            continue
        if depth == 1 and sp in (":", "::"):
            section += 2 if sp == "::" else 1
            continue
        if tok.kind == ci.TokenKind.LITERAL and sp.endswith('"'):
            if depth == 1 and section == 0:
                template.append(_c_string(sp))
            elif depth == 1 and section in (1, 2):
                constraints.append(_c_string(sp))
    return "".join(template), "\x1f".join(constraints)


_ASSIGNMENT_OPERATORS = {f"operator{op}": op for op in
                         ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")}


def _as_builtin_assignment(call: Node) -> Node:
    """An assignment to a class-type object (`s[i] = h` of a `half`, a `float2`, a struct: the
    copy-assignment operator, implicit or not) as the built-in assignment it performs, so that
    every analysis sees the store (`target OP= value`). Calls of another shape stay calls."""
    ch = call.children
    if len(ch) != 3 or ch[1].decl is None or ch[1].decl.name != call.decl.name:
        return call
    op = _ASSIGNMENT_OPERATORS[call.decl.name]
    call.kind = "BINARY_OPERATOR" if op == "=" else "COMPOUND_ASSIGNMENT_OPERATOR"
    call.op = op
    call.decl = None
    call.spelling = ""
    call.children = [ch[0], ch[2]]
    return call


# CUDA's 24-bit integer products: the product of the operands' low 24 bits.
_MUL24 = ("__umul24", "__mul24")


def _as_multiplication(call: Node) -> Node:
    """`__umul24(tid_y, blockDim.x)` as `tid_y * blockDim.x`: thread indices and block sizes
    are below 2^24, where the two agree, so every analysis reads a linear thread index built
    with them (`__umul24(tz, __umul24(bx, by)) + __umul24(ty, bx) + tx`) as one."""
    ch = call.children
    if len(ch) != 3:
        return call
    call.kind = "BINARY_OPERATOR"
    call.op = "*"
    call.decl = None
    call.spelling = ""
    call.children = [ch[1], ch[2]]
    return call


def _plain_type(t: ci.Type) -> str:
    """A parameter or argument type without references and top-level qualifiers."""
    if t.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
        t = t.get_pointee()
    return t.get_canonical().spelling.replace("const ", "").replace("volatile ", "").strip()


def _argument_type(arg: ci.Cursor) -> str | None:
    """An argument's plain type, when it is known in generic code: also an element of a local
    array whose size is a template parameter (`acc[j]` of `float acc[N]`)."""
    t = arg.type
    if t.kind == ci.TypeKind.DEPENDENT and arg.kind == K.ARRAY_SUBSCRIPT_EXPR:
        base = next(iter(arg.get_children()), None)
        while base is not None and base.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
            base = next(iter(base.get_children()), None)
        if base is None or base.type.kind != ci.TypeKind.DEPENDENTSIZEDARRAY:
            return None
        t = base.type.element_type
    if t.kind in (ci.TypeKind.INVALID, ci.TypeKind.DEPENDENT, ci.TypeKind.UNEXPOSED):
        return None
    plain = _plain_type(t)
    return plain if plain and "type-parameter" not in plain else None


def _parenthesized_callee(call: Node) -> Decl | None:
    """The function a call names in parentheses (`(k<T, 32>)<<<g, b>>>(...)`, as a launch
    macro writes it): clang gives such a call no referenced declaration."""
    head = call.children[0] if call.children else None
    while head is not None and head.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and len(head.children) == 1:
        head = head.children[0]
    if head is not None and head.kind == "DECL_REF_EXPR" and head.decl is not None \
            and head.decl.storage == "function":
        return head.decl
    return None


def _takes_arguments(candidate: ci.Cursor, count: int) -> bool:
    """Can the candidate be called with ``count`` arguments (its defaults filling the rest)?
    A variadic candidate (a C varargs or a template parameter pack) is kept."""
    params = [p for p in candidate.get_children() if p.kind == K.PARM_DECL]
    if candidate.type.kind == ci.TypeKind.FUNCTIONPROTO and candidate.type.is_function_variadic():
        return count >= len(params)
    if any("..." in p.type.spelling for p in params):
        return True
    required = sum(1 for p in params if not any(c.kind.is_expression() for c in p.get_children()))
    return required <= count <= len(params)


def _matching_overloads(candidates: list[ci.Cursor], args: list[ci.Cursor]) -> list[ci.Cursor]:
    """The candidates whose parameter types are the arguments' where those are known in the
    generic code (an argument of a dependent type matches any parameter): `pull(v, lane)`
    with `T v` and `unsigned lane` picks pull(T, unsigned) over pull(T, const float *)."""
    arg_types = [_argument_type(a) for a in args]
    out = []
    for c in candidates:
        params = [p for p in c.get_children() if p.kind == K.PARM_DECL]
        if len(params) < len(args):
            continue
        if all(t is None or _plain_type(p.type) == t for p, t in zip(params, arg_types)):
            out.append(c)
    return out


_RECORD_KINDS = (K.STRUCT_DECL, K.UNION_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE,
                 K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)


def _is_anonymous_member(record: ci.Cursor) -> bool:
    """`struct { ... };` / `union { ... };` inside a record: its members are reached as members
    of the record around it (clang names such records "anonymous", unnamed types "unnamed")."""
    return "(anonymous " in record.type.spelling


def _byte_offset(record: ci.Cursor, name: str) -> int | None:
    """offsetof(record, name) in bytes, through anonymous members; None for dependent or
    bit-field layouts."""
    try:
        bits = record.type.get_offset(name)
    except Exception:  # noqa: BLE001 - libclang refuses some incomplete types
        return None
    return bits // 8 if bits >= 0 and bits % 8 == 0 else None


def _field_layout(field: ci.Cursor) -> FieldLayout:
    """Where a field's bytes lie: in the named record a member expression reaches it through
    (anonymous structs and unions are looked through) and in the innermost union around it."""
    records = [field.semantic_parent]
    while _is_anonymous_member(records[-1]) and records[-1].semantic_parent is not None \
            and records[-1].semantic_parent.kind in _RECORD_KINDS:
        records.append(records[-1].semantic_parent)
    name = field.spelling
    union = next((r for r in records if r.kind == K.UNION_DECL), None)
    in_record = _byte_offset(records[-1], name)
    if union is None:
        return FieldLayout(in_record)
    # a union's own members start at its first byte, whatever the types (dependent ones too)
    in_union = 0 if union == records[0] else _byte_offset(union, name)
    if union == records[-1]:
        in_record = in_union
    return FieldLayout(in_record, _key(union), union != records[-1], in_union)


def _key(identity: ci.Cursor) -> str:
    """A declaration's identity: its USR, else where it is."""
    return identity.get_usr() or f"{identity.location.file}:{identity.location.line}:{identity.location.column}:{identity.spelling}"


class Lowerer:
    """Copies cursors into Nodes; one per translation unit (it caches declarations)."""

    def __init__(self, tu: ci.TranslationUnit):
        self.tu = tu
        self._next_id = 0
        self._decls: dict[int, Decl] = {}
        self._qualified: dict[int, str] = {}
        self.lambdas: list[Node] = []
        # Function template specializations referenced by lowered code: USR -> cursor.
        self.instantiations: dict[str, ci.Cursor] = {}
        # When a list: every reference to a specialization, in lowering order, as (USR, line,
        # column of the referring name), so that a kept body can replay them (ir/reuse.py).
        self.instance_refs: list[tuple[str, int, int]] | None = None
        # While lowering a template body that stands in for a specialization: the values of
        # its integral template parameters (cursor hash -> value), lowered as literals.
        self.template_bindings: dict[int, int] = {}

    # -- declarations --
    def qualified_name(self, cursor: ci.Cursor) -> str:
        h = cursor.hash
        cached = self._qualified.get(h)
        if cached is not None:
            return cached
        parts = []
        c = cursor
        while c is not None and c.kind != K.TRANSLATION_UNIT:
            if c.kind in (K.NAMESPACE, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
                          K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR,
                          K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION, K.UNION_DECL):
                parts.append(c.spelling)
            c = c.semantic_parent
        name = "::".join(reversed(parts))
        self._qualified[h] = name
        return name

    def remember_decl(self, cursor: ci.Cursor, decl: Decl) -> None:
        """Use ``decl`` as the declaration of ``cursor`` (a kept function's, see ir/reuse.py)."""
        self._decls[cursor.hash] = decl

    def function_key(self, cursor: ci.Cursor) -> str:
        """``decl_of(cursor).key`` of a function definition, with the same registration of a
        specialization, without building its Decl (qualified name, type, ...)."""
        cached = self._decls.get(cursor.hash)
        if cached is not None:
            return cached.key
        identity, _ = self._identity(cursor, cursor.kind)
        return _key(identity)

    def _identity(self, cursor: ci.Cursor, kind: ci.CursorKind) -> tuple[ci.Cursor, str]:
        """The template a function specialization specializes, and the specialization's USR
        (it is then registered as an instantiation); else the cursor itself and ''."""
        # A member template of a class template specialization (`W<1>::step<0>`) comes from
        # the member template of W as written: that is the body syncheck lowers.
        tmpl = clang_api.written_template(cursor) if kind in (
            K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.CONVERSION_FUNCTION) else None
        instance = ""
        if tmpl is not None and tmpl != cursor:
            instance = cursor.get_usr()
            if instance:
                self.instantiations.setdefault(instance, cursor)
        return (tmpl if tmpl is not None else cursor), instance

    def _pointed_function(self, variable: ci.Cursor | None) -> Decl | None:
        """The function a const function-pointer variable is initialized with, if any."""
        if variable is None or variable.kind != K.VAR_DECL or not variable.type.is_const_qualified():
            return None
        stack = list(variable.get_children())
        while stack:
            c = stack.pop()
            if c.kind == K.DECL_REF_EXPR and c.referenced is not None \
                    and c.referenced.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
                return self.decl_of(c.referenced)
            if c.kind in (K.UNEXPOSED_EXPR, K.UNARY_OPERATOR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR):
                stack.extend(c.get_children())
        return None

    def decl_of(self, cursor: ci.Cursor) -> Decl | None:
        if cursor is None:
            return None
        h = cursor.hash
        cached = self._decls.get(h)
        if cached is not None:
            return cached
        kind = cursor.kind
        identity, instance = self._identity(cursor, kind)
        key = _key(identity)
        loc = identity.location
        file = loc.file.name if loc.file is not None else ""
        model = file.startswith(cuda_declaration_prefixes())  # CUDA's: the model's or the real headers'

        value = None
        elements = None
        is_const = False
        if kind == K.PARM_DECL:
            storage = "param"
        elif kind == K.VAR_DECL:
            storage = self._var_storage(cursor, model)
            is_const = cursor.type.is_const_qualified()
            if is_const and storage in ("local", "global", "constant"):
                value = self._constant_init(cursor)
            if storage in ("global", "constant") and cursor.type.kind in _ARRAY_TYPES and (
                    storage == "constant" or cursor.type.get_array_element_type().is_const_qualified()):
                elements = _table_elements(cursor)
        elif kind == K.FIELD_DECL:
            storage = "field"
            layout = _field_layout(cursor)
        elif kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.FUNCTION_TEMPLATE,
                      K.CONVERSION_FUNCTION, K.DESTRUCTOR):
            storage = "function"
        elif kind == K.ENUM_CONSTANT_DECL:
            storage = "enum"
            value = cursor.enum_value
        elif kind in (K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TYPE_PARAMETER):
            storage = "template"
        else:
            storage = "other"
        layout = layout if kind == K.FIELD_DECL else None
        no_return = kind == K.FUNCTION_DECL and (
            cursor.spelling in NO_RETURN_FUNCTIONS or _declared_no_return(cursor))
        decl = Decl(kind=kind.name, name=cursor.spelling, key=key, storage=storage,
                    type=type_spelling(cursor.type), qualified=self.qualified_name(identity),
                    in_model=model, line=loc.line, file=file, value=value, is_const=is_const,
                    instance=instance, no_return=no_return, layout=layout, elements=elements)
        self._decls[h] = decl
        return decl

    def _var_storage(self, cursor: ci.Cursor, model: bool) -> str:
        if model and cursor.spelling in ("threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"):
            return "builtin"
        shared = constant = False
        for child in cursor.get_children():
            if child.kind == K.CUDASHARED_ATTR:
                shared = True
            elif child.kind == K.CUDACONSTANT_ATTR:
                constant = True
        if shared:
            return "shared"
        if constant:
            return "constant"
        parent = cursor.semantic_parent
        if parent is not None and parent.kind in (K.TRANSLATION_UNIT, K.NAMESPACE, K.LINKAGE_SPEC):
            return "global"
        if cursor.storage_class == ci.StorageClass.STATIC:
            return "global"
        return "local"

    def _constant_init(self, cursor: ci.Cursor) -> int | None:
        for child in cursor.get_children():
            if child.kind.is_expression():
                value = clang_api.evaluate(child)
                return value if isinstance(value, int) else None
        return None

    # -- expressions and statements --
    def _implicit_this(self, member: Node) -> Node:
        this = Node(self._next_id, "CXX_THIS_EXPR")
        self._next_id += 1
        (this.line, this.col, this.start, this.end_line, this.end_col, this.end) = \
            (member.line, member.col, member.start, member.line, member.col, member.start)
        return this

    def lower(self, cursor: ci.Cursor) -> Node:
        kind = cursor.kind
        children = [c for c in cursor.get_children() if c.kind not in _SKIPPED]
        while len(children) == 1 and (kind in _TRANSPARENT or kind == K.INIT_LIST_EXPR and _scalar(cursor.type)):
            # (a braced list of one value of a scalar type, `index_type{threadIdx.x}`, is that value)
            cursor = children[0]
            kind = cursor.kind
            children = [c for c in cursor.get_children() if c.kind not in _SKIPPED]
        if self.template_bindings and kind == K.DECL_REF_EXPR:
            bound = self._bound_parameter(cursor)
            if bound is not None:
                return bound
        node = Node(self._next_id, kind.name)
        self._next_id += 1
        if kind not in _STATEMENTS and kind not in _LITERALS:
            node.spelling = cursor.spelling
            ctype = cursor.type
            kind_of_type, canonical = ctype.kind, ctype.get_canonical()
            canonical_kind = canonical.kind
            node.type = ctype.spelling
            if kind_of_type not in _FLOATING_TYPES and canonical_kind in _FLOATING_TYPES or (
                    kind_of_type != ci.TypeKind.POINTER and canonical_kind == ci.TypeKind.POINTER):
                # a project's name for float (`typedef float cudatype;`): a floating-point
                # value, not an unknown integer, wherever the analyses read the type; a name
                # for a pointer type (`typedef bound_t* bound_ptr;`): the pointer (see
                # type_spelling)
                node.type = canonical.spelling
            elif "fragment<" in node.type and not _FRAGMENT_NUMBERS.search(node.type):
                # a wmma fragment whose shape is spelled with named constants
                # (`fragment<matrix_a, WMMA_M, WMMA_N, WMMA_K, T, row_major>`): its numbers
                node.type = ctype.get_canonical().spelling
            if kind in _SIZED:
                node.element_bytes = _element_bytes(ctype, node.type, kind)
        elif kind in _LITERALS:
            node.type = cursor.type.spelling
        (node.line, node.col, node.start,
         node.end_line, node.end_col, node.end) = clang_api.extent_numbers(cursor)
        if kind in _REF_KINDS:
            node.decl = self.decl_of(cursor.referenced)
            if self.instance_refs is not None and node.decl is not None and node.decl.instance:
                at = cursor.location
                self.instance_refs.append((node.decl.instance, at.line, at.column))
            if kind == K.MEMBER_REF_EXPR and not node.spelling:
                node.spelling = self._dependent_member_name(cursor)
            elif kind == K.CALL_EXPR and len(children) <= 1 and cursor.type.kind in _INTEGRAL_TYPES:
                # A call without arguments the compiler can fold (a constexpr function such
                # as a warp-size query): its value.
                value = clang_api.evaluate(cursor)
                node.value = value if isinstance(value, int) else None
        elif kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            node.op = clang_api.binary_operator(cursor)
        elif kind == K.UNARY_OPERATOR:
            node.op = clang_api.unary_operator(cursor)
        elif kind in _LITERALS:
            node.value = self._literal_value(cursor, kind)
        elif kind == K.CXX_UNARY_EXPR:  # sizeof / alignof: a constant the compiler knows
            value = clang_api.evaluate(cursor)
            node.value = value if isinstance(value, int) else None
            if node.value is None:
                # of a dependent type (`sizeof(typename E::param_type)`): still one constant
                # per instance, named by what it is written as
                node.spelling = " ".join(t.spelling for t in cursor.get_tokens())
        elif kind in (K.VAR_DECL, K.PARM_DECL):
            node.decl = self.decl_of(cursor)
        elif kind == K.ASM_STMT:
            node.spelling, node.type = asm_text(cursor)
        node.children = [self.lower(c) for c in children]
        if kind == K.MEMBER_REF_EXPR and children and clang_api.extent_numbers(children[0])[2] > node.start:
            # `Reduce<true>(v)` inside a method: libclang leaves the implicit `this` out and
            # shows the template arguments, which follow the name; the object is `this`.
            node.children.insert(0, self._implicit_this(node))
        if kind == K.VAR_DECL and children and node.children:
            construction = self._dependent_construction(cursor, children[-1], node.children[-1])
            if construction is not None:
                node.children[-1] = construction
        if kind == K.VAR_DECL and node.children and node.children[-1].kind == "INIT_LIST_EXPR" \
                and len(node.children[-1].children) == 1 and _scalar(cursor.type):
            # `auto const lane{threadIdx.x % 32}`: a braced scalar initializer is its one value
            node.children[-1] = node.children[-1].children[0]
        if kind == K.CALL_EXPR and node.decl is not None and node.decl.kind == "VAR_DECL":
            # a call through a constant function pointer (`constexpr write_t write = impl;
            # write(...)`): the function it always holds
            node.decl = self._pointed_function(cursor.referenced) or node.decl
        if kind == K.CALL_EXPR and node.decl is None:
            node.decl = _parenthesized_callee(node) or self._dependent_callee(cursor)
            if node.decl is None and cursor.referenced is None:
                node.type = self._constructed_type(cursor) or node.type
            if self.instance_refs is not None and node.decl is not None and node.decl.instance:
                self.instance_refs.append((node.decl.instance, 0, 0))  # cannot be found again
        elif kind == K.DECL_REF_EXPR and not node.spelling and len(node.children) == 1 \
                and strip_wrappers(node.children[0]).kind in _LITERAL_NAMES:
            # A template argument substituted into an instantiated body: its value (an
            # enumeration's, `switch (level)` with level = L_WARP, shows as a cast literal).
            value = node.children[0]
            value.line, value.col, value.start = node.line, node.col, node.start
            value.end_line, value.end_col, value.end = node.end_line, node.end_col, node.end
            return value
        if kind == K.LAMBDA_EXPR:
            self.lambdas.append(node)
        if kind == K.CALL_EXPR and node.decl is not None and node.decl.name in _ASSIGNMENT_OPERATORS:
            return _as_builtin_assignment(node)
        if kind == K.CALL_EXPR and node.decl is not None and node.decl.in_model and node.decl.name in _MUL24:
            return _as_multiplication(node)
        self._assign_roles(node, cursor)
        return node

    def _bound_parameter(self, cursor: ci.Cursor) -> Node | None:
        """A bound template parameter's use, as the literal an instantiation would show."""
        referenced = cursor.referenced
        if referenced is None or referenced.kind != K.TEMPLATE_NON_TYPE_PARAMETER:
            return None
        value = self.template_bindings.get(referenced.hash)
        if value is None:
            return None
        node = Node(self._next_id, K.INTEGER_LITERAL.name)
        self._next_id += 1
        node.type = referenced.type.spelling
        node.value = value
        (node.line, node.col, node.start,
         node.end_line, node.end_col, node.end) = clang_api.extent_numbers(cursor)
        return node

    def _dependent_callee(self, call: ci.Cursor) -> Decl | None:
        """The function a dependent call in an uninstantiated template names (an
        instantiation's calls are resolved by clang). Among the overloads of the name: those
        that take this many arguments, then those whose parameter types are the arguments'
        types known here (`warp_sum<W>(float)` among its int, float and half2 overloads). One
        left: that one. Several (an argument of a dependent type: `get(v, lane)` with `T v`
        among get(float, unsigned) and get(double, unsigned)): the first declared of them,
        a fixed choice; overloads of one name are mostly one operation for several types,
        and rules and summaries go by the name they share."""
        children = list(call.get_children())
        stack = children[:1]
        for _ in range(4):
            if not stack:
                return None
            cur = stack.pop()
            if cur.kind == K.OVERLOADED_DECL_REF:
                candidates = [c for c in clang_api.overloaded_decls(cur)
                              if c.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD)]
                if len(candidates) > 1:
                    args = children[1:]
                    candidates = [c for c in candidates if _takes_arguments(c, len(args))] or candidates
                    candidates = _matching_overloads(candidates, args) or candidates
                return self.decl_of(candidates[0]) if candidates else None
            # the callee's name: past a written qualifier (`impl::get`, a NAMESPACE_REF or
            # TYPE_REF first) to the overload set it names; a member call (`lanes.get(v, l)`)
            # names its overload set after the object
            inner = [c for c in cur.get_children() if c.kind not in _SKIPPED]
            named = [c for c in inner if c.kind == K.OVERLOADED_DECL_REF]
            stack.extend(named[:1] if cur.kind == K.MEMBER_REF_EXPR and named else inner[:1])
        return None

    def _dependent_construction(self, variable: ci.Cursor, init: ci.Cursor, lowered: Node) -> Node | None:
        """`impl::run_t run(idx)` in an uninstantiated template, an argument of a dependent
        type: clang keeps the parenthesized arguments unresolved (an untyped unexposed
        expression) and names no constructor. The call of the constructor the arguments
        choose, as `_dependent_callee` chooses among overloads, with those arguments."""
        if init.kind != K.UNEXPOSED_EXPR or init.type.kind != ci.TypeKind.INVALID:
            return None
        record_type = variable.type.get_canonical()
        if record_type.kind != ci.TypeKind.RECORD:
            return None
        tokens = init.get_tokens()
        first = next(iter(tokens), None)
        if first is None or first.spelling != "(":
            return None
        record = record_type.get_declaration()
        constructors = [c for c in record.get_children()
                        if c.kind == K.CONSTRUCTOR or (c.kind == K.FUNCTION_TEMPLATE and c.spelling == record.spelling)]
        args = [c for c in init.get_children() if c.kind not in _SKIPPED]
        constructors = [c for c in constructors if _takes_arguments(c, len(args))]
        constructors = _matching_overloads(constructors, args) or constructors
        if not constructors:
            return None
        decl = self.decl_of(constructors[0])
        if decl is None:
            return None
        call = Node(self._next_id, K.CALL_EXPR.name)
        self._next_id += 1
        call.spelling = record.spelling
        call.type = variable.type.spelling
        (call.line, call.col, call.start,
         call.end_line, call.end_col, call.end) = clang_api.extent_numbers(init)
        # a constructor template's generic body is the template's; calls treat it as the
        # constructor it is
        call.decl = replace(decl, kind="CONSTRUCTOR")
        if len(args) == 1 and lowered.kind != "UNEXPOSED_EXPR":
            call.children = [lowered]  # the lowering already stepped into the one argument
        elif lowered.kind == "UNEXPOSED_EXPR" and len(lowered.children) == len(args):
            call.children = lowered.children
        else:
            return None
        return call

    def _literal_value(self, cursor: ci.Cursor, kind) -> int | float | None:
        if kind == K.CXX_BOOL_LITERAL_EXPR:
            # In an instantiated body the literal may stand for a template argument, whose
            # token is the parameter's name: ask clang for the value then.
            tokens = list(cursor.get_tokens())
            if tokens and tokens[0].spelling in ("true", "false"):
                return 1 if tokens[0].spelling == "true" else 0
            value = clang_api.evaluate(cursor)
            return None if value is None else (1 if value else 0)
        return clang_api.evaluate(cursor)

    def _constructed_type(self, cursor: ci.Cursor) -> str | None:
        """The qualified class an object built in template code is of, with its arguments as
        written (`BR(tmp)` with `typedef cub::BlockReduce<T, BLOCK> BR`:
        'cub::BlockReduce<type-parameter-0-0, BLOCK, ...>'): the alias says nothing of the
        class, and a dependent construction refers to no constructor."""
        canonical = cursor.type.get_canonical()
        declaration = canonical.get_declaration()
        if declaration is None or declaration.kind not in (K.CLASS_TEMPLATE, K.CLASS_DECL, K.STRUCT_DECL):
            return None
        spelling = canonical.spelling
        arguments = spelling[spelling.index("<"):] if "<" in spelling else ""
        return self.qualified_name(declaration) + arguments

    def _dependent_member_name(self, cursor: ci.Cursor) -> str:
        """The member a dependent member reference (or a property such as threadIdx.x) names:
        the identifier after its n-th `.` or `->` outside brackets, n the number of member
        references down its base (`BR(tmp).template Sum<ITEMS>` names Sum, not ITEMS). Counted
        from the start, not the end: inside a macro expansion the tokens clang gives run on
        past the expression (`threadIdx.x & cData.warpmask` would name warpmask)."""
        tokens = list(cursor.get_tokens())
        wanted = _member_depth(cursor)
        depth, after, seen = 0, None, 0
        for i, t in enumerate(tokens):
            if t.spelling in ("(", "[", "<"):
                depth += 1
            elif t.spelling in (")", "]", ">"):
                depth -= 1
            elif t.spelling == ">>":
                depth -= 2
            elif t.spelling in (".", "->") and depth == 0:
                after, seen = i + 1, seen + 1
                if seen == wanted:
                    break
        names = [t.spelling for t in tokens[after or 0:] if t.kind == ci.TokenKind.IDENTIFIER]
        if after is not None and names:
            return names[0]
        names = [t.spelling for t in tokens if t.kind == ci.TokenKind.IDENTIFIER]
        return names[-1] if names else ""

    def _assign_roles(self, node: Node, cursor: ci.Cursor) -> None:
        ch = node.children
        kind = node.kind
        if kind == "IF_STMT":
            roles = {2: ("cond", "then"), 4: ("init", "cond", "then", "else")}.get(len(ch))
            if len(ch) == 3:
                roles = ("init", "cond", "then") if ch[0].kind == "DECL_STMT" else ("cond", "then", "else")
            if roles is None and ch:
                roles = ("init",) * (len(ch) - 3) + ("cond", "then", "else")
        elif kind in ("WHILE_STMT", "SWITCH_STMT"):
            roles = ("init",) * (len(ch) - 2) + ("cond", "body") if len(ch) >= 2 else None
        elif kind == "DO_STMT":
            roles = ("body", "cond") if len(ch) == 2 else None
        elif kind == "FOR_STMT":
            roles = self._for_roles(node, cursor)
        elif kind == "CXX_FOR_RANGE_STMT":
            roles = ("init",) * (len(ch) - 2) + ("range", "body") if len(ch) >= 2 else None
        elif kind == "CONDITIONAL_OPERATOR":
            roles = ("cond", "then", "else") if len(ch) == 3 else None
        else:
            return
        if roles and len(roles) == len(ch):
            for c, r in zip(ch, roles):
                c.role = r

    def _for_roles(self, node: Node, cursor: ci.Cursor):
        ch = node.children
        if not ch:
            return None
        if len(ch) == 4:
            return ("init", "cond", "inc", "body")
        # Some header parts are missing: find the two ';' of the header by tokens.
        body = ch[-1]
        semis = []
        depth = 0
        for tok in cursor.get_tokens():
            off = tok.extent.start.offset
            if off >= body.start:
                break
            sp = tok.spelling
            if sp == "(":
                depth += 1
            elif sp == ")":
                depth -= 1
            elif sp == ";" and depth == 1:
                semis.append(off)
        if len(semis) < 2:
            return None
        roles = []
        for c in ch[:-1]:
            roles.append("init" if c.start < semis[0] else "cond" if c.start < semis[1] else "inc")
        return tuple(roles) + ("body",)

