"""A precompiled header of the real CUDA headers, built once per configuration.

The real headers cost 2.5-3.5 s a parse when a file includes cub; the same parse that
loads them from a precompiled header (libclang's ``tu.save`` and ``-include-pch``) costs
about a quarter of a second. The header holds the toolkit headers most CUDA files use
(runtime, cooperative groups, fp16/bf16, math constants, cub), built with the same flags
as the files that use it (user -I/-D included; a file's own folder is not), keyed by the
libclang version, those flags and the headers' identity (paths, versions, timestamps), and
stored in syncheck's user cache dir. clang itself checks, when it loads the header, that no
file in it changed since; any failure to build or load it falls back to a plain parse (a
build that failed is retried after an hour, or as soon as an include folder changes).

A file is parsed without it (a plain parse, same results, slower) when it could see
something else than the header holds:
- its folder has a file or folder named like a top-level toolkit header (``cub/``,
  ``cuda_fp16.h``), which ``#include <...>`` would find first;
- it defines a configuration macro of the toolkit or CCCL (``CUB_*``, ``THRUST_*``,
  ``__CUDA_NO_HALF_OPERATORS__``...) before including a header, which the precompiled
  copy was built without.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import time
from pathlib import Path

import clang.cindex as ci

from syncheck.frontend.clang_api import KEEP_GOING
from syncheck.frontend.cuda_headers import STANDINS_DIR, RealHeaders, libclang_version
from syncheck.user_dirs import user_cache_root

# What the precompiled header includes (in this order, after the launch declaration).
PRECOMPILED_INCLUDES = (
    "cuda_runtime.h", "cooperative_groups.h", "cooperative_groups/reduce.h",
    "cuda_fp16.h", "cuda_bf16.h", "math_constants.h", "cub/cub.cuh",
)
_PARSE_INCOMPLETE = 0x02        # CXTranslationUnit_Incomplete: a header, not a whole program
_FOR_SERIALIZATION = 0x10       # CXTranslationUnit_ForSerialization
_CONFIG_MACRO = re.compile(
    rb"^\s*#\s*(?:define|undef)\s+(CUB_|THRUST_|_CCCL_|CCCL_|LIBCUDACXX_|_LIBCUDACXX_|__CUDA_NO_|"
    rb"CUDA_NO_|__CUDA_ARCH|NV_|CUDART_|__CUDACC|CUDA_API_|__CUDA_API_)", re.M)


def _index() -> ci.Index:
    return ci.Index.create()


def key_for(args: list[str], real: RealHeaders) -> str:
    h = hashlib.sha256()
    h.update(libclang_version().encode())
    h.update(b"\0".join(a.encode("utf-8", "surrogateescape") for a in args))
    h.update(real.description.encode())
    h.update("\n".join(PRECOMPILED_INCLUDES).encode())
    for d in (real.include_dir(), os.path.join(real.resource_dir, "include"), str(STANDINS_DIR)):
        try:
            h.update(f"{d}:{os.stat(d).st_mtime_ns}".encode())
        except OSError:
            h.update(d.encode())
    return h.hexdigest()[:24]


def pch_dir() -> Path:
    return user_cache_root() / "pch"


def prelude_text() -> str:
    lines = ["/* syncheck: the real CUDA headers most files use, precompiled once. */",
             f'#include "{STANDINS_DIR / "syncheck_device_launch.h"}"']
    lines += [f"#include <{h}>" for h in PRECOMPILED_INCLUDES]
    return "\n".join(lines) + "\n"


@functools.cache
def folder_names(folder: str) -> frozenset[str]:
    """The names in a folder (read once per process)."""
    try:
        return frozenset(os.listdir(folder))
    except OSError:
        return frozenset()


@functools.cache
def _folder_shadows(folder: str, include_dir: str) -> bool:
    try:
        names = set(os.listdir(folder))
    except OSError:
        return False
    return bool(names & folder_names(include_dir))


def usable_for(path: str, source: bytes, real: RealHeaders) -> bool:
    """May ``path`` be parsed with the precompiled header (see the module docstring)?"""
    folder = os.path.dirname(os.path.abspath(path))
    if _folder_shadows(folder, real.include_dir()):
        return False
    return _CONFIG_MACRO.search(source) is None


def get(args: list[str], real: RealHeaders) -> str | None:
    """The path of a precompiled header for ``args``, building it if needed; None if it cannot be."""
    key = key_for(args, real)
    folder = pch_dir()
    pch = folder / f"{key}.pch"
    failed = folder / f"{key}.failed"
    if pch.is_file():
        return str(pch)
    if _still_failing(failed, args):
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    with _Lock(folder / f"{key}.lock"):
        if pch.is_file():  # another process built it while this one waited
            return str(pch)
        return _build(args, pch, failed)


def _build(args: list[str], pch: Path, failed: Path) -> str | None:
    return _serialize(prelude_text(), args, 0, pch, failed)


def _serialize(prelude_source: str, args: list[str], extra_options: int, pch: Path, failed: Path,
               after_parse=None) -> str | None:
    """Parse a prelude and save it as the precompiled header ``pch`` (written under a
    temporary name, then moved); on an error, record it in ``failed`` and return None.
    ``after_parse(tu)`` runs on a clean parse before the save."""
    prelude = pch.with_suffix(".cuh")
    tmp = pch.with_name(f".{pch.stem}.{os.getpid()}.pch")
    try:
        prelude.write_text(prelude_source, encoding="utf-8")
        tu = _index().parse(str(prelude), args=args,
                            options=KEEP_GOING | _PARSE_INCOMPLETE | _FOR_SERIALIZATION | extra_options)
        errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            failed.write_text(f"{errors[0].location}: {errors[0].spelling}\n", encoding="utf-8")
            return None
        if after_parse is not None:
            after_parse(tu)
        tu.save(str(tmp))
        os.replace(tmp, pch)
        return str(pch)
    except (ci.TranslationUnitLoadError, ci.TranslationUnitSaveError, OSError) as e:
        try:
            failed.write_text(f"{type(e).__name__}: {e}\n", encoding="utf-8")
        except OSError:
            pass
        return None
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass


# A header that failed to build is not tried again in every file; it is tried again after
# this long, or as soon as one of the user's include folders changes (a header added there).
RETRY_FAILED_AFTER_S = 3600


def _still_failing(marker: Path, args: list[str]) -> bool:
    try:
        when = marker.stat().st_mtime
    except OSError:
        return False
    if time.time() - when > RETRY_FAILED_AFTER_S:
        return False
    folders = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-I", "-isystem", "-idirafter")]
    for folder in folders:
        try:
            if os.stat(folder).st_mtime > when:
                return False
        except OSError:
            continue
    return True


def discard(pch_path: str) -> None:
    """A header that failed to load (a toolkit file changed since): build afresh next time."""
    try:
        os.unlink(pch_path)
    except OSError:
        pass


def load_failed(tu: ci.TranslationUnit) -> bool:
    for d in tu.diagnostics:
        if d.severity >= ci.Diagnostic.Error and (
                "precompiled header" in d.spelling or "PCH file" in d.spelling
                or "AST file" in d.spelling or "has been modified since" in d.spelling):
            return True
    return False


class _Lock:
    """An advisory file lock (POSIX); elsewhere a no-op (two builders then both build)."""

    def __init__(self, path: Path):
        self.path = path
        self.fd: int | None = None

    def __enter__(self):
        try:
            import fcntl
            self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except (ImportError, OSError):
            self.fd = None
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            import fcntl
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)


# ---- the model headers ----
#
# Every model-header parse force-includes the model's cuda_runtime.h (nvcc includes the real
# one implicitly), which pulls in the C and C++ math headers: about a third of an average
# file's parse. It is precompiled once per configuration, like the real headers above: keyed
# by the libclang version, the exact arguments (user -I/-D/-std/arch included), the size and
# time stamp of every model header file and of every -I folder (a header added there could
# shadow one the precompiled copy holds), stored in the user cache dir. clang checks the
# files it read when it loads the header; a load or build failure falls back to the plain
# -include. A file whose own folder holds a file or folder named like one the precompiled
# header read (``math.h``, ``bits/``) is parsed plainly: its folder comes first on the
# include path there.

MODEL_PCH_VERSION = "1"
_SKIP_FUNCTION_BODIES = 0x40    # CXTranslationUnit_SkipFunctionBodies
# The model's own headers and the C/C++ headers they pull in hold no code syncheck lowers
# (system headers and the model are never lowered; clang keeps constexpr bodies and those
# with deduced return types, which it may need to evaluate), so their bodies are skipped.
SKIP_BODIES_IN_MODEL_PCH = os.environ.get("SYNCHECK_MODEL_PCH_BODIES", "") != "1"


def model_key(args: list[str], model_dir: str) -> str:
    h = hashlib.sha256()
    h.update(f"model-pch {MODEL_PCH_VERSION} {SKIP_BODIES_IN_MODEL_PCH}\0{libclang_version()}\0".encode())
    h.update(b"\0".join(a.encode("utf-8", "surrogateescape") for a in args))
    for root, dirs, names in os.walk(model_dir):
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(root, name)
            try:
                st = os.stat(full)
            except OSError:
                continue
            h.update(f"\0{full}:{st.st_size}:{st.st_mtime_ns}".encode())
    stamp_search_folders(h, args, ("-I", "-isystem", "-idirafter"))
    return h.hexdigest()[:24]


def stamp_search_folders(h, args: list[str], flags: tuple[str, ...]) -> None:
    """Add to a key the modification stamps of the search folders ``args`` names with
    ``flags`` (a header added to one of them can change what an include finds)."""
    for folder in (args[i + 1] for i, a in enumerate(args[:-1]) if a in flags):
        try:
            h.update(f"\0{folder}:{os.stat(folder).st_mtime_ns}".encode())
        except OSError:
            h.update(f"\0{folder}:missing".encode())


def split_forced_include(args: list[str]) -> tuple[list[str], str | None]:
    """``args`` without its ``-include FILE`` (the header to precompile), and that file."""
    out, forced = [], None
    i = 0
    while i < len(args):
        if args[i] == "-include" and i + 1 < len(args) and forced is None:
            forced = args[i + 1]
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out, forced


_model_names: dict[str, frozenset[str]] = {}


def model_get(args: list[str], model_dir: str) -> str | None:
    """A precompiled header of the forced include in ``args`` (the model cuda_runtime.h);
    None when it cannot be built (then parse with the plain -include)."""
    base, forced = split_forced_include(args)
    if forced is None:
        return None
    key = model_key(args, model_dir)
    folder = pch_dir()
    pch = folder / f"model-{key}.pch"
    failed = folder / f"model-{key}.failed"
    if not pch.is_file():
        if _still_failing(failed, args):
            return None
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        with _Lock(folder / f"model-{key}.lock"):
            if not pch.is_file():
                if _build_model(base, forced, pch, failed) is None:
                    return None
                _prune_models(folder, keep=pch)
    if str(pch) not in _model_names:
        names = _read_names(pch)
        if names is None:
            return None
        _model_names[str(pch)] = names
    return str(pch)


# Model headers are small (~3 MB): keep the most recently built few dozen configurations.
MAX_MODEL_PCHS = 32


def _prune_models(folder: Path, keep: Path) -> None:
    try:
        built = sorted(folder.glob("model-*.pch"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in built[MAX_MODEL_PCHS:]:
        if old == keep:
            continue
        for suffix in (".pch", ".names", ".cuh", ".lock", ".failed"):
            try:
                old.with_suffix(suffix).unlink()
            except OSError:
                pass


def _build_model(base: list[str], forced: str, pch: Path, failed: Path) -> str | None:
    names = pch.with_suffix(".names")

    def record_names(tu) -> None:
        # The names a file's folder could shadow: how each header read was spelled, by its
        # first path component (``math.h``, ``bits`` for ``bits/c++config.h``).
        # Conservatively: every component of the last three levels of each path read.
        spelled = {forced and os.path.basename(forced)}
        for inc in tu.get_includes():
            name = inc.include.name if inc.include is not None else ""
            spelled.update(p for p in os.path.normpath(name).split(os.sep)[-3:] if p)
        names.write_text("\n".join(sorted(spelled)) + "\n", encoding="utf-8")

    skip = _SKIP_FUNCTION_BODIES if SKIP_BODIES_IN_MODEL_PCH else 0
    return _serialize(f'#include "{forced}"\n', base, skip, pch, failed, record_names)


def _read_names(pch: Path) -> frozenset[str] | None:
    try:
        return frozenset(pch.with_suffix(".names").read_text(encoding="utf-8").split())
    except OSError:
        return None




def model_usable_for(path: str, pch: str) -> bool:
    """Does the file's folder (first on its include path after the flags) shadow none of
    the headers the precompiled model header read?"""
    names = _model_names.get(pch)
    if names is None:
        return False
    return not (folder_names(os.path.dirname(os.path.abspath(path))) & names)
