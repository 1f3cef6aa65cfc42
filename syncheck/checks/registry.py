"""The one place that registers rules. Each entry has a doc in rules/<CODE>.md."""

from __future__ import annotations

from syncheck.checks.base import Check
from syncheck.checks.syn101_divergent_barrier import DivergentBarrier
from syncheck.checks.syn102_divergent_grid_sync import DivergentGridSync
from syncheck.checks.syn103_divergent_tile_sync import DivergentTileSync

ALL_CHECKS: tuple[type[Check], ...] = (
    DivergentBarrier,
    DivergentGridSync,
    DivergentTileSync,
)

BY_CODE: dict[str, type[Check]] = {c.code: c for c in ALL_CHECKS}
BY_NAME: dict[str, type[Check]] = {c.name: c for c in ALL_CHECKS}
