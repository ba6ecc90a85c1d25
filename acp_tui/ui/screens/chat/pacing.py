"""When the chat screen's frames come: the prompt's echo first, the rest around the typing.

A keystroke's echo is a tiny frame; a transcript frame during a flood costs tens of
milliseconds (sync, layout, paint). A key that lands while one is being made waits for all of
it, so the frames are paced around the person's typing:

- while nothing is typed, the store's changes are synced to the screen in frames spaced by
  what the last one cost (a flood takes at most about a quarter of the loop);
- while the person types, a key's echo is painted alone at once, and the rest of the screen
  (transcript, sidebar, status) at most every :data:`TYPING_FRAME_GAP` seconds, **right after
  an echo**: that is when the next key is furthest away, so the frame is done before it comes
  (keys of a fast typist are 50-150 ms apart). See
  :mod:`~acp_tui.ui.textual_patches.paint_gate` for the painting side (a Textual patch).

No Textual here: the screen tells the pacer what happened (a key, a paint) and asks it what
to do; the clock is injectable so tests can hold it still.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: The shortest gap between two transcript frames (30 per second at most).
FRAME_SECONDS = 1 / 30
#: The pause after a frame, as a multiple of what the frame cost.
PACING = 3.0
#: The longest pause between frames however slow they get: the transcript still moves.
MAX_FRAME_GAP = 0.25
#: How long after a key the person counts as typing. People type 3 to 10 keys a second, so a
#: gap of 100-300 ms between keys is still typing: with 0.1 s the next key of most typists found
#: the screen painting whole again (a 60-100 ms frame in its way).
TYPING_HOLD = 0.5
#: While the person types, the transcript still moves at least this often.
TYPING_FRAME_GAP = 0.25
#: What is held for the typing is painted after this long whatever the keys do.
TYPING_FRAME_LIMIT = 0.5
#: A frame this soon after a key's echo counts as "right after" it: the screen asks for it as
#: the echo is painted, so it comes at once unless the loop is busy. A later frame (up to 40 ms
#: was allowed) ran into the next key of a fast typist, 50-60 ms after the echo.
AFTER_ECHO = 0.015
#: A key seen by the app but not yet echoed holds the whole screen's frame for at most this
#: long: it is on its way to the prompt, and a frame started now would be in its way. Keys that
#: never reach the prompt (one a dialog or a binding takes) stop holding it after this.
KEY_IN_FLIGHT = 0.05


class FramePacer:
    """Decides when the chat screen's frames may come (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        #: Seconds from the start of the last store -> screen sync to its paint.
        self.frame_cost = 0.0
        #: When the last store -> screen sync was painted.
        self.painted_at = 0.0
        #: Until then the person is typing.
        self.typing_until = 0.0
        #: When a key's echo was last painted alone, and when the whole screen last was.
        self.echoed_at = 0.0
        self.whole_at = 0.0
        #: When a key on its way to the prompt arrived (0: none is).
        self.key_arrived_at = 0.0

    # -- what happened ---------------------------------------------------------------------
    def key_arrived(self) -> None:
        """The app received a key that goes to the prompt (not yet handled nor echoed)."""
        if not self.key_arrived_at:
            self.key_arrived_at = self.clock()

    def key_not_for_the_prompt(self) -> None:
        """The key on its way goes somewhere else (a dialog, the sidebar's filter)."""
        self.key_arrived_at = 0.0

    def typed(self) -> None:
        """A key changed the prompt."""
        self.typing_until = self.clock() + TYPING_HOLD

    def stopped_typing(self) -> None:
        """The prompt was emptied (a message sent): nothing waits for the typing any more."""
        self.typing_until = 0.0

    def frame_started(self) -> float:
        return self.clock()

    def frame_painted(self, started: float) -> None:
        self.painted_at = self.clock()
        self.frame_cost = self.painted_at - started

    def echoed(self) -> None:
        """The prompt was painted alone (the rest of the screen held)."""
        self.echoed_at = self.clock()
        self.key_arrived_at = 0.0

    def painted_whole(self) -> None:
        self.whole_at = self.clock()
        self.key_arrived_at = 0.0  # whatever key was on its way was painted with the rest

    # -- what to do ------------------------------------------------------------------------
    def typing(self) -> bool:
        return self.clock() < self.typing_until

    def keys_coming(self) -> bool:
        """The person is typing, or a key is on its way to the prompt: the prompt's changes
        are painted at once, and whole frames are split around them."""
        return self.typing() or bool(self.key_in_flight())

    def key_in_flight(self) -> float:
        """Seconds a whole frame should still wait for a key on its way to its echo (0: none)."""
        if not self.key_arrived_at:
            return 0.0
        return max(0.0, self.key_arrived_at + KEY_IN_FLIGHT - self.clock())

    def delay(self) -> float:
        """Seconds before the next store -> screen sync, for changes that just came."""
        owed = min(MAX_FRAME_GAP, PACING * self.frame_cost)
        idle = self.clock() - self.painted_at
        return max(FRAME_SECONDS, owed - idle)

    def paint_due(self) -> bool:
        """While typing: whether what is held may be painted now. It may when it has waited
        :data:`TYPING_FRAME_GAP` and an echo was just painted (the next key is then furthest
        away), or when it has waited :data:`TYPING_FRAME_LIMIT` whatever the keys do."""
        if self.overdue():
            return True
        return self.gap_passed() and self.clock() - self.echoed_at <= AFTER_ECHO

    def overdue(self) -> bool:
        """What is held has waited :data:`TYPING_FRAME_LIMIT`: the next frame is whole."""
        return self.clock() - self.whole_at >= TYPING_FRAME_LIMIT

    def gap_passed(self) -> bool:
        """While typing: the rest of the screen has waited its :data:`TYPING_FRAME_GAP`."""
        return self.clock() - self.whole_at >= TYPING_FRAME_GAP

    def hold_delay(self) -> float:
        """When a held paint looks again by itself: when the typing pauses, at the limit, or
        when a key in flight stops holding it."""
        now = self.clock()
        delay = min(self.typing_until - now, self.whole_at + TYPING_FRAME_LIMIT - now)
        in_flight = self.key_in_flight()
        if in_flight:
            delay = min(delay, in_flight)
        return max(0.005, delay)
