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


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, column) to (end_line, end_column) of ``path`` by
    ``replacement``. Lines and columns are 1-based, columns count bytes (as clang's do); an
    insertion has an empty range."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str


SAFE = "safe"      # cannot change the behaviour of correct code: applied by --fix
UNSAFE = "unsafe"  # adds synchronization or moves code: applied only with --unsafe-fixes


@dataclass
class Fix:
    """A change that resolves a finding, produced by the rule that reports it (ruff's model:
    every output format shows the same Fix; only --fix applies it, unsafe ones only with
    --unsafe-fixes)."""

    message: str
    safety: str
    edits: list[Edit] = field(default_factory=list)

    @property
    def safe(self) -> bool:
        return self.safety == SAFE


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
    fix: Fix | None = None

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


# The rule code of a device function that could not be analyzed (rules/SYN002.md).
UNANALYZED_CODE = "SYN002"
UNANALYZED_RULE = "unanalyzed-function"


@dataclass
class UnanalyzedFunction:
    """A device function of an analyzed file that syncheck could not analyze, and why."""

    path: str
    line: int
    column: int
    name: str
    kind: str            # kernel | device | host_device
    reason: str          # the first clang error inside it
    reason_line: int     # where that error is (in the same file)
    reason_column: int
    fix: str             # what would let syncheck read it, e.g. "add -I include"
    cause: str = ""      # an earlier error that explains it, e.g. "'x.h' file not found at line 3"


@dataclass
class FileCoverage:
    """How much of one file's device code was analyzed."""

    found: int = 0       # kernels, __device__ and __host__ __device__ functions
    analyzed: int = 0
    headers: str = ""    # the CUDA headers it was parsed with: "model", "real" or "" (not parsed)
    unanalyzed: list[UnanalyzedFunction] = field(default_factory=list)


@dataclass
class Coverage:
    """Device functions analyzed out of those found, over a whole run."""

    found: int = 0
    analyzed: int = 0
    files_model: int = 0  # files parsed with syncheck's model headers
    files_real: int = 0   # files parsed with the real CUDA headers
    unanalyzed: list[UnanalyzedFunction] = field(default_factory=list)

    def add(self, file: FileCoverage) -> None:
        self.found += file.found
        self.analyzed += file.analyzed
        self.files_model += file.headers == "model"
        self.files_real += file.headers == "real"
        self.unanalyzed.extend(file.unanalyzed)

    @property
    def complete(self) -> bool:
        return self.analyzed == self.found

    @property
    def percent(self) -> float:
        return 100.0 * self.analyzed / self.found if self.found else 100.0

    def summary(self) -> str:
        """'analyzed 41 of 43 device functions (95.3%)', the same words in every format."""
        return (f"analyzed {self.analyzed} of {self.found} device function"
                f"{'s' if self.found != 1 else ''} ({self.percent:.1f}%)")

    def to_dict(self) -> dict:
        return {"found": self.found, "analyzed": self.analyzed,
                "percent": round(self.percent, 1), "complete": self.complete,
                "files_with_model_headers": self.files_model,
                "files_with_real_headers": self.files_real,
                "unanalyzed": [asdict(u) for u in self.unanalyzed]}


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    files: int = 0
    coverage: Coverage = field(default_factory=Coverage)
    # With allow_incomplete, unanalyzed functions (SYN002) do not decide the exit status.
    allow_incomplete: bool = False

    @property
    def errors(self) -> list[FileProblem]:
        return [p for p in self.problems if p.kind == "error"]

    @property
    def notes(self) -> list[FileProblem]:
        return [p for p in self.problems if p.kind != "error"]

    def sort(self) -> None:
        self.findings.sort(key=Finding.sort_key)
        self.problems.sort(key=lambda p: (p.path, p.line or 0, p.message))

    @property
    def unanalyzed_findings(self) -> list[Finding]:
        return [f for f in self.findings if f.code == UNANALYZED_CODE]

    def exit_code(self) -> int:
        """0 clean, 1 findings, 2 a file (or, unless allowed, a device function) not analyzed."""
        if self.errors:
            return 2
        incomplete = self.unanalyzed_findings
        if incomplete and not self.allow_incomplete:
            return 2
        return 1 if len(self.findings) > len(incomplete) else 0
