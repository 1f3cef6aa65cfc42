"""A z3 context of its own for queries that only refine another analysis."""

from __future__ import annotations


class SideContext:
    """A z3 context of its own for queries whose only use is to refine another analysis (a
    loop test proved uniform): their terms and caches then do not change how the queries of
    the main context are searched, so those keep the verdicts they have without them.
    `with side:` makes it the default context for the terms made inside."""

    def __init__(self):
        self._context = None
        self._saved = None

    def __enter__(self):
        import z3
        import z3.z3 as core
        if self._context is None:
            self._context = z3.Context()
        self._saved, core._main_ctx = core._main_ctx, self._context
        return self

    def __exit__(self, *exc):
        import z3.z3 as core
        core._main_ctx, self._saved = self._saved, None
        return False


# One side context per analyzed file: a context per kernel would keep hundreds of them alive
# in a file of many template instances (each holds its own memory) and run a worker past its
# memory limit. symbolic.fresh_solver_context drops it with the main one.
_side: SideContext | None = None


def side_context() -> SideContext:
    global _side
    if _side is None:
        _side = SideContext()
    return _side


def drop_side_context() -> None:
    global _side
    _side = None
