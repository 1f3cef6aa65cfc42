"""Which files a parse may read: the project, trusted include directories, system headers.

An analyzed file comes from a stranger: ``#include "/etc/shadow"`` (or a symlink, or an
include directory in the repository's own configuration pointing outside it) would put the
first tokens of a private file into the output ("unknown type name 'root'"), and
``#include "/dev/zero"`` would read until memory runs out. So while syncheck analyzes a
file, every parse goes through ``guarded_parse``:

- before parsing, the ``#include`` lines of the file and of the project headers it reaches
  are resolved the way clang resolves them; a target outside the allowed roots, or not a
  regular file, is replaced by an empty buffer (libclang's unsaved files), so clang never
  reads it;
- after parsing, the translation unit's include list is checked, which catches includes
  spelled through macros; if one escaped, the file is parsed again with it replaced, so its
  content never reaches a diagnostic.

Each refused include is recorded so the engine can say so in a note.

Allowed roots: the analyzed file's folder, the project roots (analyzed paths, the config
folder, their version-control top), include directories given on the command line, the
system's (/usr, /lib...), syncheck's own files and the Python environment's (model headers,
real CUDA header wheels) and the directories syncheck itself names in clang arguments
(resource dir, CUDA path, forced includes, precompiled headers).
"""

from __future__ import annotations

import contextvars
import functools
import os
import re
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import clang.cindex as ci

from syncheck.safe_io import MAX_FILE_BYTES, read_regular_file
from syncheck.user_dirs import user_cache_root

SYSTEM_ROOTS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/opt/cuda", "/opt/nvidia",
                "/System/Library", "/Library/Developer", "/Applications/Xcode.app")
_PACKAGE_DIR = Path(__file__).resolve().parent
# Arguments whose value names a file or folder that syncheck itself chose.
_TRUSTED_PATH_FLAGS = ("-resource-dir", "-include", "-include-pch", "-idirafter")
_SEARCH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter")
_INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*(?:include|include_next|import)[ \t]*([<"])([^>"\r\n]+)[>"]',
                           re.M)
