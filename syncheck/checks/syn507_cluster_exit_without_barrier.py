"""SYN507 cluster-exit-without-barrier: distributed shared memory accessed, or a remote
mbarrier arrive issued, with no cluster barrier arrive+wait after it before the block exits."""

from __future__ import annotations

from syncheck.analyses import async_ops as A
from syncheck.analyses.async_flow import EVENT, EXIT, FunctionSteps, solve
from syncheck.analyses.launch_shapes import launches_of
from syncheck.checks.base import Check, CheckContext

_REMOTE = (A.DSM_MAP, A.DSM_ACCESS)


class ClusterExitWithoutBarrier(Check):
    code = "SYN507"
    name = "cluster-exit-without-barrier"

    def run(self, ctx: CheckContext):
        program = ctx.program
        for fn in program.kernels:
            if not fn.in_main_file or fn.body is None or fn.has_errors or not program.analyzed_generically(fn):
                continue
            if not fn.mentions("mapa", "map_shared_rank", "shared::cluster", "cluster"):
                continue
            if _single_block_clusters(program, fn):
                continue
            steps = FunctionSteps(program, fn)
            if not any(_remote(s.event) for s in steps.events()):
                continue
            yield from self._kernel(ctx, fn, steps)

    def _kernel(self, ctx, fn, steps):
        nodes = {}
        findings = []
        seen: set[int] = set()

        def transfer(state, step, emit):
            if step.kind == EXIT:
                if state and emit is not None:
                    for nid, phase in sorted(state):
                        emit(nodes[nid], phase)
                return state
            if step.kind != EVENT:
                return state
            ev = step.event
            if _remote(ev):
                nodes[step.node.id] = step
                return state | {(step.node.id, "accessed")}
            if ev.kind == A.CLUSTER_SYNC:
                return frozenset()
            if ev.kind == A.CLUSTER_ARRIVE:
                return frozenset((n, "arrived") for n, _ in state)
            if ev.kind == A.CLUSTER_WAIT:
                return frozenset((n, p) for n, p in state if p != "arrived")
            return state

        def report(step, phase):
            if step.node.id in seen:
                return
            seen.add(step.node.id)
            what = {A.DSM_MAP: "distributed shared memory of another block is accessed",
                    A.DSM_ACCESS: "distributed shared memory is accessed"}.get(
                step.event.kind, "a remote mbarrier/shared-memory operation targets another block")
            why = ("the cluster barrier is arrived at but not waited for before the block exits"
                   if phase == "arrived" else
                   "no cluster barrier (barrier.cluster.arrive + wait, or cluster.sync()) follows "
                   "it on some path before the block exits")
            findings.append(ctx.finding(self, step.node, (
                f"{what} here, and {why}: the other block may have exited and its shared memory "
                f"be gone (or reused) when the access lands"), fn.name))

        solve(steps, frozenset(), transfer, lambda a, b: a | b, report)
        return findings


def _remote(ev) -> bool:
    return ev.kind in _REMOTE or (ev.remote and ev.kind in (A.MBAR_ARRIVE, A.MBAR_EXPECT_TX, A.BULK_STORE))


# What code that makes clusters of more than one block names: the kernel's attribute, the
# launch attribute (runtime and driver) and the function attribute that requires a width.
_CLUSTER_MAKERS = ("__cluster_dims__", "ClusterDimension", "CLUSTER_DIMENSION", "clusterDim",
                   "RequiredClusterWidth", "REQUIRED_CLUSTER_WIDTH")


def _single_block_clusters(program, fn) -> bool:
    """Is every launch of the kernel in this file a launch in clusters of one block (launched
    here, with no cluster shape anywhere in the file)? Then a `mapa` to rank 0 names the
    block's own shared memory, which cannot be gone before the block itself is."""
    if not launches_of(program, fn):
        return False
    return not any(word in line for line in program.source_lines for word in _CLUSTER_MAKERS)
