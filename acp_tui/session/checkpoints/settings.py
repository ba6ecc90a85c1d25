"""What checkpoints are kept, and where (from ``[checkpoints]`` in the config, and an
agent's ``checkpoints = false`` / ``--no-checkpoints``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_KEEP_PER_SESSION",
    "DEFAULT_KEEP_TOTAL",
    "DEFAULT_MAX_FILE_KB",
    "CheckpointSettings",
]

#: Files larger than this many KiB are not snapshotted (said when it happens).
DEFAULT_MAX_FILE_KB = 1024
#: The newest turns kept per session.
DEFAULT_KEEP_PER_SESSION = 100
#: The newest turns kept across all sessions.
DEFAULT_KEEP_TOTAL = 2000


@dataclass(frozen=True, slots=True)
class CheckpointSettings:
    """Where the checkpoints live (``store``: acp-tui's data directory's ``checkpoints``),
    and their bounds."""

    store: Path
    enabled: bool = True
    max_file_bytes: int = DEFAULT_MAX_FILE_KB * 1024
    keep_per_session: int = DEFAULT_KEEP_PER_SESSION
    keep_total: int = DEFAULT_KEEP_TOTAL
