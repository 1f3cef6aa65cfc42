"""The `syncheck` command's entry point, kept free of imports: it may run the interpreter
again before anything is loaded."""

from __future__ import annotations

import os
import sys


def fix_hash_seed() -> None:
    """Run again with PYTHONHASHSEED=0 unless it is set so. The order of sets of names can
    change the order in which solver queries are built, and near the solver's budget that
    decides a verdict: with the interpreter's random seed, two runs on one file could differ.
    Workers are forked from this process and share its seed."""
    if os.environ.get("PYTHONHASHSEED") == "0":
        return
    os.environ["PYTHONHASHSEED"] = "0"
    try:
        os.execv(sys.executable, [sys.executable, "-m", "syncheck", *sys.argv[1:]])
    except OSError:
        pass  # no interpreter to run again (an embedded one): go on with this one


def entry() -> int:
    """`syncheck ...`: the command line, in an interpreter whose string hashing is fixed."""
    fix_hash_seed()
    from syncheck.cli import main
    return main()
