"""SYN504 mbarrier-protocol: an mbarrier used before its initialization is fenced and
published, expect_tx bytes that differ from the bytes of the copies that signal it, and a
wait parity that does not flip in a loop that reuses the barrier."""

from __future__ import annotations

from syncheck.analyses import async_ops as A
from syncheck.analyses.async_flow import BARRIER, EVENT, FunctionSteps, analyzable_functions, \
    loops_enclosing, solve
from syncheck.analyses.levels import Level
from syncheck.checks.base import Check, CheckContext

_USES = (A.MBAR_ARRIVE, A.MBAR_EXPECT_TX, A.MBAR_WAIT, A.BULK_LOAD)


class MbarrierProtocol(Check):
    code = "SYN504"
    name = "mbarrier-protocol"

    def run(self, ctx: CheckContext):
        seen: set[tuple[int, int]] = set()
        for fn in analyzable_functions(ctx.program):
            if not fn.mentions("mbarrier", "barrier", "Barrier", "expect_tx"):
                continue
            steps = FunctionSteps(ctx.program, fn)
            events = list(steps.events())
            if not any(s.event.kind in (A.MBAR_INIT,) + _USES for s in events):
                continue
            for f in (list(self._init(ctx, fn, steps)) + list(self._bytes(ctx, fn, steps))
                      + list(self._parity(ctx, fn, steps)) + list(self._arrivals(ctx, fn, steps))):
                where = (f.line, f.column)
                if where not in seen:
                    seen.add(where)
                    yield f

    def _key(self, steps, node):
        d = steps.shared_of(node) or steps.base_decl(node)
        return d.key if d is not None else None

    # -- init published and fenced before use --
    def _init(self, ctx, fn, steps):
        inits: dict[str, object] = {}
        findings = []

        def transfer(state, step, emit):
            unpublished, unfenced = state
            if step.kind == BARRIER:
                return frozenset(), unfenced
            if step.kind != EVENT:
                return state
            ev = step.event
            if ev.kind in (A.CLUSTER_SYNC, A.CLUSTER_WAIT, A.NAMED_SYNC):
                # (a named barrier, `bar.sync id, count`, publishes to the threads it counts:
                # the warps a producer/consumer group shares its mbarriers with)
                return frozenset(), unfenced
            if ev.kind in (A.MBAR_INIT_FENCE, A.PROXY_FENCE):
                return unpublished, frozenset()
            if ev.kind == A.MBAR_INIT:
                key = self._key(steps, ev.mbar)
                if key is None:
                    return state
                inits.setdefault(key, step)
                return unpublished | {key}, unfenced | {key}
            if ev.kind in _USES and emit is not None:
                key = self._key(steps, ev.mbar)
                if key is not None and key in unpublished and ev.kind != A.BULK_LOAD \
                        and not _thread_private(steps, ev.mbar) and not initialized_here(key, step):
                    emit(step, key, "publish")
                elif key is not None and key in unfenced and ev.kind == A.BULK_LOAD and not ev.managed:
                    emit(step, key, "fence")
            return state

        analysis = None

        def initialized_here(key, step) -> bool:
            """Is the use made only by threads that made the init themselves (every decision
            that tells threads of the block apart at the init also controls the use; the
            ones the whole block takes alike, such as a loop over the stages, do not choose
            threads)? Those see their own store: there is nothing to publish."""
            nonlocal analysis
            if analysis is None:
                analysis = ctx.uniformity.analyze(fn)
            init, use = (analysis.decisions_at(s.node, above=Level.BLOCK) for s in (inits[key], step))
            return init is not None and use is not None and init <= use

        done: set[tuple[str, str]] = set()

        def report(step, key, what):
            if (key, what) in done:  # one finding per barrier: the first use
                return
            done.add((key, what))
            init = inits[key]
            if what == "publish":
                msg = (f"the mbarrier initialized at line {init.node.line} is used here before a "
                       f"barrier (__syncthreads() or a cluster sync) publishes its initialization "
                       f"on some path: other threads may see an uninitialized barrier")
            else:
                msg = (f"a bulk copy signals the mbarrier initialized at line {init.node.line}, with "
                       f"no fence.mbarrier_init / fence.proxy.async after the init on some path: "
                       f"the async proxy may not see the initialization")
            findings.append(ctx.finding(self, step.node, msg, fn.name,
                                        [ctx.note(init.node, "mbarrier.init here")]))

        solve(steps, (frozenset(), frozenset()), transfer, lambda a, b: (a[0] | b[0], a[1] | b[1]), report)
        return findings

    # -- expect_tx bytes against the copies in the same straight-line block --
    def _bytes(self, ctx, fn, steps):
        out = []
        for b, block_steps in steps.blocks.items():
            expects: dict[str, list] = {}
            copies: dict[str, list] = {}
            for s in block_steps:
                if s.kind != EVENT:
                    continue
                ev = s.event
                key = self._key(steps, ev.mbar) if ev.mbar is not None else None
                if key is None:
                    continue
                if ev.kind == A.MBAR_EXPECT_TX:
                    expects.setdefault(key, []).append(s)
                elif ev.kind == A.BULK_LOAD:
                    copies.setdefault(key, []).append(s)
            for key, exp in expects.items():
                cps = copies.get(key, [])
                if len(exp) != 1 or not cps or exp[0].event.bytes is None or \
                        any(c.event.bytes is None for c in cps):
                    continue
                total = sum(c.event.bytes for c in cps)
                want = exp[0].event.bytes
                if total != want:
                    notes = [ctx.note(c.node, f"this copy signals {c.event.bytes} bytes") for c in cps]
                    out.append(ctx.finding(self, exp[0].node, (
                        f"expect_tx announces {want} bytes but the bulk copies that signal this "
                        f"mbarrier transfer {total}: the phase "
                        f"{'never completes (a hang)' if total < want else 'completes early or the tx-count underflows'}"),
                        fn.name, notes))
        return out

    # -- the arrive count given to init against the arrivals per phase --
    def _arrivals(self, ctx, fn, steps):
        """Only where every arrival site's thread count is known: executed by threads that
        satisfy conditions on threadIdx.x all within the first warp (`threadIdx.x == 0`), or
        by every thread of a block whose shape is pinned; all sites in the same loop."""
        import numpy as np
        events = list(steps.events())
        inits = [s for s in events if s.event.kind == A.MBAR_INIT and s.event.count is not None]
        if not inits:
            return []
        analysis = ctx.uniformity.analyze(fn)
        shape = analysis.shape.block_dim if analysis.shape is not None else None
        out = []
        for init in inits:
            key = self._key(steps, init.event.mbar)
            if key is None or sum(1 for s in inits if self._key(steps, s.event.mbar) == key) != 1:
                continue
            sites = [s for s in events if s.event.kind in (A.MBAR_ARRIVE, A.MBAR_EXPECT_TX)
                     and self._key(steps, s.event.mbar) == key]
            if not sites:
                continue
            loops = {tuple(id(l) for l in loops_enclosing(fn.body, s.node)) for s in sites}
            if len(loops) != 1:
                continue
            total = 0
            for s in sites:
                per_site = s.event.count if s.event.count is not None else None
                threads = _threads_reaching(analysis, s.node, shape, np)
                if per_site is None or threads is None:
                    total = None
                    break
                total += per_site * threads
            if total is None or total == init.event.count:
                continue
            notes = [ctx.note(s.node, "an arrival on this barrier") for s in sites]
            out.append(ctx.finding(self, init.node, (
                f"the mbarrier is initialized for {init.event.count} arrivals per phase, but the "
                f"code arrives {total} time{'s' if total != 1 else ''} per phase: the phase "
                f"{'never completes (a hang)' if total < init.event.count else 'completes before every arrival is in'}"),
                fn.name, notes))
        return out

    # -- parity that does not change in a loop that reuses the barrier --
    def _parity(self, ctx, fn, steps):
        out = []
        for s in steps.events():
            ev = s.event
            if ev.kind != A.MBAR_WAIT or ev.parity_node is None and ev.parity is None:
                continue
            loops = [l for l in loops_enclosing(fn.body, s.node) if not _is_spin(l, s.node)]
            # A loop whose iterations wait on different barriers (`bars[i]->wait(p)` in a
            # loop over i) waits on each once: the parity must change in a loop further out.
            loops = [l for l in loops if ev.mbar is None or not _names_any(ev.mbar, _assigned_in(l, s.node))]
            if not loops:
                continue
            loop = loops[-1]
            # The barrier must be re-armed inside the loop (an arrive or a copy on it).
            key = self._key(steps, ev.mbar)
            rearmed = False
            for t in steps.events():
                if t.event.kind in (A.MBAR_ARRIVE, A.MBAR_EXPECT_TX, A.BULK_LOAD) and \
                        loop.start <= t.node.start and t.node.end <= loop.end and \
                        (key is None or self._key(steps, t.event.mbar) in (key, None)):
                    rearmed = True
            if not rearmed:
                continue
            pn = ev.parity_node
            if pn is not None and _names_any(pn, _assigned_in(loop, s.node)):
                continue
            shown = str(ev.parity) if ev.parity is not None else f"'{ctx.text(pn)}'"
            out.append(ctx.finding(self, s.node, (
                f"this wait on an mbarrier that the loop (line {loop.line}) re-arms every iteration "
                f"uses the parity {shown}, which does not change in the loop: from the second "
                f"phase on it waits for a phase that has already completed (or never will); flip "
                f"the parity each time the barrier completes a phase"), fn.name))
        return out


