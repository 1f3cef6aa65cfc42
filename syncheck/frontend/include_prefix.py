"""A precompiled header of a file's leading #include lines, shared by the files that begin alike.

The model headers are precompiled once (precompiled.model_get), but most real files then
include the project's own headers (``helper_cuda.h``, ggml's ``common.cuh``) and the C++
library headers those pull in (``<iostream>``, ``<string>``, ``<vector>``...): most of
what is left of the parse. Files of one project often begin with the same include lines,
so that part is precompiled too:

- the *prefix* of a file is its leading ``#include "..."`` / ``#include <...>`` lines
  (blank lines, comments and ``#pragma once`` may sit between them; anything else ends
  it). A quoted name found in the file's own folder is written with that folder's path
  (the name clang itself gives the file, made absolute); other names are kept as written
  and resolve through the same search path;
- the precompiled header holds the model's forced include and the first K include lines,
  built with the file's exact arguments (its own folder included), function bodies kept
  (the analyses read the device bodies of project headers);
- a file uses the longest of its prefixes whose header exists, or that another file asked
  for before (then it is built): a prefix only one file begins with is never built;
- keyed by the libclang version, the exact arguments, the prefix text and the time stamps
  of the include folders (a header added there could shadow one); a manifest beside it
  lists every file it read with size and time stamp, checked before each use (and clang
  checks them again when it loads it); a changed header means a rebuild;
- not built when the parse has errors, reads the analyzed file itself, or includes a
  header without an include guard (the file's own #include line would then read it a
  second time); not used when the include policy refuses a header it read.

A parse with it gives the same translation unit as the plain parse (the file's include
lines find their headers already included and skip them), only faster. Stored in the
user cache dir with the other precompiled headers (data only: a clang AST file and a JSON
manifest).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
from pathlib import Path

import clang.cindex as ci

from syncheck.frontend import precompiled
from syncheck.frontend.clang_api import KEEP_GOING
from syncheck.frontend.cuda_headers import libclang_version
from syncheck.include_policy import current_guard

PREFIX_PCH_VERSION = "1"
_INCLUDE = re.compile(rb'#\s*include\s*(<[^<>"\r\n]+>|"[^<>"\r\n]+")\s*(?://.*)?')
_PRAGMA_ONCE = re.compile(rb"#\s*pragma\s+once\s*(?://.*)?")
# SYNCHECK_PREFIX_PCH=0 turns it off (to measure what it saves; results are the same).
ENABLED = os.environ.get("SYNCHECK_PREFIX_PCH", "") != "0"
# A prefix this long is cut: longer ones are rarely shared.
MAX_PREFIX_INCLUDES = 24


def leading_includes(source: bytes, folder: str) -> list[str]:
    """The file's leading include lines, each as the prelude writes it."""
    out: list[str] = []
    in_comment = False
    for raw in source.split(b"\n"):
        line = raw.strip()
        while line:
            if in_comment:
                end = line.find(b"*/")
                if end < 0:
                    line = b""
                    break
                in_comment = False
                line = line[end + 2:].strip()
            elif line.startswith(b"/*"):
                in_comment = True
                line = line[2:]
            else:
                break
        if not line or line.startswith(b"//") or _PRAGMA_ONCE.fullmatch(line):
            continue
        match = _INCLUDE.fullmatch(line)
        if match is None or b"/*" in line or len(out) >= MAX_PREFIX_INCLUDES:
            break
        try:
            name = match.group(1).decode("utf-8")
        except UnicodeDecodeError:
            break
        if name.startswith('"') and not os.path.isabs(name[1:-1]):
            local = f"{folder}/{name[1:-1]}"
            if os.path.isfile(local):
                name = f'"{local}"'
            elif os.path.lexists(os.path.join(precompiled.pch_dir(), name[1:-1])):
                break  # the prelude's own folder would find something else
        out.append(name)
    return out


def prefix_key(args: list[str], includes: list[str]) -> str:
    h = hashlib.sha256()
    h.update(f"prefix-pch {PREFIX_PCH_VERSION}\0{libclang_version()}\0".encode())
    h.update(b"\0".join(a.encode("utf-8", "surrogateescape") for a in args))
    h.update(b"\0prelude\0" + "\n".join(includes).encode("utf-8", "surrogateescape"))
    precompiled.stamp_search_folders(h, args, ("-I", "-isystem", "-idirafter", "-iquote"))
    return h.hexdigest()[:24]


