"""FramePacer: when the chat screen's frames may come while the person types (a fake clock)."""

from __future__ import annotations

from acp_tui.ui.screens.chat.pacing import (
    AFTER_ECHO,
    FRAME_SECONDS,
    KEY_IN_FLIGHT,
    MAX_FRAME_GAP,
    TYPING_FRAME_GAP,
    TYPING_FRAME_LIMIT,
    TYPING_HOLD,
    FramePacer,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def pacer() -> tuple[FramePacer, Clock]:
    clock = Clock()
    return FramePacer(clock), clock


def test_a_key_counts_as_typing_for_a_moment() -> None:
    pace, clock = pacer()
    assert not pace.typing()
    pace.typed()
    assert pace.typing()
    clock.now += TYPING_HOLD + 0.001
    assert not pace.typing()
    pace.typed()
    pace.stopped_typing()
    assert not pace.typing(), "a message sent ends the typing at once"


def test_while_typing_the_rest_of_the_screen_waits_for_its_gap_and_an_echo() -> None:
    pace, clock = pacer()
    pace.painted_whole()
    pace.typed()
    pace.echoed()
    assert not pace.paint_due(), "painted a moment ago: the rest waits"
    clock.now += TYPING_FRAME_GAP + 0.001
    pace.typed()
    assert not pace.paint_due(), "its gap has passed, but no echo was just painted"
    pace.echoed()
    assert pace.paint_due(), "right after an echo, once the gap has passed"
    clock.now += AFTER_ECHO + 0.001
    assert not pace.paint_due(), "too long after the echo: the next key may be near"


def test_what_is_held_is_painted_at_the_limit_whatever_the_keys_do() -> None:
    pace, clock = pacer()
    pace.painted_whole()
    pace.typed()
    clock.now += TYPING_FRAME_LIMIT
    assert pace.paint_due()


def test_a_held_paint_looks_again_when_the_typing_pauses_or_at_the_limit() -> None:
    pace, clock = pacer()
    pace.painted_whole()
    pace.typed()
    assert abs(pace.hold_delay() - TYPING_HOLD) < 1e-9
    clock.now += TYPING_FRAME_LIMIT - 0.01
    pace.typed()
    assert abs(pace.hold_delay() - 0.01) < 1e-9
    clock.now += 1.0
    assert pace.hold_delay() > 0, "never a timer in the past"


def test_sync_delay_follows_what_the_last_frame_cost() -> None:
    pace, clock = pacer()
    assert pace.delay() == FRAME_SECONDS
    started = pace.frame_started()
    clock.now += 0.04
    pace.frame_painted(started)
    assert abs(pace.delay() - 0.12) < 1e-9, "three times the cost, less the idle time"
    clock.now += 0.1
    assert pace.delay() == FRAME_SECONDS, "what is owed is less than the shortest gap"
    started = pace.frame_started()
    clock.now += 1.0
    pace.frame_painted(started)
    assert pace.delay() == MAX_FRAME_GAP, "however slow the frames, the transcript moves"


def test_typing_lasts_through_the_gaps_of_a_person_typing() -> None:
    """People type 3-10 keys a second: 300 ms between two keys is still typing (with 0.1 s,
    most typists' next key found a whole frame under way)."""
    pace, clock = pacer()
    pace.typed()
    clock.now += 0.3
    assert pace.typing()
    assert TYPING_HOLD >= 0.3


def test_a_key_in_flight_holds_whole_frames_until_its_echo_or_briefly() -> None:
    pace, clock = pacer()
    assert pace.key_in_flight() == 0.0
    pace.key_arrived()
    assert abs(pace.key_in_flight() - KEY_IN_FLIGHT) < 1e-9
    clock.now += 0.01
    pace.key_arrived()  # a second key on its way: the first one's wait is not extended
    assert abs(pace.key_in_flight() - (KEY_IN_FLIGHT - 0.01)) < 1e-9
    pace.echoed()
    assert pace.key_in_flight() == 0.0, "echoed: nothing waits for it"
    pace.key_arrived()
    clock.now += KEY_IN_FLIGHT + 0.001
    assert pace.key_in_flight() == 0.0, "a key that never reached the prompt stops holding"
    pace.key_arrived()
    pace.painted_whole()
    assert pace.key_in_flight() == 0.0, "painted with the rest"


def test_a_held_paint_looks_again_when_a_key_in_flight_stops_holding() -> None:
    pace, _clock = pacer()
    pace.painted_whole()
    pace.typed()
    pace.key_arrived()
    assert abs(pace.hold_delay() - KEY_IN_FLIGHT) < 1e-9


def test_right_after_an_echo_means_within_a_tick() -> None:
    """The rest of the screen goes right after an echo, not 40 ms later when a fast typist's
    next key may be close."""
    pace, clock = pacer()
    pace.painted_whole()
    clock.now += TYPING_FRAME_GAP
    pace.typed()
    pace.echoed()
    assert pace.gap_passed() and pace.paint_due()
    clock.now += AFTER_ECHO / 2
    assert pace.paint_due()
    clock.now += AFTER_ECHO
    assert not pace.paint_due()
    assert AFTER_ECHO <= 0.02


def test_keys_are_coming_while_the_person_types_or_a_key_is_on_its_way() -> None:
    pace, clock = pacer()
    assert not pace.keys_coming()
    pace.key_arrived()
    assert pace.keys_coming()
    pace.key_not_for_the_prompt()
    assert not pace.keys_coming(), "a key going elsewhere (a dialog, the filter)"
    pace.typed()
    assert pace.keys_coming()
    clock.now += TYPING_HOLD + 0.001
    assert not pace.keys_coming()
