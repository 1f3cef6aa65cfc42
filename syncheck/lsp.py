"""`syncheck lsp`: a language server over stdio.

Diagnostics are published on open, change and save, from the editor's buffer (the file on
disk is not read or written). Each carries its rule code, a link to the rule's document and
the notes as related information; a quick fix inserts a suppression comment.
"""

from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from syncheck import __version__
from syncheck.engine import Settings, analyze_file, project_findings
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


def diagnostics_for(path: str, text: str, settings: Settings) -> list[types.Diagnostic]:
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


def build_server() -> LanguageServer:
    server = LanguageServer("syncheck", __version__)
    settings = Settings(cache_dir=None, timeout=60.0)

    def publish(ls: LanguageServer, uri: str) -> None:
        doc = ls.workspace.get_text_document(uri)
        diags = diagnostics_for(_path(uri), doc.source, settings)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                            version=doc.version))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams):
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams):
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams):
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: LanguageServer, params: types.CodeActionParams):
        doc = ls.workspace.get_text_document(params.text_document.uri)
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
