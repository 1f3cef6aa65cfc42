"""A precompiled header of the system headers a file includes before any code of its own.

Once the model headers come precompiled, what is left of a cuda-samples file's parse is
nine tenths the C and C++ library headers that it and its helper headers include
(``helper_cuda.h`` -> ``<stdio.h>``, ``<stdlib.h>``; ``helper_string.h`` -> ``<fstream>``,
``<string>``): measured on 30 files, 91% of the parse. Their include lines differ from
file to file (113 leading include sequences for 225 files), but the system headers they
reach first are few distinct lists. So:

- the *system prefix* of a file is the list of system headers that the preprocessor reads,
  in the plain parse, before any line of the project's own that is not an include line:
  the file's leading lines and, depth first, the leading lines of the project headers they
  include are read as long as they hold only ``#include``, ``#pragma once``, an include
  guard (``#ifndef G`` / ``#define G`` / the last ``#endif``), comments and blank lines;
  the first other line ends it. An included name found in the including file's folder or
  in a ``-I`` / ``-iquote`` folder of the command line is the project's (read on); the
  forced model header is already included; a name found in no such folder is a system
  header (clang then finds it in the compiler's or the system's folders) and joins the
  list; anything else (``#include_next``, a name made by a macro, a user ``-isystem``
  folder, a header the include policy refuses, an unguarded project header) ends it;
- the precompiled header holds the forced model header and those system headers in that
  order, function bodies skipped (system code is never lowered: the program builder skips
  every definition in a system header; clang keeps constexpr bodies and those with deduced
  return types, which it may need), built with the file's arguments without its own folder;
- the parse with it is the same translation unit: before the file's own code, the plain
  parse has read exactly the forced header, these system headers in this order and the
  project's include guards; the only difference is the order of those guards' definitions
  relative to the system headers, so it is not used when a guard's name occurs in any file
  the header read, or when the file's folder (searched before the system folders, and not
  part of the build) holds a file or folder named like one the header read;
- keyed by a version, the libclang version, the arguments, the list, and the time stamps of
  the include folders; a JSON manifest lists every file it read with size and time stamp,
  checked before each use (clang checks them again when it loads it): a changed header
  means a rebuild. Stored in the user cache dir with the other precompiled headers (data
  only: clang AST files, JSON and text), written under temporary names and moved in place,
  built under a file lock (parallel workers build it once); at most 64 kept.

Function bodies of system headers are not in the translation unit with it; with the plain
parse they are, and clang instantiates the templates among them that the file's host code
uses (``std::vector<float>::push_back``). Nothing syncheck reports reads them (system code
is neither lowered nor reported), but an error clang would find only inside such an
instantiation (a type that lacks what ``std::sort`` needs) is not seen with it: that is the
one deviation, the same as for the precompiled model header's math headers.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import clang.cindex as ci

from syncheck.frontend import include_prefix, precompiled
from syncheck.frontend.clang_api import KEEP_GOING
from syncheck.frontend.cuda_headers import libclang_version
from syncheck.include_policy import current_guard

SYSTEM_PREFIX_VERSION = "3"
# SYNCHECK_SYSTEM_PCH=0 turns it off (to measure what it saves; results are the same).
ENABLED = os.environ.get("SYNCHECK_SYSTEM_PCH", "") != "0"
MAX_SYSTEM_PCHS = 256
# A project header this large is not read for its leading lines (a generated file).
_MAX_SCANNED_BYTES = 4 << 20
_MAX_SCANNED_HEADERS = 200

_DIRECTIVE = re.compile(rb"#\s*([A-Za-z_]+)\s*(.*)")
_INCLUDE_NAME = re.compile(rb'(<[^<>"\r\n]+>|"[^<>"\r\n]+")\s*')
_NAME = re.compile(rb"[A-Za-z_]\w*")
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_NOT_FOUND = re.compile(r"'(.+)' file not found")


class _Stop(Exception):
    """The system prefix ends here."""


def _logical_lines(source: bytes):
    """The file's lines with comments removed (a comment spanning lines leaves them empty).
    A line of code holding a string or character literal before any comment is kept whole
    (the scan stops at code anyway); a line continued with a backslash keeps it at its end
    (the scan stops there too)."""
    in_comment = False
    for raw in source.split(b"\n"):
        line = raw.rstrip(b"\r")
        out: list[bytes] = []
        directive = None
        while line:
            if in_comment:
                end = line.find(b"*/")
                if end < 0:
                    break
                in_comment = False
                line = line[end + 2:]
                out.append(b" ")
                continue
            if directive is None:
                directive = (b"".join(out) + line).lstrip().startswith(b"#")
            cuts = [i for i in (line.find(b"/*"), line.find(b"//")) if i >= 0]
            if not directive:
                quotes = [i for i in (line.find(b'"'), line.find(b"'")) if i >= 0]
                if quotes and (not cuts or min(quotes) < min(cuts)):
                    out.append(line)
                    break
            if not cuts:
                out.append(line)
                break
            first = min(cuts)
            out.append(line[:first])
            if line.startswith(b"//", first):
                break
            in_comment = True
            line = line[first + 2:]
            out.append(b" ")
        yield b"".join(out).strip()


class Scan:
    """What a file's leading lines reach: the system headers (as ``<name>``, in the
    order the plain parse reads them) and the macros the project's include guards define
    before or between them."""

    def __init__(self):
        self.system: list[str] = []
        self.guards: list[str] = []
        self.project: list[str] = []   # project headers read (real paths), in order
        self.done: set[str] = set()     # guarded project headers read to their end


class _Scanner:
    def __init__(self, main: str, args: list[str], allows, missing: frozenset[str]):
        self.missing = missing
        self.main_real = os.path.realpath(main)
        self.allows = allows
        self.quote_dirs, self.dirs, self.user_system = _search_dirs(args)
        self.forced = precompiled.split_forced_include(args)[1]
        self.forced_real = os.path.realpath(self.forced) if self.forced else None
        # the model's own headers (declarations only, like the forced one) count as system
        self.model_dir = os.path.realpath(os.path.dirname(self.forced)) if self.forced else None
        self.scan = Scan()
        self.active: set[str] = set()

    def run(self, path: str, source: bytes) -> Scan:
        try:
            self._file(path, source)
        except _Stop:
            pass
        return self.scan

    def _file(self, path: str, source: bytes) -> None:
        real = os.path.realpath(path)
        self.active.add(real)
        lines = _logical_lines(source)  # read lazily: the scan stops at the first code line
        guard = None       # the include guard's macro, while its #ifndef is open
        guarded = False
        first_directive = True
        for line in lines:
            if not line:
                continue
            m = _DIRECTIVE.fullmatch(line)
            if m is None or line.endswith(b"\\"):
                raise _Stop  # code, or a directive continued on the next line
            word, rest = m.group(1), m.group(2).strip()
            if word == b"pragma" and rest == b"once":
                guarded = True
            elif word == b"ifndef" and first_directive and _NAME.fullmatch(rest):
                # an include guard: #ifndef G, then #define G (nothing else) on the next line
                nxt = next((following for following in lines if following), b"")
                defined = _DIRECTIVE.fullmatch(nxt)
                if defined is None or defined.group(1) != b"define" or defined.group(2).strip() != rest:
                    raise _Stop
                guard = rest.decode("ascii")
                self.scan.guards.append(guard)
                guarded = True
            elif word == b"endif" and guard is not None and not any(lines):
                guard = None  # the guard's own #endif, the file's last line
            elif word == b"include":
                self._include(path, rest)
            else:
                raise _Stop
            first_directive = False
        if real == self.main_real:
            return
        if not guarded or guard is not None:
            raise _Stop  # read again by a later include line, or a guard left open
        self.scan.done.add(real)
        self.active.discard(real)

    def _include(self, includer: str, rest: bytes) -> None:
        m = _INCLUDE_NAME.fullmatch(rest)
        if m is None:
            raise _Stop  # a name made by a macro
        try:
            spelled = m.group(1).decode("utf-8")
        except UnicodeDecodeError:
            raise _Stop from None
        quoted, name = spelled.startswith('"'), spelled[1:-1]
        if os.path.isabs(name) or ".." in name.split("/"):
            raise _Stop
        folders = ([os.path.dirname(os.path.abspath(includer))] + self.quote_dirs if quoted else []) + self.dirs
        for folder in folders:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                if os.path.realpath(folder) == self.model_dir and os.path.realpath(candidate) != self.forced_real:
                    break  # a model header: found there by the precompiled header's build too
                self._project_header(candidate)
                return
            if os.path.lexists(candidate):
                raise _Stop
        if f"<{name}>" in self.missing:
            raise _Stop  # not found anywhere: the plain parse reports it at its place
        for folder in self.user_system:
            if os.path.lexists(os.path.join(folder, name)):
                raise _Stop  # a user's -isystem folder: not the compiler's or the system's
        entry = f"<{name}>"
        if entry not in self.scan.system:
            self.scan.system.append(entry)

    def _project_header(self, path: str) -> None:
        real = os.path.realpath(path)
        if real == self.forced_real or real in self.scan.done:
            return  # included before (guarded): the line reads nothing
        if real in self.active or real == self.main_real or not self.allows(path):
            raise _Stop
        if len(self.scan.project) >= _MAX_SCANNED_HEADERS:
            raise _Stop
        self.scan.project.append(real)
        try:
            if os.path.getsize(path) > _MAX_SCANNED_BYTES:
                raise _Stop
            with open(path, "rb") as f:
                source = f.read()
        except OSError:
            raise _Stop from None
        self._file(path, source)


def _search_dirs(args: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(-iquote folders, -I folders in order, -isystem/-idirafter folders the user gave):
    the compiler's own include folder, which syncheck adds last, is not the user's."""
    from syncheck.frontend.parse import compiler_include_dir

    quote, dirs, system = [], [], []
    ours = os.path.realpath(compiler_include_dir())
    for i, arg in enumerate(args[:-1]):
        value = args[i + 1]
        if arg == "-I":
            dirs.append(value)
        elif arg == "-iquote":
            quote.append(value)
        elif arg in ("-isystem", "-idirafter") and os.path.realpath(value) != ours:
            system.append(value)
    for arg in args:
        if arg.startswith("-I") and len(arg) > 2:
            dirs.append(arg[2:])
        elif arg.startswith("-iquote") and len(arg) > 7:
            quote.append(arg[7:])
    return quote, dirs, system


