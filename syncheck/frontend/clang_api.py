"""libclang access: the Python bindings plus the few C entry points they lack."""

from __future__ import annotations

import ctypes
import functools

import clang.cindex as ci

# Parse option: keep going after fatal errors such as a missing include, so the
# rest of the file is still analyzed.
KEEP_GOING = 0x200
DETAILED_PREPROCESSING = 0x01


@functools.cache
def _lib():
    lib = ci.conf.lib
    lib.clang_getCursorBinaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorBinaryOperatorKind.restype = ctypes.c_int
    lib.clang_getCursorUnaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorUnaryOperatorKind.restype = ctypes.c_int
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_isUnsignedInt.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_isUnsignedInt.restype = ctypes.c_uint
    lib.clang_EvalResult_getAsUnsigned.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsUnsigned.restype = ctypes.c_ulonglong
    lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
    lib.clang_EvalResult_getAsDouble.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsDouble.restype = ctypes.c_double
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_dispose.restype = None
    lib.clang_getNumOverloadedDecls.argtypes = [ci.Cursor]
    lib.clang_getNumOverloadedDecls.restype = ctypes.c_uint
    lib.clang_getOverloadedDecl.argtypes = [ci.Cursor, ctypes.c_uint]
    lib.clang_getOverloadedDecl.restype = ci.Cursor
    lib.clang_getOverloadedDecl.errcheck = ci.Cursor.from_result
    return lib


# CXBinaryOperatorKind, in libclang's order.
BINARY_OPERATORS = (
    None, ".*", "->*", "*", "/", "%", "+", "-", "<<", ">>", "<=>", "<", ">", "<=", ">=",
    "==", "!=", "&", "^", "|", "&&", "||", "=", "*=", "/=", "%=", "+=", "-=", "<<=",
    ">>=", "&=", "^=", "|=", ",",
)
# CXUnaryOperatorKind, in libclang's order ("post++" and "post--" are postfix).
UNARY_OPERATORS = (
    None, "post++", "post--", "++", "--", "&", "*", "+", "-", "~", "!", "__real", "__imag",
    "__extension__", "co_await",
)


def binary_operator(cursor: ci.Cursor) -> str | None:
    kind = _lib().clang_getCursorBinaryOperatorKind(cursor)
    return BINARY_OPERATORS[kind] if 0 <= kind < len(BINARY_OPERATORS) else None


def unary_operator(cursor: ci.Cursor) -> str | None:
    kind = _lib().clang_getCursorUnaryOperatorKind(cursor)
    return UNARY_OPERATORS[kind] if 0 <= kind < len(UNARY_OPERATORS) else None


_EVAL_INT = 1
_EVAL_FLOAT = 2


def evaluate(cursor: ci.Cursor) -> int | float | None:
    """Constant value of an expression cursor, or None when it is not constant."""
    lib = _lib()
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        kind = lib.clang_EvalResult_getKind(result)
        if kind == _EVAL_INT:
            if lib.clang_EvalResult_isUnsignedInt(result):
                return int(lib.clang_EvalResult_getAsUnsigned(result))
            return int(lib.clang_EvalResult_getAsLongLong(result))
        if kind == _EVAL_FLOAT:
            return float(lib.clang_EvalResult_getAsDouble(result))
        return None
    finally:
        lib.clang_EvalResult_dispose(result)


def specialized_template(cursor: ci.Cursor) -> ci.Cursor | None:
    tmpl = ci.conf.lib.clang_getSpecializedCursorTemplate(cursor)
    return tmpl


def written_template(cursor: ci.Cursor) -> ci.Cursor | None:
    """The template a function specialization comes from, as written: for a member template
    of a class template specialization (`W<1>::step<0>`), the member template of W."""
    tmpl = specialized_template(cursor)
    if tmpl is None or tmpl == cursor:
        return tmpl
    for _ in range(4):
        written = specialized_template(tmpl)
        if written is None or written == tmpl or written.kind != ci.CursorKind.FUNCTION_TEMPLATE:
            break
        tmpl = written
    return tmpl


def overloaded_decls(cursor: ci.Cursor) -> list[ci.Cursor]:
    """The candidates an unresolved (dependent) name in a template may call."""
    lib = _lib()
    return [lib.clang_getOverloadedDecl(cursor, i) for i in range(lib.clang_getNumOverloadedDecls(cursor))]


def template_argument_list(specialization: ci.Cursor) -> list[tuple[object, int | None]] | None:
    """(kind, value) of each template argument of a specialization, the value for integral
    arguments only; None where the bindings cannot tell (a parameter pack, older bindings)."""
    try:
        count = specialization.get_num_template_arguments()
        out = []
        for i in range(max(count, 0)):
            kind = specialization.get_template_argument_kind(i)
            value = _integral_argument(specialization, i) if kind == ci.TemplateArgumentKind.INTEGRAL else None
            out.append((kind, value))
        return out
    except (ValueError, AttributeError):  # a kind the bindings do not name (a pack); old bindings
        return None


