"""Where host-side launch parameters come from: occupancy queries, SM counts, constants.

A small flow-insensitive def-use over one host function (and the host helpers it calls):
enough to tell whether a cooperative launch's grid is derived from
cudaOccupancyMaxActiveBlocksPerMultiprocessor, is a constant, or comes from other data.

The device's warp size, as the host reads it (cudaDeviceProp::warpSize, the
cudaDevAttrWarpSize attribute), is a constant: 32 on every GPU CUDA targets. Host code often
keeps it in a field of its own device-info record, filled once at start-up in another file;
field_assignments() lists what each file assigns to its records' fields, and the engine gives
every file the fields all of whose assignments agree on one constant (Program.field_values).
The same join tells which fields hold the device's SM count (a cooperative grid of one block
per SM always fits).
"""

from __future__ import annotations

import math
import re

from syncheck.analyses.constants import WARP_SIZE
from syncheck.ir.calls import call_args
from syncheck.ir.nodes import Node, strip_wrappers
from syncheck.ir.program import Function, Program

OCCUPANCY = "occupancy"
SM_COUNT = "sm_count"
# A field's fact "it holds the device's SM count", joined across files as the field values
# are (Program.field_values[field key + this] == 1 where every write stores the SM count).
HOLDS_SM_COUNT = "#holds-sm-count"
PARAMETER = "parameter"

_OCCUPANCY_CALLS = {"cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                    "cudaOccupancyMaxPotentialBlockSize", "cudaOccupancyMaxActiveClusters"}
# At most this many values are followed for an expression that picks between constants.
_MAX_CHOICES = 16
_ASSIGN = {"=", "*=", "/=", "+=", "-=", "%=", "<<=", ">>=", "&=", "|=", "^="}
_WARP_SIZE_ATTRIBUTES = {"cudaDevAttrWarpSize", "CU_DEVICE_ATTRIBUTE_WARP_SIZE"}


def _device_warp_size_field(decl) -> bool:
    """cudaDeviceProp::warpSize of the CUDA headers."""
    return decl.in_model and decl.kind == "FIELD_DECL" and decl.name == "warpSize" and \
        decl.qualified in ("cudaDeviceProp", "cudaDeviceProp_v2")


def _project_field(decl) -> bool:
    """A field of a record the analyzed code declares (not CUDA's: dim3, cudaDeviceProp; not
    a system library's, such as std::pair, which every project fills in its own ways)."""
    return decl is not None and decl.kind == "FIELD_DECL" and not decl.in_model and \
        not decl.file.startswith(("/usr/include/", "/usr/local/include/", "/usr/lib/"))


def _base_var(node: Node) -> str | None:
    while node.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "MEMBER_REF_EXPR", "ARRAY_SUBSCRIPT_EXPR",
                        "CSTYLE_CAST_EXPR", "UNARY_OPERATOR") and node.children:
        node = node.children[0]
    if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage in ("local", "param"):
        return node.decl.key
    return None