def system_prefix(path: str, source: bytes, args: list[str], allows,
                  missing: frozenset[str] = frozenset()) -> Scan:
    """The system prefix of ``path`` (its bytes ``source``; ``args``: the model-header
    arguments of its plain parse, its own folder included). ``missing``: names known not
    to be found (the prefix ends before them)."""
    return _Scanner(path, args, allows, missing).run(path, source)


def cache_dir() -> Path:
    """Where the headers are kept: with the other precompiled headers."""
    return precompiled.pch_dir()


def key(args: list[str], system: list[str]) -> str:
    h = hashlib.sha256()
    h.update(f"system-pch {SYSTEM_PREFIX_VERSION}\0{libclang_version()}\0".encode())
    h.update(b"\0".join(a.encode("utf-8", "surrogateescape") for a in args))
    h.update(b"\0headers\0" + "\n".join(system).encode("utf-8", "surrogateescape"))
    precompiled.stamp_search_folders(h, args, ("-I", "-isystem", "-idirafter", "-iquote"))
    return h.hexdigest()[:24]


class SystemPrefix:
    """A usable precompiled system prefix: the header's path, and the files its include
    lines read that the plain parse's include list shows (not the forced model header's)."""

    def __init__(self, pch: str, files: tuple[str, ...]):
        self.pch = pch
        self.files = files


