"""Block shapes that the host code fixes when it launches a kernel."""

from __future__ import annotations

import os
from dataclasses import dataclass

from syncheck.analyses.host_values import PARAMETER, HostValues
from syncheck.ir.calls import call_args
from syncheck.ir.nodes import Node, strip_wrappers, structural_key
from syncheck.ir.program import Function, LaunchSite, Program


def launches_of(program: Program, kernel: Function) -> list[LaunchSite]:
    """Launches of this kernel in the file: of exactly this instantiation, or, for a kernel
    analyzed as written, of any of its instantiations."""
    if kernel.instance_of is not None:
        return [l for l in program.launches if l.kernel_instance == kernel.key]
    return [l for l in program.launches if l.kernel_key == kernel.key]


Shape = tuple[int, int, int]


def launch_site_block_dim(program: Program, launch: LaunchSite, values: HostValues | None = None) -> Shape | None:
    """The constant block shape of one launch, or None when it is not a constant (``values``:
    the launching function's, when the caller has them)."""
    block = None
    if launch.api == "<<<>>>" and len(launch.config) > 1:
        block = launch.config[1]
    elif launch.api in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel") and len(launch.args) > 2:
        block = launch.args[2]
    if block is None:
        return None
    if values is None:
        values = HostValues(program, program.functions[launch.host_function], site=launch.node)
    shape = values.dim3(block)
    return shape if shape is None or min(shape) >= 1 else None  # an empty block never runs


@dataclass(frozen=True)
class ProjectLaunchShapes:
    """The block shapes of every launch in the analyzed project (None: not a constant), by
    kernel key and by instantiation key; joined from every file's facts by the engine."""
    by_kernel: tuple[tuple[str, tuple[Shape | None, ...]], ...] = ()
    by_instance: tuple[tuple[str, tuple[Shape | None, ...]], ...] = ()
    # Host record fields every assignment in the project sets to one constant (see
    # host_values.field_assignments): launch shapes computed from them.
    field_values: tuple[tuple[str, int], ...] = ()

    def shapes(self, key: str, instance: bool) -> tuple[Shape | None, ...]:
        table = self.by_instance if instance else self.by_kernel
        return dict(table).get(key, ())


def single_shape(shapes) -> Shape | None:
    """The shape every launch uses, when there are launches and all agree on a constant."""
    distinct = set(shapes)
    if len(distinct) != 1:
        return None
    return next(iter(distinct))


