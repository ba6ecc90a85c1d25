"""Shared test set-up.

- Every test process gets its own config, data, state and log dirs, so nothing a test does
  touches (or depends on) the real user's files, nor another xdist worker's.
- ``ACP_TUI_TEST_CPU_LOAD=N`` runs the session beside N busy processes (tests/cpu_load.py):
  the suite must pass on a loaded machine.
- In CI (``CI`` set, as CI runners do) a skipped test is a failure: every test must really run
  there (.ci/run installs what they need). An expected failure (xfail) is not a skip.
- Store state is written only by the store (tests/store_guard.py): a test during which acp_tui
  wrote a session's or an entry's attribute from outside ``acp_tui.store`` fails.
- Hypothesis: no per-example deadline and no "too slow" health check; both measure the
  machine's speed, not the code.
- Under xdist the longest tests start first, spread over the workers (tests/slow_first.py).
- Compiled bytecode is cached even where PYTHONDONTWRITEBYTECODE is set (below), and a fresh
  clone's is written once before the xdist workers start, not by each (tests/warm_bytecode.py).
- Snapshots are taken with text cursors shown steadily, never mid-blink
  (tests/steady_snapshots.py).
- Each stylesheet is parsed once per test process, not once per app (tests/css_cache.py).
- A test of a Textual patch's own effect is marked ``textual_patch("name")``: it fails (never
  skips) in a run where that patch is off (``ACP_TUI_PATCHES``); such a run deselects those
  tests with ``-m "not textual_patch"`` (.ci/run's second run, every patch off).
- The heap stays small: Python's collector scans all of it, so its cost grows with it (a
  quarter of a Pilot test's CPU). What is there after collection is frozen (never scanned
  again), and Textual's style cache, which keeps up to 1,024 widgets' drawn lines alive
  after their apps are gone, is emptied after each test (the heap grew by ~15,000 objects a
  Pilot test; now it stays flat). The youngest generation is collected every 20,000
  allocations, not 700, so the older ones are too: an app's start allocates hundreds of
  thousands of objects that live as long as the test, and a full pass, which walks every one
  of them, came every ~70,000 allocations (5-7 % of a Pilot file's CPU; a worker's peak
  memory 93 -> 115 MB).
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
from collections.abc import Generator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from acp_tui.ui.textual_patches import ENV as PATCHES_ENV
from acp_tui.ui.textual_patches import from_environment as patches_from_environment
from tests import css_cache, store_guard, warm_bytecode
from tests.cpu_load import CpuLoad, requested_load
from tests.slow_first import (  # noqa: F401  (hooks: pytest finds them by name here)
    pytest_collection_modifyitems,
    pytest_runtest_logreport,
    pytest_sessionfinish,
)

# Compiled bytecode is cached, as Python does by default, even where PYTHONDONTWRITEBYTECODE
# is set (it is on the development machine): a run starts ~700 Python processes, and without
# the cache each one compiled acp_tui from source (0.15 CPU s an `acp-tui` start) and each xdist
# worker rewrote and compiled every test module again (~6 CPU s a worker). Done here, in the
# first module pytest imports, so the workers and every agent and `acp-tui` they start inherit
# it. The files go where Python puts them (``__pycache__``, ignored by git and by the wheel).
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

_ISOLATED_HOME = tempfile.mkdtemp(prefix="acp-tui-tests-")
atexit.register(shutil.rmtree, _ISOLATED_HOME, ignore_errors=True)
for _name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
    os.environ[_name] = os.path.join(_ISOLATED_HOME, _name.lower())
os.environ["ACP_TUI_CONFIG"] = os.path.join(_ISOLATED_HOME, "config.toml")

settings.register_profile("acp-tui", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("acp-tui")

store_guard.install()
css_cache.install()

_load: CpuLoad | None = None


@pytest.fixture(autouse=True)
def _store_written_only_by_the_store() -> Generator[None, None, None]:
    store_guard.take()
    yield
    written = store_guard.take()
    assert not written, (
        f"store state written outside the store (bypassing its change tracking): {written}"
    )


@pytest.fixture(autouse=True)
def _permission_rules_forgotten() -> Generator[None, None, None]:
    """The config and data folders are the test process's: the permission rules a test wrote
    (and their counts) must not answer the next test's requests."""
    from acp_tui.config import locations

    yield
    for path in (locations.rules_file(), locations.rules_state_file()):
        path.unlink(missing_ok=True)


