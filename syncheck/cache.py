"""A content-hash cache of per-file results, so re-runs on unchanged files cost little.

Key: syncheck's version and model headers, the settings, the path and the file's bytes. An
entry also records the hashes of the project headers the file included, and is used only
if they are unchanged.

Entries are JSON, validated field by field on load (syncheck.results): whoever can write to
the cache directory can at most make syncheck miss, never run code. Anything unreadable or
of the wrong shape is a miss. The default directory is the user's cache directory, keyed by
the project root, so a repository cannot ship entries of its own.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from syncheck import __version__
from syncheck.results import FileResult, ResultFormatError, decode_result, encode_result
from syncheck.safe_io import read_regular_file
from syncheck.user_dirs import user_cache_root

# An entry larger than this is not ours (results are a few KiB): a miss, not a read.
MAX_ENTRY_BYTES = 16 * 1024 * 1024


def default_cache_dir(project_root: str) -> str:
    """The cache folder for a project: one per project root, outside the project."""
    real = os.path.realpath(project_root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return str(user_cache_root() / digest)


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
        return hashlib.sha256(read_regular_file(path)).hexdigest()
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
            h.update(part.encode("utf-8", "surrogateescape"))
            h.update(b"\0")
        h.update(source)
        return h.hexdigest()

    def get(self, key: str) -> FileResult | None:
        result = self._load(self.dir / key[:2] / f"{key}.json")
        if result is None:
            self.misses += 1
        else:
            self.hits += 1
        return result

    def _load(self, entry: Path) -> FileResult | None:
        try:
            data = json.loads(read_regular_file(str(entry), MAX_ENTRY_BYTES))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or set(data) != {"dependencies", "entry"}:
            return None
        deps = data["dependencies"]
        if not isinstance(deps, list) or not all(
                isinstance(d, list) and len(d) == 2 and isinstance(d[0], str)
                and (d[1] is None or isinstance(d[1], str)) for d in deps):
            return None
        try:
            result = decode_result(data["entry"])
        except ResultFormatError:
            return None
        if any(_file_hash(p) != h for p, h in deps):
            return None
        return result

    def put(self, key: str, result: FileResult, dependencies: list[str]) -> None:
        deps = [[p, _file_hash(p)] for p in dependencies]
        folder = self.dir / key[:2]
        try:
            text = json.dumps({"dependencies": deps, "entry": encode_result(result)},
                              separators=(",", ":"))
        except (TypeError, ValueError):
            return  # a result that cannot be encoded is simply not cached
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not (self.dir / "CACHEDIR.TAG").exists():
                (self.dir / "CACHEDIR.TAG").write_text(
                    "Signature: 8a477f597d28d172789f06886806bc55\n# syncheck cache\n")
                (self.dir / ".gitignore").write_text("*\n")
            tmp = folder / f".{key}.{os.getpid()}"
            with open(tmp, "w", encoding="ascii") as f:
                f.write(text)
            os.replace(tmp, folder / f"{key}.json")
        except OSError:
            pass  # a read-only location just runs without the cache
