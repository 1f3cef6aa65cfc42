"""Uniformity analysis: which values and which control decisions differ between threads.

Every expression gets a ``Value`` whose level says over which group of threads it
is the same (see ``levels``). The analysis is flow-sensitive over the CFG, joins
at merge points, and taints a definition made under divergent control with that
control's level (a variable assigned on one side of a thread-dependent branch is
thread-dependent after the merge). Calls to analyzed functions use summaries per
argument levels; ternary arms and the right side of ``&&``/``||`` are guarded by
their condition.

The service is shared: the barrier, warp, cooperative-launch and race checks all
read the same ``FunctionAnalysis`` objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from syncheck.analyses import c_semantics as C
from syncheck.analyses import per_thread as PT
from syncheck.analyses import primitives as P
from syncheck.analyses.barrier_intervals import BarrierIntervals
from syncheck.analyses.constants import integer_constant
from syncheck.analyses.control_dependence import control_dependences
from syncheck.analyses.levels import UNIFORM, Level, Origin, Value, group_level, join_all, run_level
from syncheck.analyses.launch_shapes import LaunchShapes, ProjectLaunchShapes
from syncheck.analyses.warp_idioms import Butterfly, butterfly
from syncheck.analyses.reaching_definitions import ASSIGN_OPS
from syncheck.ir.calls import (bound_arguments, call_args, constructor_call, group_kind, is_default_argument,
                               member_object, template_bindings)
from syncheck.ir.cfg import CFG, Block, build_cfg
from syncheck.ir.nodes import VALUE_WRAPPERS, Node, names_declaration, strip_wrappers
from syncheck.ir.program import Function, Program, written_reference_arguments

_MAX_FRAMES = 20000  # call-tree walk budget per root, against pathological call graphs


@dataclass(frozen=True)
class Controller:
    """A decision that controls whether some code runs."""

    cond: Node
    stmt: Node | None
    kind: str          # if | loop | switch | ternary | logical
    value: Value
    function: str
    polarity: bool | None = None  # the code runs when the condition is true / false / unknown

    @property
    def level(self) -> Level:
        return self.value.level


@dataclass
class Site:
    """A call of interest: a primitive, or a call into an analyzed function."""

    node: Node
    prim: P.Primitive | None
    callee: Function | None
    args: list[Node]
    arg_values: list[Value]
    controllers: tuple[Controller, ...]
    function: Function
    # a generic callee's integral template arguments written at the call (key, value)
    template_values: tuple[tuple[str, int], ...] = ()

    @property
    def level(self) -> Level:
        return max((c.level for c in self.controllers), default=Level.UNIFORM)


@dataclass
class FunctionAnalysis:
    function: Function
    cfg: CFG
    param_values: tuple[Value, ...]
    ret: Value = UNIFORM
    out_level: Level = Level.UNIFORM
    # What the function stores through each pointer or reference parameter (its key; "*":
    # through a pointer not traced back to one), as the level out_level counts it in
    out_through: dict = field(default_factory=dict)
    # Array parameters whose every element a last loop of the function overwrites
    # (`for (i = 0; i < N; ++i) counts[i] = smem[i];` after the thread's own counting):
    # parameter key -> (N, the level of what that loop stores). A caller's array of at most N
    # elements holds only that afterwards.
    overwritten_through: dict = field(default_factory=dict)
    # What the function stores in its own object's fields (`this::<field key>` -> the join
    # of the values stored, made at least as varying as the control they are stored under):
    # a constructor's body builds its object with them.
    field_values: dict[str, Value] = field(default_factory=dict)
    # What the function stores in the fields of what its pointer parameters point at
    # (`<param key>-><field key>` -> the join of the values stored, at least as varying as
    # their control): an init function's `self->tid = tid` sets the caller's object.
    pointee_field_values: dict[str, Value] = field(default_factory=dict)
    # What the function stores in scalar fields of the structs its reference parameters are
    # bound to (`<param key>|field|<field key>` -> the join of the values stored, at least as
    # varying as their control), and the reference parameters it stores through otherwise
    # (the whole struct, an element, an array field): a caller's struct changes field by
    # field where only the former happen (`ctx.buffer += dt` leaves `ctx.data` as it was).
    reference_field_values: dict[str, Value] = field(default_factory=dict)
    reference_whole_stores: set = field(default_factory=set)
    sites: list[Site] = field(default_factory=list)
    values: dict[int, Value] = field(default_factory=dict)
    block_controllers: dict[int, tuple[Controller, ...]] = field(default_factory=dict)
    node_block: dict[int, int] = field(default_factory=dict)
    call_envs: dict[int, dict[str, Value]] = field(default_factory=dict)  # lambda calls' captures
    cond_levels: dict[int, Level] = field(default_factory=dict)  # branch block -> its condition's level
    shape: "ShapeAssumption | None" = None  # the block shape it was analyzed under
    # A method analyzed as running on a __shared__ object: its own fields are shared words.
    object_in_shared: bool = False
    # Method calls here whose object lives in shared memory (call node ids).
    shared_object_calls: set[int] = field(default_factory=set)
    # local key -> are all the function's own reads of it block-wide (reads_block_wide)
    _block_wide_reads: dict = field(default_factory=dict, repr=False, compare=False)

    def decisions_at(self, node: Node, above: Level | None = None) -> set[tuple[int, bool | None]] | None:
        """The decisions (condition node id, arm) of the function that control whether
        ``node`` runs; with ``above``, those whose level is above it only (`Level.BLOCK`: the
        ones that tell threads of a block apart); None where the node is not in the function.
        One set within another: the code under the first runs only in threads that ran the
        code under the second."""
        block = self.node_block.get(node.id)
        if block is None:
            return None
        return {(c.cond.id, c.polarity) for c in self.block_controllers.get(block, ())
                if above is None or c.level > above}

    def live_blocks(self) -> set[int]:
        """The blocks the function can run: a branch whose test constants settle (`if
        (IS_DESCENDING)` in the instance where it is false, `switch (level)` on a template
        argument) takes only the arm they give."""
        return taken_blocks(self.cfg, lambda b: self.values.get(self.cfg.blocks[b].branch.id)
                            if self.cfg.blocks[b].branch is not None else None)

    def reads_block_wide(self, key: str) -> bool:
        """Is every read of the local in the function's own body (not in the lambdas it
        defines) the same for the whole block? Asked per race query: kept."""
        if key not in self._block_wide_reads:
            body = self.function.body
            levels = [self.values.get(n.id) for n in (body.walk_evaluated() if body else ())
                      if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.key == key]
            self._block_wide_reads[key] = bool(levels) and all(
                v is not None and v.level <= Level.BLOCK for v in levels)
        return self._block_wide_reads[key]


_RECURSION_ROUNDS = 4
_MAX_FLAGS = 3  # flag parameters a kernel's findings are checked against, each way


def settled_successors(block: Block, test: Value | None) -> list[int] | None:
    """The successors a branch can take where constants settle its test (an `if` on a
    template argument, a `switch` on one): the arm they give; None where the test is not
    settled."""
    if test is None or test.const is None or block.branch is None:
        return None
    if block.branch_kind == "if" and len(block.succs) == 2:
        return [block.succs[0] if test.const else block.succs[1]]
    if block.branch_kind == "switch" and block.cases and isinstance(test.const, int) \
            and not isinstance(test.const, bool):
        labels = [(None if label is None else _case_value(label), target) for label, target in block.cases]
        if any(value is None for (value, _), (label, _) in zip(labels, block.cases) if label is not None):
            return None  # a label that is no known constant
        matched = [target for value, target in labels if value == test.const]
        return matched[:1] or [target for (label, target) in block.cases if label is None][:1] or None
    return None


def _case_value(label: Node) -> int | None:
    """A case label's constant (`case 3:`, `case UCS_DEVICE_LEVEL_WARP:`)."""
    value = integer_constant(label)
    if value is None:
        named = strip_wrappers(label)
        if named.kind == "DECL_REF_EXPR" and named.decl is not None and isinstance(named.decl.value, int):
            value = named.decl.value
    return value


def taken_blocks(cfg: CFG, test_of) -> set[int]:
    """The blocks reached from the entry along the arms that branches settled by constants
    take (``test_of(block)``: the value of the block's branch test, or None)."""
    seen = {cfg.entry}
    pending = [cfg.entry]
    while pending:
        b = pending.pop()
        block = cfg.blocks[b]
        succs = settled_successors(block, test_of(b)) or block.succs
        for nxt in succs:
            if nxt not in seen:
                seen.add(nxt)
                pending.append(nxt)
    return seen


def _same_value(a: Value, b: Value) -> bool:
    """Equal as facts (where a value comes from, for messages, may differ)."""
    return replace(a, origin=None) == replace(b, origin=None)


@dataclass(frozen=True)
class Frame:
    """One call on the way from a root (kernel) to a site."""

    site: Site                 # the call site in the caller
    analysis: FunctionAnalysis  # the callee's analysis in this context


@dataclass(frozen=True)
class ShapeAssumption:
    """What is assumed of the block shape; pinned by a comment or config."""

    x_multiple_of_32: bool = True
    block_dim: tuple[int, int, int] | None = None

    def describe(self) -> str:
        if self.block_dim:
            return f"block shape {self.block_dim[0]}x{self.block_dim[1]}x{self.block_dim[2]}"
        return "assuming blockDim.x is a multiple of 32" if self.x_multiple_of_32 else ""


def shape_for(fn: Function, default: tuple[int, int, int] | None = None,
              launched: tuple[int, int, int] | None = None) -> ShapeAssumption:
    """Pinned shape (comment) > the --block-dim default > the one shape its launches use."""
    dims = fn.block_dim or default or launched
    if dims:
        x, y, z = dims
        return ShapeAssumption(x_multiple_of_32=(x % 32 == 0) or (y * z == 1), block_dim=dims)
    return ShapeAssumption()


