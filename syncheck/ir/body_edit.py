"""A build after an edit inside one function body that lowers only that body (the language server).

With kept bodies (ir/reuse.py) a build after an edit still walks the whole translation unit:
every definition's cursors and signature, reachability, launches, instantiations. When the
edit lies inside the body of one plain kernel or device function G (ReusePlan.edited: no
template, no deduced return type, not constexpr, no preprocessor line in the new text), nothing
that walk finds can change but G: code inside a body declares nothing other code can see (the
same argument as ir/reuse.py's), and what the rest of the build derives from G is checked here.
The previous build's program is then taken with G lowered again from the new translation unit
and everything after the edit moved (ir/reuse.Shift: places, line numbers, the offsets in
local USRs), as a full build would give it. When the text did not change at all, the previous
program is taken as it is.

Only when all of these hold (else the full build; nothing is changed before they are checked):
* the new parse has no problems and the previous build kept its program (it had none either);
* G is a kernel or device-only function of the file (a host or host-device body may launch
  kernels or hold host values: launches and host values are read from them), not a template,
  an instantiation or a lambda, with no member initializers; the program holds no lambda
  (their keys name lines);
* G is found again where it was, with its definition and body ending where the edit moved
  them (an edit that closed the body or opened another definition ends it elsewhere);
* the new body holds no lambda, refers to the same instantiations in the same order (they
  are lowered in the order lowered code first refers to them), and refers to every function
  of another file the old body referred to, and to no such function the previous build did
  not reach (other files' device functions are lowered only when this file's code reaches
  them);
* where the edit moves what follows it: every node of the launch sites is a node of a body
  (a site rewritten through a helper's parameters holds nodes of its own).

Everything else the build derives is recomputed: the functions' text and their block-shape pins
(a pin comment is read from three lines above a function: it may lie in G's body).
Functions whose body is lowered only when asked (host code) find their definition again in the
new translation unit when they are; every function's constexpr probe was decided during the
build that made it.
"""

from __future__ import annotations

import clang.cindex as ci

from syncheck.ir.nodes import Node
from syncheck.ir.program import (_CONTAINER_KINDS, _FUNCTION_KINDS, Function, LastBuild, Program,
                                 ProgramBuilder, lambda_key, pinned_block_dim)
from syncheck.ir.reuse import DocumentStore, KeptFunction, ReusePlan, Shift
from syncheck.frontend.parse import ParsedFile

K = ci.CursorKind


def build_after_body_edit(parsed: ParsedFile, store: DocumentStore, plan: ReusePlan) -> Program | None:
    """The program of the new text built from the previous one (see the module), or None
    where it cannot be (then nothing was changed: build in full)."""
    last: LastBuild | None = store.last_build
    if last is None or parsed.problems or not (plan.unchanged or plan.edited is not None):
        return None
    previous = last.program
    if any(callable(fn._constexpr_probe) for fn in previous.functions.values()):
        return None
    shift = plan.shift
    if shift is not None and not _sites_in_bodies(last):
        return None
    builder = ProgramBuilder(parsed, plan)
    edited = None
    if plan.edited is not None:
        edited = _edited_function(builder, store, plan, last)
        if edited is None:
            plan.recorded.clear()  # the full build records afresh with the same plan
            plan.lowered = 0
            return None
    # Checked: from here on the previous build's objects are moved into this one.
    edited_key = plan.edited[0] if plan.edited is not None else None
    moved = _move_functions(previous, shift, edited_key) if shift is not None else set()
    functions: dict[str, Function] = {}
    for fn in previous.functions.values():
        if fn.key == edited_key:
            fn = edited
        functions[fn.key] = fn
    records = _moved_records(store, plan, shift, moved)
    by_usr = {usr: record for (usr, _, _), record in records.items()}
    body_lines = dict(last.body_lines) if shift is None else \
        {shift.key(k): shift.line(line) for k, line in last.body_lines.items()}
    body_lines.update(builder._body_lines)
    owners = last.lambda_owners if shift is None else \
        {_lambda_key(shift, k): shift.key(owner) for k, owner in last.lambda_owners.items()}
    lines = builder.lines
    for fn in functions.values():
        if fn.in_main_file and fn is not edited and not fn.is_lambda:
            fn.text = "\n".join(lines[max(0, fn.line - 1):fn.end_line])
            if fn.key in body_lines:
                fn.block_dim = pinned_block_dim(lines, fn.line, body_lines[fn.key])
        if fn._lower is not None:
            fn._lower = _LowerAgain(builder, fn, by_usr.get(fn.key))
    for fn in functions.values():  # a lambda's pin is its owner's, decided above
        if fn.is_lambda and fn.in_main_file:
            owner = functions.get(owners.get(fn.key, ""))
            if owner is not None:
                fn.block_dim = owner.block_dim
    instantiated = set(previous.instantiated) if shift is None else {shift.key(k) for k in previous.instantiated}
    program = Program(parsed.path, functions, previous.launches, lines, instantiated)
    program.unreached_library = previous.unreached_library
    plan.recorded = records
    plan.outline = plan.expected_outline
    plan.reused = sum(1 for record in records.values() if record.body is not None) - (edited is not None)
    plan.body_edit = True
    plan.finish(builder.lowerer, LastBuild(program, last.deferred, last.reached, body_lines, owners,
                                           last.sites_in_bodies))
    return program