class HostValues:
    def __init__(self, program: Program, fn: Function, depth: int = 0, site: Node | None = None):
        """``site``: a launch the values are wanted at; the `case` it sits under fixes the
        value its switch tests there."""
        self.program = program
        self.fn = fn
        self.depth = depth
        self.defs: dict[str, list[Node]] = {}
        # `shape.x = n`: assignments to one field of a local struct (dim3), by variable and field
        self.field_defs: dict[str, dict[str, list[Node]]] = {}
        self.direct: dict[str, set[str]] = {}
        # variables a device attribute query writes: the value each query gives (None: not
        # a constant attribute)
        self.queried: dict[str, set[int | None]] = {}
        # variables whose address a call takes (`cudaOccupancyMaxPotentialBlockSize(&grid,
        # &block, ...)`): the call may set them, so their literal initializers say nothing
        self.escaped: set[str] = set()
        self.params = {p.key for p in fn.params}
        self._memo: dict[str, set[str]] = {}
        self._following: set[str] = set()  # variables whose constant value is being found
        # a helper's parameters while its returned expression is read in place of a call
        # (divisor): parameter key -> the call's argument, read in this function
        self._inlined: dict[str, Node] = {}
        self._within_function = False  # judging a branch: parameters are not followed to callers
        self.case_values: dict[str, int] = {}  # variables a `case` around the site fixes
        if fn.body is not None:
            self._collect(fn.body)
            self._drop_dead_branches(fn.body)  # function-wide: before the site's cases apply
        if site is not None:
            self.case_values = _case_values(fn, site)

    def _collect(self, body: Node) -> None:
        for n in body.walk():
            if n.kind == "VAR_DECL" and n.decl is not None and n.children:
                self.defs.setdefault(n.decl.key, []).append(n.children[-1])
            elif n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN \
                    and len(n.children) == 2:
                key = _base_var(n.children[0])
                if key:
                    self.defs.setdefault(key, []).append(n.children[1])
                    target = n.children[0]
                    if target.kind == "MEMBER_REF_EXPR" and n.op == "=" and target.children and \
                            target.children[0].kind == "DECL_REF_EXPR":
                        self.field_defs.setdefault(key, {}).setdefault(target.spelling, []).append(
                            n.children[1])
            elif n.kind == "CALL_EXPR" and n.decl is not None:
                name = n.decl.name
                args = call_args(n)
                for arg in args:
                    target = strip_wrappers(arg)
                    if target.kind == "UNARY_OPERATOR" and target.op == "&" and target.children:
                        key = _base_var(target.children[0])
                        if key:
                            self.escaped.add(key)
                if name in _OCCUPANCY_CALLS and args:
                    key = _base_var(args[0])
                    if key:
                        self.direct.setdefault(key, set()).add(OCCUPANCY)
                elif name in ("cudaDeviceGetAttribute", "cuDeviceGetAttribute") and len(args) >= 2:
                    attr = next((x for x in args[1].walk() if x.kind == "DECL_REF_EXPR"), None)
                    key = _base_var(args[0])
                    if key:
                        warp = attr is not None and attr.decl is not None and \
                            attr.decl.name in _WARP_SIZE_ATTRIBUTES
                        self.queried.setdefault(key, set()).add(WARP_SIZE if warp else None)
                    if key and attr is not None and attr.decl is not None and (
                            "MultiProcessorCount" in attr.decl.name or
                            "MULTIPROCESSOR_COUNT" in attr.decl.name):
                        self.direct.setdefault(key, set()).add(SM_COUNT)

    def _drop_dead_branches(self, body: Node) -> None:
        """Forget assignments in the arm of an `if` that a constant condition never takes: a
        clamp such as `int n = SIZE / 2; if (n < 1) n = 1;` (a macro instantiated with a
        constant SIZE) leaves n constant. The condition is judged from the definitions made
        outside that `if` (its own arms would make it look variable), within this function
        (a parameter is not followed into the callers here: each caller's values would be
        built for every `if`). Only an `if` whose arms define something is judged."""
        defined = {id(d) for defs in self.defs.values() for d in defs}
        defined |= {id(d) for fields in self.field_defs.values() for values in fields.values() for d in values}
        if not defined:
            return
        for node in body.walk():
            if node.kind != "IF_STMT" or len(node.children) not in (2, 3):
                continue
            arms = node.children[1:]
            inside = {id(n) for arm in arms for n in arm.walk()} & defined
            if not inside:
                continue
            full, self.defs = self.defs, {k: [d for d in v if id(d) not in inside] for k, v in self.defs.items()}
            self._within_function = True
            try:
                taken = self.constant(node.children[0])
            finally:
                self.defs, self._within_function = full, False
            if taken is None:
                continue
            dead_arm = arms[0] if not taken else (arms[1] if len(arms) == 2 else None)
            if dead_arm is None:
                continue
            dead = {id(n) for n in dead_arm.walk()} & defined
            self.defs = {k: [d for d in v if id(d) not in dead] for k, v in self.defs.items()}
            for fields in self.field_defs.values():
                for name, values in fields.items():
                    fields[name] = [d for d in values if id(d) not in dead]
            defined -= dead

    def sources(self, expr: Node) -> set[str]:
        out: set[str] = set()
        for n in expr.walk():
            if n.kind == "MEMBER_REF_EXPR" and n.spelling == "multiProcessorCount":
                out.add(SM_COUNT)
            elif n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage in ("local", "param"):
                out |= self._var_sources(n.decl.key)
            elif n.kind == "CALL_EXPR" and self.depth < 3:
                callee = self.program.resolve_call(n.decl)
                if callee is not None and callee.body is not None and not callee.runs_on_device:
                    sub = HostValues(self.program, callee, self.depth + 1)
                    for r in callee.body.walk():
                        if r.kind == "RETURN_STMT" and r.children:
                            out |= sub.sources(r.children[0])
        return out

    def _var_sources(self, key: str) -> set[str]:
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = set()  # cycle guard
        out = set(self.direct.get(key, ()))
        if key in self.params:
            out.add(PARAMETER)
            out.add(f"{PARAMETER}:{key}")
        for expr in self.defs.get(key, ()):
            out |= self.sources(expr)
        self._memo[key] = out
        return out

    def dim3(self, expr: Node) -> tuple[int, int, int] | None:
        """(x, y, z) of a constant block or grid shape: an integer or a dim3 of constants."""
        node = expr
        while node.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and node.children:
            node = node.children[-1]
        if node.kind == "CALL_EXPR" and node.decl is not None and node.decl.kind == "CONSTRUCTOR":
            real = [a for a in node.children if not (a.kind == "UNEXPOSED_EXPR" and not a.children)]
            if len(real) == 1 and "dim3" in real[0].type:  # a copy of another dim3
                return self.dim3(real[0])
        if node.kind == "DECL_REF_EXPR" and node.decl is not None and "dim3" in node.decl.type:
            key = node.decl.key
            fields = self.field_defs.get(key, {})
            whole = [d for d in self.defs.get(key, [])
                     if not any(d is v for values in fields.values() for v in values)]
            if not whole and not fields and node.decl.storage == "param":
                return self._argument_dim3(key)
            if len(whole) != 1:
                return None
            dims = self.dim3(whole[0])
            if dims is None or not fields:
                return dims
            # Field assignments (`shape.x = n`) count when every one gives the same constant.
            out = list(dims)
            for name, values in fields.items():
                axis = "xyz".find(name)
                found = {self.constant(v) for v in values}
                if axis < 0 or len(found) != 1 or None in found:
                    return None
                out[axis] = found.pop()
            return tuple(out)  # type: ignore[return-value]
        if node.kind == "CALL_EXPR" and node.decl is not None and node.decl.kind == "CONSTRUCTOR" \
                and node.decl.name == "dim3" and not (len(node.children) == 1 and "dim3" in node.children[0].type):
            args = [a for a in node.children if not (a.kind == "UNEXPOSED_EXPR" and not a.children)]
            values = [self.constant(a) for a in args]  # none: `dim3 block;` is (1, 1, 1)
            if any(v is None for v in values):
                return None
            values = values + [1] * (3 - len(values))
            return tuple(values[:3])  # type: ignore[return-value]
        value = self.constant(node)
        return (value, 1, 1) if value is not None else None

    def dim3_expressions(self, expr: Node) -> list[Node | None] | None:
        """The x, y, z expressions of a block or grid shape (None: 1), through dim3 locals."""
        node = expr
        while (node.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") or (
                node.kind == "CXX_FUNCTIONAL_CAST_EXPR" and "dim3" in node.type)) and node.children:
            node = node.children[-1]  # `dim3(n)` is a cast of n to dim3
        if node.kind == "DECL_REF_EXPR" and node.decl is not None and "dim3" in node.decl.type:
            defs = self.defs.get(node.decl.key, [])
            return self.dim3_expressions(defs[0]) if len(defs) == 1 else None
        if node.kind == "CALL_EXPR" and node.decl is not None and node.decl.kind == "CONSTRUCTOR":
            args = [a for a in node.children if not (a.kind == "UNEXPOSED_EXPR" and not a.children)]
            if len(args) == 1 and "dim3" in args[0].type:
                return self.dim3_expressions(args[0])
            if not args or len(args) > 3:
                return None
            return list(args) + [None] * (3 - len(args))
        if "dim3" in node.type:
            return None  # a dim3 from a call or a field (`config.block()`): every axis unknown
        return [node, None, None]

    def constant(self, expr: Node) -> int | None:
        """The value of an expression built from literals and constants only."""
        from syncheck.analyses.uniformity import fold_node
        kind = expr.kind
        if kind in ("INTEGER_LITERAL",):
            return expr.value if isinstance(expr.value, int) else None
        if kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
                    "CXX_STATIC_CAST_EXPR") and expr.children:
            return self.constant(expr.children[-1])
        if kind == "CALL_EXPR" and expr.decl is not None and expr.decl.kind == "CONSTRUCTOR":
            args = [a for a in expr.children if not (a.kind == "UNEXPOSED_EXPR" and not a.children)]
            values = [self.constant(a) for a in args]
            if values and all(isinstance(v, int) for v in values):
                total = 1
                for v in values:
                    total *= v
                return total
            return None
        if kind == "UNARY_OPERATOR" and expr.op in ("-", "+", "~", "!") and len(expr.children) == 1:
            # `~0x3f & (4 * width + 0x3f)`: a pitch rounded up to 64 bytes
            v = self.constant(expr.children[0])
            if v is None:
                return None
            return {"-": -v, "+": v, "~": ~v, "!": int(not v)}[expr.op]
        if kind == "BINARY_OPERATOR" and len(expr.children) == 2:
            if expr.op == "=":  # `a = b = n`: b's definition is this assignment itself
                return self.constant(expr.children[1])
            a, b = (self.constant(c) for c in expr.children)
            return fold_node(expr, a, b) if a is not None and b is not None else None
        if kind == "MEMBER_REF_EXPR" and expr.decl is not None and expr.children:
            return self._member_constant(expr)
        if kind == "DECL_REF_EXPR" and expr.decl is not None:
            if expr.decl.value is not None:
                return expr.decl.value
            key = expr.decl.key
            if key in self.case_values:
                return self.case_values[key]
            defs = self.defs.get(key, [])
            if key in self.queried:
                # `int ws = 0; cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, dev)`: the
                # query overwrites a literal placeholder; any other write leaves it unknown
                found = self.queried[key]
                if len(found) != 1 or key in self.params or any(
                        strip_wrappers(d).kind != "INTEGER_LITERAL" or not self._is_initializer(key, d)
                        for d in defs):
                    return None
                return next(iter(found))
            if key in self.escaped:
                return None  # set through its address by a call
            if len(defs) == 1 and key not in self.direct and (
                    key not in self.params or self._overwritten_first(key, defs[0])):
                if key in self._following:
                    return None  # `t = a; a = b; b = t;` defines each from the next
                self._following.add(key)
                try:
                    return self.constant(defs[0])
                finally:
                    self._following.discard(key)
            if key in self.params and not defs:
                return self._argument_constant(key)
        return None

    def passed_through(self, expr: Node, depth: int = 0) -> bool:
        """Is the value a parameter handed on unchanged (`grid`, `dim3(NWINS, n)`, a local
        copy of one): no arithmetic, no call other than a dim3, at least one parameter?"""
        found = self._pass_through_parts(expr, depth)
        return found is True

    def _pass_through_parts(self, expr: Node, depth: int) -> bool | None:
        """True: some parameter passes through; False: constants only; None: computed."""
        if depth > 8:
            return None
        kind = expr.kind
        if kind == "UNEXPOSED_EXPR" and not expr.children:
            return False  # a defaulted dim3 axis
        if kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
                    "CXX_STATIC_CAST_EXPR") and expr.children:
            return self._pass_through_parts(expr.children[-1], depth + 1)
        if kind != "DECL_REF_EXPR" and self.constant(expr) is not None:
            return False
        if kind == "CALL_EXPR" and expr.decl is not None and expr.decl.kind == "CONSTRUCTOR" \
                and expr.decl.name == "dim3":
            args = [a for a in expr.children if not (a.kind == "UNEXPOSED_EXPR" and not a.children)]
            parts = [self._pass_through_parts(a, depth + 1) for a in args]
            return None if any(p is None for p in parts) else any(parts)
        if kind == "DECL_REF_EXPR" and expr.decl is not None:
            if expr.decl.value is not None:
                return False
            key = expr.decl.key
            defs = self.defs.get(key, [])
            if key in self.params and not defs:
                return True
            if len(defs) == 1 and key not in self.direct and key not in self.params:
                return self._pass_through_parts(defs[0], depth + 1)
        return None

    def divisor(self, expr: Node, depth: int = 0) -> int:
        """A positive constant the value is always a multiple of (1 where none is known):
        `rows * 256` is a multiple of 256, through locals defined once and parameters every
        caller passes such a multiple for."""
        if depth > 8:
            return 1
        saved, self._within_function = self._within_function, True
        try:
            value = self.constant(expr)  # this function's own constants, not its callers'
        finally:
            self._within_function = saved
        if value is not None:
            return abs(value) if value else 0  # 0 is a multiple of everything
        kind = expr.kind
        if kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
                    "CXX_STATIC_CAST_EXPR") and expr.children:
            return self.divisor(expr.children[-1], depth + 1)
        if kind == "BINARY_OPERATOR" and len(expr.children) == 2:
            a, b = (self.divisor(c, depth + 1) for c in expr.children)
            if expr.op == "*":
                return a * b
            if expr.op in ("+", "-"):
                return math.gcd(a, b) or 1
            return 1
        if kind == "CALL_EXPR":
            return self._returned_divisor(expr, depth)
        if kind == "DECL_REF_EXPR" and expr.decl is not None:
            key = expr.decl.key
            if key in self._inlined:
                return self.divisor(self._inlined[key], depth + 1)
            defs = self.defs.get(key, [])
            if len(defs) == 1 and key not in self.direct and key not in self.params \
                    and key not in self._following:
                self._following.add(key)
                try:
                    return self.divisor(defs[0], depth + 1)
                finally:
                    self._following.discard(key)
            if key in self.params and not defs:
                return self._argument_divisor(key)
        return 1

    def _returned_divisor(self, call: Node, depth: int) -> int:
        """What a host helper whose body is one `return e;` returns is a multiple of, e read
        with its parameters standing for this call's arguments (`pad(k, 512)` with `return
        (k + p - 1) / p * p;`: a multiple of 512)."""
        callee = self.program.resolve_call(call.decl) if call.decl is not None else None
        if callee is None or callee.body is None or callee.runs_on_device \
                or any(p.key in self._inlined for p in callee.params):
            return 1  # (a helper already being read: recursion)
        statements = [c for c in callee.body.children if c.kind != "NULL_STMT"]
        args = call_args(call)
        if len(statements) != 1 or statements[0].kind != "RETURN_STMT" or not statements[0].children \
                or len(args) != len(callee.params):
            return 1
        saved = self._inlined
        self._inlined = {**saved, **{p.key: a for p, a in zip(callee.params, args)}}
        try:
            return self.divisor(statements[0].children[0], depth + 1)
        finally:
            self._inlined = saved

    def _argument_divisor(self, param_key: str) -> int:
        """What every call of this host function passes for the parameter is a multiple of,
        where each call makes it one by construction (`rows * 256`). A constant a caller
        passes (a test's problem size) is one input among those the function admits: no
        divisor (as for argument constants)."""
        if self.depth >= 3 or self._within_function:
            return 1
        common = 0
        for caller_values, arg in self._call_arguments(param_key):
            if arg is None or caller_values.constant(arg) is not None:
                return 1
            common = math.gcd(common, caller_values.divisor(arg))
        return common or 1

    def _call_arguments(self, param_key: str):
        """(the caller's values, the argument) for each call of this host function in the
        file, the argument None where the call leaves the parameter to its default."""
        index = next(i for i, p in enumerate(self.fn.params) if p.key == param_key)
        for caller in self.program.functions.values():
            if caller.runs_on_device or caller.body is None or not caller.mentions(self.fn.name):
                continue
            caller_values = None
            for n in caller.body.walk():
                if n.kind != "CALL_EXPR" or self.program.resolve_call(n.decl) is not self.fn:
                    continue
                args = [a for a in call_args(n) if not (a.kind == "UNEXPOSED_EXPR" and not a.children)]
                caller_values = caller_values or HostValues(self.program, caller, self.depth + 1)
                yield caller_values, (args[index] if index < len(args) else None)

    def _overwritten_first(self, key: str, value: Node) -> bool:
        """Is the parameter's one assignment a statement of the body itself that comes before
        every other mention of it (`void run(int n) { n = 16; ... }`): every later read
        sees that value, not the argument."""
        body = self.fn.body
        if body is None:
            return False
        for stmt in body.children:
            n = strip_wrappers(stmt)
            if n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2 and n.children[1] is value:
                target = strip_wrappers(n.children[0])
                if target.kind != "DECL_REF_EXPR" or target.decl is None or target.decl.key != key:
                    return False
                return not any(r.kind == "DECL_REF_EXPR" and r.decl is not None and r.decl.key == key
                               and r.start < n.start for r in body.walk())
        return False

    def _is_initializer(self, key: str, value: Node) -> bool:
        return self.fn.body is not None and any(
            n.kind == "VAR_DECL" and n.decl is not None and n.decl.key == key and n.children
            and n.children[-1] is value for n in self.fn.body.walk())

    def _member_constant(self, expr: Node) -> int | None:
        """`prop.warpSize`; one axis of a local dim3 (`block.x`); a project field whose every
        assignment gives the same constant (as the engine found it over the analyzed files)."""
        decl = expr.decl
        if _device_warp_size_field(decl):
            return WARP_SIZE
        base = strip_wrappers(expr.children[0])
        if "dim3" in base.type and base.kind == "DECL_REF_EXPR" and expr.spelling in ("x", "y", "z"):
            axes = self.dim3_expressions(base)
            if axes is None:
                return None
            axis = axes["xyz".index(expr.spelling)]
            return 1 if axis is None else self.constant(axis)
        if _project_field(decl):
            self.program.fields_asked.add(decl.key)
            return self.program.field_values.get(decl.key)
        return None

    def one_block_per_sm(self, grid: Node) -> bool:
        """Is the grid the device's SM count itself (x; y and z 1)? Every block shape that
        can be launched at all has at least one block resident per SM, so such a
        cooperative grid always fits."""
        axes = self.dim3_expressions(grid)
        if axes is None or any(a is not None and self.constant(a) != 1 for a in axes[1:]):
            return False
        return axes[0] is not None and self._is_sm_count(axes[0], 0)

    def _is_sm_count(self, expr: Node, depth: int) -> bool:
        node = strip_wrappers(expr)
        if depth > 6:
            return False
        if node.kind == "MEMBER_REF_EXPR" and node.spelling == "multiProcessorCount":
            return True
        if node.kind == "MEMBER_REF_EXPR" and _project_field(node.decl):
            fact = node.decl.key + HOLDS_SM_COUNT
            self.program.fields_asked.add(fact)
            return self.program.field_values.get(fact) == 1
        if node.kind != "DECL_REF_EXPR" or node.decl is None or node.decl.storage != "local":
            return False
        key = node.decl.key
        defs = self.defs.get(key, [])
        if self.direct.get(key) == {SM_COUNT}:
            # filled by the multiprocessor-count attribute query; other writes only the
            # constant it starts from (`int sms = 0;`)
            return all(self.constant(d) is not None for d in defs)
        return len(defs) == 1 and key not in self.direct and self._is_sm_count(defs[0], depth + 1)

    def constant_choices(self, expr: Node, depth: int = 0) -> set[int] | None:
        """The values an expression of constants can have when it picks between them
        (`big ? 1024 : 768`, through locals defined once and arithmetic), or None."""
        value = self.constant(expr)
        if value is not None:
            return {value}
        if depth > 8:
            return None
        kind = expr.kind
        if kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
                    "CXX_STATIC_CAST_EXPR") and expr.children:
            return self.constant_choices(expr.children[-1], depth + 1)
        if kind == "CONDITIONAL_OPERATOR" and len(expr.children) == 3:
            a, b = (self.constant_choices(c, depth + 1) for c in expr.children[1:])
            return a | b if a is not None and b is not None else None
        if kind == "BINARY_OPERATOR" and len(expr.children) == 2 and expr.op == "=":
            return self.constant_choices(expr.children[1], depth + 1)
        if kind == "BINARY_OPERATOR" and len(expr.children) == 2:
            from syncheck.analyses.uniformity import fold_node
            a, b = (self.constant_choices(c, depth + 1) for c in expr.children)
            if a is None or b is None or len(a) * len(b) > _MAX_CHOICES:
                return None
            out = {fold_node(expr, x, y) for x in a for y in b}
            return None if None in out else out
        if kind == "DECL_REF_EXPR" and expr.decl is not None:
            defs = self.defs.get(expr.decl.key, [])
            if len(defs) == 1 and expr.decl.key not in self.direct and expr.decl.key not in self.params \
                    and expr.decl.key not in self.escaped:
                return self.constant_choices(defs[0], depth + 1)
        return None

    def dim3_choices(self, expr: Node) -> list[tuple[int, int, int]] | None:
        """The shapes a block shape can have when its sizes pick between constants, or None."""
        shape = self.dim3(expr)
        if shape is not None:
            return [shape]
        node = expr
        while node.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and node.children:
            node = node.children[-1]
        if node.kind == "DECL_REF_EXPR" and node.decl is not None and self.field_defs.get(node.decl.key):
            return None  # `shape.x = n` assignments: not followed here
        axes = self.dim3_expressions(expr)
        if axes is None:
            return None
        if len(axes) == 1 or (axes[0] is not None and axes[0].kind == "INIT_LIST_EXPR"):
            init = axes[0]
            items = [c for c in init.children] if init is not None and init.kind == "INIT_LIST_EXPR" else None
            if items is None or not 1 <= len(items) <= 3:
                return None
            axes = items + [None] * (3 - len(items))
        choices = []
        for axis in axes:
            found = {1} if axis is None else self.constant_choices(axis)
            if found is None:
                return None
            choices.append(sorted(found))
        # a launch of an empty block fails: such a pick is not a shape the kernel runs with
        shapes = [(x, y, z) for x in choices[0] for y in choices[1] for z in choices[2]
                  if x >= 1 and y >= 1 and z >= 1]
        return shapes if 0 < len(shapes) <= _MAX_CHOICES else None

    def _argument_dim3(self, param_key: str) -> tuple[int, int, int] | None:
        """A dim3 parameter's shape when every call of this host function in the file passes
        the same constant shape (through up to three callers): `launch(..., dim3(64, 2, 1))`."""
        if self.depth >= 3 or self._within_function \
                or not any(p.key == param_key for p in self.fn.params):
            return None
        shapes = {caller_values.dim3(arg) if arg is not None else None
                  for caller_values, arg in self._call_arguments(param_key)}
        return shapes.pop() if len(shapes) == 1 else None

    def _argument_constant(self, param_key: str) -> int | None:
        """A parameter's value when every call of this host function in the file passes the
        same constant (through up to three callers): `run(n_threads)` with n_threads = 256."""
        if self.depth >= 3 or self._within_function:
            return None
        values = set()
        for caller_values, arg in self._call_arguments(param_key):
            if arg is None:
                # the default argument: written in constants (a parameter's default
                # cannot name the function's other parameters)
                default = next(p for p in self.fn.params if p.key == param_key).default
                values.add(self.constant(default) if default is not None else None)
            else:
                values.add(caller_values.constant(arg))
        if len(values) != 1:
            return None
        return values.pop()


