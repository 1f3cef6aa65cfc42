"""Facts each file contributes to the whole-project rules (cooperative launches, SYN3xx).

A kernel may be defined in one file and launched from another; per-file analysis records
what it knows here, and the project rules join the facts of every analyzed file by the
kernel's identity (its USR, or its name for extern "C" and driver-API launches).
"""

from __future__ import annotations

import os

from dataclasses import dataclass, field

from syncheck.analyses import primitives as P
from syncheck.analyses.launch_shapes import ProjectLaunchShapes, launch_site_block_dim, single_shape
from syncheck.analyses.host_values import OCCUPANCY, PARAMETER, SM_COUNT, HostValues, field_assignments
from syncheck.analyses.uniformity import UniformityService
from syncheck.ir.program import LaunchSite, Program

COOPERATIVE_APIS = {"cudaLaunchCooperativeKernel", "cuLaunchCooperativeKernel",
                    "cudaLaunchCooperativeKernelMultiDevice"}
EX_APIS = {"cudaLaunchKernelEx", "cudaLaunchKernelExC", "cuLaunchKernelEx"}


@dataclass(frozen=True)
class Location:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    function: str


@dataclass(frozen=True)
class KernelFact:
    key: str
    name: str
    location: Location
    grid_sync: Location | None  # the grid sync it reaches (directly or through calls)
    grid_sync_text: str = ""


@dataclass(frozen=True)
class LaunchFact:
    kernel_key: str
    kernel_name: str
    api: str
    location: Location
    cooperative: bool
    grid_origin: str | None = None   # occupancy | sm_count | constant | data | parameter (cooperative launches only)
    grid_text: str = ""
    grid_constant: int | None = None
    uses_sm_count: bool = False
    result_used: bool = True
    language: str = "cuda"           # cuda | python
    block_dim: tuple[int, int, int] | None = None  # a constant block shape
    kernel_instance: str = ""        # the launched instantiation of a kernel template


@dataclass(frozen=True)
class ShapeUse:
    """A kernel whose launch shape the file's analysis used, and the shape this file's own
    launches give it (None: none, or not one constant)."""
    kernel_key: str
    instance: bool
    local_block_dim: tuple[int, int, int] | None


@dataclass(frozen=True)
class GenericFinding:
    """A finding in a template analyzed with its arguments unknown (this translation unit
    does not instantiate it): another file that instantiates it reports on the
    instantiations, with their arguments and launches bound, instead."""
    template_key: str
    code: str
    path: str
    line: int
    column: int


@dataclass(frozen=True)
class FieldAssignment:
    """A write of a project record's field in host code: the constant it stores (None: not a
    constant, or a write whose value is not seen)."""
    field_key: str
    value: int | None


@dataclass
class FileFacts:
    kernels: list[KernelFact] = field(default_factory=list)
    launches: list[LaunchFact] = field(default_factory=list)
    queries_cooperative_support: bool = False
    # The file defines the program's entry (a host `main`): the analyzed files then hold the
    # program's start-up code, where device capabilities are queried.
    defines_main: bool = False
    shape_uses: list[ShapeUse] = field(default_factory=list)
    generic_findings: list[GenericFinding] = field(default_factory=list)
    checked_templates: list[str] = field(default_factory=list)  # whose instantiations it reported on
    field_assignments: list[FieldAssignment] = field(default_factory=list)
    fields_asked: list[str] = field(default_factory=list)  # fields whose value the analysis needed


def _location(path: str, node, function: str) -> Location:
    end_col = node.end_col if node.end_line == node.line else node.col + 1
    return Location(path, node.line, node.col, node.end_line or node.line, end_col, function)


def reports_kernel_fact(fn) -> bool:
    """Does the file's facts list this function as one of its kernels?"""
    return fn.kind == "kernel" and fn.body is not None and fn.in_main_file


