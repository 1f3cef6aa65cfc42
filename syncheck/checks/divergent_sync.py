"""Shared wording for the divergent-synchronization rules (SYN101-SYN103)."""

from __future__ import annotations

from dataclasses import replace

from syncheck.analyses.divergence import PartialReach, partial_reaches
from syncheck.analyses.levels import Level
from syncheck.checks.base import Check, CheckContext
from syncheck.diagnostics import Note, Severity
from syncheck.ir.nodes import Node


def _inside(stmt, node) -> bool:
    return stmt is not None and stmt.start <= node.start and node.end <= stmt.end


def primary_cause(reach: PartialReach):
    """The most divergent decision; among equals, the innermost one enclosing the anchor."""
    top = max(c.level for c in reach.causes)
    tied = [c for c in reach.causes if c.level == top]
    enclosing = [c for c in tied if _inside(c.stmt, reach.anchor)]
    if enclosing:
        return max(enclosing, key=lambda c: c.cond.start)
    return tied[0]


def describe_cause(ctx: CheckContext, reach: PartialReach) -> str:
    """Why only part of the group gets there, in one clause."""
    cause = primary_cause(reach)
    cond = ctx.text(cause.cond)
    level = cause.level.describe()
    if cause.kind == "loop":
        if _inside(cause.stmt, reach.anchor):
            return f"it is inside a loop whose exit condition '{cond}' is {level}, so threads run different trip counts"
        return f"threads leave the loop on '{cond}' ({level}) at different times"
    if cause.kind == "ternary":
        return f"it is in an arm of '?:' whose condition '{cond}' is {level}"
    if cause.kind == "logical":
        return f"it is on the right of '&&'/'||' whose left side '{cond}' is {level}"
    if cause.kind == "switch":
        return f"it is under 'switch ({cond})', which is {level}"
    if cause.stmt is not None and not _inside(cause.stmt, reach.anchor):
        return (f"threads for which '{cond}' decides otherwise ({level}) leave early "
                f"(line {cause.cond.line}) and never get here")
    return f"it is under the condition '{cond}', which is {level}"


def cause_notes(ctx: CheckContext, reach: PartialReach, told_at: Node | None = None) -> list[Note]:
    notes = []
    at_primitive = bool(reach.chain) and told_at is reach.site.node
    if at_primitive:
        call = reach.anchor_site
        notes.append(Note(ctx.function_path(call.function), call.node.line, call.node.col,
                          f"'{call.function.name}' calls '{call.callee.name if call.callee else '?'}' "
                          f"here, where only part of the group runs"))
    for cause in sorted(reach.causes, key=lambda c: (c.cond.line, c.cond.col)):
        why = cause.value.origin.describe() if cause.value.origin else cause.level.describe()
        notes.append(ctx.note(cause.cond, f"'{ctx.text(cause.cond)}' is {cause.level.describe()}: {why}"))
    for call, outer_causes in reach.outer:
        conds = " and ".join(f"'{ctx.text(c.cond)}'" for c in outer_causes)
        level = max(c.level for c in outer_causes).describe()
        notes.append(Note(ctx.function_path(call.function), call.node.line, call.node.col,
                          f"this call of '{call.callee.name if call.callee else '?'}' is also under "
                          f"{conds}, which is {level}: only part of the group makes it"))
    for call in reach.chain[:-1]:
        fn = call.function
        notes.append(Note(ctx.function_path(fn), call.node.line, call.node.col,
                          f"'{fn.name}' calls '{call.callee.name if call.callee else '?'}' here"))
    if reach.chain and not at_primitive:
        prim_site = reach.chain[-1]
        fn = prim_site.function
        notes.append(Note(ctx.function_path(fn), prim_site.node.line,
                          prim_site.node.col, f"{prim_site.prim.name} is reached here, in '{fn.name}'"))
    return notes


def subject(reach: PartialReach, told_at: Node | None = None) -> str:
    """'__syncthreads()' or "the call to 'f', which reaches __syncthreads() (line 12)," (told at
    the call), or "__shfl_sync, reached through the call to 'f' (line 30)," (told at the
    primitive)."""
    name = reach.site.prim.name
    if not reach.chain:
        return name
    callee = reach.anchor_site.callee
    callee_name = callee.name if callee else '?'
    if told_at is reach.site.node:
        return f"{name}, reached through the call to '{callee_name}' (line {reach.anchor.line}),"
    return f"the call to '{callee_name}', which reaches {name} (line {reach.site.node.line}),"


