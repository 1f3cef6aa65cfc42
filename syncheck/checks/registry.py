"""The one place that registers rules. Each entry has a doc in rules/<CODE>.md."""

from __future__ import annotations

from syncheck.checks.base import Check
from syncheck.checks.syn001_unused_suppression import UnusedSuppression
from syncheck.checks.syn002_unanalyzed_function import UnanalyzedFunction
from syncheck.checks.syn101_divergent_barrier import DivergentBarrier
from syncheck.checks.syn102_divergent_grid_sync import DivergentGridSync
from syncheck.checks.syn103_divergent_tile_sync import DivergentTileSync
from syncheck.checks.syn201_full_mask_divergent import FullMaskInDivergentCode
from syncheck.checks.syn202_mask_mismatch import MaskMismatch
from syncheck.checks.syn203_legacy_warp_intrinsic import LegacyWarpIntrinsic
from syncheck.checks.syn204_bad_shuffle_width import BadShuffleWidth
from syncheck.checks.syn205_reduce_sync_type import ReduceSyncType
from syncheck.checks.syn206_activemask_as_mask import ActivemaskAsMask
from syncheck.checks.syn301_grid_sync_without_cooperative_launch import GridSyncWithoutCooperativeLaunch
from syncheck.checks.syn302_cooperative_grid_too_large import CooperativeGridTooLarge
from syncheck.checks.syn303_unchecked_cooperative_launch import UncheckedCooperativeLaunch
from syncheck.checks.syn401_shared_memory_race import SharedMemoryRace
from syncheck.checks.syn402_implicit_warp_synchronous import ImplicitWarpSynchronous
from syncheck.checks.syn501_partial_warpgroup_collective import PartialWarpgroupCollective
from syncheck.checks.syn502_async_result_before_wait import AsyncResultBeforeWait
from syncheck.checks.syn503_missing_proxy_fence import MissingProxyFence
from syncheck.checks.syn504_mbarrier_protocol import MbarrierProtocol
from syncheck.checks.syn505_named_barrier_mismatch import NamedBarrierMismatch
from syncheck.checks.syn506_pdl_read_before_wait import PdlReadBeforeWait
from syncheck.checks.syn507_cluster_exit_without_barrier import ClusterExitWithoutBarrier

ALL_CHECKS: tuple[type[Check], ...] = (
    UnusedSuppression,
    UnanalyzedFunction,
    DivergentBarrier,
    DivergentGridSync,
    DivergentTileSync,
    FullMaskInDivergentCode,
    MaskMismatch,
    LegacyWarpIntrinsic,
    BadShuffleWidth,
    ReduceSyncType,
    ActivemaskAsMask,
    GridSyncWithoutCooperativeLaunch,
    CooperativeGridTooLarge,
    UncheckedCooperativeLaunch,
    SharedMemoryRace,
    ImplicitWarpSynchronous,
    PartialWarpgroupCollective,
    AsyncResultBeforeWait,
    MissingProxyFence,
    MbarrierProtocol,
    NamedBarrierMismatch,
    PdlReadBeforeWait,
    ClusterExitWithoutBarrier,
)

BY_CODE: dict[str, type[Check]] = {c.code: c for c in ALL_CHECKS}
BY_NAME: dict[str, type[Check]] = {c.name: c for c in ALL_CHECKS}


def is_known_selector(token: str) -> bool:
    """A --select/--ignore/config entry: ALL, a code, a code prefix (SYN1) or a rule name."""
    t = token.strip()
    if t.upper() == "ALL" or t.lower() in BY_NAME:
        return True
    return len(t) >= 3 and any(code.startswith(t.upper()) for code in BY_CODE)


def rule_code(token: str) -> str | None:
    """The code of a rule named by its code or its name (suppression comments)."""
    t = token.strip()
    if t.upper() in BY_CODE:
        return t.upper()
    check = BY_NAME.get(t.lower())
    return check.code if check else None


# Rules folded into another, by code and name: naming one says where its findings went.
MERGED_RULES = {
    "SYN104": ("SYN101", "a barrier that threads skip by leaving the kernel is a SYN101 warning "
                         "since 2026-12-07"),
}
MERGED_NAMES = {"barrier-after-exit": "SYN104"}


def unknown_rule_message(token: str, what: str = "rule") -> str:
    """'unknown rule 'SYN9'; did you mean 'SYN101'?' (difflib over codes and names)."""
    import difflib
    merged = MERGED_NAMES.get(token.strip().lower(), token.strip().upper())
    if merged in MERGED_RULES:
        into, why = MERGED_RULES[merged]
        return f"rule '{token}' was merged into {into}: {why}; name {into} instead"
    candidates = list(BY_CODE) + list(BY_NAME)
    close = difflib.get_close_matches(token.strip(), candidates, n=1, cutoff=0.5) or \
        difflib.get_close_matches(token.strip().upper(), list(BY_CODE), n=1, cutoff=0.5)
    hint = f"; did you mean '{close[0]}'?" if close else " (see --list-rules)"
    return f"unknown {what} '{token}'{hint}"