class UniformityService:
    def __init__(self, program: Program, default_block_dim: tuple[int, int, int] | None = None,
                 project_launches: ProjectLaunchShapes | None = None):
        self.program = program
        self.default_block_dim = default_block_dim
        self.launch_shapes = LaunchShapes(program, project_launches)
        self._cache: dict[tuple, FunctionAnalysis] = {}
        self._cfgs: dict[str, tuple[CFG, set[int], dict[int, set[int]]]] = {}
        self._in_progress: set[tuple] = set()
        self._walks: dict[str, list] = {}
        self._constructions: dict[str, dict[str, Node]] = {}
        self._roots: list[Function] | None = None
        self._shapes: dict[str, ShapeAssumption] = {}
        self._tied: dict[str, dict[str, str]] = {}
        # Recursion (see _analyze_to_fixpoint): what an inner call returns for now, and the
        # analyses whose inner calls used it.
        self._recursion_guess: dict[tuple, tuple[Value, Level]] = {}
        self._recursive_hits: set[tuple] = set()
        self._atomic_sites: dict[str, list[tuple[str, Node]]] | None = None
        self._atomic_locations: dict[str, int] | None = None
        self._grid_intervals: dict[str, BarrierIntervals | None] = {}

    def atomic_locations(self) -> dict[str, int]:
        """Global memory the program's threads update with atomics, named so that a load
        elsewhere can be matched to it: a struct field (`atomicAdd(args.count, 1)`), a
        __device__ variable or a reference variable (`atomicExch(&flag, 1)` with `int& flag`)
        -> the line of one such update."""
        if self._atomic_locations is None:
            self._atomic_locations = {key: sites[0][1].line for key, sites in self.atomic_sites().items()}
        return self._atomic_locations

    def atomic_sites(self) -> dict[str, list[tuple[str, Node]]]:
        """The atomic updates of each location of atomic_locations: (function key, call)."""
        if self._atomic_sites is None:
            found: dict[str, list[tuple[str, Node]]] = {}
            for fn in self.program.functions.values():
                for n in fn.body.walk() if fn.body is not None else ():
                    if n.kind != "CALL_EXPR" or n.decl is None or n.decl.name not in P.ATOMIC_FUNCTIONS:
                        continue
                    args = call_args(n)
                    key = _global_location(args[0]) if args else None
                    if key is not None:
                        found.setdefault(key, []).append((fn.key, n))
            self._atomic_sites = found
        return self._atomic_sites

    def grid_intervals(self, fn: Function) -> BarrierIntervals | None:
        """The function's intervals between grid-wide syncs (None: it has none)."""
        if fn.key not in self._grid_intervals:
            cfg, live, _ = self.cfg_of(fn)
            intervals = BarrierIntervals(cfg, live, _syncs_grid)
            self._grid_intervals[fn.key] = intervals if intervals.barrier_items else None
        return self._grid_intervals[fn.key]

    # -- per function --
    def block_dim_parameters(self, fn: Function) -> dict[str, str]:
        """Kernel parameters that every launch in the file sets to the block size: key -> axis."""
        tied = self._tied.get(fn.key)
        if tied is None:
            tied = {form[1]: "xyz"[axis] for axis, form in self.launch_shapes.relations(fn).items()
                    if form[0] == "param"}
            self._tied[fn.key] = tied
        return tied

    def shape_of(self, fn: Function) -> ShapeAssumption:
        """The block shape a function is analyzed under on its own (kernels: their launches)."""
        shape = self._shapes.get(fn.key)
        if shape is None:
            launched = None
            if fn.kind == "kernel" and not fn.block_dim and not self.default_block_dim:
                launched = self.launch_shapes.block_dim(fn)
            shape = shape_for(fn, self.default_block_dim, launched)
            if shape.block_dim is None and fn.kind == "kernel" and self.launch_shapes.rows_may_split_warps(fn):
                # the launches admit rows shorter than a warp: no row is assumed to be whole warps
                shape = ShapeAssumption(x_multiple_of_32=False)
            self._shapes[fn.key] = shape
        return shape

    def constructed_locals(self, fn: Function) -> dict[str, Node]:
        """Local objects built once by a constructor call and never assigned or passed on
        by address afterwards: variable key -> the constructor call (`Evaluator e(cell, &s[k]);`)."""
        found = self._constructions.get(fn.key)
        if found is None:
            found = {}
            if fn.body is not None:
                seen: set[str] = set()
                for n in fn.body.walk():
                    if n.kind != "VAR_DECL" or n.decl is None or n.decl.storage != "local" or not n.children:
                        continue
                    init = constructor_call(n.children[-1])
                    key = n.decl.key
                    if key in seen:
                        found.pop(key, None)
                    elif init is not None:
                        found[key] = init
                    seen.add(key)
                assigned, _ = _assigned_keys([fn.body], declarations=False)
                found = {k: v for k, v in found.items() if k not in assigned}
            self._constructions[fn.key] = found
        return found

    def cfg_of(self, fn: Function):
        entry = self._cfgs.get(fn.key)
        if entry is None:
            cfg = build_cfg(fn.body)
            live = cfg.reachable() | {cfg.exit}
            deps = control_dependences(cfg, live)
            entry = (cfg, live, deps)
            self._cfgs[fn.key] = entry
        return entry

    def analyze(self, fn: Function, param_values: tuple[Value, ...] | None = None,
                shape: ShapeAssumption | None = None,
                outer_env: dict[str, Value] | None = None,
                template_values: tuple[tuple[str, int], ...] = (),
                object_in_shared: bool = False) -> FunctionAnalysis:
        """``template_values``: for a template's generic body, the values of integral template
        parameters a call wrote (`warp_sum<32>(v)` in another template's body).
        ``object_in_shared``: a method called on a __shared__ object (its fields are one
        word each for the whole block, not per-thread state)."""
        if param_values is None:
            param_values = tuple(
                Value(Level.UNIFORM) for _ in fn.params)
        shape = shape or self.shape_of(fn)
        # Constants count: a helper called with another mask (or width) has other sites.
        key = (fn.key, tuple((v.level, v.const, v.lane_linear, v.aligned, v.group_size, v.lane_only)
                             for v in param_values),
               shape, template_values, object_in_shared)
        if outer_env is None and key in self._cache:
            return self._cache[key]
        if key in self._in_progress:
            # A recursive call (a constexpr table that asks itself for another row): it
            # returns the current guess, which the outer analysis below refines.
            self._recursive_hits.add(key)
            ret, out_level = self._recursion_guess.get(key, (UNIFORM, Level.UNIFORM))
            return FunctionAnalysis(fn, self.cfg_of(fn)[0], param_values, ret=ret, out_level=out_level,
                                    out_through={"*": out_level}, object_in_shared=object_in_shared)
        self._in_progress.add(key)
        try:
            result = self._analyze_to_fixpoint(fn, key, param_values, shape, outer_env, template_values,
                                               object_in_shared)
        finally:
            self._in_progress.discard(key)
            self._recursion_guess.pop(key, None)
        if outer_env is None:
            self._cache[key] = result
        return result

    def _analyze_to_fixpoint(self, fn, key, param_values, shape, outer_env, template_values,
                             object_in_shared) -> FunctionAnalysis:
        """Analyze a function; if it calls itself, again with the result as what the inner
        calls return, until that guess holds (from 'uniform' upwards: the least fixed point);
        a recursion that does not settle in a few rounds returns thread-dependent values.
        Analyses of other functions made under a guess that did not hold are forgotten."""
        for round_ in range(_RECURSION_ROUNDS + 1):
            cached_before = set(self._cache)
            self._recursive_hits.discard(key)
            result = _FunctionAnalyzer(self, fn, param_values, shape, outer_env, template_values,
                                       object_in_shared).run()
            if key not in self._recursive_hits:
                return result
            guess = self._recursion_guess.get(key, (UNIFORM, Level.UNIFORM))
            found = (result.ret, result.out_level)
            if _same_value(found[0], guess[0]) and found[1] == guess[1]:
                return result
            for stale in set(self._cache) - cached_before:
                del self._cache[stale]
            self._recursion_guess[key] = found if round_ < _RECURSION_ROUNDS - 1 else (
                Value(Level.THREAD), Level.THREAD)
        return result

    # -- whole call trees --
    def root_functions(self) -> list[Function]:
        """Kernels, plus device functions no analyzed kernel calls (they may be called elsewhere)."""
        if self._roots is None:
            self._roots = self._find_roots()
        return self._roots

    def _find_roots(self) -> list[Function]:
        # Functions with syntax errors are left out: their recovered bodies would mislead.
        generic = self.program.analyzed_generically
        roots = [f for f in self.program.functions.values()
                 if f.kind == "kernel" and f.body and not f.has_errors and generic(f)]
        called: set[str] = set()
        for f in self.program.functions.values():
            # device code only: asking a host function for its body would lower it
            if not f.runs_on_device or f.body is None:
                continue
            for node in f.body.walk():
                if node.kind == "CALL_EXPR":
                    target = self.program.resolve_call(node.decl)
                    if target is not None and target.key != f.key:
                        called.add(target.key)
        for f in self.program.functions.values():
            if f.kind in ("device", "host_device") and f.body and f.key not in called \
                    and not f.has_errors and generic(f):
                roots.append(f)
        return roots

    def walk_sites(self, root: Function, assumed: tuple[tuple[str, bool], ...] = ()):
        """(site, frames) for every site reachable from ``root`` through calls; computed once
        per root and shared by every check. ``assumed``: flag parameters of the kernel taken
        as these constants (flag_parameters)."""
        walked = self._walks.get((root.key, assumed))
        if walked is None:
            budget = [_MAX_FRAMES]
            analysis = self.analyze(root) if not assumed else self.analyze(
                root, tuple(Value(const=int(dict(assumed)[p.key])) if p.key in dict(assumed) else UNIFORM
                            for p in root.params))
            walked = list(self._walk(analysis, (), {root.key}, budget))
            self._walks[(root.key, assumed)] = walked
        return walked

    def flag_parameters(self, kernel: Function) -> list[str]:
        """The kernel's `bool` parameters that its body never assigns (the first
        _MAX_FLAGS): each is one value for the whole launch, so code under `if (flag)` and a
        later `flag ? a : b` run in the same launches (see divergence.partial_reaches)."""
        if kernel.kind != "kernel" or kernel.body is None:
            return []
        assigned, _ = _assigned_keys([kernel.body], declarations=False)
        flags = [p.key for p in kernel.params
                 if (p.type or "").replace("const", "").strip() == "bool" and p.key not in assigned]
        return flags[:_MAX_FLAGS]

    def main_file_sites(self, every_context: bool = False):
        """Sites in this file's functions: once each (their first calling context), or in
        every calling context, for rules that judge a call by its arguments or lanes."""
        seen: set[int] = set()
        for root in self.root_functions():
            for site, frames in self.walk_sites(root):
                if site.function.reported and (every_context or site.node.id not in seen):
                    seen.add(site.node.id)
                    yield site, frames

    def _walk(self, analysis: FunctionAnalysis, frames: tuple[Frame, ...], active: set[str], budget):
        for site in analysis.sites:
            yield site, frames
            callee = site.callee
            if callee is None or callee.body is None or callee.key in active or budget[0] <= 0:
                continue
            budget[0] -= 1
            # captured variables of a lambda; a constructed object's fields for a method
            outer = analysis.call_envs.get(site.node.id)
            sub = self.analyze(callee, tuple(site.arg_values[:len(callee.params)]) +
                               tuple(UNIFORM for _ in callee.params[len(site.arg_values):]),
                               shape=analysis.shape, outer_env=outer, template_values=site.template_values,
                               object_in_shared=site.node.id in analysis.shared_object_calls)
            yield from self._walk(sub, frames + (Frame(site, sub),), active | {callee.key}, budget)


def _tied_variables(node: Node) -> list[Node] | None:
    """What `std::tie(a, b)` / `cuda::std::tie(a, b)` binds, in order: each local variable,
    None for `std::ignore` and other non-locals (None for the whole: not a tie)."""
    call = strip_wrappers(node, VALUE_WRAPPERS + ("MATERIALIZE_TEMPORARY_EXPR", "CXX_BIND_TEMPORARY_EXPR"))
    decl = call.decl
    if call.kind != "CALL_EXPR" or decl is None or decl.name != "tie" \
            or not (decl.qualified.startswith("std::") or decl.qualified.startswith("cuda::std::")):
        return None
    out: list[Node | None] = []
    for arg in call_args(call):
        target = strip_wrappers(arg)
        local = target.kind == "DECL_REF_EXPR" and target.decl is not None and target.decl.storage in ("local", "param")
        out.append(target if local else None)
    return out


_TUPLE_MAKERS = ("make_tuple", "make_pair", "forward_as_tuple", "tie")
_TEMPORARIES = VALUE_WRAPPERS + ("MATERIALIZE_TEMPORARY_EXPR", "CXX_BIND_TEMPORARY_EXPR")


def _tuple_parts(node: Node) -> list[Node] | None:
    """The element expressions of a tuple or pair built in place (`{a, b}` returned as one,
    `make_tuple(a, b)`, `tuple<int, int>(a, b)`), or None."""
    n = strip_wrappers(node, _TEMPORARIES)
    if n.kind == "CALL_EXPR" and n.decl is not None:
        qualified = n.decl.qualified
        library = qualified.startswith("std::") or qualified.startswith("cuda::std::")
        if library and n.decl.name in _TUPLE_MAKERS:
            return call_args(n)
        if n.decl.kind == "CONSTRUCTOR" and library and n.decl.name in ("tuple", "pair"):
            args = call_args(n)
            if len(args) == 1 and strip_wrappers(args[0], _TEMPORARIES).kind == "INIT_LIST_EXPR":
                return strip_wrappers(args[0], _TEMPORARIES).children
            return args if len(args) > 1 else None
    if n.kind == "INIT_LIST_EXPR" and len(n.children) > 1:
        return n.children
    return None


def effective_controllers(site: Site, frames: tuple[Frame, ...]) -> list[tuple[int, Controller]]:
    """All controllers of a site, with the depth of the frame they belong to (0 = root)."""
    out = []
    for depth, frame in enumerate(frames):
        out.extend((depth, c) for c in frame.site.controllers)
    out.extend((len(frames), c) for c in site.controllers)
    return out


# ---------------------------------------------------------------------------

_ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==",
          "!=", "&&", "||", "<=>", ","}
_EXACT_COMPOUND = {"+=", "-=", "*="}
_CUTE_SHAPE_QUERIES = {"size", "shape", "rank", "depth", "cosize", "stride", "product"}
# Casts written in the source (the lowered trees drop implicit conversions).
_INTEGER_CASTS = ("CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR")
_CASTS = {"CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR",
          "CXX_REINTERPRET_CAST_EXPR", "CXX_CONST_CAST_EXPR", "PAREN_EXPR", "UNEXPOSED_EXPR",
          "CXX_DYNAMIC_CAST_EXPR"}


def fold(op: str, a, b, t: C.IntType | None):
    """The constant ``a op b`` for an operator carried out in type t (c_semantics'
    operation_type; None: not an integer type), or None."""
    if a is None or b is None:
        return None
    if op == ",":
        return b
    if isinstance(a, float) or isinstance(b, float) or (t is None and op == "/"):
        try:
            if op in ("+", "-", "*", "/"):
                return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else None}[op]
            if op in C.COMPARISONS:
                return int({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b,
                            "==": a == b, "!=": a != b}[op])
        except OverflowError:
            pass
        return None
    return C.binary(op, a, b, t or C.UNKNOWN_INTEGER)


def fold_node(node: Node, a, b, op: str | None = None):
    """``fold`` for a binary operator node (``op``: the operator a compound assignment
    applies) and its operands' constants."""
    op = op or node.op
    left, right = node.children
    return fold(op, a, b, C.operation_type(op, node.type, left.type, right.type))


def _thread_below_block(op: str, a: Value, b: Value) -> bool | None:
    """The constant outcome of comparing threadIdx.<axis> with blockDim.<axis>, if any."""
    if a.thread_axis and a.thread_axis == b.block_axis:
        return {"<": True, ">=": False, ">": False, "==": False}.get(op)
    if b.thread_axis and b.thread_axis == a.block_axis:
        return {">": True, "<=": False, "<": False, "==": False}.get(op)
    return None


def _is_pow2(v) -> bool:
    return isinstance(v, int) and v > 0 and (v & (v - 1)) == 0


