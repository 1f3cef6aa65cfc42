"""Choosing the CUDA headers a file is parsed with (--cuda-headers model|real|auto|PATH).

* model: syncheck's model headers only (fast, no download; may leave real code unparsed).
* real / PATH: the real CUDA headers (see syncheck/frontend/cuda_headers.py for where
  they are looked for); an error when there are none.
* auto (default): the model headers first; when that leaves device functions of the file
  unanalyzable and real headers are available, the file is parsed again with them and
  the parse that analyzes more device functions (then: leaves fewer unanalyzed) is kept,
  the model's on a tie.
"""

from __future__ import annotations

import clang.cindex as ci

from syncheck.coverage import analyzed_and_missed
from syncheck.frontend import precompiled
from syncheck.frontend.cuda_headers import MODES, HeadersUnavailable, RealHeaders, available, locate
from syncheck.frontend.parse import MODEL_DIR, ParsedFile, ParseOptions, parse_source
from syncheck.ir import reuse as kept_bodies
from syncheck.ir.program import Program, build_program


class ParseFailure(Exception):
    """libclang could not parse the file at all (the message says why)."""


def _parse(path: str, source: bytes, options: ParseOptions, real: RealHeaders | None,
           reuse: bool = False) -> ParsedFile:
    try:
        return parse_source(path, source, options, real=real, reuse=reuse)
    except ci.TranslationUnitLoadError as e:
        raise ParseFailure(str(e) or "libclang could not load the translation unit") from None


def check_mode(mode: str) -> str | None:
    """An error message when ``mode`` cannot work here (checked once, before any file)."""
    if mode in ("model", "auto"):
        return None
    try:
        locate(mode)
    except HeadersUnavailable as e:
        return str(e)
    return None


def prepare(options: ParseOptions, mode: str) -> None:
    """Locate the real headers and build their precompiled header now, outside any file's
    time limit (a first build under load could otherwise push one file past it)."""
    precompiled.model_get(options.clang_args(), str(MODEL_DIR))
    if mode == "model":
        return
    real = available(mode)
    if real is not None:
        precompiled.get(options.real_clang_args(real), real)


def parse_and_build(path: str, source: bytes, options: ParseOptions,
                    mode: str, reuse: bool = False,
                    keep_lowered: bool = False) -> tuple[ParsedFile, Program, bool]:
    """The parse and program to analyze, and whether real headers are available at all.
    ``reuse``: keep the translation units and reparse them next time (language server).
    ``keep_lowered``: keep the lowered bodies and take the unchanged ones next time
    (incremental lowering, ir/reuse.py)."""
    def build(parsed: ParsedFile) -> Program:
        if not keep_lowered:
            return build_program(parsed)
        context = (parsed.args, kept_bodies.includes_identity(parsed.tu))
        return build_program(parsed, kept_bodies.store_for(path, parsed.headers, context))

    if mode not in MODES or mode == "real":
        real = locate(mode)
        parsed = _parse(path, source, options, real, reuse)
        return parsed, build(parsed), True
    parsed = _parse(path, source, options, None, reuse)
    program = build(parsed)
    if mode == "model":
        return parsed, program, available("auto") is not None
    if not analyzed_and_missed(parsed, program)[1]:
        return parsed, program, True  # availability does not matter: nothing to fix
    real = available("auto")
    if real is None:
        return parsed, program, False
    real_parsed = _parse(path, source, options, real, reuse)
    real_program = build(real_parsed)
    if _score(real_parsed, real_program) > _score(parsed, program):
        return real_parsed, real_program, True
    return parsed, program, True


def _score(parsed: ParsedFile, program: Program) -> tuple[int, int]:
    """Device functions analyzed, then fewer left unanalyzed: higher is better."""
    analyzed, missed = analyzed_and_missed(parsed, program)
    return analyzed, -missed