class LaunchShapes:
    """The block shape the launches fix for each kernel: this file's launches, joined with the
    project's (other translation units) when the engine knows them. Remembers what it
    answered, so the engine can tell which files an other file's launches would change."""

    def __init__(self, program: Program, project: ProjectLaunchShapes | None = None):
        self.program = program
        self.project = project
        self._answers: dict[tuple[str, bool], Shape | None] = {}
        self._from_project: set[tuple[str, bool]] = set()
        self._facts: dict[str, tuple[tuple, ...]] = {}
        self._relations: dict[str, dict[str, tuple]] = {}

    def all_shapes(self, kernel: Function) -> list[Shape | None]:
        """The distinct block shapes of the kernel's known launches (None: not a constant)."""
        shapes = {launch_site_block_dim(self.program, l) for l in launches_of(self.program, kernel)}
        if self.project is not None:
            shapes |= set(self.project.shapes(kernel.key, kernel.instance_of is not None))
        return sorted(shapes, key=lambda s: (s is None, s or ()))

    def shape_choices(self, kernel: Function) -> list[Shape] | None:
        """Every block shape the kernel's launches can give it, when each launch picks its
        shape among constants (`dim3 block(4, 8, big ? 32 : 24)`); None when a launch's
        shape is not known that way or no launch is known."""
        out: set[Shape] = set()
        if self.project is not None:
            others = self.project.shapes(kernel.key, kernel.instance_of is not None)
            if None in others:
                return None
            out |= set(others)
        for launch in launches_of(self.program, kernel):
            block = None
            if launch.api == "<<<>>>" and len(launch.config) > 1:
                block = launch.config[1]
            if block is None:
                return None
            shapes = HostValues(self.program, self.program.functions[launch.host_function],
                                site=launch.node).dim3_choices(block)
            if shapes is None:
                return None
            out |= set(shapes)
        return sorted(out) or None

    def block_dim(self, kernel: Function) -> Shape | None:
        key = (kernel.key, kernel.instance_of is not None)
        if key not in self._answers:
            local = [launch_site_block_dim(self.program, l) for l in launches_of(self.program, kernel)]
            answer = single_shape(self.all_shapes(kernel))
            if answer is not None and single_shape(local) != answer:
                self._from_project.add(key)
            self._answers[key] = answer
        return self._answers[key]

    def rows_may_split_warps(self, kernel: Function) -> bool:
        """Does a launch in this file give the kernel a block of several rows whose row length
        (blockDim.x) is visibly one that can be shorter than a warp (`dim3(1 << lg, 1024 >> lg)`,
        `dim3(16, 4)` among other launches)? Then a warp may hold parts of several rows, and
        threadIdx.y may differ within a warp."""
        for launch in launches_of(self.program, kernel):
            if launch.api != "<<<>>>" or len(launch.config) < 2:
                continue
            hv = HostValues(self.program, self.program.functions[launch.host_function], site=launch.node)
            axes = hv.dim3_expressions(launch.config[1])
            if axes is None:
                continue
            x, y, z = axes
            if all(a is None or hv.constant(a) == 1 for a in (y, z)):
                continue  # one row: threadIdx.y and z are 0
            if x is not None and hv.divisor(x) % 32 == 0:
                continue
            if x is None or _power_of_two_row(hv, x):
                return True
        return False

    def relations(self, kernel: Function) -> dict[int, tuple]:
        """block_dim_relations of this file's launches, unless launches in other files
        (whose arguments are not at hand) may give the kernel other shapes."""
        if self.project is not None:
            local = {launch_site_block_dim(self.program, l) for l in launches_of(self.program, kernel)}
            if not set(self.project.shapes(kernel.key, kernel.instance_of is not None)) <= local:
                return {}
        return block_dim_relations(self.program, kernel)

    def grid_relations(self, kernel: Function) -> dict[str, tuple]:
        """grid_dim_relations of this file's launches, unless launches in other files may
        give the kernel other shapes."""
        if not self.relations_complete(kernel):
            return {}
        return grid_dim_relations(self.program, kernel)

    def argument_constants(self, kernel: Function) -> dict[str, int]:
        """Kernel parameters every launch passes the same constant for (`const int Bc = 32;`
        then `<<<grid, block>>>(..., Bc)`), unless launches in other files (whose arguments
        are not at hand) may pass others. Only constants of the launching function itself:
        a size its callers pass (a test harness's problem size) is one input among those the
        host function admits, not the kernel's contract."""
        launches = launches_of(self.program, kernel)
        if not launches or not self.relations_complete(kernel):
            return {}
        common: dict[str, int] | None = None
        for launch in launches:
            if launch.api != "<<<>>>" or len(launch.args) != len(kernel.params):
                return {}
            hv = HostValues(self.program, self.program.functions[launch.host_function])
            found = {}
            for param, arg in zip(kernel.params, launch.args):
                if any(src.startswith(PARAMETER) for src in hv.sources(arg)):
                    continue
                value = hv.constant(arg)
                if isinstance(value, int) and not isinstance(value, bool):
                    found[param.key] = value
            common = found if common is None else {k: v for k, v in common.items() if found.get(k) == v}
        return common or {}

    def argument_relations(self, kernel: Function) -> dict[str, tuple]:
        """Kernel parameters every launch passes as the same expression of the launch's block
        shape and the other arguments (`<<<grid, block>>>(..., block.x + 2 * r, r)`: the
        parameter is blockDim.x + 2 * r), as relation trees, unless launches in other files
        (whose arguments are not at hand) may pass others. Asked for by every proof and
        race check of the kernel: computed once."""
        if kernel.key not in self._relations:
            self._relations[kernel.key] = self._common_relations(kernel)
        return self._relations[kernel.key]

    def _common_relations(self, kernel: Function) -> dict[str, tuple]:
        launches = launches_of(self.program, kernel)
        if not launches or not self.relations_complete(kernel):
            return {}
        common: dict[str, tuple] | None = None
        for launch in launches:
            found = _block_relative_arguments(self.program, launch, kernel)
            common = found if common is None else {k: f for k, f in common.items() if found.get(k) == f}
            if not common:
                return {}
        return common or {}

    def argument_facts(self, kernel: Function) -> tuple[tuple, ...]:
        """Facts on the kernel's parameters that every launch's host code has checked before
        launching (`GGML_ASSERT(n % 32 == 0)` then `<<<g, b>>>(x, n)`: n % 32 == 0), as
        relation trees (see fact_form), unless launches in other files may pass others."""
        if kernel.key not in self._facts:
            self._facts[kernel.key] = self._common_facts(kernel)
        return self._facts[kernel.key]

    def _common_facts(self, kernel: Function) -> tuple[tuple, ...]:
        launches = launches_of(self.program, kernel)
        if not launches or not self.relations_complete(kernel):
            return ()
        common: set[tuple] | None = None
        for launch in launches:
            found = launch_argument_facts(self.program, launch, kernel)
            common = found if common is None else common & found
            if not common:
                return ()
        return tuple(sorted(common, key=repr))

    def relations_complete(self, kernel: Function) -> bool:
        """Are this file's launches all the launches the project knows of the kernel?"""
        if self.project is None:
            return True
        local = {launch_site_block_dim(self.program, l) for l in launches_of(self.program, kernel)}
        return set(self.project.shapes(kernel.key, kernel.instance_of is not None)) <= local

    def origin(self, kernel: Function) -> str:
        """Where block_dim's answer comes from, for messages."""
        if (kernel.key, kernel.instance_of is not None) in self._from_project:
            return "the kernel's launches in the project"
        if not kernel.in_main_file:  # an instantiation of a header's template
            return f"the launches in {os.path.basename(self.program.path)}"
        return "the launches in this file"

    def local_answers(self) -> list[tuple[str, bool, Shape | None]]:
        """(kernel key, is an instantiation, the shape this file's launches alone give) for each
        kernel whose launch shape an analysis asked for."""
        out = []
        for (key, instance) in sorted(self._answers):
            kernel = self.program.functions.get(key)
            local = [launch_site_block_dim(self.program, l) for l in launches_of(self.program, kernel)] \
                if kernel is not None else []
            out.append((key, instance, single_shape(local)))
        return out