class _FunctionAnalyzer:
    def __init__(self, service: UniformityService, fn: Function, params: tuple[Value, ...],
                 shape: ShapeAssumption, outer_env: dict[str, Value] | None,
                 template_values: tuple[tuple[str, int], ...] = (), object_in_shared: bool = False):
        self.service = service
        self.program = service.program
        self.fn = fn
        self.shape = shape
        self.cfg, self.live, self.deps = service.cfg_of(fn)
        self.result = FunctionAnalysis(fn, self.cfg, params, object_in_shared=object_in_shared)
        self.object_in_shared = object_in_shared
        self._memory_refs: set[str] | None = None
        self.initial: dict[str, Value] = dict(outer_env or {})
        self.template_values = dict(template_values)
        for name, value in template_values:
            self.initial[name] = Value(const=value, aligned=value % 32 == 0)
        tied = service.block_dim_parameters(fn) if fn.kind == "kernel" else {}
        for p, v in zip(fn.params, params):
            if v.level > Level.UNIFORM and v.origin is None:
                v = replace(v, origin=Origin(((f"parameter '{p.name}'", fn.line),)))
            if p.key in tied:
                v = replace(v, block_axis=tied[p.key])  # every launch passes blockDim.<axis> here
            self.initial[p.key] = v
        self.cond_values: dict[int, Value] = {}
        self.ctrl_blocks: dict[int, frozenset[int]] = {}
        self.region_defs: dict[int, set[str]] = {}
        self.region_stores: dict[int, set[str | HeldPointerStore]] = {}
        self.block_defs: dict[int, set[str]] = {}
        self.block_stores: dict[int, set[str | HeldPointerStore]] = {}
        for b in self.live:
            self.block_defs[b], self.block_stores[b] = _assigned_keys(self.cfg.blocks[b].items, program=self.program)
        # Loop headers of butterfly reductions: the accumulator is group-uniform at the exit.
        self.butterflies: dict[int, Butterfly] = {}
        for b in self.live:
            blk = self.cfg.blocks[b]
            if blk.branch_kind == "loop" and blk.branch_stmt is not None and len(blk.succs) == 2:
                found = butterfly(blk.branch_stmt, self.template_values)
                if found is not None:
                    self.butterflies[b] = found
        # Elements of local arrays stored at an index the code names again (`acc[j] = r;
        # ... acc[j]`): env key -> (array key, keys of the index's variables). The element
        # keeps its own value until the array or those variables are assigned again.
        self.elements: dict[str, tuple[str, frozenset[str]]] = {}
        self.elements_of: dict[str, set[str]] = {}
        self.ret = UNIFORM
        self.returned = False
        self.out_level = Level.UNIFORM
        self.out_through: dict[str, Level] = {}
        self.param_stores: dict[str, dict[int, Level]] = {}  # root -> store target id -> level
        self.field_values: dict[str, Value] = {}
        self.pointee_field_values: dict[str, Value] = {}
        self.reference_field_values: dict[str, Value] = {}
        self.reference_whole_stores: set[str] = set()
        self.item_index = -1  # the item of self.block being evaluated
        # Only the final pass records sites and values for the checks.
        self.recording = False
        self.latest: dict[int, Value] = {}

    # -- driver --
    def run(self) -> FunctionAnalysis:
        order = [b for b in self.cfg.reverse_postorder() if b in self.live]
        controllers: dict[int, tuple[Controller, ...]] = {b: () for b in self.live}
        for _ in range(50):
            outs = self._fixpoint(order, controllers)
            new_controllers = self._controllers()
            if new_controllers == controllers:
                break
            controllers = new_controllers
        # One recording pass over the converged block inputs.
        self.recording = True
        self.result.block_controllers = controllers
        taken = taken_blocks(self.cfg, self.cond_values.get)
        for b in order:
            if b in taken:  # (a dead arm's sites and calls are none of the function's)
                self._transfer(b, self._entry_env(b, outs), controllers.get(b, ()))
        self.result.ret = self.ret
        self.result.out_level = self.out_level
        self.result.out_through = self.out_through
        self.result.overwritten_through = self._overwritten_through()
        self.result.field_values = self.field_values
        self.result.pointee_field_values = self.pointee_field_values
        self.result.reference_field_values = self.reference_field_values
        self.result.reference_whole_stores = self.reference_whole_stores
        self.result.cond_levels = {b: v.level for b, v in self.cond_values.items()}
        self.result.shape = self.shape
        return self.result

    def _overwritten_through(self) -> dict[str, tuple[int, Level]]:
        """Array parameters that a loop at the top level of the body fills whole, after
        every other store through them (see FunctionAnalysis.overwritten_through)."""
        out: dict[str, tuple[int, Level]] = {}
        body = self.fn.body
        roots = [r for r in self.param_stores if r != "*"]
        if body is None or not roots:
            return out
        tops = [s.children[0] if s.kind == "UNEXPOSED_STMT" and len(s.children) == 1 else s
                for s in body.children]  # (`#pragma unroll` wraps its loop)
        loops = [s for s in tops if s.kind == "FOR_STMT"]
        ends = {n.id: n.end for n in body.walk()}  # where each store ends
        for root in roots:
            stores = self.param_stores[root]
            for loop in reversed(loops):
                filled = _filling_loop(loop, root, self.result.values)
                if filled is None:
                    continue
                count, store = filled
                in_loop = {n.id for n in loop.walk()}
                if store.id in stores and all(i in in_loop or ends.get(i, loop.end) <= loop.start
                                              for i in stores):
                    out[root] = (count, max(lvl for i, lvl in stores.items() if i in in_loop))
                break
        return out

    def _entry_env(self, b: int, outs: dict[int, dict[str, Value]]) -> dict[str, Value]:
        if b == self.cfg.entry:
            return dict(self.initial)
        env: dict[str, Value] = {}
        mine = self.ctrl_blocks.get(b, frozenset())
        for p in self.cfg.blocks[b].preds:
            pe = outs.get(p)
            if pe is None or not self._arm_taken(p, b):
                continue
            reduction = self.butterflies.get(p)
            if reduction is not None and b == self.cfg.blocks[p].succs[1]:
                pe = self._after_butterfly(p, reduction, pe, outs)
            # Leaving the region of a divergent branch: threads arrive from different paths,
            # so what the region assigned now differs between them (sync dependence).
            leaving = [a for a in self.ctrl_blocks.get(p, ()) if a not in mine
                       and self.cond_values.get(a, UNIFORM).level > Level.UNIFORM]
            if leaving:
                pe = dict(pe)
                for a in leaving:
                    cond_value = self.cond_values[a]
                    cond = self.cfg.blocks[a].branch
                    assigned = self.region_defs.get(a, set())
                    # A store through a pointer changes the pointee, not the pointer; the
                    # pointer stands for its pointee here, which differs between the threads
                    # unless it is the block's shared memory (whose readers the race rules judge).
                    stored = {k for k in (_stored_pointer_key(k, pe) for k in self.region_stores.get(a, ()))
                              if k is not None and _pointer_of(k) not in assigned
                              and not (pe.get(_pointer_of(k)) is not None and pe[_pointer_of(k)].block_shared)}
                    elements = {k for k in pe if k in self.elements and self.elements[k][0] in assigned}
                    fields = {k for k in pe if _FIELD_OF in k and k.split(_FIELD_OF, 1)[0] in assigned}
                    for k in assigned | stored | elements | fields:
                        v = pe.get(k)
                        if v is None and k != _pointer_of(k):
                            v = UNIFORM  # a field of the pointee: what the threads stored in it
                        if v is not None and k in stored and _pointer_of(k) not in assigned \
                                and _pointer_of(k) in self._memory_references():
                            pe.setdefault(k + _UNTIL_BARRIER, v)  # memory, one for the block
                        if v is not None and v.level < cond_value.level:
                            why = (cond_value.origin or Origin(())).through(
                                f"assigned under '{self.program.text(cond)}'",
                                cond.line)
                            pe[k] = v.at_least(cond_value.level, why)
            for k, v in pe.items():
                old = env.get(k)
                env[k] = v if old is None else old.join(v)
        # A field a path did not store has, on that path, the value of the whole variable.
        for k in [k for k in env if _FIELD_OF in k]:
            owner = k.split(_FIELD_OF, 1)[0]
            for p in self.cfg.blocks[b].preds:
                pe = outs.get(p)
                if pe is not None and k not in pe:
                    env[k] = env[k].join(pe.get(owner, UNIFORM))
        # A path that made no divergent store through the pointer has its own value.
        for k in [k for k in env if k.endswith(_UNTIL_BARRIER)]:
            pointer = k[:-len(_UNTIL_BARRIER)]
            for p in self.cfg.blocks[b].preds:
                pe = outs.get(p)
                if pe is not None and k not in pe and self._arm_taken(p, b):
                    env[k] = env[k].join(pe.get(pointer, UNIFORM))
        # An element's own value holds only where every path stored it.
        for k in [k for k in env if k in self.elements]:
            if any(outs.get(p) is not None and k not in outs[p] for p in self.cfg.blocks[b].preds):
                del env[k]
        return env

    def _after_butterfly(self, header: int, reduction: Butterfly, env: dict[str, Value],
                         outs: dict[int, dict[str, Value]]) -> dict[str, Value]:
        """The accumulator on leaving a butterfly reduction: what entered the loop, combined
        over each group of `width` lanes (over a whole warp, a value that depends only on the
        lane becomes the same in every warp)."""
        before = outs.get(self.cfg.blocks[header].preds[0], {}).get(reduction.variable)
        if before is None or reduction.variable not in env:
            return env
        group = group_level(reduction.width)
        if before.level <= Level.BLOCK:
            reduced = Value(before.level, origin=before.origin)
        elif before.lane_only and reduction.width == 32:
            reduced = Value(Level.BLOCK, origin=before.origin)
        else:
            line = self.cfg.blocks[header].branch_stmt.line
            reduced = Value(min(before.level, group), origin=(before.origin or Origin(())).through(
                f"reduced over {reduction.width} lanes", line))
        env = dict(env)
        env[reduction.variable] = reduced
        return env

    def _fixpoint(self, order, controllers):
        outs: dict[int, dict[str, Value]] = {}
        ins: dict[int, dict[str, Value]] = {}
        for _ in range(200):
            changed = False
            for b in order:
                if b != self.cfg.entry and not any(p in outs and self._arm_taken(p, b)
                                                   for p in self.cfg.blocks[b].preds):
                    continue  # not reached yet, or only by arms constants exclude
                env = self._entry_env(b, outs)
                if ins.get(b) == env and b in outs:
                    continue
                ins[b] = env
                out = self._transfer(b, dict(env), controllers.get(b, ()))
                if outs.get(b) != out:
                    outs[b] = out
                    changed = True
            if not changed:
                break
        return outs

    def _controllers(self) -> dict[int, tuple[Controller, ...]]:
        """Transitive controlling branches of each block, from the latest condition values."""
        direct = {b: sorted(d) for b, d in self.deps.items()}
        result: dict[int, tuple[Controller, ...]] = {}
        self.ctrl_blocks = {}
        blocks = self.cfg.blocks
        polarities: dict[int, dict[int, bool | None]] = {}
        for b in self.live:
            polarity: dict[int, bool | None] = {}
            through_back_edge: set[int] = set()  # decisions known only as a later trip's
            stack = [(a, index, False) for a, index in direct.get(b, ())]
            while stack:
                a, index, carried = stack.pop()
                # A do-while's body runs once before its test is ever evaluated: the test
                # holds only for the later runs (`do { ... } while (0)` in a macro never holds).
                # So does a branch in a loop's body that a loop test depends on (`if (more)
                # continue; else break;`): it decides only whether a later trip runs; where
                # the block also depends on it in its own trip, that arm is what holds.
                pol = None if carried or blocks[a].branch_kind == "switch" or _do_while_test(blocks[a]) \
                    else index == 0
                if a in polarity:
                    if a in through_back_edge and not carried:
                        through_back_edge.discard(a)
                        polarity[a] = pol
                    elif polarity[a] != pol and not (carried and a not in through_back_edge):
                        polarity[a] = None
                    continue
                polarity[a] = pol
                if carried:
                    through_back_edge.add(a)
                stack.extend((c, i, carried or _loop_carried(blocks[a], blocks[c])) for c, i in direct.get(a, ()))
            polarities[b] = polarity
        # A branch under a decision that constants settle the other way (`if (M == 1) { if (bx
        # >= n) break; }` in the instance with M = 8, `if (false)`) never runs: it controls
        # nothing.
        dead = {b for b, polarity in polarities.items()
                if any(pol is not None and self._settled(a) is not None and self._settled(a) != pol
                       for a, pol in polarity.items())}
        for b, polarity in polarities.items():
            ctrls = []
            for a, pol in polarity.items():
                blk = blocks[a]
                if blk.branch is not None and a not in dead:
                    ctrls.append(Controller(blk.branch, blk.branch_stmt, blk.branch_kind,
                                            self.cond_values.get(a, UNIFORM), self.fn.name, pol))
            ctrls.sort(key=lambda c: (c.cond.start, c.cond.id))
            result[b] = tuple(ctrls)
            self.ctrl_blocks[b] = frozenset(a for a in polarity if blocks[a].branch is not None)
        self.region_defs = {}
        self.region_stores = {}
        for b, owners in self.ctrl_blocks.items():
            for a in owners:
                self.region_defs.setdefault(a, set()).update(self.block_defs.get(b, ()))
                self.region_stores.setdefault(a, set()).update(self.block_stores.get(b, ()))
        return result

    def _arm_taken(self, branch: int, successor: int) -> bool:
        """Can the branch at the end of a block go on to the successor (not an arm that
        constants exclude: what the dead arm assigns never reaches the join)?"""
        settled = settled_successors(self.cfg.blocks[branch], self.cond_values.get(branch))
        return settled is None or successor in settled

    def _settled(self, block: int) -> bool | None:
        """The outcome of a block's branch where constants decide it (None elsewhere)."""
        value = self.cond_values.get(block)
        if value is None or value.const is None or self.cfg.blocks[block].branch_kind != "if":
            return None
        return bool(value.const)

    # -- transfer --
    def _transfer(self, b: int, env: dict[str, Value], ctrls: tuple[Controller, ...]):
        self.env = env
        self.block = b
        self.block_ctrls = ctrls
        self.block_level = max((c.level for c in ctrls), default=Level.UNIFORM)
        self.block_origin = None
        for c in ctrls:
            if c.level == self.block_level and c.level > Level.UNIFORM:
                self.block_origin = (c.value.origin or Origin(())).through(
                    f"branch on '{self.program.text(c.cond)}'", c.cond.line)
                break
        self.guards: list[Controller] = []
        blk = self.cfg.blocks[b]
        for index, item in enumerate(blk.items):
            self.item_index = index
            v = self.eval(item)
            if item is blk.branch:
                old = self.cond_values.get(b)
                self.cond_values[b] = v if old is None else old.join(v)
        return self.env

    def ctrl_level(self) -> tuple[Level, Origin | None]:
        level, origin = self.block_level, self.block_origin
        for g in self.guards:
            if g.level > level:
                level = g.level
                origin = (g.value.origin or Origin(())).through(
                    f"condition '{self.program.text(g.cond)}'", g.cond.line)
        return level, origin

    def record(self, node: Node, value: Value) -> Value:
        self.latest[node.id] = value  # this pass's value, whether recorded or not
        if self.recording:
            self.result.values[node.id] = value
            self.result.node_block[node.id] = self.block
        return value

    # -- expressions --
    def eval(self, node: Node) -> Value:
        method = getattr(self, "_e_" + node.kind, None)
        value = method(node) if method is not None else self._e_default(node)
        # An array operand decays to a pointer (the IR keeps no implicit casts): `int *p = smem;`
        if ("*" in node.type or "[" in node.type) and not value.block_shared and self._into_shared(node):
            value = replace(value, block_shared=True)
        return self.record(node, value)

    def _into_shared(self, node: Node) -> bool:
        """Whether a pointer expression points into __shared__ memory."""
        n = node
        while (n.kind in _CASTS or n.kind == "PAREN_EXPR") and n.children:
            n = n.children[-1]
        kind = n.kind
        if kind == "CXX_THIS_EXPR":
            return self.object_in_shared
        if kind == "DECL_REF_EXPR":
            decl = n.decl
            if decl is None:
                return False
            if decl.storage == "shared":
                return "[" in decl.type  # an array decays to a pointer into it
            value = self.env.get(decl.key) if decl.storage in ("local", "param") else None
            return value is not None and value.block_shared
        if kind == "UNARY_OPERATOR" and n.op == "&" and n.children:
            return self._lvalue_in_shared(n.children[0])
        if kind == "BINARY_OPERATOR" and n.op in ("+", "-") and len(n.children) == 2:
            return any("*" in c.type and self._into_shared(c) for c in n.children)
        if kind == "CONDITIONAL_OPERATOR" and len(n.children) == 3:
            return self._into_shared(n.children[1]) and self._into_shared(n.children[2])
        if kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR") and "[" in n.type:
            return self._lvalue_in_shared(n)  # a row of a shared 2-D array, an array field
        return False

    def _lvalue_in_shared(self, node: Node) -> bool:
        n = node
        while (n.kind in _CASTS or n.kind == "PAREN_EXPR") and n.children:
            n = n.children[-1]
        kind = n.kind
        if kind == "DECL_REF_EXPR":
            if n.decl is not None and n.decl.storage in ("local", "param") and "&" in n.decl.type:
                return self._bound_to_shared(n)
            return n.decl is not None and n.decl.storage == "shared"
        if kind == "MEMBER_REF_EXPR" and _own_field_key(n) is not None:
            # `field` of the object the method runs on (a reference field: what it is bound to)
            return self.object_in_shared or self._bound_to_shared(n)
        if kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR") and n.children:
            base = n.children[0]
            if _through_pointer(n):
                return self._into_shared(base) or kind == "MEMBER_REF_EXPR" and self._bound_to_shared(n)
            return self._lvalue_in_shared(base)
        if kind == "UNARY_OPERATOR" and n.op == "*" and n.children:
            return self._into_shared(n.children[0])
        return False

    def _bound_to_shared(self, node: Node) -> bool:
        """Is this reference (a local, a parameter, or a field of the object a method runs
        on) bound to __shared__ memory (`Storage& s` handed the block's `__shared__ Storage`,
        a `TempStorage& temp` field a constructor bound to it)? Its reads and stores are then
        the block's shared cells, not a variable of this thread."""
        return self._shared_binding(node) is not None

    def _shared_binding(self, node: Node) -> Value | None:
        """For a reference bound to shared memory (see _bound_to_shared): the value of what
        it was bound to (where that is a thread's own cell, `cells[threadIdx.x]`, the
        thread's). None for anything else."""
        decl = node.decl
        if decl is None or "&" not in (decl.type or ""):
            return None
        if node.kind == "DECL_REF_EXPR" and decl.storage in ("local", "param"):
            key = decl.key
        elif node.kind == "MEMBER_REF_EXPR":
            # the object's own field, or one of the object a pointer names (`cta->storage`
            # with `cta` handed `this`)
            key = _own_field_key(node) or _pointee_field_key(node)
        else:
            key = None
        bound = self.env.get(key) if key is not None else None
        return bound if bound is not None and bound.block_shared else None

    def _e_default(self, node: Node) -> Value:
        return join_all(self.eval(c) for c in node.children) if node.children else UNIFORM

    def _e_INTEGER_LITERAL(self, node):
        v = node.value
        return Value(const=v, aligned=isinstance(v, int) and v % 32 == 0)

    _e_FLOATING_LITERAL = _e_CHARACTER_LITERAL = _e_CXX_BOOL_LITERAL_EXPR = _e_INTEGER_LITERAL

    def _e_STRING_LITERAL(self, node):
        return UNIFORM

    def _e_INIT_LIST_EXPR(self, node):
        # `long{threadIdx.x}`: a braced conversion of one value is that value (its affine form
        # included, so `global_id() - thread_rank()` still cancels)
        if len(node.children) == 1:
            return self.eval(node.children[0])
        return self._e_default(node)

    def _e_LAMBDA_EXPR(self, node):
        return UNIFORM

    def _e_CXX_THIS_EXPR(self, node):
        return UNIFORM

    def _e_CXX_UNARY_EXPR(self, node):  # sizeof, alignof
        return Value(const=node.value) if isinstance(node.value, int) else UNIFORM

    def _e_CASTLIKE(self, node):
        if not node.children:
            return UNIFORM
        values = [self.eval(c) for c in node.children]
        value = values[-1]
        t = C.int_type(node.type) if node.kind in _INTEGER_CASTS else None
        if t is None or (value.const is None and value.per_thread is None):
            return value
        # `(int)(threadIdx.x - 16)`: the cast's type decides the value (and its sign)
        const = C.convert(value.const, t) if isinstance(value.const, (int, float)) else value.const
        per_thread = PT.convert(value.per_thread, t) if value.per_thread is not None else None
        return replace(value, const=const, per_thread=per_thread)

    _e_CSTYLE_CAST_EXPR = _e_CXX_STATIC_CAST_EXPR = _e_CXX_FUNCTIONAL_CAST_EXPR = _e_CASTLIKE
    _e_CXX_REINTERPRET_CAST_EXPR = _e_CXX_CONST_CAST_EXPR = _e_PAREN_EXPR = _e_CASTLIKE
    _e_UNEXPOSED_EXPR = _e_CASTLIKE

    def _e_DECL_STMT(self, node):
        for c in node.children:
            self.eval(c)
        return UNIFORM

    def _e_VAR_DECL(self, node):
        decl = node.decl
        if decl is None or decl.storage in ("shared", "global", "constant"):
            for c in node.children:
                self.eval(c)
            return UNIFORM
        init = None
        if node.children:
            if "[" in node.type:
                inits = [c for c in node.children if c.kind == "INIT_LIST_EXPR"]
                for c in node.children:
                    if c.kind != "INIT_LIST_EXPR":
                        self.eval(c)
                init = self.eval(inits[-1]) if inits else None
            else:
                for c in node.children[:-1]:
                    self.eval(c)
                init = self.eval(node.children[-1])
        value = init if init is not None else UNIFORM
        if "&" in decl.type and node.children and self._lvalue_in_shared(node.children[-1]):
            # a reference bound to shared memory (`auto& hist = s_hist_buf[0];`): its
            # elements are the block's shared cells
            value = replace(value, block_shared=True)
        self._define(decl.key, decl.name, node.line, value, strong=True)
        return value

    def _define(self, key: str, name: str, line: int, value: Value, strong: bool) -> None:
        # No taint from the enclosing control here: among the threads that run this
        # assignment the value is as uniform as its operands. Divergence from the control is
        # added where the branch's region is left (see _entry_env).
        if value.level > Level.UNIFORM and value.origin is not None:
            value = replace(value, origin=value.origin.through(f"'{name}'", line))
        if not strong and key in self.env:
            value = self.env[key].join(value)
            value = replace(value, const=None, lane_linear=False, per_thread=None)
        self.env[key] = value
        self.env.pop(key + _UNTIL_BARRIER, None)
        for element in self.elements_of.get(key, ()):
            self.env.pop(element, None)
        for stored in [k for k in self.env if k.startswith(key + "->")]:
            del self.env[stored]
        if strong:
            for field_key in [k for k in self.env if k.startswith(key + _FIELD_OF)]:
                del self.env[field_key]  # the whole variable assigned: its fields with it

    def _e_RETURN_STMT(self, node):
        values = [self.eval(c) for c in node.children]
        value = values[0] if len(values) == 1 else join_all(values)  # one value keeps its flags
        parts = _tuple_parts(node.children[0]) if len(node.children) == 1 else None
        if parts is not None and all(p.id in self.latest for p in parts):
            value = replace(value, elements=tuple(self.latest[p.id] for p in parts))
        level, origin = self.ctrl_level()
        returned = value.at_least(level, origin)
        self.ret = returned if not self.returned else self.ret.join(returned)
        self.returned = True
        return value

    def _builtin(self, name: str, member: str, line: int) -> Value:
        shape = self.shape
        what = f"{name}.{member}" if member else name
        origin = Origin(((what, line),))
        if name == "threadIdx":
            axis_part = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}.get(member)
            affine = (axis_part, Level.UNIFORM) if axis_part else None
            if member == "x":
                # With rows of exactly 32 threads each warp is one row: threadIdx.x is the lane.
                return Value(Level.THREAD, lane_linear=True, origin=origin, affine=affine, thread_axis="x",
                             per_thread=PT.thread_range(min(shape.block_dim[0], 1024) if shape.block_dim
                                                        else 1024) if shape.x_multiple_of_32 else None,
                             lane_only=bool(shape.block_dim) and shape.block_dim[0] == 32)
            if member == "":
                return Value(Level.THREAD, origin=origin)
            dims = shape.block_dim
            if dims is not None and dims["yz".index(member) + 1] == 1:
                # one thread along this axis (a dim3(64, 4, 1) block's threadIdx.z): always 0
                return Value(const=0, origin=origin)
            if dims is None:
                level = Level.WARP if shape.x_multiple_of_32 else Level.THREAD
            else:
                # threadIdx.y is the same over runs of blockDim.x consecutive threads,
                # threadIdx.z over runs of x*y: uniform in the aligned groups that divide a run
                # (a dim3(8, 4, 4) block: z is warp-uniform, y uniform in 8-thread tiles)
                level = run_level(dims[0] if member == "y" else dims[0] * dims[1])
            return Value(level, origin=origin, affine=affine, thread_axis=member or None)
        if name == "blockIdx":
            return Value(Level.BLOCK, origin=origin)
        if name == "blockDim":
            dims = shape.block_dim
            if dims:
                c = {"x": dims[0], "y": dims[1], "z": dims[2]}.get(member)
                return Value(const=c, aligned=c is not None and c % 32 == 0, block_axis=member or None)
            return Value(aligned=member == "x" and shape.x_multiple_of_32, block_axis=member or None)
        if name == "warpSize":
            return Value(const=32, aligned=True)
        return UNIFORM  # gridDim

    def _e_DECL_REF_EXPR(self, node):
        decl = node.decl
        if decl is None:
            return UNIFORM
        st = decl.storage
        if st == "builtin":
            return self._builtin(decl.name, "", node.line)
        if st in ("local", "param"):
            v = self.env.get(decl.key)
            if v is not None and v.level > Level.UNIFORM and _scalar_reference(decl.type) \
                    and self._alone_in_grid_interval(node, "ref:" + decl.key):
                return UNIFORM  # what the grid's atomics left there before the last grid sync
            if v is not None:
                return v
            if decl.value is not None:
                return Value(const=decl.value)
            return UNIFORM
        if st == "shared":
            return Value(Level.BLOCK, origin=Origin(((f"shared variable '{decl.name}'", node.line),)))
        if st == "template" and decl.key in self.template_values:
            return self.env.get(decl.key, UNIFORM)
        if decl.value is not None:
            return Value(const=decl.value, aligned=isinstance(decl.value, int) and decl.value % 32 == 0)
        if st == "global" and "[" not in decl.type:
            updated = self.service.atomic_locations().get("global:" + decl.key)
            if updated is not None and not self._alone_in_grid_interval(node, "global:" + decl.key):
                # a __device__ variable other threads update atomically meanwhile (`count` with
                # `atomicAdd(&count, 1)`): two threads reading it can see different values
                return Value(Level.THREAD, origin=Origin(((f"'{decl.name}', which threads update atomically",
                                                           updated),)))
        return UNIFORM

    def _e_MEMBER_REF_EXPR(self, node):
        base = node.children[0] if node.children else None
        if base is not None and base.kind == "DECL_REF_EXPR" and base.decl is not None \
                and base.decl.storage == "builtin":
            self.record(base, UNIFORM)
            return self._builtin(base.decl.name, node.spelling, node.line)
        own = _own_field_key(node)
        if own is not None and self.object_in_shared or self._bound_to_shared(node):
            return self._load(node)
        if own is not None:
            # A field of the object a method runs on: what this method stored there, else
            # (set elsewhere) assumed uniform as before.
            return self.env.get(own, UNIFORM)
        value = self._e_default(node)
        field_key = _value_field_key(node)
        if field_key is not None and field_key in self.env:
            return self.env[field_key]  # `s.count` of a struct variable: what was stored there
        others = self.env.get(_other_fields_key(field_key)) if field_key is not None else None
        if others is not None:
            return others  # a field no store named: what the variable held before them
        stored = self.env.get(_pointee_field_key(node) or "")
        # `p->done` read back: what threads stored in that field of the pointee (through a
        # pointer the same for the block, exactly that: a shared address stays one)
        if stored is not None and value.level == Level.UNIFORM and value.const is None:
            return stored
        return value if stored is None else value.join(stored)

    def _address(self, node: Node) -> tuple[Value, str | None, str]:
        """Value of an lvalue's address, the local variable it lives in (if any), and its memory."""
        kind = node.kind
        if kind in _CASTS and node.children:
            return self._address(node.children[-1])
        if kind == "DECL_REF_EXPR":
            decl = node.decl
            if decl is None:
                return UNIFORM, None, "unknown"
            bound = self._shared_binding(node) if decl.storage in ("local", "param") else None
            if bound is not None:
                # a reference bound to shared memory: where it was bound (a thread's own cell
                # is the thread's)
                return Value(bound.level, origin=bound.origin), None, "shared"
            if decl.storage == "local" and decl.key in self._memory_references():
                # an object in memory the reference is bound to: a store there is no store
                # into a variable of the thread's own
                return self.env.get(decl.key, UNIFORM), None, "pointee"
            if decl.storage in ("local", "param"):
                # a pointer (an array parameter, `int x[]`, is one too): its value is the address
                if "*" in decl.type and "[" not in decl.type or decl.storage == "param" and "[" in decl.type:
                    pointer = self.env.get(decl.key, UNIFORM)
                    # into the block's shared memory (`unsigned* items = (unsigned*)smem;`):
                    # its cells are shared ones, not a caller's object written through it
                    return pointer, None, "shared" if pointer.block_shared else "pointer"
                return UNIFORM, decl.key, "local"
            return UNIFORM, None, decl.storage
        if kind == "ARRAY_SUBSCRIPT_EXPR" and len(node.children) == 2:
            idx = self.eval(node.children[1])
            base = node.children[0]
            while base.kind in _CASTS and base.children:
                base = base.children[-1]
            named = _address_taken(base)
            if named is not None:  # `((unsigned*)&h)[0] = v`: a part of h
                addr, var, mem = self._address(named)
                return addr.join(idx), var, mem
            if base.kind == "MEMBER_REF_EXPR" and "*" in base.type and "[" not in base.type:
                # `page.out[i]`: the element a pointer field points at, not the struct (a
                # shared cell where the field points into the block's shared memory)
                pointer = self.eval(base)
                return pointer.join(idx), None, "shared" if pointer.block_shared else "pointee"
            base_addr, var, mem = self._address(node.children[0])
            return base_addr.join(idx), var, mem
        own = _own_field_key(node) if kind == "MEMBER_REF_EXPR" else None
        if own is not None:
            # the object's own field: one shared word when the object is __shared__, or where
            # a reference field is bound to shared memory
            if self.object_in_shared:
                return UNIFORM, None, "shared"
            bound = self._shared_binding(node)
            if bound is not None:
                return Value(bound.level, origin=bound.origin), None, "shared"
            return UNIFORM, own, "local"
        if kind == "MEMBER_REF_EXPR" and node.children:
            base = node.children[0]
            bound = self._shared_binding(node)
            if bound is not None:
                return Value(bound.level, origin=bound.origin), None, "shared"  # `cta->storage`
            if base.type.endswith("*") or "->" in node.spelling:
                field = _pointee_field_key(node)
                stored = self.env.get(field) if field is not None else None
                pointer = self.eval(base)
                if pointer.block_shared and stored is None:
                    # a field of a struct in the block's shared memory (`self->scratch->data`
                    # with the scratch pointer one shared address)
                    return pointer, None, "shared"
                return (pointer if stored is None else pointer.join(stored)), None, "pointer"
            return self._address(base)
        if kind == "UNARY_OPERATOR" and node.op == "*" and node.children:
            named = _address_taken(node.children[0])
            if named is not None:
                return self._address(named)  # `*(unsigned*)&h`: h itself (an asm output's view)
            pointer = self.eval(node.children[0])
            # (a pointer into the block's shared memory, `*smem.count` of a carved layout:
            # a shared cell)
            if pointer.block_shared:
                return pointer, None, "shared"
            return pointer, None, "pointee" if strip_wrappers(node.children[0]).kind == "MEMBER_REF_EXPR" else "pointer"
        return self.eval(node), None, "unknown"

    def _alone_in_grid_interval(self, read: Node, location: str) -> bool:
        """Is a read of a location the grid's threads update atomically in a grid interval of
        its own: a grid-wide sync between it and every update of the location (the atomics
        and plain stores), both ways, and, for a helper or a reference, between the
        function's entry and it? Then every thread reads what the last interval left there:
        one value (`atomicExch(&done, 1); grid.sync(); if (done) break; grid.sync();`).
        Atomics in other functions are not ordered here: no."""
        intervals = self.service.grid_intervals(self.fn)
        if intervals is None:
            return False
        sites = self.service.atomic_sites().get(location, [])
        if not sites or any(fn_key != self.fn.key for fn_key, _ in sites):
            return False
        updates = [call for _, call in sites] + [n for n in self.fn.body.walk() if _stores_to(n, location)]
        at = (self.block, self.item_index)
        if intervals.entry_free(*at) and (location.startswith("ref:") or self.fn.kind != "kernel"):
            return False  # what the caller stored before the call may still be there
        after_read = intervals.reach_from(*at)
        for update in updates:
            where = self._point_of(update)
            if where is None or where == at or where in after_read or at in intervals.reach_from(*where):
                return False
        return True

    def _point_of(self, node: Node) -> tuple[int, int] | None:
        for b in self.live:
            for i, item in enumerate(self.cfg.blocks[b].items):
                if item.start <= node.start and node.end <= item.end and any(n is node for n in item.walk()):
                    return b, i
        return None

    def _element(self, node: Node) -> str | None:
        """The env key of `a[i]` for a local array `a` and an index made of variables,
        constants and operators (no calls or assignments), else None."""
        if node.kind != "ARRAY_SUBSCRIPT_EXPR" or len(node.children) != 2:
            return None
        base = node.children[0]
        while base.kind in _CASTS and base.children:
            base = base.children[-1]
        if base.kind != "DECL_REF_EXPR" or base.decl is None or base.decl.storage != "local" \
                or "[" not in base.decl.type:
            return None
        names = set()
        for n in node.children[1].walk():
            if n.kind == "DECL_REF_EXPR":
                if n.decl is None or n.decl.storage not in ("local", "param") or "[" in n.decl.type:
                    return None
                names.add(n.decl.key)
            elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&", "*"):
                return None
            elif n.kind == "BINARY_OPERATOR" and n.op in ASSIGN_OPS:
                return None
            elif n.kind not in _ELEMENT_INDEX_KINDS and n.kind not in _CASTS:
                return None
        key = f"{base.decl.key}[{self.program.text(node.children[1])}]"
        if key not in self.elements:
            self.elements[key] = (base.decl.key, frozenset(names))
            for name in (base.decl.key, *names):
                self.elements_of.setdefault(name, set()).add(key)
        return key

    def _load(self, node: Node) -> Value:
        addr, var, mem = self._address(node)
        if var is not None:
            element = self._element(node)
            content = self.env.get(element) if element is not None else None
            if content is None:
                content = self.env.get(var, UNIFORM)
            return content.join(Value(addr.level, origin=addr.origin))
        if mem in ("pointer", "pointee", "global"):
            location = _global_location(node) or ""
            updated = self.service.atomic_locations().get(location)
            if updated is not None and not self._alone_in_grid_interval(node, location):
                # other threads update it atomically meanwhile: two threads reading it at the
                # same address can see different values
                return Value(Level.THREAD, origin=Origin(((f"'{self.program.text(node)}', which threads "
                                                           f"update atomically", updated),)))
        if mem == "shared":
            # One block shares the cells: a block-uniform address gives every thread the same
            # value, an address that depends only on the lane gives lane L of every warp the
            # same value (the race rules judge the writes that could make them differ).
            return Value(max(Level.BLOCK, addr.level),
                         origin=addr.origin or Origin((("shared memory", node.line),)),
                         lane_only=addr.level > Level.BLOCK and addr.lane_only)
        return Value(addr.level, origin=addr.origin, lane_only=addr.level > Level.BLOCK and addr.lane_only)

    def _e_ARRAY_SUBSCRIPT_EXPR(self, node):
        return self._load(node)

    def _assign(self, target: Node, value: Value, compound: bool) -> None:
        t = target
        while t.kind in _CASTS and t.children:
            t = t.children[-1]
        tied = _tied_variables(t)
        if tied is not None:
            # `tie(a, b) = f()`: a tuple of references to the variables, each assigned its
            # element of the value (one value for the whole tuple); the library's assignment
            # through the references is not followed.
            each = value.elements if value.elements is not None and len(value.elements) == len(tied) \
                else [value] * len(tied)
            for variable, part in zip(tied, each):
                if variable is not None:
                    self._assign(variable, part, compound=False)
            return
        if t.kind == "DECL_REF_EXPR" and t.decl is not None and t.decl.storage in ("local", "param") \
                and not self._bound_to_shared(t):
            if compound:
                value = self.env.get(t.decl.key, UNIFORM).join(value)
                value = replace(value, const=None, lane_linear=False, aligned=False, per_thread=None)
            self._define(t.decl.key, t.decl.name, t.line, value, strong=True)
            self._store_through_reference(t.decl, value)
            if t.decl.storage == "param" and "&" in (t.decl.type or ""):
                self.reference_whole_stores.add(t.decl.key)
            return
        own = _own_field_key(t) if t.kind == "MEMBER_REF_EXPR" and not self.object_in_shared \
            and not self._bound_to_shared(t) else None
        if own is not None:
            # A scalar field of the method's object: tracked like a local here; the caller's
            # object changes with it (the object lives outside the call).
            if compound:
                value = self.env.get(own, UNIFORM).join(value)
                value = replace(value, const=None, lane_linear=False, aligned=False, per_thread=None)
            self._define(own, t.spelling or "field", t.line, value, strong=True)
            level, origin = self.ctrl_level()
            self.out_level = max(self.out_level, value.level, level)
            stored = self.env[own].at_least(level, origin)
            earlier = self.field_values.get(own)
            self.field_values[own] = stored if earlier is None else earlier.join(stored)
            return
        addr, var, mem = self._address(t)
        if var is not None:
            base = _written_parameter(t)
            field_key = _value_field_key(t)
            if base is not None:
                # `r.count = v` through a reference parameter r
                self._store_through_reference(_root_decl(t), value.join(Value(addr.level)))
                self._note_reference_store(base, field_key, value, compound, _stores_through_pointer(t))
            name = t.spelling or "array"
            element = self._element(t)
            earlier = self.env.get(field_key, self.env.get(var)) if field_key is not None else None
            if field_key is not None:
                self.env.setdefault(_other_fields_key(field_key), self.env.get(var, UNIFORM))
            self._define(var, name, t.line, value.join(Value(addr.level, origin=addr.origin)), strong=False)
            if element is not None:
                self.env[element] = value.join(Value(addr.level, origin=addr.origin))
            if field_key is not None:
                # that field alone holds the value stored (the variable as a whole joins it)
                if compound and earlier is not None:
                    value = replace(earlier.join(value), const=None, lane_linear=False, aligned=False,
                                    per_thread=None)
                if value.level > Level.UNIFORM and value.origin is not None:
                    value = replace(value, origin=value.origin.through(f"'{name}'", t.line))
                self.env[field_key] = value
        elif mem == "param" or mem == "pointer":
            # (not "pointee": `s.col[i] = v` through a pointer field stores where the field
            # points, leaving the struct a caller handed over by reference as it was)
            level, _ = self.ctrl_level()
            self.out_level = max(self.out_level, value.level, level)
            root = _written_parameter(t) or "*"
            self.out_through[root] = max(self.out_through.get(root, Level.UNIFORM), value.level, level)
            stores = self.param_stores.setdefault(root, {})
            stores[t.id] = max(stores.get(t.id, Level.UNIFORM), value.level, level)
            pointee = _pointee_field_key(t)
            if pointee is not None and _pointer_of(pointee) == root and not compound:
                stored = value.at_least(level, self.ctrl_level()[1])
                earlier = self.pointee_field_values.get(pointee)
                self.pointee_field_values[pointee] = stored if earlier is None else earlier.join(stored)

    def _e_BINARY_OPERATOR(self, node):
        op = node.op
        if len(node.children) != 2:
            return self._e_default(node)
        lhs, rhs = node.children
        if op in ASSIGN_OPS:
            v = self.eval(rhs)
            if op in _EXACT_COMPOUND and self._is_local(lhs):
                # x += step: the new value is exactly x + step (keeps affine forms in loops)
                v = self._combine(op[:-1], self.eval(lhs), v, node)
                self._assign(lhs, v, compound=False)
                return v
            if op != "=":
                v = v.join(self.eval(lhs))
            else:
                self._address(lhs)  # evaluates the index expressions
            self._assign(lhs, v, compound=op != "=")
            return v
        a = self.eval(lhs)
        if op in ("&&", "||"):
            self.guards.append(Controller(lhs, None, "logical", a, self.fn.name, op == "&&"))
            b = self.eval(rhs)
            self.guards.pop()
            if a.const is not None and bool(a.const) == (op == "||"):
                return Value(a.level, const=int(op == "||"), origin=a.origin)  # the right side never runs
        else:
            b = self.eval(rhs)
        return self._combine(op, a, b, node)

    _e_COMPOUND_ASSIGNMENT_OPERATOR = _e_BINARY_OPERATOR

    @staticmethod
    def _is_local(target: Node) -> bool:
        while target.kind in _CASTS and target.children:
            target = target.children[-1]
        return target.kind == "DECL_REF_EXPR" and target.decl is not None and \
            target.decl.storage in ("local", "param")

    def _combine(self, op: str, a: Value, b: Value, node: Node) -> Value:
        const = fold_node(node, a.const, b.const, op)
        level = max(a.level, b.level)
        origin = a.origin if a.level >= b.level else b.origin
        lane_linear = aligned = warp_linear = False
        if op in ("/", ">>") and a.lane_linear and b.level == Level.UNIFORM:
            divisor = b.const if op == "/" else (1 << b.const if isinstance(b.const, int) and 0 <= b.const < 32 else None)
            if _is_pow2(divisor) and divisor >= 2:
                # Groups wider than a warp stay aligned only from threadIdx.x itself (an
                # offset that is a multiple of 32 may shift a warpgroup boundary).
                exact = a.thread_axis == "x"
                level = max(group_level(divisor if exact else min(divisor, 32)), b.level)
                origin = a.origin.through(f"'{self.program.text(node)}'", node.line) \
                    if a.origin and level > Level.UNIFORM else a.origin
                warp_linear = exact and divisor == 32
        elif op in ("/", ">>") and a.warp_linear and b.level == Level.UNIFORM:
            divisor = b.const if op == "/" else (1 << b.const if isinstance(b.const, int) and 0 <= b.const < 32 else None)
            if _is_pow2(divisor) and divisor >= 2:
                level = max(group_level(32 * divisor), b.level)
                origin = a.origin.through(f"'{self.program.text(node)}'", node.line) \
                    if a.origin and level > Level.UNIFORM else a.origin
        elif op in ("<", "<=", ">", ">=") and (a.warp_linear or b.warp_linear) and \
                not (a.warp_linear and b.warp_linear):
            warp, bound = (a, b) if a.warp_linear else (b, a)
            cut = bound.const
            if bound.level <= Level.BLOCK and isinstance(cut, int):
                if op in (("<=", ">") if a.warp_linear else (">=", "<")):
                    cut += 1
                warps = 4 if cut % 4 == 0 else 1
                level = max(group_level(32 * warps), bound.level)
                origin = warp.origin if level > Level.UNIFORM else None
        elif op in ("+", "-"):
            if a.lane_linear and b.aligned and b.level <= Level.WARP:
                lane_linear = True
            elif op == "+" and b.lane_linear and a.aligned and a.level <= Level.WARP:
                lane_linear = True
            aligned = a.aligned and b.aligned
        elif op == "*":
            aligned = a.aligned or b.aligned
        elif op == ",":
            return b
        elif op in ("<", "<=", ">", ">=") and (a.lane_linear or b.lane_linear):
            lane, bound = (a, b) if a.lane_linear else (b, a)
            if bound.level <= Level.BLOCK and not (a.lane_linear and b.lane_linear):
                # tid < c splits threads at c: aligned groups of the largest power of two
                # dividing c stay together (tid < 32: warp-uniform).
                lane_on_left = a.lane_linear
                cut = bound.const
                if isinstance(cut, int) and op in (("<=", ">") if lane_on_left else (">=", "<")):
                    cut += 1
                widest = 128 if lane.thread_axis == "x" else 32
                if isinstance(cut, int):
                    granule = widest if cut == 0 else min(widest, cut & -cut)
                else:
                    granule = 32 if bound.aligned else 1
                level = max(group_level(granule), bound.level)
                origin = lane.origin if level > Level.UNIFORM else None
        if op in ("<<",) and a.aligned:
            aligned = True
        if const is not None and isinstance(const, int) and const % 32 == 0:
            aligned = True
        per_thread = None
        if (a.per_thread is not None or b.per_thread is not None) and \
                (a.per_thread is not None or a.const is not None) and \
                (b.per_thread is not None or b.const is not None):
            per_thread = PT.binary(op, a.per_thread if a.per_thread is not None else a.const,
                                   b.per_thread if b.per_thread is not None else b.const,
                                   C.operation_type(op, node.type, node.children[0].type, node.children[1].type))
        thread_vs_block = _thread_below_block(op, a, b)
        if thread_vs_block is not None:
            return Value(const=int(thread_vs_block))  # threadIdx.x < blockDim.x: always true
        affine = None
        fa, fb = a.thread_affine(), b.thread_affine()
        if fa is not None and fb is not None and level > Level.BLOCK:
            rest = Level(max(fa[1], fb[1]))
            if op in ("+", "-"):
                sign = 1 if op == "+" else -1
                part = tuple(x + sign * y for x, y in zip(fa[0], fb[0]))
                affine = (part, rest)
                if not any(part):  # the thread parts cancel
                    level, affine = rest, None
            elif op == "*" and (isinstance(a.const, int) or isinstance(b.const, int)):
                scale, form = (a.const, fb) if isinstance(a.const, int) else (b.const, fa)
                affine = (tuple(scale * x for x in form[0]), rest)
            elif op in ("<", "<=", ">", ">=", "==", "!=") and fa[0] == fb[0]:
                level, affine = rest, None  # both sides carry the same thread part
        if per_thread is not None and level > Level.WARP and self.shape.x_multiple_of_32 and \
                (self.shape.block_dim is None or self.shape.block_dim[1] * self.shape.block_dim[2] == 1):
            # A function of threadIdx.x alone that is the same over aligned runs of threads
            # (`threadIdx.x - lane`, the warp's first thread): as uniform as those runs.
            level = min(level, group_level(PT.constant_run(per_thread)))
        lane_only = level > Level.BLOCK and a.lane_like and b.lane_like
        if op in ("%", "&") and a.lane_linear and self.shape.x_multiple_of_32 and \
                b.const == (32 if op == "%" else 31):
            lane_only = True  # threadIdx.x % 32: the lane
        return Value(Level(level), const, lane_linear, aligned,
                     origin if level > Level.UNIFORM else None, per_thread=per_thread,
                     from_activemask=a.from_activemask or b.from_activemask, affine=affine,
                     lane_only=lane_only, warp_linear=warp_linear)

    def _e_UNARY_OPERATOR(self, node):
        op = node.op
        if not node.children:
            return UNIFORM
        operand = node.children[0]
        if op in ("++", "--", "post++", "post--"):
            v = self.eval(operand)
            changed = Value(v.level, origin=v.origin, from_activemask=v.from_activemask)
            self._assign(operand, changed, compound=True)
            return changed
        if op == "*":
            return self._load(node)
        if op == "&":
            addr, _, _ = self._address(operand)
            return addr
        v = self.eval(operand)
        const = None
        t = C.int_type(node.type)
        if isinstance(v.const, float):
            const = {"-": lambda x: -x, "+": lambda x: x, "!": lambda x: int(not x)}.get(op, lambda x: None)(v.const)
        elif v.const is not None:
            const = C.unary(op, v.const, t or C.UNKNOWN_INTEGER)
        per_thread = None
        if v.per_thread is not None and op in ("-", "!", "~", "+"):
            per_thread = PT.unary(op, v.per_thread, t)
        return Value(v.level, const, False, False, v.origin, per_thread=per_thread,
                     from_activemask=v.from_activemask, lane_only=v.lane_only)

    def _e_CONDITIONAL_OPERATOR(self, node):
        if len(node.children) != 3:
            return self._e_default(node)
        cond, a, b = node.children
        c = self.eval(cond)
        self.guards.append(Controller(cond, node, "ternary", c, self.fn.name, True))
        va = self.eval(a)
        self.guards[-1] = Controller(cond, node, "ternary", c, self.fn.name, False)
        vb = self.eval(b)
        self.guards.pop()
        out = va.join(vb)
        if c.const is not None:
            return va if c.const else vb
        if c.level > out.level:
            out = Value(c.level, None, False, False, c.origin,
                        lane_only=c.level > Level.BLOCK and c.lane_like and out.lane_like)
        if c.per_thread is not None:
            pa = va.per_thread if va.per_thread is not None else va.const
            pb = vb.per_thread if vb.per_thread is not None else vb.const
            if pa is not None and pb is not None:
                out = replace(out, per_thread=PT.select(c.per_thread, pa, pb))
        return out

    def _e_CALL_EXPR(self, node):
        if isinstance(node.value, int) and node.decl is not None and node.decl.storage == "function" \
                and not call_args(node):
            return Value(const=node.value)  # folded by the compiler (a constexpr query)
        prim = P.classify(node)
        if prim is None:
            prim = P.classify_async(node)
        args = call_args(node)
        arg_values = [self.eval(a) for a in args]
        decl = node.decl
        if prim is None and decl is not None and decl.name in _CUTE_SHAPE_QUERIES and \
                decl.qualified.startswith("cute::"):
            # The shape of a CuTe tensor partitioned per thread is the same in every thread
            # (only its data pointer differs): size<3>(thr_copy.partition_S(gA)) is a tile
            # count, at most block-dependent (tiles chosen by blockIdx, residues by the size).
            out = join_all(arg_values)
            level = min(out.level, Level.BLOCK)
            return Value(level, const=out.const if level == Level.UNIFORM else None,
                         origin=out.origin if level > Level.UNIFORM else None)
        callee = None if prim is not None else self.program.resolve_call(node.decl)
        template_values: tuple[tuple[str, int], ...] = ()
        if callee is not None:
            arg_values = self._with_default_arguments(args, arg_values, callee)
            arg_values = self._references_to_shared(callee, args, arg_values)
            template_values = self._written_template_values(node, callee)
        obj = None
        fields = None
        obj_node = member_object(node)
        if obj_node is not None:
            obj = self.eval(obj_node)
            if callee is not None and callee.body is not None and not callee.is_lambda:
                fields = self._constructed_fields(obj_node)
        if callee is not None and callee.body is not None and not callee.is_lambda and fields is None \
                and _on_this_object(node, obj_node):
            fields = self._own_fields_handed_on()
        if callee is not None and callee.body is not None and not callee.is_lambda and fields is None:
            fields = self._object_handed_by_pointer(callee, args)
        if decl is not None and decl.name == "operator=" and obj_node is not None and len(arg_values) == 1 \
                and _tied_variables(obj_node) is not None:
            self._assign(obj_node, arg_values[0], compound=False)
            return arg_values[0]
        on_shared = callee is not None and not callee.is_lambda and self._object_in_shared(node, obj_node)
        if on_shared:
            self.result.shared_object_calls.add(node.id)
        group_value = obj if obj is not None else (arg_values[0] if arg_values else None)
        if prim is not None and prim.tile_size is None and prim.scope == "tile":
            if group_value is not None and group_value.group_size:
                prim = replace(prim, tile_size=group_value.group_size)
        if prim is not None or (callee is not None and callee.body is not None):
            if self.recording:
                ctrls = self.block_ctrls + tuple(self.guards)
                site = Site(node, prim, callee, args, arg_values, ctrls, self.fn, template_values)
                self.result.sites.append(site)
                if callee is not None and callee.is_lambda:
                    self.result.call_envs[node.id] = dict(self.env)
                elif fields:
                    self.result.call_envs[node.id] = fields
        if prim is not None:
            return self._primitive_result(node, prim, args, arg_values, group_value)
        if callee is not None and callee.body is not None:
            params = tuple(arg_values[:len(callee.params)]) + tuple(
                UNIFORM for _ in callee.params[len(arg_values):])
            outer = dict(self.env) if callee.is_lambda else fields
            # the callee runs in this block: it is analyzed under the caller's shape (a lane
            # id it returns is then the same per-thread vector the caller's threadIdx makes)
            sub = self.service.analyze(callee, params, shape=self.shape, outer_env=outer,
                                       template_values=template_values, object_in_shared=on_shared)
            self._taint_callee_out_args(args, sub, callee, node.line)
            self._set_fields_through_addresses(args, sub, callee)
            owner = _value_owner(obj_node) if obj_node is not None and not callee.is_lambda else None
            in_memory = owner is not None and owner in self._memory_references()
            if owner is not None and not in_memory:
                for own_key, stored in sub.field_values.items():
                    field_key = owner + _FIELD_OF + own_key[len("this::"):]
                    if field_key in self.env:
                        self.env[field_key] = self.env[field_key].join(stored)
            if obj is not None and sub.out_level > Level.UNIFORM and node.children[0].children \
                    and not callee.is_lambda and not on_shared and not in_memory:
                # A method that stores thread-dependent values in its object's fields.
                self._assign(node.children[0].children[0], Value(sub.out_level), compound=True)
            ret = sub.ret
            if ret.level > Level.UNIFORM and ret.origin is not None:
                ret = replace(ret, origin=ret.origin.through(f"result of '{callee.name}'", node.line))
            if node.decl is not None and node.decl.kind == "CONSTRUCTOR":
                # The object built is what its initializers and its body store in its fields
                # (one value for the whole object, as a method's stores make it).
                built = join_all([*self._member_init_values(callee, args).values(),
                                  *sub.field_values.values()])
                if built.level > Level.UNIFORM:
                    built = Value(built.level, origin=(built.origin or Origin(())).through(
                        f"fields set by '{callee.name}'", node.line))
                    ret = ret.join(built) if ret.level > Level.UNIFORM else built
            return ret
        if node.decl is not None and node.decl.kind == "CONSTRUCTOR" and len(arg_values) == 1:
            return arg_values[0]  # copies and conversions keep the value
        # Unknown or library call: assume its result depends on its arguments only.
        out = join_all(arg_values)
        if obj is not None and decl is not None and decl.name in _ASSIGNMENT_OPERATORS:
            # `h = a * b` of a class type (half2, float4) with no body to read: the object
            # is assigned the argument's value (joined with its own for `+=`)
            self._assign(obj_node, out, compound=decl.name != "operator=")
        if obj is not None:
            out = out.join(obj)
        self._taint_out_args(args, out, None)
        return Value(out.level, None, False, False, out.origin,
                     from_activemask=out.from_activemask, lane_only=out.lane_only)

    def _object_in_shared(self, call: Node, obj_node: Node | None) -> bool:
        """Whether a method call runs on an object in __shared__ memory (`db->init()` with
        `db = &db_state`, `state.step()`, or `step()` inside a method of such an object)."""
        member = call.children[0] if call.children else None
        while member is not None and member.kind in _CASTS and member.children:
            member = member.children[-1]
        if member is None or member.kind != "MEMBER_REF_EXPR" or member.decl is None \
                or member.decl.storage != "function":
            return False
        if obj_node is None:
            return self.object_in_shared  # implicit `this`
        if _through_pointer(member):
            return self._into_shared(obj_node)
        return self._lvalue_in_shared(obj_node)

    def _written_template_values(self, call: Node, callee: Function) -> tuple[tuple[str, int], ...]:
        """A call of a template's generic body (from inside another template, where clang
        made no instantiation) that writes its integral arguments: their values, by parameter."""
        if not callee.is_template or not callee.template_params:
            return ()
        out = []
        for key, (arg, _) in template_bindings(call, callee, None).items():
            value = self.eval(arg).const
            if isinstance(value, int) and not isinstance(value, bool):
                out.append((key, value))
        return tuple(out)

    def _constructed_fields(self, obj: Node) -> dict[str, Value] | None:
        """The fields of an object built right there by a constructor call (a temporary:
        `WarpReduce(storage).Sum(x)`), from the constructor's member initializers, when one
        of them depends on the thread (a lane mask from the lane id): the method then starts
        from those values instead of assuming its fields uniform."""
        # a local object built once (`Evaluator phi(cell, ...); phi.load();`): the
        # constructor's arguments are read here, where they hold the same values
        obj = constructor_call(obj, self.service.constructed_locals(self.fn).get)
        if obj is None:
            return None
        ctor = self.program.resolve_call(obj.decl)
        if ctor is None or not ctor.member_inits:
            return None
        fields = self._member_init_values(ctor, call_args(obj))
        return fields if any(v.level > Level.UNIFORM or v.block_shared for v in fields.values()) else None

    def _own_fields_handed_on(self) -> dict[str, Value] | None:
        """For a call of another method on the same object (`step()` inside `run()`): the
        object's fields as this method knows them, where one is thread-dependent or a
        reference bound to shared memory; None where all are uniform (the callee then
        assumes so too, and its analysis is shared by every such call)."""
        fields = {k: v for k, v in self.env.items() if k.startswith("this::")}
        return fields if any(v.level > Level.UNIFORM or v.block_shared for v in fields.values()) else None

    def _object_handed_by_pointer(self, callee: Function, args: list[Node]) -> dict[str, Value] | None:
        """For a function handed the caller's object by pointer (`Iterate::Expand(this,
        tile)`): its fields as the caller knows them, as the fields of what the parameter
        points at (`cta->storage`), where one is a reference bound to shared memory or
        thread-dependent; None otherwise."""
        out = {}
        for param, arg in zip(callee.params, args):
            arg = strip_wrappers(arg)
            if "*" not in (param.type or "") and "[" not in (param.type or ""):
                # a struct handed by reference or by value (`step(ctx)` with `Context& ctx`):
                # each field keeps its own value (a thread's point index does not make the
                # data pointer beside it thread-dependent)
                owner = _value_owner(arg)
                if owner is not None:
                    prefix = owner + _FIELD_OF
                    fields = {k[len(prefix):]: v for k, v in self.env.items() if k.startswith(prefix)}
                    if any(v.level > Level.UNIFORM or v.block_shared for v in fields.values()):
                        out.update({f"{param.key}{_FIELD_OF}{k}": v for k, v in fields.items()})
                continue
            if arg.kind == "CXX_THIS_EXPR":
                fields = {k[len("this::"):]: v for k, v in (self._own_fields_handed_on() or {}).items()}
            elif arg.kind == "DECL_REF_EXPR" and arg.decl is not None and arg.decl.storage in ("local", "param"):
                # a pointer handed on (`Next::Expand(cta, tile)`): what its pointee's fields hold
                prefix = arg.decl.key + "->"
                fields = {k[len(prefix):]: v for k, v in self.env.items() if k.startswith(prefix)}
            elif _address_taken(arg) is not None and _value_owner(_address_taken(arg)) is not None:
                # the address of a local struct (`median(&state)`): what its fields hold
                prefix = _value_owner(_address_taken(arg)) + _FIELD_OF
                fields = {k[len(prefix):]: v for k, v in self.env.items() if k.startswith(prefix)}
            else:
                continue
            if any(v.level > Level.UNIFORM or v.block_shared for v in fields.values()):
                out.update({f"{param.key}->{k}": v for k, v in fields.items()})
        return out or None

    def _references_to_shared(self, callee: Function, args: list[Node], values: list[Value]) -> list[Value]:
        """The argument values, those bound to a reference parameter of the callee marked
        where the argument is an lvalue in shared memory (`reduce(s_storage)`): the callee's
        reads and stores through that parameter are the block's shared cells."""
        out = list(values)
        for i, (param, arg) in enumerate(zip(callee.params, args)):
            if i < len(out) and "&" in (param.type or "") and not out[i].block_shared \
                    and self._lvalue_in_shared(arg):
                out[i] = self.record(arg, replace(out[i], block_shared=True))
        return out

    def _member_init_values(self, ctor: Function, args: list[Node]) -> dict[str, Value]:
        """The values a constructor's member initializers give its fields (`this::<field
        key>` -> value), its parameters bound to the call's arguments."""
        if not ctor.member_inits:
            return {}
        saved_env, saved_recording = self.env, self.recording
        self.env, self.recording = dict(self.env), False
        fields: dict[str, Value] = {}
        try:
            values = self._references_to_shared(ctor, args, [self.eval(a) for a in args])
            for param, value in zip(ctor.params, values):
                self.env[param.key] = value
            for field_key, init in ctor.member_inits.items():
                value = self.eval(init)
                self.env["this::" + field_key] = value  # later initializers may read it
                fields["this::" + field_key] = value
        finally:
            self.env, self.recording = saved_env, saved_recording
        return fields

    def _with_default_arguments(self, args: list[Node], arg_values: list[Value],
                                callee: Function) -> list[Value]:
        """An argument the call leaves out has the callee's default value (a helper's
        `unsigned mask = 0xffffffff`), not an unknown one. Default arguments cannot name the
        callee's other parameters, so they evaluate the same here as in the callee."""
        out = list(arg_values)
        for i, arg in enumerate(args):
            default = callee.params[i].default if i < len(callee.params) else None
            if default is not None and is_default_argument(arg):
                recording, self.recording = self.recording, False
                try:
                    out[i] = self.eval(default)
                finally:
                    self.recording = recording
        return out

    def _e_ASM_STMT(self, node):
        values = [self.eval(c) for c in node.children]
        # libclang gives the operands' constraints in order ("=r", "r", ...); outputs take
        # what the PTX computes (before, they kept whatever they held: a lane id read from
        # %laneid looked uniform).
        constraints = node.type.split("\x1f") if node.type else []
        if len(constraints) == len(node.children):
            outputs = [i for i, c in enumerate(constraints) if c.startswith(("=", "+"))]
            if outputs:
                inputs = [v for i, v in enumerate(values) if i not in outputs]
                value = self._asm_result(node.spelling, inputs, node.line)
                for i in outputs:
                    self._assign(node.children[i], value, compound=constraints[i].startswith("+"))
        prim = P.classify_async(node)
        if prim is not None and self.recording:
            self.result.sites.append(Site(node, prim, None, list(node.children), [],
                                          self.block_ctrls + tuple(self.guards), self.fn))
        warp_sync = P.classify_asm_warp(node) if prim is None else None
        if warp_sync is not None and self.recording:
            # a warp intrinsic written in PTX: judged as the intrinsic, its mask operand first
            site_prim, args = warp_sync
            by_node = {id(c): v for c, v in zip(node.children, values)}
            self.result.sites.append(Site(node, site_prim, None, args, [by_node[id(a)] for a in args],
                                          self.block_ctrls + tuple(self.guards), self.fn))
        return UNIFORM

    def _asm_result(self, text: str, inputs: list[Value], line: int) -> Value:
        """What an inline-PTX statement writes to its outputs: special registers by what they
        name; results that differ per thread however uniform the inputs (atomics, shuffles,
        clocks); otherwise a function of the input operands (a load reads one cell when its
        address is uniform)."""
        origin = Origin(((f"inline PTX '{text.split(';')[0].strip()[:40]}'", line),))
        if "%laneid" in text:
            lanes = None
            if self.shape.x_multiple_of_32:
                n = min(self.shape.block_dim[0], 1024) if self.shape.block_dim else 1024
                lanes = PT.binary("%", PT.thread_range(n), 32, C.UNSIGNED_INT)
            return Value(Level.THREAD, origin=origin, lane_only=True, per_thread=lanes)
        if "%lanemask" in text:
            return Value(Level.THREAD, origin=origin, lane_only=True)
        if "%warpid" in text:
            return Value(Level.WARP, origin=origin)
        if any(r in text for r in ("%smid", "%nsmid", "%nwarpid", "%ctaid", "%gridid")):
            return Value(Level.BLOCK, origin=origin)
        if "activemask" in text:
            return Value(Level.THREAD, origin=origin, from_activemask=True)
        if any(r in text for r in ("%tid", "%clock", "%globaltimer", "atom.", "red.", "shfl",
                                   "match.", "elect.")):
            return Value(Level.THREAD, origin=origin)
        if "vote." in text:
            return Value(Level.WARP, origin=origin)
        out = join_all(inputs) if inputs else UNIFORM
        return Value(out.level, origin=out.origin, lane_only=out.lane_only)

    def _partition_members_level(self, args: list[Node], arg_values: list[Value]) -> Level | None:
        """What the members of `cg::binary_partition(tile, value)` share: the value, within
        one tile (of known size, at most a warp). None when the tile is not known."""
        if len(args) < 2 or len(arg_values) < 2:
            return None
        kind, size = group_kind(args[0].type)
        size = size or arg_values[0].group_size
        if kind != "tile" or size is None or size > 32:
            return None
        return Level(max(arg_values[1].level, group_level(size)))

    def _note_reference_store(self, param: str, field_key: str | None, value: Value, compound: bool,
                              through_pointer: bool) -> None:
        """Record a store through a reference parameter: into one scalar field of the struct
        it is bound to (`r.count = v`), or otherwise (see reference_whole_stores); a store
        through a pointer the struct holds (`r.data->x[i] = v`, ``through_pointer``) goes
        where it points and leaves the struct as it was."""
        if field_key is None or field_key.split(_FIELD_OF, 1)[0] != param:
            if not through_pointer:
                self.reference_whole_stores.add(param)
            return
        level, origin = self.ctrl_level()
        stored = value.at_least(level, origin)
        if compound:
            stored = replace(stored, const=None, lane_linear=False, aligned=False, per_thread=None)
        earlier = self.reference_field_values.get(field_key)
        self.reference_field_values[field_key] = stored if earlier is None else earlier.join(stored)

    def _store_through_reference(self, decl, value: Value) -> None:
        """A store into what a non-const reference parameter is bound to: the caller's
        variable gets it (see _taint_callee_out_args)."""
        if decl is None or decl.storage != "param" or "&" not in decl.type or "const" in decl.type:
            return
        level, _ = self.ctrl_level()
        self.out_through[decl.key] = max(self.out_through.get(decl.key, Level.UNIFORM), value.level, level)

    def _taint_callee_out_args(self, args: list[Node], sub: FunctionAnalysis, callee: Function, line: int) -> None:
        """Arguments an analyzed callee may store into get what it stores through their
        parameters (or through pointers not traced back to a parameter)."""
        anywhere = sub.out_through.get("*", Level.UNIFORM)
        for i, a in enumerate(args):
            through = sub.out_through.get(callee.params[i].key, Level.UNIFORM) if i < len(callee.params) \
                else Level.UNIFORM
            if through > Level.UNIFORM and anywhere == Level.UNIFORM \
                    and self._store_fields_through_reference(a, sub, callee.params[i].key):
                continue
            overwritten = sub.overwritten_through.get(callee.params[i].key) if i < len(callee.params) else None
            extent = _local_array_extent(a)
            if overwritten is not None and extent is not None and extent <= overwritten[0]:
                through = overwritten[1]  # every element the caller has was stored last by that loop
            level = max(anywhere, through)
            origin = Origin(((f"what '{callee.name}' stores through its argument", line),)) \
                if level > Level.UNIFORM else None
            self._taint_out_args([a], Value(level, origin=origin), callee, first=i)

    def _memory_references(self) -> set[str]:
        """Local references bound to an object in memory (`BlockData& b = grid->blocks[bid];`,
        `auto& s = *state;`), and local pointers to one (`BlockData* b = &grid->blocks[bid];`):
        one object for every thread that binds it at the same address, not a thread's own
        variable. A helper or method storing into it stores into that memory, as
        `grid->blocks[bid].nodes++` would; it leaves no per-thread copy that differs."""
        if self._memory_refs is None:
            self._memory_refs = set()
            for n in self.fn.body.walk() if self.fn.body is not None else ():
                if n.kind != "VAR_DECL" or n.decl is None or not n.children:
                    continue
                init = n.children[-1]
                while init.kind in _CASTS and init.children:
                    init = init.children[-1]
                if _lvalue_reference_type(n.decl.type) and _names_memory(init) \
                        or C.is_pointer_type(n.decl.type) and init.kind == "UNARY_OPERATOR" \
                        and init.op == "&" and init.children and _names_memory(init.children[0]):
                    self._memory_refs.add(n.decl.key)
        return self._memory_refs

    def _store_fields_through_reference(self, arg: Node, sub: FunctionAnalysis, param: str) -> bool:
        """A struct variable handed to a reference parameter that the callee stores through
        only field by field: each field it stored joins what the callee stored there (the
        others keep their values). False where the callee stores otherwise, or the argument is
        no struct variable whose fields are tracked."""
        owner = _value_owner(arg)
        if owner is not None and owner in self._memory_references():
            return True  # the stores went to memory (what a later load there reads is judged as a load)
        prefix = param + _FIELD_OF
        stored = {k[len(prefix):]: v for k, v in sub.reference_field_values.items() if k.startswith(prefix)}
        if owner is None or param in sub.reference_whole_stores or not stored:
            return False
        whole = self.env.get(owner, UNIFORM)
        self.env.setdefault(owner + _FIELD_OF + _OTHER_FIELDS, whole)
        for field_key, value in stored.items():
            key = owner + _FIELD_OF + field_key
            self.env[key] = self.env.get(key, whole).join(value)
        self._define(owner, arg.spelling or "struct", arg.line, join_all(stored.values()), strong=False)
        return True

    def _set_fields_through_addresses(self, args: list[Node], sub: FunctionAnalysis, callee: Function) -> None:
        """`init(&state, tid)` with `self->lane = tid` in init: the caller's local struct has
        in that field what the callee stored there (its own value, as `state.lane = tid` would
        give it), not only the taint of the whole variable."""
        if not sub.pointee_field_values:
            return
        for param, arg in zip(callee.params, args):
            owner = _value_owner(_address_taken(arg)) if _address_taken(arg) is not None else None
            if owner is None:
                continue
            prefix = param.key + "->"
            for key, stored in sub.pointee_field_values.items():
                if key.startswith(prefix):
                    self.env[owner + _FIELD_OF + key[len(prefix):]] = stored

    def _taint_out_args(self, args: list[Node], value: Value, callee: Function | None, first: int = 0) -> None:
        """``first``: the parameter position of ``args[0]``."""
        for i, a in enumerate(args, start=first):
            target = None
            if a.kind == "UNARY_OPERATOR" and a.op == "&" and a.children:
                target = a.children[0]
            elif callee is not None and i < len(callee.params):
                ptype = callee.params[i].type
                if "&" in ptype and "const" not in ptype:
                    target = a
                elif ("*" in ptype or "[" in ptype) and "const" not in ptype.rsplit("*", 1)[0].split("[")[0]:
                    # a local array handed to a pointer parameter (`getCoords(x, idx)` fills
                    # `int x[4]`): what the callee stores through the pointer is in the array
                    array = strip_wrappers(a)
                    if array.kind == "DECL_REF_EXPR" and array.decl is not None \
                            and array.decl.storage == "local" and "[" in array.decl.type:
                        target = array
            if target is not None and value.level > Level.UNIFORM:
                self._assign(target, value, compound=True)

    def _primitive_result(self, node: Node, prim: P.Primitive, args: list[Node],
                          arg_values: list[Value], group: Value | None = None) -> Value:
        """``group``: the value of the group a collective runs on (its object or first argument)."""
        origin = Origin(((f"result of {prim.name}", node.line),))
        if prim.category == P.GROUP_HANDLE:
            if prim.name in ("binary_partition", "labeled_partition"):
                return Value(members_level=self._partition_members_level(args, arg_values))
            size = group_kind(node.type)[1]
            if size is None and len(arg_values) >= 2 and isinstance(arg_values[1].const, int):
                size = arg_values[1].const
            return Value(group_size=size)
        if prim.category == P.TILE_COLLECTIVE and prim.scope == "coalesced" and prim.result == Level.THREAD \
                and prim.combines and prim.group is not None:
            if group is not None and group.members_level is not None:
                # a vote of a partition's group: the same for all its members
                return Value(group.members_level, origin=origin if group.members_level > Level.UNIFORM else None)
        if prim.returns_lane:
            return Value(Level.THREAD, lane_only=True, origin=origin)
        if prim.returns_lane_linear:
            # a block's (or grid's) thread_rank(): x + X*(y + Y*z) over the block shape, so
            # `global_id - block.thread_rank()` leaves the block's base
            # (an axis the block does not extend along is always 0: no term)
            dims = self.shape.block_dim
            affine = ((1, dims[0] if dims[1] > 1 else 0, dims[0] * dims[1] if dims[2] > 1 else 0),
                      Level.UNIFORM if prim.scope == "block" else Level.BLOCK) if dims else None
            return Value(Level.THREAD, lane_linear=self.shape.x_multiple_of_32, origin=origin, affine=affine)
        if prim.name == "__activemask":
            return Value(Level.THREAD, origin=origin, from_activemask=True)
        if prim.name == "__ballot_sync" and len(arg_values) >= 2 and arg_values[0].const in (0xFFFFFFFF, -1) \
                and arg_values[1].per_thread is not None and self.ctrl_level()[0] <= Level.WARP:
            # Which lanes of each warp vote true is known: the result's value per thread.
            masks = PT.ballot(arg_values[1].per_thread)
            if masks is not None:
                first = masks.values[0]
                same = bool((masks.values == first).all())
                level = Level.UNIFORM if same else Level.WARP
                return Value(level, const=int(first) if same else None,
                             origin=origin if level > Level.UNIFORM else None,
                             per_thread=None if same else masks)
        if prim.combines and prim.result == Level.WARP and self.shape.x_multiple_of_32:
            # A vote or reduction over whole warps (a full mask, a 32-thread tile) of what
            # every warp sees alike: the same in every warp.
            if prim.category == P.WARP_COLLECTIVE:
                whole = len(arg_values) >= 2 and arg_values[0].const in (0xFFFFFFFF, -1)
                operands = arg_values[1:]
            else:
                whole, operands = prim.tile_size == 32, arg_values
            if whole and all(v.lane_like for v in operands):
                return Value(Level.BLOCK, origin=origin)
        if prim.result is not None:
            if prim.name == "__match_all_sync" and len(args) >= 3:
                self._taint_out_args(args[2:3], Value(Level.THREAD, origin=origin), None)
            return Value(prim.result, origin=origin if prim.result > Level.UNIFORM else None)
        if prim.category in (P.WARP_COLLECTIVE, P.TILE_COLLECTIVE):
            # Broadcasting shuffles: uniform when every lane reads the same source lane.
            src_index = 2 if prim.category == P.WARP_COLLECTIVE else 1
            width = 32
            if prim.category == P.WARP_COLLECTIVE and len(arg_values) >= 4 and isinstance(arg_values[3].const, int):
                width = arg_values[3].const
            elif prim.tile_size:
                width = prim.tile_size
            if len(arg_values) > src_index:
                src = arg_values[src_index]
                if src.level > group_level(width):
                    return Value(Level.THREAD, origin=origin)
                # Every lane of a group reads one lane: the result is the broadcast value, so
                # it is also as uniform as that value (a warpgroup index broadcast from lane 0,
                # CUTLASS's canonical_warp_group_idx(), stays warpgroup-uniform).
                value = arg_values[src_index - 1]
                level = min(group_level(width), max(value.level, src.level))
                return Value(level, origin=origin if level > Level.UNIFORM else None,
                             warp_linear=value.warp_linear and width == 32 and src.level <= Level.BLOCK)
            return Value(Level.THREAD, origin=origin)
        if prim.category == P.BLOCK_BARRIER:
            self._memory_settles()
            return UNIFORM
        return join_all(arg_values)

    def _memory_settles(self) -> None:
        """At a block barrier: memory that a pointer (or a reference bound to memory) the same
        for the whole block points at, stored into under a divergent branch, holds one value
        for every thread of the block again (the barrier makes the stores made before it
        visible to all): the pointer no longer stands for values that differ."""
        for key in [k for k in self.env if k.endswith(_UNTIL_BARRIER)]:
            before = self.env.pop(key)
            stored = key[:-len(_UNTIL_BARRIER)]
            pointer = self.env.get(_pointer_of(stored), UNIFORM) if stored != _pointer_of(stored) else before
            if before.level <= Level.BLOCK and pointer.level <= Level.BLOCK:
                self.env[stored] = before