# A host function that may write a field: `x.f = v`, `p->f += v`, `x.f++`, `&x.f`.
_FIELD_WRITE_TEXT = re.compile(
    r"(?:\.|->)\s*\w+\s*(?:\[[^\]]*\]\s*)*(?:[-+*/%&|^]|<<|>>)?=(?!=)"
    r"|(?:\.|->)\s*\w+\s*(?:\+\+|--)|(?:\+\+|--)\s*[\w()\[\]]+\s*(?:\.|->)"
    r"|&\s*[\w()\[\]]+\s*(?:\.|->)")


def _case_values(fn: Function, site: Node) -> dict[str, int]:
    """The values the switches around ``site`` test, where the site sits under one `case K:`
    that no other case falls into (`switch (threads) { ... case 16: k<16><<<g, threads>>>();
    break; ... }`), for variables the function never changes."""
    from syncheck.analyses.host_facts import unchanged_variables
    out: dict[str, int] = {}
    body = fn.body
    if body is None:
        return out
    stable = None
    for switch in body.walk():
        if switch.kind != "SWITCH_STMT" or not (switch.start <= site.start and site.end <= switch.end):
            continue
        tested = strip_wrappers(switch.children[0]) if switch.children else None
        block = switch.children[-1] if switch.children else None
        if tested is None or tested.kind != "DECL_REF_EXPR" or tested.decl is None \
                or block is None or block.kind != "COMPOUND_STMT":
            continue
        statements = block.children
        at = next((i for i, st in enumerate(statements) if st.start <= site.start and site.end <= st.end), None)
        label = next((i for i in range(at, -1, -1) if statements[i].kind == "CASE_STMT"), None) \
            if at is not None else None
        if label is None or (label > 0 and statements[label - 1].kind not in ("BREAK_STMT", "RETURN_STMT")):
            continue  # before any case, or reached by falling through from the case above
        if any(statements[i].kind in ("CASE_STMT", "DEFAULT_STMT") for i in range(label + 1, at + 1)):
            continue
        case = statements[label]
        value = case.children[0].value if case.children else None
        nested = [n for n in case.walk() if n.kind in ("CASE_STMT", "DEFAULT_STMT") and n is not case]
        if not isinstance(value, int) or any(n.start <= site.start for n in nested):
            continue
        if stable is None:
            stable = unchanged_variables(fn, set())
        if tested.decl.key in stable:
            out[tested.decl.key] = value
    return out