def empty_textual_style_cache() -> None:
    styles_cache = sys.modules.get("textual._styles_cache")  # never imported here for nothing
    if styles_cache is not None:
        # An lru_cache on a method: it holds the StylesCache objects (and their lines).
        styles_cache.StylesCache.get_inner_outer.cache_clear()


@pytest.fixture(autouse=True)
def _textual_style_cache_emptied() -> Generator[None, None, None]:
    yield
    empty_textual_style_cache()


#: Python's collection thresholds in a test process (see the module docstring).
GC_THRESHOLDS = (20_000, 10, 10)


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _is_xdist_worker() -> bool:
    return "PYTEST_XDIST_WORKER" in os.environ


def skips_fail() -> bool:
    """True in CI, or when asked for with ACP_TUI_TEST_NO_SKIPS=1."""
    ci = os.environ.get("CI", "").strip().lower()
    asked = os.environ.get("ACP_TUI_TEST_NO_SKIPS", "").strip().lower()
    return ci not in ("", "0", "false", "no") or asked not in ("", "0", "false", "no")


def pytest_configure(config: pytest.Config) -> None:
    global _load
    warm_bytecode.warm(config)
    count = requested_load()
    # Once per run: in the controller (or the only process), not in every xdist worker.
    if count and not _is_xdist_worker() and _load is None:
        _load = CpuLoad(count).start()


def pytest_unconfigure(config: pytest.Config) -> None:
    global _load
    if _load is not None:
        _load.stop()
        _load = None


#: Workers per core for ``-n auto``, and the most workers whatever the cores.
WORKERS_PER_CORE = 3
MOST_WORKERS = 32


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: three workers a core. Most of a Pilot test's time is spent waiting, not
    computing: Textual's Pilot waits after each key until the app's process has been idle for
    20 ms, and the agents, pipes and terminals answer in their own time (a Pilot file measured
    alone: 44 s of wall time, 14 s of CPU). With one worker a core and one more, the cores were
    idle 28 % of the run; with three a core they are busy to the end (measured on 2 cores: 3
    workers 4 min 33 s, 4 workers 4 min 17 s, 6 workers 3 min 56 s; bench/README.md, "The test
    suite's time").
    PYTEST_XDIST_AUTO_NUM_WORKERS still wins."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return min(warm_bytecode.cores() * WORKERS_PER_CORE, MOST_WORKERS)


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = []
    if requested_load():
        lines.append(f"under CPU load: {requested_load()} busy processes (ACP_TUI_TEST_CPU_LOAD)")
    if skips_fail():
        lines.append("skipped tests fail this run (CI)")
    return lines


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test of a Textual patch's effect needs the patch on (see the module docstring)."""
    for mark in item.iter_markers("textual_patch"):
        (name,) = mark.args
        if not patches_from_environment()(name):  # a name that is no patch raises
            pytest.fail(
                f"tests the Textual patch {name!r}, which is off in this run ({PATCHES_ENV}="
                f"{os.environ.get(PATCHES_ENV, '')!r}); a run with patches off deselects "
                "these tests: -m 'not textual_patch'",
                pytrace=False,
            )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.skipped and not hasattr(report, "wasxfail") and skips_fail():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped where every test must run (CI): {reason}"
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report: pytest.CollectReport) -> None:
    # A whole module skipped at import (pytest.importorskip, a module-level skip) is a skip too.
    if report.skipped and skips_fail():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped where every test must run (CI): {reason}"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def snap_compare(snap_compare: Any) -> Any:
    """The plugin's ``snap_compare``, with text cursors steady (tests/steady_snapshots.py)."""
    from tests.steady_snapshots import steady

    return steady(snap_compare)
