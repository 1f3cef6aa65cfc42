"""`syncheck lsp`: a language server over stdio.

Diagnostics are published on open, change and save, from the editor's buffer (the file on
disk is not read or written). Each carries its rule code, a link to the rule's document and
the notes as related information; a quick fix inserts a suppression comment.

The server keeps answering while a buffer is analyzed: edits are debounced, the analysis
runs in a worker process under the per-file time and memory limits (a libclang crash costs
that analysis, not the server), an analysis overtaken by a newer edit is cancelled, and a
buffer larger than MAX_BUFFER_BYTES gets one diagnostic instead of an analysis. Only
documents the editor has open are used: a request for another URI never reads the disk.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from syncheck import __version__
from syncheck.diagnostics import FileProblem
from syncheck.engine import Settings, analyze_file, analyze_in_worker, project_findings
from syncheck.results import FileResult
from syncheck.workers import WorkerPool
from syncheck.rules_doc import doc_for

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "info": types.DiagnosticSeverity.Information}


def _path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def _range(line: int, col: int, end_line: int, end_col: int) -> types.Range:
    start = types.Position(line=max(line - 1, 0), character=max(col - 1, 0))
    end = types.Position(line=max(end_line - 1, 0), character=max(end_col - 1, col))
    return types.Range(start=start, end=end)


MAX_BUFFER_BYTES = 2 * 1024 * 1024
DEBOUNCE_SECONDS = 0.3


def buffer_too_large(size: int) -> str:
    return (f"buffer is too large to analyze ({size / 1e6:.1f} MB; the limit of the language "
            f"server is {MAX_BUFFER_BYTES // (1024 * 1024)} MiB); run syncheck on the file instead")


def diagnostics_for(path: str, text: str, settings: Settings,
                    result: FileResult | None = None) -> list[types.Diagnostic]:
    if result is None:
        result = analyze_file(path, settings, text.encode("utf-8"))
    findings = result.findings + project_findings([result.facts], settings)
    from syncheck import suppressions
    findings, _ = suppressions.apply(findings, text.splitlines())
    out = []
    for f in findings:
        if os.path.abspath(f.path) != os.path.abspath(path):
            continue
        doc = doc_for(f.code)
        related = [types.DiagnosticRelatedInformation(
            location=types.Location(uri=f"file://{os.path.abspath(n.path)}",
                                    range=_range(n.line, n.column, n.line, n.column + 1)),
            message=n.message) for n in f.notes]
        out.append(types.Diagnostic(
            range=_range(f.line, f.column, f.end_line, f.end_column), message=f.message,
            severity=_SEVERITY[f.severity.value], code=f.code, source="syncheck",
            code_description=types.CodeDescription(href=doc.url) if doc else None,
            related_information=related or None, data={"rule": f.rule}))
    for p in result.problems:
        out.append(types.Diagnostic(
            range=_range(p.line or 1, p.column or 1, p.line or 1, (p.column or 1) + 1),
            message=p.message, source="syncheck",
            severity=types.DiagnosticSeverity.Error if p.kind == "error" else types.DiagnosticSeverity.Information))
    return out


class _BufferAnalyzer:
    """One worker process, reused from edit to edit; one analysis at a time."""

    def __init__(self, settings: Settings):
        self.settings = settings
        # A server thread is blocked reading stdin: forking from this process could copy
        # its held locks into the worker, so workers come from a fork server.
        self.pool = WorkerPool(1, functools.partial(analyze_in_worker, settings=settings),
                               settings.limits(), start_method="forkserver")
        self.lock = threading.Lock()

    def analyze(self, path: str, source: bytes) -> FileResult:
        with self.lock:
            for _, result, _ in self.pool.run([(path, source)]):
                return result
        return FileResult(problems=[FileProblem(path, "analysis did not run")])

    def cancel(self) -> None:
        """Stop the analysis now running (its result is stale)."""
        self.pool.cancel()

    def close(self) -> None:
        self.pool.__exit__(None, None, None)


def build_server() -> LanguageServer:
    server = LanguageServer("syncheck", __version__)
    settings = Settings(cache_dir=None, timeout=60.0)
    analyzer = _BufferAnalyzer(settings)
    latest: dict[str, int] = {}  # uri -> number of the newest request
    running: dict[str, int] = {}  # uri -> request being analyzed

    def open_document(ls: LanguageServer, uri: str):
        """The editor's buffer, or None when the document is not open (never the disk)."""
        return ls.workspace.text_documents.get(unquote(uri)) or ls.workspace.text_documents.get(uri)

    async def publish(ls: LanguageServer, uri: str) -> None:
        ticket = latest[uri] = latest.get(uri, 0) + 1
        if running.get(uri) is not None:
            analyzer.cancel()  # a newer buffer overtakes the analysis of an older one
        await asyncio.sleep(DEBOUNCE_SECONDS)
        doc = open_document(ls, uri)
        if latest.get(uri) != ticket or doc is None:
            return
        text, version, path = doc.source, doc.version, _path(uri)
        source = text.encode("utf-8", errors="surrogateescape")
        if len(source) > MAX_BUFFER_BYTES:
            result = FileResult(problems=[FileProblem(path, buffer_too_large(len(source)))])
        else:
            running[uri] = ticket
            try:
                result = await asyncio.get_running_loop().run_in_executor(
                    None, analyzer.analyze, path, source)
            finally:
                if running.get(uri) == ticket:
                    running.pop(uri, None)
        if latest.get(uri) != ticket or open_document(ls, uri) is None:
            return  # overtaken by an edit, or closed meanwhile
        diags = diagnostics_for(path, text, settings, result)
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
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: LanguageServer, params: types.CodeActionParams):
        doc = open_document(ls, params.text_document.uri)
        if doc is None:
            return []  # closed (or never opened): nothing to edit
        lines = doc.source.splitlines()
        actions = []
        for diag in params.context.diagnostics:
            if diag.source != "syncheck" or not diag.code:
                continue
            line = diag.range.start.line
            text = lines[line] if line < len(lines) else ""
            insert = types.Position(line=line, character=len(text))
            edit = types.TextEdit(range=types.Range(start=insert, end=insert),
                                  new_text=f"  // syncheck: ignore[{diag.code}]")
            actions.append(types.CodeAction(
                title=f"Suppress {diag.code} on this line", kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                edit=types.WorkspaceEdit(changes={params.text_document.uri: [edit]})))
        return actions

    return server


def main(argv: list[str]) -> int:
    build_server().start_io()
    return 0
