"""Functions, call graph and host launch sites of one translation unit."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import clang.cindex as ci

from syncheck.frontend import clang_api
from syncheck.frontend.cuda_headers import cuda_declaration_prefixes
from syncheck.frontend.parse import INSTANTIATION_REFERENCE, ParsedFile
from syncheck.ir.calls import source_text
from syncheck.ir.nodes import Decl, Lowerer, Node
from syncheck.ir.reuse import (CursorAt, DocumentStore, KeptFunction, ReuseMismatch, ReusePlan,
                               has_directive_mark, signature_is_plain)
from syncheck.safe_io import MAX_FILE_BYTES, UnsafeFileError, read_regular_file

K = ci.CursorKind

_FUNCTION_KINDS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR,
                   K.CONVERSION_FUNCTION}
_CONTAINER_KINDS = {K.NAMESPACE, K.LINKAGE_SPEC, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
                    K.UNEXPOSED_DECL}
_BLOCK_PIN = re.compile(
    r"syncheck:\s*block[-_ ]?dim\s*[=(]?\s*(\d+)(?:\s*[,x]\s*(\d+))?(?:\s*[,x]\s*(\d+))?", re.I)
# The bound only when it is a plain number: `__launch_bounds__(4 * WARP_SIZE)` is 128, not 4.
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\(\s*(\d+)\s*[,)]")

# Instantiations lowered per translation unit: template-heavy libraries create thousands.
MAX_INSTANTIATIONS = 256

CONFIG_CALLS = {"cudaConfigureCall", "__cudaPushCallConfiguration"}
LAUNCH_APIS = {"cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelEx",
               "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchCooperativeKernel",
               "cuLaunchKernelEx"}


@dataclass
class Param:
    name: str
    key: str
    type: str


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
    is_lambda: bool = False
    # Constructors: the member initializer list, field key -> initializer expression.
    member_inits: dict = field(default_factory=dict)
    launch_bounds: int | None = None
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

    @property
    def body(self) -> Node | None:
        if self.body_node is None and self._lower is not None:
            lower, self._lower = self._lower, None
            self.body_node = lower()
        return self.body_node

    @body.setter
    def body(self, value: Node | None) -> None:
        self.body_node = value

    def mentions(self, *words: str) -> bool:
        """Does the function's source text contain any of the words (cheap, before lowering)?"""
        return any(w in self.text for w in words)

    @property
    def runs_on_device(self) -> bool:
        return self.kind in ("kernel", "device", "host_device")


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


@dataclass
class Program:
    path: str
    functions: dict[str, Function]
    launches: list[LaunchSite]
    source_lines: list[str]

    instantiated: set[str] = field(default_factory=set)  # templates with instantiations
    # Device functions defined in other files (headers, libraries) that nothing in this file's
    # code reaches: not lowered, not analyzed, not counted in coverage (docs/coverage.md).
    unreached_library: int = 0
    # Host data the whole project agrees on: fields of the project's own records whose every
    # assignment in the analyzed files gives one constant (field key -> value; set by the
    # engine's second pass), and the fields whose value this file's analysis asked for.
    field_values: dict[str, int] = field(default_factory=dict)
    fields_asked: set[str] = field(default_factory=set)
    _owners: dict[int, Function] | None = field(default=None, repr=False)
    _other_lines: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def owner(self, node: Node) -> Function | None:
        """The function of another file (a header) whose body holds the node; None for nodes
        of this file's own functions."""
        if self._owners is None:
            self._owners = {n.id: fn for fn in self.functions.values()
                            if fn.body is not None and not fn.in_main_file for n in fn.body.walk()}
        return self._owners.get(node.id)

    def text(self, node: Node) -> str:
        """The source text of an expression, for messages, from the file that holds it."""
        owner = self.owner(node)
        if owner is None:
            return source_text(self.source_lines, node)
        lines = self._other_lines.get(owner.file)
        if lines is None:
            try:
                data = read_regular_file(owner.file)
            except OSError:
                data = b""
            lines = self._other_lines[owner.file] = data.decode("utf-8", errors="replace").splitlines()
        return source_text(lines, node)

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions.values() if f.kind == "kernel"]

    def analyzed_generically(self, fn: Function) -> bool:
        """Is this function analyzed as it is written? A template the translation unit
        instantiates is analyzed through its instantiations instead."""
        return fn.key not in self.instantiated

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


