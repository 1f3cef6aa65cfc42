"""SYN505 named-barrier-mismatch: named barriers (bar.sync/barrier.sync/bar.arrive id, count)
whose thread counts differ between sites, are not a multiple of 32, or share id 0 with
__syncthreads()."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from syncheck.analyses import async_ops as A
from syncheck.analyses import primitives as P
from syncheck.checks.base import Check, CheckContext
from syncheck.diagnostics import Note
from syncheck.ir.nodes import VALUE_WRAPPERS, strip_wrappers


class NamedBarrierMismatch(Check):
    code = "SYN505"
    name = "named-barrier-mismatch"

    def run(self, ctx: CheckContext):
        service = ctx.uniformity
        reported: set[tuple[int, int, str]] = set()
        findings = []
        for root in service.root_functions():
            if root.kind != "kernel":
                continue
            named = []          # (site, frames, event)
            block_barriers = []
            for site, frames in service.walk_sites(root):
                if site.prim is None:
                    continue
                if site.prim.category == P.BLOCK_BARRIER and site.node.kind == "CALL_EXPR":
                    block_barriers.append((site, frames))
                if site.prim.category in (P.NAMED_BARRIER, P.ALIGNED_NAMED_BARRIER):
                    for ev in A.events_of(site.node):
                        if ev.kind not in (A.NAMED_SYNC, A.NAMED_ARRIVE):
                            continue
                        if ev.bar_id is None:
                            # `Barrier::X + warp_group_idx`: the named base and an index
                            analysis = frames[-1].analysis if frames else service.analyze(root)
                            based = _indexed_id(site, analysis, ev.bar_node)
                            if based is None:
                                continue
                            ev = replace(ev, bar_id=based)
                        named.append((site, frames, ev))
            if not named:
                continue
            first_count: dict[tuple, tuple] = {}
            told_paths: dict[tuple, object] = {}
            for site, frames, ev in sorted(named, key=lambda t: (t[0].node.line, t[0].node.col)):
                anchor = _told_at(site, frames)
                indexed = isinstance(ev.bar_id, IndexedId)
                if indexed and frames and frames[-1].site.function.in_main_file:
                    # told at the call that names the barrier to its wrapper
                    anchor, frames = frames[-1].site, frames[:-1]
                if anchor is None:
                    continue
                how = _how(site, frames)
                if ev.count is not None and ev.count % 32 != 0:
                    findings.append(self._emit(ctx, reported, anchor, "count", (
                        f"named barrier {ev.bar_id} {how} with a thread count of {ev.count}, not a "
                        f"multiple of 32: the count is in threads and must cover whole warps"), root, []))
                if ev.count is not None:
                    first = first_count.setdefault((ev.bar_id, ev.offset_id), (ev.count, site, anchor, frames))
                    if first[0] != ev.count:
                        count, other, other_anchor, other_frames = first
                        if (other_anchor.node.line, other_anchor.node.col) == (anchor.node.line, anchor.node.col):
                            # one instruction whose count differs by the path (a template's instances)
                            where = f"the same instruction{_path(other_frames)}"
                        else:
                            where = f"another site (line {other_anchor.node.line})"
                        note = ctx.note(other_anchor.node, f"barrier {ev.bar_id} is used with a count "
                                                           f"of {count} here{_path(other_frames)}")
                        # Barriers whose counts differ between the same two paths have one cause
                        # (a count the recursion or the instances change): one finding.
                        # (and an indexed barrier is one barrier however many sites differ)
                        paths = ("indexed", ev.bar_id) if indexed else (_path_key(frames), _path_key(other_frames))
                        told = told_paths.get(paths)
                        if told is not None:
                            told.notes.extend([ctx.note(anchor.node, (
                                f"named barrier {ev.bar_id} differs the same way: {ev.count} threads "
                                f"here, {count} on the other path"))] + ([] if note in told.notes else [note]))
                            continue
                        finding = self._emit(ctx, reported, anchor, "differs", (
                            f"named barrier {ev.bar_id} {how} with {ev.count} threads, but {where} "
                            f"uses it with {count}: every bar.sync/bar.arrive on one barrier id must "
                            f"give the same count"), root, [note])
                        if finding is not None:
                            told_paths[paths] = finding
                            findings.append(finding)
                if ev.bar_id == 0 and not ev.offset_id and ev.count is not None and block_barriers:
                    other = block_barriers[0][0]
                    notes = [Note(ctx.path, other.node.line, other.node.col,
                                  f"{other.prim.name} also uses barrier 0 here")]
                    findings.append(self._emit(ctx, reported, anchor, "zero", (
                        f"named barrier 0 {how} with a count of {ev.count}, and the kernel also "
                        f"calls __syncthreads(), which is barrier 0 for the whole block: the two "
                        f"mix arrivals of different sizes on one barrier; use an id from 1 to 15"),
                        root, notes))
        return [f for f in findings if f is not None]

    def _emit(self, ctx, reported, anchor, what, message, root, notes):
        key = (anchor.node.line, anchor.node.col, what)
        if key in reported:
            return None
        reported.add(key)
        return ctx.finding(self, anchor.node, message, anchor.function.name, notes)


@dataclass(frozen=True)
class IndexedId:
    """A barrier id written as a constant base plus an index (`Barrier::dVFull + warp_group_idx`):
    two sites with the same base name the same barrier where their indices are equal, as for
    the first group (index 0), so their counts must agree."""

    base: int
    index: str = field(compare=False)  # the index's spelling, for messages: ids equal by base

    def __str__(self) -> str:
        return f"{self.base} + {self.index}"


def _indexed_id(site, analysis, operand) -> IndexedId | None:
    """The id of a named barrier whose operand is a constant (the caller's argument, an
    enumerator) plus terms that vary, read in the calling context's analysis."""
    if operand is None or analysis is None:
        return None
    expr = strip_wrappers(operand, VALUE_WRAPPERS)
    if expr.kind == "DECL_REF_EXPR" and expr.decl is not None and expr.decl.storage == "local":
        expr = A.local_definitions(site.function.body).get(expr.decl.key)
    terms = _added_terms(expr) if expr is not None else []
    if len(terms) < 2:
        return None
    base, index = 0, []
    for term in terms:
        value = analysis.values.get(term.id)
        if value is not None and isinstance(value.const, int):
            base += value.const
        else:
            index.append(term)
    if not index or len(index) == len(terms):
        return None
    return IndexedId(base, " + ".join(term.spelling or "index" for term in index))


def _added_terms(expr):
    expr = strip_wrappers(expr, VALUE_WRAPPERS)
    if expr.kind == "BINARY_OPERATOR" and expr.op == "+" and len(expr.children) == 2:
        return _added_terms(expr.children[0]) + _added_terms(expr.children[1])
    return [expr]


def _told_at(site, frames):
    """Where a barrier site is reported: the site itself in this file, else the innermost call
    in this file that reaches it (a barrier in a library header is told at the call); None where
    no function on the path is in this file."""
    if site.function.in_main_file:
        return site
    for frame in reversed(frames):
        if frame.site.function.in_main_file:
            return frame.site
    return None


def _path_key(frames) -> tuple:
    return tuple(frame.site.node.id for frame in frames)


def _path(frames) -> str:
    """How a site in a helper is reached, by the last call on the way."""
    return f" when reached through the call at line {frames[-1].site.node.line}" if frames else ""


def _how(site, frames) -> str:
    verb = "is synchronized on" if "arrive" not in site.prim.name else "is arrived at"
    return verb + _path(frames)
