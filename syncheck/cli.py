"""Command line: ``syncheck PATH...`` and its options."""

from __future__ import annotations

import argparse
import os
import sys

from syncheck import __version__
from syncheck.checks.registry import ALL_CHECKS
from syncheck.engine import Settings, analyze_paths
from syncheck.cache import default_cache_dir
from syncheck.frontend.parse import ParseOptions
from syncheck.include_policy import IncludePolicy, is_under, project_roots
from syncheck.rules_doc import all_docs, doc_for
from syncheck.workers import Limits

DEFAULT_LIMITS = Limits()


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
    p.add_argument("--select", type=_codes, default=(), metavar="CODES",
                   help="only these rules (codes, prefixes such as SYN1, or names)")
    p.add_argument("--ignore", type=_codes, default=(), metavar="CODES", help="skip these rules")
    p.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    p.add_argument("--explain", metavar="CODE", help="show a rule's documentation and exit")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("--arch", default="sm_90", help="target GPU arch (default sm_90)")
    p.add_argument("--compile-commands", metavar="FILE",
                   help="compile_commands.json to take include paths and defines from")
    p.add_argument("--block-dim", type=_block_dim, metavar="X[,Y[,Z]]",
                   help="block shape to assume for every kernel (default: blockDim.x a multiple of 32)")
    p.add_argument("--config", metavar="FILE", help="a .syncheck.toml or pyproject.toml to use "
                   "(default: the nearest one from the current directory up)")
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
                   help="stop analyzing a file after S seconds of wall time; 0: no limit "
                        f"(default {DEFAULT_LIMITS.wall_seconds:g})")
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
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
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
        return f"syncheck: unknown rule '{code}' (see --list-rules)\n", 2
    return f"{doc.code} {doc.name} ({doc.severity})\n\n{doc.body}\n", 0


def gpu_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="syncheck gpu", description=(
        "Validate the reference kernels statically, run them on the GPU with CuPy and compare "
        "with NumPy. Exit status 2 when no GPU is usable."))
    p.add_argument("--sanitize", action="store_true",
                   help="also run the buggy fixtures under compute-sanitizer (synccheck, racecheck)")
    p.add_argument("--report", metavar="FILE", help="write a Markdown report (e.g. docs/gpu-report.md)")
    p.add_argument("--seed", type=int, default=2026)
    args = p.parse_args(argv)
    from syncheck.gpu.runner import main as run_gpu
    return run_gpu(args)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["gpu"]:
        return gpu_main(argv[1:])
    if argv[:1] == ["lsp"]:
        from syncheck.lsp import main as lsp_main
        return lsp_main(argv[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    out = sys.stdout
    if args.list_rules:
        out.write(_list_rules())
        return 0
    if args.explain:
        text, code = _explain(args.explain)
        (out if code == 0 else sys.stderr).write(text)
        return code
    from syncheck.compile_database import CompileDatabaseError, load_compile_database
    if not args.paths and args.compile_commands:
        try:
            listed = sorted(load_compile_database(args.compile_commands).entries)
        except CompileDatabaseError as e:
            _complain("error", f"{e}")
            return 2
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
    db = None
    try:
        if args.compile_commands:
            db = load_compile_database(args.compile_commands)
        else:
            for path in args.paths:
                candidate = os.path.join(path if os.path.isdir(path) else os.path.dirname(path) or ".",
                                         "compile_commands.json")
                if os.path.lexists(candidate):
                    db = load_compile_database(candidate)
                    break
    except CompileDatabaseError as e:
        _complain("error", f"{e}")
        return 2
    from pathlib import Path

    from syncheck.config import ConfigError, FileConfig, load, load_file
    try:
        cfg = FileConfig() if args.isolated else (
            load_file(Path(args.config)) if args.config else load(Path.cwd()))
    except ConfigError as e:
        _complain("error", f"{e}")
        return 2
    settings = Settings(
        select=args.select or cfg.select, ignore=tuple(args.ignore) + tuple(cfg.ignore),
        parse=ParseOptions(include_dirs=tuple(os.path.abspath(i) for i in args.include) + cfg.include,
                           defines=tuple(args.define) + cfg.defines,
                           arch=args.arch if args.arch != "sm_90" or not cfg.arch else cfg.arch),
        compile_db=db, block_dim=args.block_dim or cfg.block_dim,
        per_file_ignores=cfg.per_file_ignores,
        config_root=str(cfg.root) if cfg.root else None,
        report_unused_suppressions=args.report_unused_suppressions or cfg.report_unused_suppressions,
        jobs=max(1, args.jobs or cfg.jobs or 1),
        cache_dir=None if args.no_cache else (args.cache_dir or default_cache_dir(
            str(cfg.root) if cfg.root else os.getcwd())),
        timeout=_limit(args.timeout, cfg.timeout, DEFAULT_LIMITS.wall_seconds),
        memory_limit_mb=_limit(args.memory_limit, cfg.memory_limit, DEFAULT_LIMITS.memory_mb),
        # Includes may come from the project, the -I folders given here and system headers;
        # never from folders that the analyzed repository's own configuration names.
        include_policy=IncludePolicy.for_run(
            project_roots(args.paths, str(cfg.root) if cfg.root else None),
            tuple(os.path.abspath(i) for i in args.include)))
    settings.cuda_headers = args.cuda_headers or cfg.cuda_headers or "auto"
    settings.shard = args.shard
    settings.allow_incomplete = args.allow_incomplete or cfg.allow_incomplete
    settings.report_headers = args.report_headers or cfg.report_headers
    from syncheck.header_choice import check_mode
    problem = check_mode(settings.cuda_headers)
    if problem is not None:
        _complain("error", f"{problem}")
        return 2
    color = args.color == "always" or (args.color == "auto" and out.isatty()
                                       and os.environ.get("NO_COLOR") is None)
    report = _run(args, settings)
    if args.format == "json":
        from syncheck.render import json_out
        out.write(json_out.render(report))
    elif args.format == "sarif":
        from syncheck.render import sarif
        out.write(sarif.render(report))
    elif args.format == "github":
        from syncheck.render import github
        out.write(github.render(report))
    else:
        from syncheck.render import text
        rendered = text.render(report, color=color)
        if color:
            from rich.console import Console
            Console(file=out, highlight=False, soft_wrap=True).print(rendered, end="")
        else:
            out.write(rendered)
    return report.exit_code()


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


def _limit(flag, configured, default):
    """The command line over the configuration over the default; 0 means no limit."""
    value = flag if flag is not None else configured if configured is not None else default
    return value or None


def _run(args, settings: Settings):
    from syncheck.engine import Report, discover
    show_progress = not args.no_progress and sys.stderr.isatty()
    if show_progress:
        probe = discover(args.paths, Report())
        if settings.shard is not None:
            from syncheck.engine import shard_files
            probe = shard_files(probe, settings.shard)
        if len(probe) >= 8:
            from rich.progress import Progress
            with Progress(transient=True) as progress:
                task = progress.add_task("syncheck", total=len(probe))
                return analyze_paths(args.paths, settings,
                                     progress=lambda _p: progress.advance(task))
    return analyze_paths(args.paths, settings)