_ELEMENT_INDEX_KINDS = ("INTEGER_LITERAL", "BINARY_OPERATOR", "UNARY_OPERATOR", "PAREN_EXPR")


_ASSIGNMENT_OPERATORS = frozenset("operator" + op for op in ASSIGN_OPS)


def _address_taken(node: Node) -> Node | None:
    """X of `&X` under casts (`(unsigned*)&h`, `reinterpret_cast<int*>(&v.x)`), else None."""
    while node.kind in _CASTS and node.children:
        node = node.children[-1]
    if node.kind == "UNARY_OPERATOR" and node.op == "&" and node.children:
        return node.children[0]
    return None


def _through_pointer(n: Node) -> bool:
    """A subscript or member access whose base is a pointer (it reads or writes the pointee)."""
    base = n.children[0]
    if n.kind == "MEMBER_REF_EXPR" and "->" in n.spelling:
        return True
    return C.is_pointer_type(base.type)


def _pointee_field_key(node: Node) -> str | None:
    """The environment key of `p->field` for a local or parameter pointer p: what threads
    stored in that field of the pointee (a store to one field leaves the others as they were).
    None for other accesses."""
    while node.kind in _CASTS and node.children:
        node = node.children[-1]
    if node.kind != "MEMBER_REF_EXPR" or not node.children or not _through_pointer(node) \
            or node.decl is None or node.decl.storage != "field":
        return None
    base = node.children[0]
    while base.kind in _CASTS and base.children:
        base = base.children[-1]
    if base.kind != "DECL_REF_EXPR" or base.decl is None or base.decl.storage not in ("local", "param"):
        return None
    return f"{base.decl.key}->{node.decl.key}"