def lambda_key(file: str, line: int) -> str:
    return f"lambda:{file}:{line}"


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
    params = [c for c in pattern.get_children() if c.kind in _TEMPLATE_PARAMETERS]
    try:
        count = specialization.get_num_template_arguments()
    except Exception:  # older bindings
        return None, None
    if count != len(params):
        return None, None
    bindings: dict[int, int] = {}
    for i, param in enumerate(params):
        try:
            kind = specialization.get_template_argument_kind(i)
        except ValueError:  # a parameter pack
            return None, None
        if kind == ci.TemplateArgumentKind.INTEGRAL and param.kind == K.TEMPLATE_NON_TYPE_PARAMETER:
            bindings[param.hash] = specialization.get_template_argument_value(i)
        elif kind != ci.TemplateArgumentKind.TYPE:
            return None, None
    return (pattern, bindings) if bindings else (None, None)


_TEMPLATE_PARAMETERS = {K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TYPE_PARAMETER,
                        K.TEMPLATE_TEMPLATE_PARAMETER}


def _function_kind(cursor: ci.Cursor) -> str:
    device = host = False
    for child in cursor.get_children():
        if child.kind == K.CUDAGLOBAL_ATTR:
            return "kernel"
        if child.kind == K.CUDADEVICE_ATTR:
            device = True
        elif child.kind == K.CUDAHOST_ATTR:
            host = True
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
    markers = ["<<<", "cudaLaunch", "cuLaunch"]
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


def _vendored(path: str) -> bool:
    """In a vendored-code folder: a library's, not the project's (third_party.py decides the
    same for findings)."""
    return any(part in _VENDORED for part in os.path.normpath(path).split(os.sep))


