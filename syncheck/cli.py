"""Command line: ``syncheck PATH...`` and its options."""

from __future__ import annotations

import argparse
import os
import sys

from syncheck import __version__
from syncheck.checks.registry import ALL_CHECKS
from syncheck.engine import analyze_paths
from syncheck.include_policy import is_under, project_roots
from syncheck.rules_doc import all_docs, doc_for
from syncheck.run_settings import DEFAULT_LIMITS


def _codes(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _block_dim(value: str) -> tuple[int, int, int]:
    parts = [int(p) for p in value.replace("x", ",").split(",") if p.strip()]
    if not 1 <= len(parts) <= 3 or any(p <= 0 for p in parts):
        raise argparse.ArgumentTypeError("expected X[,Y[,Z]] with positive sizes, e.g. 256 or 16,16")
    return tuple(parts + [1] * (3 - len(parts)))  # type: ignore[return-value]


def _non_negative_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {value!r}") from None
    if not seconds >= 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0, got {value!r}")
    return seconds


def _non_negative_mib(value: str) -> int:
    try:
        mib = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of MiB, got {value!r}") from None
    if mib < 0:
        raise argparse.ArgumentTypeError(f"expected a number of MiB >= 0, got {value!r}")
    return mib


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="syncheck",
        description="Static analyzer for CUDA synchronization bugs.",
        epilog="Exit status: 0 no findings, 1 findings, 2 a file or a device function could not be "
               "analyzed (unless --allow-incomplete), or a usage error.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (.cu, .cuh)")
    p.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text")
    p.add_argument("--select", type=_codes, action="append", default=[], metavar="CODES",
                   help="only these rules (codes, prefixes such as SYN1, or names); repeatable")
    p.add_argument("--ignore", type=_codes, action="append", default=[], metavar="CODES",
                   help="skip these rules; repeatable")
    p.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    p.add_argument("--explain", metavar="CODE", help="show a rule's documentation and exit")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("--arch", default="sm_90", help="target GPU arch (default sm_90)")
    p.add_argument("--compile-commands", metavar="FILE",
                   help="compile_commands.json to take include paths and defines from")
    p.add_argument("-p", dest="build_path", metavar="DIR",
                   help="build folder holding compile_commands.json (default: the nearest one "
                        "in each file's folders upwards, or in their build/ folder)")
    p.add_argument("--block-dim", type=_block_dim, metavar="X[,Y[,Z]]",
                   help="block shape to assume for every kernel (default: blockDim.x a multiple of 32)")
    p.add_argument("--config", metavar="FILE", help="a .syncheck.toml or pyproject.toml to use "
                   "(default: the nearest one from each analyzed file's folder up)")
    p.add_argument("--isolated", action="store_true", help="ignore configuration files")
    p.add_argument("-j", "--jobs", type=int, metavar="N", help="analyze N files in parallel")
    p.add_argument("--shard", type=_shard, metavar="K/N",
                   help="analyze and report only shard K of N (1-based) of the files, in the "
                        "order of their resolved paths; the N shards' findings together are "
                        "one run's (CI jobs of one repository)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    p.add_argument("--cache-dir", metavar="DIR", help="where the cache lives (default: a folder "
                   "for this project in the user cache directory, e.g. ~/.cache/syncheck)")
    p.add_argument("--timeout", type=_non_negative_seconds, metavar="S",
                   help="stop analyzing a file after S seconds of CPU time (and after 10 times S "
                        "of wall time, for a file that waits); 0: no limit "
                        f"(default {DEFAULT_LIMITS.cpu_seconds:g})")
    p.add_argument("--memory-limit", type=_non_negative_mib, metavar="MIB",
                   help="stop analyzing a file whose worker process needs more than MIB MiB of "
                        f"address space; 0: no limit (default {DEFAULT_LIMITS.memory_mb})")
    p.add_argument("--cuda-headers", metavar="model|real|auto|PATH",
                   help="CUDA headers to parse with: syncheck's model headers (fast, no toolkit), "
                        "the real ones (pip install 'syncheck[cuda]', or a CUDA <= 12.3 toolkit), "
                        "a CUDA root PATH, or auto: the model, then the real headers for files the "
                        "model cannot parse (default auto)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="device functions that could not be analyzed (SYN002) are notes and do "
                        "not make the exit status 2")
    p.add_argument("--report-headers", action="store_true",
                   help="also report findings inside system and third-party headers (dropped by "
                        "default)")
    p.add_argument("--report-unused-suppressions", action="store_true",
                   help="report suppression comments that silence nothing (SYN001)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text output: auto (on a terminal, unless NO_COLOR), always "
                        "(also in pipes), never")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--stdin-filename", metavar="NAME",
                   help="with PATH '-': the name of the source read from stdin (configuration and "
                        "compile database are found from it)")
    p.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even with findings (2 still means something could not be analyzed)")
    p.add_argument("--fail-on", choices=("error", "warning", "note"), default="note",
                   help="the lowest severity whose findings make the exit status 1 (default note: any)")
    p.add_argument("--statistics", action="store_true", help="print the number of findings per rule")
    p.add_argument("--write-baseline", metavar="FILE",
                   help="record the current findings in FILE (keyed by rule, file and code text)")
    p.add_argument("--baseline", metavar="FILE", help="report only findings that FILE does not hold")
    p.add_argument("--prune-baseline", action="store_true",
                   help="with --baseline: rewrite FILE without the entries that no longer occur")
    p.add_argument("--fix", action="store_true", help="apply the safe fixes to the files")
    p.add_argument("--unsafe-fixes", action="store_true",
                   help="with --fix or --diff: also apply the unsafe fixes (they add or move "
                        "synchronization)")
    p.add_argument("--diff", action="store_true",
                   help="print the fixes as a unified diff instead of applying them (writes nothing)")
    p.add_argument("--version", action="version", version=f"syncheck {__version__}")
    return p


