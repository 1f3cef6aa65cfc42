"""Barrier intervals: the stretches of a kernel between barriers.

All threads of a block start an interval together (at kernel entry or just after a
barrier) and run without synchronizing until the next barrier, so two accesses can be
concurrent only if some interval reaches both. Intervals are computed over CFG items:
a barrier item still belongs to the interval it closes (its arguments are evaluated before
it waits). Loops whose cycle contains no barrier let threads of one interval be in
different iterations; ``iteration_free_loops`` names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from syncheck.ir.cfg import CFG, depth_first
from syncheck.ir.nodes import Node


@dataclass(frozen=True, order=True)
class Point:
    block: int
    index: int  # item index in the block; -1 is the block's start


@dataclass
class Loop:
    header: int
    blocks: frozenset[int]
    barrier_free_cycle: bool = False


class BarrierIntervals:
    def __init__(self, cfg: CFG, live: set[int], is_barrier: Callable[[Node], bool]):
        self.cfg = cfg
        self.live = live
        self.barrier_items = {(b, i) for b in live for i, item in enumerate(cfg.blocks[b].items)
                              if is_barrier(item)}
        self.loops = self._loops()
        for loop in self.loops:
            loop.barrier_free_cycle = self._cycle_is_barrier_free(loop)

    def starts(self) -> list[Point]:
        return [Point(self.cfg.entry, -1)] + sorted(Point(b, i) for b, i in self.barrier_items)

    def reach(self, start: Point) -> set[tuple[int, int]]:
        """Items executed in the interval that begins at ``start``."""
        return self._scan(start)[0]

    def _scan(self, start: Point) -> tuple[set[tuple[int, int]], set[int]]:
        """Items reached from ``start`` before a barrier, and the blocks left without one."""
        seen_blocks: set[int] = set()
        reached: set[tuple[int, int]] = set()
        left: set[int] = set()
        work = [start]
        first = True
        while work:
            p = work.pop()
            if not first:
                if p.block in seen_blocks:
                    continue
                seen_blocks.add(p.block)
            first = False
            items = self.cfg.blocks[p.block].items
            stopped = False
            for i in range(p.index + 1, len(items)):
                reached.add((p.block, i))
                if (p.block, i) in self.barrier_items:
                    stopped = True
                    break
            if not stopped:
                left.add(p.block)
                for s in self.cfg.blocks[p.block].succs:
                    if s in self.live:
                        work.append(Point(s, -1))
        return reached, left

    def reach_from(self, block: int, index: int) -> set[tuple[int, int]]:
        """Items a thread can execute after item (block, index) before its next barrier."""
        if (block, index) in self.barrier_items:
            return set()
        return self.reach(Point(block, index))

    def entry_free(self, block: int, index: int) -> bool:
        """Is the item reachable from the function's entry without a barrier?"""
        return (block, index) in self.reach(Point(self.cfg.entry, -1))

    def exit_free(self, block: int, index: int) -> bool:
        """Can the function be left from the item without a barrier?"""
        if (block, index) in self.barrier_items:
            return False
        return self.cfg.exit in self._scan(Point(block, index))[1]

    def loops_containing(self, block: int) -> list[Loop]:
        return [lp for lp in self.loops if block in lp.blocks]

    def _loops(self) -> list[Loop]:
        blocks = self.cfg.blocks
        _, back_edges = depth_first(self.cfg.entry,
                                    lambda b: [s for s in blocks[b].succs if s in self.live])
        loops: dict[int, set[int]] = {}
        for latch, header in back_edges:
            body = loops.setdefault(header, {header})
            work = [latch]
            while work:
                x = work.pop()
                if x in body:
                    continue
                body.add(x)
                work.extend(p for p in blocks[x].preds if p in self.live)
        return [Loop(h, frozenset(b)) for h, b in loops.items()]

    def _cycle_is_barrier_free(self, loop: Loop) -> bool:
        """Can a thread go once around the loop without meeting a barrier?"""
        seen: set[int] = set()
        work = [loop.header]
        while work:
            b = work.pop()
            if b in seen:
                continue
            seen.add(b)
            if any((b, i) in self.barrier_items for i in range(len(self.cfg.blocks[b].items))):
                continue
            for s in self.cfg.blocks[b].succs:
                if s == loop.header:
                    return True
                if s in loop.blocks:
                    work.append(s)
        return False