def helpers_called_once(ctx: CheckContext, reach: PartialReach) -> bool:
    """Is every helper on the way from the reported call down to the primitive called at
    that one place in the file (code written for this caller alone)?"""
    calls = ctx.memo.get("device calls")
    if calls is None:
        calls = ctx.memo["device calls"] = ctx.program.device_calls()
    helpers = [reach.anchor_site.callee] + [site.callee for site in reach.chain[:-1]]
    return all(h is not None and len(calls.get(h.key, ())) == 1 for h in helpers)


class PartialReachCheck(Check):
    """A rule about a synchronizing call reached by only part of its group. Subclasses say
    which calls they judge and how coarse the control over them may be (``allowed``), and
    word the finding (``explain``); the reach itself comes from the shared divergence service."""

    def allowed(self, site) -> Level | None:
        raise NotImplementedError

    def explain(self, ctx: CheckContext, reach: PartialReach) -> str:
        raise NotImplementedError

    def fix(self, ctx: CheckContext, reach: PartialReach):
        """The Fix offered for a finding (None: no fix)."""
        return None

    def accepts(self, ctx: CheckContext, reach: PartialReach) -> bool:
        """Is this partial reach this rule's to report?"""
        return True

    def severity_of(self, ctx: CheckContext, reach: PartialReach) -> Severity:
        """The finding's severity: the rule's, or a milder one for a milder form of it."""
        return self.severity

    def consequence_notes(self, ctx: CheckContext, reach: PartialReach) -> list[Note]:
        """Notes on what else the partial reach causes (told here, not as findings of their own)."""
        return []

    def told_at(self, ctx: CheckContext, reach: PartialReach) -> Node:
        """Where the finding is told: the call that enters divergence (the primitive itself
        where it is reached directly)."""
        return reach.anchor

    # Finer-scope rules (tile, warp) leave a decision to the block-barrier rule when it
    # already makes a block barrier partial: one bug, one finding.
    defers_to_block_barriers: bool = False

    def run(self, ctx: CheckContext):
        taken = block_barrier_causes(ctx) if self.defers_to_block_barriers else set()
        reaches = sorted((r for r in partial_reaches(ctx.uniformity, self.allowed)
                          if r.anchor_function.reported and self.accepts(ctx, r)),
                         key=lambda r: (r.anchor.line, r.anchor.col, r.site.node.line))
        # Every reach under one decision is one bug (the decision, or the early exit, that
        # parts the group): the first direct primitive under it (else the first call that
        # reaches one) is the finding, the others are its notes; the first of the most severe
        # where they differ (a barrier after exits whose later read takes what the exited
        # threads would have stored, before the barriers they only skip).
        rank = {id(r): _SEVERITY_RANK[self.severity_of(ctx, r)] for r in reaches}
        reaches.sort(key=lambda r: -rank[id(r)])  # stable: textual order within a severity
        direct = {_cause_key(r): r for r in reversed(reaches) if not r.chain}
        merged: dict[int, list[PartialReach]] = {}
        owners: dict[tuple, PartialReach] = {}
        kept = []
        for reach in reaches:
            if taken:
                reach = _without_taken_causes(reach, taken)
                if reach is None:
                    continue
            cause = _cause_key(reach)
            owner = direct.get(cause) or owners.get(cause)
            if owner is not None and owner is not reach:
                merged.setdefault(id(owner), []).append(reach)
            else:
                owners[cause] = reach
                kept.append(reach)
        for reach in kept:
            told_at = self.told_at(ctx, reach)
            notes = cause_notes(ctx, reach, told_at) + self.consequence_notes(ctx, reach)
            for other in merged.get(id(reach), ()):
                notes.append(ctx.note(other.anchor, f"the same decision also lets part of the group "
                                                    f"skip {subject(other).rstrip(',')} here"))
            finding = ctx.finding(self, told_at, self.explain(ctx, reach), reach.anchor_function.name, notes)
            finding.severity = self.severity_of(ctx, reach)
            if not merged.get(id(reach)):
                finding.fix = self.fix(ctx, reach)
            yield finding


_SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def skipped_only_by_exits(ctx: CheckContext, reach: PartialReach) -> bool:
    """Do only threads that left the kernel miss the barrier, with no read after it of what
    they would have stored (SYN101's warning form: it completes since Volta)?"""
    from syncheck.checks.shared_races import stale_read
    return exits_kernel_only(reach) and stale_read(ctx, reach) is None


