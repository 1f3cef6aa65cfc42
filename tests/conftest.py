import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args, cwd=None):
    """Run syncheck as a user would, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "syncheck", *map(str, args)], cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def cli():
    return run_cli
