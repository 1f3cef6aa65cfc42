"""--format sarif: SARIF 2.1.0 for code-scanning services."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from syncheck import __version__
from syncheck.checks.registry import ALL_CHECKS
from syncheck.diagnostics import UNANALYZED_CODE, Report
from syncheck.rules_doc import all_docs

_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _location(path: str, base: str) -> dict:
    """A file under the base: a relative URI against %SRCROOT%; elsewhere a plain absolute
    file URI with no uriBaseId (SARIF1004)."""
    rel = os.path.relpath(os.path.abspath(path), base)
    if rel != ".." and not rel.startswith(".." + os.sep) and not os.path.isabs(rel):
        return {"uri": quote(Path(rel).as_posix()), "uriBaseId": "%SRCROOT%"}
    return {"uri": Path(os.path.abspath(path)).as_uri()}


def _fix(fix, base: str) -> dict:
    by_file: dict[str, list] = {}
    for e in fix.edits:
        by_file.setdefault(e.path, []).append({
            "deletedRegion": {"startLine": e.line, "startColumn": e.column,
                              "endLine": e.end_line, "endColumn": e.end_column},
            "insertedContent": {"text": e.replacement}})
    return {"description": {"text": fix.message},
            "artifactChanges": [{"artifactLocation": _location(p, base), "replacements": r}
                                for p, r in by_file.items()],
            "properties": {"safety": fix.safety}}


def render(report: Report, base: str | None = None, lines=None) -> str:
    from syncheck.baseline import LineSource, fingerprint, keys
    base = os.path.abspath(base or os.getcwd())
    fingerprints = [fingerprint(k) for k in keys(report.findings, base, lines or LineSource())]
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
    for f, print_ in zip(report.findings, fingerprints):
        location = {"physicalLocation": {
            "artifactLocation": _location(f.path, base),
            "region": {"startLine": f.line, "startColumn": f.column,
                       "endLine": max(f.end_line, f.line),
                       "endColumn": max(f.end_column, f.column + 1) if f.end_line <= f.line else f.end_column},
        }}
        related = []
        for j, n in enumerate(f.notes):
            related.append({"id": j, "message": {"text": n.message}, "physicalLocation": {
                "artifactLocation": _location(n.path, base),
                "region": {"startLine": n.line, "startColumn": n.column}}})
        result = {
            "ruleId": f.code,
            "level": _LEVELS[f.severity.value],
            "message": {"text": f.message},
            "locations": [location],
            "partialFingerprints": {"syncheck/v2": print_},
        }
        if f.fix is not None and f.fix.edits:
            result["fixes"] = [_fix(f.fix, base)]
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        if related:
            result["relatedLocations"] = related
        results.append(result)
    notifications = [{
        "level": "error" if p.kind == "error" else "note",
        "message": {"text": p.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": _location(p.path, base),
            **({"region": {"startLine": p.line}} if p.line else {})}}],
    } for p in report.problems]
    cov = report.coverage
    notifications += [{
        "level": "note" if report.allow_incomplete else "error",
        "associatedRule": {"id": UNANALYZED_CODE},
        "message": {"text": f"'{u.name}' not analyzed: {u.reason}"
                            f"{f' (after {u.cause})' if u.cause else ''}; {u.fix}"},
        "locations": [{"physicalLocation": {
            "artifactLocation": _location(u.path, base),
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
