"""Lowered function bodies kept from one build of a document to the next (incremental lowering).

Lowering (copying a body's cursors into Nodes) is most of a warm re-analysis. After an edit,
a body is taken from the previous build instead of lowered again when nothing it was lowered
from can have changed; everything else (the walk over the translation unit, reachability,
instantiations, launches, order) is the builder's, as in a fresh build, except after an edit
inside the body of one kernel or device function (ir/body_edit.py takes them from the previous
build). A kept body is used only
at the very same byte offsets, so its nodes, declarations and keys (local USRs carry offsets)
are exactly what a fresh lowering would give. With A the previous text and B the new one, and
the changed span the bytes between their common prefix and common suffix:

* before the change: the function's outermost declaration (a class holding a method, or the
  function itself) ends before the span. Everything it can see precedes it and is unchanged
  (C++ names are looked up where they are used; a class's methods see the whole class).
* beside the change: A and B have the same length and the span is inside the body of one
  other plain function G (no template, no deduced return type, not constexpr, no
  preprocessor line in it). Code inside a body declares nothing another function can see.
  The build then checks that the outline (kinds and extents of the file's function
  definitions and their containers) did not change; if it did, the span was not just inside
  G's body and the whole file is lowered afresh.

Not kept: templates and everything inside class templates (their bodies are dependent and
their instantiations depend on later code), instantiations, constructors with member
initializers, other files' functions, and any file with parse errors. A kept body replays what
its lowering told the builder: the instantiations it refers to (their cursors are looked up again
at the same places in the new translation unit) and the lambdas it holds.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import clang.cindex as ci

from syncheck.ir.nodes import Decl, Node


class ReuseMismatch(Exception):
    """A kept body's context is not what the new translation unit has: lower afresh."""


@dataclass
class KeptSignature:
    """What a function definition's signature gave the previous build: its declaration, its
    parameters as (name, key, type), and where it is (first line, column, last line)."""

    decl: Decl
    params: tuple[tuple[str, str, str], ...]
    line: int
    col: int
    end_line: int


@dataclass
class KeptFunction:
    """What the previous build knew of one of the file's function definitions."""

    outer_end: int          # byte offset where its outermost enclosing declaration ends
    body_start: int         # the body's braces, byte offsets
    body_end: int
    plain: bool             # a change inside its body cannot reach other functions
    cacheable: bool         # its body may be kept (see the module's list)
    body: Node | None = None
    lambdas: list[Node] = field(default_factory=list)
    # Instantiations the body refers to, in order: (USR, line, column of the reference).
    instance_refs: list[tuple[str, int, int]] = field(default_factory=list)
    # Its signature, when none of its parameters has a default argument (those are lowered).
    signature: KeptSignature | None = None


# The key of a function definition in one text: its USR and its extent's byte offsets.
FunctionKey = tuple[str, int, int]

_NOT_PLAIN_WORDS = ("auto", "decltype", "constexpr", "consteval")
_DIRECTIVE_MARKS = (b"#", b"%:")


def signature_is_plain(signature: str) -> bool:
    """A signature whose function's body cannot change what other code sees of it."""
    return not any(w in signature for w in _NOT_PLAIN_WORDS)


def has_directive_mark(text: bytes) -> bool:
    return any(m in text for m in _DIRECTIVE_MARKS)


def _alone_on_its_last_line(text: bytes, change_end: int, body_end: int) -> bool:
    """Is what follows the change on its last line the changed body's own (a line break
    before the body ends, or nothing but blanks after its closing brace)?"""
    if b"\n" in text[change_end:body_end]:
        return True
    line_end = text.find(b"\n", body_end)
    return not text[body_end:line_end if line_end >= 0 else len(text)].strip()


