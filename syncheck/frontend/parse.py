"""Parsing CUDA sources with libclang, with syncheck's model headers or the real ones.

The PyPI libclang wheel ships no clang resource headers and cannot read a CUDA 13
toolkit, so by default syncheck parses with ``-nocudainc -nocudalib`` and puts its own
model headers first on the include path. A fake ``--cuda-path`` keeps results identical
whether or not a toolkit is installed. With real headers (see cuda_headers.py) it parses
as clang does for CUDA, with the toolkit's headers and clang's CUDA wrappers, loading
the common ones from a precompiled header (precompiled.py).
"""

from __future__ import annotations

import collections
import functools
import json
import re
import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci

from syncheck.frontend import include_prefix, precompiled, system_prefix
from syncheck.frontend.asm_escapes import with_ptx_names_escaped
from syncheck.frontend.attribute_order import with_alignas_first, with_attribute_lists_first
from syncheck.frontend.bare_builtins import with_bare_builtins_voided
from syncheck.frontend.launch_braces import with_braced_launches_typed
from syncheck.frontend.launch_spacing import with_launches_joined
from syncheck.frontend.loop_pragmas import NOT_A_LOOP_AFTER_UNROLL, with_empty_loops_after_unroll
from syncheck.frontend.clang_api import KEEP_GOING
from syncheck.include_policy import allowed_by_current, current_guard, guarded_parse, GuardedIndex
from syncheck.frontend.cuda_headers import MODEL_DIR, STANDINS_DIR, RealHeaders

# Included first in parses with the real headers: CCCL's PTX ISA as nvcc 12.8+ sets it.
CCCL_PTX_ISA = "syncheck_cccl_ptx_isa.h"

FALLBACK_INCLUDE_DIR = Path(__file__).parent / "fallback_include"