def _identity(path: str) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _manifest_valid(manifest: dict, main_real: str) -> bool:
    files = manifest.get("files")
    if not isinstance(files, list):
        return False
    for entry in files:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            return False
        if _identity(entry[0]) != entry[1:]:
            return False
        if os.path.realpath(entry[0]) == main_real:
            return False
    return True


def _read_manifest(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class Prefix:
    """A usable precompiled prefix: the header's path, and the files its include lines read
    (what the file's include list would show; the model headers' files are not listed)."""

    def __init__(self, pch: str, files: tuple[str, ...]):
        self.pch = pch
        self.files = files


def get(path: str, source: bytes, args: list[str], allows) -> Prefix | None:
    """The precompiled prefix to parse ``path`` with (``args``: its exact model-header
    arguments, with the forced include and its own folder); None: parse it plainly.
    ``allows(file)``: may this parse read that file (the include policy)."""
    _, forced = precompiled.split_forced_include(args)
    if forced is None or not ENABLED:
        return None
    # a header found beside the file: clang names it folder/name (the folder as the file's
    # path spells it; made absolute here when relative, which only paths in the output
    # could show, and those are made absolute anyway)
    folder = os.path.dirname(path)
    includes = leading_includes(source, folder if os.path.isabs(folder) else os.path.abspath(folder))
    if not includes:
        return None
    main_real = os.path.realpath(path)
    cache = precompiled.pch_dir()
    wanted = []  # prefixes another file asked for too, longest first
    for count in range(len(includes), 0, -1):
        stem = cache / f"prefix-{prefix_key(args, includes[:count])}"
        found = _usable(stem, main_real, allows)
        if found is not None:
            return found
        if asked_by_another(stem, main_real):
            wanted.append((stem, includes[:count]))
    for stem, chosen in wanted:  # the longest that builds (one with an error does not)
        if precompiled._still_failing(stem.with_suffix(".failed"), args):
            continue
        with precompiled._Lock(stem.with_suffix(".lock")):
            found = _usable(stem, main_real, allows)
            if found is None and not precompiled._still_failing(stem.with_suffix(".failed"), args):
                _build(stem, chosen, args)
                found = _usable(stem, main_real, allows)
        if found is not None:
            return found
    return None


def _usable(stem: Path, main_real: str, allows) -> Prefix | None:
    pch = stem.with_suffix(".pch")
    if not pch.is_file():
        return None
    manifest = _read_manifest(stem.with_suffix(".json"))
    if manifest is None or not _manifest_valid(manifest, main_real):
        return None
    files = [entry[0] for entry in manifest["files"]]
    listed = manifest.get("listed")
    if not isinstance(listed, list) or not all(isinstance(name, str) for name in listed):
        return None
    if not all(allows(f) for f in files):
        return None
    return Prefix(str(pch), tuple(listed))


def asked_by_another(stem: Path, main_real: str) -> bool:
    """Has another file asked for this prefix? (Records this file as the first asker.)"""
    marker = stem.with_suffix(".asked")
    try:
        first = marker.read_text(encoding="utf-8")
    except OSError:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            tmp = marker.with_name(f".{marker.name}.{os.getpid()}")
            tmp.write_text(main_real, encoding="utf-8")
            os.replace(tmp, marker)
        except OSError:
            pass
        return False
    return first != main_real


def _guarded(tu: ci.TranslationUnit, names: list[str]) -> bool:
    """Is every one of these files guarded against a second inclusion (#pragma once or an
    include guard)?"""
    lib = ci.conf.lib
    # Function objects of our own (indexing makes a new one): setting argtypes on the shared
    # attribute (lib.clang_getFile) would change them for the clang bindings too, whose
    # TranslationUnit.get_file passes a str there.
    fn = lib["clang_isFileMultipleIncludeGuarded"]
    fn.argtypes = [ci.TranslationUnit, ctypes.c_void_p]
    fn.restype = ctypes.c_uint
    get_file = lib["clang_getFile"]
    get_file.argtypes = [ci.TranslationUnit, ctypes.c_char_p]
    get_file.restype = ctypes.c_void_p
    for name in names:
        handle = get_file(tu, name.encode("utf-8", "surrogateescape"))
        if not handle or not fn(tu, handle):
            return False
    return True


def _build(stem: Path, includes: list[str], args: list[str]) -> None:
    from syncheck.frontend.parse import _index  # the guarded index: the include policy applies

    guard = current_guard()
    refused_before = len(guard.refused) if guard is not None else 0

    pch, manifest, failed = stem.with_suffix(".pch"), stem.with_suffix(".json"), stem.with_suffix(".failed")
    prelude = stem.with_suffix(".cuh")
    text = "".join(f"#include {name}\n" for name in includes)
    tmp = pch.with_name(f".{pch.stem}.{os.getpid()}.pch")

    def fail(why: str) -> None:
        try:
            failed.write_text(why + "\n", encoding="utf-8")
        except OSError:
            pass
    try:
        prelude.write_text(text, encoding="utf-8")
        tu = _index().parse(str(prelude), args=args, unsaved_files=[(str(prelude), text)],
                            options=KEEP_GOING | precompiled._PARSE_INCOMPLETE | precompiled._FOR_SERIALIZATION)
        errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            return fail(f"{errors[0].location}: {errors[0].spelling}")
        if guard is not None and len(guard.refused) > refused_before:
            return None  # built from stubs in place of refused headers: not for other runs
        read: dict[str, None] = {}
        direct: list[str] = []
        included_by: dict[str, list[str]] = {}
        for inc in tu.get_includes():
            if inc.include is None:
                continue
            read.setdefault(inc.include.name)
            source = inc.source.name if inc.source is not None else ""
            included_by.setdefault(source, []).append(inc.include.name)
            if inc.depth == 1 and source == str(prelude):
                direct.append(inc.include.name)
        # A system header without a guard (glibc's <stdlib.h> guards only its inner part,
        # <assert.h> none) read again adds only redeclarations to system code, which is
        # never lowered; a project header read again would define its functions twice.
        system = tuple(args[i + 1] for i, a in enumerate(args[:-1]) if a == "-isystem") + ("/usr/",)
        if not _guarded(tu, [name for name in direct if not name.startswith(system)]):
            return fail("a header of the prefix has no include guard")
        files = []
        for name in [str(prelude)] + list(read):
            identity = _identity(name)
            if identity is None:
                return fail(f"{name}: not found after the parse")
            files.append([name] + identity)
        # What the forced include read, the model's precompiled header hides from the plain
        # parse's include list too: the file lists only what its own include lines read.
        forced = precompiled.split_forced_include(args)[1]
        hidden, pending = set(), [name for name in read if os.path.samefile(name, forced)]
        while pending:
            name = pending.pop()
            if name not in hidden:
                hidden.add(name)
                pending.extend(included_by.get(name, []))
        listed = [name for name in read if name not in hidden]
        tu.save(str(tmp))
        manifest_tmp = manifest.with_name(f".{manifest.name}.{os.getpid()}")
        manifest_tmp.write_text(json.dumps({"files": files, "listed": listed}), encoding="utf-8")
        os.replace(manifest_tmp, manifest)
        os.replace(tmp, pch)
        _prune(stem.parent, keep=pch)
    except (ci.TranslationUnitLoadError, ci.TranslationUnitSaveError, OSError) as e:
        fail(f"{type(e).__name__}: {e}")
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass


# Prefix headers are large (5-15 MB with the C++ library): keep the most recently built few dozen.
MAX_PREFIX_PCHS = 32


def _prune(folder: Path, keep: Path) -> None:
    try:
        built = sorted(folder.glob("prefix-*.pch"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in built[MAX_PREFIX_PCHS:]:
        if old != keep:
            for suffix in (".pch", ".json", ".cuh", ".lock", ".failed"):
                try:
                    old.with_suffix(suffix).unlink()
                except OSError:
                    pass


def discard(prefix: Prefix) -> None:
    """A header that failed to load: build afresh next time."""
    for suffix in (".pch", ".json"):
        try:
            os.unlink(Path(prefix.pch).with_suffix(suffix))
        except OSError:
            pass