# Separates a struct variable's key from its field's in the key of that field's value.
_FIELD_OF = "|field|"


def _global_location(node: Node) -> str | None:
    """A name for the global memory an lvalue or pointer expression reaches, stable across
    functions: the pointer field it goes through (`*args.count`, `args.count[0]`, `&p->n`)
    or the __device__ variable it names."""
    n = strip_wrappers(node)
    while True:
        if n.kind == "UNARY_OPERATOR" and n.op in ("&", "*") and n.children:
            n = strip_wrappers(n.children[0])
        elif n.kind == "ARRAY_SUBSCRIPT_EXPR" and n.children:
            n = strip_wrappers(n.children[0])
        else:
            break
    if n.kind == "MEMBER_REF_EXPR" and n.decl is not None and n.decl.storage == "field":
        return "field:" + n.decl.key
    if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "global":
        return "global:" + n.decl.key
    if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage in ("local", "param") \
            and _scalar_reference(n.decl.type):
        return "ref:" + n.decl.key  # `atomicExch(&flag, 1)` with `int& flag`: what it is bound to
    return None


def _stores_to(node: Node, location: str) -> bool:
    """Is the node a plain store to the location (an assignment or step of it)?"""
    if node.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and node.op in ASSIGN_OPS and node.children \
            or node.kind == "UNARY_OPERATOR" and node.op in ("++", "--", "post++", "post--") and node.children:
        return _global_location(node.children[0]) == location
    return False