@functools.cache
def compiler_include_dir() -> str:
    """GCC's own include dir (stddef.h and friends), or syncheck's fallback."""
    for gcc in ("gcc", "cc"):
        try:
            out = subprocess.run([gcc, "-print-file-name=include"], capture_output=True,
                                 text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        if out and os.path.isfile(os.path.join(out, "stddef.h")):
            return out
    return str(FALLBACK_INCLUDE_DIR)


@dataclass(frozen=True)
class ParseOptions:
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    arch: str = "sm_90"
    std: str = "c++17"
    extra_args: tuple[str, ...] = ()

    def clang_args(self) -> list[str]:
        """Arguments to parse with syncheck's model headers (no toolkit needed)."""
        arch = self._arch()
        args = [
            "-x", "cuda", "-nocudainc", "-nocudalib", f"--cuda-gpu-arch={arch}",
            "--cuda-path=/nonexistent", "--cuda-device-only", f"-std={self.std}",
            "-ferror-limit=0", "-Wno-everything",
            "-I", str(MODEL_DIR),
            # nvcc includes the runtime header implicitly; so does syncheck (its model).
            "-include", str(MODEL_DIR / "cuda_runtime.h"),
        ]
        for d in self.include_dirs:
            args += ["-I", d]
        for d in self.defines:
            args.append(f"-D{d}")
        args += list(self.extra_args)
        args += ["-isystem", compiler_include_dir()]
        return args

    def real_clang_args(self, real: "RealHeaders") -> list[str]:
        """Arguments to parse with real CUDA headers: the device side, like nvcc's device pass."""
        args = [
            "-x", "cuda", f"--cuda-gpu-arch={self._arch()}", f"--cuda-path={real.cuda_root}",
            "-nocudalib", "-resource-dir", real.resource_dir, "--cuda-device-only",
            f"-std={self.std}", "-ferror-limit=0", "-Wno-everything",
        ]
        # nvcc states its version to the code it compiles (`#if __CUDACC_VER_MAJOR__ >= 12`
        # choosing cudaLaunchKernelExC); clang does not: say the headers' version.
        given = {d.split("=", 1)[0] for d in self.defines}
        for name, value in _compiler_version_macros(real.version):
            if name not in given:
                args.append(f"-D{name}={value}")
        for d in self.include_dirs:
            args += ["-I", d]
        for d in self.defines:
            args.append(f"-D{d}")
        args += list(self.extra_args)
        args += ["-idirafter", str(STANDINS_DIR), "-include", str(STANDINS_DIR / CCCL_PTX_ISA)]
        return args

    def _arch(self) -> str:
        # Only the arches libclang 18 knows: newer ones fail to load.
        arch = self.arch if self.arch.startswith("sm_") else f"sm_{self.arch}"
        if arch.rstrip("a").removeprefix("sm_").isdigit() and int(arch.rstrip("a")[3:]) > 90:
            arch = "sm_90"
        return arch

    def merged(self, other: "ParseOptions") -> "ParseOptions":
        return ParseOptions(
            include_dirs=self.include_dirs + tuple(d for d in other.include_dirs if d not in self.include_dirs),
            defines=self.defines + tuple(d for d in other.defines if d not in self.defines),
            arch=other.arch if other.arch != "sm_90" else self.arch,
            std=other.std if other.std != "c++17" else self.std,
            extra_args=self.extra_args + other.extra_args,
        )


@dataclass
class ParseProblem:
    line: int
    column: int
    message: str
    kind: str  # missing-include | syntax (the file itself is malformed) | semantic | header
    header: str | None = None  # for kind "header": the included file with the error


_SYNTAX = re.compile(r"^(expected |unterminated |missing terminating |extraneous closing |bracket nesting)")


@dataclass
class ParsedFile:
    path: str
    tu: ci.TranslationUnit
    source: bytes
    problems: list[ParseProblem] = field(default_factory=list)
    headers: str = "model"      # which CUDA headers: "model" or "real"
    precompiled: bool = False   # the real headers came from a precompiled header
    args: tuple[str, ...] = ()  # the arguments libclang parsed it with
    # Files read through a precompiled include prefix (the translation unit does not list them).
    prefix_includes: tuple[str, ...] = ()

    def included_files(self) -> list[str]:
        """Every file the parse read (headers), as clang named them."""
        names = [inc.include.name for inc in self.tu.get_includes() if inc.include is not None]
        return names + list(self.prefix_includes)

    @property
    def missing_includes(self) -> list[ParseProblem]:
        return [p for p in self.problems if p.kind == "missing-include"]

    @property
    def syntax_errors(self) -> list[ParseProblem]:
        return [p for p in self.problems if p.kind == "syntax"]

    @property
    def errors(self) -> list[ParseProblem]:
        """Every error in the main file (syntax or semantic)."""
        return [p for p in self.problems if p.kind in ("syntax", "semantic")]

    @property
    def header_errors(self) -> list[ParseProblem]:
        return [p for p in self.problems if p.kind == "header"]


@functools.cache
def _index() -> ci.Index:
    # Every parse of an analyzed file reads only what the include policy allows.
    return GuardedIndex.create()


# Translation units kept for reparsing (the language server's worker: one per open
# document and header kind), most recently used last.
_REUSED: "collections.OrderedDict[tuple[str, str], tuple[tuple, ci.TranslationUnit]]" = collections.OrderedDict()
MAX_REUSED = 6
# CXTranslationUnit_CreatePreambleOnFirstParse: build the precompiled preamble (everything
# before the first line that changes) already during the first parse, not the first reparse.
_PREAMBLE_ON_FIRST_PARSE = 0x100
REUSE_OPTIONS = KEEP_GOING | ci.TranslationUnit.PARSE_PRECOMPILED_PREAMBLE | _PREAMBLE_ON_FIRST_PARSE


def forget_reused(path: str | None = None) -> None:
    """Drop kept translation units (of one path, or all)."""
    for key in [k for k in _REUSED if path is None or k[0] == path]:
        del _REUSED[key]


def _parse_tu(path: str, args: list[str], text: str, kind: str, reuse: bool) -> ci.TranslationUnit:
    """Parse, or with ``reuse`` reparse the translation unit kept for (path, kind) when it
    was made with the same arguments: libclang then reuses the precompiled preamble (the
    includes at the top of the file) and parses only the rest again."""
    if not reuse:
        return _index().parse(path, args=args, unsaved_files=[(path, text)], options=KEEP_GOING)
    key = (path, kind)
    held = _REUSED.get(key)
    if held is not None and held[0] == tuple(args):
        tu = held[1]

        def reparse(_path, _args, unsaved, _options):
            tu.reparse(unsaved_files=unsaved, options=0)
            return tu
        try:
            tu = guarded_parse(reparse, path, args, [(path, text)], REUSE_OPTIONS)
            _REUSED.move_to_end(key)
            return tu
        except Exception:  # noqa: BLE001 - a failed reparse: parse afresh below
            _REUSED.pop(key, None)
    tu = _index().parse(path, args=args, unsaved_files=[(path, text)], options=REUSE_OPTIONS)
    _REUSED[key] = (tuple(args), tu)
    while len(_REUSED) > MAX_REUSED:
        _REUSED.popitem(last=False)
    return tu


def parse_source(path: str, source: bytes, options: ParseOptions,
                 real: RealHeaders | None = None, use_pch: bool = True,
                 reuse: bool = False) -> ParsedFile:
    """Parse ``source`` (the bytes of ``path``, already read) without touching the disk copy.

    With ``real``, the real CUDA headers are used (from a precompiled header when it can
    be, see precompiled.py); without, syncheck's model headers. With ``reuse`` (the
    language server), where no precompiled header applies, the translation unit is kept and
    reparsed on the next call for path.
    """
    text = with_instantiation_references(_as_nvcc_reads(source.decode("utf-8")))
    parsed = _parse_text(path, source, text, options, real, use_pch, reuse)
    stray = [(p.line, p.column) for p in parsed.problems
             if p.kind != "header" and p.message == NOT_A_LOOP_AFTER_UNROLL]
    if stray:
        # only the parse tells where a pragma (often from a macro) stands before no loop
        parsed = _parse_text(path, source, with_empty_loops_after_unroll(text, stray), options,
                             real, use_pch, reuse)
    return parsed


def _parse_text(path: str, source: bytes, text: str, options: ParseOptions,
                real: RealHeaders | None, use_pch: bool, reuse: bool) -> ParsedFile:
    """parse_source's parse of ``text``, the copy of ``source`` rewritten as nvcc reads it."""
    parent = os.path.dirname(os.path.abspath(path))
    if real is None:
        args = options.clang_args()
        if use_pch and not reuse:
            parsed = _parse_with_prefix(path, source, text, args + ["-I", parent])
            if parsed is not None:
                return parsed
            parsed = _parse_with_system_prefix(path, source, text, args, parent)
            if parsed is not None:
                return parsed
        pch = precompiled.model_get(args, str(MODEL_DIR)) if use_pch else None
        if reuse and (pch is None or not precompiled.model_usable_for(path, pch)):
            # the language server without a precompiled model header: keep the translation
            # unit and reparse it (with the precompiled header, a fresh parse is faster: the
            # reparse checks and re-reads more than the header saves)
            tu = _parse_tu(path, args + ["-I", parent], text, "model", reuse)
            return _classify(path, tu, source, "model", False, args + ["-I", parent])
        if pch is not None and precompiled.model_usable_for(path, pch):
            base, _ = precompiled.split_forced_include(args)
            try:
                tu = _index().parse(path, args=base + ["-include-pch", pch, "-I", parent],
                                    unsaved_files=[(path, text)], options=KEEP_GOING)
            except ci.TranslationUnitLoadError:
                tu = None  # an unreadable precompiled header
            if tu is not None and not precompiled.load_failed(tu):
                return _classify(path, tu, source, "model", False, base + ["-include-pch", pch, "-I", parent])
            precompiled.discard(pch)
        tu = _index().parse(path, args=args + ["-I", parent], unsaved_files=[(path, text)],
                            options=KEEP_GOING)
        return _classify(path, tu, source, "model", False, args + ["-I", parent])
    base = options.real_clang_args(real)
    pch = precompiled.get(base, real) if use_pch and precompiled.usable_for(path, source, real) else None
    if pch is not None:
        try:
            tu = _index().parse(path, args=base + ["-include-pch", pch, "-I", parent],
                                unsaved_files=[(path, text)], options=KEEP_GOING)
        except ci.TranslationUnitLoadError:
            tu = None  # an unreadable precompiled header
        if tu is not None and not precompiled.load_failed(tu):
            return _classify(path, tu, source, "real", True, base + ["-include-pch", pch, "-I", parent])
        precompiled.discard(pch)
    launch = str(STANDINS_DIR / "syncheck_device_launch.h")
    tu = _parse_tu(path, base + ["-include", launch, "-I", parent], text, "real", reuse)
    return _classify(path, tu, source, "real", False, base + ["-include", launch, "-I", parent])


def _parse_with_prefix(path: str, source: bytes, text: str, args: list[str]) -> ParsedFile | None:
    """The parse with the precompiled prefix of the file's include lines (include_prefix.py);
    None when there is none or it cannot be used (then parse as usual)."""
    prefix = include_prefix.get(path, source, args, allowed_by_current(args))
    if prefix is None:
        return None
    guard = current_guard()
    refused_before = len(guard.refused) if guard is not None else 0
    base, _ = precompiled.split_forced_include(args)
    try:
        tu = _index().parse(path, args=base + ["-include-pch", prefix.pch],
                            unsaved_files=[(path, text)], options=KEEP_GOING)
    except ci.TranslationUnitLoadError:
        tu = None
    if tu is None or precompiled.load_failed(tu):
        include_prefix.discard(prefix)
        return None
    if guard is not None and len(guard.refused) > refused_before:
        return None  # a header is refused: the plain parse reads an empty one in its place
    parsed = _classify(path, tu, source, "model", False, base + ["-include-pch", prefix.pch])
    parsed.prefix_includes = prefix.files
    return parsed


def _parse_with_system_prefix(path: str, source: bytes, text: str, args: list[str],
                              parent: str) -> ParsedFile | None:
    """The parse with the precompiled system headers the file reads before its own code
    (system_prefix.py); None when there are none or it cannot be used (then parse as usual)."""
    prefix = system_prefix.get(path, source, args, allowed_by_current(args + ["-I", parent]))
    if prefix is None:
        return None
    guard = current_guard()
    refused_before = len(guard.refused) if guard is not None else 0
    base, _ = precompiled.split_forced_include(args)
    full = base + ["-include-pch", prefix.pch, "-I", parent]
    try:
        tu = _index().parse(path, args=full, unsaved_files=[(path, text)], options=KEEP_GOING)
    except ci.TranslationUnitLoadError:
        tu = None
    if tu is None or precompiled.load_failed(tu):
        system_prefix.discard(prefix)
        return None
    if guard is not None and len(guard.refused) > refused_before:
        return None  # a header is refused: the plain parse reads an empty one in its place
    parsed = _classify(path, tu, source, "model", False, full)
    parsed.prefix_includes = prefix.files
    return parsed


def _classify(path: str, tu: ci.TranslationUnit, source: bytes, headers: str,
              from_pch: bool, args: list[str]) -> ParsedFile:
    parsed = ParsedFile(path=path, tu=tu, source=source, headers=headers, precompiled=from_pch,
                        args=tuple(args))
    main = os.path.abspath(path)
    added: list | None = None  # where with_instantiation_references added text (computed once)
    for diag in tu.diagnostics:
        if diag.severity < ci.Diagnostic.Error or _self_inclusion(diag):
            continue
        if added is None:
            added = _added_spans(source)
        loc = diag.location
        if added and loc.file is not None and os.path.abspath(loc.file.name) == main and any(
                line == loc.line and first <= loc.column <= last for line, first, last in added):
            continue  # an error in a reference syncheck added (a name it could not resolve)
        message = diag.spelling
        header = None
        if "file not found" in message:
            kind = "missing-include"
            line, col = loc.line, loc.column
        elif message == "#include nested too deeply" and loc.file is not None \
                and os.path.abspath(loc.file.name) == main:
            kind = "include-cycle"  # the file includes itself: nvcc rejects it
            line, col = loc.line, loc.column
        elif loc.file is not None and os.path.abspath(loc.file.name) != main:
            kind, header, line, col = "header", loc.file.name, 1, 1
        else:
            # Fatal errors (e.g. nesting too deep) stop clang: the file is malformed for us.
            fatal = diag.severity >= ci.Diagnostic.Fatal
            kind = "syntax" if fatal or _SYNTAX.match(message) else "semantic"
            line, col = loc.line, loc.column
        parsed.problems.append(ParseProblem(line, col, message, kind, header))
    return parsed


# An explicit instantiation definition of a function template at the start of a line
# (`template __global__ void k<32, 6>(float *);`, not `extern template`, not a template
# declaration `template <...>`): where one starts, then its name and arguments.
_INSTANTIATION_START = re.compile(r"(?m)^[ \t]*template(?=\s)(?!\s*<)")
_INSTANTIATED_NAME = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*<(?P<args>[^()]*?)>\s*\(")
_MAX_INSTANTIATION_CHARS = 2000

# Prefix of the functions added after explicit instantiations (read by the program builder).
INSTANTIATION_REFERENCE = "__syncheck_explicit_instantiation_"


def with_instantiation_references(text: str) -> str:
    """The source with a reference to each explicitly instantiated function template
    specialization, placed on the instantiation's own line right after its `;`.

    libclang shows no cursor for an explicit instantiation, so the specialization it
    creates would be unreachable; a host function taking its address makes it an ordinary
    referenced instantiation, analyzed with its template arguments. Added on the same line
    and in the same scope: no line moves and names resolve as at the instantiation."""
    return _with_references(text)[0]


def _with_references(text: str) -> tuple[str, list[tuple[int, int, int]]]:
    """The text with the references added, and where each added one is in it: (line,
    first byte column, last byte column), 1-based as clang counts."""
    if "template" not in text:
        return text, []
    pieces, spans, last, line = [], [], 0, 1
    added_on_line = 0  # bytes added earlier on the current line
    for start in _INSTANTIATION_START.finditer(text):
        if start.start() < last:
            continue
        end = text.find(";", start.end(), start.end() + _MAX_INSTANTIATION_CHARS)
        statement = text[start.end():end]
        if end < 0 or any(c in statement for c in "{}#") or "//" in statement or "/*" in statement:
            continue
        m = _INSTANTIATED_NAME.search(statement)
        if m is None:
            continue
        name, args = m.group("name"), m.group("args")
        end += 1  # after the `;`
        newlines = text.count("\n", last, end)
        line += newlines
        if newlines:
            added_on_line = 0
        added = (f" static void {INSTANTIATION_REFERENCE}{line}_{start.start()}() "
                 f"{{ (void)&{' '.join(name.split())}<{' '.join(args.split())}>; }}")
        pieces += [text[last:end], added]
        last = end
        column = len(text[text.rfind("\n", 0, end) + 1:end].encode("utf-8")) + added_on_line
        size = len(added.encode("utf-8"))
        spans.append((line, column + 1, column + size))
        added_on_line += size
    if not pieces:
        return text, []
    pieces.append(text[last:])
    return "".join(pieces), spans


def _as_nvcc_reads(text: str) -> str:
    """The source with the spellings nvcc accepts and clang does not rewritten in place
    (same length: every line, column and byte offset stays)."""
    return with_bare_builtins_voided(with_attribute_lists_first(with_alignas_first(
        with_braced_launches_typed(with_launches_joined(with_ptx_names_escaped(text))))))


def _added_spans(source: bytes) -> list[tuple[int, int, int]]:
    """(line, first byte column, last byte column) of each reference that
    with_instantiation_references adds to this source."""
    if b"template" not in source:
        return []
    return _with_references(_as_nvcc_reads(source.decode("utf-8", "replace")))[1]


def _self_inclusion(diag: ci.Diagnostic) -> bool:
    """'redefinition of X' where the previous definition is the very same place: a header
    analyzed on its own that a header it includes includes back (#pragma once does not guard
    the main file). nvcc never compiles a header alone; the definition itself parsed."""
    if not diag.spelling.startswith("redefinition of"):
        return False
    here = diag.location
    for note in diag.children:
        there = note.location
        if (there.file is not None and here.file is not None and there.file.name == here.file.name
                and (there.line, there.column) == (here.line, here.column)):
            return True
    return False


# ---- compile_commands.json ----

@dataclass
class CompileDatabase:
    entries: dict[str, ParseOptions]

    @classmethod
    def load(cls, path: str) -> "CompileDatabase":
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
        entries: dict[str, ParseOptions] = {}
        for entry in raw:
            directory = entry.get("directory", os.path.dirname(os.path.abspath(path)))
            args = entry.get("arguments") or shlex.split(entry.get("command", ""))
            file = os.path.normpath(os.path.join(directory, entry["file"]))
            entries[file] = options_from_compiler_args(args, directory)
        return cls(entries)

    def options_for(self, path: str) -> ParseOptions | None:
        return self.entries.get(os.path.normpath(os.path.abspath(path)))


def options_from_compiler_args(args: list[str], directory: str) -> ParseOptions:
    """The flags of an nvcc/clang/gcc command line that matter to parsing."""
    includes: list[str] = []
    defines: list[str] = []
    arch = "sm_90"
    std = "c++17"
    it = iter(args[1:])
    for arg in it:
        def value(flag: str) -> str:
            return arg[len(flag):] if len(arg) > len(flag) else next(it, "")
        if arg.startswith("-I") or arg == "-isystem":
            d = value("-I") if arg.startswith("-I") else next(it, "")
            includes.append(os.path.normpath(os.path.join(directory, d)))
        elif arg.startswith("-D"):
            defines.append(value("-D"))
        elif arg.startswith("-std="):
            std = arg.split("=", 1)[1]
        elif arg.startswith("--cuda-gpu-arch="):
            arch = arg.split("=", 1)[1]
        elif arg.startswith("-arch=") or arg.startswith("--gpu-architecture="):
            candidate = arg.split("=", 1)[1]
            if candidate.startswith(("sm_", "compute_")):
                arch = "sm_" + candidate.split("_", 1)[1]
    return ParseOptions(include_dirs=tuple(includes), defines=tuple(defines), arch=arch, std=std)


def _compiler_version_macros(version: str) -> list[tuple[str, int]]:
    """nvcc's __CUDACC_VER_MAJOR__/MINOR/BUILD for headers of CUDA ``version`` ("12.3")."""
    parts = [int(p) for p in version.split(".")[:3] if p.isdigit()]
    if not parts:
        return []
    parts += [0] * (3 - len(parts))
    return list(zip(("__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__"), parts))
