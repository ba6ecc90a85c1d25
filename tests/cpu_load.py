"""Busy processes, to prove the suite does not depend on an idle machine.

``ACP_TUI_TEST_CPU_LOAD=2 python -m pytest -q`` runs the whole suite with two processes that
spin on the CPU for as long as it runs (see tests/conftest.py); :class:`CpuLoad` also works on
its own, around any code::

    with CpuLoad(2):
        ...
"""

from __future__ import annotations

import os
import subprocess
import sys
from types import TracebackType

ENV_VAR = "ACP_TUI_TEST_CPU_LOAD"

# Spins until its parent goes away (checked every few milliseconds), so a run killed without
# cleaning up leaves no busy process behind.
_BUSY_LOOP = """
import os
parent = os.getppid()
while os.getppid() == parent:
    for _ in range(200_000):
        pass
"""


def requested_load() -> int:
    """How many busy processes ``ACP_TUI_TEST_CPU_LOAD`` asks for (0 when unset)."""
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        return 0
    try:
        count = int(value)
    except ValueError:
        raise ValueError(f"{ENV_VAR} must be a number of processes, not {value!r}") from None
    if count < 0:
        raise ValueError(f"{ENV_VAR} must not be negative")
    return count


class CpuLoad:
    """``count`` processes that each keep one core busy while the context is open."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> CpuLoad:
        for _ in range(self.count):
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-c", _BUSY_LOOP],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        return self

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
        for process in self.processes:
            process.wait()
        self.processes.clear()

    def __enter__(self) -> CpuLoad:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
