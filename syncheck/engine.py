"""Runs the pipeline on files: read, parse, lower, analyze, check."""

from __future__ import annotations

import ctypes
import contextlib
import fnmatch
import functools
import gc
import os
import re
import stat
import sys
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

from syncheck.analyses.symbolic import fresh_solver_context
from syncheck.analysis_reuse import can_analyze_by_parts, run_by_parts
from syncheck.analyses.uniformity import UniformityService
from syncheck.checks.base import CheckContext, ProjectFacts
from syncheck.checks.registry import ALL_CHECKS
from syncheck import suppressions
from syncheck.cache import Cache
from syncheck.coverage import file_coverage, search_roots_for, unanalyzed_finding
from syncheck.diagnostics import (UNANALYZED_CODE, UNANALYZED_RULE, FileProblem, Finding, Report,
                                  Severity)
from syncheck.frontend.cuda_headers import HeadersUnavailable, cuda_declaration_prefixes
from syncheck.frontend.parse import CompileDatabase, ParseOptions
from syncheck.header_choice import ParseFailure, parse_and_build
from syncheck.third_party import drop_third_party
from syncheck.project import (FileFacts, asks_known_fields, changed_by_project, checked_templates,
                              collect_facts, generic_findings, join_field_values, join_launch_shapes,
                              superseded_generic_findings)
from syncheck.analyses.launch_shapes import ProjectLaunchShapes
from syncheck.include_policy import IncludePolicy, guarding, is_under, project_roots
from syncheck.results import FileResult
from syncheck.safe_io import MAX_FILE_BYTES, UnsafeFileError, describe_kind, read_regular_file
from syncheck.workers import Limits, WorkerPool

# Lowering and the analyses recurse over syntax trees; clang itself stops at 256 nested
# brackets, which needs more than Python's default depth.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 8000))

CUDA_SUFFIXES = (".cu", ".cuh")
HOST_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++")
PYTHON_SUFFIXES = (".py",)
# Host C++ and Python files matter only when they launch kernels: a cheap text test.
_HOST_MARKERS = (b"cudaLaunch", b"cuLaunch", b"<<<", b"<< <")  # (spaced chevrons too)
_PYTHON_MARKERS = (b"RawKernel", b"RawModule")


@dataclass
class Settings:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    parse: ParseOptions = field(default_factory=ParseOptions)
    compile_db: CompileDatabase | None = None
    block_dim: tuple[int, int, int] | None = None
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    config_root: str | None = None
    report_unused_suppressions: bool = False
    jobs: int = 1
    cache_dir: str | None = None   # None: no cache
    timeout: float | None = Limits.cpu_seconds  # CPU seconds per file (enforced by killing its worker)
    memory_limit_mb: int | None = Limits.memory_mb  # address space per worker process
    isolate: bool = True  # analyze in worker processes (False: in this process, no limits)
    include_policy: IncludePolicy | None = None  # None: the analyzed file's project only
    cuda_headers: str = "auto"  # model | real | auto | a CUDA root (see header_choice.py)
    allow_incomplete: bool = False  # unanalyzed device functions (SYN002) do not make exit status 2
    report_headers: bool = False  # keep findings inside system and third-party headers
    reuse_parse: bool = False  # keep translation units and reparse them (language server)
    # keep lowered function bodies and take the unchanged ones on the next analysis of the
    # same document (language server; ir/reuse.py)
    reuse_lowering: bool = False
    # Block shapes of the project's launches (other files included), for the second pass.
    project_launches: ProjectLaunchShapes | None = None
    shard: tuple[int, int] | None = None  # (K, N): this run reports shard K of N (see shard_files)

    def limits(self) -> Limits:
        return Limits(cpu_seconds=self.timeout, memory_mb=self.memory_limit_mb)

    def cache_key(self) -> str:
        return repr((self.select, self.ignore, self.parse, self.block_dim,
                     sorted(self.compile_db.entries.items()) if self.compile_db else None,
                     self.cuda_headers, self.allow_incomplete, _real_headers_identity(self.cuda_headers),
                     # what may be included decides what is analyzed
                     self.include_policy.roots if self.include_policy else None,
                     self.project_launches))

    def enabled(self, code: str, name: str, opt_in: bool = False) -> bool:
        """Is the rule on? An opt-in rule runs only when --select names it (code or name)."""
        def matches(patterns):
            return any(code.startswith(p.upper()) or name == p.lower() or p.upper() == "ALL"
                       for p in patterns)
        if opt_in and not any(p.upper() == code or p.lower() == name for p in self.select):
            return False
        if self.select and not matches(self.select):
            return False
        return not matches(self.ignore)


