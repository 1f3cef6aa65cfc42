"""Inline suppressions: `// syncheck: ignore[SYN101]` after the code or alone on the line above,
`// NOLINT(syncheck-SYN101)` on the line, `// NOLINTNEXTLINE(syncheck-SYN101)` above it.
A bare `syncheck: ignore` or `NOLINT` without codes silences every rule on that line.
Rules may be named by code or by name (`ignore[divergent-barrier]`); text after the closing
bracket (`reason: ...`) is free. A name that is no rule is recorded in ``unknown`` and the
engine reports it as an error (a typo must not silently leave a finding reported)."""

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
    unknown: tuple[str, ...] = ()  # entries that name no rule


def _codes(entries: list[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    from syncheck.checks.registry import rule_code
    codes, unknown = set(), []
    for entry in entries:
        code = rule_code(entry)
        if code is None:
            unknown.append(entry)
        else:
            codes.add(code)
    return frozenset(codes), tuple(unknown)


def parse(lines: list[str]) -> list[Suppression]:
    out = []
    for i, text in enumerate(lines, start=1):
        if "syncheck" not in text and "NOLINT" not in text:
            continue
        m = _IGNORE.search(text)
        if m:
            codes, unknown = (None, ()) if m.group(1) is None else _codes(
                [c.strip() for c in m.group(1).split(",") if c.strip()])
            alone = not text[:m.start()].strip()
            # On its own line it covers the next line; after code, only its own line.
            out.append(Suppression(i, (i, i + 1) if alone else (i,), codes, unknown=unknown))
            continue
        m = _NOLINT.search(text)
        if m:
            names = m.group(2)
            if names is not None:
                ours = [c.strip()[len("syncheck-"):] for c in names.split(",")
                        if c.strip().lower().startswith("syncheck-")]
                if not ours:
                    continue  # a NOLINT for other tools
                codes, unknown = _codes(ours)
            else:
                codes, unknown = None, ()
            out.append(Suppression(i, (i + 1,) if m.group(1) else (i,), codes, unknown=unknown))
    return out


def apply(findings, lines: list[str], sups: list[Suppression] | None = None):
    """(kept findings, suppressions that silenced nothing)."""
    sups = parse(lines) if sups is None else sups
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
    unused = [s for s in sups if not s.used and not s.unknown]
    return kept, unused
