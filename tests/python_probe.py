"""Run a few lines of Python in a fresh interpreter (this one's), for what one test process
cannot show: which modules a start loads, what a module does when first imported."""

from __future__ import annotations

import subprocess
import sys


def run_python(code: str, *args: str, timeout: float = 90) -> str:
    """Run ``code`` with ``args`` as its ``sys.argv[1:]``; it must succeed. Returns the last
    line it printed."""
    completed = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip().splitlines()[-1]
