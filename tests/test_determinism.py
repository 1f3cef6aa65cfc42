"""Results do not depend on machine load or on -j: no wall-clock limit decides a finding."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_HOG = "import time\nend = time.process_time() + 600\nwhile time.process_time() < end: pass\n"


def _run(jobs: int) -> bytes:
    cmd = [sys.executable, "-m", "syncheck", "--no-cache", "--format", "json", "-j", str(jobs),
           "fixtures/"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, env={**os.environ, "NO_COLOR": "1"}).stdout


def test_json_output_is_identical_across_runs_and_jobs_under_load():
    hogs = [subprocess.Popen([sys.executable, "-c", _HOG]) for _ in range(2)]
    try:
        outputs = [_run(jobs) for jobs in (1, 2) for _ in range(5)]
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert outputs[0].startswith(b"{") and b'"findings"' in outputs[0]
    assert all(out == outputs[0] for out in outputs), "output changed between runs"
