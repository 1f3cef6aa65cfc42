"""SYN502 async-result-before-wait: the result of an asynchronous operation used before the
wait that covers it; a buffer overwritten while a bulk store may still read it."""

from __future__ import annotations

from syncheck.analyses import async_ops as A
from syncheck.analyses.levels import Level
from syncheck.analyses.async_flow import BARRIER, EVENT, READ, WARP_BARRIER, WRITE, FunctionSteps, analyzable_functions, \
    mentioning_functions, solve
from syncheck.checks.base import Check, CheckContext

_CAP = 8  # ages beyond this many committed groups are all alike
_WAITED_BY_ISSUER = "waited by the issuing threads"
_WAIT_NAMES = {A.Q_CP_ASYNC: "cp.async.wait_group / __pipeline_wait_prior",
               A.Q_WGMMA: "wgmma.wait_group / warpgroup_wait<N>",
               A.Q_BULK: "cp.async.bulk.wait_group",
               A.Q_CG: "cg::wait / cg::wait_prior<N>",
               A.Q_PIPELINE: "pipeline.consumer_wait()"}


class AsyncResultBeforeWait(Check):
    code = "SYN502"
    name = "async-result-before-wait"

    def run(self, ctx: CheckContext):
        seen: set[tuple[int, int]] = set()
        asynchronous = mentioning_functions(ctx.program, ("cp.async", "wgmma", "warpgroup_", "__pipeline",
                                                          "memcpy_async", "mbarrier", "cp_async", "tma_"))
        for fn in analyzable_functions(ctx.program):
            if fn.key in asynchronous:
                yield from self._function(ctx, fn, seen)

    def _function(self, ctx, fn, seen):
        steps = FunctionSteps(ctx.program, fn)
        if not any(True for _ in steps.events()):
            return
        issued: dict[tuple[str, str], tuple] = {}  # (role, key) -> (event, node) first issued
        findings = []
        threads = _IssuingThreads(ctx, fn)

        def add(pending, queue, decl, role, step):
            key = decl.key
            issued.setdefault((role, key), (step.event, step.node, decl))
            return pending | {(queue, key, 0, role)}

        def transfer(state, step, emit):
            pending, ready, some, waited = state
            if step.kind in (BARRIER, WARP_BARRIER):
                # What one thread waited for is complete for every thread after a barrier
                # (one thread issues and waits, __syncthreads publishes); for the lanes of
                # its warp after __syncwarp() (an elected lane issues the warp's bulk copies
                # and waits for them: the group belongs to the thread that committed it).
                done = {p for p in pending if (p[0], p[1], p[3]) in some}
                return pending - done, ready | {(p[3], p[1]) for p in done} | waited, frozenset(), frozenset()
            if step.kind == EVENT:
                ev = step.event
                k = ev.kind
                if k == A.ASYNC_COPY:
                    # (a per-thread cp.async into a pointer is left to the buffer it is carved
                    # from: loaders that take a pointer switch cp.async on and off with template
                    # flags, which a generic body cannot tell apart)
                    d = steps.shared_of(ev.dst)
                    if d is not None:
                        pending = add(pending, ev.queue, d, "fill", step)
                        if ev.implicit_commit:
                            pending = _commit(pending, ev.queue)
                elif k == A.BULK_LOAD:
                    d = steps.shared_buffer(ev.dst)
                    if d is not None:
                        mb = steps.shared_of(ev.mbar) or steps.base_decl(ev.mbar)
                        pending = add(pending, "mbar:" + (mb.key if mb else "?"), d, "fill", step)
                elif k == A.BULK_STORE:
                    d = steps.shared_buffer(ev.src)
                    if d is not None:
                        # the store reads its source: what a copy still fills is not there yet
                        # (a helper that loads and stores in one call is judged in the helper)
                        hits = [p for p in pending if p[1] == d.key and p[3] == "fill"]
                        if hits and ("fill", d.key) not in ready and emit is not None \
                                and issued[("fill", d.key)][1] is not step.node:
                            emit(step, hits)
                        pending = add(pending, A.Q_BULK, d, "drain", step)
                elif k == A.WGMMA_MMA:
                    for op in ev.operands:
                        d = steps.base_decl(op)
                        if d is not None and d.storage == "local":
                            pending = add(pending, A.Q_WGMMA, d, "fill", step)
                            ready = ready - {("fill", d.key)}
                elif k == A.COMMIT:
                    pending = _commit(pending, ev.queue)
                elif k == A.WAIT:
                    n = ev.count if ev.count is not None else 0
                    retired = {p for p in pending if p[0] == ev.queue and p[2] > n}
                    pending = pending - retired
                    # A bulk group is the committing thread's: where only some threads issue
                    # (`if (tid == 0)`), the others' wait retires nothing of theirs, and what
                    # they do with the buffer waits for a barrier after the issuer's wait.
                    mine = {p for p in retired if ev.queue != A.Q_BULK or threads.every_one(issued[(p[3], p[1])][1])}
                    ready = ready | {(p[3], p[1]) for p in mine}
                    waited = waited | {(p[3], p[1]) for p in retired - mine}
                    some = some | {(p[0], p[1], p[3]) for p in retired}
                elif k == A.MBAR_WAIT:
                    mb = steps.shared_of(ev.mbar) or steps.base_decl(ev.mbar)
                    names = {"mbar:" + mb.key} if mb is not None else None
                    retired = {p for p in pending if p[0].startswith("mbar:") and
                               (names is None or p[0] in names or p[0] == "mbar:?")}
                    pending = pending - retired
                    ready = ready | {(p[3], p[1]) for p in retired}
                    some = some | {(p[0], p[1], p[3]) for p in retired}
                return pending, ready, some, waited
            if step.kind in (READ, WRITE) and step.decl is not None \
                    and not (step.node.kind == "DECL_REF_EXPR" and "*" in step.decl.type):
                # (reading a pointer's own value touches nothing it points at)
                role = "fill" if step.kind == READ else "drain"
                key = step.decl.key
                hits = [p for p in pending if p[1] == key and p[3] == role]
                if not hits and (role, key) in waited and (role, key) not in ready \
                        and not threads.same_threads(issued[(role, key)][1], step.node):
                    hits = [(_WAITED_BY_ISSUER, key, 0, role)]
                if hits and (role, key) not in ready and emit is not None:
                    emit(step, hits)
            return pending, ready, some, waited

        def report(step, hits):
            where = (step.node.line, step.node.col)
            if where in seen:
                return
            seen.add(where)
            findings.append(self._finding(ctx, fn, step, hits, issued))

        solve(steps, (frozenset(), frozenset(), frozenset(), frozenset()), transfer, _join, report)
        yield from findings

    def _finding(self, ctx, fn, step, hits, issued):
        role = hits[0][3]
        key = hits[0][1]
        ev, node, decl = issued[(role, key)]
        queue = hits[0][0]
        line = node.line
        what = ev.name
        notes = [ctx.note(node, f"{what} {'writes' if role == 'fill' else 'reads'} '{decl.name}' "
                                f"asynchronously here")]
        if queue == _WAITED_BY_ISSUER:
            msg = (f"'{decl.name}' is {'overwritten' if role == 'drain' else 'read'} by threads that did not "
                   f"issue the bulk copy at line {line} ({what}): the wait_group that retires it covers "
                   f"only the issuing thread's own groups, and no barrier after that wait hands the "
                   f"completion on to the others")
        elif role == "drain":
            msg = (f"'{decl.name}' is overwritten while the bulk copy issued at line {line} ({what}) "
                   f"may still be reading it: wait with cp.async.bulk.wait_group.read N (N small "
                   f"enough to cover that group) before reusing the buffer")
        elif queue.startswith("mbar:"):
            msg = (f"'{decl.name}' is read before the mbarrier wait that covers the asynchronous copy "
                   f"issued at line {line} ({what}): on some path no wait on that barrier's phase "
                   f"comes first")
        else:
            oldest = max(p[2] for p in hits)
            if oldest == 0:
                state = "it has not been committed to a group, so no wait_group covers it"
            elif oldest == 1:
                state = "it is in the newest committed group, which only a wait_group 0 retires"
            else:
                state = (f"its oldest copy is in the {_ordinal(oldest)}-newest committed group, "
                         f"which only a wait_group N with N < {oldest} retires")
            msg = (f"'{decl.name}' is read while the asynchronous operation that writes it "
                   f"(line {line}, {what}) may still be in flight: {state}; on some path no "
                   f"{_WAIT_NAMES.get(queue, queue + ' wait')} retires it first")
        return ctx.finding(self, step.node, msg, fn.name, notes)


def _commit(pending, queue):
    return frozenset((q, k, min(a + 1, _CAP) if q == queue else a, r) for q, k, a, r in pending)


def _join(a, b):
    return a[0] | b[0], a[1] & b[1], a[2] | b[2], a[3] | b[3]


class _IssuingThreads:
    """Which threads make an operation, from the thread-dependent decisions that control it
    (the function's uniformity analysis, asked for once)."""

    def __init__(self, ctx, fn):
        self._ctx, self._fn, self._analysis = ctx, fn, None

    def _decisions(self, node) -> set | None:
        if self._analysis is None:
            self._analysis = self._ctx.uniformity.analyze(self._fn)
        return self._analysis.decisions_at(node, above=Level.BLOCK)

    def every_one(self, node) -> bool:
        """Does every thread that reaches the function make it (no thread-dependent test)?"""
        return self._decisions(node) == set()

    def same_threads(self, issue, access) -> bool:
        """Is the access made only by threads that made the issue (every thread-dependent
        decision controlling the issue controls the access the same way)?"""
        mine, theirs = self._decisions(issue), self._decisions(access)
        return mine is not None and theirs is not None and mine <= theirs


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
