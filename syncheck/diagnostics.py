"""The one diagnostics model that every output format renders."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Note:
    path: str
    line: int
    column: int
    message: str


@dataclass
class Finding:
    code: str
    rule: str
    severity: Severity
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    function: str
    notes: list[Note] = field(default_factory=list)

    def sort_key(self):
        return (self.path, self.line, self.column, self.code, self.message)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["severity"] = self.severity.value
        return d


@dataclass
class FileProblem:
    """A file syncheck could not analyze (kind "error") or analyzed only in part ("note")."""

    path: str
    message: str
    kind: str = "error"
    line: int | None = None
    column: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    files: int = 0

    @property
    def errors(self) -> list[FileProblem]:
        return [p for p in self.problems if p.kind == "error"]

    @property
    def notes(self) -> list[FileProblem]:
        return [p for p in self.problems if p.kind != "error"]

    def sort(self) -> None:
        self.findings.sort(key=Finding.sort_key)
        self.problems.sort(key=lambda p: (p.path, p.line or 0, p.message))

    def exit_code(self) -> int:
        if self.errors:
            return 2
        return 1 if self.findings else 0
