"""--format json: the machine-readable output contract."""

from __future__ import annotations

import json

from syncheck.diagnostics import Report


def render(report: Report) -> str:
    payload = {
        "findings": [f.to_dict() for f in report.findings],
        "errors": [p.to_dict() for p in report.errors],
        "notes": [p.to_dict() for p in report.notes],
        "files": report.files,
        "coverage": report.coverage.to_dict(),
    }
    return json.dumps(payload, indent=2, sort_keys=False) + "\n"
