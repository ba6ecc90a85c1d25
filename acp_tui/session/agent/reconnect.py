"""Automatic reconnects: what a face does when a v2 agent dies with work in flight.

A *forced reconnect* is a v2 connection that ends (the agent process exits or is killed, or
its pipes break) while a prompt of it waits for its answer or a turn of it runs. The face
then starts the agent again on its own, reopens the session on screen (v2: a resume that
replays it) and the prompt whose answer was lost goes again with the idempotency key it went
with (https://agentclientprotocol.com/rfds/v2/idempotency-keys): an agent that took it
answers with the message it made then and runs nothing twice. A prompt that was answered is
never sent again (the answer says it was taken): its turn, cut short, ends as an error.

Bounded: :data:`RECONNECT_DELAYS` attempts (waiting longer before each) within
:data:`RECONNECT_WINDOW` seconds; after that the person restarts it (Ctrl+R). v1 never
reconnects on its own: a v1 prompt has no key, and sent again it could run twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["RECONNECT_DELAYS", "RECONNECT_WINDOW", "Reconnects"]

#: The wait before each automatic reconnect, in seconds; one attempt per entry.
RECONNECT_DELAYS = (0.5, 2.0, 5.0)
#: Attempts older than this (seconds) no longer count: an agent that stays up long earns
#: its attempts back.
RECONNECT_WINDOW = 120.0


@dataclass
class Reconnects:
    """The attempts one agent's view has made (a plain counter with a clock)."""

    clock: Callable[[], float] = time.monotonic
    delays: tuple[float, ...] = RECONNECT_DELAYS
    window: float = RECONNECT_WINDOW
    _times: list[float] = field(default_factory=list)

    @property
    def limit(self) -> int:
        return len(self.delays)

    def take(self) -> tuple[int, float] | None:
        """The next attempt: its number (from 1) and the wait before it; None when they are
        used up."""
        now = self.clock()
        self._times = [t for t in self._times if now - t < self.window]
        if len(self._times) >= self.limit:
            return None
        delay = self.delays[len(self._times)]
        self._times.append(now)
        return len(self._times), delay
