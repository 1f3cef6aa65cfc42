"""SYN503 missing-proxy-fence: generic-proxy writes to shared memory consumed by the async
proxy (wgmma operands, bulk/TMA stores) with no fence.proxy.async in between on some path."""

from __future__ import annotations

from syncheck.analyses import async_ops as A
from syncheck.analyses.async_flow import BARRIER, EVENT, WRITE, FunctionSteps, analyzable_functions, solve
from syncheck.checks.base import Check, CheckContext


_WRITTEN, _PAST_BARRIER, _FENCED_LATE = "written", "past a barrier", "fenced after the barrier"


class MissingProxyFence(Check):
    code = "SYN503"
    name = "missing-proxy-fence"

    def run(self, ctx: CheckContext):
        seen: set[tuple[int, int]] = set()
        for fn in analyzable_functions(ctx.program):
            if not fn.mentions("wgmma", "cp.async.bulk", "mma_async", "tma_store", "cp_async_bulk"):
                continue
            yield from self._function(ctx, fn, seen)

    def _function(self, ctx, fn, seen):
        steps = FunctionSteps(ctx.program, fn)
        consumers = [s for s in steps.events() if s.event.kind in (A.WGMMA_MMA, A.BULK_STORE)]
        if not consumers:
            return
        writes: dict[str, tuple] = {}
        findings = []

        # The state: the arrays with generic writes the async proxy may not see yet, each with
        # how far it got: written (the writing thread's own fence covers it), past a barrier
        # with no fence (other threads now go on: a fence after the barrier is too late for
        # them, it needs a barrier after it as well), or fenced after the barrier (published
        # by the next barrier).
        def transfer(state, step, emit):
            if step.kind == WRITE and step.space == "shared":
                writes.setdefault(step.decl.key, (step.node, step.decl))
                return state | {(step.decl.key, _WRITTEN)}
            if step.kind == BARRIER:
                return _past_barrier(state)
            if step.kind != EVENT:
                return state
            ev = step.event
            if ev.kind == A.PROXY_FENCE:
                return frozenset((key, _FENCED_LATE) for key, stage in state if stage != _WRITTEN)
            if ev.kind == A.NAMED_SYNC:  # a named barrier orders its threads as __syncthreads() does
                return _past_barrier(state)
            if ev.kind == A.ASYNC_COPY:  # cp.async (non-bulk) writes through the generic proxy
                d = steps.shared_of(ev.dst)
                if d is not None:
                    writes.setdefault(d.key, (step.node, d))
                    return state | {(d.key, _WRITTEN)}
                return state
            if ev.kind in (A.WGMMA_MMA, A.BULK_STORE) and state and emit is not None:
                sources = [ev.src] if ev.kind == A.BULK_STORE else list(ev.inputs)
                keys = {d.key for d in (steps.shared_of(x) for x in sources) if d is not None}
                hit = sorted((key, stage) for key, stage in state if not keys or key in keys)
                if hit:
                    emit(step, hit, bool(keys))
            return state

        def report(step, hit, resolved):
            where = (step.node.line, step.node.col)
            if where in seen:
                return
            seen.add(where)
            keys = sorted({key for key, _ in hit})
            node, decl = writes[keys[0]]
            consumer = "wgmma reads its shared-memory operands" if step.event.kind == A.WGMMA_MMA \
                else "the bulk copy reads its shared-memory source"
            names = " and ".join(f"'{writes[k][1].name}'" for k in keys)
            target = names if resolved else f"shared memory ({names} was written)"
            if all(stage == _FENCED_LATE for _, stage in hit):
                msg = (f"{consumer} through the async proxy, but {target} was written through the "
                       f"generic proxy (line {node.line}) by threads whose fence.proxy.async comes "
                       f"after the barrier that lets this thread go on: nothing orders their fences "
                       f"before this read; fence first, then synchronize")
            else:
                msg = (f"{consumer} through the async proxy, but {target} was written through the "
                       f"generic proxy (line {node.line}) with no fence.proxy.async (or "
                       f"fence_view_async_shared()) in between on some path: the async proxy may "
                       f"read stale data")
            notes = [ctx.note(node, f"generic-proxy write to '{decl.name}' here")]
            if not resolved:
                notes.append(ctx.note(step.node, "the operands' shared arrays could not be resolved "
                                                 "from the descriptors: any unfenced shared write counts"))
            findings.append(ctx.finding(self, step.node, msg, fn.name, notes))

        solve(steps, frozenset(), transfer, lambda a, b: a | b, report)
        yield from findings


def _past_barrier(state: frozenset) -> frozenset:
    """Past a barrier, other threads go on: writes fenced before it are published, the rest
    wait for a fence and another barrier."""
    return frozenset((key, _PAST_BARRIER) for key, stage in state if stage != _FENCED_LATE)
