"""IdleCollector: full garbage collections wait for the person to stop typing."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from acp_tui.ui.collector import (
    AT_LEAST_EVERY,
    MANUAL,
    QUIET_EVERY,
    TYPING_PAUSE,
    IdleCollector,
)
from tests.ui.chat_helpers import fixture_app, wait_for, wait_for_ready

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def collector() -> tuple[IdleCollector, Clock, list[float]]:
    clock = Clock()
    made: list[float] = []
    return IdleCollector(clock, lambda: made.append(clock.now)), clock, made


def test_installing_takes_the_oldest_generation_off_pythons_schedule_and_back() -> None:
    before = gc.get_threshold()
    idle, _clock, _made = collector()
    idle.install()
    try:
        assert gc.get_threshold() == (before[0], before[1], MANUAL)
        assert idle.installed
    finally:
        idle.uninstall()
    assert gc.get_threshold() == before
    assert not idle.installed


def test_a_full_collection_waits_for_a_pause_in_the_typing() -> None:
    idle, clock, made = collector()
    clock.now += QUIET_EVERY + 1
    assert not idle.tick(since_key=0.05)
    assert made == []
    assert idle.tick(since_key=TYPING_PAUSE)
    assert made == [clock.now]
    clock.now += 1
    assert not idle.tick(since_key=60.0), "not again so soon"


def test_a_gap_between_words_is_not_a_pause() -> None:
    """A person stops for a moment between words or after sending a message: the next key
    must not meet a full pass."""
    idle, clock, made = collector()
    clock.now += QUIET_EVERY + 1
    for gap in (0.1, 0.3, 0.6, 1.0, TYPING_PAUSE - 0.01):
        assert not idle.tick(since_key=gap), gap
    assert made == []


def test_a_full_collection_comes_in_the_end_however_long_the_typing_goes_on() -> None:
    idle, clock, made = collector()
    for _ in range(int(AT_LEAST_EVERY) - 1):
        clock.now += 1
        assert not idle.tick(since_key=0.05)
    clock.now += 1
    assert idle.tick(since_key=0.05)
    assert len(made) == 1 and idle.collections == 1


class RecordingCollector(IdleCollector):
    """Records what the app tells it, collects nothing."""

    def __init__(self) -> None:
        super().__init__(collect=lambda: None)
        self.told: list[float] = []

    def tick(self, since_key: float) -> bool:
        self.told.append(since_key)
        return False


async def test_the_app_tells_the_collector_how_long_ago_any_key_was_pressed(
    tmp_path: Path,
) -> None:
    """Keys count wherever they go: the prompt, and a dialog over the chat screen (the
    palette), where the chat screen's own idea of typing does not reach."""
    app = fixture_app(tmp_path)
    collector = app.collector = RecordingCollector()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_ready(pilot)
        app._collect_garbage()
        assert collector.told[-1] > TYPING_PAUSE, "no key yet: a pause"
        await pilot.press("h", "i")
        app._collect_garbage()
        assert collector.told[-1] < TYPING_PAUSE
        chat_screen = app.screen
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.screen is not chat_screen, "the palette")
        app._last_key_at = 0.0  # the keys so far long ago: only the next one can count
        app._collect_garbage()
        assert collector.told[-1] > TYPING_PAUSE
        await pilot.press("x")
        app._collect_garbage()
        assert collector.told[-1] < TYPING_PAUSE, "a key in the palette is typing too"