def _edited_function(builder: ProgramBuilder, store: DocumentStore, plan: ReusePlan,
                     last: LastBuild) -> Function | None:
    """G lowered again from the new translation unit, when the edit changed nothing of the
    build outside its body (see the module); None otherwise."""
    usr, start, end = plan.edited
    old = last.program.functions.get(usr)
    old_record = store.functions.get(plan.edited)
    if old is None or old_record is None or old.kind not in ("kernel", "device") or not old.in_main_file \
            or old.is_template or old.instance_of is not None or old.is_lambda or old.member_inits \
            or old.has_errors or old.body_node is None or old_record.lambdas:
        return None
    cursor = _definition_at(builder.parsed.tu, old.file, old.line, old.col)
    if cursor is None:
        return None
    shift = plan.shift
    delta = shift.delta if shift is not None else 0
    outer_end = shift.offset(old_record.outer_end) if shift is not None else old_record.outer_end
    fn = builder._add_function(cursor, outer_end=outer_end, in_template=False)
    record = plan.recorded.get((usr, start, end + delta))
    if fn is None or record is None or fn.key != usr or fn.kind != old.kind or fn.has_errors \
            or record.body_start != old_record.body_start or record.body_end != old_record.body_end + delta \
            or builder.lowerer.lambdas or record.body is None:
        return None
    old_refs = list(dict.fromkeys(shift.key(u) if shift else u for u, _, _ in old_record.instance_refs))
    new_refs = list(dict.fromkeys(u for u, _, _ in record.instance_refs))
    if old_refs != new_refs or list(builder.lowerer.instantiations) != new_refs:
        return None
    old_reached, new_reached = _other_files_functions(old, last), _other_files_functions(fn, last)
    if not old_reached <= new_reached or not new_reached <= last.reached:
        return None
    _ = fn.is_constexpr  # decided while this translation unit is at hand
    return fn


def _other_files_functions(fn: Function, last: LastBuild) -> set[str]:
    """The deferred functions (other files' device code) a body refers to."""
    roots = [fn.body_node, *fn.member_inits.values()]
    return {n.decl.key for root in roots if root is not None for n in root.walk()
            if n.decl is not None and n.decl.storage == "function" and n.decl.key in last.deferred}


def _definition_at(tu: ci.TranslationUnit, file: str, line: int, column: int) -> ci.Cursor | None:
    """The function definition whose name is at (line, column) of ``file``."""
    cursor = ci.Cursor.from_location(tu, tu.get_location(file, (line, column)))
    if cursor is not None and cursor.kind in _FUNCTION_KINDS and cursor.is_definition():
        location = cursor.location
        if (location.line, location.column) == (line, column) and location.file is not None \
                and location.file.name == file:
            return cursor
    return None


def _search_definition(cursor: ci.Cursor, file: str, line: int, column: int) -> ci.Cursor | None:
    """The same, by walking the declarations (where the cursor at that place is another one)."""
    for child in cursor.get_children():
        if child.kind in _CONTAINER_KINDS:
            found = _search_definition(child, file, line, column)
            if found is not None:
                return found
        elif child.kind in _FUNCTION_KINDS and child.is_definition():
            location = child.location
            if (location.line, location.column) == (line, column) and location.file is not None \
                    and location.file.name == file:
                return child
    return None


