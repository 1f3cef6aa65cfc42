"""Functions, call graph and host launch sites of one translation unit."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace

import clang.cindex as ci

from syncheck.frontend import clang_api
from syncheck.frontend.cuda_headers import cuda_declaration_prefixes
from syncheck.frontend.parse import INSTANTIATION_REFERENCE, ParsedFile
from syncheck.ir import launch_bounds
from syncheck.ir.calls import call_args, expression_text, reference_argument_positions, source_text
from syncheck.ir.nodes import POINTER_WRAPPERS, Decl, Lowerer, Node, strip_wrappers, type_spelling
from syncheck.ir.reuse import (CursorAt, DocumentStore, KeptFunction, KeptSignature, ReuseMismatch, ReusePlan,
                               has_directive_mark, signature_is_plain)
from syncheck.safe_io import MAX_FILE_BYTES, UnsafeFileError, read_regular_file

K = ci.CursorKind

_FUNCTION_KINDS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR,
                   K.CONVERSION_FUNCTION}
_TEMPLATE_PARAMETER_KINDS = {K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TYPE_PARAMETER,
                             K.TEMPLATE_TEMPLATE_PARAMETER}
_CONTAINER_KINDS = {K.NAMESPACE, K.LINKAGE_SPEC, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
                    K.UNEXPOSED_DECL}
_BLOCK_PIN = re.compile(
    r"syncheck:\s*block[-_ ]?dim\s*[=(]?\s*(\d+)(?:\s*[,x]\s*(\d+))?(?:\s*[,x]\s*(\d+))?", re.I)

# Instantiations lowered per translation unit: template-heavy libraries create thousands.
MAX_INSTANTIATIONS = 256

CONFIG_CALLS = {"cudaConfigureCall", "__cudaPushCallConfiguration"}
# What a host function names when it launches with programmatic stream serialization.
COOPERATIVE_ATTRIBUTES = ("cudaLaunchAttributeCooperative", "CU_LAUNCH_ATTRIBUTE_COOPERATIVE")
EX_LAUNCH_APIS = ("cudaLaunchKernelEx", "cudaLaunchKernelExC", "cuLaunchKernelEx")
PROGRAMMATIC_ATTRIBUTES = ("cudaLaunchAttributeProgrammaticStreamSerialization",
                           "programmaticStreamSerializationAllowed")
LAUNCH_APIS = {"cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelEx",
               "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchCooperativeKernel",
               "cuLaunchKernelEx"}


# Text that shows a function may launch a kernel: chevrons (also spaced, `<< <`, which the
# parse reads joined: frontend/launch_spacing.py) and the runtime's and driver's launch calls.
LAUNCH_MARKERS = ("<<<", "<< <", "cudaLaunch", "cuLaunch")

@dataclass
class Param:
    name: str
    key: str
    type: str
    default: Node | None = None  # the default argument (a call that omits it passes this)


@dataclass
class Function:
    key: str
    name: str
    qualified: str
    kind: str  # kernel | device | host | host_device
    file: str
    line: int
    col: int
    end_line: int
    params: list[Param]
    body_node: Node | None
    is_template: bool = False
    # A function template's parameters (declaration keys), in order.
    template_params: list[str] = field(default_factory=list)
    is_lambda: bool = False
    # Constructors: the member initializer list, field key -> initializer expression.
    member_inits: dict = field(default_factory=dict)
    # Constructors: the fields among member_inits that are references (their initializer
    # binds the reference: no access to what it names).
    reference_members: set = field(default_factory=set)
    launch_bounds: int | None = None
    # A bound written as an expression clang could not give a number for (a generic
    # template's `__launch_bounds__(nthreads(type))`): blockDim.x*y*z <= its value.
    launch_bound_expr: Node | None = None
    block_dim: tuple[int, int, int] | None = None  # pinned by a comment or config
    has_errors: bool = False
    in_main_file: bool = True
    # Findings in it are this translation unit's to report: its own functions, and the
    # instantiations it creates of kernel templates in the project's headers (with their
    # arguments and this file's launches bound; the header on its own only knows them
    # generically). Header helpers, templates or not, report through their own file.
    reported: bool = True
    # For an instantiation of a function template: the template's key (the generic body is
    # then analyzed only through its instantiations).
    instance_of: str | None = None
    # Host functions are lowered only when something asks for their body (most host code
    # is never looked at: only launches and the values that size them are).
    _lower: object = None
    text: str = ""
    _constexpr_probe: object = None  # tells, when first asked, whether it is constexpr
    _field_assignments: dict | None = None
    _assigned_values: dict | None = None

    @property
    def is_constexpr(self) -> bool:
        if callable(self._constexpr_probe):
            self._constexpr_probe = bool(self._constexpr_probe())
        return bool(self._constexpr_probe)

    @property
    def body(self) -> Node | None:
        if self.body_node is None and self._lower is not None:
            lower, self._lower = self._lower, None
            self.body_node = lower()
        return self.body_node

    @body.setter
    def body(self, value: Node | None) -> None:
        self.body_node = value

    @property
    def has_body(self) -> bool:
        """Is it defined here (a body, lowered or still to be)?"""
        return self.body_node is not None or self._lower is not None

    def field_assignments(self) -> dict[str, dict[str, Node]]:
        """Fields of local objects set once, by a plain assignment that is a statement of the
        block declaring the object, after its declaration (`View v; v.data = &s[0];`):
        object key -> field key -> the value. A field assigned anywhere else in the
        function, or an object whose address is taken, is left out."""
        if self._field_assignments is None:
            self._field_assignments = _field_assignments(self.body) if self.body is not None else {}
        return self._field_assignments

    def assigned_value(self, target: Node) -> Node | None:
        """The right side of the plain assignment (`x = v`) whose target is ``target`` (as
        seen through parentheses, conversions and pointer casts)."""
        if self._assigned_values is None:
            self._assigned_values = {}
            for n in self.body.walk() if self.body is not None else ():
                if n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2:
                    self._assigned_values.setdefault(strip_wrappers(n.children[0], POINTER_WRAPPERS).id, n.children[1])
        return self._assigned_values.get(strip_wrappers(target, POINTER_WRAPPERS).id)

    def mentions(self, *words: str) -> bool:
        """Does the function's source text contain any of the words (cheap, before lowering)?"""
        return any(w in self.text for w in words)

    @property
    def runs_on_device(self) -> bool:
        return self.kind in ("kernel", "device", "host_device")


_ASSIGNING = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")


def _field_assignments(body: Node) -> dict[str, dict[str, Node]]:
    def unwrapped(n: Node) -> Node:
        while n.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and n.children:
            n = n.children[-1]
        return n

    def object_field(target: Node) -> tuple[str, str] | None:
        target = unwrapped(target)
        if target.kind != "MEMBER_REF_EXPR" or target.decl is None or not target.children:
            return None
        obj = unwrapped(target.children[0])
        if obj.kind == "DECL_REF_EXPR" and obj.decl is not None and obj.decl.storage == "local" \
                and "*" not in (obj.decl.type or ""):
            return obj.decl.key, target.decl.key
        return None

    writes: dict[tuple[str, str], int] = {}
    escaped: set[str] = set()
    for n in body.walk():
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGNING and n.children:
            place = object_field(n.children[0])
            if place is not None:
                writes[place] = writes.get(place, 0) + 1
        elif n.kind == "UNARY_OPERATOR" and n.children:
            inner = unwrapped(n.children[0])
            if n.op == "&" and inner.kind == "DECL_REF_EXPR" and inner.decl is not None:
                escaped.add(inner.decl.key)
            place = object_field(inner) if n.op in ("++", "--", "post++", "post--", "&") else None
            if place is not None:
                writes[place] = writes.get(place, 0) + 1
    out: dict[str, dict[str, Node]] = {}
    for block in body.walk():
        if block.kind != "COMPOUND_STMT":
            continue
        declared: set[str] = set()
        for stmt in block.children:
            if stmt.kind == "DECL_STMT":
                declared |= {d.decl.key for d in stmt.children if d.kind == "VAR_DECL" and d.decl is not None}
                continue
            n = unwrapped(stmt)
            if n.kind != "BINARY_OPERATOR" or n.op != "=" or len(n.children) != 2:
                continue
            place = object_field(n.children[0])
            if place is not None and place[0] in declared and place[0] not in escaped and writes.get(place) == 1:
                out.setdefault(place[0], {})[place[1]] = n.children[1]
    return out


@dataclass
class LaunchSite:
    kernel_key: str
    kernel_name: str
    api: str          # "<<<>>>" or the runtime/driver call's name
    node: Node        # the launching call
    host_function: str
    config: list[Node] = field(default_factory=list)  # grid, block, shmem, stream for <<<>>>
    args: list[Node] = field(default_factory=list)
    result_used: bool = True  # the launch's return code is assigned, tested or passed on
    kernel_instance: str = ""  # the launched instantiation of a kernel template
    # Launched with programmatic stream serialization (a cudaLaunchKernelEx whose function
    # sets that launch attribute): the kernel may start before the previous one has finished.
    programmatic: bool = False
    # A cudaLaunchKernelEx / cuLaunchKernelEx whose launching function sets the cooperative
    # attribute: kept when a helper's launch is seen from its callers.
    cooperative_attribute: bool = False