def _is_project_file(path: str | None) -> bool:
    return path is not None and not path.startswith("/usr/") and "cuda_model" not in path


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
        self.functions: dict[str, Function] = {}
        self.error_lines = sorted(p.line for p in parsed.errors)
        # Reachability (see _reach): deferred device functions of other files by key, the keys
        # reached, the functions whose bodies were scanned for references.
        self._deferred: dict[str, list[tuple[ci.Cursor, tuple]]] = {}
        self._reached: set[str] = set()
        self._scanned: set[str] = set()
        self._header_lines: dict[str, list[str] | None] = {}
        # Where each function appears in the translation unit (see _reorder).
        self._position: tuple = (1 << 60,)
        self._positions_seen: list[None] = []
        self._positions: dict[str, tuple] = {}

    def build(self) -> Program:
        self._collect(self.parsed.tu.cursor)
        self._reach()
        launches: list[LaunchSite] = []
        self._markers = ("<<<", "cudaLaunch", "cuLaunch") + _launching_macros(self.lines)
        for fn in list(self.functions.values()):
            if fn.kind in ("host", "host_device") and self._may_launch(fn) and fn.body is not None:
                launches.extend(self._launches(fn))
        instantiated = self._add_instantiations()
        self._reorder()
        program = Program(self.parsed.path, self.functions, launches, self.lines, instantiated)
        program.unreached_library = sum(len(v) for k, v in self._deferred.items()
                                        if k not in self._reached)
        if self.reuse is not None:
            self.reuse.finish(self.lowerer)
        return program

    def _may_launch(self, fn: Function) -> bool:
        """Can the function's body hold a launch? Main-file functions: their text says; a
        header's functions: the header's text around them (read once per header)."""
        if fn.in_main_file:
            return fn.mentions(*self._markers)  # launches, and the file's launching macros
        text = self._header_text(fn.file, fn.line, fn.end_line)
        return text is None or any(w in text for w in ("<<<", "cudaLaunch", "cuLaunch"))

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
        """A device function defined in another file (a header): lowered only if reached."""
        key = self.lowerer.decl_of(cursor).key
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
        arguments bound, up to a bound per translation unit."""
        templates: set[str] = set()
        done: set[str] = set()
        while len(done) < MAX_INSTANTIATIONS:
            pending = [(usr, c) for usr, c in self.lowerer.instantiations.items() if usr not in done]
            if not pending:
                break
            for usr, cursor in pending[:MAX_INSTANTIATIONS - len(done)]:
                done.add(usr)
                definition, bindings = cursor.get_definition(), None
                if definition is None:
                    # Referenced only from uninstantiated template code, clang made no body:
                    # the template's own body stands in, with the integral arguments bound.
                    definition, bindings = template_stand_in(cursor)
                if definition is None or usr in self.functions:
                    continue
                f = definition.location.file
                if f is None or not _is_project_file(f.name) or definition.location.is_in_system_header:
                    continue
                if _function_kind(definition) == "host":
                    continue
                fn = self._add_function(definition, instance=usr, specialization=cursor,
                                        bindings=bindings)
                if fn is not None:
                    templates.add(fn.instance_of)
            self._reach()
        return templates

    def _collect(self, cursor: ci.Cursor, outer_end: int | None = None, in_template: bool = False) -> None:
        """``outer_end``, ``in_template`` (incremental lowering only): where the outermost
        declaration holding the children ends, and whether it is a class template."""
        for child in cursor.get_children():
            kind = child.kind
            if kind in _CONTAINER_KINDS:
                loc = child.location  # one location object: each costs foreign calls
                f = loc.file
                if f is not None and (f.name.startswith(cuda_declaration_prefixes())
                                      or loc.is_in_system_header):
                    continue
                if self.reuse is not None:
                    end = self._outline(child, f)
                    self._collect(child, end if outer_end is None else outer_end,
                                  in_template or kind == K.CLASS_TEMPLATE)
                else:
                    self._collect(child)
            elif kind in _FUNCTION_KINDS and child.is_definition():
                if child.spelling.startswith(INSTANTIATION_REFERENCE):
                    self._explicit_instantiations(child)
                    continue
                loc = child.location
                f = loc.file
                if f is None or not _is_project_file(f.name) or loc.is_in_system_header:
                    continue
                self._position = (0, len(self._positions_seen))
                self._positions_seen.append(None)
                if os.path.abspath(f.name) != self.main and _function_kind(child) != "host":
                    self._defer(child)
                elif self.reuse is not None:
                    end = self._outline(child, f)
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

    def _outline(self, cursor: ci.Cursor, f) -> int:
        """Record a main-file definition or container in the outline; its end offset."""
        extent = cursor.extent
        end = extent.end.offset
        if f is not None and os.path.abspath(f.name) == self.main:
            self.reuse.outline.append((cursor.kind.name, extent.start.offset, end))
        return end

    def _add_function(self, cursor: ci.Cursor, instance: str = "", outer_end: int | None = None,
                      in_template: bool = True, specialization: ci.Cursor | None = None,
                      bindings: dict[int, int] | None = None) -> Function | None:
        """``bindings``: for a template body standing in for a specialization (see
        template_stand_in), the values of its integral template parameters by cursor hash."""
        body_cursor = None
        params: list[Param] = []
        member_refs = []
        pending_member = None
        for c in cursor.get_children():
            if c.kind == K.COMPOUND_STMT:
                body_cursor = c
            elif c.kind == K.PARM_DECL:
                params.append(Param(c.spelling, c.get_usr() or c.spelling, c.type.spelling))
            elif c.kind == K.MEMBER_REF and cursor.kind == K.CONSTRUCTOR:
                pending_member = c
            elif pending_member is not None and c.kind.is_expression():
                member_refs.append((pending_member, c))
                pending_member = None
        if body_cursor is None:
            return None
        decl = self.lowerer.decl_of(cursor)
        loc = cursor.location
        in_main = os.path.abspath(loc.file.name) == self.main
        name = cursor.spelling
        if instance:
            name += clang_api.template_arguments(specialization or cursor)
        fn = Function(
            key=instance or decl.key, name=name, qualified=decl.qualified,
            kind=_function_kind(cursor), file=loc.file.name, line=loc.line, col=loc.column,
            end_line=cursor.extent.end.line, params=params, body_node=None,
            is_template=cursor.kind == K.FUNCTION_TEMPLATE and not instance, in_main_file=in_main,
            instance_of=decl.key if instance else None,
            reported=in_main or (bool(instance) and _function_kind(cursor) == "kernel"
                                 and not _vendored(loc.file.name)),
        )
        if in_main:
            fn.text = "\n".join(self.lines[max(0, fn.line - 1):fn.end_line])
        else:
            fn.text = "<<< cudaLaunch cuLaunch"  # other files' text is not at hand: assume anything
        if in_main:
            header = " ".join(self.lines[max(0, fn.line - 4):body_cursor.extent.start.line])
            bounds = _LAUNCH_BOUNDS.search(header)
            fn.launch_bounds = int(bounds.group(1)) if bounds else None
            fn.block_dim = self._pinned_block_dim(fn, body_cursor.extent.start.line)
            fn.has_errors = any(fn.line <= ln <= fn.end_line for ln in self.error_lines)
        self.functions[fn.key] = fn
        self._positions.setdefault(fn.key, self._position if not instance else (1 << 60,))
        if fn.has_errors:
            return fn  # a body clang could not parse is not analyzed (nor lowered)
        for member, init in member_refs:
            target = self.lowerer.decl_of(member.referenced)
            if target is not None:
                fn.member_inits[target.key] = self.lowerer.lower(init)
        record = kept = None
        if (self.reuse is not None and in_main and not instance and not in_template
                and not member_refs and outer_end is not None):
            record, kept = self._keep(cursor, decl.key, body_cursor, outer_end)
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
        return fn

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
        for ln in range(max(0, fn.line - 4), min(len(self.lines), body_line + 2)):
            m = _BLOCK_PIN.search(self.lines[ln])
            if m:
                x, y, z = (int(g) if g else 1 for g in m.groups())
                return (x, y, z)
        return None

    def _add_lambda(self, lam: Node, owner: Function) -> None:
        body = next((c for c in lam.children if c.kind == "COMPOUND_STMT"), None)
        if body is None:
            return
        params = [Param(c.spelling, c.decl.key if c.decl else c.spelling, c.type)
                  for c in lam.children if c.kind == "PARM_DECL"]
        key = lambda_key(owner.file, lam.line)
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
        pointer_targets = _function_pointer_targets(fn.body)
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
                # A launch through a function pointer launches every kernel assigned to it.
                targets = pointer_targets.get(callee.key, [callee]) if callee else [None]
                for kernel in targets:
                    sites.append(LaunchSite(
                        kernel_key=kernel.key if kernel else "", kernel_name=kernel.name if kernel else "?",
                        api="<<<>>>", node=node, host_function=fn.key,
                        config=ch[1].children[1:], args=ch[2:], result_used=used,
                        kernel_instance=kernel.instance if kernel else ""))
            elif callee is not None and callee.name in LAUNCH_APIS:
                args = ch[1:]
                target = _launched_kernel(callee.name, args)
                name = target.name if target else "?"
                key = target.key if target else ""
                if target is None and callee.name.startswith("cu") and args:
                    ref = next((n for n in args[0].walk() if n.kind == "DECL_REF_EXPR"), None)
                    if ref is not None and ref.decl is not None:
                        name = driver_names.get(ref.decl.key, "?")
                sites.append(LaunchSite(
                    kernel_key=key, kernel_name=name, api=callee.name, node=node,
                    host_function=fn.key, args=args, result_used=used))
        return sites


def _function_pointer_targets(body: Node) -> dict[str, list[Decl]]:
    """Function-pointer variables and the functions assigned to them (`kernel = &transpose;`)."""
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
        ref = value
        while ref.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CSTYLE_CAST_EXPR") and ref.children:
            ref = ref.children[-1]
        if ref.kind == "UNARY_OPERATOR" and ref.op == "&" and ref.children:
            ref = ref.children[0]
            while ref.kind in ("UNEXPOSED_EXPR", "PAREN_EXPR") and ref.children:
                ref = ref.children[-1]
        if target.decl is not None and ref.kind == "DECL_REF_EXPR" and ref.decl is not None \
                and ref.decl.storage == "function" and "(*" in (target.decl.type or ""):
            known = targets.setdefault(target.decl.key, [])
            if all(d.key != ref.decl.key for d in known):
                known.append(ref.decl)
    return targets


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


def _launched_kernel(api: str, args: list[Node]) -> Decl | None:
    """The kernel a launch API call names (first function reference among its arguments)."""
    candidates = args[1:2] if api in ("cudaLaunchKernelEx", "cudaLaunchKernelExC") else args[:1]
    for arg in candidates:
        for n in arg.walk():
            if n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.storage == "function":
                return n.decl
    return None


def build_program(parsed: ParsedFile, keep: DocumentStore | None = None) -> Program:
    """The program of a parsed file. ``keep``: the document's store of lowered bodies, used
    and updated (incremental lowering, see ir/reuse.py); a file with parse problems keeps none."""
    if keep is None:
        return ProgramBuilder(parsed).build()
    if parsed.problems:
        keep.forget()
        return ProgramBuilder(parsed).build()
    try:
        return ProgramBuilder(parsed, ReusePlan(keep, parsed.source, parsed.path)).build()
    except ReuseMismatch:
        keep.forget()  # lower everything afresh (and keep that)
        return ProgramBuilder(parsed, ReusePlan(keep, parsed.source, parsed.path)).build()
