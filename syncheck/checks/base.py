"""The check interface: one class per rule, documented in rules/<CODE>.md."""

from __future__ import annotations

import os

from dataclasses import dataclass, field
from typing import ClassVar, Iterable

from syncheck.analyses.uniformity import UniformityService
from syncheck.diagnostics import Finding, Note, Severity
from syncheck.ir.nodes import Node
from syncheck.ir.program import Program


@dataclass
class CheckContext:
    program: Program
    uniformity: UniformityService
    path: str  # as the user named it, for output
    # (line, message): what an analysis could not decide, shown to the user as notes
    analysis_notes: list[tuple[int, str]] = field(default_factory=list)
    # what the shared analyses computed for this file, kept for every rule that asks again
    memo: dict[str, dict] = field(default_factory=dict)

    def text(self, node: Node) -> str:
        return self.program.text(node)

    def function_path(self, fn) -> str:
        """Where a function's findings go: this file as the user named it, or the header."""
        if fn is None or fn.in_main_file:
            return self.path
        return os.path.abspath(fn.file)  # the engine spells it as the user named it, if named

    def path_of(self, node: Node) -> str:
        return self.function_path(self.program.owner(node))

    def finding(self, check: "Check", node: Node, message: str, function: str,
                notes: list[Note] | None = None, at: tuple[int, int, int] | None = None) -> Finding:
        """A finding at ``node``, or at ``at`` (line, column, end column) inside its text."""
        if at is not None:
            line, col, end_col = at
            return Finding(code=check.code, rule=check.name, severity=check.severity, path=self.path_of(node),
                           line=line, column=col, end_line=line, end_column=end_col, message=message,
                           function=function, notes=list(notes or []))
        end_col = node.end_col if node.end_line == node.line else node.col + 1
        return Finding(code=check.code, rule=check.name, severity=check.severity, path=self.path_of(node),
                       line=node.line, column=node.col, end_line=node.end_line or node.line,
                       end_column=end_col, message=message, function=function,
                       notes=list(notes or []))

    def place_in_text(self, node: Node, word: str) -> tuple[int, int, int] | None:
        """(line, column, end column) of the first ``word`` in the node's text (an instruction
        inside an inline-PTX statement's strings); None where it does not occur."""
        lines = self.program.lines_of(node)
        for line in range(node.line, min(node.end_line or node.line, len(lines)) + 1):
            text = lines[line - 1]
            start = node.col - 1 if line == node.line else 0
            i = text.find(word, start)
            if i >= 0:
                return line, i + 1, i + 1 + len(word)
        return None

    def note(self, node: Node, message: str) -> Note:
        return Note(self.path_of(node), node.line, node.col, message)

    def primitive_calls(self):
        """(function, call, primitive) for every primitive call in this file's device code,
        for rules that judge a call by itself rather than by where it is reached from."""
        from syncheck.analyses import primitives as P
        for fn in self.program.functions.values():
            if not fn.reported or not fn.runs_on_device or fn.has_errors or fn.body is None \
                    or not self.program.analyzed_generically(fn):
                continue
            for node in fn.body.walk():
                if node.kind == "CALL_EXPR":
                    prim = P.classify(node)
                    if prim is not None:
                        yield fn, node, prim


class Check:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    # Runs only when --select names it: rules about code that is defined but fragile.
    opt_in: ClassVar[bool] = False
    # "file": run() sees one translation unit; "project": run_project() sees the facts of
    # every analyzed file (a kernel and its launch may live in different files).
    scope: ClassVar[str] = "file"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        return ()

    def run_project(self, project: "ProjectFacts") -> Iterable[Finding]:
        return ()

    def at(self, loc, message: str, notes: list[Note] | None = None) -> Finding:
        """A finding at a recorded Location (project rules)."""
        return Finding(code=self.code, rule=self.name, severity=self.severity, path=loc.path,
                       line=loc.line, column=loc.column, end_line=loc.end_line,
                       end_column=loc.end_column, message=message, function=loc.function,
                       notes=list(notes or []))


@dataclass
class ProjectFacts:
    """Everything the project rules need, joined over all analyzed files."""

    files: list  # list[syncheck.project.FileFacts]

    def kernels(self):
        for f in self.files:
            yield from f.kernels

    def launches(self):
        for f in self.files:
            yield from f.launches

    def kernel_for(self, launch):
        for k in self.kernels():
            if (launch.kernel_key and k.key == launch.kernel_key) or (
                    not launch.kernel_key and k.name == launch.kernel_name):
                return k
        return None

    @property
    def queries_cooperative_support(self) -> bool:
        return any(f.queries_cooperative_support for f in self.files)

    @property
    def defines_main(self) -> bool:
        return any(f.defines_main for f in self.files)
