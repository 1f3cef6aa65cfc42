"""--format sarif: SARIF 2.1.0 for code-scanning services."""

from __future__ import annotations

import json
import os
from pathlib import Path

from syncheck import __version__
from syncheck.checks.registry import ALL_CHECKS
from syncheck.diagnostics import UNANALYZED_CODE, Report
from syncheck.rules_doc import all_docs

_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str, base: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), base)
    return Path(rel).as_posix() if not rel.startswith("..") else Path(os.path.abspath(path)).as_uri()


def render(report: Report, base: str | None = None) -> str:
    base = base or os.getcwd()
    docs = all_docs()
    rules = []
    index = {}
    for i, check in enumerate(ALL_CHECKS):
        doc = docs.get(check.code)
        index[check.code] = i
        rule = {
            "id": check.code,
            "name": check.name,
            "defaultConfiguration": {"level": _LEVELS[check.severity.value]},
        }
        if doc is not None:
            rule["shortDescription"] = {"text": doc.summary}
            rule["fullDescription"] = {"text": doc.summary}
            rule["help"] = {"text": doc.body, "markdown": doc.body}
            rule["helpUri"] = doc.url
        rules.append(rule)
    results = []
    for f in report.findings:
        location = {"physicalLocation": {
            "artifactLocation": {"uri": _uri(f.path, base), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": f.line, "startColumn": f.column,
                       "endLine": max(f.end_line, f.line),
                       "endColumn": max(f.end_column, f.column + 1) if f.end_line <= f.line else f.end_column},
        }}
        related = []
        for j, n in enumerate(f.notes):
            related.append({"id": j, "message": {"text": n.message}, "physicalLocation": {
                "artifactLocation": {"uri": _uri(n.path, base), "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": n.line, "startColumn": n.column}}})
        result = {
            "ruleId": f.code,
            "level": _LEVELS[f.severity.value],
            "message": {"text": f.message},
            "locations": [location],
            "partialFingerprints": {"syncheck/v1": f"{f.code}:{f.function}:{f.message[:60]}"},
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        if related:
            result["relatedLocations"] = related
        results.append(result)
    notifications = [{
        "level": "error" if p.kind == "error" else "note",
        "message": {"text": p.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": _uri(p.path, base), "uriBaseId": "%SRCROOT%"},
            **({"region": {"startLine": p.line}} if p.line else {})}}],
    } for p in report.problems]
    cov = report.coverage
    notifications += [{
        "level": "note" if report.allow_incomplete else "error",
        "associatedRule": {"id": UNANALYZED_CODE},
        "message": {"text": f"'{u.name}' not analyzed: {u.reason}"
                            f"{f' (after {u.cause})' if u.cause else ''}; {u.fix}"},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": _uri(u.path, base), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": u.line, "startColumn": u.column}}}],
    } for u in cov.unanalyzed]
    notifications.append({"level": "note", "message": {"text": f"syncheck {cov.summary()}"}})
    run = {
        "tool": {"driver": {"name": "syncheck", "version": __version__,
                            "informationUri": "https://syncheck.dev", "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(base).as_uri() + "/"}},
        "invocations": [{"executionSuccessful": not report.errors,
                         "toolExecutionNotifications": notifications}],
        "results": results,
        "properties": {"coverage": {k: v for k, v in cov.to_dict().items() if k != "unanalyzed"}},
    }
    doc = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"