def _scalar_reference(type_spelling: str) -> bool:
    return type_spelling.rstrip().endswith("&") and "[" not in type_spelling and "*" not in type_spelling


def _syncs_grid(item: Node) -> bool:
    """Does the statement make a grid-wide sync itself (`grid.sync()`, `cg::sync(grid)`)?"""
    return any(n.kind == "CALL_EXPR" and (prim := P.classify(n)) is not None and prim.category == P.GRID_SYNC
               for n in item.walk())


def _stores_through_pointer(target: Node) -> bool:
    """Does a store to the lvalue go through a pointer on its way from the variable it is
    rooted at (`r.data->x[i]`, `r.buf[i]` with a pointer field, `*r.p`)?"""
    node = strip_wrappers(target)
    while node.children:
        if node.kind == "MEMBER_REF_EXPR" and _through_pointer(node):
            return True
        if node.kind == "ARRAY_SUBSCRIPT_EXPR" and C.is_pointer_type(node.children[0].type):
            return True
        if node.kind == "UNARY_OPERATOR" and node.op == "*":
            return True
        if node.kind not in ("MEMBER_REF_EXPR", "ARRAY_SUBSCRIPT_EXPR") and node.kind not in _CASTS:
            return False
        node = strip_wrappers(node.children[0])
    return False


