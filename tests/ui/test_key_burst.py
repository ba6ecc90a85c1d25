"""The burst rule (acp_tui.ui.key_burst): an answer key acts only when it stands alone; one
followed at once by more input was the start of typing."""

from __future__ import annotations

import pytest

from acp_tui.ui.key_burst import BURST_WINDOW, HeldKey, KeyHold


def held(at: float, acted: list[str] | None = None, key: str = "1") -> HeldKey:
    return HeldKey(key, key, at, lambda: (acted if acted is not None else []).append(key))


@pytest.mark.parametrize("gap", [0.0, 0.001, 0.05, 0.1, 0.2, BURST_WINDOW - 0.001])
def test_input_within_the_window_makes_the_held_key_typing(gap: float) -> None:
    hold = KeyHold()
    key = held(10.0)
    assert hold.hold(key) is None
    assert hold.next_input(10.0 + gap) == (key, False)
    assert hold.held is None and hold.due(100.0) is None


@pytest.mark.parametrize("gap", [BURST_WINDOW, BURST_WINDOW + 0.001, 1.0, 60.0])
def test_input_after_the_window_finds_the_key_stood_alone(gap: float) -> None:
    hold = KeyHold()
    key = held(10.0)
    hold.hold(key)
    assert hold.next_input(10.0 + gap) == (key, True)
    assert hold.held is None


def test_the_key_is_due_only_once_the_window_has_passed() -> None:
    hold = KeyHold(0.3)
    key = held(5.0)
    hold.hold(key)
    assert hold.deadline() == pytest.approx(5.3)
    assert hold.due(5.0) is None and hold.due(5.299) is None
    assert hold.held is key  # not due yet: still held
    assert hold.due(5.3) is key
    assert hold.held is None and hold.deadline() is None
    assert hold.due(9.0) is None  # decided once


def test_nothing_held_nothing_decided() -> None:
    hold = KeyHold()
    assert hold.next_input(1.0) == (None, False)
    assert hold.due(1.0) is None and hold.release() is None and hold.deadline() is None


def test_release_gives_the_key_back_as_typing_and_forgets_it() -> None:
    hold = KeyHold()
    key = held(1.0)
    hold.hold(key)
    assert hold.release() is key
    assert hold.held is None and hold.next_input(1.01) == (None, False)


def test_a_second_hold_returns_the_first_as_typing() -> None:
    hold = KeyHold()
    first, second = held(1.0, key="1"), held(1.01, key="2")
    hold.hold(first)
    assert hold.hold(second) is first
    assert hold.held is second


@pytest.mark.parametrize(
    "times",
    [
        [0.0, 0.05, 0.11, 0.2, 0.32, 0.4],  # "1 more": a fast typist
        [0.0, 0.25, 0.5, 0.75],  # a slow one, every key within the window of the last
        [0.0] * 12,  # one read of a terminal, a multiplexer's send-keys
    ],
)
def test_a_typed_burst_never_acts_whatever_its_pace_within_the_window(
    times: list[float],
) -> None:
    """The first key is held; every later key of the burst arrives within the window of the
    key before it, so the held one is typing and nothing acts."""
    acted: list[str] = []
    hold = KeyHold()
    hold.hold(held(times[0], acted))
    held_key, alone = hold.next_input(times[1])
    assert held_key is not None and not alone
    assert acted == []