def _real_headers_identity(mode: str) -> str:
    """Which real headers a mode would use: results change when they appear or change."""
    if mode == "model":
        return ""
    from syncheck.frontend.cuda_headers import available
    real = available(mode)
    return real.description if real else "none"


class InputError(Exception):
    """A file that cannot be analyzed; the message is shown to the user."""


def discover(paths: list[str], report: Report, excluded=None, given: frozenset[str] = frozenset()) -> list[str]:
    """Files to analyze: named files as they are, folders searched for CUDA sources.
    ``excluded(path, is_dir)`` says which paths a folder walk skips (configured excludes,
    .gitignore); ``given`` are paths whose text comes from elsewhere (stdin)."""
    files: list[str] = []
    seen: set[str] = set()
    for path in paths:
        if path in given:
            if path not in seen:
                seen.add(path)
                files.append(path)
        elif os.path.isdir(path):
            roots = project_roots([path])
            for root, dirs, names in os.walk(path, onerror=lambda e: report.problems.append(
                    FileProblem(e.filename or path, f"cannot read directory: {e.strerror}"))):
                dirs.sort()
                if excluded is not None:
                    dirs[:] = [d for d in dirs if not excluded(os.path.join(root, d), True)]
                for name in sorted(names):
                    full = os.path.join(root, name)
                    if not name.endswith(CUDA_SUFFIXES + HOST_SUFFIXES + PYTHON_SUFFIXES):
                        continue
                    if excluded is not None and excluded(full, False):
                        continue
                    kind = _special_file_kind(full)
                    if kind is not None:  # a FIFO would block the run, a device never ends
                        report.problems.append(FileProblem(full, f"{kind}, not a regular file; refused"))
                        continue
                    if _escapes(full, roots):  # k.cu -> /etc/shadow in a repository
                        report.problems.append(FileProblem(
                            full, "a symbolic link to a file outside the project; refused"))
                        continue
                    if name.endswith(HOST_SUFFIXES) and not _mentions(full, _HOST_MARKERS):
                        continue
                    if name.endswith(PYTHON_SUFFIXES) and not _mentions(full, _PYTHON_MARKERS):
                        continue
                    if name.endswith(CUDA_SUFFIXES + HOST_SUFFIXES + PYTHON_SUFFIXES):
                        real = os.path.realpath(full)
                        if real not in seen:
                            seen.add(real)
                            files.append(full)
        elif os.path.lexists(path) or os.path.exists(path):
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                files.append(path)
        else:
            report.problems.append(FileProblem(path, "no such file or directory"))
    return files


def _escapes(path: str, roots: tuple[str, ...]) -> bool:
    """An existing file found in a folder walk whose real location is outside the project."""
    if not os.path.exists(path):
        return False  # dangling: reading it reports that
    real = os.path.realpath(path)
    return not any(is_under(real, root) for root in roots)