@dataclass
class Program:
    path: str
    functions: dict[str, Function]
    launches: list[LaunchSite]
    source_lines: list[str]

    instantiated: set[str] = field(default_factory=set)  # templates with instantiations
    # Launches of a helper's kernel parameter that are seen from the helper's calls (each call
    # a launch of its own): the helper's own site names no kernel.
    forwarded_launch_nodes: set[int] = field(default_factory=set)
    # Device functions defined in other files (headers, libraries) that nothing in this file's
    # code reaches: not lowered, not analyzed, not counted in coverage (docs/coverage.md).
    unreached_library: int = 0
    # Host data the whole project agrees on: fields of the project's own records whose every
    # assignment in the analyzed files gives one constant (field key -> value; set by the
    # engine's second pass), and the fields whose value this file's analysis asked for.
    field_values: dict[str, int] = field(default_factory=dict)
    fields_asked: set[str] = field(default_factory=set)
    # The document's store of kept bodies this program was built with (the language server's
    # incremental lowering, ir/reuse.py): its record of this build's bodies, and what the
    # analyses of its parts found (syncheck/analysis_reuse.py). None elsewhere.
    kept: DocumentStore | None = field(default=None, repr=False, compare=False)
    _owners: dict[int, Function] | None = field(default=None, repr=False)
    _other_lines: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _pure: dict[str, bool] = field(default_factory=dict, repr=False)
    _argument_functions: dict[str, bool] = field(default_factory=dict, repr=False)
    _global_keys: set[str] | None = field(default=None, repr=False)
    _field_writes: dict[str, int] | None = field(default=None, repr=False)
    _host_written: set[str] | None = field(default=None, repr=False)
    _reference_writes: dict[tuple[str, str], bool] = field(default_factory=dict, repr=False)

    def field_write_counts(self) -> dict[str, int]:
        """Field key -> how many places in the functions' bodies assign, step or take the
        address of that field (of any object): a field written at one place only is set
        there and nowhere else."""
        if self._field_writes is None:
            counts: dict[str, int] = {}
            for fn in self.functions.values():
                if fn.body is None:
                    continue
                for n in fn.body.walk():
                    target = None
                    if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGNING \
                            and n.children:
                        target = n.children[0]
                    elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children:
                        target = n.children[0]
                    while target is not None and target.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and target.children:
                        target = target.children[-1]
                    if target is not None and target.kind == "MEMBER_REF_EXPR" and target.decl is not None:
                        counts[target.decl.key] = counts.get(target.decl.key, 0) + 1
                for key in fn.member_inits:
                    counts[key] = counts.get(key, 0) + 1
            self._field_writes = counts
        return self._field_writes

    def host_written_symbols(self) -> set[str]:
        """Keys of the device variables the file's host code copies into
        (`cudaMemcpyToSymbol(table, ...)`): their initializers do not hold."""
        if self._host_written is None:
            written = set()
            for fn in self.functions.values():
                if fn.body is None:
                    continue
                for n in fn.body.walk():
                    if n.kind == "CALL_EXPR" and n.decl is not None and n.decl.name.startswith("cudaMemcpyToSymbol"):
                        written.update(r.decl.key for arg in n.children[1:2] for r in arg.walk()
                                       if r.kind == "DECL_REF_EXPR" and r.decl is not None)
            self._host_written = written
        return self._host_written

    def global_value_keys(self) -> set[str]:
        """Keys of the global and __constant__ variables the functions read."""
        if self._global_keys is None:
            self._global_keys = {n.decl.key for fn in self.functions.values() if fn.body is not None
                                 for n in fn.body.walk() if n.kind == "DECL_REF_EXPR" and n.decl is not None
                                 and n.decl.storage in ("global", "constant")}
        return self._global_keys

    def written_reference_arguments(self, call: Node) -> set[int] | None:
        """Positions of the call's arguments the callee may assign: those bound to non-const
        reference parameters (reference_argument_positions), less the parameters a callee
        whose body is here only reads (`initAllocator(uint32_t& tid, uint32_t& lane)` that
        reads both). None when the callee's type is not known (any argument may be one)."""
        positions = reference_argument_positions(call)
        if not positions:
            return positions
        callee = self.resolve_call(call.decl) if call.decl is not None else None
        if callee is None or callee.body is None or callee.is_lambda:
            return positions
        return {i for i in positions if i >= len(callee.params) or self._assigns_reference(callee, callee.params[i].key)}

    def _assigns_reference(self, fn: Function, key: str) -> bool:
        if (fn.key, key) not in self._reference_writes:
            self._reference_writes[(fn.key, key)] = _may_assign_through(fn.body, key)
        return self._reference_writes[(fn.key, key)]

    def is_pure(self, fn: Function) -> bool:
        """A constexpr function that reads no thread index, block shape or shared memory (nor
        do the functions it calls, a few calls deep): its value depends on its arguments
        alone."""
        return fn.is_constexpr and self._reads_no_thread_state(fn, 0)

    def computes_from_arguments(self, fn: Function) -> bool:
        """A function (constexpr or not) whose result depends on its arguments alone: scalar
        parameters passed by value, no memory but its own locals (no pointer, reference,
        global, __constant__ or shared variable, no asm), and only such functions called
        (`bit_reverse(i, bits)`, a loop over the bits of its argument)."""
        if fn.key not in self._argument_functions:
            self._argument_functions[fn.key] = False  # a recursive call is decided by its first visit
            self._argument_functions[fn.key] = self._reads_arguments_alone(fn)
        return self._argument_functions[fn.key]

    def _reads_arguments_alone(self, fn: Function) -> bool:
        if fn.body is None or not fn.params or any(_not_a_scalar(p.type) for p in fn.params):
            return False
        for n in fn.body.walk():
            if n.kind == "RETURN_STMT" and (not n.children or _not_a_scalar(n.children[0].type)):
                return False
            if n.kind in ("ASM_STMT", "CXX_THIS_EXPR", "LAMBDA_EXPR"):
                return False
            d = n.decl
            if d is None:
                continue
            if n.kind == "CALL_EXPR":
                callee = self.resolve_call(d)
                if callee is None or callee is fn or not self.computes_from_arguments(callee):
                    return False
            elif n.kind in ("DECL_REF_EXPR", "VAR_DECL") and d.storage not in ("local", "param", "enum", "function",
                                                                                "template") \
                    and not (d.storage in ("global", "constant") and d.value is not None):
                return False  # memory other threads or the host see: not the arguments alone
            elif n.kind == "MEMBER_REF_EXPR" or n.kind == "VAR_DECL" and _not_a_scalar(d.type) \
                    and "[" not in d.type:
                return False
        return True

    def _reads_no_thread_state(self, fn: Function, depth: int) -> bool:
        if fn.key in self._pure:
            return self._pure[fn.key]
        self._pure[fn.key] = False  # a recursive call is decided by its first visit
        if fn.body is None:
            # no body to look at: a constexpr one is evaluated by the compiler, from its
            # arguments; any other could read anything
            pure = fn.is_constexpr
        else:
            pure = depth < 4
        for n in fn.body.walk() if pure and fn.body is not None else ():
            d = n.decl
            if n.kind == "ASM_STMT":
                pure = False
            elif d is None:
                continue
            elif d.storage in ("builtin", "shared"):
                pure = False
            elif n.kind == "CALL_EXPR":
                callee = self.resolve_call(d)
                if callee is None:
                    pure = not d.in_model  # CUDA's own functions: warp votes, shuffles, clocks
                else:
                    pure = callee is fn or self._reads_no_thread_state(callee, depth + 1)
            if not pure:
                break
        self._pure[fn.key] = pure
        return pure

    def owner(self, node: Node) -> Function | None:
        """The function of another file (a header) whose body holds the node; None for nodes
        of this file's own functions."""
        if self._owners is None:
            self._owners = {n.id: fn for fn in self.functions.values()
                            if fn.body is not None and not fn.in_main_file for n in fn.body.walk()}
        return self._owners.get(node.id)

    def text(self, node: Node) -> str:
        """The source text of an expression, for messages, from the file that holds it. An
        access a macro writes (`ACCUMULATE()` expanding to `acc += tile[k]`) is spelled from
        the expression itself, with the macro's use after it."""
        text = source_text(self.lines_of(node), node)
        if node.kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR"):
            written = expression_text(node)
            base = _base_name(node)
            if written and base and base not in text:
                return f"{written} (in {text})" if text else written
        return text

    def lines_of(self, node: Node) -> list[str]:
        """The source lines of the file that holds the node."""
        owner = self.owner(node)
        if owner is None:
            return self.source_lines
        lines = self._other_lines.get(owner.file)
        if lines is None:
            try:
                data = read_regular_file(owner.file)
            except OSError:
                data = b""
            lines = self._other_lines[owner.file] = data.decode("utf-8", errors="replace").splitlines()
        return lines

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions.values() if f.kind == "kernel"]

    def analyzed_generically(self, fn: Function) -> bool:
        """Is this function analyzed as it is written? A template the translation unit
        instantiates is analyzed through its instantiations instead."""
        return fn.key not in self.instantiated

    def device_calls(self) -> dict[str, list[str]]:
        """Callee key -> the keys of the device functions that call it, once per call."""
        out: dict[str, list[str]] = {}
        for fn in self.functions.values():
            if fn.runs_on_device and fn.has_body and fn.body is not None:
                for n in fn.body.walk():
                    if n.kind == "CALL_EXPR":
                        callee = self.resolve_call(n.decl)
                        if callee is not None:
                            out.setdefault(callee.key, []).append(fn.key)
        return out

    def resolve_call(self, decl: Decl | None) -> Function | None:
        """The analyzed function a call goes to (an instantiation, plain, template, method
        or lambda)."""
        if decl is None:
            return None
        fn = self.functions.get(decl.instance) if decl.instance else None
        if fn is None:
            fn = self.functions.get(decl.key)
        if fn is None and decl.name == "operator()":
            fn = self.functions.get(lambda_key(decl.file, decl.line))
        return fn


