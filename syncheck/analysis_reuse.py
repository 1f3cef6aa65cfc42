"""The file's checks run one part at a time, and a part's results are taken from the previous
analysis of the same document when nothing they depend on changed (the language server, with
incremental lowering: Settings.reuse_lowering; ir/reuse.py keeps the bodies).

Parts: the connected parts of the file's device call graph. Two device functions are in one
part when either refers to the other (a call, a reference, a lambda's call operator), so every
function a kernel reaches, and every function that reaches it, is in the kernel's part; host
functions and launches are seen by every part. The checks see one part at a time through a
view of the program that holds the part's device functions and every host function: what they
find there is what they find in the whole file for those functions. Every file-scope rule
judges device functions one root (a kernel, or a device function no kernel calls) at a time,
with its callees, and what a root's judgement reads from outside its call tree is host code
(launch shapes, host values), the file's declarations, the settings and the project's facts.

What a part's results depend on, and so its key:
* its functions: their declarations (name, kind, place, parameters, pins, flags), their source
  text and the structural key of each lowered body (every node: kind, spelling, type, lines
  and columns, bytes from the start of its function, declaration, value): the same key means
  the same body at the same lines and columns, so the findings come out where they were; a
  function that moved in lines is analyzed again. One moved only in bytes (a longer line in
  a body above it) keeps its key: byte offsets, and those clang writes into the names (USRs)
  of local declarations, count from the function's own start. Nothing the analyses report
  carries a byte offset, and an edit moves everything after it alike (their order stays); a
  part's result that names a declaration by its offset (a field of an unnamed record) is not
  taken;
* the rest of the file, as text (outside_key): the file with the bodies of its *isolated*
  functions blanked out (newlines kept, so that a body that gains a line changes it). An
  isolated function is a kernel or device-only function of the file whose body cannot change
  what other code sees (ir/reuse.py's "plain": no template, no deduced return type, not
  constexpr, no preprocessor line); a body of a host or host-device function stays in this
  text (host code computes launch shapes and host values, for any part), so does every
  template. The included files and parse arguments are the document store's context (a
  change of either starts a new store, with nothing kept);
* the templates the file instantiates, the enabled rules, the block shape given on the
  command line, and the project's launch shapes and host values (the engine's second pass).

So an edit inside the body of one kernel, or of a device helper, changes the key of that
function's part only; an edit anywhere else (host code, a macro, a declaration) changes
outside_key, and every part is analyzed again.

An edit that adds or removes lines inside one isolated body (ir/reuse.Shift: the lines after
it move, nothing else changes) leaves outside_key the same but for that body's newlines: the
previous results are then moved (LineMove): each part's key as the moved text gives it (the
lines of its nodes, declarations and places after the change moved), and its findings, notes,
fixes and places with it. A result whose text holds a number that may be a moved line (a
message naming "line 40", a fix's text) is not moved: that part is analyzed again.

Not identical in one respect: the solver's answers under its resource budget may depend on the
queries its context saw before (analyses/symbolic.fresh_solver_context); a part taken from
the previous analysis spares the queries a fresh analysis would make before the next part, so
a query that needs almost all of the budget might be decided in one analysis and not in the
other. None was seen on the tests' files (they compare with a fresh analysis) or the benchmark's.

Where a launch is made from device code (a host-device function launching a kernel), the file
is analyzed whole, as the command line does.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field, replace

from syncheck.analyses.uniformity import UniformityService
from syncheck.checks.base import CheckContext
from syncheck.diagnostics import Finding
from syncheck.ir.nodes import Decl, Node
from syncheck.ir.program import Function, Program
from syncheck.ir.reuse import DocumentStore
from syncheck.project import Location, kernel_grid_sync, reports_kernel_fact

_ISOLATED_KINDS = ("kernel", "device")


@dataclass
class PartResult:
    """What the checks found in one part, and what their analyses told the file's facts."""

    findings: list[tuple[int, Finding]]     # (the rule's index among the checks run, finding)
    notes: list[tuple[int, str]]            # CheckContext.analysis_notes
    fields_asked: set[str]                  # host record fields whose project value was read
    shape_answers: list[tuple]              # LaunchShapes.local_answers()
    grid_syncs: dict[str, tuple[Location | None, str]] = field(default_factory=dict)