def get(path: str, source: bytes, args: list[str], allows) -> SystemPrefix | None:
    """The precompiled system prefix to parse ``path`` with (``args``: its model-header
    arguments with the forced include, without its own folder); None: parse it otherwise.
    ``allows(file)``: may this parse read that file (the include policy)."""
    base, forced = precompiled.split_forced_include(args)
    if forced is None or not ENABLED:
        return None
    if any(a in ("-include", "-imacros", "-include-pch") for a in base):
        return None  # another forced header would come before the precompiled ones
    # the plain parse searches the file's folder last among the -I folders
    scan_args = args + ["-I", os.path.dirname(os.path.abspath(path))]
    record = cache_dir() / f"system-{key(args, [])}.missing"
    known = set(_read_missing(record))
    missing = set(known)
    for _ in range(_MAX_MISSING):
        scan = system_prefix(path, source, scan_args, allows, frozenset(missing))
        if not scan.system:
            return None
        # a list cut short stands for the longer one, which two files asked for
        entry, lacking = _choose(path, scan.system, args, allows, asked=bool(missing - known))
        if lacking is None or lacking in missing:
            break
        missing.add(lacking)  # end the prefix before that header and look again
        _write_missing(record, missing)
    else:
        return None
    if entry is None:
        return None
    manifest, prefix = entry
    if _folder_names(os.path.dirname(os.path.abspath(path))) & manifest.names:
        return None  # the file's folder would shadow a header the precompiled one read
    if any(guard in manifest.identifiers for guard in scan.guards):
        return None  # a project guard's name the system headers read (defined earlier there)
    return prefix


