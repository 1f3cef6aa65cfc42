"""Shared wording and caching for the shared-memory rules (SYN401, SYN402)."""

from __future__ import annotations

from dataclasses import replace

from syncheck.analyses.races import (SMALLEST_SHAPE, Race, StaleRead, call_made_at, find_races, reported_at,
                                     stale_read_after_exit)
from syncheck.analyses.shared_memory import KernelAccesses
from syncheck.analyses.symbolic import helpers_read_as_unknown
from syncheck.checks.base import CheckContext


def kernel_accesses(ctx: CheckContext, fn) -> KernelAccesses:
    """A kernel's shared-memory accesses, found once per file for every rule that needs them."""
    cache = ctx.memo.setdefault("kernel accesses", {})
    if fn.key not in cache:
        cache[fn.key] = KernelAccesses(ctx.program, ctx.uniformity, fn)
    return cache[fn.key]


def stale_read(ctx: CheckContext, reach) -> StaleRead | None:
    """For a barrier that some threads skip only by leaving the kernel: a read after it of an
    element that only the threads that left would have stored (see races.stale_read_after_exit)."""
    fn = reach.anchor_function
    if fn.kind != "kernel" or fn.body is None or fn.has_errors or not ctx.program.analyzed_generically(fn):
        return None
    cache = ctx.memo.setdefault("stale reads", {})
    key = (fn.key, reach.site.node.id, tuple(c.cond.id for c in reach.causes))
    if key not in cache:
        cache[key] = stale_read_after_exit(kernel_accesses(ctx, fn), reach.site.node,
                                           [c.cond for c in reach.causes])
    return cache[key]


def kernel_races(ctx: CheckContext):
    """Races of every kernel in the file, computed once per file for both rules."""
    cache = ctx.memo.get("races")
    if cache is None:
        cache = []
        reported: set[tuple[str, int, int]] = set()
        for fn in ctx.program.functions.values():
            if fn.kind == "kernel" and fn.body is not None and fn.reported and not fn.has_errors \
                    and ctx.program.analyzed_generically(fn):
                result = find_races(ctx.program, ctx.uniformity, fn, reported, kernel_accesses(ctx, fn))
                cache.extend((fn, r) for r in result.races)
                for r in (r for race in result.races for r in [race] + race.other_members):
                    told = reported_at(r.second, r.first, ctx.program)
                    reported.add((r.second.name, told.line, told.col))
                for a, b in result.undecided:
                    ctx.analysis_notes.append((b.node.line, (
                        f"'{fn.name}': whether '{ctx.text(a.node)}' (line {a.line}) and "
                        f"'{ctx.text(b.node)}' (line {b.line}) can touch the same element of "
                        f"shared '{a.name}' was not decided within the solver's budget; no "
                        f"finding is reported for this pair")))
        ctx.memo["races"] = cache
    return cache


def access_text(ctx: CheckContext, access, bare: bool = False) -> str:
    """'writes s[i]'; with ``bare``, the verb's bare form ('write s[i]', after 'may')."""
    verb = "call" if access.atomic else "update" if access.read and access.write \
        else "write" if access.write else "read"
    what = ctx.text(access.node)
    if access.through is not None and ctx.text(access.through) != what:
        what = f"{ctx.text(access.through)} through '{what}'"
    return f"{verb if bare else verb + 's'} {what}"


def thread_name(t: tuple[int, int, int], three_d: bool) -> str:
    return f"({t[0]}, {t[1]}, {t[2]})" if three_d else f"{t[0]}"


def by_line(race: Race):
    """The race's two accesses in the order of the text (the fixes are placed between them)."""
    a, b = race.first, race.second
    return (b, a) if (b.node.line, b.node.col) < (a.node.line, a.node.col) else (a, b)


def ordered(race: Race):
    """(the other access, the access the finding is reported at): the later by line, or the
    access that the races told together share."""
    if race.anchor is not None:
        a, b = race.first, race.second
        return (a, b) if b is race.anchor else (b, a)
    return by_line(race)


