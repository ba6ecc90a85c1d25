"""What acp-tui keeps in its log folder: the client's log, rotated by size, and one log per
agent run (the agent's stderr), of which only the newest are kept.

An agent log is written once per run, each capped at its own size (acp_tui/protocol/process.py),
so a day of restarts leaves dozens. :func:`prune_agent_logs` deletes the oldest as acp-tui
starts, beyond a count and beyond a total size (``[logs]`` in the config file), never one
written in the last minute (another acp-tui may be starting with it).
"""

from __future__ import annotations

import logging
import os
import stat
import time
from pathlib import Path

__all__ = [
    "CLIENT_LOG",
    "CLIENT_LOG_BACKUPS",
    "CLIENT_LOG_BYTES",
    "client_log_handler",
    "prune_agent_logs",
]

#: The client's own log, in the log folder.
CLIENT_LOG = "acp-tui.log"
#: The client's log is rotated at this size, keeping this many older ones (.1, .2).
CLIENT_LOG_BYTES = 5 * 1024 * 1024
CLIENT_LOG_BACKUPS = 2
#: A log written this recently is never deleted: its run may have just begun.
SPARE_SECONDS = 60.0

log = logging.getLogger(__name__)


def client_log_handler(directory: Path) -> logging.FileHandler:
    """The handler of the client's log, appended to; rotated first when it has reached
    :data:`CLIENT_LOG_BYTES` (``acp-tui.log`` becomes ``.1``, ``.1`` becomes ``.2``...).
    Rotated as acp-tui starts rather than mid-run: several acp-tui processes append to the
    same log, and one renaming it under the others would scatter their lines. Raises
    :class:`OSError` when the folder cannot be written."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / CLIENT_LOG
    _rotate(path)
    # An agent's string in a log message may hold a lone surrogate: escape it, never fail.
    return logging.FileHandler(path, encoding="utf-8", errors="backslashreplace")


def _rotate(path: Path) -> None:
    try:
        if path.stat().st_size < CLIENT_LOG_BYTES:
            return
    except OSError:
        return
    names = [path, *(path.with_name(f"{path.name}.{n}") for n in range(1, CLIENT_LOG_BACKUPS + 1))]
    try:
        for newer, older in zip(reversed(names[:-1]), reversed(names[1:]), strict=True):
            if newer.exists():
                os.replace(newer, older)
    except OSError as error:
        log.warning("cannot rotate %s: %s", path, error)


def prune_agent_logs(
    directory: Path, *, keep: int, max_bytes: int, now: float | None = None
) -> list[Path]:
    """Delete the oldest agent logs in ``directory`` until at most ``keep`` are left and
    they take at most ``max_bytes`` together (the client's own log is not one of them, nor
    anything that is not a plain ``*.log`` file). Returns what was deleted. Never fails: a
    log that cannot be read or deleted stays."""
    now = time.time() if now is None else now
    logs: list[tuple[float, int, Path]] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.endswith(".log") or entry.name.startswith(CLIENT_LOG):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            logs.append((info.st_mtime, info.st_size, Path(entry.path)))
    logs.sort(key=lambda item: item[0], reverse=True)  # newest first
    deleted: list[Path] = []
    count = 0
    total = 0
    for modified, size, path in logs:
        count += 1
        total += size
        within = count <= keep and total <= max_bytes
        if within or now - modified < SPARE_SECONDS:
            continue
        try:
            path.unlink()
        except OSError:
            continue
        deleted.append(path)
        count -= 1
        total -= size
    if deleted:
        log.info("deleted %d old agent log(s) from %s", len(deleted), directory)
    return deleted
