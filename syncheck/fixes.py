"""Applying fixes (syncheck.diagnostics.Fix) to source text, and showing them as a diff.

Only the CLI's --fix writes files, and only through ``write_fixed``; everything else here
works on text in memory (the language server and --diff use the same functions).
"""

from __future__ import annotations

import difflib
import os

from syncheck.diagnostics import Edit, Finding, Fix


def _offsets(data: bytes) -> list[int]:
    """Byte offset of the start of each line (1-based line n starts at offsets[n - 1])."""
    starts = [0]
    for i, b in enumerate(data):
        if b == 0x0A:
            starts.append(i + 1)
    return starts


def _offset(starts: list[int], data: bytes, line: int, column: int) -> int | None:
    if not 1 <= line <= len(starts):
        return None
    off = starts[line - 1] + column - 1
    return off if starts[line - 1] <= off <= len(data) else None


def edit_span(data: bytes, edit: Edit, starts: list[int] | None = None) -> tuple[int, int] | None:
    starts = starts if starts is not None else _offsets(data)
    a = _offset(starts, data, edit.line, edit.column)
    b = _offset(starts, data, edit.end_line, edit.end_column)
    return None if a is None or b is None or b < a else (a, b)


def chosen_fixes(findings: list[Finding], unsafe: bool) -> list[Fix]:
    """The fixes --fix applies: safe ones, and unsafe ones when asked for."""
    return [f.fix for f in findings if f.fix is not None and f.fix.edits and (unsafe or f.fix.safe)]


def apply_to_source(data: bytes, path: str, fixes: list[Fix]) -> tuple[bytes, int]:
    """``data`` with every fix for ``path`` applied whose edits do not overlap an earlier
    chosen fix (in order); (new bytes, number of fixes applied). A fix is applied whole or
    not at all."""
    starts = _offsets(data)
    taken: list[tuple[int, int]] = []
    spans: list[tuple[int, int, str]] = []
    applied = 0
    for fix in fixes:
        mine = [e for e in fix.edits if os.path.abspath(e.path) == os.path.abspath(path)]
        if not mine or len(mine) != len(fix.edits):
            continue
        ranges = [edit_span(data, e, starts) for e in mine]
        if any(r is None for r in ranges):
            continue
        if any(_overlaps(r, t) for r in ranges for t in taken) or any(
                _overlaps(r, s) for i, r in enumerate(ranges) for s in ranges[:i]):
            continue
        taken.extend(ranges)
        spans.extend((a, b, e.replacement) for (a, b), e in zip(ranges, mine))
        applied += 1
    out = data
    for a, b, text in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        out = out[:a] + text.encode("utf-8") + out[b:]
    return out, applied


def _overlaps(r: tuple[int, int], s: tuple[int, int]) -> bool:
    """Two ranges conflict when they share text, or are insertions at the same point."""
    if r[0] == r[1] and s[0] == s[1]:
        return r[0] == s[0]
    return r[0] < s[1] and s[0] < r[1]


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    a = before.decode("utf-8", errors="replace").splitlines(keepends=True)
    b = after.decode("utf-8", errors="replace").splitlines(keepends=True)
    text = "".join(difflib.unified_diff(a, b, fromfile=f"a/{path}", tofile=f"b/{path}"))
    return text if not text or text.endswith("\n") else text + "\n"


def write_fixed(path: str, data: bytes) -> None:
    """Replace a file's content, keeping its mode (the only place syncheck writes sources)."""
    tmp = f"{path}.syncheck-fix.{os.getpid()}"
    mode = os.stat(path).st_mode
    with open(tmp, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode & 0o7777)
    os.replace(tmp, path)
