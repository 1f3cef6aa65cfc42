"""SYN002 unanalyzed-function: a device function of an analyzed file that clang could not parse.

The engine reports it from the file's coverage (syncheck/coverage.py), before any rule
runs on the functions that did parse; this class registers the code and its doc.
"""

from __future__ import annotations

from syncheck.checks.base import Check
from syncheck.diagnostics import UNANALYZED_CODE, UNANALYZED_RULE, Severity


class UnanalyzedFunction(Check):
    code = UNANALYZED_CODE
    name = UNANALYZED_RULE
    severity = Severity.ERROR
    scope = "meta"
