"""SYN001 unused-suppression: a suppression comment that silences nothing.

The engine applies suppressions after every other rule has run, so it also reports the
unused ones (with --report-unused-suppressions); this class registers the code and its doc.
"""

from __future__ import annotations

from syncheck.checks.base import Check
from syncheck.diagnostics import Severity


class UnusedSuppression(Check):
    code = "SYN001"
    name = "unused-suppression"
    severity = Severity.WARNING
    scope = "meta"
