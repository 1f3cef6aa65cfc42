"""Reading the expectations written into fixture files.

`// expect: SYN101` (`# expect: SYN301` in Python; several codes may be comma-separated) on a
line says that exactly those findings are reported on that line. A fixture with no expect
comment must be clean. Each file directly in fixtures/<CODE>/ is analyzed alone; each folder
there is analyzed as one project (a kernel in one file, its launch in another).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SUFFIXES = (".cu", ".cuh", ".cpp", ".py")
_EXPECT = re.compile(r"(?://|#).*?\bexpect:\s*([A-Z0-9_, ]+)")


def expected_findings(path: Path) -> Counter:
    found: Counter = Counter()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = _EXPECT.search(line)
        if m:
            for code in m.group(1).replace(" ", "").split(","):
                if code:
                    found[(str(path), code, lineno)] += 1
    return found


def unit_files(unit: Path) -> list[Path]:
    if unit.is_dir():
        return sorted(p for p in unit.rglob("*") if p.suffix in SUFFIXES)
    return [unit]


def expected_for_unit(unit: Path) -> Counter:
    total: Counter = Counter()
    for p in unit_files(unit):
        total += expected_findings(p)
    return total


def fixture_units() -> list[Path]:
    units = []
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        for entry in sorted(folder.iterdir()):
            if entry.is_dir() or entry.suffix in SUFFIXES:
                units.append(entry)
    return units