def kernel_grid_sync(service: UniformityService, fn, path: str) -> tuple[Location | None, str]:
    """The first grid sync a kernel reaches (directly or through calls), and its name."""
    for site, frames in service.walk_sites(fn):
        if site.prim is not None and site.prim.category == P.GRID_SYNC:
            owner = site.function
            return _location(path if owner.in_main_file else owner.file, site.node, owner.name), site.prim.name
    return None, ""


def collect_facts(program: Program, service: UniformityService | None, path: str,
                  grid_syncs: dict[str, tuple[Location | None, str]] | None = None,
                  shape_answers: list[tuple] | None = None) -> FileFacts:
    """The file's facts. ``grid_syncs`` (kernel key -> kernel_grid_sync) and ``shape_answers``
    (LaunchShapes.local_answers), when given, are what the analyses found already (analyzed one
    part of the file at a time: syncheck/analysis_reuse.py); otherwise ``service`` is asked."""
    facts = FileFacts()
    for fn in program.functions.values():
        if not reports_kernel_fact(fn):
            continue
        grid_sync, text = grid_syncs[fn.key] if grid_syncs is not None else \
            kernel_grid_sync(service, fn, path)
        facts.kernels.append(KernelFact(fn.key, fn.name, Location(path, fn.line, fn.col, fn.line,
                                                                  fn.col + len(fn.name), fn.name),
                                        grid_sync, text))
    host_values: dict[str, HostValues] = {}
    for launch in program.launches:
        host = program.functions[launch.host_function]
        if not host.in_main_file:
            continue
        if not launch.kernel_key and launch.node.id in program.forwarded_launch_nodes:
            continue  # told at the calls of the helper, which name the kernel
        hv = host_values.get(host.key) or host_values.setdefault(host.key, HostValues(program, host))
        facts.launches.append(_launch_fact(program, launch, host, hv, path))
    facts.queries_cooperative_support = _queries_support(program)
    facts.defines_main = any(fn.name == "main" and not fn.runs_on_device and fn.has_body and fn.in_main_file
                             for fn in program.functions.values())
    if shape_answers is None:
        shape_answers = service.launch_shapes.local_answers()
    facts.shape_uses = [ShapeUse(key, instance, shape) for key, instance, shape in shape_answers]
    facts.field_assignments = [FieldAssignment(key, value) for key, value in field_assignments(program)]
    facts.fields_asked = sorted(program.fields_asked)
    return facts


def _launch_fact(program: Program, launch: LaunchSite, host, hv: HostValues, path: str) -> LaunchFact:
    api = launch.api
    cooperative = api in COOPERATIVE_APIS or launch.cooperative_attribute
    if api in EX_APIS and not cooperative:
        cooperative = any(n.kind == "DECL_REF_EXPR" and n.decl is not None and
                          n.decl.name in ("cudaLaunchAttributeCooperative", "CU_LAUNCH_ATTRIBUTE_COOPERATIVE")
                          for n in host.body.walk())
    grid = _grid_expression(launch, host)
    origin = text = None
    constant = None
    sm = False
    if cooperative and grid is not None:
        sources = hv.sources(grid)
        unseen_caller = False
        if OCCUPANCY not in sources and PARAMETER in sources:
            from_callers = _caller_sources(program, host, sources)
            unseen_caller = from_callers is None
            sources |= from_callers or set()
        constant = hv.constant(grid)
        sm = SM_COUNT in sources
        origin = OCCUPANCY if OCCUPANCY in sources else ("constant" if constant is not None else "data")
        if origin == "data" and unseen_caller and hv.passed_through(grid):
            # a grid the caller hands in unchanged, from a caller no analyzed file has: how it
            # was sized is not known here (a grid computed from a parameter, `(n + 255) /
            # 256`, still grows with the data and is judged)
            origin = PARAMETER
        if origin == "data" and (hv.one_block_per_sm(grid) or _ONE_BLOCK_PER_SM in sources):
            origin = SM_COUNT
        text = program.text(grid)
    used = launch.result_used or _checked_later(program, host, launch)
    return LaunchFact(launch.kernel_key, launch.kernel_name, api,
                      _location(path, launch.node, host.name), cooperative, origin, text or "",
                      constant, sm, used, block_dim=launch_site_block_dim(program, launch),
                      kernel_instance=launch.kernel_instance)


