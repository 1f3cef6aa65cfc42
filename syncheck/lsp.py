"""`syncheck lsp [CLI options]`: a language server over stdio.

Each open document is analyzed with the settings the CLI would use for that file: the same
code path (syncheck.run_settings.resolve) finds its configuration and compile database from
the file's folder upwards, and the command-line options given after `lsp` apply as they do
to the CLI. The buffer is analyzed, never the disk copy, and nothing is written.

Published per document: the findings (rule code, a link to the rule's document, the notes
as related information), the coverage diagnostics (SYN002) of functions that could not be
analyzed, and configuration errors. Hover on a finding shows its rule's document. Code
actions: the finding's fix (safe ones preferred, unsafe ones marked) and a suppression
comment with the rule code and a reason placeholder.

The server keeps answering while a buffer is analyzed: an edit after a quiet spell is analyzed
at once, the edits of a burst are debounced (the newest one is analyzed); an analysis runs
in a worker process under the per-file time and memory limits (a libclang crash costs that
analysis, not the server); the worker parses the buffer with the precompiled CUDA header as
the CLI does (where none applies, it keeps the document's translation unit and reparses it
with a precompiled preamble, so an edit re-parses only the code below the includes), and it
keeps the lowered function bodies, so an edit lowers again only the functions it can have
changed (syncheck/ir/reuse.py; an edit inside one kernel's or device function's body takes the
rest of the previous build without walking the translation unit, syncheck/ir/body_edit.py),
and what the checks found in each part of the file's device call graph, so an edit inside a
kernel's or helper's body analyzes again only that part (syncheck/analysis_reuse.py); between
edits it makes the next analysis's solver context. A newer edit supersedes an older analysis: one not yet started is dropped, a running one has its
result discarded, and one still running after KILL_AFTER_SECONDS is killed (that costs the
kept translation units). For comparison (bench/lsp_latency.py): `--no-incremental` keeps
translation units but lowers every body again and analyzes every part; `--no-reuse` parses afresh every time. A buffer larger than MAX_BUFFER_BYTES gets one diagnostic instead of
an analysis. Only documents the editor has open are used: a request for another URI never
reads the disk.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from syncheck import __version__
from syncheck.analyses.symbolic import prepare_solver_context
from syncheck.diagnostics import FileProblem, Finding, Report
from syncheck.engine import Settings, analyze_file, analyze_task, filter_findings, project_findings
from syncheck.results import FileResult
from syncheck.rules_doc import doc_for
from syncheck.workers import Limits, WorkerPool

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "info": types.DiagnosticSeverity.Information}

MAX_BUFFER_BYTES = 2 * 1024 * 1024
DEBOUNCE_SECONDS = 0.075          # with translation units kept (the default)
DEBOUNCE_SECONDS_NO_REUSE = 0.3   # parsing afresh costs more: wait longer for the typing to stop
KILL_AFTER_SECONDS = 2.0
LANGUAGE_SERVER_TIMEOUT = 60.0


def _path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def buffer_too_large(size: int) -> str:
    return (f"buffer is too large to analyze ({size / 1e6:.1f} MB; the limit of the language "
            f"server is {MAX_BUFFER_BYTES // (1024 * 1024)} MiB); run syncheck on the file instead")


class _Text:
    """A buffer's lines, for turning clang's (line, byte column) into LSP (line, UTF-16)."""

    def __init__(self, text: str):
        self.lines = text.split("\n")

    def position(self, line: int, column: int) -> types.Position:
        i = max(line - 1, 0)
        if i >= len(self.lines):
            return types.Position(line=i, character=0)
        raw = self.lines[i].encode("utf-8", errors="surrogateescape")
        prefix = raw[:max(column - 1, 0)].decode("utf-8", errors="replace")
        return types.Position(line=i, character=len(prefix.encode("utf-16-le")) // 2)

    def range(self, line: int, col: int, end_line: int, end_col: int) -> types.Range:
        start = self.position(line, col)
        end = self.position(max(end_line, line), end_col)
        if (end.line, end.character) <= (start.line, start.character):
            end = types.Position(line=start.line, character=start.character + 1)
        return types.Range(start=start, end=end)


def findings_for(path: str, text: str, settings: Settings, result: FileResult) -> tuple[list[Finding], list[FileProblem]]:
    """The findings and problems the CLI would report for this buffer: project rules over
    its facts (a worker's result has them already, and no facts), then the CLI's own filter (suppressions, per-file ignores, unknown rules in
    suppression comments)."""
    findings = result.findings + project_findings([result.facts], settings)
    report = Report()
    source = text.encode("utf-8", errors="surrogateescape")
    kept = filter_findings(findings, [path], settings, report, {path: source})
    kept = [f for f in kept if os.path.abspath(f.path) == os.path.abspath(path)]
    return kept, list(result.problems) + report.problems


def diagnostic(f: Finding, buffer: _Text) -> types.Diagnostic:
    doc = doc_for(f.code)
    related = [types.DiagnosticRelatedInformation(
        location=types.Location(uri=f"file://{os.path.abspath(n.path)}",
                                range=buffer.range(n.line, n.column, n.line, n.column + 1)),
        message=n.message) for n in f.notes]
    return types.Diagnostic(
        range=buffer.range(f.line, f.column, f.end_line, f.end_column), message=f.message,
        severity=_SEVERITY[f.severity.value], code=f.code, source="syncheck",
        code_description=types.CodeDescription(href=doc.url) if doc else None,
        related_information=related or None, data={"rule": f.rule})


def problem_diagnostic(p: FileProblem, buffer: _Text) -> types.Diagnostic:
    line, col = p.line or 1, p.column or 1
    return types.Diagnostic(
        range=buffer.range(line, col, line, col + 1), message=p.message, source="syncheck",
        severity=types.DiagnosticSeverity.Error if p.kind == "error" else types.DiagnosticSeverity.Information)


def diagnostics_for(path: str, text: str, settings: Settings,
                    result: FileResult | None = None) -> list[types.Diagnostic]:
    """The diagnostics of a buffer (analyzed in this process when no result is given)."""
    if result is None:
        result = analyze_file(path, settings, text.encode("utf-8"))
    findings, problems = findings_for(path, text, settings, result)
    buffer = _Text(text)
    return [diagnostic(f, buffer) for f in findings] + [problem_diagnostic(p, buffer) for p in problems]


class _BufferAnalyzer:
    """One worker process, reused from edit to edit (it keeps the translation units); one
    analysis at a time, each with its document's settings."""

    def __init__(self):
        # A server thread is blocked reading stdin: forking from this process could copy
        # its held locks into the worker, so workers come from a fork server.
        # between edits the worker makes the next analysis's solver context
        self.pool = WorkerPool(1, analyze_task, Limits(cpu_seconds=LANGUAGE_SERVER_TIMEOUT),
                               start_method="forkserver", between=prepare_solver_context)
        self.lock = threading.Lock()
        self.started: float | None = None

    def analyze(self, path: str, source: bytes, settings: Settings) -> FileResult:
        with self.lock:
            self.started = time.monotonic()
            try:
                for _, result, _ in self.pool.run([(path, (source, settings))]):
                    return result
            finally:
                self.started = None
        return FileResult(problems=[FileProblem(path, "analysis did not run")])

    def running_for(self) -> float | None:
        started = self.started
        return None if started is None else time.monotonic() - started

    def cancel(self) -> None:
        """Kill the analysis now running (its result is stale)."""
        self.pool.cancel()

    def close(self) -> None:
        self.pool.__exit__(None, None, None)


_CONFIG_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?:\d+:)? ")


