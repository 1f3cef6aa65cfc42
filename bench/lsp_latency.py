"""Latency of the language server, measured through a real LSP client over stdio.

On a generated 1,200-line CUDA file (bench/generate.py, fixed seed) it prints, for the
servers run one after the other in this run:
- with `--before DIR`: the server of another checkout as shipped there (e.g. an export of the
  commit before a change: `git archive COMMIT | tar -x -C DIR`);
- `--no-reuse`: a fresh parse per analysis (the precompiled CUDA header where it applies),
  every body lowered;
- `--no-incremental`: the same, translation units kept and reparsed where no precompiled
  header applies;
- the server as shipped: as `--no-incremental`, and only the bodies an edit can have changed
  lowered again (syncheck/ir/reuse.py), and only the parts of the device call graph whose
  functions or outside text it changed analyzed again (syncheck/analysis_reuse.py);
these figures:
- first diagnostics: didOpen -> the first publishDiagnostics;
- body edit: didChange (one line inside a kernel's body changed, same length) -> its
  publishDiagnostics (median of N);
- line edit: a line added to that body (a statement typed on a new line), then removed
  again, in turn: the lines below move (median of N);
- top-level edit: one line outside any function changed (a macro's value, half way down the
  file: the functions below it can mean something else) (median of N);
- burst: 40 didChange messages sent 20 ms apart, each a longer number in one body -> the
  publishDiagnostics of the last one;
then the ratios of the shipped server's figures to each other server's. Each figure is wall time as
the editor sees it, debounce included, with the 1-minute load average when it was taken (the median
over the edits). The servers run side by side, idle but one: each takes its edit in turn,
round after round, so that a change of the machine's load (it may be shared) falls on all of
them alike; compare figures of one run. `--phases` adds, in this process, where
one warm re-analysis after a body edit spends its time (parse, lowering, analyses),
incremental (kept bodies and parts' results) and not, alternating. Run:
    python bench/lsp_latency.py [--lines 1200] [--edits 7] [--phases]
"""

from __future__ import annotations

import argparse
import asyncio
import os
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


class _Server:
    """One server and its document, driven by a real LSP client over stdio."""

    def __init__(self, text: str, extra: list[str], folder: Path, root: Path = ROOT):
        self.text, self.extra, self.folder, self.root = text, extra, folder, root
        self.lines = text.split("\n")
        self.body_line, self.top_line = edit_lines(self.lines)
        self.version = 1
        self.published: asyncio.Queue = asyncio.Queue()
        self.out: dict[str, float] = {}
        self.samples: dict[str, list[tuple[float, float]]] = {"edit": [], "lines": [], "top": []}

    async def start(self) -> None:
        self.client = client = LanguageClient("syncheck-bench", "1")

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params):
            self.published.put_nowait((time.perf_counter(), params))

        env = dict(os.environ, PYTHONPATH=str(self.root))
        await client.start_io(sys.executable, "-m", "syncheck", "lsp", *self.extra,
                              cwd=str(self.root), env=env)
        await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=self.folder.as_uri()))
        client.initialized(types.InitializedParams())
        path = self.folder / "bench.cu"
        path.write_text(self.text)  # as in an editor, the document exists on disk (libclang
        # keeps a precompiled preamble only for a main file that exists); the server reads the buffer
        self.uri = path.as_uri()

    async def _until(self, version: int) -> tuple[float, types.PublishDiagnosticsParams]:
        while True:
            at, params = await asyncio.wait_for(self.published.get(), 300)
            if params.version == version:
                return at, params

    async def open(self) -> None:
        start = time.perf_counter()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=self.uri, language_id="cuda",
                                                 version=self.version, text=self.text)))
        at, first = await self._until(self.version)
        self.out.update(first=at - start, findings=len(first.diagnostics), first_load=os.getloadavg()[0])

    def _change(self, n: int, line: int, old: str) -> None:
        self.version += 1
        edited = list(self.lines)
        edited[line] = edited[line].replace(old, old.replace("0", str(n), 1))
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n".join(edited))]))

    def _change_lines(self, n: int) -> None:
        """A statement added on a new line after the body line (odd n), or the text as it was."""
        self.version += 1
        edited = list(self.lines)
        if n % 2:
            edited.insert(self.body_line + 1, edited[self.body_line].replace("float acc = 0.0f;", "acc += 1.0f;"))
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n".join(edited))]))

    async def edit(self, name: str, n: int) -> None:
        """One edit (the body line, a line added or removed, or the top-level line), timed to
        its diagnostics."""
        line, old = (self.body_line, "0.0f") if name == "edit" else (self.top_line, " 10")
        start = time.perf_counter()
        if name == "lines":
            self._change_lines(n)
        else:
            self._change(n, line, old)
        at, _ = await self._until(self.version)
        self.samples[name].append((at - start, os.getloadavg()[0]))

    async def burst(self) -> None:
        start = time.perf_counter()
        for n in range(40):
            self._change(100 + n, self.body_line, "0.0f")
            await asyncio.sleep(0.02)
        sent = time.perf_counter()
        at, _ = await self._until(self.version)
        self.out.update(burst=at - sent, burst_load=os.getloadavg()[0], burst_from_first=at - start)

    async def stop(self) -> None:
        for name, samples in self.samples.items():
            self.out[name] = statistics.median(t for t, _ in samples)
            self.out[name + "_load"] = statistics.median(load for _, load in samples)
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def _measure_all(text: str, servers: list[tuple[str, list[Path], list[str]]],
                       edits: int, folder: Path) -> dict[str, dict[str, float]]:
    """Every server started and opened; then, round after round, each server takes one edit
    in turn (so that a change of the machine's load falls on all of them alike)."""
    running = {}
    for i, (label, root, extra) in enumerate(servers):
        sub = folder / str(i)
        sub.mkdir()
        running[label] = _Server(text, extra, sub, *root)
        await running[label].start()
    for server in running.values():
        await server.open()
    for name in ("edit", "lines", "top"):
        # lines: an even count, so that the last one removes the line again
        for n in range(edits + edits % 2 if name == "lines" else edits):
            for server in running.values():
                await server.edit(name, n + 1)
    for server in running.values():
        await server.burst()
    for server in running.values():
        await server.stop()
    return {label: server.out for label, server in running.items()}