@dataclass
class LastBuild:
    """What a later build needs of this one to lower only an edited body (ir/body_edit.py):
    the program, the keys of other files' device functions it deferred and those it reached,
    the line of each main-file function's body, the function that holds each lambda, and
    whether every node of the launch sites is a node of a body (None: not known yet)."""

    program: Program
    deferred: frozenset[str]
    reached: frozenset[str]
    body_lines: dict[str, int]
    lambda_owners: dict[str, str]
    sites_in_bodies: bool | None = None


def lambda_key(file: str, line: int) -> str:
    return f"lambda:{file}:{line}"


_GLOBAL_ATTR, _DEVICE_ATTR, _HOST_ATTR = K.CUDAGLOBAL_ATTR.value, K.CUDADEVICE_ATTR.value, K.CUDAHOST_ATTR.value


def template_stand_in(specialization: ci.Cursor) -> tuple[ci.Cursor | None, dict[int, int] | None]:
    """The function template's definition and the values of its integral parameters, for a
    specialization clang declared but did not instantiate (it is referenced only from inside
    uninstantiated template code). Only when every argument is known and at least one is an
    integer (the generic body is analyzed anyway): (None, None) otherwise."""
    template = clang_api.specialized_template(specialization)
    if template is None or template.kind != K.FUNCTION_TEMPLATE:
        return None, None
    pattern = template.get_definition()
    if pattern is None:
        return None, None
    params = [c for c in pattern.get_children() if c.kind in _TEMPLATE_PARAMETER_KINDS]
    arguments = clang_api.template_argument_list(specialization)
    if arguments is None or len(arguments) != len(params):
        return None, None
    bindings: dict[int, int] = {}
    for param, (kind, value) in zip(params, arguments):
        if kind == ci.TemplateArgumentKind.INTEGRAL and param.kind == K.TEMPLATE_NON_TYPE_PARAMETER:
            bindings[param.hash] = value
        elif kind != ci.TemplateArgumentKind.TYPE:
            return None, None
    return (pattern, bindings) if bindings else (None, None)



def _function_kind(cursor: ci.Cursor) -> str:
    attributes = clang_api.function_attribute_kinds(cursor)
    if _GLOBAL_ATTR in attributes:
        return "kernel"
    device, host = _DEVICE_ATTR in attributes, _HOST_ATTR in attributes
    if device:
        return "host_device" if host else "device"
    return "host"


_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)")


def _launching_macros(lines: list[str]) -> tuple[str, ...]:
    """Macros of the file whose expansion launches a kernel (`#define CASE(k) k<<<g, b>>>(...)`),
    directly or through another such macro: a function that uses one launches too."""
    bodies: dict[str, str] = {}
    i = 0
    while i < len(lines):
        m = _DEFINE.match(lines[i])
        if not m:
            i += 1
            continue
        text = [lines[i]]
        while text[-1].rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            text.append(lines[i])
        bodies[m.group(1)] = "\n".join(text)[m.end():]
        i += 1
    found: set[str] = set()
    markers = list(LAUNCH_MARKERS)
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            if name not in found and any(w in body for w in markers):
                found.add(name)
                markers.append(name)
                changed = True
    return tuple(sorted(found))


_VENDORED = frozenset({"third_party", "third-party", "thirdparty", "3rdparty", "vendor", "vendored",
                       "_deps", "external", "extern"})


def _declared_constexpr(tu: ci.TranslationUnit, cursor: ci.Cursor) -> bool:
    """Is `constexpr` among the words before the function's name?"""
    span = ci.SourceRange.from_locations(cursor.extent.start, cursor.location)
    return any(t.spelling in ("constexpr", "consteval") for t in tu.get_tokens(extent=span))


def _vendored(path: str) -> bool:
    """In a vendored-code folder: a library's, not the project's (third_party.py decides the
    same for findings)."""
    return any(part in _VENDORED for part in os.path.normpath(path).split(os.sep))


def _is_project_file(path: str | None) -> bool:
    return path is not None and not path.startswith("/usr/") and "cuda_model" not in path


def written_reference_arguments(program: "Program | None", call: Node) -> set[int] | None:
    """Program.written_reference_arguments where the program is at hand; without it, every
    argument bound to a non-const reference parameter."""
    return program.written_reference_arguments(call) if program is not None else reference_argument_positions(call)


def _may_assign_through(body: Node, key: str) -> bool:
    """Does a function body assign, step or take the address of what the reference parameter
    names (or of a part of it), call a method on it, hand it to another non-const reference,
    bind a reference to it or return it? Reads, and values computed from it, are not."""
    def names_it(n: Node | None) -> bool:
        while n is not None:
            n = strip_wrappers(n, POINTER_WRAPPERS)
            if n.kind == "DECL_REF_EXPR":
                return n.decl is not None and n.decl.key == key
            if n.kind not in ("MEMBER_REF_EXPR", "ARRAY_SUBSCRIPT_EXPR", "PAREN_EXPR") or not n.children:
                return False
            n = n.children[0]
        return False

    for n in body.walk():
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op in _ASSIGNING and n.children \
                or n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--", "&") and n.children:
            if names_it(n.children[0]):
                return True
        elif n.kind == "CALL_EXPR":
            if n.children and n.children[0].kind == "MEMBER_REF_EXPR" and names_it(n.children[0].children[0]
                                                                                  if n.children[0].children else None):
                return True  # a method, which may change its object
            positions = reference_argument_positions(n)
            if any(names_it(arg) and (positions is None or i in positions) for i, arg in enumerate(call_args(n))):
                return True
        elif n.kind == "VAR_DECL" and "&" in (n.type or "") and n.children and names_it(n.children[-1]):
            return True
        elif n.kind == "RETURN_STMT" and n.children and names_it(n.children[0]):
            return True
    return False