class ReusePlan:
    """For one build: which kept bodies the new text lets it use, and what it records."""

    def __init__(self, store: "DocumentStore", source: bytes, path: str = ""):
        self.store = store
        self.source = source
        self.recorded: dict[FunctionKey, KeptFunction] = {}
        self.outline: list[tuple[str, int, int]] = []
        self.reused = 0
        self.lowered = 0
        self._expected_outline: list[tuple[str, int, int]] | None = None
        self._prefix = 0
        # Kept functions by their key in the new text; the shift of those after the change.
        self._kept: dict[FunctionKey, KeptFunction] = {}
        self._shift: Shift | None = None
        # The text is the previous one (nothing changed), or the change lies inside the body
        # of one plain function (``edited``, its key in the previous text) and moves the rest
        # by ``shift`` (None: nothing moved): ir/body_edit.py may then lower only that body.
        self.unchanged = False
        self.edited: FunctionKey | None = None
        self.body_edit = False  # this build lowered only the edited body
        previous = store.source
        if previous is None or not store.functions:
            return
        a, b = previous, source
        limit = min(len(a), len(b))
        p = _common_prefix(a, b, limit)
        s = _common_suffix(a, b, limit - p)
        self._prefix = p
        if a == b:
            self._prefix = len(a) + 1  # every function is before the (empty) change
            self._kept = dict(store.functions)
            self.unchanged = True
            return
        # before the change: as they are
        self._kept = {key: kept for key, kept in store.functions.items() if kept.outer_end <= p}
        span_end = len(a) - s
        beside = next((key for key, kept in store.functions.items()
                       if kept.plain and kept.body_start < p and span_end < kept.body_end), None)
        if beside is None or has_directive_mark(b[p:len(b) - s]):
            return
        delta = len(b) - len(a)
        lines = b.count(b"\n", p, len(b) - s) - a.count(b"\n", p, span_end)
        # What follows the change on its last line is the changed body's own: all that moves
        # a line moves by whole lines, its columns stay.
        # Bodies after the change move in bytes, in lines, or both (a same-length edit that
        # turns a space into a line break moves them in lines only).
        moves = bool(delta or lines)
        if moves and (not self._shiftable(path) or not _alone_on_its_last_line(a, span_end, store.functions[beside].body_end)):
            return
        shift = Shift(path, span_end, a.count(b"\n", 0, span_end) + 1, delta, lines)
        self._shift = shift if moves else None
        for key, kept in store.functions.items():
            usr, start, end = key
            if key == beside or kept.outer_end <= p:
                continue
            if start >= span_end:
                if moves and b"\n" not in a[span_end:start]:
                    continue  # on the changed line: its columns moved too
                key = (shift.key(usr), start + delta, end + delta)
            self._kept[key] = kept
        self._expected_outline = [(kind, shift.offset(start), shift.offset(end))
                                  for kind, start, end in store.outline]
        self.edited = beside

    @property
    def shift(self) -> "Shift | None":
        """How the change moves what follows it (None: nothing moves)."""
        return self._shift

    @property
    def expected_outline(self) -> list[tuple[str, int, int]]:
        return self._expected_outline if self._expected_outline is not None else list(self.store.outline)

    def _shiftable(self, path: str) -> bool:
        """Can kept bodies after the change be moved? Keys carry offsets after the file's base
        name: not when an included file has the same base name."""
        base = os.path.basename(path)
        includes = self.store.context[1] if len(self.store.context) > 1 else ()
        return bool(base) and not any(os.path.basename(name) == base for name, _, _ in includes)

    def kept(self, key: FunctionKey) -> KeptFunction | None:
        """The previous build's body for this function (moved to where this text has it),
        when this text may use it."""
        kept = self._kept.pop(key, None)
        if kept is None or not kept.cacheable or kept.body is None:
            return None
        if self._shift is not None and kept.outer_end > self._prefix:
            if self._shift.lines:  # its nodes move in lines: its key moves with them
                moved = self.store.body_keys.pop(id(kept.body), None)
                if moved is not None:
                    self.store.moved_body_keys[id(kept.body)] = moved
            return self._shift.applied(kept)
        return kept

    def finish(self, lowerer, last_build=None) -> None:
        """After a successful build: check the outline, then keep what this build recorded
        (``last_build``: what ir/body_edit.py needs of it)."""
        if self._expected_outline is not None and self.outline != self._expected_outline:
            raise ReuseMismatch("the outline of the file changed")
        self.store.last_build = last_build
        self.store.last_body_edit = self.body_edit
        self.store.source = self.source
        self.store.functions = self.recorded
        self.store.outline = self.outline
        self.store.lowerer = lowerer
        self.store.last_reused, self.store.last_lowered = self.reused, self.lowered
        self.store.builds += 1
        if self._shift is None or not self._shift.lines:
            self.store.moved_body_keys = {}
        # how this build's text moved the lines of the previous one (analysis_reuse.py moves
        # the previous analysis's results with it)
        self.store.last_move = self._shift if self._shift is not None and self._shift.lines else None


