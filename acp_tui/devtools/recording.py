"""``--record FILE``: the wire of every connection of a run, timestamped, into a recording
(JSON Lines) that ``acp-tui replay`` plays back (:mod:`acp_tui.protocol.recording` writes it)."""

from __future__ import annotations

import os
import time

from acp_tui.config import locations
from acp_tui.protocol.recording import WireRecorder
from acp_tui.services import path_gate

__all__ = ["WireRecorder", "open_recorder"]


def open_recorder(target: str | None) -> WireRecorder:
    """The recorder of ``--record``, its file opened through the path gate: ``target`` as the
    person gave it (relative to the current directory; an existing file is emptied, but never
    a link, a pipe, a device or a file with other hard links, nor a path that leaves the
    current directory through a linked folder), or, when None, a new file in acp-tui's
    recordings folder. The file is 0600. Raises :class:`OSError` or
    :class:`~acp_tui.services.path_gate.PathRefused`."""
    if target is None:
        folder = path_gate.private_directory(locations.recordings_dir())
        name = time.strftime("acp-tui-wire-%Y%m%d-%H%M%S.jsonl")
        path, file = path_gate.create_new(folder, name, buffered=False)
        return WireRecorder(path, file)
    cwd = os.getcwd()
    resolved = path_gate.resolve_path(target, base=cwd, roots=(cwd,))
    return WireRecorder(resolved.given, path_gate.open_for_overwrite(resolved))
