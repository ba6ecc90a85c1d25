"""What every black-box run of acp-tui needs, whatever drives its terminal: the installed app,
a home of its own, and an environment that does not lie about the terminal. The benchmarks
(:mod:`bench.blackbox.drive`, a pty) and the journey tests (``tests/journeys/terminal.py``,
tmux) both use it; it needs nothing of ``tests/``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

#: The folders of an isolated home (besides any the caller adds).
HOME_DIRS = ("config/acp-tui", "data", "state", "cache")


def installed_acp_tui() -> str:
    """The ``acp-tui`` console script installed beside this interpreter (as the README's
    ``pip install`` makes it), else the one on PATH."""
    beside = Path(sys.executable).parent / "acp-tui"
    if beside.exists():
        return str(beside)
    found = shutil.which("acp-tui")
    if found is None:
        raise RuntimeError("acp-tui is not installed in this environment (pip install -e .)")
    return found


def prepare_home(home: Path, *more: str) -> Path:
    """Make the folders of an isolated home under ``home`` (and ``more`` of them)."""
    for name in (*HOME_DIRS, *more):
        (home / name).mkdir(parents=True, exist_ok=True)
    return home


def isolated_env(home: Path) -> dict[str, str]:
    """The app's config, data, state and cache all under ``home``, never the real user's; a
    256-colour UTF-8 terminal."""
    return {
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "ACP_TUI_CONFIG": str(home / "config" / "acp-tui" / "config.toml"),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }


def honest_environment() -> dict[str, str]:
    """This process's environment, less what would lie to the program about its terminal: a
    run can have ``COLUMNS=80 LINES=24`` set (Textual reads them before asking the terminal,
    which made a 120x40 journey draw at 80x24 in the top-left corner), an outer tmux's
    ``TMUX``, or Textual's own settings of the test run."""
    return {
        name: value
        for name, value in os.environ.items()
        if name not in ("COLUMNS", "LINES", "TMUX", "TMUX_PANE") and not name.startswith("TEXTUAL")
    }
