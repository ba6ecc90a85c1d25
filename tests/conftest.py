"""Shared test set-up: every test run gets its own config, data, state and log dirs, so
nothing a test does touches (or depends on) the real user's files."""

from __future__ import annotations

import os
import tempfile

import pytest

_ISOLATED_HOME = tempfile.mkdtemp(prefix="acp-tui-tests-")
for _name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
    os.environ[_name] = os.path.join(_ISOLATED_HOME, _name.lower())
os.environ["ACP_TUI_CONFIG"] = os.path.join(_ISOLATED_HOME, "config.toml")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
