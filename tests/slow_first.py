"""The longest tests start first, spread over the xdist workers (hooks used by tests/conftest.py).

Under xdist the run ends when the last worker ends: a long test that starts late ends last,
while the other workers have nothing left to do. So the tests are ordered longest first, by
the time each took in earlier runs (kept in pytest's cache, .pytest_cache) or, for a test not
seen yet (a fresh clone, a new test), by an estimate from its kind. With ``--dist worksteal``
each worker first gets a contiguous share of the list, so the list is dealt like cards: each
worker's share starts with its part of the longest tests, and what the others steal from its
end are short ones.

A fresh clone (CI's every run) has no cache: there the times come from
``tests/test_seconds.json``, a copy of a run's cache kept in the repository (written by
``python -m tests.slow_first``; a test not in it is estimated). Estimates alone left a tail:
tests estimated short that are long (a headless run of an agent) started last.

The order changes no test's outcome (tests are independent; see tests/conftest.py); running
without xdist (``-n0``) keeps the file order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

CACHE_KEY = "acp-tui/test-seconds"
#: The times kept in the repository, relative to the root: read where the cache has none.
KEPT = Path("tests") / "test_seconds.json"
ROOT = Path(__file__).resolve().parent.parent

#: Estimates in seconds for a test with no recorded time, by what it runs.
SLOW_FILES = {
    "tests/test_code_checks.py": 10.0,  # ruff and mypy over the whole tree
    "tests/test_packaging.py": 10.0,  # builds a wheel, installs it with pipx and uv
    "tests/test_web.py": 8.0,  # a browser
    "tests/test_bench_smoke.py": 5.0,  # benchmark runs
}
JOURNEY = 5.0  # the installed app in tmux, on an agent process
#: A journey mostly waits (for tmux, the app in it, the agent: some 0.2 of a core), so it
#: starts as if it were this much shorter: longest first alone started the journeys together,
#: and the cores sat 10-20 % idle through the run's first minute and a half (vmstat); mixed
#: with the Pilot tests (a third of a core each, or more) they keep the cores busy.
WAITING_WEIGHT = 0.4
APP = 2.0  # a Textual app on an agent process (most of tests/ui)
PROPERTY = 2.0  # a Hypothesis search
OTHER = 0.1

_recorded: dict[str, float] = {}


def estimate(item: pytest.Item) -> float:
    path = item.nodeid.split("::", 1)[0]
    if path in SLOW_FILES:
        return SLOW_FILES[path]
    if is_journey(item):
        return JOURNEY
    function = getattr(item, "function", None)
    if getattr(function, "is_hypothesis_test", False):
        return PROPERTY
    if path.startswith("tests/ui/") and not path.startswith("tests/ui/render/"):
        return APP
    return OTHER


def worker_count(config: pytest.Config) -> int | None:
    """How many xdist workers share the run, in a worker; None elsewhere."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return None
    return int(workerinput.get("workercount", 1))


def share_sizes(count: int, hands: int) -> list[int]:
    """The lengths of the contiguous shares xdist's worksteal gives ``hands`` workers at first
    (each takes the pending tests divided by the workers still to serve, rounded down)."""
    sizes = []
    for hand in range(hands):
        sizes.append(count // (hands - hand))
        count -= sizes[-1]
    return sizes


def deal(items: list[pytest.Item], seconds: dict[str, float], hands: int) -> list[pytest.Item]:
    """``items`` longest first, dealt like cards into the ``hands`` shares, one after another."""
    ordered = sorted(items, key=lambda item: seconds[item.nodeid], reverse=True)
    sizes = share_sizes(len(ordered), hands)
    dealt: list[list[pytest.Item]] = [[] for _ in range(hands)]
    hand = 0
    for item in ordered:
        while len(dealt[hand]) >= sizes[hand]:
            hand = (hand + 1) % hands
        dealt[hand].append(item)
        hand = (hand + 1) % hands
    return [item for share in dealt for item in share]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    hands = worker_count(config)
    if hands is None:
        return
    cache = getattr(config, "cache", None)
    known = cache.get(CACHE_KEY, {}) if cache is not None else {}
    if not isinstance(known, dict):
        known = {}
    kept = read_kept(config.rootpath / KEPT)
    # Every worker computes the same order from the same files: xdist requires one collection.
    seconds = {
        item.nodeid: float(known.get(item.nodeid) or kept.get(item.nodeid) or estimate(item))
        for item in items
    }
    items[:] = deal(items, {item.nodeid: urgency(item, seconds) for item in items}, hands)


def is_journey(item: pytest.Item) -> bool:
    """The installed app in tmux: a test that mostly waits."""
    return item.nodeid.startswith("tests/journeys/")


def urgency(item: pytest.Item, seconds: dict[str, float]) -> float:
    """How early ``item`` starts: its time, less for a test that mostly waits."""
    return seconds[item.nodeid] * (WAITING_WEIGHT if is_journey(item) else 1.0)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.passed or report.failed:
        _recorded[report.nodeid] = _recorded.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In the controller (the workers' reports reach it), add this run's times to the cache."""
    config = session.config
    cache = getattr(config, "cache", None)
    if worker_count(config) is not None or cache is None or not _recorded:
        return
    known = cache.get(CACHE_KEY, {})
    if not isinstance(known, dict):
        known = {}
    known.update({nodeid: round(seconds, 3) for nodeid, seconds in _recorded.items()})
    cache.set(CACHE_KEY, known)


def read_kept(path: Path) -> dict[str, float]:
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def keep(root: Path = ROOT) -> int:
    """Write the times of this clone's cache into the repository's copy; how many there are."""
    cache = root / ".pytest_cache" / "v" / CACHE_KEY
    recorded = read_kept(cache)
    if not recorded:
        raise SystemExit(f"no recorded test times in {cache}: run the suite first")
    # The cache keeps every test this clone ever ran: a file since removed is left out.
    kept = {
        nodeid: max(round(float(seconds), 1), 0.1)
        for nodeid, seconds in recorded.items()
        if (root / nodeid.split("::", 1)[0]).is_file()
    }
    lines = [f"  {json.dumps(nodeid)}: {seconds}" for nodeid, seconds in sorted(kept.items())]
    (root / KEPT).write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    return len(kept)


if __name__ == "__main__":
    count = keep()
    print(f"{count} test times written to {KEPT}", file=sys.stderr)