@dataclass
class FileChecks:
    """The merged results of every part, in the shape the engine reports them."""

    findings: list[Finding]
    notes: list[tuple[int, str]]
    grid_syncs: dict[str, tuple[Location | None, str]]
    shape_answers: list[tuple]
    analyzed: int    # parts analyzed now
    reused: int      # parts taken from the previous analysis


def can_analyze_by_parts(program: Program) -> bool:
    """Does the program carry a document store of this very build (incremental lowering),
    and is every launch made from host code?"""
    store = program.kept
    if store is None or store.source is None:
        return False
    return not any(program.functions[launch.host_function].runs_on_device
                   for launch in program.launches)


def device_parts(program: Program, references: dict[str, list]) -> list[list[str]]:
    """The connected parts of the device call graph (function keys, in the program's order);
    ``references``: the declarations each device function's lowered nodes refer to."""
    parent = {key: key for key in references}

    def find(key: str) -> str:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for key, decls in references.items():
        for decl in decls:
            target = program.resolve_call(decl)
            if target is not None and target.key in parent:
                a, b = find(key), find(target.key)
                if a != b:
                    parent[b] = a
    parts: dict[str, list[str]] = {}
    for key in references:
        parts.setdefault(find(key), []).append(key)
    return list(parts.values())


class BodyKey:
    """The structural key of a lowered body: every node as data (kind, spelling, type, lines and
    columns, bytes from ``base``, declaration, value, role, number of children), in walk order.
    Byte offsets (of the nodes, and those clang writes into the USRs of local declarations,
    ``c:file.cu@1234@...``) are taken from ``base``, the function's own place: a body that an
    edit before it moved in bytes but not in lines or columns keeps its key, as the findings
    about it keep their lines and columns. Its hash is computed once."""

    __slots__ = ("data", "_hash", "referring")

    def __init__(self, node: Node, base: int, relative: "RelativeKeys"):
        nodes = list(node.walk())
        self.data = tuple((n.kind, n.spelling, n.type, n.line, n.col, n.end_line, n.end_col,
                           n.start - base, n.end - base, n.op, n.value, n.role,
                           relative.decl(n.decl, base), len(n.children)) for n in nodes)
        self._hash = hash(self.data)
        # the nodes that refer to a declaration (their current ``decl``: a kept body's nodes are
        # updated in place when an edit moves them)
        self.referring = [n for n in nodes if n.decl is not None]

    @classmethod
    def of_data(cls, data: tuple, referring: list) -> "BodyKey":
        """A key from its data and its referring nodes (a moved copy of another key)."""
        key = cls.__new__(cls)
        key.data, key._hash, key.referring = data, hash(data), referring
        return key

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, BodyKey) and self._hash == other._hash
                                 and self.data == other.data)


class RelativeKeys:
    """Declarations and USRs with the main file's byte offsets taken from a base offset."""

    def __init__(self, path: str):
        self._offset = re.compile(r"(?<=c:)" + re.escape(os.path.basename(path)) + r"@(\d+)")

    def usr(self, usr: str, base: int) -> str:
        if "@" not in usr or not self._offset.search(usr):
            return usr
        return self._offset.sub(lambda m: m.group(0)[:-len(m.group(1))] + str(int(m.group(1)) - base), usr)

    def names_offsets(self, result: "PartResult") -> bool:
        """Does a part's result name a declaration of the main file by its byte offset (a
        field of an unnamed record)?"""
        return any(self._offset.search(key) for key in result.fields_asked) or \
            any(self._offset.search(answer[0]) for answer in result.shape_answers)

    def decl(self, decl: Decl | None, base: int):
        if decl is None:
            return None
        return (decl.kind, decl.name, self.usr(decl.key, base), decl.storage, decl.type,
                decl.qualified, decl.in_model, decl.line, decl.file, decl.value, decl.is_const,
                self.usr(decl.instance, base))


