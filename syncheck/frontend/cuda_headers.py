"""Which CUDA headers a parse uses: syncheck's model headers or real ones.

Two front ends read CUDA sources:

* **model** (the default's first try): syncheck's own declaration-only headers
  (``cuda_model/``), parsed with ``-nocudainc``. Needs no toolkit, no download; fast.
* **real**: the CUDA toolkit's own headers with clang's CUDA wrappers, as clang parses
  a file for nvcc-compatible compilation. libclang 18 reads CUDA up to 12.3, so the
  headers come from, in this order:

  1. a path given with ``--cuda-headers PATH`` (a CUDA root with ``include/``);
  2. the pinned PyPI wheels of the ``syncheck[cuda]`` extra (CUDA runtime and crt
     headers 12.3, CCCL 12.9), laid out as a CUDA root in syncheck's user cache dir;
  3. an installed toolkit (``$CUDA_HOME``, ``$CUDA_PATH``, ``/usr/local/cuda``, the
     ``nvcc`` on PATH) whose version is 12.3 or older.

  clang's resource headers (``__clang_cuda_runtime_wrapper.h`` and friends) must match
  libclang's major version: the ``clang-tidy==18.1.8`` wheel of the extra ships them,
  or an LLVM 18 installation (``/usr/lib/llvm-18``).

``auto`` (the default mode) parses with the model and re-parses a file with the real
headers only when the model leaves device functions of that file unanalyzable and real
headers are available. See docs/front-end.md.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

from syncheck.user_dirs import user_cache_root

MODES = ("model", "real", "auto")
# libclang 18 supports CUDA up to this version (newer toolkits fail to load).
NEWEST_SUPPORTED_CUDA = (12, 3)
# The wheels of the `cuda` extra, by distribution name and the folder they install.
WHEEL_PARTS = (
    ("nvidia-cuda-runtime-cu12", "nvidia/cuda_runtime/include"),
    ("nvidia-cuda-nvcc-cu12", "nvidia/cuda_nvcc/include"),
    ("nvidia-cuda-cccl-cu12", "nvidia/cuda_cccl/include"),
)
INSTALL_HINT = "pip install 'syncheck[cuda]'"
# Files the real-header parse needs that no wheel ships (an empty curand_mtgp32_kernel.h,
# which clang's CUDA wrapper includes) and the launch declaration device-side parses need.
STANDINS_DIR = Path(__file__).parent / "real_cuda_support"
MODEL_DIR = Path(__file__).parent / "cuda_model"
# Folders whose declarations are CUDA's own (the model's, or the real headers' once located):
# the IR marks declarations from them as CUDA's, which is how primitives are recognized.
_cuda_declaration_prefixes: tuple[str, ...] = (str(MODEL_DIR),)


def cuda_declaration_prefixes() -> tuple[str, ...]:
    return _cuda_declaration_prefixes


def _register(real: "RealHeaders") -> None:
    global _cuda_declaration_prefixes
    extra = [d.rstrip(os.sep) + os.sep for d in (real.cuda_root, real.resource_dir, *real.system_dirs())]
    extra.append(str(STANDINS_DIR) + os.sep)
    _cuda_declaration_prefixes = tuple(dict.fromkeys(_cuda_declaration_prefixes + tuple(extra)))


class HeadersUnavailable(Exception):
    """The real CUDA headers were asked for but cannot be found; the message says how to get them."""


@dataclass(frozen=True)
class RealHeaders:
    cuda_root: str      # passed as --cuda-path
    resource_dir: str   # clang's resource dir (stddef.h, __clang_cuda_*.h)
    version: str        # CUDA version of the headers, e.g. "12.3"
    origin: str         # where they come from, for messages: "wheels", "toolkit", "path"
    description: str    # e.g. "CUDA 12.3.101 headers from the syncheck[cuda] wheels"

    def include_dir(self) -> str:
        return os.path.join(self.cuda_root, "include")

    def system_dirs(self) -> tuple[str, ...]:
        """Folders whose files are the toolkit's or clang's, never the user's."""
        dirs = {os.path.realpath(self.cuda_root), os.path.realpath(self.resource_dir),
                str(STANDINS_DIR)}
        include = Path(self.include_dir())
        if include.is_dir():  # the wheels' layout: links into site-packages
            for entry in include.iterdir():
                if entry.is_symlink():
                    dirs.add(os.path.dirname(os.path.realpath(entry)))
        return tuple(sorted(dirs))