# A grid every caller passes as one block per SM (or as an occupancy-derived value).
_ONE_BLOCK_PER_SM = "one block per SM"


def _caller_sources(program: Program, host, sources: set[str], depth: int = 0) -> set[str] | None:
    """Where the host function's parameters come from at its call sites in this file (up to
    three callers up). Occupancy counts only if every call passes an occupancy-derived value;
    one block per SM where every call passes that or an occupancy-derived value.
    None: the function has no caller in this file, nor have the callers' callers where they
    hand a parameter on unchanged."""
    params = [i for i, p in enumerate(host.params) if f"{PARAMETER}:{p.key}" in sources]
    calls = []
    for fn in program.functions.values():
        if fn.runs_on_device or not fn.mentions(host.name) or fn.body is None:
            continue
        for n in fn.body.walk():
            if n.kind == "CALL_EXPR" and program.resolve_call(n.decl) is host:
                calls.append((fn, n))
    if not params:
        return set()
    if not calls:
        return None
    from syncheck.ir.calls import call_args
    unseen = True
    one_per_sm = False
    for fn, call in calls:
        hv = HostValues(program, fn)
        args = call_args(call)
        for i in params:
            if i >= len(args):
                return set()
            arg_sources = hv.sources(args[i])
            from_callers = None
            if OCCUPANCY not in arg_sources and PARAMETER in arg_sources and depth < 3:
                from_callers = _caller_sources(program, fn, arg_sources, depth + 1)
                arg_sources |= from_callers or set()
            if OCCUPANCY not in arg_sources:
                if from_callers is None and PARAMETER in arg_sources and hv.passed_through(args[i]):
                    continue  # handed on from a caller this file does not have
                if hv.one_block_per_sm(args[i]) or _ONE_BLOCK_PER_SM in arg_sources:
                    one_per_sm = True  # `launch(kernel, dim3(sm_count), ...)`: always fits
                else:
                    return set()
            unseen = False
    return None if unseen else {_ONE_BLOCK_PER_SM} if one_per_sm else {OCCUPANCY}


def _checked_later(program: Program, host, launch: LaunchSite) -> bool:
    """An ignored launch result still counts as checked when cudaGetLastError() (or a
    helper wrapping it) follows the launch in the same function."""
    for n in host.body.walk():
        if n.kind == "CALL_EXPR" and n.line >= launch.node.line and n.decl is not None and \
                n.decl.name in ("cudaGetLastError", "cudaPeekAtLastError", "__getLastCudaError",
                                "getLastCudaError"):
            return True
    return False


def _grid_expression(launch: LaunchSite, host):
    if launch.api == "<<<>>>":
        return launch.config[0] if launch.config else None
    if launch.api in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel"):
        return launch.args[1] if len(launch.args) > 1 else None
    if launch.api in ("cuLaunchKernel", "cuLaunchCooperativeKernel"):
        return launch.args[1] if len(launch.args) > 1 else None
    if launch.api in EX_APIS:
        for n in host.body.walk():  # config.gridDim = ...
            if n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2 and \
                    n.children[0].kind == "MEMBER_REF_EXPR" and n.children[0].spelling == "gridDim":
                return n.children[1]
    return None


def _queries_support(program: Program) -> bool:
    for fn in program.functions.values():
        if fn.runs_on_device or not fn.mentions("ooperativeLaunch", "COOPERATIVE_LAUNCH") or fn.body is None:
            continue
        for n in fn.body.walk():
            if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.name in (
                    "cudaDevAttrCooperativeLaunch", "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH"):
                return True
            if n.kind == "MEMBER_REF_EXPR" and n.spelling == "cooperativeLaunch":
                return True
    return False


