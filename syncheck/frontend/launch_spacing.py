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

from syncheck.frontend.launch_config import rewrite_configurations

# `<<` then spaces then `<`, not part of a longer run of `<` (a shift of a shift).
_SPACED_OPEN = re.compile(r"(?<![<])<<([ \t]+)<(?![<=])")
# The configuration's closer: `>>>` or `>>` spaces `>`, then the call's `(`.
_CLOSE = re.compile(r">>([ \t]*)>(?=\s*\()")


def with_launches_joined(text: str) -> str:
    """The source with every spaced launch opener (and its closer) joined, same length."""
    if "<< <" not in text and "<<\t<" not in text:
        return text
    return rewrite_configurations(
        text, _SPACED_OPEN, _CLOSE,
        lambda opener, config, close: f"<<<{opener.group(1)}{config}>>>{close.group(1)}")