@functools.cache
def libclang_version() -> str:
    """'clang version 18.1.1': part of every precompiled header's key."""
    lib = ci.conf.lib
    lib.clang_getClangVersion.restype = ci._CXString
    lib.clang_getClangVersion.errcheck = ci._CXString.from_result
    return str(lib.clang_getClangVersion())


def libclang_major() -> int:
    m = re.search(r"version (\d+)", libclang_version())
    return int(m.group(1)) if m else 18


# ---- clang's resource dir ----

@functools.cache
def find_resource_dir() -> str | None:
    """clang's resource dir of libclang's major version, with the CUDA wrapper headers."""
    major = libclang_major()
    candidates: list[Path] = []
    for base in sys.path:
        if base and os.path.isdir(base):
            candidates.append(Path(base) / "clang_tidy" / "data" / "lib" / "clang" / str(major))
    candidates += [Path(f"/usr/lib/llvm-{major}/lib/clang/{major}"), Path(f"/usr/lib/clang/{major}"),
                   Path(f"/usr/local/lib/clang/{major}"), Path(f"/opt/homebrew/opt/llvm@{major}/lib/clang/{major}")]
    for c in candidates:
        if (c / "include" / "__clang_cuda_runtime_wrapper.h").is_file():
            return str(c)
    return None


# ---- CUDA headers ----

def _cuda_h_version(include: Path) -> tuple[int, int] | None:
    try:
        text = (include / "cuda.h").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text)
    if not m:
        return None
    v = int(m.group(1))
    return v // 1000, (v % 1000) // 10


def _wheel_include_dirs() -> list[Path] | None:
    found = []
    for _dist, rel in WHEEL_PARTS:
        for base in sys.path:
            d = Path(base or ".") / rel
            if d.is_dir():
                found.append(d)
                break
        else:
            return None
    return found


def _wheel_versions() -> str:
    from importlib import metadata
    parts = []
    for dist, _ in WHEEL_PARTS:
        try:
            parts.append(f"{dist}=={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist}==?")
    return ", ".join(parts)


def _build_wheel_root(includes: list[Path]) -> Path:
    """A CUDA root made of links to the wheels' include folders (built once, in the cache)."""
    stamp = "\n".join(f"{d}:{d.stat().st_mtime_ns}" for d in includes) + _wheel_versions()
    digest = hashlib.sha256(stamp.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    root = user_cache_root() / f"cuda-root-{digest}"
    if (root / "include" / "cuda_runtime.h").exists():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".cuda-root-", dir=root.parent))
    try:
        (tmp / "include").mkdir()
        (tmp / "bin").mkdir()
        nvcc = tmp / "bin" / "nvcc"
        nvcc.write_text("#!/bin/sh\necho 'syncheck: this CUDA root holds headers only' >&2\nexit 1\n")
        nvcc.chmod(0o755)
        version = _cuda_h_version(includes[0]) or NEWEST_SUPPORTED_CUDA
        (tmp / "version.txt").write_text(f"CUDA Version {version[0]}.{version[1]}\n")
        for d in includes:
            for entry in sorted(d.iterdir()):
                if entry.name in ("__init__.py", "__pycache__"):
                    continue
                target = tmp / "include" / entry.name
                if target.exists() or target.is_symlink():
                    continue  # the first wheel that has a name wins
                try:
                    target.symlink_to(entry, target_is_directory=entry.is_dir())
                except OSError:  # no symlinks (some Windows setups): copy
                    (shutil.copytree if entry.is_dir() else shutil.copy2)(entry, target)
        try:
            os.replace(tmp, root)
        except OSError:  # another process built it first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return root


