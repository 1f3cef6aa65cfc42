"""The CLI as a process on mutated inputs (bounded: 50 mutants in two processes)."""

from __future__ import annotations

from tests.cli_fuzz import fuzz


def test_mutated_inputs_never_crash_hang_or_print_a_traceback(tmp_path):
    stats = fuzz(mutants=50, batch=25, seed=2026, workdir=tmp_path, jobs=2, budget=900,
                 per_file_timeout=60, memory_limit=1024)
    assert stats.processes == 2 and stats.mutants == 50
    assert stats.ok(), "\n".join(stats.failures)
