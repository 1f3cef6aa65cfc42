"""Shared wording and caching for the shared-memory rules (SYN401, SYN402)."""

from __future__ import annotations

from syncheck.analyses.races import SMALLEST_SHAPE, Race, find_races
from syncheck.checks.base import CheckContext


def kernel_races(ctx: CheckContext):
    """Races of every kernel in the file, computed once per file for both rules."""
    cache = getattr(ctx, "_races", None)
    if cache is None:
        cache = []
        reported: set[tuple[str, int, int]] = set()
        for fn in ctx.program.functions.values():
            if fn.kind == "kernel" and fn.body is not None and fn.reported and not fn.has_errors \
                    and ctx.program.analyzed_generically(fn):
                result = find_races(ctx.program, ctx.uniformity, fn, reported)
                cache.extend((fn, r) for r in result.races)
                reported.update((r.second.name, r.second.node.line, r.second.node.col) for r in result.races)
                for a, b in result.undecided:
                    ctx.analysis_notes.append((b.node.line, (
                        f"'{fn.name}': whether '{ctx.text(a.node)}' (line {a.line}) and "
                        f"'{ctx.text(b.node)}' (line {b.line}) can touch the same element of "
                        f"shared '{a.name}' was not decided within the solver's budget; no "
                        f"finding is reported for this pair")))
        ctx._races = cache
    return cache


def access_text(ctx: CheckContext, access) -> str:
    if access.atomic:
        return f"calls {ctx.text(access.node)}"
    verb = "updates" if access.read and access.write else "writes" if access.write else "reads"
    return f"{verb} {ctx.text(access.node)}"


def thread_name(t: tuple[int, int, int], three_d: bool) -> str:
    return f"({t[0]}, {t[1]}, {t[2]})" if three_d else f"{t[0]}"


def ordered(race: Race):
    a, b = race.first, race.second
    if (b.node.line, b.node.col) < (a.node.line, a.node.col):
        a, b = b, a
    return a, b


def shape_note(ctx: CheckContext, race: Race, kernel):
    if race.shape_source == SMALLEST_SHAPE:
        x, y, z = race.shape or (0, 0, 0)
        launched = ctx.uniformity.launch_shapes.all_shapes(kernel)
        known = ", ".join(f"{s[0]}x{s[1]}x{s[2]}" if s else "one not constant" for s in launched)
        why = (f"the kernel's launches do not fix one block shape ({known})" if launched
               else "no launch of this kernel was found")
        needs = (f"the race needs a block of {x}x{y}x{z} threads or another shape that admits it"
                 if x else "the race holds for some block shape")
        return ctx.note(race.second.node, f"{why}: {needs} (blocks of power-of-two sizes up to "
                                          f"1,024 threads were considered; pin the real one with "
                                          f"--block-dim or '// syncheck: block-dim X,Y,Z')")
    x, y, z = race.shape
    return ctx.note(race.second.node, f"block shape assumed: {x}x{y}x{z} (from {race.shape_source})")