class ProgramBuilder:
    def __init__(self, parsed: ParsedFile, reuse: ReusePlan | None = None):
        self.parsed = parsed
        self.lowerer = Lowerer(parsed.tu)
        # Bodies kept from the previous build of this document (incremental lowering).
        self.reuse = reuse
        if reuse is not None:
            self.lowerer._next_id = reuse.store.next_node_id  # kept nodes keep their ids
        self.main = os.path.abspath(parsed.path)
        self.lines = parsed.source.decode("utf-8", errors="replace").splitlines()
        self._macros: dict[str, str] | None = None  # the main file's object-like macros
        self.functions: dict[str, Function] = {}
        self.error_lines = sorted(p.line for p in parsed.errors)
        # Reachability (see _reach): deferred device functions of other files by key, the keys
        # reached, the functions whose bodies were scanned for references.
        self._deferred: dict[str, list[tuple[ci.Cursor, tuple]]] = {}
        self._reached: set[str] = set()
        self._scanned: set[str] = set()
        self._header_lines: dict[str, list[str] | None] = {}
        # File names by libclang's file handle, and whether a name is the main file's.
        self._file_names: dict[int, str] = {}
        self._main_names: dict[str, bool] = {}
        # Where each function appears in the translation unit (see _reorder).
        self._position: tuple = (1 << 60,)
        self._positions_seen: list[None] = []
        self._positions: dict[str, tuple] = {}
        self._templates_by_name: dict[str, list[Decl]] | None = None
        # The line of each main-file function's body (its block-shape pin is read up to there),
        # and the function that holds each lambda (ir/body_edit.py).
        self._body_lines: dict[str, int] = {}
        self._lambda_owners: dict[str, str] = {}
        # Host function templates that launch kernels (directly or through one another) and
        # the launches of their instantiations (see _register_launching_template_uses), and
        # the body of each host function (their uses of those templates are found there).
        self._launching_templates: set[str] = set()
        self._launching_names: set[str] = set()
        self._instance_launches: list[LaunchSite] = []
        self._host_bodies: dict[str, ci.Cursor] = {}
        self._forwarded_nodes: set[int] = set()

    def build(self) -> Program:
        self._collect(self.parsed.tu.cursor)
        self._reach()
        launches: list[LaunchSite] = []
        self._markers = LAUNCH_MARKERS + _launching_macros(self.lines)
        for fn in list(self.functions.values()):
            if fn.kind in ("host", "host_device") and self._may_launch(fn) and fn.body is not None:
                launches.extend(self._launches(fn))
        self._register_launching_template_uses(launches)
        launches.extend(self._forwarded_launches(launches))
        instantiated = self._add_instantiations()
        # Each instantiation of a launching host template launches the kernel's instantiation
        # with its own block shape; the template's own sites stay (they name no instantiation).
        launches.extend(self._instance_launches)
        self._reorder()
        program = Program(self.parsed.path, self.functions, launches, self.lines, instantiated)
        program.forwarded_launch_nodes = self._forwarded_nodes
        program.unreached_library = sum(len(v) for k, v in self._deferred.items()
                                        if k not in self._reached)
        if self.reuse is not None:
            for fn in self.functions.values():
                # decided now, while this translation unit is at hand: a later build after an
                # edit inside one body keeps the other functions (ir/body_edit.py)
                _ = fn.is_constexpr
            self.reuse.finish(self.lowerer, LastBuild(
                program, frozenset(self._deferred), frozenset(self._reached), dict(self._body_lines),
                dict(self._lambda_owners)))
        return program

    def _may_launch(self, fn: Function) -> bool:
        """Can the function's body hold a launch? Main-file functions: their text says; a
        header's functions: the header's text around them (read once per header)."""
        if fn.in_main_file:
            return fn.mentions(*self._markers)  # launches, and the file's launching macros
        text = self._header_text(fn.file, fn.line, fn.end_line)
        return text is None or any(w in text for w in LAUNCH_MARKERS)

    def _header_text(self, path: str, line: int, end_line: int) -> str | None:
        lines = self._header_lines.get(path, False)
        if lines is False:
            try:
                lines = read_regular_file(path, MAX_FILE_BYTES).decode("utf-8", "replace").splitlines()
            except (OSError, UnsafeFileError):
                lines = None  # unknown: assume it may launch
            self._header_lines[path] = lines
        if lines is None:
            return None
        return "\n".join(lines[max(0, line - 1):end_line])

    # -- reachability: device code of other files is lowered only when this file's code uses it --
    def _defer(self, cursor: ci.Cursor) -> None:
        """A device function defined in another file (a header): lowered only if reached.
        Only its key is computed now (most library functions are never reached)."""
        key = self.lowerer.function_key(cursor)
        self._deferred.setdefault(key, []).append((cursor, self._position))

    def _reach(self) -> None:
        """Lower the deferred functions that lowered device code refers to, transitively.
        Lowered bodies are scanned once each (``_scanned``)."""
        while True:
            pending = [fn for fn in list(self.functions.values())
                       if fn.key not in self._scanned and fn.body_node is not None]
            if not pending:
                return
            for fn in pending:
                self._scanned.add(fn.key)
                if not fn.runs_on_device:
                    continue
                refs = [fn.body_node, *fn.member_inits.values()]
                for root in refs:
                    for node in root.walk():
                        decl = node.decl
                        if decl is not None and decl.storage == "function" and decl.key in self._deferred \
                                and decl.key not in self._reached:
                            self._reached.add(decl.key)
                            for cursor, position in self._deferred[decl.key]:
                                self._position = position
                                self._add_function(cursor)

    def _reorder(self) -> None:
        """Functions in the order of the translation unit (as if every function had been
        lowered where it appears), instantiations after them in the order they were found."""
        order = {key: i for i, key in enumerate(self.functions)}
        self.functions = dict(sorted(self.functions.items(),
                                     key=lambda kv: (self._positions.get(kv[0], (1 << 60,)), order[kv[0]])))

    def _add_instantiations(self) -> set[str]:
        """Lower the device-code instantiations that lowered code refers to (launches of
        kernel templates, calls from instantiated or plain code), with their template
        arguments bound, up to a bound per translation unit; and the instantiations of
        launching host templates (see _register_launching_template_uses), up to the same
        bound of their own."""
        templates: set[str] = set()
        done: set[str] = set()
        device = host = 0
        while device < MAX_INSTANTIATIONS:
            pending = [(usr, c) for usr, c in self.lowerer.instantiations.items() if usr not in done]
            if not pending:
                break
            for usr, cursor in pending:
                if device >= MAX_INSTANTIATIONS:
                    break
                done.add(usr)
                if isinstance(cursor, CursorAt):
                    cursor = cursor.found()  # a kept body's reference, found in this parse
                definition, bindings = cursor.get_definition(), None
                if definition is not None and _function_kind(definition) == "host":
                    # host code is not analyzed: only a launching template's instantiation
                    # matters, for its launches (clang instantiated its body)
                    if host < MAX_INSTANTIATIONS and usr not in self.functions \
                            and self._project_definition(definition) \
                            and self.lowerer.function_key(definition) in self._launching_templates:
                        host += 1
                        fn = self._add_launching_instantiation(definition, usr, cursor)
                        if fn is not None:
                            templates.add(fn.instance_of)
                    continue
                device += 1
                if definition is None:
                    # Referenced only from uninstantiated template code, clang made no body:
                    # the template's own body stands in, with the integral arguments bound.
                    definition, bindings = template_stand_in(cursor)
                if definition is None or usr in self.functions:
                    continue
                if not self._project_definition(definition) or _function_kind(definition) == "host":
                    continue
                fn = self._add_function(definition, instance=usr, specialization=cursor,
                                        bindings=bindings)
                if fn is not None:
                    templates.add(fn.instance_of)
            self._reach()
        return templates

    @staticmethod
    def _project_definition(definition: ci.Cursor) -> bool:
        f = definition.location.file
        return f is not None and _is_project_file(f.name) and not definition.location.is_in_system_header

    # -- host function templates that launch: one launch context per instantiation --
    def _register_launching_template_uses(self, launches: list[LaunchSite]) -> None:
        """Register the instantiations of the host function templates that launch kernels
        (`template <int D> void run(...) { k<D><<<g, dim3(32, D / 32)>>>(...); }`, and host
        templates that call one), where host code names them with their template arguments:
        an explicit instantiation (`template void run<128>(...);`) or a call from a plain
        host function (`run<128>(...)`). _add_instantiations then adds each as a host
        function of its own whose launches name the kernel's instantiation and give its
        block shape; the kernel's template arguments are otherwise left free. Only direct
        launches (``launches``): a launch through a helper given the kernel is not followed
        from an instantiation."""
        # a helper that launches the kernel it is given is followed by _forwarded_launches
        given = {site.node.id for sites in self._launching_parameters(launches).values() for _, site in sites}
        templates = {l.host_function for l in launches
                     if l.kernel_key and l.node.id not in given and l.host_function in self.functions
                     and self.functions[l.host_function].is_template}
        if not templates:
            return
        names = {self.functions[key].name for key in templates}
        for _ in range(3):  # host templates that call a launching one, a few levels up
            callers = {fn.key for fn in self.functions.values()
                       if fn.kind == "host" and fn.is_template and fn.key not in templates
                       and self._text_mentions(fn, names)}
            if not callers:
                break
            templates |= callers
            names |= {self.functions[key].name for key in callers}
        self._launching_templates = templates
        self._launching_names = names
        for fn in list(self.functions.values()):
            if fn.kind in ("host", "host_device") and not fn.is_template and fn.instance_of is None:
                self._register_uses_in(fn)

    def _register_uses_in(self, fn: Function) -> None:
        """Register the specializations of launching host templates that fn's body refers to
        (`run<128>(...)`, or a method `op.eval(...)` of a class template's object)."""
        body = self._host_bodies.get(fn.key)
        if body is None or not self._text_mentions(fn, self._launching_names):
            return
        for node in body.walk_preorder():
            if node.kind not in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF, K.MEMBER_REF_EXPR):
                continue
            target = node.referenced
            if target is None or target.kind not in (K.FUNCTION_DECL, K.CXX_METHOD):
                continue
            template = clang_api.written_template(target)  # `Kernel<Op>::Launch<...>`: Kernel's Launch
            if template is not None and template != target \
                    and self.lowerer.function_key(template) in self._launching_templates:
                self.lowerer.function_key(target)  # registers the instantiation

    def _add_launching_instantiation(self, definition: ci.Cursor, usr: str,
                                     specialization: ci.Cursor) -> Function | None:
        """An instantiation of a launching host template, as a host function with its
        launches (whose kernels' instantiations lowering registers) and its own uses of
        other launching templates."""
        fn = self._add_function(definition, instance=usr, specialization=specialization)
        if fn is None or fn.has_errors:
            return fn
        if self._may_launch(fn) and fn.body is not None:
            self._instance_launches.extend(self._launches(fn))
        self._register_uses_in(fn)
        return fn

    def _collect(self, cursor: ci.Cursor, outer_end: int | None = None, in_template: bool = False) -> None:
        """``outer_end``, ``in_template`` (incremental lowering only): where the outermost
        declaration holding the children ends, and whether it is a class template."""
        for child in cursor.get_children():
            kind = child.kind
            if kind in _CONTAINER_KINDS:
                loc = child.location  # one location object: each costs foreign calls
                name = clang_api.location_file(loc, self._file_names)
                if name is not None and (name.startswith(cuda_declaration_prefixes())
                                         or loc.is_in_system_header):
                    continue
                if self.reuse is not None:
                    end = self._outline(child, name)
                    self._collect(child, end if outer_end is None else outer_end,
                                  in_template or kind == K.CLASS_TEMPLATE)
                else:
                    self._collect(child)
            elif kind in _FUNCTION_KINDS and child.is_definition():
                if child.spelling.startswith(INSTANTIATION_REFERENCE):
                    self._explicit_instantiations(child)
                    continue
                loc = child.location
                name = clang_api.location_file(loc, self._file_names)
                if name is None or not _is_project_file(name) or loc.is_in_system_header:
                    continue
                self._position = (0, len(self._positions_seen))
                self._positions_seen.append(None)
                if not self._is_main(name) and _function_kind(child) != "host":
                    self._defer(child)
                elif self.reuse is not None:
                    end = self._outline(child, name)
                    self._add_function(child, outer_end=end if outer_end is None else outer_end,
                                       in_template=in_template or kind == K.FUNCTION_TEMPLATE)
                else:
                    self._add_function(child)

    def _explicit_instantiations(self, reference: ci.Cursor) -> None:
        """The specializations an explicit instantiation creates, through the reference the
        parser put after it: they are then lowered as instantiations the file refers to."""
        for node in reference.walk_preorder():
            if node.kind == K.DECL_REF_EXPR and node.referenced is not None:
                self.lowerer.decl_of(node.referenced)

    def _is_main(self, name: str) -> bool:
        main = self._main_names.get(name)
        if main is None:
            main = self._main_names[name] = os.path.abspath(name) == self.main
        return main

    def _outline(self, cursor: ci.Cursor, name: str | None) -> int:
        """Record a main-file definition or container in the outline; its end offset."""
        extent = cursor.extent
        end = extent.end.offset
        if name is not None and self._is_main(name):
            self.reuse.outline.append((cursor.kind.name, extent.start.offset, end))
        return end

    def _add_function(self, cursor: ci.Cursor, instance: str = "", outer_end: int | None = None,
                      in_template: bool = True, specialization: ci.Cursor | None = None,
                      bindings: dict[int, int] | None = None) -> Function | None:
        """``bindings``: for a template body standing in for a specialization (see
        template_stand_in), the values of its integral template parameters by cursor hash."""
        body_cursor = None
        param_cursors: list[ci.Cursor] = []
        kind = _function_kind(cursor)
        member_refs = []
        pending_member = None
        template_params: list[str] = []
        for c in cursor.get_children():
            if c.kind == K.COMPOUND_STMT:
                body_cursor = c
            elif c.kind in _TEMPLATE_PARAMETER_KINDS:
                template_params.append(c.get_usr() or c.spelling)
            elif c.kind == K.PARM_DECL:
                param_cursors.append(c)
            elif c.kind == K.MEMBER_REF and cursor.kind == K.CONSTRUCTOR:
                pending_member = c
            elif pending_member is not None and c.kind.is_expression():
                member_refs.append((pending_member, c))
                pending_member = None
        if body_cursor is None:
            return None
        loc = cursor.location
        in_main = os.path.abspath(loc.file.name) == self.main
        record = kept = None
        if (self.reuse is not None and in_main and not instance and not in_template
                and not member_refs and outer_end is not None):
            record, kept = self._keep(cursor, self.lowerer.function_key(cursor), body_cursor, outer_end)
        signature = kept.signature if kept is not None else None
        if signature is not None:
            # a kept body's function: its declaration and parameters are the previous build's
            decl = signature.decl
            self.lowerer.remember_decl(cursor, decl)
            params = [Param(name, key, type_) for name, key, type_ in signature.params]
            line, col, end_line = signature.line, signature.col, signature.end_line
        else:
            decl = self.lowerer.decl_of(cursor)
            params = [self._param(c) for c in param_cursors]
            line, col, end_line = loc.line, loc.column, cursor.extent.end.line
            if not any(p.default is not None for p in params):
                signature = KeptSignature(decl, tuple((p.name, p.key, p.type) for p in params),
                                          line, col, end_line)
        if record is not None:
            record.signature = signature
        name = cursor.spelling
        if instance:
            name += clang_api.template_arguments(specialization or cursor)
        fn = Function(
            key=instance or decl.key, name=name, qualified=decl.qualified,
            kind=kind, file=loc.file.name, line=line, col=col,
            end_line=end_line, params=params, body_node=None,
            is_template=cursor.kind == K.FUNCTION_TEMPLATE and not instance, template_params=template_params,
            in_main_file=in_main,
            instance_of=decl.key if instance else None,
            reported=in_main or (bool(instance) and kind == "kernel"
                                 and not _vendored(loc.file.name)),
        )
        if in_main:
            fn.text = "\n".join(self.lines[max(0, fn.line - 1):fn.end_line])
        else:
            fn.text = "<<< cudaLaunch cuLaunch"  # other files' text is not at hand: assume anything
        if in_main:
            body_line = self._body_lines[fn.key] = body_cursor.extent.start.line
            fn.block_dim = self._pinned_block_dim(fn, body_line)
            fn.has_errors = any(fn.line <= ln <= fn.end_line for ln in self.error_lines)
        self.functions[fn.key] = fn
        self._positions.setdefault(fn.key, self._position if not instance else (1 << 60,))
        if fn.has_errors:
            if fn.kind == "host":
                # not analyzed, but its launches are read: clang keeps the statements it
                # could parse, and a launch's shape counts only where it is a constant
                fn._lower = lambda: self.lowerer.lower(body_cursor)
            return fn  # a device body clang could not parse is not analyzed (nor lowered)
        for member, init in member_refs:
            target = self.lowerer.decl_of(member.referenced)
            if target is not None:
                fn.member_inits[target.key] = self.lowerer.lower(init)
                if "&" in (target.type or ""):
                    fn.reference_members.add(target.key)
        fn._constexpr_probe = lambda: _declared_constexpr(self.parsed.tu, cursor)
        if fn.kind in ("host", "host_device"):
            self._host_bodies[fn.key] = body_cursor
        if fn.kind == "host":  # lowered on demand; its lambdas run on the host too
            fn._lower = lambda: self._lower_body(body_cursor, record, kept)
            return fn
        first_lambda = len(self.lowerer.lambdas)
        self.lowerer.template_bindings = bindings or {}
        try:
            fn.body = self._lower_body(body_cursor, record, kept)
        finally:
            self.lowerer.template_bindings = {}
        for lam in self.lowerer.lambdas[first_lambda:]:
            self._add_lambda(lam, fn)
        if fn.kind == "kernel":
            self._launch_bounds(fn, cursor, body_cursor, instance)
        return fn

    def _param(self, cursor: ci.Cursor) -> Param:
        param = Param(cursor.spelling, cursor.get_usr() or cursor.spelling, type_spelling(cursor.type))
        default = next((d for d in cursor.get_children() if d.kind.is_expression()), None)
        if default is not None:
            param.default = self.lowerer.lower(default)
        return param

    def _launch_bounds(self, fn: Function, cursor: ci.Cursor, body_cursor: ci.Cursor, instance: str) -> None:
        """fn.launch_bounds (a number) or fn.launch_bound_expr (over template parameters)."""
        tokens = launch_bounds.bound_argument_tokens(self.parsed.tu, cursor)
        if not tokens:
            return
        tree = launch_bounds.parse(tokens)
        if tree is None:
            return
        if self._macros is None:
            self._macros = launch_bounds.macros_of(self.lines)
        tree = launch_bounds.expand_macros(tree, self._macros if fn.in_main_file else {})
        if tree is None:
            return
        names = launch_bounds.instance_arguments(cursor) if instance else {}
        value = launch_bounds.evaluate(tree, names, launch_bounds.body_call_value(body_cursor))
        if value is not None:
            fn.launch_bounds = value if value > 0 else None
        elif not instance and fn.body is not None:
            fn.launch_bound_expr = launch_bounds.bound_node(tree, fn.body, self._new_node_id)

    def _new_node_id(self) -> int:
        nid = self.lowerer._next_id
        self.lowerer._next_id += 1
        return nid

    def _keep(self, cursor: ci.Cursor, key: str, body_cursor: ci.Cursor,
              outer_end: int) -> tuple[KeptFunction, KeptFunction | None]:
        """This build's record of a function whose body may be kept, and the previous
        build's body when the new text lets this build use it."""
        extent, body_extent = cursor.extent, body_cursor.extent
        start, end, body_start = extent.start.offset, extent.end.offset, body_extent.start.offset
        source = self.parsed.source
        plain = (signature_is_plain(source[start:body_start].decode("utf-8", "replace"))
                 and not has_directive_mark(source[start:end]))
        record = KeptFunction(outer_end=outer_end, body_start=body_start,
                              body_end=body_extent.end.offset, plain=plain, cacheable=True)
        self.reuse.recorded[(key, start, end)] = record
        return record, self.reuse.kept((key, start, end))

    def _lower_body(self, body_cursor: ci.Cursor, record: KeptFunction | None,
                    kept: KeptFunction | None) -> Node:
        """A body: the kept one (replaying what its lowering registered), or lowered now
        (and recorded when ``record`` is given)."""
        if kept is not None:
            for usr, line, column in kept.instance_refs:
                if usr not in self.lowerer.instantiations:
                    self.lowerer.instantiations[usr] = CursorAt(self.parsed.tu, self.parsed.path,
                                                                line, column, usr, body_cursor)
            self.lowerer.lambdas.extend(kept.lambdas)
            record.body, record.lambdas, record.instance_refs = kept.body, kept.lambdas, kept.instance_refs
            self.reuse.reused += 1
            return kept.body
        if record is None:
            return self.lowerer.lower(body_cursor)
        outer_refs, refs = self.lowerer.instance_refs, []
        self.lowerer.instance_refs = refs
        first_lambda = len(self.lowerer.lambdas)
        try:
            body = self.lowerer.lower(body_cursor)
        finally:
            self.lowerer.instance_refs = outer_refs
        record.body, record.lambdas, record.instance_refs = body, self.lowerer.lambdas[first_lambda:], refs
        self.reuse.lowered += 1
        return body

    def _pinned_block_dim(self, fn: Function, body_line: int) -> tuple[int, int, int] | None:
        return pinned_block_dim(self.lines, fn.line, body_line)

    def _add_lambda(self, lam: Node, owner: Function) -> None:
        body = next((c for c in lam.children if c.kind == "COMPOUND_STMT"), None)
        if body is None:
            return
        params = [Param(c.spelling, c.decl.key if c.decl else c.spelling, c.type)
                  for c in lam.children if c.kind == "PARM_DECL"]
        key = lambda_key(owner.file, lam.line)
        self._lambda_owners[key] = owner.key
        kind = "device" if owner.runs_on_device else "host"
        owner_position = self._positions.get(owner.key, (1 << 60,))
        self._positions.setdefault(key, owner_position)
        self.functions[key] = Function(
            key=key, name=f"lambda in {owner.name}", qualified=f"{owner.qualified}::(lambda)",
            kind=kind, file=owner.file, line=lam.line, col=lam.col, end_line=lam.end_line,
            params=params, body_node=body, is_lambda=True, in_main_file=owner.in_main_file,
            block_dim=owner.block_dim, has_errors=owner.has_errors)

    def _launches(self, fn: Function) -> list[LaunchSite]:
        sites = []
        driver_names = _driver_function_names(fn.body)
        # In a template's body, a pointer may hold a dependent specialization of a kernel
        # template (`auto kernel = phases<N>;`): it launches that template.
        pointer_targets = _function_pointer_targets(fn.body, self._kernel_templates() if fn.is_template else None)
        stack: list[tuple[Node, Node | None]] = [(fn.body, None)]
        while stack:
            node, parent = stack.pop()
            stack.extend((c, node) for c in reversed(node.children))
            if node.kind != "CALL_EXPR" or not node.children:
                continue
            callee = node.decl
            ch = node.children
            used = not (parent is None or parent.kind == "COMPOUND_STMT" or (
                parent.kind == "CSTYLE_CAST_EXPR" and parent.type == "void"))
            if (len(ch) >= 2 and ch[1].kind == "CALL_EXPR" and ch[1].decl is not None
                    and ch[1].decl.name in CONFIG_CALLS):
                # A launch through a function pointer launches every kernel assigned to it
                # (the call names the variable, or, as clang resolves some, its first value).
                pointer = strip_wrappers(ch[0], POINTER_WRAPPERS)
                if pointer.kind == "UNARY_OPERATOR" and pointer.op == "*" and pointer.children:
                    pointer = strip_wrappers(pointer.children[0], POINTER_WRAPPERS)
                through = pointer_targets.get(pointer.decl.key) if pointer.kind == "DECL_REF_EXPR" and \
                    pointer.decl is not None else None
                targets = through or (pointer_targets.get(callee.key, [callee]) if callee else [None])
                for kernel in targets:
                    sites.append(LaunchSite(
                        kernel_key=kernel.key if kernel else "", kernel_name=kernel.name if kernel else "?",
                        api="<<<>>>", node=node, host_function=fn.key,
                        config=ch[1].children[1:], args=ch[2:], result_used=used,
                        kernel_instance=kernel.instance if kernel else ""))
            elif callee is not None and callee.name in LAUNCH_APIS:
                args = ch[1:]
                for target in _launched_kernels(callee.name, args, pointer_targets):
                    name = target.name if target else "?"
                    key = target.key if target else ""
                    if target is None and callee.name.startswith("cu") and args:
                        ref = next((n for n in args[0].walk() if n.kind == "DECL_REF_EXPR"), None)
                        if ref is not None and ref.decl is not None:
                            name = driver_names.get(ref.decl.key, "?")
                    sites.append(LaunchSite(
                        kernel_key=key, kernel_name=name, api=callee.name, node=node,
                        host_function=fn.key, args=args, result_used=used,
                        kernel_instance=target.instance if target else "",
                        programmatic=callee.name in ("cudaLaunchKernelEx", "cudaLaunchKernelExC")
                        and fn.mentions(*PROGRAMMATIC_ATTRIBUTES),
                        cooperative_attribute=callee.name in EX_LAUNCH_APIS
                        and fn.mentions(*COOPERATIVE_ATTRIBUTES)))
        return sites


    # -- launches through helpers that launch the kernel they are given --
    def _forwarded_launches(self, direct: list[LaunchSite]) -> list[LaunchSite]:
        """Launches made by a helper that takes the kernel as a parameter and launches it
        (`template <class K, class... A> void run(K k, const cfg &c, A... a) { k<<<c.grid,
        c.block>>>(a...); }`), one per kernel a call of the helper passes, through up to
        three helpers. Where the helper's shape and arguments are its own parameters (or a
        record argument's fields, set by the record's constructor), the site is the call,
        with the caller's expressions: each call gives the launch its own shape. Otherwise
        the site keeps the helper's expressions, which then stand for every call of it."""
        helpers = self._launching_parameters(direct)
        out: list[LaunchSite] = []
        for _ in range(3):
            if not helpers:
                break
            found: dict[str, list[tuple[int, LaunchSite]]] = {}
            names = {self.functions[key].name for key in helpers}
            for caller in list(self.functions.values()):
                if caller.kind not in ("host", "host_device") or not self._text_mentions(caller, names) \
                        or caller.body is None:
                    continue
                pointers = None
                for call in caller.body.walk():
                    if call.kind != "CALL_EXPR" or call.decl is None or call.decl.key not in helpers:
                        continue
                    helper = self.functions[call.decl.key]
                    args = call_args(call)
                    for index, site in helpers[call.decl.key]:
                        if index >= len(args):
                            continue
                        launched = strip_wrappers(args[index], POINTER_WRAPPERS)
                        if launched.kind == "UNARY_OPERATOR" and launched.op == "&" and launched.children:
                            launched = strip_wrappers(launched.children[0], POINTER_WRAPPERS)
                        if launched.kind != "DECL_REF_EXPR" or launched.decl is None:
                            continue
                        forwarded = _forward_site(self.functions, site, helper, caller, call, args, self._new_node)
                        self._forwarded_nodes.add(site.node.id)
                        own = next((i for i, p in enumerate(caller.params) if p.key == launched.decl.key), None)
                        if own is not None:  # the caller passes on a kernel it is given
                            found.setdefault(caller.key, []).append((own, forwarded))
                            continue
                        if pointers is None:
                            pointers = _function_pointer_targets(caller.body, self._kernel_templates())
                        kernels = [launched.decl] if launched.decl.storage == "function" else \
                            self._kernel_templates().get(launched.decl.name, []) \
                            if launched.decl.kind == "OVERLOADED_DECL_REF" else \
                            pointers.get(launched.decl.key, [])
                        for kernel in kernels:
                            out.append(replace(forwarded, kernel_key=kernel.key, kernel_name=kernel.name,
                                               kernel_instance=kernel.instance))
            helpers = found
        return out

    def _kernel_templates(self) -> dict[str, list[Decl]]:
        """Kernel templates by name: what a dependent reference in a template's body
        (`kern<D, N>`, whose arguments are the enclosing template's) names."""
        if self._templates_by_name is None:
            found: dict[str, list[Decl]] = {}
            for fn in self.functions.values():
                if fn.kind == "kernel" and fn.is_template and fn.instance_of is None:
                    found.setdefault(fn.name, []).append(Decl(
                        kind="FUNCTION_TEMPLATE", name=fn.name, key=fn.key, storage="function", type="",
                        qualified=fn.qualified, in_model=False, line=fn.line, file=fn.file))
            self._templates_by_name = found
        return self._templates_by_name

    def _launching_parameters(self, direct: list[LaunchSite]) -> dict[str, list[tuple[int, LaunchSite]]]:
        """Host functions that launch one of their own parameters: key -> (the parameter's
        index, the launch)."""
        out: dict[str, list[tuple[int, LaunchSite]]] = {}
        for site in direct:
            fn = self.functions.get(site.host_function)
            if fn is None:
                continue
            if site.api in ("cudaLaunchKernelEx", "cudaLaunchKernelExC"):
                if len(site.args) < 2:
                    continue
                ref = next((n for n in site.args[1].walk() if n.kind == "DECL_REF_EXPR"), None)
                key = ref.decl.key if ref is not None and ref.decl is not None else ""
                if not any(p.key == key for p in fn.params):
                    continue
                # the shape is in the configuration record: read as a <<<grid, block>>> launch
                # (no shape where the record's fields are not found: any block)
                shape = self._launch_config_fields(fn, site.args[0])
                site = replace(site, kernel_key=key, api="<<<>>>",
                               config=list(shape) if shape else [], args=site.args[2:], kernel_instance="")
            elif site.api != "<<<>>>":
                if site.api not in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel") or not site.args:
                    continue
                ref = next((n for n in site.args[0].walk() if n.kind == "DECL_REF_EXPR"), None)
                key = ref.decl.key if ref is not None and ref.decl is not None else ""
            else:
                key = site.kernel_key
            index = next((i for i, p in enumerate(fn.params) if p.key == key), None)
            if index is not None:
                out.setdefault(fn.key, []).append((index, site))
        return out

    def _launch_config_fields(self, fn: Function, config: Node) -> tuple[Node, Node] | None:
        """(gridDim, blockDim) of the cudaLaunchConfig_t a cudaLaunchKernelEx call is given:
        a local whose fields the function assigns, or a field of a local record that its
        constructor fills (`cfg.blockDim = params.block;` with `params` the constructor's
        argument), rewritten in the function's own expressions."""
        node = strip_wrappers(config, POINTER_WRAPPERS)
        if node.kind == "UNARY_OPERATOR" and node.op == "&" and node.children:
            node = strip_wrappers(node.children[0], POINTER_WRAPPERS)
        if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage == "local":
            fields = _assigned_fields(fn.body, lambda base: base.kind == "DECL_REF_EXPR" and
                                      base.decl is not None and base.decl.key == node.decl.key)
            return _grid_and_block(fields)
        if node.kind != "MEMBER_REF_EXPR" or node.decl is None or not node.children:
            return None
        owner = strip_wrappers(node.children[0])
        if owner.kind != "DECL_REF_EXPR" or owner.decl is None or owner.decl.storage != "local":
            return None
        inits = [n.children[-1] for n in fn.body.walk() if n.kind == "VAR_DECL" and n.decl is not None
                 and n.decl.key == owner.decl.key and n.children]
        if len(inits) != 1:
            return None
        built = _strip_copy(inits[0])
        constructor = self.functions.get(built.decl.key) if built.kind == "CALL_EXPR" and \
            built.decl is not None and built.decl.kind == "CONSTRUCTOR" else None
        if constructor is None or constructor.body is None:
            return None
        member = node.decl.key
        fields = _assigned_fields(constructor.body, lambda base: base.kind == "MEMBER_REF_EXPR" and
                                  base.decl is not None and base.decl.key == member)
        shape = _grid_and_block(fields)
        if shape is None:
            return None
        translate = _ArgumentTranslation(self.functions, constructor, fn, call_args(built), self._new_node)
        out = tuple(translate.expression(x) for x in shape)
        return out if all(x is not None for x in out) else None  # type: ignore[return-value]

    def _new_node(self, like: Node, children: list[Node]) -> Node:
        """A copy of ``like`` over other children (an expression rewritten in another function)."""
        node = Node(self.lowerer._next_id, like.kind)
        self.lowerer._next_id += 1
        for attr in ("spelling", "type", "line", "col", "end_line", "end_col", "start", "end", "decl", "op", "value",
                     "element_bytes"):
            setattr(node, attr, getattr(like, attr))
        node.children = children
        return node

    def _text_mentions(self, fn: Function, names: set[str]) -> bool:
        if fn.in_main_file:
            return fn.mentions(*names)
        text = self._header_text(fn.file, fn.line, fn.end_line)
        return text is None or any(name in text for name in names)


