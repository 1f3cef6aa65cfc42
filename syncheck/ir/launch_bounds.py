"""The block size a kernel's `__launch_bounds__` admits.

libclang shows the attribute without its arguments, so the first one is read from the
tokens written before the kernel's name. A plain number is the bound. An expression
(`8 * WARP_SIZE`, `nthreads(type, J)`) is evaluated where it can be: literals, object-like
macros of the kernel's file, template arguments of an instantiation, and calls written in
the same words in the kernel's body (clang evaluates the body's call in an instantiation).
In a generic template the bound stays an expression over the template parameters, built as
IR whose names resolve as in the body, so that the symbolic layer gives a call in the bound
the same value as the body's own call with the same arguments.
"""

from __future__ import annotations

import re

import clang.cindex as ci

from syncheck.frontend import clang_api
from syncheck.ir.nodes import Decl, Node

_LOOKBACK_LINES = 8
_MAX_TOKENS = 400
_MAX_MACRO_DEPTH = 4
_NUMBER = re.compile(r"(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)[ \t]+(.+?)\s*$")
# Binary operators by precedence, loosest first.
_LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
           ("<<", ">>"), ("+", "-"), ("*", "/", "%"))


class _Unreadable(Exception):
    pass


def bound_argument_tokens(tu: ci.TranslationUnit, cursor: ci.Cursor) -> list[str] | None:
    """The tokens of `__launch_bounds__`'s first argument written before the function's
    name (the attribute may stand before `template <...>`'s declaration, among the
    specifiers or before the name), or None when there is no such attribute."""
    loc = cursor.location
    if loc.file is None or not _has_attribute(cursor):
        return None
    start = ci.SourceLocation.from_position(tu, loc.file, max(1, loc.line - _LOOKBACK_LINES), 1)
    tokens = [t.spelling for t in tu.get_tokens(extent=ci.SourceRange.from_locations(start, loc))]
    tokens = tokens[-_MAX_TOKENS:]
    at = None
    for i, tok in enumerate(tokens):
        if tok == "__launch_bounds__":
            at = i
        elif tok in (";", "{", "}"):
            at = None  # the end of an earlier declaration
    if at is None or at + 1 >= len(tokens) or tokens[at + 1] != "(":
        return None
    depth, first = 0, []
    for tok in tokens[at + 1:]:
        if tok in ("(", "[", "<<<"):
            depth += 1
        elif tok in (")", "]", ">>>"):
            depth -= 1
            if depth == 0:
                return first
        elif tok == "," and depth == 1:
            return first
        if depth >= 1 and not (depth == 1 and tok == "("):
            first.append(tok)
    return None


def _has_attribute(cursor: ci.Cursor) -> bool:
    """libclang shows `__launch_bounds__` as an unexposed attribute among the function's
    children: without one, reading the tokens (the larger cost) is skipped."""
    return any(c.kind == ci.CursorKind.UNEXPOSED_ATTR for c in cursor.get_children())


def parse(tokens: list[str]):
    """An expression tree of tuples: ("num", v), ("name", s), ("call", name, args, arg
    tokens), ("bin", op, a, b), ("neg", a), ("cond", c, a, b); None if not readable."""
    try:
        tree, rest = _conditional(tokens)
    except (_Unreadable, IndexError):
        return None
    return tree if not rest else None


def _conditional(toks):
    cond, rest = _binary(toks, 0)
    if rest and rest[0] == "?":
        a, rest = _conditional(rest[1:])
        if not rest or rest[0] != ":":
            raise _Unreadable()
        b, rest = _conditional(rest[1:])
        return ("cond", cond, a, b), rest
    return cond, rest


def _binary(toks, level):
    if level == len(_LEVELS):
        return _unary(toks)
    left, rest = _binary(toks, level + 1)
    while rest and rest[0] in _LEVELS[level]:
        op = rest[0]
        right, rest = _binary(rest[1:], level + 1)
        left = ("bin", op, left, right)
    return left, rest


