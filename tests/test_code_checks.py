"""The code checks run with the tests (so CI runs them, and so does anyone running the suite):
ruff's lint rules and format, and mypy on the package, as configured in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def check(*argv: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(argv)}:\n{done.stdout}\n{done.stderr}"


def test_ruff_finds_nothing() -> None:
    check("ruff", "check", ".")


def test_ruff_format_changes_nothing() -> None:
    check("ruff", "format", "--check", ".")


def test_mypy_finds_nothing() -> None:
    # Files and options come from [tool.mypy] in pyproject.toml.
    check("mypy")