def pinned_block_dim(lines: list[str], line: int, body_line: int) -> tuple[int, int, int] | None:
    """A block shape pinned by a comment from three lines above a function to the line after
    its body's opening line."""
    for ln in range(max(0, line - 4), min(len(lines), body_line + 2)):
        m = _BLOCK_PIN.search(lines[ln])
        if m:
            x, y, z = (int(g) if g else 1 for g in m.groups())
            return (x, y, z)
    return None


def _assigned_fields(body: Node, is_record) -> dict[str, list[Node]]:
    """`r.f = v` in the body, for the records ``is_record`` accepts: field name -> values."""
    out: dict[str, list[Node]] = {}
    for n in body.walk():
        if n.kind == "BINARY_OPERATOR" and n.op == "=" and len(n.children) == 2:
            target, value = n.children
        elif n.kind == "CALL_EXPR" and n.decl is not None and n.decl.name == "operator=" and len(n.children) == 3:
            target, value = n.children[0], n.children[2]  # a record's assignment (`cfg.blockDim = b`)
        else:
            continue
        target = strip_wrappers(target)
        if target.kind == "MEMBER_REF_EXPR" and target.children and is_record(strip_wrappers(target.children[0])):
            out.setdefault(target.spelling, []).append(value)
    return out


def _grid_and_block(fields: dict[str, list[Node]]) -> tuple[Node, Node] | None:
    grid, block = fields.get("gridDim", []), fields.get("blockDim", [])
    return (grid[0], block[0]) if len(grid) == 1 and len(block) == 1 else None