def _body_key(store: DocumentStore, keys: dict, node: Node, base: int, relative: RelativeKeys) -> BodyKey:
    """BodyKey, remembered for kept bodies (the same Node objects from build to build; ir/reuse.py
    drops a kept body's key from the store when an edit moves it in lines)."""
    known = store.body_keys.get(id(node))
    if known is not None and known[0] is node and known[1] == (node.start - base, node.line, node.end_line):
        keys[id(node)] = known
        return known[2]
    key = BodyKey(node, base, relative)
    keys[id(node)] = (node, (node.start - base, node.line, node.end_line), key)
    return key


def function_key(store: DocumentStore, keys: dict, fn: Function, relative: RelativeKeys) -> tuple:
    """A device function's declaration, text and lowered nodes, as data (byte offsets taken
    from the start of its body)."""
    base = fn.body.start if fn.body is not None else 0
    params = tuple((p.name, relative.usr(p.key, base), p.type) for p in fn.params)
    return (fn.key, fn.name, fn.qualified, fn.kind, fn.file, fn.line, fn.col, fn.end_line, params,
            fn.is_template, fn.is_lambda, fn.launch_bounds, fn.block_dim, fn.has_errors,
            fn.in_main_file, fn.reported, fn.instance_of, fn.text,
            tuple((relative.usr(k, base), _body_key(store, keys, v, base, relative), k in fn.reference_members)
                  for k, v in sorted(fn.member_inits.items())),
            _body_key(store, keys, fn.body, base, relative) if fn.body is not None else None)


def _references(keys: dict, fn: Function) -> list[Decl]:
    """The declarations a function's lowered nodes refer to (calls, references, lambdas);
    ``keys``: this analysis's body keys (function_key made them)."""
    roots = [fn.body] if fn.body is not None else []
    roots.extend(fn.member_inits.values())
    return [n.decl for root in roots for n in keys[id(root)][2].referring]


def outside_key(program: Program, store: DocumentStore, settings_key: tuple,
                keep_lines: bool = True) -> tuple:
    """What every part's results depend on besides its own functions (see the module); with
    ``keep_lines`` false, the isolated bodies are dropped whole (their newlines too)."""
    source = store.source
    spans = []
    for (usr, _start, _end), kept in store.functions.items():
        fn = program.functions.get(usr)
        if fn is not None and fn.kind in _ISOLATED_KINDS and fn.in_main_file and kept.plain \
                and not fn.is_template and fn.instance_of is None:
            spans.append((kept.body_start, kept.body_end))
    pieces, at = [], 0
    for start, end in sorted(spans):
        if start < at:  # nested (a method's body inside a class inside a body): the outer one
            continue
        pieces.append(source[at:start])
        if keep_lines:
            pieces.append(b"\n" * source.count(b"\n", start, end))
        at = end
    pieces.append(source[at:])
    return (settings_key, tuple(sorted(program.instantiated)), b"\x00".join(pieces))