# A launch relation: an expression over the kernel's parameters, as a small tree:
# ("param", key) | ("const", value) | (operator, left, right).
_OPERATORS = ("+", "-", "*", "/", "%")
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _power_of_two_row(hv: HostValues, x: Node, depth: int = 0) -> bool:
    """Is a row length visibly one that can be shorter than a warp: a constant below 32 or
    not a multiple of it, or a power of two picked at run time (`1 << lg`, `n >> k`)?
    An opaque value (a parameter, a device property such as the warp size) is not: rows
    are then taken to be whole warps, as without a launch."""
    value = hv.constant(x)
    if value is not None:
        return value % 32 != 0
    if depth > 6:
        return False
    x = strip_wrappers(x)
    if x.kind == "BINARY_OPERATOR" and len(x.children) == 2:
        left, right = x.children
        if x.op in ("<<", ">>") and hv.constant(right) is None:
            return True
        if x.op in ("*", "/", "+", "-", "<<", ">>"):
            return any(_power_of_two_row(hv, c, depth + 1) for c in (left, right))
        return False
    if x.kind == "DECL_REF_EXPR" and x.decl is not None:
        defs = hv.defs.get(x.decl.key, [])
        return len(defs) == 1 and _power_of_two_row(hv, defs[0], depth + 1)
    return False


