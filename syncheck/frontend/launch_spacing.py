"""Kernel launches as nvcc reads them, with spaced chevrons: `k << <grid, block >> >(args)`.

Code formatted by some editors (Visual Studio's among them) writes the launch chevrons with
spaces inside, and nvcc accepts it; clang takes `<< <` for a shift and a less-than and
rejects the statement ("expected expression"), so the host function that launches, and
with it the launch shape, was lost and the file reported a syntax error. The parse reads a
copy of the source (never the file) in which each spaced opener of a launch and the closer
that ends its configuration are written `<<<` and `>>>`, the removed spaces moved after the
chevrons: every line, column and byte offset stays where it was.
"""

from __future__ import annotations

import re

# `<<` then spaces then `<`, not part of a longer run of `<` (a shift of a shift).
_SPACED_OPEN = re.compile(r"(?<![<])<<([ \t]+)<(?![<=])")
# The configuration's closer: `>>>` or `>>` spaces `>`, then the call's `(`.
_CLOSE = re.compile(r">>([ \t]*)>(?=\s*\()")
# A launch configuration spans at most a few lines of arguments.
_MAX_CONFIG_CHARS = 2000


def with_launches_joined(text: str) -> str:
    """The source with every spaced launch opener (and its closer) joined, same length."""
    if "<< <" not in text and "<<\t<" not in text:
        return text
    out: list[str] = []
    last = 0
    for opener in _SPACED_OPEN.finditer(text):
        if opener.start() < last:
            continue
        close = _CLOSE.search(text, opener.end(), opener.end() + _MAX_CONFIG_CHARS)
        if close is None or ";" in text[opener.end():close.start()]:
            continue  # not a launch: a shift compared with something
        out.append(text[last:opener.start()])
        out.append("<<<" + opener.group(1))
        out.append(text[opener.end():close.start()])
        out.append(">>>" + close.group(1))
        last = close.end()
    out.append(text[last:])
    return "".join(out)
