"""Inline suppressions: `// syncheck: ignore[SYN101]` after the code or alone on the line above,
`// NOLINT(syncheck-SYN101)` on the line, `// NOLINTNEXTLINE(syncheck-SYN101)` above it.
A bare `syncheck: ignore` or `NOLINT` without codes silences every rule on that line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_IGNORE = re.compile(r"(?://|#)\s*syncheck:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?")
_NOLINT = re.compile(r"//\s*NOLINT(NEXTLINE)?(?:\(([^)]*)\))?")


@dataclass
class Suppression:
    line: int           # the comment's line
    targets: tuple[int, ...]  # lines it applies to
    codes: frozenset[str] | None  # None: every code
    used: set[str] = field(default_factory=set)


def parse(lines: list[str]) -> list[Suppression]:
    out = []
    for i, text in enumerate(lines, start=1):
        if "syncheck" not in text and "NOLINT" not in text:
            continue
        m = _IGNORE.search(text)
        if m:
            codes = None if m.group(1) is None else frozenset(
                c.strip().upper() for c in m.group(1).split(",") if c.strip())
            alone = not text[:m.start()].strip()
            # On its own line it covers the next line; after code, only its own line.
            out.append(Suppression(i, (i, i + 1) if alone else (i,), codes))
            continue
        m = _NOLINT.search(text)
        if m:
            names = m.group(2)
            if names is not None:
                codes = frozenset(c.strip()[len("syncheck-"):].upper() for c in names.split(",")
                                  if c.strip().lower().startswith("syncheck-"))
                if not codes and names.strip():
                    continue  # a NOLINT for other tools
            else:
                codes = None
            out.append(Suppression(i, (i + 1,) if m.group(1) else (i,), codes))
    return out


def apply(findings, lines: list[str]):
    """(kept findings, suppressions that silenced nothing)."""
    sups = parse(lines)
    if not sups:
        return list(findings), []
    by_line: dict[int, list[Suppression]] = {}
    for s in sups:
        for t in s.targets:
            by_line.setdefault(t, []).append(s)
    kept = []
    for f in findings:
        hit = next((s for s in by_line.get(f.line, ()) if s.codes is None or f.code in s.codes), None)
        if hit is None:
            kept.append(f)
        else:
            hit.used.add(f.code)
    unused = [s for s in sups if not s.used]
    return kept, unused