def exits_kernel_only(reach: PartialReach) -> bool:
    """Do the threads that miss the primitive miss it only by returning from the kernel?
    Either they return before it (`if (i >= n) return;` before a barrier), or the primitive
    sits in the arm of an `if` that ends the kernel (`if (i < n) { ... __syncthreads(); ... }`
    with nothing after it): the two spellings do the same. Exited threads do not hold a
    barrier up."""
    fn = reach.anchor_function
    if fn.kind != "kernel" or fn.body_node is None or not reach.causes:
        return False
    for cause in reach.causes:
        stmt = cause.stmt
        if cause.kind != "if" or stmt is None or stmt.kind != "IF_STMT" or cause.polarity is None:
            return False
        missed = stmt.child_by_role("then" if cause.polarity is False else "else")
        if _inside(stmt, reach.anchor):
            if not (_does_nothing(missed) and _ends_kernel(fn.body_node, stmt)):
                return False
        elif not _returns(missed):
            return False
    return True


def _returns(arm) -> bool:
    if arm is not None and arm.kind == "COMPOUND_STMT" and arm.children:
        arm = arm.children[-1]
    return arm is not None and arm.kind == "RETURN_STMT"


def _does_nothing(arm) -> bool:
    """An absent or empty arm, or one that only returns."""
    if arm is None or arm.kind == "NULL_STMT":
        return True
    if arm.kind == "COMPOUND_STMT":
        return all(_does_nothing(c) for c in arm.children)
    return arm.kind == "RETURN_STMT" and not arm.children


def _ends_kernel(body, stmt) -> bool:
    """Is nothing run after stmt in the kernel body (it is last in each enclosing block,
    through `if` arms only: a loop around it would run it again)?"""
    if body is stmt:
        return True
    if not _inside(body, stmt):
        return False
    if body.kind == "COMPOUND_STMT":
        for i, child in enumerate(body.children):
            if _inside(child, stmt):
                return all(_does_nothing(c) for c in body.children[i + 1:]) and _ends_kernel(child, stmt)
        return False
    if body.kind == "IF_STMT":
        return any(arm is not None and _inside(arm, stmt) and _ends_kernel(arm, stmt)
                   for arm in (body.child_by_role("then"), body.child_by_role("else")))
    return False


def _without_taken_causes(reach: PartialReach, taken: set[tuple]) -> PartialReach | None:
    """The reach told by the decisions of its own, where a block-barrier finding already
    tells the others (a lane that returns on `rdx < 0` after the whole block got past an
    earlier exit's barrier is a bug of its own); None when the decisions that part the group
    most are all told already."""
    key = lambda c: (reach.anchor_function.key, c.cond.id)
    own = [c for c in reach.causes if key(c) not in taken]
    if not own:
        return None
    if len(own) == len(reach.causes):
        return reach
    if max(c.level for c in own) < max(c.level for c in reach.causes):
        return None  # the told decisions part it at a coarser level: the same bug
    return replace(reach, causes=own)


def _cause_key(reach: PartialReach) -> tuple:
    """A partial reach's decisive cause: the divergent decision (its node) in its function."""
    cause = primary_cause(reach)
    return reach.anchor_function.key, cause.cond.id


def block_barrier_causes(ctx: CheckContext) -> set[tuple]:
    """Decisions that make a block barrier partial and that SYN101 reports as an error: a
    warp-level finding under the same decision is the same bug. A barrier skipped only by
    threads that left the kernel, with no stale read after it (a SYN101 warning: it completes
    since Volta), takes nothing: a full-mask warp collective after such an exit still reads
    lanes that left, an error of its own."""
    return {_cause_key(r) for r in reported_block_barrier_reaches(ctx)}


def reported_block_barrier_reaches(ctx: CheckContext) -> list[PartialReach]:
    """The partial reaches of block barriers that SYN101 reports as errors (not the barriers
    only exited threads skip), found once per file."""
    cached = ctx.memo.get("reported block barrier reaches")
    if cached is None:
        from syncheck.analyses import primitives as P
        block = lambda site: Level.BLOCK if site.prim.category == P.BLOCK_BARRIER else None
        cached = [r for r in partial_reaches(ctx.uniformity, block)
                  if r.anchor_function.reported and not skipped_only_by_exits(ctx, r)]
        ctx.memo["reported block barrier reaches"] = cached
    return cached


def barrier_skipping_decisions(ctx: CheckContext) -> set[tuple]:
    """(function key, condition node id) of every decision that lets part of a block skip a
    barrier SYN101 reports (each cause, not only the primary one)."""
    cached = ctx.memo.get("barrier skipping decisions")
    if cached is None:
        cached = {(r.anchor_function.key, c.cond.id) for r in reported_block_barrier_reaches(ctx)
                  for c in r.causes if c.cond is not None}
        ctx.memo["barrier skipping decisions"] = cached
    return cached
