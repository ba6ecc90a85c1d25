"""What checkpoints are kept, and where (from ``[checkpoints]`` in the config, and an
agent's ``checkpoints = false`` / ``--no-checkpoints``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from acp_tui.config.defaults import (
    DEFAULT_CHECKPOINT_KEEP_PER_SESSION,
    DEFAULT_CHECKPOINT_KEEP_TOTAL,
    DEFAULT_CHECKPOINT_MAX_FILE_KB,
    DEFAULT_CHECKPOINT_MAX_FILES,
)

__all__ = ["CheckpointSettings", "checkpoint_store"]


def checkpoint_store() -> Path:
    """Where checkpoints live: ``checkpoints`` in acp-tui's data folder (never the project)."""
    from acp_tui.config.locations import data_dir

    return data_dir() / "checkpoints"


@dataclass(frozen=True, slots=True)
class CheckpointSettings:
    """Whether checkpoints are taken, where they live (``store``), and their bounds. Off
    unless the resolver turns them on (a spec made by hand, in a test, takes none)."""

    store: Path = Path()
    enabled: bool = False
    max_file_bytes: int = DEFAULT_CHECKPOINT_MAX_FILE_KB * 1024
    max_files: int = DEFAULT_CHECKPOINT_MAX_FILES
    keep_per_session: int = DEFAULT_CHECKPOINT_KEEP_PER_SESSION
    keep_total: int = DEFAULT_CHECKPOINT_KEEP_TOTAL
