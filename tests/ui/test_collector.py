"""IdleCollector: full garbage collections wait for the person to stop typing."""

from __future__ import annotations

import gc

from acp_tui.ui.collector import AT_LEAST_EVERY, MANUAL, QUIET_EVERY, IdleCollector


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
    assert not idle.tick(typing=True)
    assert made == []
    assert idle.tick(typing=False)
    assert made == [clock.now]
    clock.now += 1
    assert not idle.tick(typing=False), "not again so soon"


def test_a_full_collection_comes_in_the_end_however_long_the_typing_goes_on() -> None:
    idle, clock, made = collector()
    for _ in range(int(AT_LEAST_EVERY) - 1):
        clock.now += 1
        assert not idle.tick(typing=True)
    clock.now += 1
    assert idle.tick(typing=True)
    assert len(made) == 1 and idle.collections == 1