def run_by_parts(program: Program, path: str, checks: list[tuple[int, type]],
                 make_service, settings_key: tuple) -> FileChecks:
    """Run ``checks`` ((index, check class), file scope) part by part, taking a part's results
    from the store when its key is the same as in the previous analysis. ``make_service``:
    the uniformity service of a program (the settings' block shape and project launches)."""
    store = program.kept
    outside = outside_key(program, store, settings_key)
    flat = outside_key(program, store, settings_key, keep_lines=False)
    if store.outside_key == outside:
        previous = store.part_results
    elif (store.last_move is not None and store.parts_build == store.builds - 1
          and store.outside_flat == flat):
        # lines were added or removed inside one isolated body: everything else is as it was,
        # the lines after the change moved
        move = LineMove(store.last_move, program.path)
        previous = moved_results(store.part_results, move)
        # a kept body the build moved holds the same nodes, moved: its key is the moved key
        for node, (start, _line, _end_line), key in store.moved_body_keys.values():
            store.body_keys[id(node)] = (node, (start, node.line, node.end_line), move.body_key(key))
    else:
        previous = {}
    store.moved_body_keys = {}
    results: dict[tuple, PartResult] = {}
    body_keys: dict = {}
    analyzed = reused = 0
    merged: list[tuple[int, int, Finding]] = []
    notes: list[tuple[int, str]] = []
    grid_syncs: dict[str, tuple[Location | None, str]] = {}
    answers: set[tuple] = set()
    relative = RelativeKeys(program.path)
    functions = {key: function_key(store, body_keys, fn, relative)
                 for key, fn in program.functions.items() if fn.runs_on_device}
    parts = device_parts(program, {key: _references(body_keys, fn)
                                   for key, fn in program.functions.items() if fn.runs_on_device})
    for order, part in enumerate(parts):
        key = tuple(functions[k] for k in part)
        result = previous.get(key)
        if result is not None and relative.names_offsets(result):
            result = None  # it names declarations by their place in the file, which may have moved
        if result is None:
            result = _run_part(program, set(part), path, checks, make_service)
            analyzed += 1
        else:
            reused += 1
        results[key] = result
        merged.extend((index, order, finding) for index, finding in result.findings)
        notes.extend(result.notes)
        program.fields_asked |= result.fields_asked
        grid_syncs.update(result.grid_syncs)
        answers.update(result.shape_answers)
    store.outside_key, store.part_results, store.body_keys = outside, results, body_keys
    store.outside_flat, store.parts_build = flat, store.builds
    store.last_parts = (analyzed, reused)
    merged.sort(key=lambda t: (t[0], t[1]))  # rule by rule, as the whole file's run gives them
    findings = [copy.deepcopy(f) for _, _, f in merged]  # the kept ones stay as they were found
    return FileChecks(findings, notes, grid_syncs, sorted(answers, key=_answer_order),
                      analyzed, reused)


