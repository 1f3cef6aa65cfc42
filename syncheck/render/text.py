"""The default GCC-style text output, with a source snippet and caret under each finding."""

from __future__ import annotations

import functools

from rich.console import Console
from rich.markup import escape

from syncheck.diagnostics import Finding, Report
from syncheck.safe_io import read_regular_file


@functools.lru_cache(maxsize=64)
def _lines(path: str) -> list[str]:
    try:  # a regular file within the size limit: the path may have changed since the analysis
        return read_regular_file(path).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _snippet(path: str, line: int, col: int, end_col: int, sources=None) -> list[str]:
    given = (sources or {}).get(path)
    lines = given.decode("utf-8", errors="replace").splitlines() if given is not None else _lines(path)
    if not (1 <= line <= len(lines)):
        return []
    src = lines[line - 1].expandtabs(1)
    width = max(1, (end_col - col) if end_col > col else 1)
    gutter = f"{line:>5} | "
    caret = " " * (len(gutter) - 2) + "| " + " " * (col - 1) + "^" + "~" * (width - 1)
    return [gutter + src, caret]


_STYLES = {"error": "bold red", "warning": "bold magenta", "info": "bold cyan", "note": "bold cyan"}


def _finding_lines(f: Finding, color: bool, sources=None) -> list[str]:
    head = f"{f.path}:{f.line}:{f.column}: "
    sev = f.severity.value
    tail = f"{f.message} [{f.code} {f.rule}]"
    out = []
    if color:
        out.append(f"[bold]{escape(head)}[/bold][{_STYLES[sev]}]{sev}:[/] {escape(tail)}")
        out.extend(f"[dim]{escape(s)}[/dim]" if i == 0 else f"[green]{escape(s)}[/green]"
                   for i, s in enumerate(_snippet(f.path, f.line, f.column, f.end_column, sources)))
    else:
        out.append(head + f"{sev}: " + tail)
        out.extend(_snippet(f.path, f.line, f.column, f.end_column, sources))
    for n in f.notes:
        line = f"{n.path}:{n.line}:{n.column}: note: {n.message}"
        out.append(f"[cyan]{escape(line)}[/cyan]" if color else line)
    if f.fix is not None and f.fix.edits:
        how = "--fix" if f.fix.safe else "--fix --unsafe-fixes"
        line = f"{f.path}:{f.line}:{f.column}: note: fix ({f.fix.safety}, {how}): {f.fix.message}"
        out.append(f"[green]{escape(line)}[/green]" if color else line)
    return out


def render(report: Report, color: bool = False, console: Console | None = None,
           sources: dict[str, bytes] | None = None) -> str:
    """``sources``: the text of paths not read from disk (stdin), for the snippets."""
    lines: list[str] = []
    for f in report.findings:
        lines.extend(_finding_lines(f, color, sources))
    for p in report.problems:
        loc = f"{p.path}:{p.line}:{p.column or 1}" if p.line else p.path
        kind = "error" if p.kind == "error" else "note"
        text = f"{loc}: {kind}: {p.message}"
        lines.append(f"[{_STYLES[kind]}]{escape(text)}[/]" if color else text)
    lines.append(f"[bold]{escape(summary_line(report))}[/bold]" if color else summary_line(report))
    return "\n".join(printable(line) for line in lines) + "\n"


def printable(text: str) -> str:
    """``text`` with control characters escaped, so it stays one line of plain text."""
    return text.translate(_CONTROL_ESCAPES)


# File names, messages quoting source text and snippets come from the analyzed tree: a newline
# in a file name must not start a line of its own (CI runners obey lines such as
# "::warning::..."), nor an escape sequence reach the terminal. Tabs stay.
_CONTROL_ESCAPES = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, 0x85] if c != 0x09}
_CONTROL_ESCAPES.update({0x0A: "\\n", 0x0D: "\\r", 0x2028: "\\u2028", 0x2029: "\\u2029"})


def summary_line(report: Report) -> str:
    """The closing line of every run: findings, file errors and coverage."""
    n = len(report.findings) - len(report.unanalyzed_findings)
    summary = (f"Found {n} finding{'s' if n != 1 else ''} in {report.files} file"
               f"{'s' if report.files != 1 else ''}")
    if report.errors:
        summary += f"; {len(report.errors)} file error{'s' if len(report.errors) != 1 else ''}"
    summary += f"; {report.coverage.summary()}"
    missed = len(report.coverage.unanalyzed)
    if missed:
        summary += f", {missed} not analyzed (SYN002)"
    return summary + "."
