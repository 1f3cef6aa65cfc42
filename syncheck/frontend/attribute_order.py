"""`__shared__ alignas(N) T x;` as nvcc reads it.

nvcc accepts an `alignas` written after `__shared__` (CUDA code that aligns a shared buffer
for TMA or vector loads writes it so); clang reads `__shared__` as a GNU attribute, takes the
`alignas` that follows for an attribute of the type and rejects the declaration, which lost
the whole kernel. The parse reads a copy of the source (never the file) with the two written
the other way round, `alignas(N) __shared__`, which clang accepts and which means the same:
the same characters in the same span, so every other line, column and byte offset stays.
"""

from __future__ import annotations

import re

# `__shared__` then `alignas(...)` (one level of parentheses inside: `alignas(sizeof(T))`).
_SHARED_THEN_ALIGNAS = re.compile(
    r"\b__shared__(?P<gap>[ \t]+)(?P<alignas>alignas[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))")


def with_alignas_first(text: str) -> str:
    """The source with each `__shared__ alignas(N)` written `alignas(N) __shared__`."""
    if "alignas" not in text:
        return text
    return _SHARED_THEN_ALIGNAS.sub(lambda m: f"{m.group('alignas')}{m.group('gap')}__shared__", text)
