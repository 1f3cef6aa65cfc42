"""Findings inside system or third-party headers are not the user's to fix: drop them.

A finding is kept when it is in a file the user named, or in a file of their project:
under the configuration's root, the current directory or a named folder, and not under a
system folder (syncheck's model headers, the real CUDA headers, clang's and the compiler's
headers, /usr, an -isystem folder) nor a vendored-code folder (third_party/, 3rdparty/,
vendor/, _deps/, external/) inside it. So `syncheck .` in a repository reports neither on
its vendored copy of a library's .cu files nor on the headers it includes from there.
``--report-headers`` (config ``report-headers = true``) keeps them all.
"""

from __future__ import annotations

import os

from syncheck.diagnostics import Finding
from syncheck.frontend.cuda_headers import available
from syncheck.frontend.parse import MODEL_DIR, compiler_include_dir

VENDORED_FOLDERS = frozenset({"third_party", "third-party", "thirdparty", "3rdparty", "vendor",
                              "vendored", "_deps", "external", "extern"})
_SYSTEM_DIRS = ("/usr/include", "/usr/local/include", "/usr/lib", "/usr/local/cuda", "/opt/cuda")


def drop_third_party(findings: list[Finding], named: list[str], settings) -> list[Finding]:
    """The findings in first-party code; ``named``: the paths on the command line."""
    judge = _Judge(named, settings)
    return [f for f in findings if judge.first_party(f.path)]


class _Judge:
    def __init__(self, named: list[str], settings):
        self.files = {os.path.realpath(f) for f in named if not os.path.isdir(f)}
        roots = [settings.config_root] if settings.config_root else []
        roots.append(os.getcwd())
        roots += [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in named]
        self.roots = [os.path.realpath(r) for r in roots if r]
        system = [str(MODEL_DIR), compiler_include_dir(), *_SYSTEM_DIRS]
        real = available(settings.cuda_headers) if settings.cuda_headers != "model" else None
        if real is not None:
            system += list(real.system_dirs())
        args = list(settings.parse.extra_args)
        system += [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-isystem", "-idirafter")]
        system += [a[len("-isystem"):] for a in args if a.startswith("-isystem") and len(a) > 8]
        self.system = [os.path.realpath(d) for d in system if d]
        self._memo: dict[str, bool] = {}

    def first_party(self, path: str) -> bool:
        if path not in self._memo:
            self._memo[path] = self._judge(os.path.realpath(path))
        return self._memo[path]

    def _judge(self, real: str) -> bool:
        if real in self.files:
            return True
        if any(_under(real, d) for d in self.system):
            return False
        for root in self.roots:
            if _under(real, root):
                inside = os.path.relpath(real, root).split(os.sep)[:-1]
                return not any(part in VENDORED_FOLDERS for part in inside)
        return False


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
