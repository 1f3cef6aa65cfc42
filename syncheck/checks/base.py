"""The check interface: one class per rule, documented in rules/<CODE>.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable

from syncheck.analyses.uniformity import UniformityService
from syncheck.diagnostics import Finding, Note, Severity
from syncheck.ir.calls import source_text
from syncheck.ir.nodes import Node
from syncheck.ir.program import Program


@dataclass
class CheckContext:
    program: Program
    uniformity: UniformityService
    path: str  # as the user named it, for output

    def text(self, node: Node) -> str:
        return source_text(self.program.source_lines, node)

    def finding(self, check: "Check", node: Node, message: str, function: str,
                notes: list[Note] | None = None) -> Finding:
        end_col = node.end_col if node.end_line == node.line else node.col + 1
        return Finding(code=check.code, rule=check.name, severity=check.severity, path=self.path,
                       line=node.line, column=node.col, end_line=node.end_line or node.line,
                       end_column=end_col, message=message, function=function,
                       notes=list(notes or []))

    def note(self, node: Node, message: str) -> Note:
        return Note(self.path, node.line, node.col, message)


class Check:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        raise NotImplementedError
