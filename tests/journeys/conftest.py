"""Journeys: the installed ``acp-tui`` in a real terminal (tmux), driven by keys."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.journeys.terminal import Terminal

if shutil.which("tmux") is None:  # pragma: no cover - CI installs tmux (see .ci/run)
    raise RuntimeError("the journey tests need tmux: apt-get install tmux")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[..., Terminal]]:
    """A factory of terminals (``terminal(cols=80, rows=24)``), each closed after the test."""
    made: list[Terminal] = []

    def make(cols: int = 120, rows: int = 40, name: str = "home") -> Terminal:
        home = tmp_path / f"{name}-{len(made)}"
        home.mkdir()
        made.append(Terminal(home, cols, rows))
        return made[-1]

    yield make
    for term in made:
        term.close()