def _root_decl(target: Node):
    """The declaration an lvalue's address is rooted at (see _written_parameter)."""
    key = _written_parameter(target)
    for n in target.walk():
        if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.key == key:
            return n.decl
    return None


def _written_parameter(target: Node) -> str | None:
    """The parameter a store through a pointer or reference goes through (`out[i]`, `*p`,
    `r.field`, `(p + k)[i]`), when its address is rooted at one."""
    node = target
    while True:
        node = strip_wrappers(node)
        if node.kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR") and node.children:
            node = node.children[0]
        elif node.kind == "UNARY_OPERATOR" and node.op == "*" and node.children:
            node = node.children[0]
        elif node.kind == "BINARY_OPERATOR" and node.op in ("+", "-") and len(node.children) == 2:
            node = node.children[0] if "*" in node.children[0].type else node.children[1]
        else:
            break
    if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage == "param":
        return node.decl.key
    return None


def _value_owner(node: Node) -> str | None:
    """The key of the local or parameter struct variable (or reference) ``node`` names."""
    while node.kind in _CASTS and node.children:
        node = node.children[-1]
    if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage in ("local", "param") \
            and "*" not in node.decl.type and "[" not in node.decl.type:
        return node.decl.key
    return None


# A pointer's value before a divergent store through it made it stand for pointees that
# differ between threads, kept until the next block barrier (see _memory_settles).
_UNTIL_BARRIER = "|until barrier"