def block_dim_relations(program: Program, kernel: Function) -> dict[int, tuple]:
    """For each axis, the expression over the kernel's own parameters that every launch in
    the file gives blockDim (``<<<rows, ncols>>>(m, ncols)`` ties blockDim.x to ``ncols``;
    ``<<<1, n / 2>>>(a, n)`` gives blockDim.x == n / 2)."""
    common: dict[int, tuple] | None = None
    for launch in launches_of(program, kernel):
        block = None
        if launch.api == "<<<>>>" and len(launch.config) > 1:
            block = launch.config[1]
        if block is None:
            return {}
        hv = HostValues(program, program.functions[launch.host_function])
        axes = hv.dim3_expressions(block)
        if axes is None:
            return {}
        arguments = {structural_key(a): p.key for a, p in zip(launch.args, kernel.params)}
        found = {}
        for axis, expr in enumerate(axes):
            form = _kernel_terms(expr, arguments, hv) if expr is not None else ("const", 1)
            if form is not None:
                found[axis] = form
        common = found if common is None else {a: f for a, f in common.items() if found.get(a) == f}
    return common or {}


def grid_dim_relations(program: Program, kernel: Function) -> dict[str, tuple]:
    """For each axis (keyed `gridDim.x` ...), the expression over the kernel's parameters
    that every launch in the file gives gridDim (`int grid = (n + 255) / 256; <<<grid,
    256>>>(x, n)`: gridDim.x == (n + 255) / 256): a grid-stride loop over n then runs once in
    every block."""
    from syncheck.analyses.host_facts import unchanged_variables
    common: dict[str, tuple] | None = None
    for launch in launches_of(program, kernel):
        if launch.api != "<<<>>>" or not launch.config or len(launch.args) != len(kernel.params) \
                or launch.host_function not in program.functions:
            return {}
        host = program.functions[launch.host_function]
        hv = HostValues(program, host)
        axes = hv.dim3_expressions(launch.config[0])
        if axes is None:
            return {}
        stable = unchanged_variables(host, {l.node.id for l in program.launches})
        arguments = {structural_key(a): p.key for a, p in zip(launch.args, kernel.params)}
        found = {}
        for axis, expr in enumerate(axes):
            form = _kernel_terms(expr, arguments, hv, stable=stable) if expr is not None else ("const", 1)
            if form is not None and form[0] != "const":
                found[f"gridDim.{'xyz'[axis]}"] = form
        common = found if common is None else {a: f for a, f in common.items() if found.get(a) == f}
        if not common:
            return {}
    return common or {}


def _block_relative_arguments(program: Program, launch: LaunchSite, kernel: Function) -> dict[str, tuple]:
    """Parameter key -> its argument at one `<<<grid, block>>>` launch as an expression that
    names the block shape (`block.x` of the launch's own dim3 variable, unchanged in the
    launching function) and maybe the other arguments and constants."""
    from syncheck.analyses.host_facts import unchanged_variables
    if launch.api != "<<<>>>" or len(launch.config) < 2 or len(launch.args) != len(kernel.params) \
            or launch.host_function not in program.functions:
        return {}
    block = strip_wrappers(launch.config[1])
    while block.kind == "CALL_EXPR" and block.decl is not None and block.decl.kind == "CONSTRUCTOR" \
            and len(block.children) == 1 and "dim3" in block.children[0].type:
        block = strip_wrappers(block.children[0])  # the copy the launch makes of a dim3
    if block.kind != "DECL_REF_EXPR" or block.decl is None or "dim3" not in block.decl.type:
        return {}
    host = program.functions[launch.host_function]
    if block.decl.key not in unchanged_variables(host, {l.node.id for l in program.launches}):
        return {}
    hv = HostValues(program, host)
    out = {}
    for i, (param, arg) in enumerate(zip(kernel.params, launch.args)):
        others = {structural_key(a): p.key for j, (a, p) in enumerate(zip(launch.args, kernel.params)) if j != i}
        form = _kernel_terms(arg, others, hv, block=block.decl.key)
        if form is not None and _names_block(form):
            out[param.key] = form
    return out


