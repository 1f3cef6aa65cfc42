"""`__shared__ alignas(N) T x;` and `__device__ [[nodiscard]] T f();` as nvcc reads them.

nvcc accepts an `alignas` written after `__shared__` (CUDA code that aligns a shared buffer
for TMA or vector loads writes it so), and a standard attribute list (`[[nodiscard]]`,
`[[maybe_unused]]`) after a function's `__device__ __host__`; clang reads the CUDA keywords as
GNU attributes, after which it accepts neither ("an attribute list cannot appear here"), and
the declaration (a kernel, or every helper of a file) was lost. The parse reads a copy of the
source (never the file) with the two written the other way round (`alignas(N) __shared__`,
`[[nodiscard]] __device__ __host__`), which clang accepts and which means the same: the same
characters in the same span, so every other line, column and byte offset stays.
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


# CUDA's function keywords (GNU attributes for clang), then a standard attribute list.
_KEYWORDS_THEN_ATTRIBUTES = re.compile(
    r"(?P<keywords>\b(?:__device__|__host__|__global__|__forceinline__|__noinline__)"
    r"(?:[ \t]+(?:__device__|__host__|__global__|__forceinline__|__noinline__))*)"
    r"(?P<gap>[ \t]+)(?P<attributes>\[\[[^\[\]\n]*\]\])")


def with_attribute_lists_first(text: str) -> str:
    """The source with each `__device__ [[...]]` written `[[...]] __device__`."""
    if "[[" not in text:
        return text
    return _KEYWORDS_THEN_ATTRIBUTES.sub(
        lambda m: f"{m.group('attributes')}{m.group('gap')}{m.group('keywords')}", text)