def told_at(ctx: CheckContext, race: Race, first, second) -> tuple:
    """(where the finding on ``second`` is reported, notes that say where the accesses are when
    that is a call: the access inside the helper it calls). See races.reported_at."""
    at = reported_at(second, first, ctx.program)
    call = call_made_at(second, first)
    if at is second.node and call is second.node:
        return at, []
    if at is second.node:
        return at, [ctx.note(call, "the access is made through this call")]
    helper = second.function.name if second.function is not None else "the helper"
    return at, [ctx.note(second.node, f"the access itself, in '{helper}': {access_text(ctx, second)}")]


def at_calls(first, second) -> tuple:
    """The two accesses as placed where the function that makes both makes them (calls for
    accesses inside helpers), for the fix that puts a barrier between them."""
    return (replace(first, node=call_made_at(first, second)), replace(second, node=call_made_at(second, first)))


def shape_note(ctx: CheckContext, race: Race, kernel):
    if race.shape_source == SMALLEST_SHAPE:
        x, y, z = race.shape or (0, 0, 0)
        launched = ctx.uniformity.launch_shapes.all_shapes(kernel)
        known = ", ".join(f"{s[0]}x{s[1]}x{s[2]}" if s else "one not constant" for s in launched)
        why = (f"the kernel's launches do not fix one block shape ({known})" if launched
               else "no launch of this kernel was found")
        needs = (f"the race needs a block of {x}x{y}x{z} threads or another shape that admits it"
                 if x else "the race holds for some block shape")
        return ctx.note(ordered(race)[1].node, f"{why}: {needs} (blocks of power-of-two sizes up to "
                                          f"1,024 threads were considered; pin the real one with "
                                          f"--block-dim or '// syncheck: block-dim X,Y,Z')")
    x, y, z = race.shape
    return ctx.note(ordered(race)[1].node, f"block shape assumed: {x}x{y}x{z} (from {race.shape_source})")


def unknown_helper_notes(ctx: CheckContext, race: Race) -> list:
    """Index helpers the race was found through as unknown functions (their bodies loop):
    the finding holds where they map one thread's position to the element the other uses."""
    notes = []
    for access in ordered(race):
        for name in (n for index in access.indices for n in helpers_read_as_unknown(ctx.program, index[0])):
            notes.append(ctx.note(access.node, f"'{name}' was read as an unknown one-to-one function of its "
                                               f"arguments: the race needs it to lead one thread to the "
                                               f"element the other uses"))
    return notes


def member_notes(ctx: CheckContext, race: Race) -> list:
    """The races this finding stands for: on the struct's other members, at other places,
    on other arrays that the same barrier orders, between lanes of one warp."""
    notes = []
    for other in race.other_members:
        a, b = ordered(other)
        what = "lanes of one warp" if other.intra_warp_only and not race.intra_warp_only else \
            f"'{other.second.name}'" if other.second.name != race.second.name else \
            f"'{race.second.name}' at another place"
        verb = "race" if what == "lanes of one warp" else "races"
        notes.append(ctx.note(b.node, f"{what} {verb} the same way: "
                                      f"{access_text(ctx, a)} (line {a.line}) and {access_text(ctx, b)} "
                                      f"(line {b.line})"))
    return notes


def follows_skipped_barrier(race: Race, kernel, decisions: set[tuple]) -> bool:
    """Is the race (with every race told with it) there only because threads part at
    decisions that let part of the block skip a barrier SYN101 reports? Then it is that
    barrier's bug, told with its finding: the race goes once the barrier is reached by all."""
    members = [race] + race.other_members
    return all(r.parted_at and all((kernel.key, c) in decisions for c in r.parted_at) for r in members)


def races_through_skipped_barrier(ctx: CheckContext, reach, decisions: set[tuple]):
    """The races that follows_skipped_barrier gives to the barrier of ``reach``."""
    mine = {c.cond.id for c in reach.causes if c.cond is not None}
    if not mine.intersection(c for _, c in decisions):
        return
    for kernel, race in kernel_races(ctx):
        if kernel.key == reach.anchor_function.key and follows_skipped_barrier(race, kernel, decisions) \
                and mine.intersection(race.parted_at):
            yield race
