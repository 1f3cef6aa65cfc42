"""SYN401 shared-memory-race: two threads touch one shared element with no barrier between.

Fix (unsafe: it adds a barrier): `__syncthreads();` before the statement that holds the later
access, in the innermost block of statements that holds both accesses in different
statements, when every thread of the block reaches that point (it is block-uniform in every
context). A finding that stands for several races one barrier orders puts it before the
access that comes first among their later accesses. Where no such point exists (the accesses share a statement, or the point is under a
thread-dependent branch) no fix is offered."""

from __future__ import annotations

from syncheck.checks.base import Check, CheckContext
from syncheck.analyses.levels import Level
from syncheck.checks.fix_points import control_level, function_of, insert_before, statement_path
from syncheck.diagnostics import UNSAFE, Fix
from syncheck.checks.divergent_sync import barrier_skipping_decisions
from syncheck.checks.shared_races import (access_text, at_calls, by_line, follows_skipped_barrier, kernel_races,
                                          member_notes, ordered, shape_note, thread_name, told_at,
                                          unknown_helper_notes)


class SharedMemoryRace(Check):
    code = "SYN401"
    name = "shared-memory-race"

    def run(self, ctx: CheckContext):
        skipping = None
        for kernel, race in kernel_races(ctx):
            if race.intra_warp_only:
                continue  # SYN402
            if race.parted_at:
                skipping = barrier_skipping_decisions(ctx) if skipping is None else skipping
                if follows_skipped_barrier(race, kernel, skipping):
                    continue  # a note of the SYN101 finding on that barrier
            first, second = ordered(race)
            three_d = bool(race.threads) and any(t[1] or t[2] for t in race.threads)
            example = ""
            if race.threads:
                t1, t2 = race.threads
                example = (f" (for example threads {thread_name(t1, three_d)} and "
                           f"{thread_name(t2, three_d)})")
            same = first is second
            if same:
                verb = "update" if first.read and first.write else "write"
                message = (f"data race on shared '{first.name}': different threads {verb} the "
                           f"same element through '{ctx.text(first.node)}'{example} with no "
                           f"barrier in between")
            elif first.name != second.name and _in_union(first) and _in_union(second):
                message = (f"data race on shared '{first.name}' and '{second.name}', members of "
                           f"one union: one thread {access_text(ctx, first)} (line {first.line}) "
                           f"and another {access_text(ctx, second)} (line {second.line}), the "
                           f"same bytes{example}, with no __syncthreads() between them")
            else:
                message = (f"data race on shared '{first.name}': one thread "
                           f"{access_text(ctx, first)} (line {first.line}) and another "
                           f"{access_text(ctx, second)} (line {second.line}), the same element"
                           f"{example}, with no __syncthreads() between them")
            at, where = told_at(ctx, race, first, second)
            notes = [] if same else [ctx.note(first.node, f"the other access: {access_text(ctx, first)}")]
            notes += where
            if not same and second.point != first.point:
                notes.append(ctx.note(at, "put a barrier on every path between the two accesses"))
            finding = ctx.finding(self, at, message, kernel.name, notes + [shape_note(ctx, race, kernel)] + unknown_helper_notes(ctx, race) + member_notes(ctx, race))
            if not same:
                finding.fix = barrier_fix(ctx, *at_calls(*(race.barrier_way or by_line(race))),
                                          at_later_access=race.barrier_round_loop)
            yield finding


def _in_union(access) -> bool:
    """Is the access to a member of a union (its place there is a member offset)?"""
    return any(o.member for o in access.offsets)


def barrier_fix(ctx: CheckContext, first, second, at_later_access: bool = False) -> Fix | None:
    """A barrier before the statement holding ``second`` where the two accesses part (the
    outermost place between them); with ``at_later_access``, right before the statement
    holding ``second`` itself, inside any loop around it (where it also orders a way round
    that loop)."""
    fn = function_of(ctx, second.node)
    if fn is None or function_of(ctx, first.node) is not fn:
        return None
    a_path = statement_path(fn.body, first.node)
    b_path = statement_path(fn.body, second.node)
    point = None
    for (ca, sa), (cb, sb) in zip(a_path, b_path):
        if ca is not cb:
            break
        if sa is not sb:
            if (sa.line, sa.col) < (sb.line, sb.col):
                point = sb
            break
    if at_later_access and b_path:
        point = b_path[-1][1]
    if point is None:
        return None
    level = control_level(ctx, fn, point)
    if level is None or level > Level.BLOCK:
        return None
    return Fix("put __syncthreads() between the two accesses", UNSAFE,
               [insert_before(ctx, point, "__syncthreads();")])