def _choose(path: str, system: list[str], args: list[str], allows, asked: bool = False):
    """(the header to parse with, or None; a header of the list found nowhere, or None).

    The whole list's header when it is built; else the longest first part of the list whose
    header is built (its other headers are then read in place, as the plain parse does). The
    whole list is built once a second file asks for it: building costs about two plain
    parses of those headers and saves most of one in every file that uses it, so a list
    only one file has is never built."""
    cache = cache_dir()
    stems = [cache / f"system-{key(args, system[:count])}" for count in range(len(system), 0, -1)]
    entry = _usable(stems[0], allows)
    if entry is not None:
        return entry, None
    # (a header there that is out of date was asked for twice before: rebuilt now)
    if asked or stems[0].with_suffix(".pch").is_file() or include_prefix.asked_by_another(stems[0], os.path.realpath(path)):
        built, lacking = _build_once(stems[0], system, args, allows)
        if built is not None or lacking is not None:
            return built, lacking
    for stem in stems[1:]:
        shorter = _usable(stem, allows)
        if shorter is not None:
            return shorter, None
    return None, None


# Headers of the list that are found nowhere (cufft.h without the library): each ends the
# prefix before it; at most this many are looked for per file.
_MAX_MISSING = 4
_MISSING = "missing header: "


def _read_missing(record: Path) -> list[str]:
    """The headers this configuration found nowhere (a later file need not try them)."""
    try:
        return record.read_text(encoding="utf-8").split()
    except OSError:
        return []


def _write_missing(record: Path, names: set[str]) -> None:
    tmp = record.with_name(f".{record.name}.{os.getpid()}")
    try:
        tmp.write_text("\n".join(sorted(names | set(_read_missing(record)))) + "\n", encoding="utf-8")
        os.replace(tmp, record)
    except OSError:
        pass


def _build_once(stem: Path, system: list[str], args: list[str], allows):
    """(the usable header after building it if needed, or None; the name of a header of
    the list that was not found, or None)."""
    failed = stem.with_suffix(".failed")
    if precompiled._still_failing(failed, args):
        return None, _missing_in(failed)
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None, None
    with precompiled._Lock(stem.with_suffix(".lock")):
        entry = _usable(stem, allows)
        if entry is None and not precompiled._still_failing(failed, args):
            _build(stem, system, args)
            entry = _usable(stem, allows)
    if entry is None and precompiled._still_failing(failed, args):
        return None, _missing_in(failed)
    return entry, None


def _missing_in(failed: Path) -> str | None:
    try:
        text = failed.read_text(encoding="utf-8")
    except OSError:
        return None
    return text[len(_MISSING):].strip() if text.startswith(_MISSING) else None


class _Manifest:
    def __init__(self, names: frozenset[str], identifiers: frozenset[str]):
        self.names = names
        self.identifiers = identifiers


# manifests already checked in this process, by the header's path and its time stamp
_checked: dict[str, tuple[int, _Manifest, SystemPrefix]] = {}


def _usable(stem: Path, allows) -> tuple[_Manifest, SystemPrefix] | None:
    pch = stem.with_suffix(".pch")
    try:
        stamp = pch.stat().st_mtime_ns
    except OSError:
        return None
    data = _read_json(stem.with_suffix(".json"))
    if data is None:
        return None
    files = data.get("files")
    listed = data.get("listed")
    if not isinstance(files, list) or not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
        return None
    for entry in files:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            return None
        if _identity(entry[0]) != entry[1:]:
            return None
        if not allows(entry[0]):
            return None
    if data.get("pch_size") != pch.stat().st_size:
        return None  # a header cut short (or replaced without its manifest)
    cached = _checked.get(str(pch))
    if cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    try:
        identifiers = frozenset(stem.with_suffix(".ids").read_text(encoding="utf-8").split())
    except OSError:
        return None
    names = data.get("names")
    if not isinstance(names, list):
        return None
    manifest = _Manifest(frozenset(names), identifiers)
    prefix = SystemPrefix(str(pch), tuple(listed))
    _checked[str(pch)] = (stamp, manifest, prefix)
    return manifest, prefix


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _identity(path: str) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


_folder_names = precompiled.folder_names  # the names in a folder, read once per process


