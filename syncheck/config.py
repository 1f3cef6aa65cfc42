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
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

KEYS = {"select", "ignore", "per-file-ignores", "include", "defines", "block-dim", "arch",
        "report-unused-suppressions", "jobs", "exclude"}


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
    exclude: tuple[str, ...] = ()


def find_config(start: Path) -> tuple[Path, dict] | None:
    start = start.resolve()
    for folder in [start, *start.parents]:
        dot = folder / ".syncheck.toml"
        if dot.is_file():
            return dot, _read(dot)
        py = folder / "pyproject.toml"
        if py.is_file():
            data = _read(py).get("tool", {}).get("syncheck")
            if data is not None:
                return py, data
    return None


def _read(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: {e}") from None


def load(start: Path) -> FileConfig:
    """The configuration that applies from ``start``: the nearest file found upwards."""
    found = find_config(start)
    return FileConfig() if found is None else _build(*found)


def load_file(path: Path) -> FileConfig:
    """A configuration file named explicitly (--config)."""
    data = _read(path)
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("syncheck", {})
    return _build(path, data)


def _build(path: Path, data: dict) -> FileConfig:
    unknown = set(data) - KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown syncheck setting(s): {', '.join(sorted(unknown))}")
    root = path.parent

    def strings(key):
        value = data.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: '{key}' must be a list of strings")
        return tuple(value)

    block = data.get("block-dim")
    if block is not None:
        if isinstance(block, int):
            block = [block]
        if not isinstance(block, list) or not 1 <= len(block) <= 3 or \
                not all(isinstance(b, int) and b > 0 for b in block):
            raise ConfigError(f"{path}: 'block-dim' must be 1 to 3 positive integers")
        block = tuple(block + [1] * (3 - len(block)))
    pfi = data.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: 'per-file-ignores' must be a table of glob = [codes]")
    return FileConfig(
        root=root, path=path, select=strings("select"), ignore=strings("ignore"),
        per_file_ignores={k: tuple(v) for k, v in pfi.items()},
        include=tuple(str((root / p).resolve()) for p in strings("include")),
        defines=strings("defines"), block_dim=block, arch=data.get("arch"),
        report_unused_suppressions=bool(data.get("report-unused-suppressions", False)),
        jobs=data.get("jobs"), exclude=strings("exclude"))