def _forward_site(functions: dict[str, Function], site: LaunchSite, helper: Function, caller: Function,
                  call: Node, args: list[Node], new_node=None) -> LaunchSite:
    """The helper's launch seen from one call of it: its shape and kernel arguments in the
    caller's expressions, or, where they are not all written in the helper's parameters,
    the helper's own launch."""
    translate = _ArgumentTranslation(functions, helper, caller, args, new_node)
    if site.api == "<<<>>>":
        config = [translate.expression(c) for c in site.config[:2]]
        kernel_args = translate.arguments(site.args)
        if all(c is not None for c in config) and kernel_args is not None:
            return replace(site, node=call, host_function=caller.key,
                           config=config + list(site.config[2:]), args=kernel_args)
    elif len(site.args) > 2:
        shape = [translate.expression(a) for a in site.args[1:3]]
        if all(c is not None for c in shape):
            return replace(site, node=call, host_function=caller.key, args=[site.args[0], *shape, *site.args[3:]])
    return site


class _ArgumentTranslation:
    """A helper's expressions rewritten in the arguments one call passes it."""

    def __init__(self, functions: dict[str, Function], helper: Function, caller: Function, args: list[Node],
                 new_node=None):
        self.functions = functions
        self.new_node = new_node
        self.params = {p.key: i for i, p in enumerate(helper.params)}
        self.packs = {p.key for p in helper.params if p.type.endswith("...")}
        self.helper = helper
        self.caller = caller
        self.args = args
        self._caller_defs: dict[str, list[Node]] | None = None

    def expression(self, expr: Node) -> Node | None:
        node = _strip_copy(expr)
        if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.key in self.params:
            index = self.params[node.decl.key]
            if node.decl.key in self.packs or index >= len(self.args):
                return None
            return self.args[index]
        if node.kind == "MEMBER_REF_EXPR" and node.decl is not None and node.children:
            base = _strip_copy(node.children[0])
            if base.kind == "DECL_REF_EXPR" and base.decl is not None and base.decl.key in self.params:
                record = self.expression(base)
                if record is None:
                    return None
                found = self._field_of(record, node.decl.key)
                if found is None and self.new_node is not None and _strip_copy(record).kind == "DECL_REF_EXPR":
                    # the same field of the record the caller passes (`p.block` for `params.block`)
                    found = self.new_node(node, [_strip_copy(record)])
                return found
        # literals and globals read the same in the caller
        if any(n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage in ("local", "param")
               for n in node.walk()):
            return None
        return expr

    def arguments(self, kernel_args: list[Node]) -> list[Node] | None:
        out: list[Node] = []
        for arg in kernel_args:
            if arg.kind == "PACK_EXPANSION_EXPR":
                refs = [n for n in arg.walk() if n.kind == "DECL_REF_EXPR" and n.decl is not None
                        and n.decl.key in self.packs]
                if len({n.decl.key for n in refs}) != 1 or len(kernel_args) != 1:
                    return None
                index = self.params[refs[0].decl.key]
                if index != len(self.params) - 1:
                    return None
                out.extend(self.args[index:])  # `std::forward<A>(a)...`: the call's last arguments
                continue
            value = self.expression(arg)
            if value is None:
                return None
            out.append(value)
        return out

    def _field_of(self, record: Node, field_key: str) -> Node | None:
        """The caller's expression a record argument's field holds: through one local
        defined once, to the constructor call that built it and the argument its member
        initializer copies."""
        node = _strip_copy(record)
        if node.kind == "DECL_REF_EXPR" and node.decl is not None and node.decl.storage == "local":
            defs = self._defs().get(node.decl.key, [])
            if len(defs) != 1:
                return None
            node = _strip_copy(defs[0])
        if node.kind != "CALL_EXPR" or node.decl is None or node.decl.kind != "CONSTRUCTOR":
            return None
        constructor = self.functions.get(node.decl.key)
        init = constructor.member_inits.get(field_key) if constructor is not None else None
        if init is None:
            return None
        init = _strip_copy(init)
        if init.kind != "DECL_REF_EXPR" or init.decl is None:
            return None
        index = next((i for i, p in enumerate(constructor.params) if p.key == init.decl.key), None)
        ctor_args = call_args(node)
        if index is None or index >= len(ctor_args):
            return None
        return ctor_args[index]

    def _defs(self) -> dict[str, list[Node]]:
        """Every value the caller gives each of its variables (initializers, assignments,
        writes through their address count as unknown values)."""
        if self._caller_defs is None:
            defs: dict[str, list[Node]] = {}
            for n in self.caller.body.walk():
                if n.kind == "VAR_DECL" and n.decl is not None and n.children:
                    defs.setdefault(n.decl.key, []).append(n.children[-1])
                elif n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR", "UNARY_OPERATOR") \
                        and n.op in ("=", "+=", "-=", "*=", "/=", "&", "++", "--", "post++", "post--") \
                        and n.children:
                    target = strip_wrappers(n.children[0])
                    if target.kind == "DECL_REF_EXPR" and target.decl is not None:
                        defs.setdefault(target.decl.key, []).append(n)
            self._caller_defs = defs
        return self._caller_defs


