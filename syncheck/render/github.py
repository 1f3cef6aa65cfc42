"""--format github: GitHub Actions workflow commands, one annotation per finding."""

from __future__ import annotations

from syncheck.diagnostics import Report

_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    lines = []
    for f in report.findings:
        props = (f"file={_prop(f.path)},line={f.line},col={f.column},endLine={f.end_line},"
                 f"endColumn={f.end_column},title={_prop(f'{f.code} {f.rule}')}")
        body = f.message
        if f.notes:
            body += "\n" + "\n".join(f"{n.path}:{n.line}:{n.column}: note: {n.message}" for n in f.notes)
        lines.append(f"::{_COMMANDS[f.severity.value]} {props}::{_data(body)}")
    for p in report.problems:
        props = f"file={_prop(p.path)}" + (f",line={p.line}" if p.line else "") + ",title=syncheck"
        lines.append(f"::{'error' if p.kind == 'error' else 'notice'} {props}::{_data(p.message)}")
    cov = report.coverage
    level = "notice" if cov.complete or report.allow_incomplete else "error"
    lines.append(f"::{level} title={_prop('syncheck coverage')}::"
                 f"{_data(f'syncheck {cov.summary()} in {report.files} file' + ('s' if report.files != 1 else ''))}")
    return "\n".join(lines) + "\n"
