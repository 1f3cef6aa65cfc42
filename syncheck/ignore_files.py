"""What a folder walk skips: the configuration's `exclude`/`extend-exclude` globs and the
paths that .gitignore files ignore. Named files are never skipped (the user asked for them).

The .gitignore matcher covers what repositories use: comments, blank lines, `!` negation,
a trailing `/` for folders only, patterns anchored by a leading or inner `/`, `*`, `?`,
`[...]` and `**` (any number of folders). .gitignore files are read from the repository's
top (the folder holding .git, else the walked folder) down to each path's folder; a later
match wins, as in git.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re

from syncheck.safe_io import read_regular_file

_MAX_IGNORE_BYTES = 1024 * 1024


def _glob_regex(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


class _Rule:
    def __init__(self, line: str):
        self.negate = line.startswith("!")
        if self.negate:
            line = line[1:]
        self.dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        self.regex = re.compile(("" if anchored else "(?:.*/)?") + _glob_regex(line) + r"\Z")

    def matches(self, rel: str, is_dir: bool) -> bool:
        return (is_dir or not self.dir_only) and self.regex.match(rel) is not None


@functools.lru_cache(maxsize=256)
def _rules(folder: str) -> tuple[_Rule, ...]:
    try:
        text = read_regular_file(os.path.join(folder, ".gitignore"), _MAX_IGNORE_BYTES)
    except OSError:
        return ()
    rules = []
    for raw in text.decode("utf-8", errors="replace").splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("\\#") or line.startswith("\\!"):
            line = line[1:]
        rules.append(_Rule(line))
    return tuple(rules)


def repository_top(folder: str) -> str | None:
    folder = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def gitignored(path: str, is_dir: bool, top: str) -> bool:
    """Do the .gitignore files between ``top`` and ``path`` ignore it (or a folder above it)?"""
    path = os.path.abspath(path)
    rel_parts = os.path.relpath(path, top).split(os.sep)
    if rel_parts[0] == "..":
        return False
    # A path inside an ignored folder is ignored whatever its own rules say (as in git).
    for depth in range(1, len(rel_parts)):
        if _decide(top, rel_parts[:depth], True):
            return True
    return _decide(top, rel_parts, is_dir)


def _decide(top: str, parts: list[str], is_dir: bool) -> bool:
    ignored = False
    folder = top
    for i in range(len(parts)):
        rel = "/".join(parts[i:])
        for rule in _rules(folder):
            if rule.matches(rel, is_dir):
                ignored = not rule.negate
        folder = os.path.join(folder, parts[i])
    return ignored


def glob_excluded(path: str, root: str, patterns: tuple[str, ...]) -> bool:
    """Does an exclude glob (relative to ``root``) name ``path`` or one of its folders? A
    glob without '/' matches any one path component (`build`, `*.gen.cu`)."""
    if not patterns:
        return False
    rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    if rel.startswith("../"):
        rel = os.path.abspath(path).replace(os.sep, "/")
    parts = rel.split("/")
    for pattern in patterns:
        p = pattern.strip().rstrip("/")
        if not p:
            continue
        if "/" not in p:
            if any(fnmatch.fnmatchcase(part, p) for part in parts):
                return True
        else:
            p = p.lstrip("./") if p.startswith("./") else p.lstrip("/")
            regex = re.compile(_glob_regex(p) + r"(?:/.*)?\Z")
            if regex.match(rel):
                return True
    return False


class WalkFilter:
    """excluded(path, is_dir) for engine.discover: configured globs, then .gitignore."""

    def __init__(self, root: str | None, patterns: tuple[str, ...], use_gitignore: bool = True):
        self.root = root or os.getcwd()
        self.patterns = patterns
        self.use_gitignore = use_gitignore
        self._tops: dict[str, str | None] = {}

    def __call__(self, path: str, is_dir: bool) -> bool:
        if os.path.basename(path) == ".git":
            return True
        if glob_excluded(path, self.root, self.patterns):
            return True
        if not self.use_gitignore:
            return False
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._tops:
            self._tops[folder] = repository_top(folder)
        top = self._tops[folder]
        if top is None:  # not in a git repository: the .gitignore files from the root down
            root = os.path.abspath(self.root)
            top = root if (os.path.abspath(path) + os.sep).startswith(root + os.sep) else None
        return top is not None and gitignored(path, is_dir, top)