def _toolkit_candidates() -> list[Path]:
    out = []
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR"):
        if os.environ.get(var):
            out.append(Path(os.environ[var]))
    out.append(Path("/usr/local/cuda"))
    nvcc = shutil.which("nvcc")
    if nvcc:
        out.append(Path(os.path.realpath(nvcc)).parent.parent)
    return out


def _supported(version: tuple[int, int] | None) -> bool:
    return version is not None and (7, 0) <= version <= NEWEST_SUPPORTED_CUDA


def _from_root(root: Path, resource: str, origin: str, description: str) -> RealHeaders:
    version = _cuda_h_version(root / "include")
    real = RealHeaders(str(root), resource, f"{version[0]}.{version[1]}" if version else "?",
                       origin, description)
    _register(real)
    return real


def locate(spec: str) -> RealHeaders:
    """The real headers for ``spec`` ("real", "auto" or a CUDA root path), or HeadersUnavailable."""
    found = _locate_cached(spec, tuple(sys.path), os.environ.get("CUDA_HOME", ""),
                           os.environ.get("CUDA_PATH", ""), os.environ.get("XDG_CACHE_HOME", ""))
    if isinstance(found, str):
        raise HeadersUnavailable(found)
    return found


@functools.cache
def _locate_cached(spec: str, *_environment) -> RealHeaders | str:
    """The headers, or why there are none (cached either way: asked once per file in auto mode)."""
    try:
        return _search(spec)
    except HeadersUnavailable as e:
        return str(e)


def _check_cuda_root(spec: str) -> None:
    root = Path(spec).expanduser()
    include = root / "include"
    if not (include / "cuda_runtime.h").is_file():
        raise HeadersUnavailable(f"--cuda-headers {spec}: no include/cuda_runtime.h there "
                                 f"(expected a CUDA toolkit root)")
    version = _cuda_h_version(include)
    if not _supported(version):
        shown = f"{version[0]}.{version[1]}" if version else "unknown"
        raise HeadersUnavailable(f"--cuda-headers {spec}: CUDA {shown} is newer than libclang "
                                 f"{libclang_major()} reads (at most 12.3); {INSTALL_HINT}")
    if not (root / "bin").is_dir():
        raise HeadersUnavailable(f"--cuda-headers {spec}: a CUDA root needs a bin/ folder "
                                 f"(an empty one will do)")


def _search(spec: str) -> RealHeaders:
    # A wrong path is the user's own mistake: say so before what the installation lacks.
    if spec not in MODES:
        _check_cuda_root(spec)
    resource = find_resource_dir()
    if resource is None:
        raise HeadersUnavailable(
            f"clang {libclang_major()}'s resource headers (__clang_cuda_runtime_wrapper.h) were not "
            f"found; {INSTALL_HINT} installs them (the clang-tidy=={libclang_major()} wheel)")
    if spec not in MODES:
        return _from_root(Path(spec).expanduser(), resource, "path",
                          f"CUDA headers from {Path(spec).expanduser()}")
    includes = _wheel_include_dirs()
    if includes is not None:
        root = _build_wheel_root(includes)
        return _from_root(root, resource, "wheels", f"CUDA headers from the syncheck[cuda] wheels "
                                                    f"({_wheel_versions()})")
    newer = []
    for root in _toolkit_candidates():
        version = _cuda_h_version(root / "include")
        if version is None or not (root / "bin").is_dir():
            continue
        if _supported(version):
            return _from_root(root, resource, "toolkit", f"the CUDA {version[0]}.{version[1]} "
                                                         f"toolkit at {root}")
        newer.append(f"{root} is CUDA {version[0]}.{version[1]}")
    why = f" ({'; '.join(newer)}: newer than the 12.3 libclang 18 reads)" if newer else ""
    raise HeadersUnavailable(f"no real CUDA headers found{why}; {INSTALL_HINT} or pass "
                             f"--cuda-headers PATH to a CUDA <= 12.3 root")


def available(spec: str = "auto") -> RealHeaders | None:
    try:
        return locate(spec)
    except (HeadersUnavailable, OSError):
        return None
