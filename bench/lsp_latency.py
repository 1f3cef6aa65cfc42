"""Latency of the language server, measured through a real LSP client over stdio.

On a generated 1,200-line CUDA file (bench/generate.py, fixed seed) it prints, for the server
as shipped (translation units kept and reparsed with a precompiled preamble) and with
`--no-reuse` (a fresh parse per analysis, the behaviour before):
- first diagnostics: didOpen -> the first publishDiagnostics;
- one-line edit: didChange (one line changed) -> its publishDiagnostics (median of N);
- burst: 40 didChange messages sent 20 ms apart -> the publishDiagnostics of the last one.

Each figure is wall time as the editor sees it, debounce included. Run:
    python bench/lsp_latency.py [--lines 1200] [--edits 7]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


async def _measure(text: str, extra: list[str], edits: int, folder: Path) -> dict[str, float]:
    client = LanguageClient("syncheck-bench", "1")
    published: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params):
        published.put_nowait((time.perf_counter(), params))

    await client.start_io(sys.executable, "-m", "syncheck", "lsp", *extra, cwd=str(ROOT))
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=folder.as_uri()))
    client.initialized(types.InitializedParams())
    path = folder / "bench.cu"
    path.write_text(text)  # as in an editor, the document exists on disk (libclang keeps a
    # precompiled preamble only for a main file that exists); the server reads the buffer
    uri = path.as_uri()
    version = 1

    async def until(version_wanted: int) -> tuple[float, types.PublishDiagnosticsParams]:
        while True:
            at, params = await asyncio.wait_for(published.get(), 300)
            if params.version == version_wanted:
                return at, params

    start = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="cuda", version=version, text=text)))
    at, first = await until(version)
    out = {"first": at - start, "findings": len(first.diagnostics)}
    lines = text.split("\n")
    target = next(i for i, line in enumerate(lines) if "float acc = 0.0f;" in line)

    def change(n: int) -> None:
        nonlocal version
        version += 1
        edited = list(lines)
        edited[target] = edited[target].replace("0.0f", f"{n}.0f")
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n".join(edited))]))

    one = []
    for n in range(edits):
        start = time.perf_counter()
        change(n + 1)
        at, _ = await until(version)
        one.append(at - start)
    out["edit"] = statistics.median(one)
    start = time.perf_counter()
    for n in range(40):
        change(100 + n)
        await asyncio.sleep(0.02)
    sent = time.perf_counter()
    at, _ = await until(version)
    out["burst"] = at - sent
    out["burst_from_first"] = at - start
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=1200)
    p.add_argument("--edits", type=int, default=7)
    args = p.parse_args()
    text = generate(args.lines, seed=13)
    print(f"file: {len(text.splitlines())} lines (bench/generate.py, seed 13)")
    print(f"{'server':<28} {'first diagnostics':>18} {'one-line edit':>14} {'after 40 edits':>15}")
    results = {}
    for label, extra in (("before (--no-reuse)", ["--no-reuse"]), ("after (reparse, preamble)", [])):
        with tempfile.TemporaryDirectory() as tmp:
            r = asyncio.run(_measure(text, extra, args.edits, Path(tmp)))
        results[label] = r
        print(f"{label:<28} {r['first'] * 1000:>15.0f} ms {r['edit'] * 1000:>11.0f} ms "
              f"{r['burst'] * 1000:>12.0f} ms   ({r['findings']} diagnostics)")
    before, after = results["before (--no-reuse)"], results["after (reparse, preamble)"]
    print(f"one-line edit: after/before = {after['edit'] / before['edit']:.2f}; "
          f"burst: after/before = {after['burst'] / before['burst']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