def _thread_private(steps, mbar) -> bool:
    """Is the barrier a variable of the thread's own (a local object, not a pointer or a
    reference)? No other thread can use it, so there is nothing to publish; the async proxy
    still needs the fence."""
    d = steps.base_decl(mbar)
    return d is not None and d.storage == "local" and not any(c in d.type for c in "*&[")


def _is_spin(loop, node) -> bool:
    """`while (!try_wait(bar, phase));`: the wait itself is the loop."""
    cond = loop.child_by_role("cond")
    body = loop.child_by_role("body")
    in_cond = cond is not None and cond.start <= node.start and node.end <= cond.end
    small_body = body is None or (body.kind == "COMPOUND_STMT" and len(body.children) <= 1) or \
        (body.start <= node.start and node.end <= body.end and body.kind != "COMPOUND_STMT")
    return in_cond or (small_body and body is not None and body.start <= node.start <= body.end)


def _names_any(node, keys: set[str]) -> bool:
    return any(n.kind == "DECL_REF_EXPR" and n.decl is not None and n.decl.key in keys for n in node.walk())


def _assigned_in(loop, skip) -> set[str]:
    """The variables a loop statement may assign (its header included); the call ``skip``
    (the wait itself) does not count as assigning its arguments."""
    keys: set[str] = set()
    for n in loop.walk():
        target = None
        if n.kind in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and n.op and n.op.endswith("=") \
                and n.op not in ("==", "!=", "<=", ">=") and n.children:
            target = n.children[0]
        elif n.kind == "UNARY_OPERATOR" and n.op in ("++", "--", "post++", "post--") and n.children:
            target = n.children[0]
        elif n.kind == "VAR_DECL" and n.decl is not None:
            keys.add(n.decl.key)
        elif n.kind == "CALL_EXPR" and n is not skip:
            # (an overloaded operator's operand comes first: `++state` of a pipeline state
            # whose operator flips its phase is a call on it)
            for a in n.children[0 if n.spelling.startswith("operator") else 1:]:
                if a.kind == "UNARY_OPERATOR" and a.op == "&" and a.children:
                    a = a.children[0]
                if a.kind == "DECL_REF_EXPR" and a.decl is not None and a.decl.storage == "local":
                    keys.add(a.decl.key)  # may be passed by reference
        while target is not None and target.kind in ("PAREN_EXPR", "UNEXPOSED_EXPR") and target.children:
            target = target.children[0]
        if target is not None and target.kind == "DECL_REF_EXPR" and target.decl is not None:
            keys.add(target.decl.key)
    return keys


def _threads_reaching(analysis, node, shape, np) -> int | None:
    block = analysis.node_block.get(node.id)
    if block is None:
        return None
    ctrls = analysis.block_controllers.get(block, ())
    if not ctrls:
        if shape:
            return shape[0] * shape[1] * shape[2]
        return None
    mask = None
    for c in ctrls:
        pt = c.value.per_thread
        if pt is None or c.polarity is None:
            return None
        m = (np.asarray(pt.values) != 0) == c.polarity
        mask = m if mask is None else mask & m
    hits = np.nonzero(mask)[0]
    if hits.size == 0 or hits.max() >= 32:
        return None  # depends on the block size, which is not known here
    return int(hits.size)
