"""The code checks run with the tests (so CI runs them, and so does anyone running the suite):
ruff's lint rules and format, and mypy on the package, as configured in pyproject.toml; and
probes that show the configuration catches what it is there for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mypy_on(tmp_path: Path, source: str, module: str = "probe") -> subprocess.CompletedProcess[str]:
    """mypy, configured by pyproject.toml, on one probe module named ``module`` (its own
    cache: cold, ~1 s)."""
    *packages, name = module.split(".")
    folder = tmp_path.joinpath(*packages)
    folder.mkdir(parents=True, exist_ok=True)
    for depth in range(len(packages)):
        tmp_path.joinpath(*packages[: depth + 1], "__init__.py").touch()
    probe = folder / f"{name}.py"
    probe.write_text(source, encoding="utf-8")
    config, cache = str(ROOT / "pyproject.toml"), str(tmp_path / "cache")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", config, "--cache-dir", cache, str(probe)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


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


def test_mypy_reports_a_type_ignore_that_silences_nothing(tmp_path: Path) -> None:
    """``warn_unused_ignores``: an ignore left behind would hide the next real error."""
    done = mypy_on(tmp_path, "x: int = 1  # type: ignore[assignment]\n")
    assert done.returncode == 1 and "[unused-ignore]" in done.stdout, done.stdout
    assert mypy_on(tmp_path, "x: int = '1'  # type: ignore[assignment]\n").returncode == 0


#: Where ``mypy --strict`` holds: the packages of the strict override in pyproject.toml.
STRICT_PACKAGES = ["acp_tui.wire", "acp_tui.protocol", "acp_tui.store", "acp_tui.session"]


def test_the_strict_packages_pass_mypy_strict(tmp_path: Path) -> None:
    """``mypy --strict`` itself (not our list of its flags) on the strict packages."""
    packages = [arg for name in STRICT_PACKAGES for arg in ("-p", name)]
    check("mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), *packages)


def test_the_strict_override_holds_in_the_strict_packages(tmp_path: Path) -> None:
    """The same probe fails in each strict package and passes outside them, so the override
    in pyproject.toml applies there (a per-module ``strict = true`` would apply everywhere)."""
    source = "def untyped(x):\n    return x\n\n\ndef loose(x: list) -> int:\n    return len(x)\n"
    for package in [*STRICT_PACKAGES, "acp_tui.ui"]:
        done = mypy_on(tmp_path, source, f"{package}.probe")
        if package in STRICT_PACKAGES:
            assert "[no-untyped-def]" in done.stdout and "[type-arg]" in done.stdout, package
        else:
            assert done.returncode == 0, done.stdout


def test_ruff_sends_every_child_through_the_reaper_safe_path() -> None:
    """acp-tui is a subreaper: a child it starts with ``subprocess`` directly could have its
    exit status collected by the reaper and read as 0 (tests/services/test_children.py)."""
    source = "import subprocess\n\nsubprocess.run(['git', 'status'], check=False)\n"
    for where, banned in (
        ("acp_tui/ui/probe.py", True),
        ("acp_tui/services/probe.py", True),
        ("acp_tui/services/children.py", False),
        ("tests/probe.py", False),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--stdin-filename", where, "-"],
            cwd=ROOT,
            input=source,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert ("TID251" in done.stdout) is banned, (where, done.stdout, done.stderr)
