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
    if (i < n) a[i] *= 2.0f;   // the threads past n are still running here
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
    fix, suppress = actions
    assert fix.title.startswith("Fix SYN101: move __syncthreads()") and "unsafe" in fix.title
    assert not fix.is_preferred  # unsafe fixes are offered, never preferred
    edit = suppress.edit.changes[path.as_uri()][0]
    assert edit.new_text.strip() == "// syncheck: ignore[SYN101] reason: ..."
    assert edit.range.start.line == 4
    assert list(second.diagnostics) == []  # the fix in the buffer clears it


# -- the same settings as the CLI, hover, fixes, coverage, superseded analyses ------------

NEEDS_INCLUDE = """#include "defs.h"
__global__ void k(float* a, int n) {
    if (GUARD(threadIdx.x)) __syncthreads();
    a[threadIdx.x] = 0.0f;
}
"""
LEGACY = """__global__ void k(float* a) {
    float v = a[threadIdx.x];
    v += __shfl_down(v, 1);
    a[threadIdx.x] = v;
}
"""


async def _client(root):
    client = LanguageClient("syncheck-test", "1")
    published: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams):
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "syncheck", "lsp", cwd=str(ROOT))
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=root.as_uri()))
    client.initialized(types.InitializedParams())
    return client, published


async def _close(client):
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def _open(client, path, text, version=1):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="cuda",
                                             version=version, text=text)))


async def _for(published, path, version=None):
    while True:
        params = await asyncio.wait_for(published.get(), 120)
        if params.uri == path.as_uri() and (version is None or params.version == version):
            return params


def test_lsp_uses_each_documents_configuration_and_compile_database(tmp_path):
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    (quiet / ".syncheck.toml").write_text('ignore = ["divergent-barrier"]\n')
    loud = tmp_path / "loud"
    (loud / "inc").mkdir(parents=True)
    (loud / "inc" / "defs.h").write_text("#define GUARD(x) ((x) < 5)\n")
    nodb = tmp_path / "nodb"
    nodb.mkdir()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / ".syncheck.toml").write_text('select = ["SYN9"]\n')

    async def session():
        client, published = await _client(tmp_path)
        try:
            out = {}
            _open(client, quiet / "k.cu", BUGGY)
            out["quiet"] = await _for(published, quiet / "k.cu")
            (loud / "build").mkdir()
            (loud / "build" / "compile_commands.json").write_text(
                '[{"directory": "%s", "file": "k.cu", "arguments": ["nvcc", "-Iinc", "-c", "k.cu"]}]' % loud)
            _open(client, loud / "k.cu", NEEDS_INCLUDE)
            out["loud"] = await _for(published, loud / "k.cu")
            _open(client, nodb / "k.cu", NEEDS_INCLUDE)
            out["nodb"] = await _for(published, nodb / "k.cu")
            _open(client, bad / "k.cu", BUGGY)
            out["bad"] = await _for(published, bad / "k.cu")
            # the configuration fixed while the document is open: the next edit uses it
            (bad / ".syncheck.toml").write_text('select = ["SYN2"]\n')
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=(bad / "k.cu").as_uri(), version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=BUGGY + "\n")]))
            out["fixed config"] = await _for(published, bad / "k.cu", 2)
            return out
        finally:
            await _close(client)

    out = asyncio.run(session())
    assert list(out["quiet"].diagnostics) == []  # the config beside the document applies
    assert [d.code for d in out["loud"].diagnostics] == ["SYN101"]  # build/compile_commands.json
    # without the include path: the coverage diagnostic of the skipped kernel
    (skipped,) = [d for d in out["nodb"].diagnostics if d.code == "SYN002"]
    assert skipped.range.start.line == 1 and skipped.severity == types.DiagnosticSeverity.Error
    (config_error,) = out["bad"].diagnostics
    assert ".syncheck.toml:1:" in config_error.message and "unknown rule 'SYN9'" in config_error.message
    assert list(out["fixed config"].diagnostics) == []  # SYN2 only: the barrier is not reported


def test_lsp_hover_shows_the_rule_document_and_fix_actions_edit_the_buffer(tmp_path):
    path = tmp_path / "legacy.cu"

    async def session():
        client, published = await _client(tmp_path)
        try:
            _open(client, path, LEGACY)
            first = await _for(published, path)
            (diag,) = first.diagnostics
            hover = await client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                position=types.Position(line=2, character=12)))
            nothing = await client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                position=types.Position(line=0, character=0)))
            actions = await client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()), range=diag.range,
                context=types.CodeActionContext(diagnostics=[diag])))
            return diag, hover, nothing, actions
        finally:
            await _close(client)

    diag, hover, nothing, actions = asyncio.run(session())
    assert diag.code == "SYN203"
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith("**SYN203 legacy-warp-intrinsic** (error)")
    assert "## Fix-it" in hover.contents.value
    assert nothing is None
    fix, suppress = actions
    assert fix.is_preferred and fix.title.startswith("Fix SYN203: replace __shfl_down(...)")
    lines = LEGACY.split("\n")
    for edit in sorted(fix.edit.changes[path.as_uri()], key=lambda e: e.range.start.character, reverse=True):
        line = lines[edit.range.start.line]
        lines[edit.range.start.line] = line[:edit.range.start.character] + edit.new_text + \
            line[edit.range.end.character:]
    assert lines[2] == "    v += __shfl_down_sync(0xffffffff, v, 1);"
    assert suppress.edit.changes[path.as_uri()][0].new_text == "  // syncheck: ignore[SYN203] reason: ..."
    assert not path.exists()  # the server wrote nothing


def test_lsp_analyzes_only_the_newest_of_a_burst_of_edits(tmp_path):
    path = tmp_path / "k.cu"

    async def session():
        client, published = await _client(tmp_path)
        try:
            _open(client, path, FIXED)
            await _for(published, path, 1)
            for version in range(2, 22):  # 20 edits sent at once, the last one buggy
                client.text_document_did_change(types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(
                        text=BUGGY if version == 21 else FIXED + f"// edit {version}\n")]))
            between = []
            while True:
                params = await asyncio.wait_for(published.get(), 120)
                if params.version == 21:
                    last = params
                    break
                between.append(params.version)
            await asyncio.sleep(1.0)
            seen = []
            while not published.empty():
                seen.append(published.get_nowait().version)
            return last, between, seen
        finally:
            await _close(client)

    last, between, later = asyncio.run(session())
    assert [d.code for d in last.diagnostics] == ["SYN101"]
    assert len(between) <= 2, between  # debounced: superseded versions are not analyzed
    assert later == []  # nothing stale arrives after the newest version's diagnostics
