"""Post-dominators and control dependence (Ferrante, Ottenstein and Warren)."""

from __future__ import annotations

from syncheck.ir.cfg import CFG, depth_first


def post_dominators(cfg: CFG, live: set[int]) -> dict[int, int | None]:
    """Immediate post-dominator of each live block (the exit maps to None).

    Blocks that cannot reach the exit (infinite loops) get a virtual edge to it, so
    every block has a post-dominator.
    """
    succs = {b: [s for s in cfg.blocks[b].succs if s in live] for b in live}
    reaches_exit = {cfg.exit}
    preds: dict[int, list[int]] = {b: [] for b in live}
    for b, ss in succs.items():
        for s in ss:
            preds[s].append(b)
    stack = [cfg.exit]
    while stack:
        b = stack.pop()
        for p in preds.get(b, ()):
            if p not in reaches_exit:
                reaches_exit.add(p)
                stack.append(p)
    for b in live:
        if b not in reaches_exit and b != cfg.exit:
            succs[b] = succs[b] + [cfg.exit]
            preds.setdefault(cfg.exit, []).append(b)
    # Cooper-Harvey-Kennedy on the reverse graph.
    order, _ = depth_first(cfg.exit, lambda b: preds.get(b, ()))
    order.reverse()
    index = {b: i for i, b in enumerate(order)}
    ipdom: dict[int, int | None] = {cfg.exit: cfg.exit}

    def intersect(a: int, b: int) -> int:
        while a != b:
            while index[a] > index[b]:
                a = ipdom[a]
            while index[b] > index[a]:
                b = ipdom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            new = None
            for s in succs[b]:
                if s in ipdom and s in index:
                    new = s if new is None else intersect(s, new)
            if new is not None and ipdom.get(b) != new:
                ipdom[b] = new
                changed = True
    ipdom[cfg.exit] = None
    return ipdom


def control_dependences(cfg: CFG, live: set[int]) -> dict[int, set[tuple[int, int]]]:
    """For each block, the (branch block, successor index) pairs it is directly control
    dependent on. For if/loop branches successor 0 is taken when the condition holds."""
    ipdom = post_dominators(cfg, live)
    deps: dict[int, set[tuple[int, int]]] = {b: set() for b in live}
    for a in live:
        succs = [s for s in cfg.blocks[a].succs if s in live]
        if len(succs) < 2:
            continue
        stop = ipdom.get(a)
        for index, s in enumerate(cfg.blocks[a].succs):
            if s not in live:
                continue
            runner: int | None = s
            while runner is not None and runner != stop:
                deps[runner].add((a, index))
                runner = ipdom.get(runner)
    return deps