def _settings_problem(path: str, message: str) -> FileResult:
    """A configuration or compile-database error, shown on the document's first line."""
    return FileResult(problems=[FileProblem(path, f"syncheck configuration: {message}")])


def build_server(argv: list[str] | None = None) -> LanguageServer:
    from syncheck.cli import parse_options
    reuse = "--no-reuse" not in (argv or [])
    incremental = reuse and "--no-incremental" not in (argv or [])
    _, options = parse_options([a for a in (argv or []) if a not in ("--no-reuse", "--no-incremental")])
    options.no_cache = True
    server = LanguageServer("syncheck", __version__)
    analyzer = _BufferAnalyzer()
    debounce = DEBOUNCE_SECONDS if reuse else DEBOUNCE_SECONDS_NO_REUSE
    latest: dict[str, int] = {}    # uri -> number of the newest request
    last_edit: dict[str, float] = {}  # uri -> when its newest request came (monotonic clock)
    running: dict[str, int] = {}   # uri -> request being analyzed
    shown: dict[str, list[tuple[types.Diagnostic, Finding]]] = {}  # uri -> published findings

    def open_document(ls: LanguageServer, uri: str):
        """The editor's buffer, or None when the document is not open (never the disk)."""
        return ls.workspace.text_documents.get(unquote(uri)) or ls.workspace.text_documents.get(uri)

    def settings_for(path: str) -> Settings | str:
        from syncheck.run_settings import SettingsError, forget_discoveries, resolve
        forget_discoveries()  # a configuration saved since the last edit applies now
        try:
            settings = resolve(options, path).settings
        except SettingsError as e:
            return str(e)
        settings.cache_dir = None
        settings.reuse_parse = reuse
        settings.reuse_lowering = incremental
        settings.timeout = min(settings.timeout or LANGUAGE_SERVER_TIMEOUT, LANGUAGE_SERVER_TIMEOUT)
        return settings

    def supersede(uri: str) -> None:
        if running.get(uri) is None:
            return
        elapsed = analyzer.running_for()
        if not reuse or (elapsed is not None and elapsed >= KILL_AFTER_SECONDS):
            analyzer.cancel()
            return
        ticket = running[uri]

        def kill_if_still_running():
            if running.get(uri) == ticket and latest.get(uri) != ticket:
                analyzer.cancel()
        asyncio.get_running_loop().call_later(KILL_AFTER_SECONDS - (elapsed or 0.0), kill_if_still_running)

    async def publish(ls: LanguageServer, uri: str) -> None:
        ticket = latest[uri] = latest.get(uri, 0) + 1
        now = time.monotonic()
        quiet = running.get(uri) is None and now - last_edit.get(uri, float("-inf")) >= debounce
        last_edit[uri] = now
        supersede(uri)  # a newer buffer overtakes the analysis of an older one
        # The first edit after a quiet spell goes at once; later ones wait for the typing to
        # stop (only the clock's scheduling depends on it: every buffer's result is the same).
        await asyncio.sleep(0 if quiet else debounce)
        doc = open_document(ls, uri)
        if latest.get(uri) != ticket or doc is None:
            return
        text, version, path = doc.source, doc.version, _path(uri)
        source = text.encode("utf-8", errors="surrogateescape")
        settings = settings_for(path)
        if isinstance(settings, str):
            result = _settings_problem(path, settings)
            settings = Settings()
        elif len(source) > MAX_BUFFER_BYTES:
            result = FileResult(problems=[FileProblem(path, buffer_too_large(len(source)))])
        else:
            running[uri] = ticket
            try:
                result = await asyncio.get_running_loop().run_in_executor(
                    None, analyzer.analyze, path, source, settings)
            finally:
                if running.get(uri) == ticket:
                    running.pop(uri, None)
        if latest.get(uri) != ticket or open_document(ls, uri) is None:
            return  # overtaken by an edit, or closed meanwhile
        findings, problems = findings_for(path, text, settings, result)
        buffer = _Text(text)
        pairs = [(diagnostic(f, buffer), f) for f in findings]
        shown[uri] = pairs
        diags = [d for d, _ in pairs] + [problem_diagnostic(p, buffer) for p in problems]
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diags, version=version))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams):
        await publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams):
        await publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams):
        await publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        latest[uri] = latest.get(uri, 0) + 1  # drops a pending analysis of it
        shown.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def _at(uri: str, position: types.Position):
        for diag, finding in shown.get(uri, ()):
            r = diag.range
            if (r.start.line, r.start.character) <= (position.line, position.character) <= \
                    (r.end.line, r.end.character):
                yield diag, finding

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: types.HoverParams):
        if open_document(ls, params.text_document.uri) is None:
            return None
        parts, ranges = [], []
        for diag, finding in _at(params.text_document.uri, params.position):
            doc = doc_for(finding.code)
            if doc is None:
                continue
            parts.append(f"**{doc.code} {doc.name}** ({doc.severity})\n\n{doc.body}")
            ranges.append(diag.range)
        if not parts:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value="\n\n---\n\n".join(parts)),
                           range=ranges[0])

    def _finding_of(uri: str, diag: types.Diagnostic) -> Finding | None:
        for shown_diag, finding in shown.get(uri, ()):
            if shown_diag.code == diag.code and shown_diag.range == diag.range:
                return finding
        return None

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: LanguageServer, params: types.CodeActionParams):
        uri = params.text_document.uri
        doc = open_document(ls, uri)
        if doc is None:
            return []  # closed (or never opened): nothing to edit
        buffer = _Text(doc.source)
        lines = doc.source.splitlines()
        actions = []
        for diag in params.context.diagnostics:
            if diag.source != "syncheck" or not diag.code:
                continue
            finding = _finding_of(uri, diag)
            fix = finding.fix if finding is not None else None
            if fix is not None and fix.edits and all(
                    os.path.abspath(e.path) == os.path.abspath(_path(uri)) for e in fix.edits):
                edits = [types.TextEdit(range=types.Range(start=buffer.position(e.line, e.column),
                                                          end=buffer.position(e.end_line, e.end_column)),
                                        new_text=e.replacement) for e in fix.edits]
                actions.append(types.CodeAction(
                    title=f"Fix {diag.code}: {fix.message}" + ("" if fix.safe else " (unsafe: review it)"),
                    kind=types.CodeActionKind.QuickFix, diagnostics=[diag], is_preferred=fix.safe,
                    edit=types.WorkspaceEdit(changes={uri: edits})))
            line = diag.range.start.line
            text = lines[line] if line < len(lines) else ""
            insert = types.Position(line=line, character=len(text.encode("utf-16-le")) // 2)
            edit = types.TextEdit(range=types.Range(start=insert, end=insert),
                                  new_text=f"  // syncheck: ignore[{diag.code}] reason: ...")
            actions.append(types.CodeAction(
                title=f"Suppress {diag.code} on this line", kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                edit=types.WorkspaceEdit(changes={uri: [edit]})))
        return actions

    return server


def main(argv: list[str]) -> int:
    build_server(argv).start_io()
    return 0