def _build(stem: Path, system: list[str], args: list[str]) -> None:
    from syncheck.frontend.parse import _index  # the guarded index: the include policy applies

    guard = current_guard()
    refused_before = len(guard.refused) if guard is not None else 0
    base, forced = precompiled.split_forced_include(args)
    pch, manifest, failed = stem.with_suffix(".pch"), stem.with_suffix(".json"), stem.with_suffix(".failed")
    ids = stem.with_suffix(".ids")
    prelude = stem.with_suffix(".cuh")
    text = f'#include "{forced}"\n' + "".join(f"#include {name}\n" for name in system)
    pid = os.getpid()
    tmp = pch.with_name(f".{pch.stem}.{pid}.pch")
    manifest_tmp = manifest.with_name(f".{manifest.name}.{pid}")
    ids_tmp = ids.with_name(f".{ids.name}.{pid}")

    def fail(why: str) -> None:
        try:
            failed.write_text(why + "\n", encoding="utf-8")
        except OSError:
            pass
    try:
        prelude.write_text(text, encoding="utf-8")
        tu = _index().parse(str(prelude), args=base, unsaved_files=[(str(prelude), text)],
                            options=KEEP_GOING | precompiled._PARSE_INCOMPLETE | precompiled._FOR_SERIALIZATION
                            | precompiled._SKIP_FUNCTION_BODIES)
        errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            first = errors[0]
            lacking = _NOT_FOUND.fullmatch(first.spelling)
            if lacking and first.location.file is not None and first.location.file.name == str(prelude):
                return fail(_MISSING + f"<{lacking.group(1)}>")
            return fail(f"{first.location}: {first.spelling}")
        if guard is not None and len(guard.refused) > refused_before:
            return None  # built from stubs in place of refused headers: not for other runs
        read: dict[str, None] = {}
        included_by: dict[str, list[str]] = {}
        for inc in tu.get_includes():
            if inc.include is None:
                continue
            read.setdefault(inc.include.name)
            source = inc.source.name if inc.source is not None else ""
            included_by.setdefault(source, []).append(inc.include.name)
        files, identifiers, names = [], set(), {os.path.basename(forced)}
        system_roots = _system_roots(forced)
        for name in [str(prelude)] + list(read):
            identity = _identity(name)
            if identity is None:
                return fail(f"{name}: not found after the parse")
            files.append([name] + identity)
            if name == str(prelude):
                continue
            if not os.path.realpath(name).startswith(system_roots):
                # a system header found a project's file first (a -I folder holds that
                # name): its bodies must not be skipped
                return fail(f"{name}: not a system header")
            # the names a file's folder could shadow: every component of the last three
            # levels of each path read (``math.h``, ``bits`` for ``bits/c++config.h``)
            names.update(p for p in os.path.normpath(name).split(os.sep)[-3:] if p)
            with open(name, "rb") as f:
                identifiers.update(_IDENTIFIER.findall(f.read()))
        # The plain parse lists what the file's include lines made clang enter, not what the
        # forced model header read (its own precompiled header): every file entered from
        # the prelude's other include lines, through any of its entries.
        reached: set[str] = set()
        pending = [name for name in included_by.get(str(prelude), []) if not os.path.samefile(name, forced)]
        while pending:
            name = pending.pop()
            if name not in reached:
                reached.add(name)
                pending.extend(included_by.get(name, []))
        listed = [name for name in read if name in reached]
        tu.save(str(tmp))
        ids_tmp.write_text("\n".join(sorted(i.decode("ascii") for i in identifiers)) + "\n", encoding="utf-8")
        manifest_tmp.write_text(json.dumps({"files": files, "listed": listed, "names": sorted(names),
                                            "pch_size": tmp.stat().st_size}), encoding="utf-8")
        os.replace(ids_tmp, ids)
        os.replace(manifest_tmp, manifest)
        os.replace(tmp, pch)
        _prune(stem.parent, keep=pch)
    except (ci.TranslationUnitLoadError, ci.TranslationUnitSaveError, OSError) as e:
        fail(f"{type(e).__name__}: {e}")
    finally:
        for leftover in (tmp, manifest_tmp, ids_tmp):
            try:
                leftover.unlink()
            except OSError:
                pass


def _system_roots(forced: str) -> tuple[str, ...]:
    """Folders whose files are system headers: the system's, the compiler's, the model's."""
    from syncheck.frontend.parse import compiler_include_dir
    from syncheck.include_policy import SYSTEM_ROOTS

    folders = [os.path.realpath(compiler_include_dir()), os.path.realpath(os.path.dirname(forced))]
    folders += [os.path.realpath(root) for root in SYSTEM_ROOTS]
    return tuple(dict.fromkeys(f.rstrip(os.sep) + os.sep for f in folders))


def _prune(folder: Path, keep: Path) -> None:
    try:
        built = sorted(folder.glob("system-*.pch"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in built[MAX_SYSTEM_PCHS:]:
        if old != keep:
            for suffix in (".pch", ".json", ".ids", ".cuh", ".lock", ".failed", ".asked"):
                try:
                    old.with_suffix(suffix).unlink()
                except OSError:
                    pass


def discard(prefix: SystemPrefix) -> None:
    """A header that failed to load: build afresh next time."""
    _checked.pop(prefix.pch, None)
    for suffix in (".pch", ".json"):
        try:
            os.unlink(Path(prefix.pch).with_suffix(suffix))
        except OSError:
            pass
