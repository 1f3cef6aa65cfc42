"""Every fixture reports exactly the findings its `// expect:` comments name, and nothing else."""

from __future__ import annotations

from collections import Counter

import pytest

from syncheck.engine import Settings, analyze_file
from tests.fixture_expectations import FIXTURES, expected_findings, fixture_files

FILES = fixture_files()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(FIXTURES)) for p in FILES])
def test_fixture_findings(path):
    findings, problems = analyze_file(str(path), Settings())
    assert [p for p in problems if p.kind == "error"] == []
    got = Counter((f.code, f.line) for f in findings)
    want = expected_findings(path)
    assert got == want, "\n".join(f"{f.line}: {f.code} {f.message}" for f in findings)


def test_every_rule_has_buggy_and_fixed_fixtures():
    from syncheck.checks.registry import ALL_CHECKS
    for check in ALL_CHECKS:
        folder = FIXTURES / check.code
        files = list(folder.glob("*.cu")) + list(folder.glob("*.py"))
        buggy = [p for p in files if expected_findings(p).get((check.code,), 0) or any(
            code == check.code for code, _ in expected_findings(p))]
        clean = [p for p in files if not expected_findings(p)]
        assert buggy, f"{check.code} has no buggy fixture in {folder}"
        assert clean, f"{check.code} has no fixed fixture in {folder}"
