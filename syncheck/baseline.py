"""Baselines and content fingerprints of findings.

A finding's key is (rule code, file path relative to a base folder, the flagged source line
with its whitespace collapsed, occurrence index among findings with the same first three):
no line numbers, so code moving up or down keeps its key, and two identical lines flagged by
one rule in one file stay distinct. A baseline file records the keys of today's findings; a
run with it reports only findings whose key it does not hold. SARIF partialFingerprints are
a hash of the same key.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter

from syncheck.diagnostics import Finding
from syncheck.safe_io import read_regular_file

BASELINE_VERSION = 1
MAX_BASELINE_BYTES = 64 * 1024 * 1024


class BaselineError(Exception):
    """str() is one line naming the file."""


def _normalized(text: str) -> str:
    return " ".join(text.split())


class LineSource:
    """Source lines by path, from given texts (stdin) or the files, read once."""

    def __init__(self, sources: dict[str, bytes] | None = None):
        self.sources = sources or {}
        self._cache: dict[str, list[str]] = {}

    def line(self, path: str, line: int) -> str:
        lines = self._cache.get(path)
        if lines is None:
            data = self.sources.get(path)
            if data is None:
                try:
                    data = read_regular_file(path)
                except OSError:
                    data = b""
            lines = self._cache[path] = data.decode("utf-8", errors="replace").splitlines()
        return lines[line - 1] if 1 <= line <= len(lines) else ""


def relative(path: str, base: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(base))
    return (rel if not rel.startswith("..") else os.path.abspath(path)).replace(os.sep, "/")


def keys(findings: list[Finding], base: str, lines: LineSource) -> list[tuple[str, str, str, int]]:
    """The key of each finding, in the findings' order."""
    seen: Counter = Counter()
    out = []
    for f in sorted(range(len(findings)), key=lambda i: findings[i].sort_key()):
        finding = findings[f]
        head = (finding.code, relative(finding.path, base), _normalized(lines.line(finding.path, finding.line)))
        out.append((f, head + (seen[head],)))
        seen[head] += 1
    out.sort()
    return [k for _, k in out]


def fingerprint(key: tuple[str, str, str, int]) -> str:
    return hashlib.sha256(json.dumps(list(key)).encode("utf-8")).hexdigest()[:32]


def write(path: str, findings: list[Finding], lines: LineSource) -> int:
    base = os.path.dirname(os.path.abspath(path))
    entries = sorted({k for k in keys(findings, base, lines)})
    _dump(path, entries)
    return len(entries)


def _dump(path: str, entries) -> None:
    data = {"syncheck-baseline": BASELINE_VERSION,
            "findings": [{"rule": r, "path": p, "code": c, "occurrence": i} for r, p, c, i in entries]}
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def load(path: str) -> set[tuple[str, str, str, int]]:
    try:
        raw = read_regular_file(path, MAX_BASELINE_BYTES)
    except OSError as e:
        raise BaselineError(f"{path}: cannot read baseline: {e.strerror or e}") from None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise BaselineError(f"{path}: not a syncheck baseline (invalid JSON)") from None
    if not isinstance(data, dict) or data.get("syncheck-baseline") != BASELINE_VERSION or \
            not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a syncheck baseline (version {BASELINE_VERSION})")
    out = set()
    for i, e in enumerate(data["findings"]):
        if not isinstance(e, dict) or not all(isinstance(e.get(k), str) for k in ("rule", "path", "code")) \
                or type(e.get("occurrence")) is not int:
            raise BaselineError(f"{path}: entry {i + 1} is malformed")
        out.add((e["rule"], e["path"], e["code"], e["occurrence"]))
    return out


def split(findings: list[Finding], path: str, lines: LineSource):
    """(findings not in the baseline, keys of the baseline that still occur)."""
    base = os.path.dirname(os.path.abspath(path))
    known = load(path)
    new, seen = [], set()
    for f, k in zip(findings, keys(findings, base, lines)):
        if k in known:
            seen.add(k)
        else:
            new.append(f)
    return new, seen


def prune(path: str, findings: list[Finding], lines: LineSource) -> tuple[int, int]:
    """Drop entries that no longer occur; (kept, dropped)."""
    known = load(path)
    _, seen = split(findings, path, lines)
    kept = sorted(known & seen)
    _dump(path, kept)
    return len(kept), len(known) - len(kept)