def _unary(toks):
    if toks[0] == "-":
        inner, rest = _unary(toks[1:])
        return ("neg", inner), rest
    if toks[0] == "+":
        return _unary(toks[1:])
    if toks[0] == "(":
        inner, rest = _conditional(toks[1:])
        if not rest or rest[0] != ")":
            raise _Unreadable()
        return inner, rest[1:]
    m = _NUMBER.match(toks[0])
    if m:
        return ("num", int(m.group(1), 0)), toks[1:]
    if toks[0] in ("true", "false"):
        return ("num", int(toks[0] == "true")), toks[1:]
    if not (toks[0][0].isalpha() or toks[0][0] == "_"):
        raise _Unreadable()
    name, rest = toks[0], toks[1:]
    while len(rest) >= 2 and rest[0] == "::":
        name, rest = name + "::" + rest[1], rest[2:]
    if rest and rest[0] == "(":
        depth, i = 0, 0
        for i, tok in enumerate(rest):
            depth += tok == "("
            depth -= tok == ")"
            if depth == 0:
                break
        inside = rest[1:i]
        args, pieces, depth = [], [], 0
        for tok in inside:
            depth += tok in ("(", "[")
            depth -= tok in (")", "]")
            if tok == "," and depth == 0:
                args.append(pieces)
                pieces = []
            else:
                pieces.append(tok)
        if pieces:
            args.append(pieces)
        trees = []
        for arg in args:
            tree, left = _conditional(arg)
            if left:
                raise _Unreadable()
            trees.append(tree)
        return ("call", name, trees, tuple(inside)), rest[i + 1:]
    return ("name", name), rest


def macros_of(lines: list[str]) -> dict[str, str]:
    """Object-like macros defined in these source lines: name -> replacement text."""
    out = {}
    for line in lines:
        if "define" in line:
            m = _DEFINE.match(line)
            if m and "(" not in m.group(1):
                out[m.group(1)] = m.group(2)
    return out


def _tokenize(text: str) -> list[str]:
    return re.findall(r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|::|<<|>>|<=|>=|==|!=|&&|\|\||\S",
                      text)


def expand_macros(tree, macros: dict[str, str], depth: int = 0):
    """The tree with object-like macro names replaced by their parsed replacement."""
    if tree is None:
        return None
    kind = tree[0]
    if kind == "name" and tree[1] in macros:
        if depth >= _MAX_MACRO_DEPTH:
            return None
        return expand_macros(parse(_tokenize(macros[tree[1]])), macros, depth + 1)
    if kind == "bin":
        a, b = expand_macros(tree[2], macros, depth), expand_macros(tree[3], macros, depth)
        return None if a is None or b is None else ("bin", tree[1], a, b)
    if kind == "neg":
        a = expand_macros(tree[1], macros, depth)
        return None if a is None else ("neg", a)
    if kind == "cond":
        parts = [expand_macros(t, macros, depth) for t in tree[1:]]
        return None if None in parts else ("cond", *parts)
    if kind == "call":
        args = [expand_macros(t, macros, depth) for t in tree[2]]
        return None if None in args else ("call", tree[1], args, tree[3])
    return tree


def evaluate(tree, names: dict[str, int], call_value) -> int | None:
    """The value of the tree, with names from ``names`` and calls from
    ``call_value(name, argument tokens)``; None when something is unknown."""
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "name":
        return names.get(tree[1])
    if kind == "call":
        return call_value(tree[1], tree[3])
    if kind == "neg":
        v = evaluate(tree[1], names, call_value)
        return None if v is None else -v
    if kind == "cond":
        c = evaluate(tree[1], names, call_value)
        return None if c is None else evaluate(tree[2] if c else tree[3], names, call_value)
    a, b = evaluate(tree[2], names, call_value), evaluate(tree[3], names, call_value)
    if a is None or b is None:
        return None
    op = tree[1]
    if op in ("/", "%") and b == 0:
        return None
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "/": lambda: int(a / b), "%": lambda: a - int(a / b) * b, "<<": lambda: a << b if 0 <= b < 64 else None,
            ">>": lambda: a >> b if 0 <= b < 64 else None, "<": lambda: int(a < b), "<=": lambda: int(a <= b),
            ">": lambda: int(a > b), ">=": lambda: int(a >= b), "==": lambda: int(a == b),
            "!=": lambda: int(a != b), "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
            "&&": lambda: int(bool(a and b)), "||": lambda: int(bool(a or b))}[op]()