def _special_file_kind(path: str) -> str | None:
    """What a path is when it exists but is not a regular file (symlinks followed)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # missing or a loop: reading it reports why
    return None if stat.S_ISREG(mode) else describe_kind(mode)


def _mentions(path: str, markers: tuple[bytes, ...]) -> bool:
    try:
        data = read_regular_file(path)
    except OSError:
        return True  # let the analysis report why it cannot be read
    return any(m in data for m in markers)


def read_source(path: str) -> bytes:
    """A source file's bytes: a regular file within the size limit, UTF-8, not binary."""
    if os.path.isdir(path):
        raise InputError("is a directory")
    try:
        data = read_regular_file(path, MAX_FILE_BYTES)
    except UnsafeFileError as e:
        raise InputError(str(e)) from None
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}") from None
    return check_source(data)


def check_source(data: bytes) -> bytes:
    """Source text from anywhere (a file, stdin): not empty, not binary, UTF-8."""
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"too large ({len(data)} bytes; the limit is {MAX_FILE_BYTES})")
    if not data.strip():
        raise InputError("file is empty")
    if b"\x00" in data:
        raise InputError("binary file (contains NUL bytes), not CUDA source")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})") from None
    return data


def analyze_file(path: str, settings: Settings, source: bytes | None = None) -> FileResult:
    """Analyze one file in this process (no time or memory limit: see analyze_paths)."""
    if source is None:
        try:
            source = read_source(path)
        except InputError as e:
            return FileResult(problems=[FileProblem(path, str(e))])
    policy = settings.include_policy or IncludePolicy.for_run(project_roots([path]))
    with _CallbackErrors() as swallowed, guarding(policy.with_roots(
            [os.path.dirname(os.path.abspath(path))])) as guard:
        result = _analyze_source(path, source, settings)
    if swallowed.recursion:
        # An exception inside a libclang visitor callback cannot propagate: the walk went
        # on without part of the tree, so the result would be incomplete.
        return FileResult(problems=[FileProblem(path, "too deeply nested to analyze")])
    result.problems.extend(FileProblem(path, note, kind="note") for note in guard.notes())
    return result


class _CallbackErrors:
    """Collects exceptions Python cannot raise (those in ctypes callbacks from libclang),
    instead of printing their tracebacks on stderr."""

    _lock = threading.Lock()

    def __enter__(self) -> "_CallbackErrors":
        self.recursion = False
        with self._lock:
            self._previous = sys.unraisablehook
            sys.unraisablehook = self._hook
        return self

    def _hook(self, unraisable) -> None:
        exc = unraisable.exc_value
        # Where the stack runs out decides whether the callback sees a RecursionError itself
        # or ctypes' wrapping of one while converting an argument.
        if isinstance(exc, RecursionError) or (
                isinstance(exc, ctypes.ArgumentError) and "RecursionError" in str(exc)):
            self.recursion = True

    def __exit__(self, *exc) -> None:
        with self._lock:
            if sys.unraisablehook == self._hook:
                sys.unraisablehook = self._previous


def _analyze_source(path: str, source: bytes, settings: Settings) -> FileResult:
    try:
        if path.endswith(PYTHON_SUFFIXES):
            from syncheck.frontend.python_host import analyze_python
            return analyze_python(path, source,
                                  lambda name, text: analyze_cuda_source(name, text, settings))
        return analyze_cuda_source(path, source, settings)
    except RecursionError:
        return FileResult(problems=[FileProblem(path, "too deeply nested to analyze")])
    except MemoryError:
        raise  # the worker reports the memory limit
    except Exception as e:  # a bug in syncheck must not hide the other files' results
        if isinstance(e, ctypes.ArgumentError) and "RecursionError" in str(e):
            # ctypes wraps a RecursionError raised while converting a libclang argument
            return FileResult(problems=[FileProblem(path, "too deeply nested to analyze")])
        return FileResult(problems=[FileProblem(
            path, f"internal error while analyzing ({type(e).__name__}: {e}); please report it")])


