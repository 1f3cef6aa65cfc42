"""From command-line options and an analyzed file to the Settings it is analyzed with.

The one code path shared by the CLI (per group of files) and the language server (per open
document), as clang-tidy and ruff do it:
- configuration: --config FILE, else the nearest .syncheck.toml / pyproject.toml
  [tool.syncheck] from the analyzed file's folder upwards (not the current folder);
- compile database: --compile-commands FILE, else `-p DIR` (its compile_commands.json), else
  the nearest compile_commands.json in the file's folders upwards or in their build/ folder.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from syncheck.cache import default_cache_dir
from syncheck.compile_database import CompileDatabaseError, load_compile_database
from syncheck.config import ConfigError, FileConfig, find_config, load_file, _build
from syncheck.engine import Settings
from syncheck.frontend.parse import ParseOptions
from syncheck.include_policy import IncludePolicy, project_roots
from syncheck.workers import Limits

DEFAULT_LIMITS = Limits()
DATABASE_NAME = "compile_commands.json"


class SettingsError(Exception):
    """A configuration or compile database that cannot be used: str() is one line."""


@dataclass(frozen=True)
class Resolved:
    settings: Settings
    config: FileConfig
    database: str | None  # the compile_commands.json used, if any


def anchor_folder(path: str) -> str:
    """Where discovery starts for ``path``: itself for a folder, else its folder."""
    full = os.path.abspath(path)
    return full if os.path.isdir(full) else os.path.dirname(full)


@functools.lru_cache(maxsize=1024)
def _config_near(folder: str) -> FileConfig:
    found = find_config(Path(folder))
    return FileConfig() if found is None else _build(*found)


def config_for(options, path: str) -> FileConfig:
    """The configuration that applies to ``path`` (a file or folder)."""
    try:
        if getattr(options, "isolated", False):
            return FileConfig()
        if getattr(options, "config", None):
            return load_file(Path(options.config))
        return _config_near(anchor_folder(path))
    except ConfigError as e:
        raise SettingsError(str(e)) from None


def database_path_for(options, path: str) -> str | None:
    explicit = getattr(options, "compile_commands", None)
    if explicit:
        return explicit
    p_dir = getattr(options, "build_path", None)
    if p_dir:
        candidate = p_dir if p_dir.endswith(".json") else os.path.join(p_dir, DATABASE_NAME)
        if not os.path.lexists(candidate):
            raise SettingsError(f"{p_dir}: no {DATABASE_NAME} there (-p)")
        return candidate
    return _database_near(anchor_folder(path))


@functools.lru_cache(maxsize=1024)
def _database_near(folder: str) -> str | None:
    current = folder
    while True:
        for candidate in (os.path.join(current, DATABASE_NAME),
                          os.path.join(current, "build", DATABASE_NAME)):
            if os.path.lexists(candidate):
                return candidate
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


@functools.lru_cache(maxsize=64)
def _load_database(path: str, stamp: tuple):
    return load_compile_database(path)


def load_database(path: str | None):
    if path is None:
        return None
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = ()
    try:
        return _load_database(path, stamp)
    except CompileDatabaseError as e:
        raise SettingsError(str(e)) from None


def forget_discoveries() -> None:
    """Look for configuration files and compile databases afresh (the language server calls
    this before each analysis: the user may have added or edited one meanwhile)."""
    _config_near.cache_clear()
    _database_near.cache_clear()


def resolve(options, path: str, project_paths: list[str] | None = None) -> Resolved:
    """The Settings for analyzing ``path`` with ``options`` (an argparse namespace of the
    CLI's parser: the language server passes its defaults)."""
    cfg = config_for(options, path)
    db_path = database_path_for(options, path)
    db = load_database(db_path)
    include = tuple(os.path.abspath(i) for i in getattr(options, "include", ()))
    arch = options.arch if options.arch != "sm_90" or not cfg.arch else cfg.arch
    root = str(cfg.root) if cfg.root else None
    settings = Settings(
        select=tuple(options.select) or cfg.select,
        ignore=tuple(options.ignore) + tuple(cfg.ignore),
        parse=ParseOptions(include_dirs=include + cfg.include,
                           defines=tuple(options.define) + cfg.defines, arch=arch),
        compile_db=db, block_dim=options.block_dim or cfg.block_dim,
        per_file_ignores=cfg.per_file_ignores,
        config_root=root,
        report_unused_suppressions=options.report_unused_suppressions or cfg.report_unused_suppressions,
        jobs=max(1, options.jobs or cfg.jobs or 1),
        cache_dir=None if options.no_cache else (options.cache_dir or default_cache_dir(
            root or os.getcwd())),
        timeout=_limit(options.timeout, cfg.timeout, DEFAULT_LIMITS.cpu_seconds),
        memory_limit_mb=_limit(options.memory_limit, cfg.memory_limit, DEFAULT_LIMITS.memory_mb),
        # Includes may come from the project, the -I folders given here and system headers;
        # never from folders that the analyzed repository's own configuration names.
        include_policy=IncludePolicy.for_run(project_roots(project_paths or [path], root), include))
    settings.cuda_headers = options.cuda_headers or cfg.cuda_headers or "auto"
    settings.allow_incomplete = options.allow_incomplete or cfg.allow_incomplete
    settings.report_headers = options.report_headers or cfg.report_headers
    settings.shard = getattr(options, "shard", None)
    return Resolved(settings, cfg, db_path)


def _limit(flag, configured, default):
    """The command line over the configuration over the default; 0 means no limit."""
    value = flag if flag is not None else configured if configured is not None else default
    return value or None
