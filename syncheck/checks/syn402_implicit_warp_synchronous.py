"""SYN402 implicit-warp-synchronous: lanes of a warp exchange data through shared memory
without __syncwarp(), relying on lockstep execution.

Fix (unsafe: it adds synchronization): put `__syncwarp();` before the statement of the later
access, where that statement is reached by whole warps in every context. When that statement
also writes what another lane reads in it (`s[t] += s[t + 16]`), the read is split from the
write with a second `__syncwarp()`."""

from __future__ import annotations

from syncheck.analyses.levels import Level
from syncheck.checks.base import Check, CheckContext
from syncheck.checks.fix_points import (control_level, exact_text, function_of, inside,
                                        insert_before, statement_path)
from syncheck.checks.shared_races import access_text, by_line, kernel_races, member_notes, ordered, shape_note
from syncheck.diagnostics import UNSAFE, Edit, Fix

_SPLIT_OPS = ("COMPOUND_ASSIGNMENT_OPERATOR", "BINARY_OPERATOR")


class ImplicitWarpSynchronous(Check):
    code = "SYN402"
    name = "implicit-warp-synchronous"

    def run(self, ctx: CheckContext):
        for kernel, race in kernel_races(ctx):
            if not race.intra_warp_only:
                continue
            first, second = ordered(race)
            example = ""
            if race.threads:
                a, b = (_lane(t, race.shape) for t in race.threads)
                example = f" (for example lanes {a} and {b} of one warp)"
            message = (f"lanes of one warp exchange data through shared '{first.name}' with no "
                       f"__syncwarp(): one lane {access_text(ctx, first)} (line {first.line}) and "
                       f"another {access_text(ctx, second)} (line {second.line}){example}; since "
                       f"Volta lanes do not run in lockstep and 'volatile' does not order them: put "
                       f"__syncwarp() between the steps")
            notes = [] if first is second else [ctx.note(first.node, f"the other access: {access_text(ctx, first)}")]
            finding = ctx.finding(self, second.node, message, kernel.name, notes + [shape_note(ctx, race, kernel)] + member_notes(ctx, race))
            finding.fix = _syncwarp_fix(ctx, *by_line(race))
            yield finding


def _lane(thread: tuple[int, int, int], shape: tuple[int, int, int]) -> int:
    """The lane of a thread (x, y, z): its place in the block's x-fastest order, modulo 32
    (in a 4x4 block, thread (0, 1) is lane 4)."""
    x, y, z = thread
    width, height = (shape[0], shape[1]) if shape and shape[0] else (0, 0)
    return (x + width * (y + height * z)) % 32 if width else x % 32


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