def edit_lines(lines: list[str]) -> tuple[int, int]:
    """The line edited inside a body (the first kernel's accumulator: an edit near the top
    of the file, the most that follows it) and the top-level line (a tile-size macro half
    way down, 10 in the benchmark's text: the edits write 11..19)."""
    body = next(i for i, line in enumerate(lines) if "float acc = 0.0f;" in line)
    macros = [i for i, line in enumerate(lines) if line.startswith("#define TILE_")]
    return body, macros[len(macros) // 2]


def benchmark_text(lines: int) -> str:
    text = generate(lines, seed=13).split("\n")
    _, top = edit_lines(text)
    text[top] = text[top].replace(" 16", " 10")
    return "\n".join(text)


def _phases(text: str, edits: int) -> None:
    """One warm re-analysis after a body edit, in this process: time per phase, incremental
    lowering and not, alternating (same process, same kept translation unit)."""
    sys.path.insert(0, str(ROOT))
    from syncheck import header_choice
    from syncheck.engine import Settings, analyze_file
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.cu")
        Path(path).write_text(text)
        lines = text.split("\n")
        body, _ = edit_lines(lines)
        spent: dict[str, float] = {}

        def timed(name, fn):
            def run(*a, **k):
                t = time.perf_counter()
                try:
                    return fn(*a, **k)
                finally:
                    spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
            return run
        header_choice._parse = timed("parse", header_choice._parse)
        header_choice.build_program = timed("lowering", header_choice.build_program)
        rows: dict[bool, list[dict[str, float]]] = {True: [], False: []}
        for n in range(2 * edits + 2):
            incremental = n % 2 == 0
            settings = Settings(isolate=False, cache_dir=None)
            settings.reuse_parse, settings.reuse_lowering = True, incremental
            edited = list(lines)
            edited[body] = edited[body].replace("0.0f", f"{n % 10}.0f")
            spent.clear()
            start = time.perf_counter()
            analyze_file(path, settings, "\n".join(edited).encode())
            total = time.perf_counter() - start
            if n >= 2:  # the first of each: the translation unit and bodies are not kept yet
                rows[incremental].append({"total": total, "parse": spent["parse"],
                                          "lowering": spent["lowering"],
                                          "analyses": total - spent["parse"] - spent["lowering"]})
        print(f"in this process, one body edit (median of {edits}; load {os.getloadavg()[0]:.2f}):")
        for incremental in (False, True):
            r = rows[incremental]
            parts = "  ".join(f"{k} {statistics.median(x[k] for x in r) * 1000:.0f} ms"
                              for k in ("total", "parse", "lowering", "analyses"))
            print(f"  {'incremental' if incremental else 'every body lowered':<22} {parts}")
        inc = statistics.median(x["total"] for x in rows[True])
        full = statistics.median(x["total"] for x in rows[False])
        print(f"  incremental / every body lowered = {inc / full:.2f}")
        print("  (incremental: kept bodies and parts' results; 'lowering' is the program's build,")
        print("  'analyses' everything after it)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=1200)
    p.add_argument("--edits", type=int, default=7)
    p.add_argument("--phases", action="store_true", help="also time one re-analysis's phases in this process")
    p.add_argument("--before", metavar="DIR", help="also run the server of another checkout "
                   "(e.g. an export of the commit before a change), first")
    args = p.parse_args()
    text = benchmark_text(args.lines)
    print(f"file: {len(text.splitlines())} lines (bench/generate.py, seed 13)")
    print(f"{'server':<40} {'first diagnostics':>19} {'body edit':>17} {'line edit':>17} "
          f"{'top-level edit':>17} {'after 40 edits':>17}   (ms, [1-min load average])")
    results = {}
    servers = [("fresh parse (--no-reuse)", [], ["--no-reuse"]),
               ("every body lowered (--no-incremental)", [], ["--no-incremental"]),
               ("incremental (as shipped)", [], [])]
    if args.before:
        servers.insert(0, (f"before: {Path(args.before).name} as shipped", [Path(args.before)], []))
    with tempfile.TemporaryDirectory() as tmp:
        results = asyncio.run(_measure_all(text, servers, args.edits, Path(tmp)))
    for label, _, _ in servers:
        r = results[label]
        cells = [f"{r[k] * 1000:>8.0f} [{r[k + '_load']:.2f}]" for k in ("first", "edit", "lines", "top", "burst")]
        print(f"{label:<40} {cells[0]:>19} {cells[1]:>17} {cells[2]:>17} {cells[3]:>17} {cells[4]:>17}   "
              f"({r['findings']} diagnostics)")
    shipped = results["incremental (as shipped)"]
    for label, _, _ in servers[:-1]:
        other = results[label]
        print(f"as shipped / {label}: " + ", ".join(
            f"{name} {shipped[k] / other[k]:.2f}" for name, k in
            (("first", "first"), ("body edit", "edit"), ("line edit", "lines"), ("top-level edit", "top"),
             ("burst", "burst"))))
    if args.phases:
        _phases(text, args.edits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
