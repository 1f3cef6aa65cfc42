"""`__syncthreads;` as nvcc reads it.

A barrier builtin named without a call (`__syncthreads;`, a typo that compiles) is an
expression statement with no effect for nvcc: no barrier is there. clang rejects it
("builtin functions must be directly called") and the whole kernel was lost. The parse reads
a copy of the source (never the file) where the name is replaced by `(void)0` padded to the
same length: what nvcc runs, in the same span, so every other line, column and byte offset
stays; the missing barrier's consequences (a race the real barrier would have ordered) are
then found like any other.
"""

from __future__ import annotations

import re

# clang's CUDA builtins that stand for synchronization (the others are declared functions:
# naming one without a call is accepted by clang as it is)
_BARE_BUILTIN = re.compile(
    r"(?<![\w.>:])(?P<name>__syncthreads|__threadfence(?:_block|_system)?)(?=[ \t]*;)")


def with_bare_builtins_voided(text: str) -> str:
    """The source with each builtin named as a statement of its own replaced by `(void)0`."""
    if "__syncthreads" not in text and "__threadfence" not in text:
        return text
    return _BARE_BUILTIN.sub(lambda m: "(void)0".ljust(len(m.group("name"))), text)
