"""Per-user folders syncheck writes to (never inside the analyzed tree)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def user_cache_root() -> Path:
    """$XDG_CACHE_HOME/syncheck (or the platform's equivalent)."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "syncheck"
