"""Fuzzing the front end and the analyses with mutated fixtures (bounded, runs in CI)."""

from __future__ import annotations

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from syncheck.engine import Settings, analyze_file  # noqa: E402
from tests.fixture_expectations import FIXTURES  # noqa: E402

SOURCES = sorted(p for p in FIXTURES.rglob("*.cu"))
TOKENS = ["{", "}", "(", ")", ";", "__syncthreads();", "if (threadIdx.x < 3)", "for (;;)",
          "return;", "break;", "goto end;", "end:", "__shfl_sync(0xffffffff, v, 1)", "&&", "?",
          "tile[threadIdx.x] = 0;", "#define X", "/*", "\"", "template <int N>", "\x00", "\xe9"]


@st.composite
def mutated(draw):
    path = draw(st.sampled_from(SOURCES))
    lines = path.read_text(encoding="utf-8").splitlines()
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "duplicate", "insert", "swap"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == "delete" and lines:
            del lines[i]
        elif op == "duplicate" and lines:
            lines.insert(i, lines[i])
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(TOKENS)))
        elif op == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
    return path.name, "\n".join(lines).encode("utf-8", errors="surrogateescape")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated())
def test_mutated_sources_never_crash(case, tmp_path_factory):
    name, data = case
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_bytes(data)
    result = analyze_file(str(path), Settings(timeout=30))
    assert all("internal error" not in p.message for p in result.problems), result.problems
    for f in result.findings:
        assert f.line >= 1 and f.code.startswith("SYN")
