"""--shard K/N: the shards' findings together are one run's (project rules joined across shards)."""

from __future__ import annotations

import json

from syncheck.diagnostics import Report
from syncheck.engine import discover, shard_files
from tests.conftest import ROOT, run_cli


def _findings(stdout: str) -> set[str]:
    return {json.dumps(f, sort_keys=True) for f in json.loads(stdout)["findings"]}


def test_shards_partition_the_files_deterministically():
    files = discover([str(ROOT / "fixtures")], Report())
    shards = [shard_files(files, (k, 3)) for k in (1, 2, 3)]
    assert sorted(p for s in shards for p in s) == sorted(files)  # each file in exactly one
    assert all(shards)
    # the split depends on the files, not on the order they were found in
    assert [set(s) for s in shards] == [set(shard_files(files[::-1], (k, 3))) for k in (1, 2, 3)]


def test_union_of_shards_is_one_run_on_fixtures(tmp_path):
    cache = tmp_path / "cache"
    common = ["--format", "json", "--cache-dir", cache, "--no-progress", "-j", "2"]
    whole = run_cli("fixtures", *common)
    assert whole.returncode == 2, whole.stderr  # fixtures/SYN002 holds unanalyzable kernels
    union: set[str] = set()
    for k in (1, 2, 3):
        part = run_cli("fixtures", "--shard", f"{k}/3", *common)
        assert part.returncode in (0, 1, 2), part.stderr
        union |= _findings(part.stdout)
    assert union == _findings(whole.stdout)


def test_launch_in_another_shard_is_joined(tmp_path):
    """A kernel reaching grid.sync() in one file, launched without a cooperative launch in
    another: the shard holding the launch reports it, whichever shard holds the kernel."""
    folder = ROOT / "fixtures" / "SYN301" / "multi_file_bad"
    whole = run_cli(folder, "--format", "json", "--no-cache")
    want = _findings(whole.stdout)
    assert any('"SYN301"' in f for f in want)
    for n in (2, 3):
        union: set[str] = set()
        for k in range(1, n + 1):
            part = run_cli(folder, "--format", "json", "--no-cache", "--shard", f"{k}/{n}")
            union |= _findings(part.stdout)
        assert union == want


def test_bad_shard_is_a_usage_error():
    r = run_cli("fixtures/SYN101", "--shard", "4/3")
    assert r.returncode == 2 and "1 <= K <= N" in r.stderr