def _is_bool_argument(specialization: ci.Cursor, i: int) -> bool:
    """Is the i-th template parameter a bool? (libclang gives no type for an integral
    argument, so the parameter's declaration in the template says.)"""
    template = ci.conf.lib.clang_getSpecializedCursorTemplate(specialization)
    if template is None or template.kind is None:
        return False
    params = [c for c in template.get_children() if c.kind in _TEMPLATE_PARAMETER_CURSORS]
    if i >= len(params) or params[i].kind != ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER:
        return False
    return params[i].type.get_canonical().kind == ci.TypeKind.BOOL


_TEMPLATE_PARAMETER_CURSORS = frozenset((ci.CursorKind.TEMPLATE_TYPE_PARAMETER,
                                         ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
                                         ci.CursorKind.TEMPLATE_TEMPLATE_PARAMETER))


def _integral_argument(specialization: ci.Cursor, i: int) -> int:
    """An integral template argument's value; a bool's is 1 or 0 (libclang reads `true` as a
    signed one-bit value, -1)."""
    value = specialization.get_template_argument_value(i)
    return (1 if value else 0) if _is_bool_argument(specialization, i) else value


def template_arguments(cursor: ci.Cursor) -> str:
    """'<float, 12>' for a function template specialization; '' when there is none."""
    try:
        count = cursor.get_num_template_arguments()
    except Exception:  # older bindings
        return ""
    if count <= 0:
        return ""
    parts = []
    for i in range(count):
        try:
            kind = cursor.get_template_argument_kind(i)
        except ValueError:  # a kind the bindings do not name (8: a parameter pack)
            parts.append("...")
            continue
        if kind == ci.TemplateArgumentKind.INTEGRAL:
            value = _integral_argument(cursor, i)
            parts.append(("true" if value else "false") if _is_bool_argument(cursor, i) else str(value))
        elif kind == ci.TemplateArgumentKind.TYPE:
            parts.append(cursor.get_template_argument_type(i).spelling)
        else:
            parts.append("...")
    return "<" + ", ".join(parts) + ">"


def extent_numbers(cursor: ci.Cursor) -> tuple[int, int, int, int, int, int]:
    """(line, column, offset) of the start and of the end of a cursor's extent, as
    ``cursor.extent.start.line`` etc. give them, in four foreign calls and without the File
    objects the bindings make for every location (lowering reads this for every node)."""
    lib = ci.conf.lib
    line, column, offset = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    refs = (ctypes.byref(line), ctypes.byref(column), ctypes.byref(offset))
    extent = lib.clang_getCursorExtent(cursor)
    lib.clang_getInstantiationLocation(lib.clang_getRangeStart(extent), None, *refs)
    start = (line.value, column.value, offset.value)
    lib.clang_getInstantiationLocation(lib.clang_getRangeEnd(extent), None, *refs)
    return start + (line.value, column.value, offset.value)


# CXChildVisitResult
_VISIT_BREAK, _VISIT_CONTINUE = 0, 1
_TEMPLATE_PARAMETER_KINDS = frozenset(k.value for k in (
    ci.CursorKind.TEMPLATE_TYPE_PARAMETER, ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
    ci.CursorKind.TEMPLATE_TEMPLATE_PARAMETER))
_FUNCTION_TEMPLATE_KIND = ci.CursorKind.FUNCTION_TEMPLATE.value


def _attribute_visitor(child: ci.Cursor, _parent: ci.Cursor, state: list) -> int:
    kind = child._kind_id
    if 400 <= kind < 500:  # CXCursor_FirstAttr .. before CXCursor_FirstPreprocessing
        state[1].append(kind)
        return _VISIT_CONTINUE
    if state[0] and (kind in _TEMPLATE_PARAMETER_KINDS or 100 <= kind < 200):  # 100..199: expressions
        return _VISIT_CONTINUE
    return _VISIT_BREAK


_ATTRIBUTE_VISITOR = ci.callbacks["cursor_visit"](_attribute_visitor)


def function_attribute_kinds(cursor: ci.Cursor) -> list[int]:
    """The kinds (numbers) of a function declaration's attributes, read without visiting the
    rest of its children (its parameters and body). libclang visits a declaration's
    attributes before anything else of it; a function template's come after its template
    parameters and requires clause. Deciding host or device code this way costs a few
    foreign calls instead of one per child: the walk over a translation unit asks it of
    every function definition of every header."""
    found: list[int] = []
    ci.conf.lib.clang_visitChildren(cursor, _ATTRIBUTE_VISITOR,
                                    [cursor._kind_id == _FUNCTION_TEMPLATE_KIND, found])
    return found


def location_file(location: ci.SourceLocation, names: dict[int, str]) -> str | None:
    """The name of the file a location is in (as ``location.file.name``), or None; ``names``
    caches the names by libclang's file handle (valid for one translation unit)."""
    handle = ci.c_object_p()
    ci.conf.lib.clang_getInstantiationLocation(location, ctypes.byref(handle), None, None, None)
    if not handle:
        return None
    address = ctypes.cast(handle, ctypes.c_void_p).value
    name = names.get(address)
    if name is None:
        name = names[address] = ci.File(handle).name
    return name
