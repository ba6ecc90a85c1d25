"""While the app runs, Python switches threads every millisecond (acp_tui/ui/app.py,
SWITCH_INTERVAL): Textual's input and output threads, which carry a key in and its echo out,
then wait at most that long for the GIL behind a busy event loop. The process gets its own
setting back when the app ends (the tests run many apps in one process)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tui.ui.app import SWITCH_INTERVAL
from tests.ui.chat_helpers import fixture_app, wait_for_ready

pytestmark = pytest.mark.anyio


async def test_threads_switch_every_millisecond_while_the_app_runs(tmp_path: Path) -> None:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.004)
    try:
        app = fixture_app(tmp_path)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for_ready(pilot)
            assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
            assert SWITCH_INTERVAL <= 0.001
        assert sys.getswitchinterval() == pytest.approx(0.004)
    finally:
        sys.setswitchinterval(before)
