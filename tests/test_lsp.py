"""The language server, driven by a real LSP client over stdio."""

from __future__ import annotations

import asyncio
import sys

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from tests.conftest import ROOT  # noqa: E402

BUGGY = """__global__ void k(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = 1.0f;
        __syncthreads();
    }
}
"""
FIXED = BUGGY.replace("    if (i < n) {\n        a[i] = 1.0f;\n        __syncthreads();\n    }\n",
                      "    if (i < n) a[i] = 1.0f;\n    __syncthreads();\n")


async def _session(tmp_path):
    client = LanguageClient("syncheck-test", "1")
    published: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams):
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "syncheck", "lsp", cwd=str(ROOT))
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri()))
    client.initialized(types.InitializedParams())
    path = tmp_path / "kernel.cu"
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="cuda", version=1, text=BUGGY)))
    first = await asyncio.wait_for(published.get(), 60)
    diag = first.diagnostics[0]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=FIXED)]))
    second = await asyncio.wait_for(published.get(), 60)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return path, first, actions, second


def test_lsp_publishes_diagnostics_and_offers_a_suppression(tmp_path):
    path, first, actions, second = asyncio.run(_session(tmp_path))
    assert not path.exists()  # the buffer is analyzed; nothing is written to disk
    (diag,) = first.diagnostics
    assert diag.code == "SYN101" and diag.source == "syncheck"
    assert diag.range.start.line == 4 and diag.range.start.character == 8
    assert diag.severity == types.DiagnosticSeverity.Error
    assert diag.code_description.href.endswith("/SYN101")
    assert diag.related_information and "thread-dependent" in diag.related_information[0].message
    (action,) = actions
    edit = action.edit.changes[path.as_uri()][0]
    assert edit.new_text.strip() == "// syncheck: ignore[SYN101]"
    assert edit.range.start.line == 4
    assert list(second.diagnostics) == []  # the fix in the buffer clears it