class _LowerAgain:
    """A function of the previous build whose body was not asked for yet (host code): its
    definition found again in this build's translation unit when it is."""

    def __init__(self, builder: ProgramBuilder, fn: Function, record: KeptFunction | None):
        self.builder, self.file, self.line, self.column = builder, fn.file, fn.line, fn.col
        self.record = record

    def __call__(self) -> Node:
        tu = self.builder.parsed.tu
        cursor = _definition_at(tu, self.file, self.line, self.column) or \
            _search_definition(tu.cursor, self.file, self.line, self.column)
        body = next((c for c in cursor.get_children() if c.kind == K.COMPOUND_STMT), None) \
            if cursor is not None else None
        if body is None:
            raise LookupError(f"the definition at {self.file}:{self.line}:{self.column} is not "
                              f"in the new translation unit")
        return self.builder._lower_body(body, self.record, None)


def _sites_in_bodies(last: LastBuild) -> bool:
    """Is every node of the launch sites a node of the body of the function that launches
    (so moved with it)? The launches stay from build to build: decided once."""
    if last.sites_in_bodies is None:
        program = last.program
        inside: dict[str, set[int]] = {}
        found = True
        for site in program.launches:
            fn = program.functions.get(site.host_function)
            if fn is None or fn.body_node is None:
                found = False
                break
            ids = inside.get(fn.key)
            if ids is None:
                ids = inside[fn.key] = {id(n) for n in fn.body_node.walk()}
            if any(id(n) not in ids for root in (site.node, *site.config, *site.args) for n in root.walk()):
                found = False
                break
        last.sites_in_bodies = found
    return last.sites_in_bodies


def _lambda_key(shift: Shift, key: str) -> str:
    """A lambda's key (it names its line) where the edit moved it."""
    head, _, line = key.rpartition(":")
    if head == f"lambda:{shift.path}" and line.isdigit():
        return lambda_key(shift.path, shift.line(int(line)))
    return key


def _move_functions(program: Program, shift: Shift, edited: str | None) -> set[int]:
    """Move every function's nodes and names in place, and the launch sites' (``edited``: the
    edited function, lowered again); the ids of the bodies moved. Main-file nodes move; other
    files' nodes keep their places, but what they refer to in the main file moves. A lambda's
    body is its owner's."""
    moved: set[int] = set()
    for fn in program.functions.values():
        if fn.key == edited:
            continue
        roots = [] if fn.body_node is None or fn.is_lambda else [fn.body_node]
        roots.extend(fn.member_inits.values())
        roots.extend(p.default for p in fn.params if p.default is not None)
        if fn.launch_bound_expr is not None:
            roots.append(fn.launch_bound_expr)
        shift.nodes(roots, places=fn.in_main_file)
        moved.update(id(root) for root in roots)
        fn.key = _lambda_key(shift, fn.key) if fn.is_lambda else shift.key(fn.key)
        if fn.instance_of is not None:
            fn.instance_of = shift.key(fn.instance_of)
        fn.template_params = [shift.key(k) for k in fn.template_params]
        fn.name, fn.qualified = shift.text(fn.name), shift.text(fn.qualified)
        if fn.file == shift.path:
            fn.line, fn.end_line = shift.line(fn.line), shift.line(fn.end_line)
        for p in fn.params:
            p.key, p.type = shift.key(p.key), shift.text(p.type)
    for site in program.launches:
        site.kernel_key, site.host_function = shift.key(site.kernel_key), shift.key(site.host_function)
        site.kernel_instance, site.kernel_name = shift.key(site.kernel_instance), shift.text(site.kernel_name)
    return moved


def _moved_records(store: DocumentStore, plan: ReusePlan, shift: Shift | None, moved_bodies: set[int]) -> dict:
    """The previous build's kept functions where the edit moved them (their bodies were moved
    with the program: ``moved_bodies``), the edited one as this build recorded it; in the
    previous order."""
    out = {}
    for key, record in store.functions.items():
        if key == plan.edited:
            out.update(plan.recorded)
        elif shift is None:
            out[key] = record
        else:
            usr, start, end = key
            moved = KeptFunction(shift.offset(record.outer_end), shift.offset(record.body_start),
                                 shift.offset(record.body_end), record.plain, record.cacheable,
                                 record.body, record.lambdas, record.instance_refs, record.signature)
            shift.record(moved)
            if record.body is not None and id(record.body) not in moved_bodies:
                shift.nodes([record.body])  # a body no function of the program holds
            if shift.lines and record.body is not None and record.outer_end > shift.after:
                # its nodes moved in lines: the analyses' key of it moves with them (analysis_reuse.py)
                known = store.body_keys.pop(id(record.body), None)
                if known is not None:
                    store.moved_body_keys[id(record.body)] = known
            out[(shift.key(usr), shift.offset(start), shift.offset(end))] = moved
    return out
