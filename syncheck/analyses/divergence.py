"""Where a synchronizing call is reached by only part of the threads that must reach it.

A primitive of scope S (block, grid, tile of N threads) is correct only under
control that is uniform over S. This service walks
every call tree from the roots, finds primitive sites whose controllers (in any frame) vary
more finely than S, and says where the divergence enters: at the primitive itself, or at the
call made under the innermost divergent decision (callers' divergent decisions further out
are kept as notes: each must be fixed).
"""

from __future__ import annotations

import itertools

from dataclasses import dataclass, field
from typing import Callable

from syncheck.analyses.constants import integer_constant
from syncheck.analyses.levels import Level
from syncheck.analyses.uniformity import Controller, Site, UniformityService, effective_controllers
from syncheck.ir.nodes import Node, strip_wrappers
from syncheck.ir.program import Function


@dataclass
class PartialReach:
    site: Site                 # the primitive call
    anchor_site: Site          # where to report: the primitive, or the call that enters divergence
    anchor_function: Function
    causes: list[Controller]   # the divergent decisions in the anchor's function
    chain: list[Site]          # calls below the anchor down to the primitive (empty: direct)
    allowed: Level             # the coarsest level the primitive tolerates
    # divergent decisions of callers further out: (the call made under them, the decisions)
    outer: list[tuple[Site, list[Controller]]] = field(default_factory=list)

    @property
    def anchor(self) -> Node:
        return self.anchor_site.node


# Threads per group at each level: the scope a decision must be the same over.
# (Grid-wide decisions, level UNIFORM, would need two blocks: not attempted.)
_GROUP = {Level.BLOCK: 1024, Level.WARPGROUP: 128, Level.WARP: 32, Level.TILE16: 16, Level.TILE8: 8, Level.TILE4: 4,
          Level.TILE2: 2}


def _proven_same(service: UniformityService, root, frames, depth: int, controller: Controller,
                 allowed: Level, proofs: dict, site: Site) -> bool:
    """Taint says the decision varies within the group; try to prove it does not, where the
    primitive runs: under the compile-time decisions around it (`if constexpr (CG == 1)`)."""
    if controller.kind not in ("if", "loop", "switch") or allowed not in _GROUP:
        return False
    context = tuple(f.site.node.id for f in frames[:depth])
    fixed = tuple((d, c.cond, c.polarity) for d, c in effective_controllers(site, frames)
                  if d <= depth and c.polarity is not None and _compile_time(c.cond))
    key = (root.key, context, controller.cond.id, allowed, tuple((d, n.id, p) for d, n, p in fixed))
    if key not in proofs:
        from syncheck.analyses.symbolic import same_for_every_thread
        proofs[key] = same_for_every_thread(service.program, service, root, frames[:depth], depth,
                                            controller.cond, _GROUP[allowed], fixed,
                                            value=controller.kind == "switch")
    return proofs[key]


def _loop_kept_by_guard(service: UniformityService, root, frames, depth: int, loop: Controller,
                        controllers: list, violating: list, proofs: dict) -> bool:
    """A loop whose threads run different trip counts, with the primitive under a guard inside
    it that the group decides alike and that implies the loop's own test (`for (i = lane; i <
    n; i += 32) if (i < align_down(n, 32)) __syncwarp();`): in the iterations where the guard
    lets the primitive run, every thread of the group is still in the loop. The loop counts up
    to its bound, so a thread in the loop at that iteration was in it at every earlier one."""
    if loop.kind != "loop" or loop.stmt is None or not _counts_up_to_bound(loop):
        return False
    for d, guard in controllers:
        if d != depth or guard.kind != "if" or guard.polarity is None or guard.stmt is None \
                or (d, guard) in violating:
            continue
        if not (loop.stmt.start <= guard.stmt.start and guard.stmt.end <= loop.stmt.end):
            continue
        key = ("implies", root.key, tuple(f.site.node.id for f in frames[:depth]), guard.cond.id,
               guard.polarity, loop.cond.id)
        if key not in proofs:
            from syncheck.analyses.symbolic import implies_for_every_thread
            proofs[key] = implies_for_every_thread(service.program, service, root, frames[:depth], depth,
                                                   guard.cond, guard.polarity, loop.cond)
        if proofs[key]:
            return True
    return False


def _counts_up_to_bound(loop: Controller) -> bool:
    """`for (...; i < n; i += s)` / `i <= n` with a positive constant step s (or `++i`)."""
    cond = strip_wrappers(loop.cond)
    if cond.kind != "BINARY_OPERATOR" or cond.op not in ("<", "<=") or len(cond.children) != 2:
        return False
    counter = strip_wrappers(cond.children[0])
    if counter.kind != "DECL_REF_EXPR" or counter.decl is None:
        return False
    inc = loop.stmt.child_by_role("inc") if loop.stmt.kind == "FOR_STMT" else None
    if inc is None:
        return False
    inc = strip_wrappers(inc)
    target = strip_wrappers(inc.children[0]) if inc.children else None
    if target is None or target.kind != "DECL_REF_EXPR" or target.decl is None or target.decl.key != counter.decl.key:
        return False
    if inc.kind == "UNARY_OPERATOR" and inc.op in ("++", "post++"):
        return True
    if inc.kind == "COMPOUND_ASSIGNMENT_OPERATOR" and inc.op == "+=" and len(inc.children) == 2:
        step = integer_constant(inc.children[1])
        return step is not None and step > 0
    return False