def _names_block(form: tuple) -> bool:
    return form[0] == "block" or (form[0] in _OPERATORS and any(_names_block(f) for f in form[1:]))


def _block_axis(expr: Node, block: str) -> int | None:
    """The axis of `block.x` / `.y` / `.z` of the dim3 variable ``block``."""
    if expr.kind != "MEMBER_REF_EXPR" or expr.spelling not in ("x", "y", "z") or not expr.children:
        return None
    base = strip_wrappers(expr.children[0])
    if base.kind == "DECL_REF_EXPR" and base.decl is not None and base.decl.key == block:
        return "xyz".index(expr.spelling)
    return None


def _kernel_terms(expr: Node, arguments: dict[tuple, str], hv: HostValues, depth: int = 0,
                  constants_first: bool = False, block: str | None = None,
                  stable: set[str] | None = None):
    """``constants_first``: a constant stays a constant even where a launch argument is
    written alike (`n % 32 == 0` says nothing of a parameter the launch passes 0 for).
    ``block``: the launch's dim3 variable, whose members are the block shape. ``stable``:
    the host function's variables that keep their one value, read through their definition
    (`int grid = ...;`); `ceil(n / (float)b)` of integers is read as (n + b - 1) / b."""
    if depth > 8:
        return None
    if constants_first:
        value = hv.constant(expr)
        if value is not None:
            return ("const", value)
    while expr.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR",
                        "CXX_FUNCTIONAL_CAST_EXPR") and expr.children:
        key = structural_key(expr)
        if key in arguments:
            return ("param", arguments[key])
        expr = expr.children[-1]
    key = structural_key(expr)
    if key in arguments:
        return ("param", arguments[key])
    axis = _block_axis(expr, block) if block is not None else None
    if axis is not None:
        return ("block", axis)
    value = hv.constant(expr)
    if value is not None:
        return ("const", value)
    if expr.kind == "BINARY_OPERATOR" and expr.op in _OPERATORS and len(expr.children) == 2:
        left, right = (_kernel_terms(c, arguments, hv, depth + 1, constants_first, block, stable)
                       for c in expr.children)
        if left is not None and right is not None:
            return (expr.op, left, right)
        return None
    if expr.kind == "CONDITIONAL_OPERATOR" and len(expr.children) == 3:
        # `nBlkX < nBlkY ? nBlkX : nBlkY`: the smaller of two sizes, and the like
        test = strip_wrappers(expr.children[0])
        if test.kind != "BINARY_OPERATOR" or test.op not in _COMPARISONS or len(test.children) != 2:
            return None
        parts = [_kernel_terms(c, arguments, hv, depth + 1, constants_first, block, stable)
                 for c in list(test.children) + list(expr.children[1:])]
        if any(p is None for p in parts):
            return None
        return ("?", (test.op, parts[0], parts[1]), parts[2], parts[3])
    if stable is None:
        return None
    if expr.kind == "DECL_REF_EXPR" and expr.decl is not None and expr.decl.key in stable:
        defs = hv.defs.get(expr.decl.key, [])
        if len(defs) == 1:
            return _kernel_terms(defs[0], arguments, hv, depth + 1, constants_first, block, stable)
        return None
    quotient = _ceiling_of_quotient(expr)
    if quotient is not None:
        left, right = (_kernel_terms(c, arguments, hv, depth + 1, constants_first, block, stable)
                       for c in quotient)
        if left is not None and right is not None:
            return ("/", ("+", left, ("-", right, ("const", 1))), right)
    return None


