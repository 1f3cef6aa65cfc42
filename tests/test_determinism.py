"""Results do not depend on machine load or on -j: no wall-clock limit decides a finding."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_HOG = "import time\nend = time.process_time() + 600\nwhile time.process_time() < end: pass\n"


def _run(jobs: int) -> bytes:
    cmd = [sys.executable, "-m", "syncheck", "--no-cache", "--format", "json", "-j", str(jobs),
           "fixtures/"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, env={**os.environ, "NO_COLOR": "1"}).stdout


def test_json_output_is_identical_across_runs_and_jobs_under_load():
    hogs = [subprocess.Popen([sys.executable, "-c", _HOG]) for _ in range(2)]
    try:
        outputs = [_run(jobs) for jobs in (1, 2) for _ in range(5)]
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert outputs[0].startswith(b"{") and b'"findings"' in outputs[0]
    assert all(out == outputs[0] for out in outputs), "output changed between runs"


def test_no_cyclic_collection_while_a_file_is_analyzed(monkeypatch):
    """z3 gives a freed term's id to the next term, and the ids order its rewriting: terms
    freed by the cyclic collector, at points that depend on what the process did before,
    made a query at the edge of the solver's budget decided in one run and not in another
    (the same file alone or after another one in a -j 1 worker). Inside an analysis only
    reference counts free them; the collector is on again afterwards."""
    import gc

    import syncheck.engine as engine
    seen = []
    real = engine.fresh_solver_context

    def recording():
        seen.append(gc.isenabled())
        real()
    monkeypatch.setattr(engine, "fresh_solver_context", recording)
    was = gc.isenabled()
    engine.analyze_file(str(ROOT / "fixtures" / "SYN401" / "bad_races.cu"), engine.Settings())
    assert seen == [False]
    assert gc.isenabled() == was


def test_encoder_unknowns_are_named_per_scope_not_per_address():
    """A thread's data decisions and a proof's unknowns are kept per (comparison, scope).
    Keyed by the scope's address, a scope freed after one pair (an accessor's) could hand its
    address and with it its decision to a new scope of the next pair, and whether that
    happened depended on the process's memory layout: one file came out with a finding in
    some runs only."""
    import gc

    from syncheck.analyses.shared_memory import Scope
    from syncheck.analyses.symbolic import Encoder, SharedSymbols, bitvector, z3_module
    from syncheck.ir.nodes import Node

    class _Analysis:
        class function:  # noqa: N801 - stands for a Function: only its key is read
            key = "f"

    z3 = z3_module()
    enc = Encoder(1, SharedSymbols(), set(), tuple(bitvector(z3, f"blockDim.{a}") for a in "xyz"), None)
    comparison = Node(7, "BINARY_OPERATOR")
    names = []
    for _ in range(20):
        scope = Scope(_Analysis())
        names.append(str(enc._data_decision(comparison, scope)))
        del scope
        gc.collect()
    assert len(set(names)) == len(names), "a new scope got an earlier scope's decision"


def test_the_command_fixes_the_hash_seed(monkeypatch):
    """`syncheck` runs itself again with PYTHONHASHSEED=0: the order of sets of names must
    not change which solver query is built first."""
    from syncheck import command

    calls = []
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    monkeypatch.setattr(command.os, "execv", lambda exe, args: calls.append(args))
    monkeypatch.setattr(command.sys, "argv", ["syncheck", "--no-cache", "a.cu"])
    command.fix_hash_seed()
    assert calls == [[sys.executable, "-m", "syncheck", "--no-cache", "a.cu"]]
    assert os.environ["PYTHONHASHSEED"] == "0"
    calls.clear()
    command.fix_hash_seed()  # already fixed: runs on
    assert calls == []
