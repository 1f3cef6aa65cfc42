"""Reading call expressions: callee, arguments, and the object of a member call."""

from __future__ import annotations

import re

from syncheck.ir.nodes import Node

_TILE_SIZE = re.compile(r"thread_block_tile<\s*(\d+)")


def call_args(call: Node) -> list[Node]:
    ch = call.children
    decl = call.decl
    if decl is not None and decl.kind == "CONSTRUCTOR":
        return ch
    if not ch:
        return []
    if ch[0].kind == "MEMBER_REF_EXPR":
        return ch[1:]
    if (decl is not None and decl.name.startswith("operator") and len(ch) >= 2
            and ch[1].decl is not None and ch[1].decl.name == decl.name):
        # an operator method's first child is its object (member_object); a free operator's
        # (`operator*(const half2&, const half2&)`, float3 helpers) is its first operand
        return ch[2:] if decl.kind == "CXX_METHOD" else [ch[0], *ch[2:]]
    if len(ch) >= 2 and ch[1].kind == "CALL_EXPR" and ch[1].decl is not None and \
            ch[1].decl.name in ("cudaConfigureCall", "__cudaPushCallConfiguration"):
        return ch[2:]
    return ch[1:]


# What lies between an object expression and the constructor call that builds it.
_OBJECT_WRAPPERS = ("MATERIALIZE_TEMPORARY_EXPR", "CXX_BIND_TEMPORARY_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
                    "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR",
                    "CXX_CONST_CAST_EXPR", "CXX_DYNAMIC_CAST_EXPR", "PAREN_EXPR", "UNEXPOSED_EXPR")


def constructor_call(obj: Node | None, local_definition=None) -> Node | None:
    """The constructor call that builds an object: `T(args)` itself, through temporaries and
    casts, or, with ``local_definition`` (a local's key -> the one expression that defines it,
    or None), a local object built once (`T x(args); x.run();`). None for anything else."""
    for _ in range(2):
        while obj is not None and obj.kind in _OBJECT_WRAPPERS and obj.children:
            obj = obj.children[-1]
        if obj is None or local_definition is None or obj.kind != "DECL_REF_EXPR" or obj.decl is None \
                or obj.decl.storage != "local":
            break
        obj, local_definition = local_definition(obj.decl.key), None
    if obj is None or obj.kind != "CALL_EXPR" or obj.decl is None or obj.decl.kind != "CONSTRUCTOR":
        return None
    return obj


def copied_object(node: Node | None) -> Node | None:
    """The object a copy or move construction copies (`helper(view)` passing a view by value
    builds its parameter with the implicit copy constructor: `view` itself), else the node."""
    obj = node
    while obj is not None and obj.kind in _OBJECT_WRAPPERS and obj.children:
        obj = obj.children[-1]
    if obj is not None and obj.kind == "CALL_EXPR" and obj.decl is not None and obj.decl.kind == "CONSTRUCTOR" \
            and len(obj.children) == 1:
        source = obj.children[0]
        while source.kind in _OBJECT_WRAPPERS and source.children:
            source = source.children[-1]
        parameters = obj.decl.type.split("(", 1)[1].rsplit(")", 1)[0] if "(" in obj.decl.type else ""
        # (a copy or move constructor takes its one argument by reference; a converting one,
        # `View(float* p)`, takes a value)
        if source.kind in ("DECL_REF_EXPR", "MEMBER_REF_EXPR") and source.decl is not None \
                and parameters.endswith("&") and _top_level_commas(parameters) == 0 \
                and _bare_type(parameters) == _bare_type(obj.type):
            return source
    return node


def _bare_type(spelling: str) -> str:
    """A type's spelling without const, references and the keywords around a record name."""
    words = spelling.replace("&", " ").split()
    return " ".join(w for w in words if w not in ("const", "volatile", "struct", "class"))


def _top_level_commas(text: str) -> int:
    depth = count = 0
    for ch in text:
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(ch, 0)
        count += ch == "," and depth == 0
    return count


def template_bindings(call: Node, callee, scope) -> dict:
    """A call of a function template that names its arguments (`tile<type, J>(s)` in generic
    code): the callee's template parameters bound to them, when every parameter has its
    argument written (a type argument may have no node, so a partial list is not aligned)."""
    if not callee.template_params or not call.children:
        return {}
    head = call.children[0]
    while head.kind == "UNEXPOSED_EXPR" and len(head.children) == 1:
        head = head.children[0]
    if head.kind != "DECL_REF_EXPR" or not head.children or head.children[0].kind != "OVERLOADED_DECL_REF":
        return {}
    written = head.children[1:]
    if len(written) != len(callee.template_params):
        return {}
    return {key: (arg, scope) for key, arg in zip(callee.template_params, written)
            if arg.kind in ("DECL_REF_EXPR", "INTEGER_LITERAL", "CXX_BOOL_LITERAL_EXPR", "BINARY_OPERATOR",
                            "UNARY_OPERATOR", "PAREN_EXPR", "CALL_EXPR")}


def callee_name(call: Node) -> str:
    if call.decl is not None:
        return call.decl.name
    if call.children:
        head = call.children[0]
        if head.kind in ("MEMBER_REF_EXPR", "DECL_REF_EXPR", "OVERLOADED_DECL_REF"):
            return head.spelling
    return call.spelling