def _ceiling_of_quotient(expr: Node) -> tuple[Node, Node] | None:
    """(n, b) of `ceil(n / (float)b)` (or ceilf, std::ceil) where n and b are integers."""
    if expr.kind != "CALL_EXPR" or expr.spelling not in ("ceil", "ceilf"):
        return None
    args = call_args(expr)
    if len(args) != 1:
        return None
    quotient = strip_wrappers(args[0])
    if quotient.kind != "BINARY_OPERATOR" or quotient.op != "/" or len(quotient.children) != 2:
        return None
    operands = []
    for operand in quotient.children:
        inner = operand
        while inner.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR",
                             "CXX_FUNCTIONAL_CAST_EXPR") and inner.children:
            inner = inner.children[-1]
        if not _integer_type(inner.type):
            return None  # a float operand: its quotient is not an integer's
        operands.append(inner)
    return operands[0], operands[1]


def _integer_type(type_: str) -> bool:
    words = type_.replace("const ", "").split()
    return bool(words) and all(w in ("int", "unsigned", "long", "short", "signed", "size_t", "int64_t",
                                     "uint64_t", "int32_t", "uint32_t", "char") for w in words)


def launch_argument_facts(program: Program, launch: LaunchSite, kernel: Function) -> set[tuple]:
    """The host's checks before one launch (host_facts), as comparisons over the kernel's
    parameters: each side an expression of the values the launch passes and constants, read
    from variables that keep their value in the host function."""
    from syncheck.analyses.host_facts import checks_before, unchanged_variables
    if len(launch.args) != len(kernel.params) or launch.host_function not in program.functions:
        return set()
    host = program.functions[launch.host_function]
    hv = HostValues(program, host)
    out: set[tuple] = set()
    for param, arg in zip(kernel.params, launch.args):
        # `n = rows * 256` passed for n: a multiple of 256 (a grid-stride loop over n then runs
        # the same trips on every thread of a 256-thread block)
        divisor = hv.divisor(arg)
        if divisor > 1:
            out.add(("==", ("%", ("param", param.key), ("const", divisor)), ("const", 0)))
    stable = unchanged_variables(host, {l.node.id for l in program.launches})
    out |= _block_bounded_by_arguments(launch, kernel, hv, stable)
    out |= _arguments_bounded_below(launch, kernel, hv, stable)
    checks = checks_before(host, launch.node)
    if not checks:
        return out
    arguments = {structural_key(a): p.key for a, p in zip(launch.args, kernel.params)}
    for cond, holds in checks:
        for comparison in _comparisons(cond, holds):
            if any(n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage in ("local", "param")
                   and n.decl.key not in stable for n in comparison[1].walk()):
                continue
            op, node = comparison
            sides = [_kernel_terms(c, arguments, hv, constants_first=True) for c in node.children]
            if None in sides or not any(_names_parameter(s) for s in sides):
                continue
            out.add((op, sides[0], sides[1]))
    return out


_MIN_FUNCTIONS = ("min", "umin", "imin", "llmin", "ullmin")
_MAX_FUNCTIONS = ("max", "umax", "imax", "llmax", "ullmax")


def _block_bounded_by_arguments(launch: LaunchSite, kernel: Function, hv: HostValues,
                                stable: set[str]) -> set[tuple]:
    """`tbx = std::min(B, cols); k<<<grid, dim3(tbx, tby)>>>(..., B)`: the block's size along
    that axis is at most the argument (a tile width the kernel lays out shared rows with, a
    count its threads stride over). The launch's block axes that are a minimum, through the
    host function's locals that keep their one value, against the arguments that are one of
    its operands."""
    if len(launch.config) < 2:
        return set()
    axes = hv.dim3_expressions(launch.config[1])
    if not axes:
        return set()
    arguments = {_settled_key(a, hv, stable): p.key for a, p in zip(launch.args, kernel.params)}
    out: set[tuple] = set()
    for axis, expr in enumerate(axes):
        if expr is None:
            continue
        for operand in _extremum_operands(expr, hv, stable, 0, _MIN_FUNCTIONS):
            param = arguments.get(_settled_key(operand, hv, stable))
            if param is not None:
                out.add(("<=", ("block", axis), ("param", param)))
    return out


