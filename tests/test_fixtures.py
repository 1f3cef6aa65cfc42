"""Every fixture reports exactly the findings its `expect:` comments name, and nothing else."""

from __future__ import annotations

from collections import Counter

import pytest

from syncheck.engine import Settings, analyze_paths
from syncheck.frontend.cuda_headers import available
from tests.fixture_expectations import FIXTURES, expected_for_unit, fixture_units, unit_files

UNITS = fixture_units()


def settings_for(unit) -> Settings:
    """A fixture's first line may name options: `// syncheck-args: --report-unused-suppressions`,
    `--select SYN5` (only those rules),
    `--cuda-headers real` (skipped where the real CUDA headers are not installed)."""
    first = unit_files(unit)[0].read_text(encoding="utf-8").splitlines()[:1]
    args = first[0].split("syncheck-args:", 1)[1].split() if first and "syncheck-args:" in first[0] else []
    headers = args[args.index("--cuda-headers") + 1] if "--cuda-headers" in args else "auto"
    if headers == "real" and available("real") is None:
        pytest.skip("needs the real CUDA headers: pip install 'syncheck[cuda]'")
    return Settings(select=tuple(args[args.index("--select") + 1].split(",")) if "--select" in args else (),
                    report_unused_suppressions="--report-unused-suppressions" in args,
                    cuda_headers=headers)


@pytest.mark.parametrize("unit", UNITS, ids=[str(p.relative_to(FIXTURES)) for p in UNITS])
def test_fixture_findings(unit):
    report = analyze_paths([str(unit)], settings_for(unit))
    assert report.errors == []
    got = Counter((f.path, f.code, f.line) for f in report.findings)
    want = expected_for_unit(unit)
    assert got == want, "\n".join(f"{f.path}:{f.line}: {f.code} {f.message}" for f in report.findings)


def test_every_rule_has_buggy_and_fixed_fixtures():
    from syncheck.checks.registry import ALL_CHECKS
    for check in ALL_CHECKS:
        units = [u for u in UNITS if u.parent.name == check.code]
        buggy = [u for u in units if any(code == check.code for _, code, _ in expected_for_unit(u))]
        clean = [u for u in units if not expected_for_unit(u)]
        assert buggy, f"{check.code} has no buggy fixture in fixtures/{check.code}"
        assert clean, f"{check.code} has no fixed fixture in fixtures/{check.code}"


def test_a_barrier_skipped_only_by_exited_threads_is_a_warning():
    """Threads that left the kernel count as arrived since Volta: a barrier only they skip is a
    SYN101 warning; one after which a read takes what only they would have stored, an error."""
    for name, severity in (("bad_barrier_after_exit.cu", "warning"), ("bad_tail_if_exit_only.cu", "warning"),
                           ("bad_exit_then_read_unstored.cu", "error"), ("bad_exits_and_loops.cu", "error")):
        report = analyze_paths([str(FIXTURES / "SYN101" / name)], Settings())
        severities = {f.severity.value for f in report.findings if f.code == "SYN101"}
        assert severities == {severity}, (name, severities)


def test_race_through_a_skipped_barrier_is_a_note_of_its_finding():
    """A race that exists only because part of the block skips a barrier is the divergent
    barrier's bug: no SYN401 of its own, a note of the SYN101 finding instead."""
    path = FIXTURES / "SYN101" / "bad_calls_templates_lambdas.cu"
    report = analyze_paths([str(path)], Settings())
    assert not [f for f in report.findings if f.code == "SYN401"]
    by_line = {f.line: f for f in report.findings if f.code == "SYN101"}
    for barrier_line, race_line in ((19, 14), (27, 28)):
        notes = [n for n in by_line[barrier_line].notes if "skip this barrier" in n.message]
        assert [n.line for n in notes] == [race_line], [n.message for n in by_line[barrier_line].notes]


def test_collectives_under_one_decision_are_one_finding_with_notes():
    """After one early exit, a shuffle and a __syncwarp() are one bug: the finding is at the
    first, the second is its note."""
    unit = FIXTURES / "SYN201" / "bad_full_mask.cu"
    report = analyze_paths([str(unit)], settings_for(unit))
    exit_finding = next(f for f in report.findings if f.line == 43)
    assert any(n.line == 44 and "same decision also lets part of the group skip" in n.message
               for n in exit_finding.notes)