class Shift:
    """Moves what a kept body says about places after a change inside another body: byte
    offsets by ``delta``, lines by ``lines``; in keys, the offsets clang writes into the USRs
    of local declarations (``c:file.cu@1234@...``); in type names, the places of lambdas and
    unnamed types (``(lambda at /path/file.cu:12:5)``)."""

    def __init__(self, path: str, after: int, first_line_after: int, delta: int, lines: int):
        self.after, self.delta, self.lines = after, delta, lines
        self.line_after = first_line_after  # lines from here on move (the change's last line)
        self.path = path
        base = re.escape(os.path.basename(path))
        self._usr_offset = re.compile(r"(?<=c:)" + base + r"@(\d+)")
        self._usr_mark = "c:" + os.path.basename(path) + "@"
        self._place = re.compile(re.escape(path) + r":(\d+):(\d+)")
        self._decls: dict[int, tuple[Decl, Decl]] = {}  # id -> (a declaration, it moved)

    def offset(self, at: int) -> int:
        return at + self.delta if at >= self.after else at

    def line(self, line: int) -> int:
        return line + self.lines if line > self.line_after else line

    def key(self, usr: str) -> str:
        if not self.delta or self._usr_mark not in usr:  # no offset of this file in it moves
            return usr
        return self._usr_offset.sub(lambda m: m.group(0)[:-len(m.group(1))] + str(self.offset(int(m.group(1)))), usr)

    def text(self, text: str) -> str:
        if self.path not in text:
            return text
        return self._place.sub(lambda m: f"{self.path}:{self.line(int(m.group(1)))}:{m.group(2)}", text)

    def decl(self, decl: Decl) -> Decl:
        known = self._decls.get(id(decl))
        if known is not None and known[0] is decl:
            return known[1]
        fields = (self.key(decl.key), self.key(decl.instance), self.text(decl.type),
                  self.text(decl.name), self.text(decl.qualified),
                  self.line(decl.line) if decl.file == self.path else decl.line)
        if fields == (decl.key, decl.instance, decl.type, decl.name, decl.qualified, decl.line):
            moved = decl
        else:
            key, instance, type_, name, qualified, line = fields
            moved = Decl(decl.kind, name, key, decl.storage, type_, qualified, decl.in_model, line,
                         decl.file, decl.value, decl.is_const, instance, decl.no_return, decl.layout)
        self._decls[id(decl)] = (decl, moved)  # the declaration held: its id stays its own
        return moved

    def applied(self, kept: KeptFunction) -> KeptFunction:
        """The kept body with its nodes moved (in place: the previous build is done with them)."""
        self.nodes([kept.body])
        return self.record(kept)

    def nodes(self, roots, places: bool = True) -> None:
        """Move the trees under ``roots`` in place: their places (with ``places``: nodes of the
        main file), the declarations they refer to and the places named in their types and
        spellings."""
        after, delta, lines, path = self.after, self.delta, self.lines, self.path
        known, decl, text = self._decls, self.decl, self.text
        stack = list(roots)
        while stack:  # one loop, no generator: this runs over every node after an edit
            node = stack.pop()
            if node.children:
                stack.extend(node.children)
            if places and node.start >= after:
                node.start += delta
                node.end += delta
                node.line += lines
                node.end_line += lines
            d = node.decl
            if d is not None:
                seen = known.get(id(d))
                moved = seen[1] if seen is not None and seen[0] is d else decl(d)
                if moved is not d:
                    node.decl = moved
            if node.type and path in node.type:
                node.type = text(node.type)
            if node.spelling and path in node.spelling:
                node.spelling = text(node.spelling)

    def record(self, kept: KeptFunction) -> KeptFunction:
        """What a kept function says of places besides its nodes, moved (in place)."""
        kept.instance_refs = [(self.key(usr), self.line(line), column)
                              for usr, line, column in kept.instance_refs]
        sig = kept.signature
        if sig is not None:  # columns stay: what moves a line moves by whole lines
            kept.signature = KeptSignature(
                self.decl(sig.decl), tuple((name, self.key(key), self.text(type_)) for name, key, type_ in sig.params),
                self.line(sig.line), sig.col, self.line(sig.end_line))
        return kept