def _arguments_bounded_below(launch: LaunchSite, kernel: Function, hv: HostValues,
                             stable: set[str]) -> set[tuple]:
    """`stride = std::max(warps, size / 4); k<<<g, dim3(size, rows), ...>>>(..., size, warps,
    stride)`: an argument that is a maximum is at least each of its operands (a per-row part's
    stride is at least the elements the row's threads index in it), each operand read over
    the other arguments and constants, through the host function's locals that keep their
    one value."""
    if launch.api != "<<<>>>" or len(launch.args) != len(kernel.params):
        return set()
    out: set[tuple] = set()
    for i, (param, arg) in enumerate(zip(kernel.params, launch.args)):
        operands = _extremum_operands(arg, hv, stable, 0, _MAX_FUNCTIONS)
        if not operands:
            continue
        others = {_settled_key(a, hv, stable): p.key
                  for j, (a, p) in enumerate(zip(launch.args, kernel.params)) if j != i}
        for operand in operands:
            form = _kernel_terms(_settled(operand, hv, stable), others, hv, constants_first=True, stable=stable)
            if form is not None and (form[0] == "const" or _names_parameter(form)):
                out.add((">=", ("param", param.key), form))
    return out


def _settled(expr: Node, hv: HostValues, stable: set[str], depth: int = 0) -> Node:
    """The expression through wrappers and the one definition of a local that keeps it."""
    node = strip_wrappers(expr)
    while node.kind in ("CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR") and node.children \
            and _integer_type(node.type):
        node = strip_wrappers(node.children[-1])
    if depth < 8 and node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key in stable:
        defs = hv.defs.get(node.decl.key, [])
        if len(defs) == 1:
            return _settled(defs[0], hv, stable, depth + 1)
    return node


def _settled_key(expr: Node, hv: HostValues, stable: set[str]) -> tuple:
    return structural_key(_settled(expr, hv, stable))


def _extremum_operands(expr: Node, hv: HostValues, stable: set[str], depth: int,
                       functions: tuple[str, ...]) -> list[Node]:
    """The operands of a minimum or maximum (``functions``: their names) the value is
    (`std::min(a, std::min(b, c))`: a, b and c)."""
    node = _settled(expr, hv, stable)
    if depth > 4 or node.kind != "CALL_EXPR" or node.decl is None or node.decl.name not in functions:
        return []
    args = [a for a in node.children[1:] if a.kind != "UNEXPOSED_EXPR" or a.children] \
        if len(node.children) > 2 else []
    if len(args) != 2 or not all(_integer_type(strip_wrappers(a).type) for a in args):
        return []
    out = []
    for arg in args:
        out.append(arg)
        out += _extremum_operands(arg, hv, stable, depth + 1, functions)
    return out


def _names_parameter(form: tuple) -> bool:
    return form[0] == "param" or (form[0] in _OPERATORS and any(_names_parameter(f) for f in form[1:]))


def _comparisons(cond: Node, holds: bool):
    """(operator, comparison node) for each comparison a check establishes: through `!`,
    `&&` when it holds and `||` when it does not; the operator negated when it does not."""
    node = cond
    # glibc's assert in C++ tests `static_cast<bool>(c)`: the cast to bool keeps c's truth
    while (node.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") or node.kind in (
            "CXX_STATIC_CAST_EXPR", "CSTYLE_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR") and node.type == "bool") \
            and node.children:
        node = node.children[-1]
    if node.kind == "UNARY_OPERATOR" and node.op == "!" and node.children:
        yield from _comparisons(node.children[0], not holds)
        return
    if node.kind != "BINARY_OPERATOR" or len(node.children) != 2:
        return
    if node.op == ("&&" if holds else "||"):
        for child in node.children:
            yield from _comparisons(child, holds)
    elif node.op in _COMPARISONS:
        yield (node.op if holds else _NEGATED[node.op]), node
