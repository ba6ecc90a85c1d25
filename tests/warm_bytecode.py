"""Before the xdist workers start, compile the tests once, shared out over the cores.

A fresh clone (CI's every run) has no bytecode: every worker imports every test module,
rewrites its asserts and compiles it, and compiles the package's source beside it, all at the
same time: 7 CPU s a worker, some 40 CPU s for the six workers of two cores, at the start of
every CI run. Here the controller, before it starts the workers, has the stale modules
collected once (``pytest --collect-only``, one process a core, each with its share), which
writes the bytecode the workers then read (pytest's rewritten modules and Python's own).
With the bytecode already there (a second run) it does nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Fewer stale test modules than this are compiled by the workers, as before: not worth a wait.
AT_LEAST = 10


def has_bytecode(source: Path) -> bool:
    """Whether a compiled copy of ``source`` (Python's or pytest's rewritten one) is as new."""
    cache = source.parent / "__pycache__"
    prefix = f"{source.stem}.{sys.implementation.cache_tag}"
    try:
        modified = source.stat().st_mtime
        return any(
            compiled.name.startswith(prefix) and compiled.stat().st_mtime >= modified
            for compiled in cache.iterdir()
        )
    except FileNotFoundError:
        return False


def stale_test_modules(root: Path = ROOT) -> list[Path]:
    return [
        path
        for path in sorted((root / "tests").rglob("test_*.py"))
        if "__pycache__" not in path.parts and not has_bytecode(path)
    ]


def shares(paths: list[Path], count: int) -> list[list[Path]]:
    """``paths`` in ``count`` shares of about equal size in bytes, largest first."""
    dealt: list[list[Path]] = [[] for _ in range(count)]
    sizes = [0] * count
    for path in sorted(paths, key=lambda path: path.stat().st_size, reverse=True):
        smallest = sizes.index(min(sizes))
        dealt[smallest].append(path)
        sizes[smallest] += path.stat().st_size
    return [share for share in dealt if share]


def cores() -> int:
    """The cores this process may use (on Linux, its affinity), as ``-n auto`` counts them
    (tests/conftest.py)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def warm(config: pytest.Config, root: Path = ROOT) -> None:
    """In the xdist controller only (called from tests/conftest.py's pytest_configure)."""
    workers = getattr(config.option, "numprocesses", None)
    if getattr(config, "workerinput", None) is not None or not isinstance(workers, int):
        return
    if workers < 2 or sys.dont_write_bytecode:
        return
    stale = stale_test_modules(root)
    if len(stale) < AT_LEAST:
        return
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n0", "-p", "no:cacheprovider"]
    running = [
        subprocess.Popen(
            [*argv, *map(str, share)],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for share in shares(stale, cores())
    ]
    # A collection error is the real run's to report, where it names the module.
    for process in running:
        process.wait()
