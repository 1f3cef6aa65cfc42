"""Configuration from `.syncheck.toml` or `[tool.syncheck]` in pyproject.toml.

Looked up from the current directory upwards; the first file found wins (a .syncheck.toml
before a pyproject.toml in the same folder). Command-line flags override it.

    [tool.syncheck]
    select = ["SYN1", "SYN2"]
    ignore = ["SYN303"]
    per-file-ignores = { "legacy/*.cu" = ["SYN203"] }
    include = ["include", "third_party/cub"]
    defines = ["USE_FAST_PATH=1"]
    block-dim = [256, 1, 1]
    arch = "sm_90"
    report-unused-suppressions = true
    jobs = 4
    timeout = 120          # CPU seconds per file, at most 3600
    memory-limit = 2048    # MiB of address space per worker process, 256 to 65536

The limits protect the machine from the analyzed code, and this file may come with that code:
it can set them only within bounds; turning them off (0) is for the command line.
    cuda-headers = "auto"  # model | real | auto | a CUDA root path (relative to this file)
    allow-incomplete = false  # unanalyzed device functions (SYN002) do not make exit status 2
    report-headers = false    # also report findings inside system/third-party headers

Every value is checked: a malformed file is one error line naming the file and the key.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from syncheck.safe_io import read_regular_file

MAX_CONFIG_BYTES = 1024 * 1024
# Bounds of the limits a configuration file may set (see the module's docstring).
MAX_TIMEOUT = 3600
MIN_MEMORY_MIB, MAX_MEMORY_MIB = 256, 65536

KEYS = {"select", "ignore", "per-file-ignores", "include", "defines", "block-dim", "arch",
        "report-unused-suppressions", "jobs", "exclude", "extend-exclude", "timeout", "memory-limit",
        "cuda-headers", "allow-incomplete", "report-headers"}


class ConfigError(Exception):
    pass


@dataclass
class FileConfig:
    root: Path | None = None
    path: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    include: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    block_dim: tuple[int, int, int] | None = None
    arch: str | None = None
    report_unused_suppressions: bool = False
    jobs: int | None = None
    exclude: tuple[str, ...] = ()      # globs (relative to this file's folder) folder walks skip
    extend_exclude: tuple[str, ...] = ()
    timeout: float | None = None       # None: not set here
    memory_limit: int | None = None    # None: not set here
    cuda_headers: str | None = None    # None: not set here
    allow_incomplete: bool = False
    report_headers: bool = False


def find_config(start: Path) -> tuple[Path, dict] | None:
    start = start.resolve()
    for folder in [start, *start.parents]:
        dot = folder / ".syncheck.toml"
        if dot.is_file():
            return dot, _read(dot)
        py = folder / "pyproject.toml"
        if py.is_file():
            data = _tool_table(py, _read(py))
            if data is not None:
                return py, data
    return None


def _read(path: Path) -> dict:
    try:
        data = read_regular_file(str(path), MAX_CONFIG_BYTES)
    except OSError as e:
        raise ConfigError(f"{path}: {e}") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not valid UTF-8 (byte 0x{data[e.start]:02x} at offset "
                          f"{e.start})") from None
    except tomllib.TOMLDecodeError as e:
        text = _one_line(str(e))
        m = re.search(r"\s*\(at line (\d+), column (\d+)\)", text)
        if m:
            raise ConfigError(f"{path}:{m.group(1)}:{m.group(2)}: invalid TOML: "
                              f"{text[:m.start()] + text[m.end():]}") from None
        m = re.search(r"\s*\(at end of document\)", text)
        if m:
            line = data.decode("utf-8").count("\n") + 1
            raise ConfigError(f"{path}:{line}: invalid TOML: {text[:m.start()]} (at end of document)") from None
        raise ConfigError(f"{path}: invalid TOML: {text}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def load(start: Path) -> FileConfig:
    """The configuration that applies from ``start``: the nearest file found upwards."""
    found = find_config(start)
    return FileConfig() if found is None else _build(*found)


def load_file(path: Path) -> FileConfig:
    """A configuration file named explicitly (--config)."""
    data = _read(path)
    if path.name == "pyproject.toml":
        data = _tool_table(path, data) or {}
    return _build(path, data)


def _tool_table(path: Path, data: dict) -> dict | None:
    """[tool.syncheck] of a pyproject.toml, or None when it has none."""
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        return None
    table = tool.get("syncheck")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.syncheck] must be a table")
    return table


def _build(path: Path, data: dict) -> FileConfig:
    unknown = set(data) - KEYS
    if unknown:
        first = sorted(unknown)[0]
        import difflib
        close = difflib.get_close_matches(first, sorted(KEYS), n=1)
        raise _fail(path, first, f"unknown syncheck setting(s): "
                                 f"{', '.join(_shown(k) if not k.isprintable() else k for k in sorted(unknown))}"
                                 + (f"; did you mean '{close[0]}'?" if close and len(unknown) == 1 else ""))
    root = path.parent

    def strings(key):
        value = data.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _fail(path, key, f"'{key}' must be a list of strings")
        return tuple(value)

    from syncheck.checks.registry import is_known_selector, unknown_rule_message
    for key in ("select", "ignore"):
        for entry in strings(key):
            if not is_known_selector(entry):
                raise _fail(path, key, f"'{key}': {unknown_rule_message(entry)}")
    block = data.get("block-dim")
    if block is not None:
        if type(block) is int:
            block = [block]
        if not isinstance(block, list) or not 1 <= len(block) <= 3 or \
                not all(type(b) is int and b > 0 for b in block):
            raise _fail(path, "block-dim", "'block-dim' must be 1 to 3 positive integers")
        block = tuple(block + [1] * (3 - len(block)))
    pfi = data.get("per-file-ignores", {})
    if not isinstance(pfi, dict) or not all(
            isinstance(v, list) and all(isinstance(c, str) for c in v) for v in pfi.values()):
        raise _fail(path, "per-file-ignores", "'per-file-ignores' must be a table of glob = [codes]")
    for glob, codes in pfi.items():
        for entry in codes:
            if not is_known_selector(entry):
                raise _fail(path, glob, f"'per-file-ignores': {unknown_rule_message(entry)}")
    arch = data.get("arch")
    if arch is not None and (not isinstance(arch, str) or not arch.strip()):
        raise _fail(path, "arch", "'arch' must be a string such as \"sm_90\"")
    report_unused = data.get("report-unused-suppressions", False)
    if not isinstance(report_unused, bool):
        raise _fail(path, "report-unused-suppressions", "'report-unused-suppressions' must be true or false")
    jobs = data.get("jobs")
    if jobs is not None and (type(jobs) is not int or jobs < 1):
        raise _fail(path, "jobs", f"'jobs' must be a positive integer, not {_shown(jobs)}")
    timeout = data.get("timeout")
    if timeout is not None and (type(timeout) not in (int, float) or not 0 < timeout <= MAX_TIMEOUT):
        raise _fail(path, "timeout", f"'timeout' must be a number of seconds above 0 and at most "
                          f"{MAX_TIMEOUT} (0, no limit, only on the command line), not {_shown(timeout)}")
    memory = data.get("memory-limit")
    if memory is not None and (type(memory) is not int or not MIN_MEMORY_MIB <= memory <= MAX_MEMORY_MIB):
        raise _fail(path, "memory-limit", f"'memory-limit' must be a whole number of MiB from {MIN_MEMORY_MIB} "
                          f"to {MAX_MEMORY_MIB} (0, no limit, only on the command line), "
                          f"not {_shown(memory)}")
    cuda_headers = data.get("cuda-headers")
    if cuda_headers is not None:
        if not isinstance(cuda_headers, str) or not cuda_headers.strip():
            raise _fail(path, "cuda-headers", f"'cuda-headers' must be \"model\", \"real\", \"auto\" or a "
                              f"CUDA root path, not {_shown(cuda_headers)}")
        if cuda_headers not in ("model", "real", "auto"):
            cuda_headers = str((root / cuda_headers).resolve())
    flags = {}
    for key in ("allow-incomplete", "report-headers"):
        flags[key] = data.get(key, False)
        if not isinstance(flags[key], bool):
            raise _fail(path, key, f"'{key}' must be true or false")
    try:
        include = tuple(str((root / p).resolve()) for p in strings("include"))
    except (OSError, RuntimeError, ValueError) as e:
        raise _fail(path, "include", f"'include': {e}") from None
    return FileConfig(
        root=root, path=path, select=strings("select"), ignore=strings("ignore"),
        per_file_ignores={k: tuple(v) for k, v in pfi.items()},
        include=include,
        defines=strings("defines"), block_dim=block, arch=arch,
        report_unused_suppressions=report_unused,
        jobs=jobs, exclude=strings("exclude"), extend_exclude=strings("extend-exclude"), timeout=None if timeout is None else float(timeout),
        memory_limit=memory, cuda_headers=cuda_headers,
        allow_incomplete=flags["allow-incomplete"], report_headers=flags["report-headers"])


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."



def _fail(path: Path, key: str, message: str) -> ConfigError:
    """One line: '<file>:<line>: <message>', the line being where ``key`` is set."""
    line = key_line(path, key)
    return ConfigError(f"{path}:{line}: {message}" if line else f"{path}: {message}")


def key_line(path: Path, key: str) -> int | None:
    """The line that sets ``key`` (in [tool.syncheck] for a pyproject.toml), or None."""
    try:
        text = read_regular_file(str(path), MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    in_table = path.name != "pyproject.toml"
    pattern = re.compile(r'^\s*(?:["\']?)' + re.escape(key) + r'(?:["\']?)\s*=')
    inline = re.compile(r'[{,]\s*(?:["\']?)' + re.escape(key) + r'(?:["\']?)\s*=')
    for i, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = path.name != "pyproject.toml" or stripped.replace(" ", "") in (
                "[tool.syncheck]",) or stripped.replace(" ", "").startswith("[tool.syncheck.")
            continue
        if in_table and (pattern.search(line) or inline.search(line)):
            return i
    return None
