"""Rule documents (rules/<CODE>.md): the single source for --explain, --list-rules and SARIF help."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

_SOURCE_DIR = Path(__file__).resolve().parent.parent / "rules"
_PACKAGED_DIR = Path(__file__).resolve().parent / "_rules"


@dataclass(frozen=True)
class RuleDoc:
    code: str
    name: str
    severity: str
    summary: str
    body: str  # the markdown after the front matter

    @property
    def url(self) -> str:
        return f"https://syncheck.dev/rules/{self.code}"


def rules_dir() -> Path:
    return _SOURCE_DIR if _SOURCE_DIR.is_dir() else _PACKAGED_DIR


def _parse(text: str) -> RuleDoc:
    if not text.startswith("---\n"):
        raise ValueError("rule document must start with front matter")
    head, body = text[4:].split("\n---\n", 1)
    meta = {}
    for line in head.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            meta[k.strip()] = v.strip()
    return RuleDoc(meta["code"], meta["name"], meta["severity"], meta["summary"], body.strip())


@functools.cache
def all_docs() -> dict[str, RuleDoc]:
    docs = {}
    for path in sorted(rules_dir().glob("SYN*.md")):
        doc = _parse(path.read_text(encoding="utf-8"))
        docs[doc.code] = doc
    return docs


def doc_for(code_or_name: str) -> RuleDoc | None:
    docs = all_docs()
    key = code_or_name.strip()
    if key.upper() in docs:
        return docs[key.upper()]
    for d in docs.values():
        if d.name == key.lower():
            return d
    return None