@dataclass
class DocumentStore:
    """The kept bodies of one document (one kind of headers, one set of parse arguments)."""

    context: tuple = ()
    source: bytes | None = None
    functions: dict[FunctionKey, KeptFunction] = field(default_factory=dict)
    outline: list[tuple[str, int, int]] = field(default_factory=list)
    lowerer: object = None   # the last build's (it numbers nodes on, also after the build)
    node_ids_from: int = 0
    last_reused: int = 0     # bodies the last build took from the one before, and lowered
    last_lowered: int = 0
    # What the analyses of the document's parts found, by content (syncheck/analysis_reuse.py;
    # it owns these): the key of what lies outside the parts, results by part key, and the
    # structural keys of kept bodies (id of the body -> (body, its place, key)).
    outside_key: object = None
    part_results: dict = field(default_factory=dict)
    body_keys: dict = field(default_factory=dict)
    moved_body_keys: dict = field(default_factory=dict)  # those of kept bodies the last build moved
    last_parts: tuple[int, int] = (0, 0)  # parts the last analysis analyzed, and took as they were
    builds: int = 0                 # builds finished with this store
    last_move: "Shift | None" = None  # the last build's line move from the text before it
    parts_build: int = -1           # the build part_results were found on
    outside_flat: object = None     # outside_key with the isolated bodies' newlines dropped
    last_build: object = None       # the last build's program and facts (ir/body_edit.py)
    last_body_edit: bool = False    # the last build lowered only the edited body, walking nothing else

    @property
    def next_node_id(self) -> int:
        """Where a new build numbers its nodes: after every node a kept body may hold."""
        return self.lowerer._next_id if self.lowerer is not None else self.node_ids_from

    def forget(self) -> None:
        self.node_ids_from = self.next_node_id
        self.source = None
        self.functions = {}
        self.outline = []
        self.lowerer = None
        self.last_reused = self.last_lowered = 0
        self.outside_key = None
        self.last_move = None
        self.parts_build = -1
        self.outside_flat = None
        self.last_build = None
        self.last_body_edit = False
        self.part_results = {}
        self.body_keys = {}
        self.moved_body_keys = {}
        self.last_parts = (0, 0)


_STORES: dict[tuple[str, str], DocumentStore] = {}
MAX_STORES = 6


def store_for(path: str, headers: str, context: tuple) -> DocumentStore:
    """The store of a document; a new one (nothing kept) when its context changed: the parse
    arguments, or an included file (its path, size and modification time)."""
    key = (os.path.abspath(path), headers)
    store = _STORES.get(key)
    if store is None or store.context != context:
        store = _STORES[key] = DocumentStore(context=context)
        while len(_STORES) > MAX_STORES:
            _STORES.pop(next(iter(_STORES)))
    return store


def forget_stores(path: str | None = None) -> None:
    for key in [k for k in _STORES if path is None or k[0] == os.path.abspath(path)]:
        del _STORES[key]


def includes_identity(tu: ci.TranslationUnit) -> tuple:
    """The files a translation unit included, with their sizes and modification times."""
    out = []
    for inc in tu.get_includes():
        name = inc.include.name if inc.include is not None else ""
        try:
            st = os.stat(name)
            out.append((name, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((name, -1, -1))
    return tuple(sorted(set(out)))


class CursorAt:
    """An instantiation a kept body refers to, found again in the new translation unit
    (resolved only when the builder asks for its definition): at the place of the reference,
    else in the body that holds it (``scope``, a cursor of the new translation unit)."""

    def __init__(self, tu: ci.TranslationUnit, path: str, line: int, column: int, usr: str,
                 scope: ci.Cursor):
        self.tu, self.path, self.line, self.column, self.usr = tu, path, line, column, usr
        self.scope = scope

    def get_definition(self):
        return self.found().get_definition()

    def found(self) -> ci.Cursor:
        """The referenced specialization in the new translation unit."""
        found = self._find()
        if found is None:
            raise ReuseMismatch(f"instantiation {self.usr} not found again")
        return found

    def _find(self):
        if self.line:
            location = self.tu.get_location(self.path, (self.line, self.column))
            found = self._search(ci.Cursor.from_location(self.tu, location), 64)
            if found is not None:
                return found
        return self._search(self.scope, None)

    def _search(self, start, limit: int | None):
        stack = [start] if start is not None else []
        seen = 0
        while stack and (limit is None or seen < limit):
            c = stack.pop()
            seen += 1
            if c.kind in _REFERRING:
                ref = c.referenced
                if ref is not None and ref.get_usr() == self.usr:
                    return ref
            stack.extend(reversed(list(c.get_children())))
        return None


_REFERRING = {ci.CursorKind.DECL_REF_EXPR, ci.CursorKind.MEMBER_REF_EXPR, ci.CursorKind.CALL_EXPR,
              ci.CursorKind.OVERLOADED_DECL_REF}


def _common_prefix(a: bytes, b: bytes, limit: int) -> int:
    lo, hi = 0, limit
    # binary search on slices: C-speed comparisons
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return lo