class LineMove:
    """The places of the previous text in the new one, after an edit inside one body added or
    removed lines (ir/reuse.Shift): lines after the change move, in the main file only."""

    _NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")

    def __init__(self, shift, path: str):
        self.shift = shift
        self.main = os.path.abspath(path)
        self._lambda = f"lambda:{shift.path}:"
        self._keys: dict[int, tuple[BodyKey, BodyKey]] = {}  # id -> (a key, the moved key)

    def in_main(self, path: str) -> bool:
        return path == self.shift.path or os.path.abspath(path) == self.main

    def line(self, path: str, line: int) -> int:
        return self.shift.line(line) if self.in_main(path) else line

    def body_key(self, key: BodyKey) -> BodyKey:
        """The key the same body has where the move put it (its nodes are the main file's)."""
        moved = self._keys.get(id(key))
        if moved is not None and moved[0] is key:
            return moved[1]
        text, path = self.shift.text, self.shift.path
        after, lines = self.shift.line_after, self.shift.lines
        move_decl = self.decl
        # inlined: this runs over every node of every body after the edit
        data = tuple((kind, text(spelling) if path in spelling else spelling,
                      text(type_) if path in type_ else type_,
                      line + lines if line > after else line, col,
                      end_line + lines if end_line > after else end_line,
                      end_col, start, end, op, value, role,
                      move_decl(decl) if decl is not None else None, children)
                     for (kind, spelling, type_, line, col, end_line, end_col, start, end, op, value,
                          role, decl, children) in key.data)
        moved = BodyKey.of_data(data, key.referring)
        self._keys[id(key)] = (key, moved)
        return moved

    def decl(self, decl: tuple | None) -> tuple | None:
        if decl is None:
            return None
        kind, name, usr, storage, type_, qualified, in_model, line, file, value, is_const, instance = decl
        shift = self.shift
        path = shift.path
        if file != path and path not in name and path not in type_ and path not in qualified:
            return decl  # another file's declaration, no place of this file in its names
        text = shift.text
        return (kind, text(name), usr, storage, text(type_), text(qualified), in_model,
                shift.line(line) if file == path else line, file, value, is_const, instance)

    def function_key(self, key: tuple) -> tuple:
        (fn_key, name, qualified, kind, file, line, col, end_line, params, is_template, is_lambda,
         launch_bounds, block_dim, has_errors, in_main_file, reported, instance_of, text,
         member_inits, body) = key
        if is_lambda and fn_key.startswith(self._lambda):  # its key names its line
            fn_key = self._lambda + str(self.shift.line(int(fn_key[len(self._lambda):])))
        move = self.shift.text
        return (fn_key, move(name), move(qualified), kind, file, self.line(file, line), col,
                self.line(file, end_line), tuple((n, usr, move(t)) for n, usr, t in params),
                is_template, is_lambda, launch_bounds, block_dim, has_errors, in_main_file,
                reported, instance_of, text,
                tuple((usr, self.body_key(k), ref) for usr, k, ref in member_inits),
                self.body_key(body) if body is not None else None)

    def result(self, result: PartResult) -> PartResult | None:
        """The part's results where the move put them; None when a message or a fix's text
        holds a number that may be a line the move changed (it would have to be written anew)."""
        texts = [m for _, m in result.notes]
        for _, f in result.findings:
            texts.append(f.message)
            texts.extend(n.message for n in f.notes)
            if f.fix is not None:
                texts.extend(e.replacement for e in f.fix.edits)
        if any(int(n) > self.shift.line_after for text in texts for n in self._NUMBER.findall(text)):
            return None
        findings = []
        for index, f in result.findings:
            moved = replace(f, line=self.line(f.path, f.line), end_line=self.line(f.path, f.end_line),
                            notes=[replace(n, line=self.line(n.path, n.line)) for n in f.notes])
            if f.fix is not None:
                moved.fix = replace(f.fix, edits=[replace(e, line=self.line(e.path, e.line),
                                                          end_line=self.line(e.path, e.end_line))
                                                  for e in f.fix.edits])
            findings.append((index, moved))
        grid_syncs = {k: (replace(loc, line=self.line(loc.path, loc.line), end_line=self.line(loc.path, loc.end_line))
                          if loc is not None else None, what)
                      for k, (loc, what) in result.grid_syncs.items()}
        return PartResult(findings, [(self.shift.line(line), m) for line, m in result.notes],
                          set(result.fields_asked), list(result.shape_answers), grid_syncs)


def moved_results(results: dict[tuple, PartResult], move: LineMove) -> dict[tuple, PartResult]:
    """The previous analysis's part results keyed and placed as the moved text has them."""
    out = {}
    for key, result in results.items():
        moved = move.result(result)
        if moved is not None:
            out[tuple(move.function_key(k) for k in key)] = moved
    return out


def _answer_order(answer: tuple) -> tuple:
    key, instance, _shape = answer
    return key, instance


def _run_part(program: Program, part: set[str], path: str, checks, make_service) -> PartResult:
    view = Program(program.path, {k: fn for k, fn in program.functions.items()
                                  if k in part or not fn.runs_on_device},
                   program.launches, program.source_lines, program.instantiated)
    view.unreached_library = program.unreached_library
    view.field_values = program.field_values
    view.fields_asked = set()
    service: UniformityService = make_service(view)
    ctx = CheckContext(view, service, path)
    findings = []
    for index, check_cls in checks:
        findings.extend((index, f) for f in check_cls().run(ctx))
    # what the file's facts ask of its kernels' analyses, asked here with the part's service
    grid_syncs = {k: kernel_grid_sync(service, fn, path) for k, fn in view.functions.items()
                  if k in part and reports_kernel_fact(fn)}
    return PartResult(findings, list(ctx.analysis_notes), set(view.fields_asked),
                      service.launch_shapes.local_answers(), grid_syncs)