def join_field_values(facts: list[FileFacts]) -> tuple[tuple[str, int], ...]:
    """The project records' fields that every assignment in the analyzed files sets to one
    and the same constant (a device-info record's warp size, filled from cudaDeviceProp)."""
    values: dict[str, set[int | None]] = {}
    for file_facts in facts:
        for assignment in file_facts.field_assignments:
            values.setdefault(assignment.field_key, set()).add(assignment.value)
    return tuple((key, next(iter(found))) for key, found in sorted(values.items())
                 if len(found) == 1 and None not in found)


def asks_known_fields(file_facts: FileFacts, field_values: tuple[tuple[str, int], ...]) -> bool:
    """Did the file's analysis need a field whose value the project knows?"""
    known = {key for key, _ in field_values}
    return any(key in known for key in file_facts.fields_asked)


def join_launch_shapes(facts: list[FileFacts],
                       field_values: tuple[tuple[str, int], ...] = ()) -> ProjectLaunchShapes:
    """Every launch's block shape in the project, by kernel and by instantiation."""
    by_kernel: dict[str, list] = {}
    by_instance: dict[str, list] = {}
    for file_facts in facts:
        for launch in file_facts.launches:
            if launch.kernel_key:
                by_kernel.setdefault(launch.kernel_key, []).append(launch.block_dim)
            if launch.kernel_instance:
                by_instance.setdefault(launch.kernel_instance, []).append(launch.block_dim)

    def frozen(table):
        # one entry per distinct shape: what matters is whether the launches agree
        return tuple((key, tuple(sorted(set(shapes), key=lambda s: (s is None, s or ()))))
                     for key, shapes in sorted(table.items()))
    return ProjectLaunchShapes(frozen(by_kernel), frozen(by_instance), field_values)


def changed_by_project(file_facts: FileFacts, project: ProjectLaunchShapes) -> bool:
    """Would the project's launches give a kernel this file analyzed another block shape than
    the file's own launches did?"""
    for use in file_facts.shape_uses:
        shapes = project.shapes(use.kernel_key, use.instance)
        if not shapes:
            continue
        local = [use.local_block_dim] if use.local_block_dim is not None else []
        if single_shape(list(shapes) + local) != use.local_block_dim:
            return True
    return False


def generic_findings(program: Program, findings, path: str) -> list[GenericFinding]:
    """This file's findings that lie in a template of its own analyzed only generically."""
    generic = [fn for fn in program.functions.values() if fn.in_main_file and fn.is_template
               and fn.instance_of is None and program.analyzed_generically(fn)]
    out = []
    for f in findings:
        owner = next((fn for fn in generic if f.path == path and fn.line <= f.line <= fn.end_line), None)
        if owner is not None:
            out.append(GenericFinding(_template_identity(owner.key, owner.file), f.code, f.path, f.line, f.column))
    return out


def checked_templates(program: Program) -> list[str]:
    out = set()
    for fn in program.functions.values():
        if fn.instance_of is not None and fn.reported and not fn.has_errors:
            template = program.functions.get(fn.instance_of)
            out.add(_template_identity(fn.instance_of, template.file if template is not None else fn.file))
    return sorted(out)


def _template_identity(key: str, file: str) -> str:
    """A template as written: its key and the file that defines it (two programs of one
    folder, each defining a `seg::segment` of its own, share keys but not templates)."""
    return f"{key}@{os.path.realpath(file)}"


def superseded_generic_findings(facts: list[FileFacts]) -> list[set[tuple]]:
    """Per file, the places of its generic-template findings that another file's analysis
    of the template's instantiations supersedes."""
    checked = {key for file_facts in facts for key in file_facts.checked_templates}
    return [{(g.code, g.path, g.line, g.column) for g in file_facts.generic_findings
             if g.template_key in checked} for file_facts in facts]