def _list_rules() -> str:
    docs = all_docs()
    rows = []
    for check in ALL_CHECKS:
        doc = docs.get(check.code)
        rows.append(f"{check.code}  {check.name:<40} {check.severity.value:<8} "
                    f"{doc.summary if doc else ''}")
    return "\n".join(rows) + "\n"


def _explain(code: str) -> tuple[str, int]:
    doc = doc_for(code)
    if doc is None:
        from syncheck.checks.registry import unknown_rule_message
        return f"syncheck: {unknown_rule_message(code)}\n", 2
    return f"{doc.code} {doc.name} ({doc.severity})\n\n{doc.body}\n", 0


def gpu_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="syncheck gpu", description=(
        "Validate the reference kernels statically, run them on the GPU with CuPy and compare "
        "with NumPy. Exit status 2 when no GPU is usable."))
    p.add_argument("--sanitize", action="store_true",
                   help="also run the buggy fixtures under compute-sanitizer (synccheck, racecheck)")
    p.add_argument("--report", metavar="FILE", help="write a Markdown report (e.g. docs/gpu-report.md)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--static-out", metavar="FILE",
                   help="only validate the reference kernels statically and write the counts as JSON "
                        "(for a GPU machine without libclang)")
    p.add_argument("--static-from", metavar="FILE",
                   help="take the static validation from a --static-out file instead of running it")
    args = p.parse_args(argv)
    from syncheck.gpu.runner import main as run_gpu
    return run_gpu(args)


class _Usage(Exception):
    """A usage error: one line on stderr, exit status 2."""


