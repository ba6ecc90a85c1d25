"""Longest tests first, spread over the xdist workers (tests/slow_first.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from tests.slow_first import (
    CACHE_KEY,
    KEPT,
    deal,
    estimate,
    keep,
    read_kept,
    share_sizes,
    urgency,
)

ROOT = Path(__file__).resolve().parent.parent


def fake(nodeid: str) -> pytest.Item:
    return cast(pytest.Item, SimpleNamespace(nodeid=nodeid, function=None))


def test_each_workers_share_starts_with_its_part_of_the_longest_tests() -> None:
    seconds = {f"t{n}": float(n) for n in range(12)}
    items = [fake(nodeid) for nodeid in seconds]
    dealt = [item.nodeid for item in deal(items, seconds, 3)]
    assert sorted(dealt) == sorted(seconds)
    # worksteal gives each of 3 workers a contiguous third: each starts with one of the 3 longest.
    shares = [dealt[0:4], dealt[4:8], dealt[8:12]]
    assert {share[0] for share in shares} == {"t11", "t10", "t9"}
    for share in shares:
        assert share == sorted(share, key=lambda nodeid: seconds[nodeid], reverse=True)


@pytest.mark.parametrize("count", [10, 11, 12, 13, 1883])
def test_each_share_starts_with_one_of_the_longest_whatever_the_count(count: int) -> None:
    seconds = {f"t{n}": float(n) for n in range(count)}
    dealt = [item.nodeid for item in deal([fake(nodeid) for nodeid in seconds], seconds, 3)]
    assert sorted(dealt) == sorted(seconds)
    starts, first = [], 0
    for size in share_sizes(count, 3):  # what worksteal gives each worker at first
        starts.append(dealt[first])
        first += size
    assert sorted(starts) == sorted(f"t{n}" for n in range(count - 3, count))
    assert share_sizes(1883, 3) == [627, 628, 628]


def test_a_test_never_timed_is_estimated_by_its_kind() -> None:
    journey = estimate(fake("tests/journeys/test_keys.py::test_x"))
    app = estimate(fake("tests/ui/test_chat.py::test_x"))
    unit = estimate(fake("tests/store/test_store_session.py::test_x"))
    mypy = estimate(fake("tests/test_code_checks.py::test_mypy_finds_nothing"))
    assert mypy > journey > app > unit


SUITE = """
import os
from pathlib import Path

def run(name):
    with open(Path(__file__).parent / "ran.jsonl", "a") as f:
        f.write('{"worker": "%s", "test": "%s"}\\n' % (os.environ["PYTEST_XDIST_WORKER"], name))

def test_a(): run("a")
def test_b(): run("b")
def test_c(): run("c")
def test_d(): run("d")
def test_e(): run("e")
def test_f(): run("f")
"""

CONFTEST = """
from tests.slow_first import (
    pytest_collection_modifyitems,
    pytest_runtest_logreport,
    pytest_sessionfinish,
)
"""


@pytest.mark.parametrize("recorded_in", ["cache", "repository"])
def test_a_run_starts_the_longest_recorded_tests_first_and_records_its_times(
    tmp_path: Path, recorded_in: str
) -> None:
    """The times come from this clone's cache or, in a fresh clone, from the repository's copy."""
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_suite.py").write_text(SUITE)
    cache = tmp_path / ".pytest_cache" / "v" / CACHE_KEY
    cache.parent.mkdir(parents=True)
    # By file order e and f would run last; as recorded they are the two longest.
    times = json.dumps({"test_suite.py::test_e": 9.0, "test_suite.py::test_f": 8.0})
    if recorded_in == "cache":
        cache.write_text(times)
    else:
        (tmp_path / KEPT).parent.mkdir()
        (tmp_path / KEPT).write_text(times)
    # Only what a fresh run has: no pytest worker's variables, nothing acp-tui's reaper set
    # in this worker (an earlier test may have enabled it here).
    environment: dict[str, Any] = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "ACP_TUI_"))
    }
    environment.update(
        PYTHONPATH=str(ROOT), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONFAULTHANDLER="1"
    )
    command = ["-m", "pytest", "-q", "-p", "xdist.plugin", "-n", "2", "--dist", "worksteal"]
    # A temporary folder of its own: by default it would share /tmp/pytest-of-USER with
    # this run and, at its exit, delete the oldest numbered folders there (this run's first
    # pass, gigabytes: CI saw it still deleting at 120 s).
    command += ["--basetemp", str(tmp_path / "basetemp"), "."]
    assert_runs(command, tmp_path, environment)
    ran = [json.loads(line) for line in (tmp_path / "ran.jsonl").read_text().splitlines()]
    first = {}
    for entry in ran:
        first.setdefault(entry["worker"], entry["test"])
    assert sorted(first.values()) == ["e", "f"], ran
    recorded = json.loads(cache.read_text())
    assert set(recorded) == {f"test_suite.py::test_{name}" for name in "abcdef"}


def assert_runs(
    command: list[str], cwd: Path, environment: dict[str, Any], timeout: float = 120
) -> None:
    """Run pytest in a session of its own (no signal another test sends to this worker's
    group reaches it) and assert it passed. If it hangs, every one of its processes writes
    where it is (faulthandler, on SIGABRT) into the failure before it is killed."""
    process = subprocess.Popen(
        [sys.executable, *command],
        cwd=cwd,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGABRT)
        try:
            output, _ = process.communicate(timeout=10)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        pytest.fail(f"pytest did not end in {timeout:g} s; where it was:\n{output}")
    assert process.returncode == 0, output


def test_the_repositorys_copy_is_written_from_the_cache_and_read_back(tmp_path: Path) -> None:
    cache = tmp_path / ".pytest_cache" / "v" / CACHE_KEY
    cache.parent.mkdir(parents=True)
    cache.write_text(
        json.dumps(
            {
                "tests/test_b.py::test_x": 2.345,
                "tests/test_a.py::test_y": 0.001,
                "tests/test_removed.py::test_z": 9.0,
            }
        )
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("")
    (tmp_path / "tests" / "test_b.py").write_text("")
    assert keep(tmp_path) == 2
    # Sorted, one test a line (a small diff when refreshed), a tenth of a second at least.
    assert (tmp_path / KEPT).read_text().splitlines()[1:3] == [
        '  "tests/test_a.py::test_y": 0.1,',
        '  "tests/test_b.py::test_x": 2.3',
    ]
    assert read_kept(tmp_path / KEPT) == {
        "tests/test_a.py::test_y": 0.1,
        "tests/test_b.py::test_x": 2.3,
    }
    assert read_kept(tmp_path / "missing.json") == {}
    (tmp_path / "broken.json").write_text("{")
    assert read_kept(tmp_path / "broken.json") == {}


def test_the_repositorys_copy_covers_the_suite() -> None:
    """Refreshed with ``python -m tests.slow_first`` after a whole run when tests are added:
    a test missing from it is only estimated in a fresh clone. A few may be missing (the
    copy is refreshed now and then), not most."""
    kept = read_kept(ROOT / KEPT)
    assert len(kept) > 2000


def test_a_journey_starts_as_if_it_were_shorter_among_tests_that_compute() -> None:
    journey = fake("tests/journeys/test_keys.py::test_x")
    app = fake("tests/ui/test_chat.py::test_y")
    seconds = {journey.nodeid: 10.0, app.nodeid: 5.0}
    assert urgency(journey, seconds) < urgency(app, seconds) == 5.0
    ordered = deal(
        [journey, app], {item.nodeid: urgency(item, seconds) for item in (journey, app)}, 1
    )
    assert ordered == [app, journey]
