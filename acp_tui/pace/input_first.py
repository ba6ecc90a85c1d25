"""Background work gives way while a person's key is on its way to the screen.

The agent's output is read, parsed and drawn on the same event loop that echoes the person's
keys. A key takes several turns of the loop to show (the app, the screen, the prompt, the
paint), and each turn runs one step of every task that is ready: during a flood that is the
reader of each agent's output (a slice of lines) and the transcript taking in new text. So a
key typed then waited for several rounds of those steps (issue 20's keystrokes during 200,000
chunks: p95 60-80 ms where the key's own work is a few milliseconds).

Those tasks call :func:`give_way` where they would let other tasks run anyway. While the UI
says a key is pending (see :meth:`InputFirst.install`), it waits a little, at most
:data:`MOST` seconds, so that the key's turns of the loop are short; otherwise it is a plain
checkpoint. Nothing is skipped or reordered: the same work runs a few milliseconds later.

One event loop, one person: the UI that runs installs its test of "a key is pending" for as
long as it runs (none is installed headless, in the demo agent or in tests of this layer).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
import anyio.lowlevel

__all__ = ["MOST", "STEP", "InputFirst", "give_way", "input_first"]

#: The longest one call waits, whatever the UI says.
MOST = 0.05
#: How often a waiting call looks again.
STEP = 0.002


class InputFirst:
    """Whether background work should wait for a key now (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self._pending: Callable[[], float] | None = None
        #: Calls that waited, and for how long in all (seconds): for tests and profiles.
        self.waits = 0
        self.waited = 0.0

    def install(self, pending: Callable[[], float]) -> None:
        """``pending()``: how many more seconds work should wait for a key (0: none waits)."""
        self._pending = pending

    def uninstall(self, pending: Callable[[], float]) -> None:
        if self._pending == pending:  # a bound method is a new object each time it is read
            self._pending = None

    def pending(self) -> float:
        test = self._pending
        if test is None:
            return 0.0
        try:
            return max(0.0, min(MOST, test()))
        except Exception:  # a UI tearing down must never stop the work that waits on it
            return 0.0

    async def give_way(self) -> None:
        left = self.pending()
        if left <= 0:
            await anyio.lowlevel.checkpoint()
            return
        started = self.clock()
        deadline = started + MOST
        while left > 0 and self.clock() < deadline:
            await anyio.sleep(min(left, STEP))
            left = self.pending()
        self.waits += 1
        self.waited += self.clock() - started


#: The process's one (see the module docstring).
input_first = InputFirst()


async def give_way() -> None:
    """A checkpoint that waits briefly while a key is on its way to the screen."""
    await input_first.give_way()