def _strip_copy(node: Node) -> Node:
    """Through parentheses, conversions and copies (`dim3(c.block)`, a temporary's copy)."""
    while True:
        node = strip_wrappers(node, POINTER_WRAPPERS + ("CXX_FUNCTIONAL_CAST_EXPR",))
        if node.kind == "CALL_EXPR" and node.decl is not None and node.decl.kind == "CONSTRUCTOR":
            real = [a for a in node.children if not (a.kind == "UNEXPOSED_EXPR" and not a.children)]
            if len(real) == 1 and node.decl.type.startswith("void (const ") and \
                    node.decl.type.rstrip(" noexcept").endswith("&)") and \
                    node.decl.name in real[0].type.replace("const ", "").split("<")[0]:
                node = real[0]  # a copy or move of the same record
                continue
        return node


def _function_pointer_targets(body: Node, templates: dict[str, list[Decl]] | None = None) -> dict[str, list[Decl]]:
    """Function-pointer variables and the functions assigned to them (`kernel = &transpose;`);
    with ``templates`` (kernel templates by name), also a dependent reference to one in a
    template's body (`kernel = transpose<T, N>;`)."""
    targets: dict[str, list[Decl]] = {}
    for node in body.walk():
        value = None
        if node.kind == "BINARY_OPERATOR" and node.op == "=" and len(node.children) == 2:
            target, value = node.children
        elif node.kind == "VAR_DECL" and node.children:
            target, value = node, node.children[-1]
        if value is None:
            continue
        while target.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and target.children:
            target = target.children[-1]
        if target.decl is None or target.decl.storage not in ("local", "param", "global"):
            continue
        # either arm of a choice between kernels (`auto k = big ? kern<64> : kern<32>;`)
        for ref in _chosen_values(value):
            # a function designator can only initialize a pointer (or reference) to it,
            # whatever name the pointer's type has (`kernel_fn_t k = transpose;`)
            if ref.kind != "DECL_REF_EXPR" or ref.decl is None:
                continue
            if ref.decl.storage == "function":
                assigned = [ref.decl]
            elif templates is not None and ref.decl.kind == "OVERLOADED_DECL_REF":
                assigned = templates.get(ref.decl.name, [])
            else:
                continue
            known = targets.setdefault(target.decl.key, [])
            for decl in assigned:  # (two instantiations of one template are two kernels)
                if all((d.key, d.instance) != (decl.key, decl.instance) for d in known):
                    known.append(decl)
    return targets


