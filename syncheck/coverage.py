"""Which device functions of a file were analyzed, which were not, and why.

A device function (kernel, ``__device__`` or ``__host__ __device__`` function, template or
instantiation) of an analyzed file whose body clang could not parse is not analyzed: it is
reported at the function as SYN002 unanalyzed-function with the first clang error and the
flag that would fix it, and counted in the run's coverage. Nothing is called clean that was
not looked at.
"""

from __future__ import annotations

import os
import re

from syncheck.diagnostics import (UNANALYZED_CODE, UNANALYZED_RULE, FileCoverage, Finding, Note,
                                  Severity, UnanalyzedFunction)
from syncheck.frontend.fix_hints import fix_for
from syncheck.frontend.parse import ParsedFile, ParseProblem
from syncheck.ir.program import Function, Program

_DEVICE_WORDS = re.compile(r"\b(__global__|__device__)\b")


def device_kind(fn: Function) -> str | None:
    """kernel | device | host_device, or None for host code. A declaration clang rejected
    may have lost its CUDA attributes: then its text decides."""
    if fn.runs_on_device:
        return fn.kind
    if fn.has_errors and fn.in_main_file:
        head = fn.text.split("{", 1)[0]
        m = _DEVICE_WORDS.search(head)
        if m:
            return "kernel" if m.group(1) == "__global__" else "device"
    return None


def main_file_device_functions(program: Program) -> list[Function]:
    return [f for f in program.functions.values()
            if f.in_main_file and not f.is_lambda and device_kind(f) is not None]


def unanalyzable(program: Program) -> list[Function]:
    return [f for f in main_file_device_functions(program) if f.has_errors]


# Words that mark a declaration as device code, including the macros libraries wrap them in
# (_CCCL_DEVICE, CUTLASS_DEVICE, __host__ __device__ spelled HOST_DEVICE_INLINE, ...).
_DEVICE_MARKERS = re.compile(r"\b(__global__|__device__|__constant__|__shared__|__managed__|"
                             r"\w*(?:DEVICE|KERNEL|GLOBAL)\w*)\b")


def unparsed_device_declarations(parsed: ParsedFile, program: Program) -> list[ParseProblem]:
    """Errors outside every function that clang found, on lines that declare device code:
    declarations clang could not read at all (so no function was found there to count).
    One per line."""
    spans = [(f.line, f.end_line) for f in program.functions.values() if f.in_main_file]
    lines = program.source_lines
    out: list[ParseProblem] = []
    seen: set[int] = set()
    for p in parsed.errors:
        if p.line in seen or any(a <= p.line <= b for a, b in spans):
            continue
        if _DEVICE_MARKERS.search(" ".join(lines[max(0, p.line - 2):p.line + 1])):
            seen.add(p.line)
            out.append(p)
    return out


def analyzed_and_missed(parsed: ParsedFile, program: Program) -> tuple[int, int]:
    """(device functions analyzed, device functions and declarations not analyzed)."""
    functions = main_file_device_functions(program)
    broken = sum(f.has_errors for f in functions)
    return len(functions) - broken, broken + len(unparsed_device_declarations(parsed, program))


def file_coverage(path: str, parsed: ParsedFile, program: Program, real_available: bool,
                  search_roots: tuple[str, ...]) -> FileCoverage:
    functions = main_file_device_functions(program)
    cov = FileCoverage(found=len(functions), headers=parsed.headers)
    missing = parsed.missing_includes
    for fn in functions:
        if not fn.has_errors:
            cov.analyzed += 1
            continue
        first = _first_error(parsed, fn)
        reason = first.message if first else "clang reported errors in this function"
        cause = ""
        if missing:  # the first missing include explains the rest
            cause = f"{missing[0].message} at line {missing[0].line}"
            fix = fix_for(missing[0].message, parsed.headers, real_available, search_roots)
        else:
            fix = fix_for(reason, parsed.headers, real_available, search_roots)
        cov.unanalyzed.append(UnanalyzedFunction(
            path=path, line=fn.line, column=fn.col, name=fn.name, kind=device_kind(fn) or "device",
            reason=reason, reason_line=first.line if first else fn.line,
            reason_column=first.column if first else fn.col, fix=fix, cause=cause))
    lost = unparsed_device_declarations(parsed, program)
    if lost:  # one diagnostic for them all, at the first; each line counts as one not analyzed
        first = lost[0]
        cov.found += len(lost)
        cause = f"{missing[0].message} at line {missing[0].line}" if missing else ""
        fix = fix_for(missing[0].message if missing else first.message, parsed.headers,
                      real_available, search_roots)
        cov.unanalyzed.append(UnanalyzedFunction(
            path=path, line=first.line, column=first.column,
            name=f"{len(lost)} declaration{'s' if len(lost) != 1 else ''} of device code",
            kind="declarations", reason=first.message, reason_line=first.line,
            reason_column=first.column, fix=fix, cause=cause))
    return cov


def _first_error(parsed: ParsedFile, fn: Function) -> ParseProblem | None:
    return next((p for p in parsed.errors if fn.line <= p.line <= fn.end_line), None)


_KIND_WORDS = {"kernel": "kernel", "device": "device function", "host_device": "__host__ __device__ function"}


def unanalyzed_finding(u: UnanalyzedFunction, allow_incomplete: bool) -> Finding:
    """The SYN002 diagnostic at the function: the clang error, and what would fix it."""
    if u.kind == "declarations":  # nothing was found there to name
        subject = f"{u.name} could not be parsed (the functions there are not analyzed):"
    else:
        subject = f"{_KIND_WORDS.get(u.kind, 'device function')} '{u.name}' was not analyzed:"
    return Finding(
        code=UNANALYZED_CODE, rule=UNANALYZED_RULE,
        severity=Severity.INFO if allow_incomplete else Severity.ERROR,
        path=u.path, line=u.line, column=u.column, end_line=u.line,
        end_column=u.column + max(1, len(u.name)),
        message=f"{subject} {u.reason}{f' (after {u.cause})' if u.cause else ''}; {u.fix}",
        function=u.name,
        notes=[Note(u.path, u.reason_line, u.reason_column, f"clang: {u.reason}")])


def search_roots_for(path: str, config_root: str | None) -> tuple[str, ...]:
    """Where to look for a header that was not found: the project, then the file's folder."""
    roots = []
    if config_root:
        roots.append(config_root)
    roots.append(os.getcwd())
    roots.append(os.path.dirname(os.path.abspath(path)))
    return tuple(dict.fromkeys(os.path.abspath(r) for r in roots))
