"""Reading the expectations written into fixture files.

`// expect: SYN101` (several codes may be comma-separated) on a line says that exactly those
findings are reported on that line. A fixture with no expect comment must be clean.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
_EXPECT = re.compile(r"(?://|#)\s*expect:\s*([A-Z0-9_, ]+)")


def expected_findings(path: Path) -> Counter:
    found: Counter = Counter()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = _EXPECT.search(line)
        if m:
            for code in m.group(1).replace(" ", "").split(","):
                if code:
                    found[(code, lineno)] += 1
    return found


def fixture_files(suffixes=(".cu", ".cuh")) -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.suffix in suffixes and p.is_file())
