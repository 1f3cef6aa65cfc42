"""SYN505 named-barrier-mismatch: named barriers (bar.sync/barrier.sync/bar.arrive id, count)
whose thread counts differ between sites, are not a multiple of 32, or share id 0 with
__syncthreads()."""

from __future__ import annotations

from syncheck.analyses import async_ops as A
from syncheck.analyses import primitives as P
from syncheck.checks.base import Check, CheckContext
from syncheck.diagnostics import Note


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
                        if ev.kind in (A.NAMED_SYNC, A.NAMED_ARRIVE) and ev.bar_id is not None:
                            named.append((site, frames, ev))
            if not named:
                continue
            first_count: dict[tuple, tuple] = {}
            told_paths: dict[tuple, object] = {}
            for site, frames, ev in sorted(named, key=lambda t: (t[0].node.line, t[0].node.col)):
                anchor = _told_at(site, frames)
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
                        paths = (_path_key(frames), _path_key(other_frames))
                        told = told_paths.get(paths)
                        if told is not None:
                            told.notes.extend([ctx.note(anchor.node, (
                                f"named barrier {ev.bar_id} differs the same way: {ev.count} threads "
                                f"here, {count} on the other path")), note])
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
