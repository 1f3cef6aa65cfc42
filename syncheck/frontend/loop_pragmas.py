"""`#pragma unroll` before a statement that is not a loop, as nvcc reads it.

nvcc warns that the pragma is ignored and compiles the code; clang rejects it ("expected a
for, while, or do-while loop to follow '#pragma unroll'") and the function was lost. The
pragma often comes from a macro written as a statement (`UNROLL(N);`: the `;` is the
statement that follows it). Only the parse's diagnostics say where such a pragma stands, so
the parse is done again on a copy of the source (never the file) where each such place gets
an empty loop for the pragma to apply to, `while(0);`, without moving any other code:

- a `#pragma unroll` line of the file itself is blanked;
- a `;` that ends its line becomes `while(0);` (nothing after it on the line moves);
- a statement with nine blanks of indentation before it takes `while(0);` in their place;
- otherwise `while(0);` is put before the statement (later columns of that line move).
"""

from __future__ import annotations

import re

NOT_A_LOOP_AFTER_UNROLL = "expected a for, while, or do-while loop to follow '#pragma unroll'"

_EMPTY_LOOP = "while(0);"
_PRAGMA_LINE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+unroll\b")
_REST_IS_BLANK = re.compile(r"^[ \t]*(//.*)?$")


def with_empty_loops_after_unroll(text: str, places: list[tuple[int, int]]) -> str:
    """The source with an empty loop after each stray unroll pragma; ``places`` are the
    (line, byte column) where clang found the statement that is not a loop."""
    lines = text.split("\n")
    for line_number, column in sorted(set(places), reverse=True):
        if not 1 <= line_number <= len(lines):
            continue
        line = lines[line_number - 1]
        at = len(line.encode("utf-8")[:column - 1].decode("utf-8", "ignore"))
        before = _pragma_line_before(lines, line_number, at)
        if before is not None:
            lines[before] = " " * len(lines[before])
        elif line[at:at + 1] == ";" and _REST_IS_BLANK.match(line[at + 1:]):
            lines[line_number - 1] = line[:at] + _EMPTY_LOOP + line[at + 1:]
        elif line[:at].strip() == "" and at >= len(_EMPTY_LOOP):
            lines[line_number - 1] = line[:at - len(_EMPTY_LOOP)] + _EMPTY_LOOP + line[at:]
        else:
            lines[line_number - 1] = line[:at] + _EMPTY_LOOP + line[at:]
    return "\n".join(lines)


def _pragma_line_before(lines: list[str], line_number: int, at: int) -> int | None:
    """The index of the `#pragma unroll` line right before the statement at ``at`` (blank
    lines and comment lines between), or None when the pragma came another way (a macro)."""
    if lines[line_number - 1][:at].strip():
        return None
    index = line_number - 2
    while index >= 0 and (not lines[index].strip() or lines[index].lstrip().startswith("//")):
        index -= 1
    if index >= 0 and _PRAGMA_LINE.match(lines[index]) and not lines[index].rstrip().endswith("\\"):
        return index
    return None
