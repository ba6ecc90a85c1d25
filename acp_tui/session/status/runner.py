"""The status command's runs, paced: at most one a second, one at a time, and only when
there is something new to say: the state it would read changed, or
:data:`REFRESH_SECONDS` passed (its own world, such as the files, may have).

:class:`StatusPacer` decides (a clock, no I/O: the tests step it); :class:`StatusCommand`
runs the command in a task of the event loop (an asyncio subprocess: the UI's loop never
waits on it) and hands each result to its ``shown`` callback. Pure Python: no Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from acp_tui.services.status_command import TIMEOUT, StatusOutput, run_status_command

__all__ = ["MIN_INTERVAL", "REFRESH_SECONDS", "StatusCommand", "StatusPacer"]

#: The least time between two starts of the command.
MIN_INTERVAL = 1.0
#: With nothing changed, the command still runs this often.
REFRESH_SECONDS = 5.0

log = logging.getLogger(__name__)

Runner = Callable[[str, bytes, str], Awaitable[StatusOutput]]


class StatusPacer:
    """When a run is due: never while one runs, never within :data:`MIN_INTERVAL` of the
    last start; then when the state differs from the last run's, or the last start is
    :data:`REFRESH_SECONDS` old."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        min_interval: float = MIN_INTERVAL,
        refresh: float = REFRESH_SECONDS,
    ) -> None:
        self.clock = clock
        self.min_interval = min_interval
        self.refresh = refresh
        self.running = False
        self.last_start: float | None = None
        self.last_state: bytes | None = None

    def wait(self, state: bytes) -> float | None:
        """Seconds until a run with ``state`` is due (0: now), or None: not due at all (one
        runs, or nothing changed and the refresh is not due yet)."""
        if self.running:
            return None
        if self.last_start is None:
            return 0.0
        since = self.clock() - self.last_start
        if state == self.last_state and since < self.refresh:
            return None
        return max(0.0, self.min_interval - since)

    def started(self, state: bytes) -> None:
        self.running = True
        self.last_start = self.clock()
        self.last_state = state

    def finished(self) -> None:
        self.running = False


class StatusCommand:
    """One view's status command: :meth:`offer` the current state as often as it likes (on
    each change and each second); a run starts when the pacer says it is due, and what it
    gave goes to ``shown``. :meth:`stop` ends a run under way (its process group killed)."""

    def __init__(
        self,
        command: str,
        shown: Callable[[StatusOutput], None],
        *,
        timeout: float = TIMEOUT,
        pacer: StatusPacer | None = None,
        runner: Runner | None = None,
    ) -> None:
        self.command = command
        self.shown = shown
        self.timeout = timeout
        self.pacer = pacer or StatusPacer()
        self._runner = runner
        self._task: asyncio.Task[None] | None = None
        self._later: asyncio.TimerHandle | None = None
        self._offered: tuple[bytes, str] | None = None
        self._stopped = False
        #: How many runs started.
        self.runs = 0

    def offer(self, state: bytes, cwd: str) -> None:
        """The state now (the JSON bytes) and where the command runs."""
        if self._stopped:
            return
        self._offered = (state, cwd)
        if self._later is not None:
            return  # a run is already set for when the pace allows
        wait = self.pacer.wait(state)
        if wait is None:
            return
        loop = asyncio.get_running_loop()
        if wait > 0:
            self._later = loop.call_later(wait, self._due)
        else:
            self._start(state, cwd)

    def _due(self) -> None:
        self._later = None
        if self._offered is not None:
            self.offer(*self._offered)

    def _start(self, state: bytes, cwd: str) -> None:
        self.pacer.started(state)
        self.runs += 1
        self._task = asyncio.get_running_loop().create_task(
            self._run(state, cwd), name="status-command"
        )

    async def _run(self, state: bytes, cwd: str) -> None:
        try:
            if self._runner is not None:
                output = await self._runner(self.command, state, cwd)
            else:
                output = await run_status_command(self.command, state, cwd, limit=self.timeout)
        except Exception:  # a bug here must not leave the line stuck or the loop noisy
            log.exception("the status command's run failed")
            output = StatusOutput(problem="failed (see the log)")
        finally:
            self.pacer.finished()
            self._task = None
        self.shown(output)
        if self._offered is not None and self._offered[0] != state:
            self.offer(*self._offered)  # it changed while the command ran

    @property
    def running(self) -> bool:
        return self._task is not None

    async def stop(self) -> None:
        """No more runs; one under way is cancelled (its processes killed)."""
        self._stopped = True
        self._offered = None
        if self._later is not None:
            self._later.cancel()
            self._later = None
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
