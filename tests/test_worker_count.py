"""``-n auto`` starts three xdist workers a core, at most 32 (tests/conftest.py)."""

from __future__ import annotations

import os
from typing import cast

import pytest

from tests.conftest import MOST_WORKERS, WORKERS_PER_CORE, pytest_xdist_auto_num_workers

CONFIG = cast(pytest.Config, None)  # the hook does not read it


@pytest.mark.parametrize(("cores", "workers"), [(1, 3), (2, 6), (4, 12), (64, MOST_WORKERS)])
def test_three_workers_a_core_at_most_32(
    monkeypatch: pytest.MonkeyPatch, cores: int, workers: int
) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    assert WORKERS_PER_CORE == 3
    assert pytest_xdist_auto_num_workers(CONFIG) == workers


def test_the_environment_still_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")
    assert pytest_xdist_auto_num_workers(CONFIG) is None  # xdist then reads it
