"""Start the agent before the screen: its interpreter boots on another core while ours imports
the UI.

A person waits for the agent to be ready before the first message: spawning it only once the
chat screen is up put the agent's own start-up (Python, Node… 100 ms and more) after ours.
Started first, the two overlap. The controller then takes the running process for its first
connection through its process factory; a later start (Ctrl+R) spawns as usual. Nothing else
changes: same command, directory, environment and log as the controller would have used. A
start that fails is left for the controller to make again, so the person sees the same message
as before.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from acp_tui.protocol.process import AgentProcess, AgentStartError

log = logging.getLogger(__name__)

__all__ = ["PrestartedAgent"]


class PrestartedAgent:
    """An agent process started early, handed over once to the first launch that asks for the
    same command, directory, environment and log directory."""

    def __init__(self, process: AgentProcess) -> None:
        self._process: AgentProcess | None = process

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None,
        env: Mapping[str, str] | None,
        log_dir: Path | None,
    ) -> PrestartedAgent | None:
        """The agent, running; None when it could not be started (the controller will try
        again and say why)."""
        process = AgentProcess(argv, cwd=cwd, env=env, log_dir=log_dir)
        try:
            await process.start()
        except AgentStartError as error:
            log.info("agent not started early: %s", error)
            return None
        return cls(process)

    @property
    def taken(self) -> bool:
        return self._process is None

    def factory(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        log_dir: Path | None = None,
        **_: Any,
    ) -> AgentProcess:
        """A process factory for :meth:`AcpClient.launch`: the early process if it is still
        unused and was made for this very launch, else a new one."""
        process = self._process
        if process is not None and (
            process.argv == [str(part) for part in argv]
            and process.cwd == (str(cwd) if cwd is not None else None)
            and process.env == (dict(env) if env is not None else None)
            and process.log_dir == log_dir
            and process.returncode is None
        ):
            self._process = None
            return process
        return AgentProcess(argv, cwd=cwd, env=env, log_dir=log_dir)

    async def discard(self) -> None:
        """End the early process if nothing took it (the app closed before connecting)."""
        process, self._process = self._process, None
        if process is not None:
            await process.shutdown(grace=0.5)