def _lvalue_reference_type(type_: str) -> bool:
    spelled = (type_ or "").rstrip()
    return spelled.endswith("&") and not spelled.endswith("&&")


def _names_memory(init: Node) -> bool:
    """Is the initializer an lvalue in memory reached through a pointer (`p->blocks[i]`,
    `*state`, `ptr[i]`), not a local variable?"""
    node = init
    while True:
        while node.kind in _CASTS and node.children:
            node = node.children[-1]
        if node.kind == "UNARY_OPERATOR" and node.op == "*":
            return True
        if node.kind == "ARRAY_SUBSCRIPT_EXPR" and node.children:
            base = node.children[0]
            while base.kind in _CASTS and base.children:
                base = base.children[-1]
            if "*" in (base.type or "") and "[" not in (base.type or ""):
                return True
            node = base
            continue
        if node.kind == "MEMBER_REF_EXPR" and node.children:
            if "->" in (node.spelling or "") or (node.children[0].type or "").endswith("*"):
                return True
            node = node.children[0]
            continue
        return False


# The fields of a struct variable that no store named since it was last assigned whole keep
# what it held then: `owner + _FIELD_OF + _OTHER_FIELDS` (a helper bumping `b.nodes` under
# `if (tid == 0)` leaves `b.depth` as it was).
_OTHER_FIELDS = "*other fields"


def _other_fields_key(field_key: str) -> str:
    return field_key.split(_FIELD_OF, 1)[0] + _FIELD_OF + _OTHER_FIELDS


def _value_field_key(node: Node) -> str | None:
    """The environment key of `s.field` for a struct variable (or reference) s and a scalar
    field: its own value, so that a field set from the clock does not make the others vary."""
    while node.kind in _CASTS and node.children:
        node = node.children[-1]
    if node.kind != "MEMBER_REF_EXPR" or not node.children or node.decl is None \
            or node.decl.storage != "field" or "[" in node.type or _through_pointer(node):
        return None
    owner = _value_owner(node.children[0])
    return None if owner is None else owner + _FIELD_OF + node.decl.key


@dataclass(frozen=True, slots=True)
class HeldPointerStore:
    """A store through the pointer that a pointee field holds (`self->scratch->data[i] = v`
    is one through the pointer in `self->scratch`): `holder` is that field's key."""

    holder: str


def _stored_pointer_key(key: str | HeldPointerStore, env: dict) -> str | None:
    """The key a store through a pointer changes the value of, at a region's exit: for a
    store through the pointer held in a pointee field, none where that pointer is the block's
    shared memory (whose readers the race rules judge), else the local pointer the field is
    reached through (it stands for what it points at); other keys as they are."""
    if not isinstance(key, HeldPointerStore):
        return key
    held = env.get(key.holder)
    if held is not None and held.block_shared:
        return None
    return _pointer_of(key.holder)


def _pointer_of(key: str) -> str:
    """The pointer's key of a pointee-field key (itself for any other key)."""
    return key.split("->", 1)[0]


def _filling_loop(loop: Node, param_key: str, values: dict[int, Value]) -> tuple[int, Node] | None:
    """(N, the store) for `for (i = 0; i < N; ++i) { ... p[i] = v; ... }` with N a constant and
    the store made on every trip (not under a branch) to the parameter p; None otherwise."""
    init, cond, inc, body = (loop.child_by_role(r) for r in ("init", "cond", "inc", "body"))
    if init is None or cond is None or inc is None or body is None:
        return None
    counter = None
    for n in init.walk():
        if n.kind == "VAR_DECL" and n.decl is not None and n.children:
            value = values.get(n.children[-1].id)
            counter = n.decl.key if value is not None and value.const == 0 else None
    cond = strip_wrappers(cond)
    if counter is None or cond.kind != "BINARY_OPERATOR" or cond.op != "<" or len(cond.children) != 2:
        return None
    bound = values.get(cond.children[1].id)
    if not names_declaration(cond.children[0], counter) or bound is None or not isinstance(bound.const, int):
        return None
    inc = strip_wrappers(inc)
    if not (inc.kind == "UNARY_OPERATOR" and inc.op in ("++", "post++") and inc.children
            and names_declaration(inc.children[0], counter)):
        return None
    for n in body.walk():
        if n.kind in ("BREAK_STMT", "CONTINUE_STMT", "RETURN_STMT", "GOTO_STMT"):
            return None  # a trip may end before the store, or the loop before the last element
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR", "UNARY_OPERATOR") \
                and (n.op in ASSIGN_OPS or n.op in ("++", "--", "post++", "post--")) and n.children \
                and names_declaration(n.children[0], counter):
            return None  # the counter stepped in the body as well
    statements = body.children if body.kind == "COMPOUND_STMT" else [body]
    for stmt in statements:
        stmt = strip_wrappers(stmt)
        if stmt.kind == "BINARY_OPERATOR" and stmt.op == "=" and len(stmt.children) == 2:
            target = strip_wrappers(stmt.children[0])
            if target.kind == "ARRAY_SUBSCRIPT_EXPR" and len(target.children) == 2 \
                    and names_declaration(target.children[0], param_key) and names_declaration(target.children[1], counter):
                return bound.const, target
    return None


def _local_array_extent(arg: Node) -> int | None:
    """The element count of a local array handed to a pointer parameter (`int counts[4]`)."""
    array = strip_wrappers(arg)
    if array.kind != "DECL_REF_EXPR" or array.decl is None or array.decl.storage != "local" \
            or not C.is_array_type(array.decl.type or ""):
        return None
    extents = C.array_extents(array.decl.type)
    return extents[0] if len(extents) == 1 else None


def _on_this_object(call: Node, obj_node: Node | None) -> bool:
    """Is the call a method call on the object the caller runs on (`step()`, `this->step()`)?"""
    member = strip_wrappers(call.children[0]) if call.children else None
    if member is None or member.kind != "MEMBER_REF_EXPR" or member.decl is None \
            or member.decl.storage != "function":
        return False
    return obj_node is None or strip_wrappers(obj_node).kind == "CXX_THIS_EXPR"


def _own_field_key(node: Node) -> str | None:
    """The environment key of ``field`` / ``this->field`` inside a method (the object the
    method runs on), None for other member accesses."""
    decl = node.decl
    if decl is None or decl.storage != "field":
        return None
    if node.children and node.children[0].kind != "CXX_THIS_EXPR":
        return None
    return "this::" + decl.key


def _assigned_keys(items: list[Node], declarations: bool = True,
                   program: Program | None = None) -> tuple[set[str], set[str | HeldPointerStore]]:
    """Local variables a block may assign (syntactically; with `declarations`, those it
    declares too), for region-exit divergence, and the local pointers it may store through.
    With the program, an address handed to a helper that only reads through that parameter
    (`load(&view, ...)`) assigns nothing."""
    keys: set[str] = set()
    stores: set[str | HeldPointerStore] = set()
    read_only = _addresses_only_read(items, program) if program is not None else set()

    def base_local(n: Node) -> str | None:
        field = _pointee_field_key(n)
        array_field = n
        while field is None and array_field.kind in ("ARRAY_SUBSCRIPT_EXPR", *_CASTS) and array_field.children:
            array_field = array_field.children[0]  # `p->items[i] = v`: into that array field
            if array_field.kind == "MEMBER_REF_EXPR" and "[" in array_field.type:
                field = _pointee_field_key(array_field)
        if field is not None:
            stores.add(field)  # `p->count = v`: that field of the pointee, not all of it
            return None
        through = False
        pointer_field = False  # the pointer stored through is a field of a struct value
        while n.kind in _CASTS or n.kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR"):
            if through and n.kind == "MEMBER_REF_EXPR" and C.is_pointer_type(n.type) \
                    and _pointee_field_key(n) is not None:
                # `self->scratch->data[i] = v`: through the pointer held in that field
                stores.add(HeldPointerStore(_pointee_field_key(n)))
                return None
            own = _own_field_key(n) if n.kind == "MEMBER_REF_EXPR" else None
            if own is not None and "&" in (n.decl.type or ""):
                stores.add(own)  # through a reference field: into what it is bound to
                return None
            if own is not None:
                return own
            if not n.children:
                return None
            if n.kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR") and _through_pointer(n):
                through = True
            elif through and n.kind == "MEMBER_REF_EXPR":
                pointer_field = True
            n = n.children[0]
        if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage in ("local", "param"):
            if through or "&" in n.decl.type:
                # (a store through a reference is a store into what it is bound to: the
                # block's shared cells where it is bound to shared memory)
                # `p[i] = v` through a local pointer: p stands for what it points at; through
                # a struct's pointer field (`page.out[i] = v`) the struct itself is unchanged
                if not pointer_field:
                    stores.add(n.decl.key)
                return None
            return n.decl.key
        return None

    for item in items:
        for n in item.walk():
            k = n.kind
            if k == "VAR_DECL" and n.decl is not None:
                if declarations:
                    keys.add(n.decl.key)
            elif k in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in ASSIGN_OPS \
                    and n.children:
                key = base_local(n.children[0])
                if key:
                    keys.add(key)
            elif k == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children \
                    and n.id not in read_only:
                key = base_local(n.children[0])
                if key:
                    keys.add(key)
            elif k == "CALL_EXPR" and n.decl is not None and "&" in n.decl.type:
                # Arguments bound to non-const reference parameters may be assigned.
                args = call_args(n)
                for i in written_reference_arguments(program, n) or ():
                    key = base_local(args[i]) if i < len(args) else None
                    if key:
                        keys.add(key)
    return keys, stores


def _addresses_only_read(items: list[Node], program: Program) -> set[int]:
    """The `&x` arguments (node ids) of calls whose callee never writes through, steps or
    hands on that parameter (`blockIdx_to_cellPos(&particles, ...)` reading its fields)."""
    out: set[int] = set()
    for item in items:
        for n in item.walk():
            if n.kind != "CALL_EXPR" or n.decl is None:
                continue
            callee = program.resolve_call(n.decl)
            if callee is None or callee.body is None:
                continue
            for param, arg in bound_arguments(callee.params, call_args(n)):
                arg = strip_wrappers(arg)
                if arg.kind == "UNARY_OPERATOR" and arg.op == "&" and not _writes_through(callee.body, param.key):
                    out.add(arg.id)
    return out


def _writes_through(body: Node, key: str) -> bool:
    """Does the body store through the pointer parameter (`*p = v`, `p->f = v`, `p[i]++`),
    change it, take its address or hand it to a call (which may store through it)?"""
    for n in body.walk():
        target = None
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in ASSIGN_OPS and n.children:
            target = n.children[0]
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children:
            target = n.children[0]
        elif n.kind == "CALL_EXPR" and any(r.kind == "DECL_REF_EXPR" and r.decl is not None and r.decl.key == key
                                           for arg in call_args(n) for r in arg.walk()):
            return True
        if target is not None and any(r.kind == "DECL_REF_EXPR" and r.decl is not None and r.decl.key == key
                                      for r in target.walk()):
            return True
    return False


def _loop_carried(test_block, branch_block) -> bool:
    """Is ``test_block`` a loop's test and ``branch_block`` a branch inside that loop (which
    the test depends on through the loop's back edge only)?"""
    loop, branch = test_block.branch_stmt, branch_block.branch
    return test_block.branch_kind == "loop" and loop is not None and branch is not None \
        and loop.kind in ("FOR_STMT", "WHILE_STMT", "DO_STMT", "CXX_FOR_RANGE_STMT") \
        and loop.start <= branch.start and branch.end <= loop.end and branch is not test_block.branch


def _do_while_test(block) -> bool:
    stmt = block.branch_stmt
    return stmt is not None and stmt.kind == "DO_STMT"