def member_object(call: Node) -> Node | None:
    """``g`` in ``g.sync()``, and ``each`` in ``each(f)`` (an operator method called on an
    object); None for a free function call."""
    ch = call.children
    if ch and ch[0].kind == "MEMBER_REF_EXPR":
        return ch[0].children[0] if ch[0].children else None
    decl = call.decl
    if decl is not None and decl.kind == "CXX_METHOD" and decl.name.startswith("operator") \
            and len(ch) >= 2 and ch[1].decl is not None and ch[1].decl.name == decl.name:
        return ch[0]
    return None


def group_kind(type_spelling: str) -> tuple[str | None, int | None]:
    """The cooperative-groups kind named by a type, and a tile's size when known."""
    t = type_spelling.replace("const ", "").replace("&", "").strip()
    m = _TILE_SIZE.search(t)
    if m:
        return "tile", int(m.group(1))
    if "thread_block_tile" in t:
        return "tile", None
    for name, kind in (("grid_group", "grid"), ("thread_block", "block"),
                       ("coalesced_group", "coalesced"), ("thread_group", "thread_group")):
        if re.search(rf"\b{name}\b", t):
            return kind, None
    return None, None


def source_text(lines: list[str], node: Node, limit: int = 80) -> str:
    if not node.line or node.line > len(lines):
        return ""
    if node.line == node.end_line:
        text = lines[node.line - 1][node.col - 1:node.end_col - 1]
    else:
        text = lines[node.line - 1][node.col - 1:].rstrip() + " ..."
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def expression_text(node: Node, limit: int = 80) -> str:
    """An expression written back from its tree (names, literals, operators, subscripts,
    members, calls), for a place whose source text is a macro's use; "" where a part is not
    one of those."""
    def write(n: Node, depth: int) -> str | None:
        if depth > 12:
            return None
        kids = n.children
        if n.kind in ("UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR") and kids:
            return write(kids[-1], depth + 1)
        if n.kind == "PAREN_EXPR" and kids:
            inner = write(kids[0], depth + 1)
            return None if inner is None else f"({inner})"
        if n.kind in ("DECL_REF_EXPR", "MEMBER_REF_EXPR") and not kids:
            return n.spelling or None
        if n.kind == "INTEGER_LITERAL" and n.value is not None:
            return str(n.value)
        if n.kind == "ARRAY_SUBSCRIPT_EXPR" and len(kids) == 2:
            a, b = write(kids[0], depth + 1), write(kids[1], depth + 1)
            return None if a is None or b is None else f"{a}[{b}]"
        if n.kind == "MEMBER_REF_EXPR" and kids:
            a = write(kids[0], depth + 1)
            arrow = "->" if "*" in kids[0].type and "[" not in kids[0].type else "."
            return None if a is None else f"{a}{arrow}{n.spelling}"
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and len(kids) == 2 and n.op:
            a, b = write(kids[0], depth + 1), write(kids[1], depth + 1)
            return None if a is None or b is None else f"{a} {n.op} {b}"
        if n.kind == "UNARY_OPERATOR" and kids and n.op:
            a = write(kids[0], depth + 1)
            if a is None:
                return None
            return f"{a}{n.op[4:]}" if n.op.startswith("post") else f"{n.op}{a}"
        return None
    text = write(node, 0) or ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_default_argument(node: Node) -> bool:
    """A default argument the user did not write (libclang shows it as a bare unexposed expr)."""
    return node.kind == "UNEXPOSED_EXPR" and not node.children


def bound_arguments(params: list, args: list[Node]) -> list[tuple[object, Node]]:
    """(parameter, the expression it receives) for a call's arguments: an argument the call
    leaves out is the parameter's default (which cannot name the callee's other parameters,
    so it reads the same in the caller)."""
    return [(p, p.default if p.default is not None and is_default_argument(a) else a)
            for p, a in zip(params, args)]


def reference_argument_positions(call: Node) -> set[int] | None:
    """Positions of the call's arguments bound to non-const reference parameters, which the
    callee may assign (`tie(_Tp&... args)`: every argument from the pack on); None when the
    callee's type is not known, so any argument may be one."""
    decl = call.decl
    spelling = getattr(decl, "type", "") if decl is not None else ""
    if "(" not in spelling:
        return None
    types = parameter_types(spelling)
    found = {i for i, p in enumerate(types) if "&" in p and not _refers_to_const(p)}
    if types and types[-1].endswith("...") and len(types) - 1 in found:
        found |= set(range(len(types) - 1, max(len(call_args(call)), len(types))))
    return found


def _refers_to_const(parameter: str) -> bool:
    """`const T &`, `T const &` (not `const T *&`, a reference to a pointer it may reseat)."""
    referred = parameter[:parameter.rfind("&")].rstrip("&")
    return "*" not in referred and "const" in re.findall(r"\w+", referred)


def parameter_types(function_type: str) -> list[str]:
    """Parameter types from a function type spelling such as 'void (int &, float)'."""
    start = function_type.find("(")
    if start < 0:
        return []
    inner, depth, parts, cur = function_type[start + 1:function_type.rfind(")")], 0, [], ""
    for ch in inner:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]
