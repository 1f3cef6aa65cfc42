import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args, cwd=None):
    """Run syncheck as a user would, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "syncheck", *map(str, args)], cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(autouse=True, scope="session")
def _private_user_cache(tmp_path_factory):
    """The CLI's default cache lives in the user cache directory: keep tests out of $HOME."""
    import os
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("user-cache"))
    yield
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous


@pytest.fixture
def cli():
    return run_cli