def instance_arguments(cursor: ci.Cursor) -> dict[str, int]:
    """An instantiation's integral template arguments by parameter name."""
    template = clang_api.specialized_template(cursor)
    if template is None or template == cursor:
        return {}
    params = [c.spelling for c in template.get_children()
              if c.kind in (ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER, ci.CursorKind.TEMPLATE_TYPE_PARAMETER,
                            ci.CursorKind.TEMPLATE_TEMPLATE_PARAMETER)]
    arguments = clang_api.template_argument_list(cursor) or []
    return {name: value for name, (kind, value) in zip(params, arguments)
            if kind == ci.TemplateArgumentKind.INTEGRAL}


def body_call_value(body: ci.Cursor):
    """call_value for ``evaluate``: clang's value of a call the body makes to the same
    function with the same argument tokens (constant in an instantiation)."""
    def value(name: str, arg_tokens: tuple) -> int | None:
        short = name.split("::")[-1]
        for c in body.walk_preorder():
            if c.kind != ci.CursorKind.CALL_EXPR or c.spelling != short:
                continue
            toks = [t.spelling for t in c.get_tokens()]
            if toks[-len(arg_tokens) - 1:-1] == list(arg_tokens) if arg_tokens else toks[-2:] == ["(", ")"]:
                v = clang_api.evaluate(c)
                if isinstance(v, int):
                    return v
        return None
    return value


def bound_node(tree, body: Node, new_id) -> Node | None:
    """The bound as IR for the symbolic layer: names and called functions resolve to the
    declarations the body refers to by the same name (its template parameters, constants,
    the same constexpr functions); None where one does not resolve."""
    refs: dict[str, Decl] = {}
    calls: dict[tuple[str, int], Decl] = {}
    for n in body.walk():
        if n.decl is None:
            continue
        if n.kind == "DECL_REF_EXPR" and n.decl.storage in ("template", "global", "constant", "enum"):
            refs.setdefault(n.decl.name, n.decl)
        elif n.kind == "CALL_EXPR":
            calls.setdefault((n.decl.name, len(n.children) - 1), n.decl)

    def build(t) -> Node | None:
        kind = t[0]
        if kind == "num":
            node = Node(new_id(), "INTEGER_LITERAL")
            node.value = t[1]
            return node
        if kind == "name":
            decl = refs.get(t[1].split("::")[-1])
            if decl is None:
                return None
            node = Node(new_id(), "DECL_REF_EXPR")
            node.spelling, node.decl = decl.name, decl
            return node
        if kind == "call":
            decl = calls.get((t[1].split("::")[-1], len(t[2])))
            args = [build(a) for a in t[2]]
            if decl is None or None in args:
                return None
            callee = Node(new_id(), "DECL_REF_EXPR")
            callee.spelling, callee.decl = decl.name, decl
            node = Node(new_id(), "CALL_EXPR")
            node.spelling, node.decl, node.children = decl.name, decl, [callee, *args]
            return node
        if kind == "neg":
            inner = build(t[1])
            if inner is None:
                return None
            node = Node(new_id(), "UNARY_OPERATOR")
            node.op, node.children = "-", [inner]
            return node
        parts = [build(x) for x in (t[1:] if kind == "cond" else t[2:])]
        if None in parts:
            return None
        node = Node(new_id(), "CONDITIONAL_OPERATOR" if kind == "cond" else "BINARY_OPERATOR")
        node.op = None if kind == "cond" else t[1]
        node.children = parts
        return node

    return build(tree)
