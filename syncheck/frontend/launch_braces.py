"""Launch configurations written as braced lists: `k<<<{gx, gy, 2}, {64, 16}>>>(args)`.

nvcc accepts a braced list for the grid and block of a launch (each initializes a dim3);
clang parses the configuration as plain expressions and rejects the brace ("expected
expression"), so the host function that launches, and with it the launch shape, was lost
and the file reported a syntax error. The parse reads a copy of the source (never the file)
where each such list is typed: `${...}`, `$` being a name for dim3 that the force-included
launch header declares. The `$` takes the place of a blank in the same configuration (the
one before the brace where there is one), so the launch keeps its length and every line,
column and byte offset outside the configuration stays. A configuration with too few blanks
to take from is left as written.
"""

from __future__ import annotations

import re

from syncheck.frontend.launch_config import rewrite_configurations

# The name the force-included headers give dim3 for this rewrite (one character, so that it
# fits in a blank; `$` is an identifier character for clang and never a CUDA name).
DIM3_ALIAS = "$"

_OPEN = re.compile(r"(?<![<])<<<(?![<=])")
_CLOSE = re.compile(r">>>(?=\s*\()")
_WORD = re.compile(r"\w")


def with_braced_launches_typed(text: str) -> str:
    """The source with each braced grid or block list of a launch typed as a dim3, same length."""
    if "<<<" not in text or "{" not in text:
        return text

    def typed(opener: re.Match, config: str, close: re.Match) -> str | None:
        if "{" not in config:
            return None
        inside = _typed(config)
        return None if inside is None else opener.group(0) + inside + close.group(0)
    return rewrite_configurations(text, _OPEN, _CLOSE, typed)


def _typed(config: str) -> str | None:
    """The configuration with `$` before each argument that opens with a brace and as many
    blanks taken out, or None when it holds too few blanks that can go."""
    starts = _braced_argument_starts(config)
    if not starts:
        return None
    chars = list(config)
    removable = [i for i in range(len(chars)) if chars[i] in " \t" and _blank_can_go(config, i)]
    taken: set[int] = set()
    for brace in starts:
        before = brace - 1
        if before in removable and before not in taken:
            taken.add(before)
    extra = len(starts) - len(taken)
    # Blanks elsewhere, the last ones first: they stand before `>>>`, where nothing points.
    for i in reversed(removable):
        if extra == 0:
            break
        if i not in taken:
            taken.add(i)
            extra -= 1
    if extra:
        return None
    pieces = []
    for i, c in enumerate(chars):
        if i in starts:
            pieces.append(DIM3_ALIAS)
        if i not in taken:
            pieces.append(c)
    return "".join(pieces)


def _braced_argument_starts(config: str) -> list[int]:
    """Offsets of the `{` that open an argument of the configuration (not a list nested in
    an expression: `dim3{n, 1}` keeps its own type)."""
    starts, depth, expecting = [], 0, True  # expecting: the next token opens an argument
    for i, c in enumerate(config):
        if c in " \t\r\n":
            continue
        if depth == 0 and expecting and c == "{":
            starts.append(i)
        expecting = False
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            expecting = True
    return starts


def _blank_can_go(config: str, i: int) -> bool:
    """A blank between two word characters keeps two tokens apart (`unsigned int`) and a
    blank inside a line's leading indentation keeps nothing apart but is not a token's
    neighbour either: only the first must stay."""
    left = config[:i].rstrip(" \t")
    right = config[i + 1:].lstrip(" \t")
    if not left or not right:
        return True
    return not (_WORD.match(left[-1]) and _WORD.match(right[0]))