@contextlib.contextmanager
def _collections_only_by_reference_counts():
    """No cyclic garbage collection while one file is analyzed (it runs once before). z3
    gives the id of a term it freed to the next term made, and the ids order the operands
    its preprocessing rewrites: when the collector frees terms at a point that depends on
    what the process allocated before (other files, another -j), a query under the solver's
    budget could be decided in one run and not in another. Freed by reference counts alone,
    terms go at the same points every run."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def analyze_cuda_source(path: str, source: bytes, settings: Settings) -> FileResult:
    with _collections_only_by_reference_counts():
        return _analyze_cuda_source(path, source, settings)


def _analyze_cuda_source(path: str, source: bytes, settings: Settings) -> FileResult:
    # The solver's answers under a resource budget depend on what its context saw before:
    # each file starts from a fresh one, so results do not depend on -j or on file order.
    fresh_solver_context()
    problems: list[FileProblem] = []
    options = settings.parse
    if settings.compile_db is not None:
        db_options = settings.compile_db.options_for(path)
        if db_options is not None:
            options = options.merged(db_options)
    try:
        parsed, program, real_available = parse_and_build(path, source, options, settings.cuda_headers,
                                                          settings.reuse_parse, settings.reuse_lowering)
    except (HeadersUnavailable, ParseFailure) as e:  # report, do not crash the run
        return FileResult(problems=[FileProblem(path, f"could not be parsed: {e}")])
    program.field_values = dict(settings.project_launches.field_values) if settings.project_launches else {}
    program.fields_asked = set()
    findings_unanalyzed: list[Finding] = []
    missing = parsed.missing_includes
    for p in missing:
        problems.append(FileProblem(path, f"{p.message}; analyzing what parses without it",
                                    kind="note", line=p.line, column=p.column))
    for p in parsed.problems:
        if p.kind == "include-cycle":
            problems.append(FileProblem(path, f"{p.message}: the file includes itself, directly or "
                                              f"through its headers (nvcc rejects it); what parsed "
                                              f"was analyzed", line=p.line, column=p.column))
            break
    for header in sorted({p.header for p in parsed.header_errors if p.header}):
        first = next(p for p in parsed.header_errors if p.header == header)
        problems.append(FileProblem(path, f"included file {header} has errors ({first.message}); "
                                          f"code that depends on it may not be analyzed", kind="note"))
    coverage = file_coverage(path, parsed, program, real_available,
                             search_roots_for(path, settings.config_root))
    unanalyzed_device = {(u.line, u.name) for u in coverage.unanalyzed}
    broken = [f for f in program.functions.values() if f.has_errors and f.in_main_file
              and (f.line, f.name) not in unanalyzed_device]
    errors = parsed.errors
    # A syntax error that follows an unknown name is usually its consequence; only a file
    # whose first error is a syntax error is malformed.
    syntax = [errors[0]] if errors and errors[0].kind == "syntax" else []
    if syntax and not missing:
        # The file itself is malformed: that is an error for this file.
        first = syntax[0]
        more = len(parsed.errors) - 1
        extra = f" (and {more} more error{'s' if more > 1 else ''})" if more else ""
        problems.append(FileProblem(path, f"syntax error: {first.message}{extra}; functions "
                                          f"with errors were not analyzed",
                                    line=first.line, column=first.column))
    elif parsed.errors:
        # Names syncheck's CUDA model or a missing include does not declare: analyze the rest.
        # Device functions that stay unparsed are diagnostics of their own (SYN002).
        if settings.enabled(UNANALYZED_CODE, UNANALYZED_RULE):
            findings_unanalyzed = [unanalyzed_finding(u, settings.allow_incomplete)
                                   for u in coverage.unanalyzed]
        for f in broken:
            first = next(p for p in parsed.errors if f.line <= p.line <= f.end_line)
            problems.append(FileProblem(path, f"'{f.name}' not analyzed: {first.message}",
                                        kind="note", line=f.line))
    checks = [(i, check_cls) for i, check_cls in enumerate(ALL_CHECKS) if check_cls.scope == "file"
              and settings.enabled(check_cls.code, check_cls.name, check_cls.opt_in)]
    findings: list[Finding] = list(findings_unanalyzed)
    if settings.reuse_lowering and can_analyze_by_parts(program):
        # the language server: unchanged parts of the file keep their results (analysis_reuse.py)
        by_parts = run_by_parts(
            program, path, checks,
            lambda view: UniformityService(view, settings.block_dim, settings.project_launches),
            (tuple(c.code for _, c in checks), settings.block_dim, settings.project_launches))
        findings.extend(by_parts.findings)
        notes = by_parts.notes
        facts_of = functools.partial(collect_facts, grid_syncs=by_parts.grid_syncs,
                                     shape_answers=by_parts.shape_answers)
        service = None
    else:
        service = UniformityService(program, settings.block_dim, settings.project_launches)
        ctx = CheckContext(program, service, path)
        for _, check_cls in checks:
            findings.extend(check_cls().run(ctx))
        notes = ctx.analysis_notes
        facts_of = collect_facts
    findings = _one_per_place(findings)
    problems.extend(FileProblem(path, message, kind="note", line=line)
                    for line, message in sorted(set(notes)))
    facts = facts_of(program, service, path)
    facts.generic_findings = generic_findings(program, findings, path)
    facts.checked_templates = checked_templates(program)
    return FileResult(findings, problems, facts, _project_includes(parsed), coverage)


def _one_per_place(findings: list[Finding]) -> list[Finding]:
    """One finding per rule and source position: instantiations of one template (and the
    calling contexts of one helper) share their source lines."""
    seen: set[tuple] = set()
    out = []
    for f in findings:
        place = (f.code, f.path, f.line, f.column)
        if place not in seen:
            seen.add(place)
            out.append(f)
    return out


def _project_includes(parsed) -> list[str]:
    out = set()
    for name in parsed.included_files():
        # CUDA's own headers (model or real) are part of the cache key, not dependencies.
        # A system header can be named through a relative climb ("/../lib/gcc/x86_64-linux-gnu/
        # 12/../../../../include/c++/12/cstdlib", which abspath would make a path that does not
        # exist): where it really is decides.
        if name and not name.startswith(("/usr/",) + cuda_declaration_prefixes()) \
                and not os.path.realpath(name).startswith("/usr/"):
            out.add(os.path.abspath(name))
    return sorted(out)


def project_findings(facts: list[FileFacts], settings: Settings) -> list[Finding]:
    project = ProjectFacts(facts)
    out: list[Finding] = []
    for check_cls in ALL_CHECKS:
        if check_cls.scope == "project" and settings.enabled(check_cls.code, check_cls.name, check_cls.opt_in):
            out.extend(check_cls().run_project(project))
    # The instantiations of one launching host template share their launch's place: one
    # finding per place and message (kernels launched through one pointer differ by name).
    seen: set[tuple] = set()
    unique = []
    for f in out:
        place = (f.code, f.path, f.line, f.column, f.message)
        if place not in seen:
            seen.add(place)
            unique.append(f)
    return unique


def shard_files(files: list[str], shard: tuple[int, int]) -> list[str]:
    """The files of shard K of N: in the order of their resolved paths, file i belongs to
    shard i mod N + 1 (deterministic: the same tree splits the same way on every machine)."""
    k, n = shard
    ordered = sorted(files, key=lambda p: (os.path.realpath(p), p))
    mine = {p for i, p in enumerate(ordered) if i % n == k - 1}
    return [p for p in files if p in mine]


_COOPERATIVE_WORDS = (b"ooperative", b"OOPERATIVE")


def _needed_for_facts(own: list[FileResult], others: list[str]) -> list[str]:
    """Files of other shards whose facts this shard needs: those that may define a kernel one
    of this shard's files launches, or launch or instantiate a kernel one of them defines
    (block shapes and instantiations cross files; the name is in their text), those that name a
    record field one of them read (they may assign it), and, when this
    shard launches cooperatively, those that mention cooperative launches or their support
    query (SYN303 is judged over the whole project). A cheap text test."""
    names: set[bytes] = set()
    cooperative = False
    for r in own:
        for kernel in r.facts.kernels:
            base = kernel.name.split("<", 1)[0].rsplit("::", 1)[-1]
            if base:
                names.add(base.encode())
        for key in r.facts.fields_asked:  # the files that may assign a field it read
            names.add(re.split(r"[@:]", key)[-1].encode())
        for launch in r.facts.launches:
            cooperative |= launch.cooperative
            # even when this shard defines the kernel: the rules take the first kernel (in
            # file order) that a launch can mean, which may be another file's of that name
            base = launch.kernel_name.split("<", 1)[0].rsplit("::", 1)[-1]
            if base and base != "?":
                names.add(base.encode())
    if not names and not cooperative:
        return []
    out = []
    for path in others:
        try:
            data = read_regular_file(path, MAX_FILE_BYTES)
        except OSError:
            continue
        if any(n in data for n in names) or (cooperative and any(w in data for w in _COOPERATIVE_WORDS)):
            out.append(path)
    return out


def analyze_paths(paths: list[str], settings: Settings, progress=None, sources: dict[str, bytes] | None = None,
                  excluded=None, named: list[str] | None = None) -> Report:
    """Analyze files and folders. ``sources`` gives the text of paths that are not read from
    disk (stdin, an editor's buffer); ``excluded`` filters folder walks (see discover);
    ``named``: the paths the user named, when ``paths`` are the files found from them (a
    file the user named is first-party wherever it lives)."""
    report = Report()
    sources = sources or {}
    files = discover(paths, report, excluded, frozenset(sources))
    everything = files
    others: list[str] = []
    if settings.shard is not None:
        mine = shard_files(files, settings.shard)
        chosen = set(mine)
        others = [p for p in files if p not in chosen]
        files = mine
        if settings.shard[0] != 1:
            report.problems.clear()  # problems found while searching folders: shard 1 says them
    report.files = len(files)
    results = _analyze_all(files, sources, settings, progress)
    considered = files
    if settings.shard is not None:
        # Facts cross files: other shards' files that hold what this shard's kernels and
        # launches need are analyzed too; only findings located in this shard's files stay.
        extra = _needed_for_facts([results[p] for p in files], others)
        results.update(_analyze_all(extra, sources, settings, None))
        joined = set(files) | set(extra)
        considered = [p for p in everything if p in joined]  # in the order of one whole run
    # Host record fields set to one constant wherever the project assigns them (a device-info
    # record's warp size): the files that read them are analyzed again knowing the value.
    field_values = join_field_values([results[path].facts for path in considered])
    asking = [path for path in considered if asks_known_fields(results[path].facts, field_values)]
    if asking:
        known = ProjectLaunchShapes(field_values=field_values)
        results.update(_analyze_all(asking, sources, replace(settings, project_launches=known), None))
    # A kernel launched from another file gets that launch's block shape: the files whose
    # kernels the project's launches would give another shape are analyzed again with them.
    project = join_launch_shapes([results[path].facts for path in considered], field_values)
    again = [path for path in considered if changed_by_project(results[path].facts, project)]
    if again:
        results.update(_analyze_all(again, sources, replace(settings, project_launches=project), None))
    # A template's findings from its instantiations (in the files that create them) stand;
    # the guesses its own file made with the arguments unknown go.
    superseded = superseded_generic_findings([results[path].facts for path in considered])
    own = set(files)
    own_real = {os.path.realpath(p) for p in files}
    all_real = {os.path.realpath(p) for p in everything}
    spelled = {os.path.realpath(path): path for path in everything}
    findings: list[Finding] = []
    reported: set[tuple] = set()
    for path, drop in zip(considered, superseded):
        result = results[path]
        for f in _spelled_as_named(result.findings, spelled):
            place = (f.code, f.path, f.line, f.column)
            # one finding per place: several files may instantiate one header's template
            if place in drop or place in reported:
                continue
            if settings.shard is not None:
                where = os.path.realpath(f.path)
                # a finding in an analyzed file belongs to that file's shard; elsewhere (a
                # header not among the files) to the shard of the file that found it
                if (where not in own_real) if where in all_real else (path not in own):
                    continue
            reported.add(place)
            findings.append(f)
        if path in own:
            report.problems.extend(result.problems)
            report.coverage.add(result.coverage)
    facts = [results[path].facts for path in considered]
    if settings.shard is not None:
        findings.extend(f for f in project_findings(facts, settings)
                        if os.path.realpath(f.path) in own_real)
    else:
        findings.extend(project_findings(facts, settings))
    if not settings.report_headers:
        findings = drop_third_party(findings, named if named is not None else paths, settings)
    report.findings = _filter(findings, files, settings, report, sources)
    report.allow_incomplete = settings.allow_incomplete
    report.sort()
    return report


def _analyze_all(files: list[str], sources: dict[str, bytes], settings: Settings,
                 progress) -> dict[str, FileResult]:
    """Read and analyze the files (``sources``: texts not read from disk)."""
    results: dict[str, FileResult] = {}
    texts: dict[str, bytes] = {}
    for path in files:
        try:
            texts[path] = check_source(sources[path]) if path in sources else read_source(path)
        except InputError as e:
            results[path] = FileResult(problems=[FileProblem(path, str(e))])
            if progress is not None:
                progress(path)
    results.update(_analyze_sources(texts, settings, progress))
    return results


def _spelled_as_named(findings: list[Finding], spelled: dict[str, str]) -> list[Finding]:
    """Findings (and notes) in a header that another file's analysis reports carry the
    header's absolute path: spell it as the user named the header, when they did."""
    here = os.getcwd() + os.sep

    def spell(path: str) -> str:
        if not os.path.isabs(path):
            return path
        named = spelled.get(os.path.realpath(path))
        if named is not None:
            return named
        return os.path.relpath(path) if path.startswith(here) else path
    out = []
    for f in findings:
        notes = [replace(n, path=spell(n.path)) for n in f.notes]
        out.append(replace(f, path=spell(f.path), notes=notes) if f.path != spell(f.path) or
                   notes != f.notes else f)
    return out


def _analyze_sources(sources: dict[str, bytes], settings: Settings, progress) -> dict[str, FileResult]:
    """Each file's result, from the cache or a worker."""
    cache = Cache(settings.cache_dir, settings.cache_key()) if settings.cache_dir else None
    results: dict[str, FileResult] = {}
    pending: list[tuple[str, bytes | None, str | None]] = []
    for path, source in sources.items():
        key = cache.key(path, source) if cache else None
        hit = cache.get(key) if cache else None
        if hit is not None:
            results[path] = hit
            if progress is not None:
                progress(path)
        else:
            pending.append((path, source, key))
    keys = {path: key for path, _, key in pending}
    for path, result, complete in _run(pending, settings, progress):
        results[path] = result
        key = keys[path]
        if cache is not None and key is not None and complete and not any(
                p.kind == "error" and "internal error" in p.message for p in result.problems):
            cache.put(key, result, result.dependencies)
    return results


def _run(pending, settings: Settings, progress):
    """(path, result, complete) for each pending file, in worker processes unless
    isolation is off."""
    if not pending:
        return
    if not settings.isolate:
        for path, source, _ in pending:
            result = analyze_file(path, settings, source)
            if progress is not None:
                progress(path)
            yield path, result, True
        return
    _prepare_for_workers(settings)
    analyze = functools.partial(analyze_in_worker, settings=settings)
    # A repository's configuration may ask for any number of jobs: no more than two workers
    # a core (each may use up to the memory limit).
    workers = min(settings.jobs, 2 * (os.cpu_count() or 1))
    with WorkerPool(workers, analyze, settings.limits()) as pool:
        for path, result, complete in pool.run((path, source) for path, source, _ in pending):
            if progress is not None:
                progress(path)
            yield path, result, complete


def analyze_in_worker(path: str, source: bytes, settings: Settings) -> FileResult:
    return analyze_file(path, settings, source)


def analyze_task(path: str, task: tuple[bytes, Settings]) -> FileResult:
    """A worker task that carries its own settings (the language server: each document has
    the settings its configuration gives it). The buffer is a project of its own: the project
    rules run here over its facts, which then stay in the worker (they are most of the
    result, and encoding them for the pipe and decoding them cost more than the rules)."""
    source, settings = task
    result = analyze_file(path, settings, source)
    result.findings = result.findings + project_findings([result.facts], settings)
    result.facts = FileFacts()
    return result


def _prepare_for_workers(settings: Settings) -> None:
    """Work every worker would repeat, done once before they are forked."""
    from syncheck.frontend.parse import compiler_include_dir
    from syncheck.header_choice import prepare
    compiler_include_dir()
    prepare(settings.parse, settings.cuda_headers)


def _filter(findings: list[Finding], files: list[str], settings: Settings, report: Report,
            sources: dict[str, bytes] | None = None) -> list[Finding]:
    """Drop what inline suppressions and per-file ignores silence; report unused suppressions
    and suppressions that name no rule (an error: a typo must not pass silently)."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    kept: list[Finding] = []
    paths = set(by_path) | set(files)
    for path in sorted(paths):
        group = by_path.get(path, [])
        try:
            data = (sources or {}).get(path)
            if data is None:
                data = read_regular_file(path)
            lines = data.decode("utf-8", errors="replace").splitlines()
        except OSError:
            kept.extend(group)
            continue
        sups = suppressions.parse(lines)
        for s in sups:
            for entry in s.unknown:
                from syncheck.checks.registry import unknown_rule_message
                report.problems.append(FileProblem(
                    path, f"suppression comment: {unknown_rule_message(entry)}", line=s.line))
        group, unused = suppressions.apply(group, lines, sups)
        group = [f for f in group if not _ignored_for_file(f, settings)]
        kept.extend(group)
        if settings.report_unused_suppressions and settings.enabled("SYN001", "unused-suppression"):
            for s in unused:
                codes = ", ".join(sorted(s.codes)) if s.codes else "all rules"
                kept.append(Finding(
                    code="SYN001", rule="unused-suppression", severity=Severity.WARNING, path=path,
                    line=s.line, column=1, end_line=s.line, end_column=len(lines[s.line - 1]) + 1,
                    message=f"this suppression ({codes}) silences nothing: remove it", function=""))
    return kept


def filter_findings(findings: list[Finding], files: list[str], settings: Settings, report: Report,
                    sources: dict[str, bytes] | None = None) -> list[Finding]:
    """What the CLI reports of ``findings`` (the language server applies the same filter)."""
    return _filter(findings, files, settings, report, sources)


def _ignored_for_file(f: Finding, settings: Settings) -> bool:
    if not settings.per_file_ignores:
        return False
    root = settings.config_root or os.getcwd()
    rel = os.path.relpath(os.path.abspath(f.path), root).replace(os.sep, "/")
    for pattern, codes in settings.per_file_ignores.items():
        if fnmatch.fnmatch(rel, pattern) and any(f.code.startswith(c.upper()) or c.upper() == "ALL"
                                                 or f.rule == c for c in codes):
            return True
    return False


def default_include_root() -> Path:
    return Path(__file__).parent / "frontend" / "cuda_model"