def _compile_time(cond: Node) -> bool:
    """A decision on template arguments and constants alone: fixed in each instantiation, so
    code under it runs only in instantiations where it holds."""
    refs = [n for n in cond.walk() if n.kind in ("DECL_REF_EXPR", "CALL_EXPR", "MEMBER_REF_EXPR")]
    return bool(refs) and all(n.kind == "DECL_REF_EXPR" and n.decl is not None
                              and n.decl.storage in ("template", "enum") for n in refs)


_ALL_LANES = (0xFFFFFFFF, -1)


def _whole_warp_test(controller: Controller) -> bool:
    """Is the code under the decision reached only with all 32 lanes of the warp there: the arm
    of `__activemask() == 0xffffffff` (of `mask != 0xffffffff`, the else arm) that a full
    warp's lanes take together?"""
    cond = strip_wrappers(controller.cond)
    if cond.kind != "BINARY_OPERATOR" or cond.op not in ("==", "!=") or len(cond.children) != 2 \
            or not controller.value.from_activemask:
        return False
    if controller.polarity is not (cond.op == "=="):
        return False
    constants = [integer_constant(side) for side in cond.children]
    if not any(c is not None and c & 0xFFFFFFFF == 0xFFFFFFFF for c in constants):
        return False
    other = strip_wrappers(cond.children[1 if constants[0] is not None else 0])
    return other.kind in ("DECL_REF_EXPR", "CALL_EXPR")  # the mask itself, not a mix of it


def _inside_whole_warp_test(controllers: list[tuple[int, Controller]]) -> list[tuple[int, Controller]]:
    """The decisions that still say which lanes of a warp reach code under the innermost
    whole-warp test (_whole_warp_test): those inside its arm. The decisions around it say
    nothing more: whatever they let through, the code under it runs only with the whole warp."""
    for i in range(len(controllers) - 1, -1, -1):
        depth, test = controllers[i]
        if _whole_warp_test(test) and test.stmt is not None:
            return [(d, c) for d, c in controllers
                    if d > depth or (d == depth and test.cond.end <= c.cond.start and c.cond.end <= test.stmt.end)]
    return controllers


def partial_reaches(service: UniformityService,
                    allowed_level: Callable[[Site], Level | None]) -> list[PartialReach]:
    found: dict[tuple, PartialReach] = {}
    proofs: dict[tuple, bool] = {}
    for root in service.root_functions():
        mine: dict[tuple, PartialReach] = {}
        _collect(service, root, service.walk_sites(root), allowed_level, mine, proofs)
        flags = service.flag_parameters(root) if mine else []
        if flags:
            # A flag is one value for the whole launch: a reach is real only where some choice
            # of the flags has it (`if (norms) { ...; __syncthreads(); nrm = s[0]; }` then
            # `norms ? nrm <= tol : res <= tol`: the thread-dependent value is never tested).
            seen: set[tuple] = set()
            for values in itertools.product((False, True), repeat=len(flags)):
                assumed = tuple(zip(flags, values))
                chosen: dict[tuple, PartialReach] = {}
                _collect(service, root, service.walk_sites(root, assumed), allowed_level, chosen, {})
                seen.update(chosen)
            mine = {key: reach for key, reach in mine.items() if key in seen}
        for key, reach in mine.items():
            found.setdefault(key, reach)
    return list(found.values())


def _collect(service: UniformityService, root, walked, allowed_level, found: dict, proofs: dict) -> None:
    """The partial reaches among one walk's sites, into ``found`` (first by place)."""
    for site, frames in walked:
        if site.prim is None:
            continue
        allowed = allowed_level(site)
        if allowed is None:
            continue
        controllers = effective_controllers(site, frames)
        if allowed >= Level.WARP:
            controllers = _inside_whole_warp_test(controllers)
        violating = [(d, c) for d, c in controllers if c.level > allowed
                     and not _proven_same(service, root, frames, d, c, allowed, proofs, site)]
        violating = [(d, c) for d, c in violating
                     if not _loop_kept_by_guard(service, root, frames, d, c, controllers, violating, proofs)]
        if not violating:
            continue
        # Reported where the innermost divergent decision is: fixing a caller's
        # `if (mask)` alone would leave it. Callers' decisions become notes.
        depth = max(d for d, _ in violating)
        causes = [c for d, c in violating if d == depth]
        if depth < len(frames):
            anchor_site = frames[depth].site
            chain = [f.site for f in frames[depth + 1:]] + [site]
        else:
            anchor_site, chain = site, []
        key = (anchor_site.node.line, anchor_site.node.col, site.node.line, site.prim.category)
        if key in found:
            continue
        outer = [(frames[d].site, [c for e, c in violating if e == d])
                 for d in sorted({d for d, _ in violating if d < depth})]
        found[key] = PartialReach(site, anchor_site, anchor_site.function, causes,
                                  chain, allowed, outer)


