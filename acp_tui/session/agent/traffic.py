"""What went by on an agent's connection, for the protocol inspector: every line in and out
(as many as the connection keeps), the counts, new lines as they come, and the lines saved as
a recording that ``acp-tui replay`` plays back. The controller hands it out
(:meth:`~acp_tui.session.agent.controller.SessionController.traffic`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import BinaryIO

from acp_tui.protocol.jsonrpc import Connection, ConnectionStats, TrafficRecord
from acp_tui.protocol.recording import write_traffic

__all__ = ["ConnectionStats", "Traffic", "TrafficRecord"]


class Traffic:
    """The traffic of one connection of the agent run by ``argv`` in ``cwd``."""

    def __init__(self, connection: Connection, argv: Sequence[str], cwd: str) -> None:
        self._connection = connection
        self.argv = list(argv)
        self.cwd = cwd

    @property
    def stats(self) -> ConnectionStats:
        """The counts: lines in and out, skipped, invalid, unknown answers."""
        return self._connection.stats

    def lines(self) -> list[TrafficRecord]:
        """The lines kept, oldest first."""
        return list(self._connection.traffic)

    @property
    def complete(self) -> bool:
        """Whether every line of the connection is still kept (the oldest go past a limit)."""
        traffic = self._connection.traffic
        return traffic.maxlen is None or len(traffic) < traffic.maxlen

    def listen(self, listener: Callable[[TrafficRecord], None]) -> Callable[[], None]:
        """Call ``listener`` with each new line; returns what stops it."""
        listeners = self._connection.traffic_listeners
        listeners.append(listener)

        def stop() -> None:
            if listener in listeners:
                listeners.remove(listener)

        return stop

    def save(self, file: BinaryIO) -> int:
        """The lines kept, as a recording into ``file`` (opened by the caller, through the
        path gate); returns how many."""
        return write_traffic(
            file, self.lines(), argv=self.argv, cwd=self.cwd, complete=self.complete
        )