def parse_options(argv: list[str]):
    """The CLI's options (the language server takes its defaults from here too)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.select = tuple(c for group in args.select for c in group)
    args.ignore = tuple(c for group in args.ignore for c in group)
    from syncheck.checks.registry import is_known_selector, unknown_rule_message
    for flag, codes in (("--select", args.select), ("--ignore", args.ignore)):
        for code in codes:
            if not is_known_selector(code):
                raise _Usage(f"{flag}: {unknown_rule_message(code)}")
    return parser, args


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["gpu"]:
        return gpu_main(argv[1:])
    if argv[:1] == ["lsp"]:
        from syncheck.lsp import main as lsp_main
        return lsp_main(argv[1:])
    try:
        parser, args = parse_options(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    except _Usage as e:
        _complain("error", str(e))
        return 2
    out = sys.stdout
    if args.list_rules:
        out.write(_list_rules())
        return 0
    if args.explain:
        text, code = _explain(args.explain)
        (out if code == 0 else sys.stderr).write(text)
        return code
    try:
        return _analyze(parser, args, out)
    except _Usage as e:
        _complain("error", str(e))
        return 2


def _analyze(parser, args, out) -> int:
    from syncheck.compile_database import CompileDatabaseError, load_compile_database
    from syncheck.run_settings import SettingsError
    if args.prune_baseline and not args.baseline:
        raise _Usage("--prune-baseline needs --baseline FILE")
    if args.unsafe_fixes and not (args.fix or args.diff):
        raise _Usage("--unsafe-fixes needs --fix or --diff")
    sources: dict[str, bytes] = {}
    if "-" in args.paths:
        if args.fix:
            raise _Usage("--fix cannot write back to stdin: use --diff")
        name = args.stdin_filename or "stdin.cu"
        sources[name] = sys.stdin.buffer.read()
        args.paths = [name if p == "-" else p for p in args.paths]
    elif args.stdin_filename:
        raise _Usage("--stdin-filename needs PATH '-'")
    if not args.paths and args.compile_commands:
        try:
            listed = sorted(load_compile_database(args.compile_commands).entries)
        except CompileDatabaseError as e:
            raise _Usage(str(e)) from None
        # A generated database may list any path: analyze only the project's files.
        roots = project_roots([os.path.dirname(os.path.abspath(args.compile_commands))])
        args.paths = [p for p in listed if any(is_under(os.path.realpath(p), r) for r in roots)]
        for path in sorted(set(listed) - set(args.paths)):
            _complain("warning", f"{args.compile_commands} lists {path}, which is outside the "
                                 f"project; not analyzed")
    if not args.paths:
        parser.print_usage(sys.stderr)
        sys.stderr.write("syncheck: error: no PATH given\n")
        return 2
    try:
        groups, walk_problems = _groups(args, sources)
    except SettingsError as e:
        raise _Usage(str(e)) from None
    from syncheck.header_choice import check_mode
    for resolved, _ in groups:
        problem = check_mode(resolved.settings.cuda_headers)
        if problem is not None:
            raise _Usage(problem)
    report = _run(args, groups, sources)
    fix_output = None
    if args.fix or args.diff:
        fixed_report, fix_output = _fixes(args, groups, sources, report)
        if not args.diff:
            report = fixed_report  # what is left after the files were fixed
    report.problems.extend(walk_problems)
    report.sort()
    from syncheck import baseline
    lines = baseline.LineSource(sources)
    try:
        if args.write_baseline:
            n = baseline.write(args.write_baseline, report.findings, lines)
            _complain("note", f"wrote {n} finding{'s' if n != 1 else ''} to {args.write_baseline}")
        if args.baseline:
            if args.prune_baseline:
                kept, dropped = baseline.prune(args.baseline, report.findings, lines)
                _complain("note", f"{args.baseline}: kept {kept} entries, dropped {dropped}")
            report.findings, _ = baseline.split(report.findings, args.baseline, lines)
    except baseline.BaselineError as e:
        raise _Usage(str(e)) from None
    except OSError as e:
        raise _Usage(f"{e.filename}: {e.strerror}") from None
    target = out
    if args.output_file:
        try:
            target = open(args.output_file, "w", encoding="utf-8")
        except OSError as e:
            raise _Usage(f"{args.output_file}: cannot write: {e.strerror}") from None
    try:
        color = args.color == "always" or (args.color == "auto" and target.isatty()
                                           and os.environ.get("NO_COLOR") is None)
        if fix_output is not None and args.diff:
            target.write(fix_output)
        elif args.statistics:
            target.write(_statistics(report, args.format))
        else:
            _render(report, args.format, color, target, lines)
    finally:
        if target is not out:
            target.close()
    return _exit_status(report, args)


_RANK = {"info": 0, "note": 0, "warning": 1, "error": 2}


def _exit_status(report, args) -> int:
    code = report.exit_code()
    if code != 1:
        return code
    if args.exit_zero:
        return 0
    threshold = _RANK[args.fail_on]
    counted = [f for f in report.findings if f.code != "SYN002" and _RANK[f.severity.value] >= threshold]
    return 1 if counted else 0


def _render(report, fmt: str, color: bool, target, lines) -> None:
    if fmt == "json":
        from syncheck.render import json_out
        target.write(json_out.render(report))
    elif fmt == "sarif":
        from syncheck.render import sarif
        target.write(sarif.render(report, lines=lines))
    elif fmt == "github":
        from syncheck.render import github
        target.write(github.render(report))
    else:
        from syncheck.render import text
        rendered = text.render(report, color=color, sources=lines.sources)
        if color:
            from rich.console import Console
            Console(file=target, highlight=False, soft_wrap=True, force_terminal=True,
                    color_system="standard").print(rendered, end="")
        else:
            target.write(rendered)


def _statistics(report, fmt: str) -> str:
    from collections import Counter
    counts = Counter((f.code, f.rule) for f in report.findings)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt == "json":
        import json
        return json.dumps({"statistics": [{"code": c, "rule": r, "count": n} for (c, r), n in rows]},
                          indent=2) + "\n"
    return "".join(f"{n:>6}  {c}  {r}\n" for (c, r), n in rows)


def _complain(level: str, message: str) -> None:
    """One line on stderr; control characters (e.g. from a file name) are escaped, so a
    crafted name cannot start a line that a CI runner would obey."""
    from syncheck.render.text import printable
    sys.stderr.write(f"syncheck: {level}: {printable(message)}\n")


def _shard(text: str) -> tuple[int, int]:
    import argparse
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N (e.g. 1/4), got {text!r}") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"shard {text}: need 1 <= K <= N")
    return k, n


def _groups(args, sources):
    """[(Resolved settings, files)]: the files to analyze grouped by the configuration and
    compile database found for each (from the file's folder upwards)."""
    from syncheck.engine import Report, discover
    from syncheck.ignore_files import WalkFilter
    from syncheck.run_settings import resolve
    groups: dict[tuple, tuple] = {}
    order: list[tuple] = []
    walk_problems = Report()  # what the folder walks refused (FIFOs, links out, unreadable)
    for path in args.paths:
        top = resolve(args, path, args.paths)
        cfg = top.config
        walk = WalkFilter(str(cfg.root) if cfg.root else os.path.abspath(
            path if os.path.isdir(path) else os.path.dirname(path) or "."),
            tuple(cfg.exclude) + tuple(cfg.extend_exclude))
        files = discover([path], walk_problems, walk, frozenset(sources)) if os.path.isdir(path) else [path]
        for f in files:
            resolved = resolve(args, f, args.paths) if f != path else top
            key = (str(resolved.config.path), resolved.database)
            if key not in groups:
                groups[key] = (resolved, [])
                order.append(key)
            groups[key][1].append(f)
    return [groups[k] for k in order], walk_problems.problems


def _merge(reports):
    from syncheck.engine import Report
    total = Report()
    for r in reports:
        total.findings.extend(r.findings)
        total.problems.extend(r.problems)
        total.files += r.files
        c = r.coverage
        total.coverage.found += c.found
        total.coverage.analyzed += c.analyzed
        total.coverage.files_model += c.files_model
        total.coverage.files_real += c.files_real
        total.coverage.unanalyzed.extend(c.unanalyzed)
        total.allow_incomplete = total.allow_incomplete or r.allow_incomplete
    total.sort()
    return total


def _run(args, groups, sources):
    total = sum(len(files) for _, files in groups)
    show_progress = not args.no_progress and sys.stderr.isatty() and total >= 8
    if show_progress:
        from rich.console import Console
        from rich.progress import Progress
        with Progress(console=Console(file=sys.stderr), transient=True) as progress:
            task = progress.add_task("syncheck", total=total)
            return _merge([analyze_paths(files, r.settings, progress=lambda _p: progress.advance(task),
                                         sources=sources, named=args.paths) for r, files in groups])
    return _merge([analyze_paths(files, r.settings, sources=sources, named=args.paths)
                   for r, files in groups])


MAX_FIX_PASSES = 8


def _this_pass(findings, unsafe: bool):
    """The fixes to apply in one pass. A fix to a divergent barrier (SYN1xx) changes which
    accesses race: in a function that has one, only those are applied in this pass, and the
    re-analysis decides whether the others are still needed."""
    from syncheck import fixes as F
    chosen = [f for f in findings if f.fix is not None and f.fix in F.chosen_fixes([f], unsafe)]
    barrier_first = {(f.path, f.function) for f in chosen if f.code.startswith("SYN1")}
    return [f.fix for f in chosen
            if f.code.startswith("SYN1") or (f.path, f.function) not in barrier_first]


def _fixes(args, groups, sources, report):
    """Apply the chosen fixes in memory, re-analyzing until nothing more applies (a fix may
    make another finding's fix moot); write the files with --fix, or return the diff."""
    from syncheck import fixes as F
    from syncheck.engine import read_source, InputError
    originals: dict[str, bytes] = {}
    current: dict[str, bytes] = {}
    for _ in range(MAX_FIX_PASSES):
        chosen = _this_pass(report.findings, args.unsafe_fixes)
        changed = False
        by_path: dict[str, list] = {}
        for fix in chosen:
            by_path.setdefault(fix.edits[0].path, []).append(fix)
        for path, fixes in sorted(by_path.items()):
            if path not in current:
                try:
                    current[path] = sources[path] if path in sources else read_source(path)
                except InputError:
                    continue
                originals[path] = current[path]
            new, applied = F.apply_to_source(current[path], path, fixes)
            if applied and new != current[path]:
                current[path] = new
                changed = True
        if not changed:
            break
        merged = dict(sources)
        merged.update(current)
        report = _merge([analyze_paths(files, r.settings, sources=merged, named=args.paths)
                         for r, files in groups])
    diff = "".join(F.unified_diff(p, originals[p], current[p]) for p in sorted(current)
                   if current[p] != originals[p])
    if args.fix and not args.diff:
        for path in sorted(current):
            if current[path] != originals[path]:
                F.write_fixed(path, current[path])
        n = sum(1 for p in current if current[p] != originals[p])
        _complain("note", f"fixed {n} file{'s' if n != 1 else ''}")
    return report, diff
