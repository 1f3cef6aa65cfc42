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
            for site, frames, ev in sorted(named, key=lambda t: (t[0].node.line, t[0].node.col)):
                anchor = frames[0].site if frames else site
                if not anchor.function.in_main_file:
                    continue
                how = _how(site, frames)
                if ev.count is not None and ev.count % 32 != 0:
                    findings.append(self._emit(ctx, reported, anchor, "count", (
                        f"named barrier {ev.bar_id} {how} with a thread count of {ev.count}, not a "
                        f"multiple of 32: the count is in threads and must cover whole warps"), root, []))
                if ev.count is not None:
                    first = first_count.setdefault((ev.bar_id, ev.offset_id), (ev.count, site, anchor))
                    if first[0] != ev.count:
                        notes = [ctx.note(first[2].node, f"barrier {ev.bar_id} is used with a count "
                                                         f"of {first[0]} here")]
                        findings.append(self._emit(ctx, reported, anchor, "differs", (
                            f"named barrier {ev.bar_id} {how} with {ev.count} threads, but another "
                            f"site (line {first[2].node.line}) uses it with {first[0]}: every "
                            f"bar.sync/bar.arrive on one barrier id must give the same count"), root, notes))
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


def _how(site, frames) -> str:
    verb = "is synchronized on" if "arrive" not in site.prim.name else "is arrived at"
    if frames:
        return f"{verb} (through '{frames[0].site.callee.name if frames[0].site.callee else '?'}', line {site.node.line})"
    return verb