def field_assignments(program: Program) -> list[tuple[str, int | None]]:
    """(field key, assigned constant or None) for every write of a project record's field in
    this file's host functions; a compound assignment, an increment or a taken address is an
    unknown write. Writes the code makes otherwise (aggregate initialization, memcpy of the
    whole record) are not seen: the record's own zero initialization runs before any launch
    can read the field, and a launch with an empty block does not run."""
    out: set[tuple[str, int | None]] = set()
    for fn in program.functions.values():
        if fn.runs_on_device or not fn.in_main_file or not _FIELD_WRITE_TEXT.search(fn.text) \
                or fn.has_errors:
            continue
        body = fn.body
        if body is None:
            continue
        values: HostValues | None = None
        for n in body.walk():
            target = value = None
            if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGN \
                    and len(n.children) == 2:
                target = strip_wrappers(n.children[0])
                if n.op == "=":
                    value = n.children[1]
            elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children:
                target = strip_wrappers(n.children[0])
            if target is None or target.kind != "MEMBER_REF_EXPR" or not _project_field(target.decl):
                continue
            if value is not None:
                values = values or HostValues(program, fn)
                out.add((target.decl.key, values.constant(value)))
                out.add((target.decl.key + HOLDS_SM_COUNT, 1 if values._is_sm_count(value, 0) else None))
            else:
                out.add((target.decl.key, None))
                out.add((target.decl.key + HOLDS_SM_COUNT, None))
    return sorted(out, key=lambda kv: (kv[0], kv[1] is None, kv[1] or 0))
