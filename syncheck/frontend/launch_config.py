"""Launch configurations in source text: the span from a launch's opener (`<<<`, or a spelling
of it) to the closer that ends its configuration, followed by the call's `(`. Shared by the
rewrites that read launches as nvcc does (launch_spacing.py, launch_braces.py)."""

from __future__ import annotations

import re
from typing import Callable

# A launch configuration spans at most a few lines of arguments.
_MAX_CONFIG_CHARS = 2000


def rewrite_configurations(text: str, opener: re.Pattern, closer: re.Pattern,
                           rewrite: Callable[[re.Match, str, re.Match], str | None]) -> str:
    """The text with each launch configuration replaced by ``rewrite(opener match, the text
    between, closer match)``, which returns the replacement of the whole span from the opener
    to the closer (None: left as written). A span with a `;` inside is not a launch."""
    out: list[str] = []
    last = 0
    for start in opener.finditer(text):
        if start.start() < last:
            continue
        end = closer.search(text, start.end(), start.end() + _MAX_CONFIG_CHARS)
        if end is None:
            continue
        config = text[start.end():end.start()]
        if ";" in config:
            continue
        replaced = rewrite(start, config, end)
        if replaced is None:
            continue
        out += [text[last:start.start()], replaced]
        last = end.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)
