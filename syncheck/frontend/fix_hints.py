"""What a user can pass so that clang parses a function it could not: from the clang error.

    'cub/cub.cuh' file not found            -> --cuda-headers real (pip install 'syncheck[cuda]')
    'ggml.h' file not found                 -> add -I include   (found in the project)
    use of undeclared identifier 'BLOCK_N'  -> define the macro: -D BLOCK_N=<value>
    unknown type name 'half2'               -> --cuda-headers real (a CUDA name the model lacks)
"""

from __future__ import annotations

import functools
import os
import re

from syncheck.frontend.cuda_headers import INSTALL_HINT

# Top-level names of the CUDA toolkit's and CCCL's headers: a missing one is solved by real
# headers, not by a user -I.
TOOLKIT_HEADERS = frozenset({
    "cub", "thrust", "cuda", "nv", "cooperative_groups", "crt", "cuda_fp16.h", "cuda_bf16.h",
    "cuda_fp8.h", "math_constants.h", "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h",
    "cuda_pipeline.h", "cuda_pipeline_primitives.h", "cuda_awbarrier.h", "cuda_awbarrier_primitives.h",
    "mma.h", "cuda_texture_types.h", "texture_fetch_functions.h", "surface_functions.h",
    "device_functions.h", "device_atomic_functions.h", "sm_60_atomic_functions.h",
    "sm_61_intrinsics.h", "vector_functions.h", "vector_types.h", "cuComplex.h",
    "cuda_occupancy.h", "cooperative_groups.h", "driver_types.h", "library_types.h",
    "channel_descriptor.h", "cuda_device_runtime_api.h", "cudaTypedefs.h",
})
# Libraries of the toolkit that no wheel of the extra ships.
OTHER_CUDA_LIBRARIES = ("curand", "cublas", "cufft", "cusparse", "cusolver", "nvtx", "cudnn", "nccl",
                        "nvToolsExt", "cutensor", "npp", "nvjpeg")
_FILE_NOT_FOUND = re.compile(r"'([^']+)' file not found")
_UNDECLARED = re.compile(r"(?:use of undeclared identifier|unknown type name|no template named|"
                         r"no member named) '([^']+)'")
# Errors a declaration the model headers lack can cause (as opposed to constructs clang rejects).
_LOOKUP = re.compile(r"no matching|no member named|incomplete type|no type named|is not a member|"
                     r"no viable|ambiguous|cannot initialize|cannot convert|not a class|"
                     r"not a structure|not a template|no template named|undefined template")
_MACRO_LIKE = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_CUDA_NAME = re.compile(r"^(__[a-z]|cuda|CUDA|CU_|cu[A-Z]|make_(u?(char|short|int|long|float|double|half|bfloat))|"
                        r"(u?(char|short|int|long|longlong|float|double)[1-4]$)|half|nv_|__nv|cg$|"
                        r"atomic|warpSize)")
_SEARCH_LIMIT = 20000  # directory entries looked at when searching the project for a header


def fix_for(message: str, headers: str, real_available: bool, search_roots: tuple[str, ...]) -> str:
    """A short instruction: what flag or install would let clang read past ``message``."""
    m = _FILE_NOT_FOUND.search(message)
    if m:
        return _fix_missing_include(m.group(1), headers, real_available, search_roots)
    m = _UNDECLARED.search(message)
    if m:
        name = m.group(1)
        if headers == "model" and _CUDA_NAME.match(name):
            return _real_headers_fix(real_available, f"'{name}' is a CUDA name syncheck's model "
                                                     f"headers do not declare")
        if _MACRO_LIKE.match(name) and not name.startswith("__"):
            return f"if {name} is a macro the build defines, pass it: -D {name}=<value>"
        return (f"add the include (or -I folder) that declares '{name}', or -D {name}=... if "
                f"the build defines it")
    if headers == "model" and _LOOKUP.search(message):
        return _real_headers_fix(real_available, "syncheck's model headers may lack what this needs")
    return ("clang does not accept this construct; if nvcc does, please report it, and mark the "
            "function with // syncheck: ignore[SYN002] meanwhile")


def _real_headers_fix(real_available: bool, why: str) -> str:
    if real_available:
        return f"{why}: use --cuda-headers real (or auto)"
    return f"{why}: install the real CUDA headers ({INSTALL_HINT}) and use --cuda-headers auto"


def _fix_missing_include(header: str, headers: str, real_available: bool,
                         search_roots: tuple[str, ...]) -> str:
    top = header.split("/", 1)[0]
    if top in TOOLKIT_HEADERS and headers == "model":
        return _real_headers_fix(real_available, f"<{header}> is a CUDA toolkit header")
    if any(top.startswith(lib) for lib in OTHER_CUDA_LIBRARIES):
        return (f"<{header}> belongs to a CUDA library the CUDA headers syncheck found do not "
                f"include: pass --cuda-headers PATH to a CUDA <= 12.3 toolkit that has it, or -I "
                f"its include folder")
    found = find_in_project(header, search_roots)
    if found:
        return f"add -I {found}"
    return f"add -I <folder that holds {header}>"


def find_in_project(header: str, roots: tuple[str, ...]) -> str | None:
    """The folder D under one of ``roots`` with D/header, shown relative to the current directory."""
    for root in roots:
        hit = _search(os.path.abspath(root), header)
        if hit:
            rel = os.path.relpath(hit)
            return hit if rel.startswith("..") else rel
    return None


@functools.cache
def _search(root: str, header: str) -> str | None:
    seen = 0
    parts = header.split("/")
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("build", "node_modules",
                                                                                 "__pycache__"))
        seen += len(dirs) + len(files)
        if seen > _SEARCH_LIMIT:
            return None
        if parts[-1] in files:
            candidate = os.path.join(folder, *parts[-1:])
            base = folder
            for p in reversed(parts[:-1]):
                if os.path.basename(base) != p:
                    base = None
                    break
                base = os.path.dirname(base)
            if base is not None and os.path.isfile(candidate):
                return base
    return None