def _chosen_values(value: Node) -> list[Node]:
    """The expressions a value may be, through casts, `&` and the arms of `?:`."""
    ref = value
    while ref.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR") and ref.children:
        ref = ref.children[-1]
    if ref.kind == "CONDITIONAL_OPERATOR" and len(ref.children) == 3:
        return _chosen_values(ref.children[1]) + _chosen_values(ref.children[2])
    if ref.kind == "UNARY_OPERATOR" and ref.op == "&" and ref.children:
        ref = ref.children[0]
        while ref.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and ref.children:
            ref = ref.children[-1]
    return [ref]


def _driver_function_names(body: Node) -> dict[str, str]:
    """CUfunction variables filled by cuModuleGetFunction(&f, module, "name")."""
    names = {}
    for node in body.walk():
        if node.kind == "CALL_EXPR" and node.decl is not None and node.decl.name == "cuModuleGetFunction":
            args = node.children[1:]
            if len(args) >= 3:
                target = next((n for n in args[0].walk() if n.kind == "DECL_REF_EXPR"), None)
                literal = next((n for n in args[2].walk() if n.kind == "STRING_LITERAL"), None)
                if target is not None and target.decl is not None and literal is not None:
                    names[target.decl.key] = literal.spelling.strip('"')
    return names


def _launched_kernels(api: str, args: list[Node], pointer_targets: dict[str, list[Decl]]) -> list[Decl | None]:
    """The kernels a launch API call names: the first function reference among its
    arguments, or what the function pointer there holds (`(void*)kernel`); [None] if unknown."""
    candidates = args[1:2] if api in ("cudaLaunchKernelEx", "cudaLaunchKernelExC") else args[:1]
    for arg in candidates:
        for n in arg.walk():
            if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "function":
                return [n.decl]
            if n.kind == "DECL_REF_EXPR" and n.decl is not None and pointer_targets.get(n.decl.key):
                return list(pointer_targets[n.decl.key])
    return [None]


def build_program(parsed: ParsedFile, keep: DocumentStore | None = None) -> Program:
    """The program of a parsed file. ``keep``: the document's store of lowered bodies, used
    and updated (incremental lowering, see ir/reuse.py); a file with parse problems keeps none."""
    if keep is None:
        return ProgramBuilder(parsed).build()
    if parsed.problems:
        keep.forget()
        return ProgramBuilder(parsed).build()
    plan = ReusePlan(keep, parsed.source, parsed.path)
    from syncheck.ir.body_edit import build_after_body_edit  # it builds on this module
    try:
        program = build_after_body_edit(parsed, keep, plan) or ProgramBuilder(parsed, plan).build()
    except ReuseMismatch:
        keep.forget()  # lower everything afresh (and keep that)
        program = ProgramBuilder(parsed, ReusePlan(keep, parsed.source, parsed.path)).build()
    program.kept = keep
    return program


def _base_name(node: Node) -> str | None:
    """The variable an access names first (`tile` in `tile[i][j]`, `s` in `s.data[i]`)."""
    while node.children and node.kind in ("ARRAY_SUBSCRIPT_EXPR", "MEMBER_REF_EXPR", "UNEXPOSED_EXPR",
                                          "PAREN_EXPR", "UNARY_OPERATOR"):
        node = node.children[0]
    return node.spelling if node.kind == "DECL_REF_EXPR" else None


def _not_a_scalar(type_: str) -> bool:
    """A pointer, reference, array or class type (what a function could reach memory through,
    or an object whose fields it could read)."""
    return any(c in (type_ or "") for c in "*&[") or (type_ or "").startswith(("struct ", "class "))
