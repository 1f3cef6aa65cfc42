"""A content-hash cache of per-file results, so re-runs on unchanged files cost little.

Key: syncheck's version and model headers, the settings, the path and the file's bytes. An
entry also records the hashes of the project headers the file included, and is used only
if they are unchanged.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
from pathlib import Path

from syncheck import __version__

DEFAULT_DIR = ".syncheck_cache"


@functools.cache
def _tool_hash() -> str:
    h = hashlib.sha256(__version__.encode())
    root = Path(__file__).parent
    for p in sorted(root.rglob("*")):
        if p.suffix in (".py", ".h") and p.is_file():
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def _file_hash(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


class Cache:
    def __init__(self, directory: str, settings_key: str):
        self.dir = Path(directory)
        self.settings_key = settings_key
        self.hits = self.misses = 0

    def key(self, path: str, source: bytes) -> str:
        h = hashlib.sha256()
        for part in (_tool_hash(), self.settings_key, path, os.path.abspath(path)):
            h.update(part.encode())
            h.update(b"\0")
        h.update(source)
        return h.hexdigest()

    def get(self, key: str):
        entry = self.dir / key[:2] / key
        try:
            with open(entry, "rb") as f:
                deps, result = pickle.load(f)
        except (OSError, pickle.PickleError, EOFError, ValueError, AttributeError):
            self.misses += 1
            return None
        if any(_file_hash(p) != h for p, h in deps):
            self.misses += 1
            return None
        self.hits += 1
        return result

    def put(self, key: str, result, dependencies: list[str]) -> None:
        deps = [(p, _file_hash(p)) for p in dependencies]
        folder = self.dir / key[:2]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not (self.dir / "CACHEDIR.TAG").exists():
                (self.dir / "CACHEDIR.TAG").write_text(
                    "Signature: 8a477f597d28d172789f06886806bc55\n# syncheck cache\n")
                (self.dir / ".gitignore").write_text("*\n")
            tmp = folder / f".{key}.{os.getpid()}"
            with open(tmp, "wb") as f:
                pickle.dump((deps, result), f)
            os.replace(tmp, folder / key)
        except OSError:
            pass  # a read-only tree just runs without the cache