_MAX_SCANNED_HEADERS = 500
_MAX_REPARSES = 3


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def is_under(path: str, root: str) -> bool:
    """``path`` is ``root`` or inside it (both real paths)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def version_control_top(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` holding .git, .hg or .svn."""
    current = os.path.abspath(folder)
    while True:
        if any(os.path.lexists(os.path.join(current, marker)) for marker in (".git", ".hg", ".svn")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def project_roots(paths: list[str], config_root: str | None = None) -> tuple[str, ...]:
    """The folders that hold the project being analyzed."""
    roots: list[str] = []
    for path in paths:
        folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        roots.append(folder)
        top = version_control_top(folder)
        if top is not None:
            roots.append(top)
    if config_root:
        roots.append(config_root)
    return tuple(dict.fromkeys(_real(r) for r in roots))


def _environment_roots() -> tuple[str, ...]:
    roots = [str(_PACKAGE_DIR), sys.prefix, sys.base_prefix, sys.exec_prefix]
    try:
        roots.append(str(user_cache_root()))  # precompiled headers live there
    except (OSError, RuntimeError):  # no home folder: only that root is lost
        pass
    return _real_roots(tuple(roots))


@functools.lru_cache(maxsize=16)
def _real_roots(roots: tuple[str, ...]) -> tuple[str, ...]:
    """Real paths of syncheck's own folders (asked for every include line a prescan reads)."""
    return tuple(_real(r) for r in roots)


@dataclass(frozen=True)
class IncludePolicy:
    """Where a parse may read from (real paths of folders)."""

    roots: tuple[str, ...] = ()

    @classmethod
    def for_run(cls, project: tuple[str, ...], trusted_include_dirs: tuple[str, ...] = ()) -> "IncludePolicy":
        roots = project + tuple(_real(d) for d in trusted_include_dirs) + SYSTEM_ROOTS \
            + _environment_roots()
        return cls(tuple(dict.fromkeys(roots)))

    def with_roots(self, extra) -> "IncludePolicy":
        return IncludePolicy(tuple(dict.fromkeys(self.roots + tuple(_real(r) for r in extra))))


@dataclass
class IncludeGuard:
    """The policy applied to one analyzed file, and what it refused."""

    policy: IncludePolicy
    refused: dict[str, tuple[str, str]] = field(default_factory=dict)  # real -> (how, as named)
    _verdicts: dict[tuple[str, tuple[str, ...]], bool] = field(default_factory=dict)
    # Real paths, resolved once per file analyzed (a template library's headers are named by
    # thousands of include lines).
    _reals: dict[str, str] = field(default_factory=dict)

    def real(self, path: str) -> str:
        real = self._reals.get(path)
        if real is None:
            real = self._reals[path] = _real(path)
        return real

    def allows(self, path: str, policy: IncludePolicy | None = None) -> bool:
        """A regular file under an allowed root (symlinks resolved first)."""
        policy = policy or self.policy
        key = (path, policy.roots)
        cached = self._verdicts.get(key)
        if cached is not None:
            return cached
        real = self.real(path)
        try:
            regular = stat.S_ISREG(os.stat(real).st_mode)
        except (OSError, ValueError):
            regular = True  # missing: clang reports it as not found, nothing is read
        verdict = regular and any(is_under(real, root) for root in policy.roots)
        self._verdicts[key] = verdict
        return verdict

    def refuse(self, path: str, how: str = "#include of") -> str:
        real = self.real(path)
        self.refused.setdefault(real, (how, path))
        return real

    def notes(self) -> list[str]:
        return [f"{how} {shown} refused: it is outside the project, the include directories "
                f"given on the command line and the system headers, or not a regular file; "
                f"analyzed without it" for how, shown in sorted(self.refused.values())]


_current: contextvars.ContextVar[IncludeGuard | None] = contextvars.ContextVar(
    "syncheck_include_guard", default=None)


@contextmanager
def guarding(policy: IncludePolicy | None) -> Iterator[IncludeGuard | None]:
    """Apply ``policy`` to every parse made inside the block (None: no restriction)."""
    guard = IncludeGuard(policy) if policy is not None else None
    token = _current.set(guard)
    try:
        yield guard
    finally:
        _current.reset(token)


def current_guard() -> IncludeGuard | None:
    return _current.get()


def allowed_by_current(args: list[str]):
    """``allows(path)`` for a parse with ``args`` under the current guard (everything when none)."""
    guard = _current.get()
    if guard is None:
        return lambda path: True
    policy = guard.policy.with_roots(_trusted_arg_paths(args))
    return lambda path: guard.allows(path, policy)


def read_allowed_file(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """Read a file that analyzed code names (e.g. CuPy ``RawModule(path=...)``): a regular
    file within the size limit and, while a policy applies, under its roots."""
    guard = _current.get()
    if guard is not None and not guard.allows(path):
        guard.refuse(path, "reading")
        raise PermissionError(f"{path}: outside the project; refused")
    return read_regular_file(path, limit)


def _search_dirs(args: list[str]) -> tuple[list[str], list[str]]:
    """(quote-only dirs, dirs for both forms) named by -iquote / -I, -isystem, -idirafter."""
    quote: list[str] = []
    both: list[str] = []
    it = iter(range(len(args)))
    for i in it:
        arg = args[i]
        for flag in _SEARCH_FLAGS:
            if arg == flag and i + 1 < len(args):
                (quote if flag == "-iquote" else both).append(args[i + 1])
                next(it, None)
                break
            if arg.startswith(flag) and len(arg) > len(flag) and flag in ("-I", "-iquote"):
                (quote if flag == "-iquote" else both).append(arg[len(flag):])
                break
    return quote, both


def _trusted_arg_paths(args: list[str]) -> list[str]:
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg in _TRUSTED_PATH_FLAGS and i + 1 < len(args):
            value = args[i + 1]
            out.append(value if arg in ("-resource-dir", "-idirafter") else os.path.dirname(value))
        elif arg.startswith("--cuda-path="):
            out.append(arg.split("=", 1)[1])
    return out


def _prescan(guard: IncludeGuard, policy: IncludePolicy, path: str, text: bytes,
             args: list[str]) -> None:
    """Refuse, before clang opens them, the targets of the include lines of the file and of
    the project headers it reaches that fall outside the policy."""
    quote_dirs, dirs = _search_dirs(args)
    unscanned_roots = SYSTEM_ROOTS + _environment_roots()
    pending = [(os.path.abspath(path), text)]
    seen = {guard.real(path)}
    # The file clang would open for an include line (the first search candidate that exists):
    # the same for every includer of a <...> name and for every includer in one folder.
    found: dict[tuple[bytes, str, str], str | None] = {}
    while pending and len(seen) <= _MAX_SCANNED_HEADERS:
        includer, data = pending.pop()
        for form, name in _INCLUDE_LINE.findall(data):
            try:
                name = name.decode("utf-8").strip()
            except UnicodeDecodeError:
                continue
            key = (form, name, os.path.dirname(includer) if form == b'"' else "")
            if key in found:
                candidate = found[key]
            else:
                candidate = found[key] = _first_existing(name, form, includer, quote_dirs, dirs)
            if candidate is None:
                continue
            if not guard.allows(candidate, policy):
                guard.refuse(candidate)
                continue  # clang stops at the first match; it now reads an empty buffer
            real = guard.real(candidate)
            if real in seen or any(is_under(real, r) for r in unscanned_roots):
                continue  # clang takes the first match; system headers are not scanned
            seen.add(real)
            try:
                pending.append((real, read_regular_file(real)))
            except OSError:
                pass


def _first_existing(name: str, form: bytes, includer: str, quote_dirs: list[str],
                    dirs: list[str]) -> str | None:
    if os.path.isabs(name):
        candidates = [name]
    else:
        search = ([os.path.dirname(includer)] + quote_dirs if form == b'"' else []) + dirs
        candidates = [os.path.join(d, name) for d in search]
    for candidate in candidates:
        try:
            if os.path.lexists(candidate):
                return candidate
        except (OSError, ValueError):
            continue
    return None


def guarded_parse(parse, path: str, args: list[str] | None, unsaved_files, options: int):
    """``parse(path, args, unsaved_files, options)`` under the current include guard."""
    guard = _current.get()
    if guard is None:
        return parse(path, args, unsaved_files, options)
    args = list(args or [])
    unsaved = list(unsaved_files or [])
    policy = guard.policy.with_roots(_trusted_arg_paths(args))
    main = dict(unsaved).get(path)
    if main is not None:
        _prescan(guard, policy, path, main.encode("utf-8") if isinstance(main, str) else main, args)
    stubbed: set[str] = set()

    def stubs():
        out = []
        for real in guard.refused:
            if guard.real(path) != real:
                out.append((real, ""))
                stubbed.add(real)
        return out

    tu = parse(path, args, unsaved + stubs(), options)
    for _ in range(_MAX_REPARSES):
        escaped = []
        for inclusion in tu.get_includes():
            name = inclusion.include.name if inclusion.include is not None else ""
            if name and guard.real(name) not in stubbed and not guard.allows(name, policy):
                escaped.append(name)
        if not escaped:
            return tu
        for name in escaped:
            guard.refuse(name)
        tu = parse(path, args, unsaved + stubs(), options)
    return tu


class GuardedIndex(ci.Index):
    """A libclang index whose parses apply the current include guard."""

    @classmethod
    def create(cls, excludeDecls: bool = False) -> "GuardedIndex":  # noqa: N803 - libclang's name
        return cls(ci.conf.lib.clang_createIndex(excludeDecls, 0))

    def parse(self, path, args=None, unsaved_files=None, options=0):
        base = super().parse
        return guarded_parse(lambda p, a, u, o: base(p, args=a, unsaved_files=u, options=o),
                             path, args, unsaved_files, options)
