"""SYN401 shared-memory-race: two threads touch one shared element with no barrier between."""

from __future__ import annotations

from syncheck.checks.base import Check, CheckContext
from syncheck.checks.shared_races import access_text, kernel_races, ordered, shape_note, thread_name


class SharedMemoryRace(Check):
    code = "SYN401"
    name = "shared-memory-race"

    def run(self, ctx: CheckContext):
        for kernel, race in kernel_races(ctx):
            if race.intra_warp_only:
                continue  # SYN402
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
            else:
                message = (f"data race on shared '{first.name}': one thread "
                           f"{access_text(ctx, first)} (line {first.line}) and another "
                           f"{access_text(ctx, second)} (line {second.line}), the same element"
                           f"{example}, with no __syncthreads() between them")
            notes = [] if same else [ctx.note(first.node, f"the other access: {access_text(ctx, first)}")]
            if not same and second.point != first.point:
                notes.append(ctx.note(second.node, "put a barrier on every path between the two accesses"))
            yield ctx.finding(self, second.node, message, kernel.name, notes + [shape_note(ctx, race, kernel)])
