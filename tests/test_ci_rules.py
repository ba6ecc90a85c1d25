"""The rules the test run itself follows (tests/conftest.py): in CI a skipped test fails the
run (an expected failure does not), ``ACP_TUI_TEST_CPU_LOAD`` really loads the machine, and a
test of a Textual patch's effect fails where that patch is off unless deselected.

Each rule is checked on a small suite of its own, run by a real pytest in a temporary folder
with this project's hooks."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.cpu_load import CpuLoad

ROOT = Path(__file__).resolve().parent.parent

CONFTEST = """
from tests.conftest import (
    pytest_collectreport,
    pytest_configure,
    pytest_runtest_makereport,
    pytest_runtest_setup,
    pytest_unconfigure,
)
"""

MIXED_SUITE = """
import pytest

def test_passes():
    pass

def test_is_skipped():
    pytest.skip("needs something not installed")

@pytest.mark.xfail(reason="a known defect", strict=True)
def test_is_a_known_defect():
    assert False
"""

SKIPPED_MODULE = """
import pytest

pytest.importorskip("no_such_module_anywhere")

def test_never_collected():
    pass
"""

COUNTS_BUSY_CHILDREN = """
import os
from pathlib import Path

def busy_children():
    found = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"os.getppid() == parent" in cmdline:
            found += 1
    return found

def test_two_busy_processes_run_beside_the_tests():
    assert busy_children() == 2
"""


PATCH_EFFECT_SUITE = """
import pytest

def test_works_either_way():
    pass

@pytest.mark.textual_patch("compositor")
def test_needs_the_compositor_patch():
    pass
"""


def run_suite(
    tmp_path: Path, files: dict[str, str], *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    for name, text in {"conftest.py": CONFTEST, **files}.items():
        (tmp_path / name).write_text(text)
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CI", "ACP_TUI_TEST_NO_SKIPS", "ACP_TUI_TEST_CPU_LOAD", "ACP_TUI_PATCHES")
        and not key.startswith("PYTEST_")
    }
    # Only pytest's own plugins: loading every installed one costs seconds per run.
    environment.update(env, PYTHONPATH=str(ROOT), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    return subprocess.run(
        # Its own temporary folder: not this run's /tmp/pytest-of-USER, whose oldest folders
        # a run there deletes as it ends (see tests/test_slow_first.py).
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--basetemp",
            str(tmp_path / "basetemp"),
            *args,
            ".",
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_outside_ci_a_skip_is_a_skip(tmp_path: Path) -> None:
    done = run_suite(tmp_path, {"test_mixed.py": MIXED_SUITE})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 skipped, 1 xfailed" in done.stdout


def test_in_ci_a_skip_fails_the_run_and_an_xfail_does_not(tmp_path: Path) -> None:
    done = run_suite(tmp_path, {"test_mixed.py": MIXED_SUITE}, CI="true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed, 1 xfailed" in done.stdout
    assert "skipped where every test must run (CI)" in done.stdout
    assert "needs something not installed" in done.stdout


def test_in_ci_a_module_skipped_at_import_fails_the_run(tmp_path: Path) -> None:
    done = run_suite(tmp_path, {"test_skipped_module.py": SKIPPED_MODULE}, CI="true")
    assert done.returncode != 0, done.stdout + done.stderr
    assert "skipped where every test must run (CI)" in done.stdout
    assert "no_such_module_anywhere" in done.stdout


def test_ci_false_does_not_count_as_ci(tmp_path: Path) -> None:
    done = run_suite(tmp_path, {"test_mixed.py": MIXED_SUITE}, CI="false")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_load_variable_runs_busy_processes_beside_the_tests(tmp_path: Path) -> None:
    done = run_suite(tmp_path, {"test_busy.py": COUNTS_BUSY_CHILDREN}, ACP_TUI_TEST_CPU_LOAD="2")
    assert done.returncode == 0, done.stdout + done.stderr


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_cpu_load_keeps_the_cores_busy_and_leaves_nothing_behind() -> None:
    with CpuLoad(2) as load:
        assert len(load.processes) == 2
        # Each process burns CPU: wait until each has used a quarter of a second of it.
        deadline = time.monotonic() + 60  # a hang guard
        while not all(cpu_seconds(p.pid) >= 0.25 for p in load.processes):
            assert all(p.poll() is None for p in load.processes), "a busy process exited"
            assert time.monotonic() < deadline, "the busy processes do not use the CPU"
            time.sleep(0.05)
        processes = list(load.processes)
    assert all(p.returncode is not None for p in processes)


def test_a_patch_effect_test_runs_where_its_patch_is_on(tmp_path: Path) -> None:
    done = run_suite(tmp_path, {"test_patch.py": PATCH_EFFECT_SUITE}, CI="true")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_a_patch_effect_test_fails_where_its_patch_is_off(tmp_path: Path) -> None:
    """Never a skip: the run with patches off leaves such tests out by name (-m), or fails."""
    for off in ("none", "-compositor"):
        done = run_suite(
            tmp_path, {"test_patch.py": PATCH_EFFECT_SUITE}, CI="true", ACP_TUI_PATCHES=off
        )
        assert done.returncode == 1, done.stdout + done.stderr
        assert "1 passed" in done.stdout and "1 error" in done.stdout
        assert "tests the Textual patch 'compositor', which is off" in done.stdout


def test_the_run_with_patches_off_deselects_the_patch_effect_tests(tmp_path: Path) -> None:
    done = run_suite(
        tmp_path,
        {"test_patch.py": PATCH_EFFECT_SUITE},
        "-m",
        "not textual_patch",
        CI="true",
        ACP_TUI_PATCHES="none",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "1 deselected" in done.stdout


def test_ci_runs_the_suite_again_with_every_patch_off() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert 'ACP_TUI_PATCHES=none .venv/bin/python -m pytest -q -m "not textual_patch"' in script
