"""SYN402 implicit-warp-synchronous: lanes of a warp exchange data through shared memory
without __syncwarp(), relying on lockstep execution.

The steps of one exchange (every step of a volatile tree reduction, every broadcast through
one slot) are one finding, reported at its first racing step, the other steps as notes.

Fix (unsafe: it adds synchronization): put `__syncwarp();` before the statement of the later
access of every step, where that statement is reached by whole warps in every context. When
that statement also writes what another lane reads in it (`s[t] += s[t + 16]`), the read is
split from the write with a second `__syncwarp()`. No fix is offered unless every step has one."""

from __future__ import annotations

from syncheck.analyses.levels import Level
from syncheck.checks.base import Check, CheckContext
from syncheck.checks.fix_points import (control_level, exact_text, function_of, inside,
                                        insert_before, statement_path)
from syncheck.checks.divergent_sync import barrier_skipping_decisions
from syncheck.checks.shared_races import (access_text, by_line, follows_skipped_barrier, kernel_races, ordered,
                                          shape_note, told_at, unknown_helper_notes)
from syncheck.diagnostics import UNSAFE, Edit, Fix

_SPLIT_OPS = ("COMPOUND_ASSIGNMENT_OPERATOR", "BINARY_OPERATOR")


class ImplicitWarpSynchronous(Check):
    code = "SYN402"
    name = "implicit-warp-synchronous"

    def run(self, ctx: CheckContext):
        skipping = None
        for kernel, race in kernel_races(ctx):
            if not race.intra_warp_only:
                continue
            if race.parted_at:
                skipping = barrier_skipping_decisions(ctx) if skipping is None else skipping
                if follows_skipped_barrier(race, kernel, skipping):
                    continue  # a note of the SYN101 finding on that barrier
            first, second = ordered(race)
            example = ""
            if race.threads:
                a, b = (_lane(t, race.shape) for t in race.threads)
                example = f" (for example lanes {a} and {b} of one warp)"
            names = list(dict.fromkeys(r.second.name for r in [race] + race.other_members))
            arrays = " and ".join(f"'{n}'" for n in names)
            steps = len(race.other_members)
            more = (f"; {steps} more step{'s' if steps > 1 else ''} of the exchange race the same way "
                    f"(see the notes)") if steps else ""
            message = (f"lanes of one warp exchange data through shared {arrays} with no "
                       f"__syncwarp(): one lane {access_text(ctx, first)} (line {first.line}) and "
                       f"another {access_text(ctx, second)} (line {second.line}){example}{more}; "
                       f"since Volta lanes do not run in lockstep and 'volatile' does not order "
                       f"them: put __syncwarp() between the steps")
            at, where = told_at(ctx, race, first, second)
            notes = [] if first is second else [ctx.note(first.node, f"the other access: {access_text(ctx, first)}")]
            finding = ctx.finding(self, at, message, kernel.name,
                                  notes + where + [shape_note(ctx, race, kernel)] + unknown_helper_notes(ctx, race) + _step_notes(ctx, race))
            finding.fix = _exchange_fix(ctx, race)
            yield finding


def _lane(thread: tuple[int, int, int], shape: tuple[int, int, int]) -> int:
    """The lane of a thread (x, y, z): its place in the block's x-fastest order, modulo 32
    (in a 4x4 block, thread (0, 1) is lane 4)."""
    x, y, z = thread
    width, height = (shape[0], shape[1]) if shape and shape[0] else (0, 0)
    return (x + width * (y + height * z)) % 32 if width else x % 32


def _step_notes(ctx: CheckContext, race) -> list:
    """The exchange's other steps (told with the finding by races._one_per_warp_exchange)."""
    notes = []
    for step in race.other_members:
        a, b = ordered(step)
        notes.append(ctx.note(b.node, f"another step with no __syncwarp(): one lane "
                                      f"{access_text(ctx, a)} (line {a.line}) and another "
                                      f"{access_text(ctx, b)} (line {b.line})"))
    return notes


def _exchange_fix(ctx: CheckContext, race) -> Fix | None:
    """One fix for every step of the exchange: the steps' own fixes together, offered only
    when each step has one and they do not collide (a step whose read is split and another
    whose __syncwarp() would go before the same statement need only the split)."""
    fixes = [_syncwarp_fix(ctx, *by_line(step)) for step in [race] + race.other_members]
    if any(f is None for f in fixes):
        return None
    if len(fixes) == 1:
        return fixes[0]
    edits = list({(e.line, e.column, e.end_line, e.end_column, e.replacement): e
                  for f in fixes for e in f.edits}.values())
    replaced = {(e.line, e.column) for e in edits if (e.line, e.column) != (e.end_line, e.end_column)}
    edits = [e for e in edits if (e.line, e.column) != (e.end_line, e.end_column)
             or (e.line, e.column) not in replaced]
    edits.sort(key=lambda e: (e.line, e.column))
    for a, b in zip(edits, edits[1:]):
        if (b.line, b.column) < (a.end_line, a.end_column) or (b.line, b.column) == (a.line, a.column):
            return None
    split = any("between its read" in f.message for f in fixes)
    return Fix("put __syncwarp() before every step" + (" and between a step's read and its write"
                                                       if split else ""), UNSAFE, edits)


def _syncwarp_fix(ctx: CheckContext, first, second) -> Fix | None:
    fn = function_of(ctx, second.node)
    if fn is None or function_of(ctx, first.node) is not fn:
        return None
    path = statement_path(fn.body, second.node)
    if not path:
        return None
    _, stmt = path[-1]
    level = control_level(ctx, fn, stmt)
    if level is None or level > Level.WARP:
        return None  # a full-mask __syncwarp() there would itself be divergent
    split = _split(ctx, stmt, second)
    if split is not None:
        return Fix("put __syncwarp() before this step and between its read and its write",
                   UNSAFE, [split])
    if inside(stmt, first.node):
        return None  # both accesses in one statement that cannot be split
    return Fix("put __syncwarp() before this step", UNSAFE, [insert_before(ctx, stmt, "__syncwarp();")])


def _split(ctx: CheckContext, stmt, second) -> Edit | None:
    """`s[t] op= s[u];` -> `__syncwarp(); auto v = s[u]; __syncwarp(); s[t] op= v;` when
    the later access is the right-hand read of an assignment to the same shared array."""
    if stmt.kind not in _SPLIT_OPS or len(stmt.children) != 2 or stmt.line != stmt.end_line:
        return None
    op = (stmt.op or "")
    if not op.endswith("=") or op in ("==", "!=", "<=", ">="):
        return None
    lhs, rhs = stmt.children
    if not inside(rhs, second.node) or second.name not in (exact_text(ctx, lhs) or ""):
        return None
    left, right = exact_text(ctx, lhs), exact_text(ctx, rhs)
    if not left or not right:
        return None
    temp = f"syncheck_lane_value_{stmt.line}"
    text = f"__syncwarp(); auto {temp} = {right}; __syncwarp(); {left} {op} {temp}"
    return Edit(ctx.path, stmt.line, stmt.col, stmt.end_line, stmt.end_col, text)
