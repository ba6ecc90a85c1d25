"""Defaults of the config file, apart from its schema so that the loader and the schema share
them without importing each other (and a start-up without a config file loads no pydantic)."""

from __future__ import annotations

from typing import Literal

#: What the permission dialog does when the config says nothing: ask the person.
DEFAULT_PERMISSION_POLICY: Literal["ask", "yolo", "deny"] = "ask"
#: How a finished turn is announced when the app is not in front: the terminal bell.
DEFAULT_NOTIFICATIONS: Literal["bell", "off"] = "bell"
#: How a background session that finished or needs the person asks the desktop: OSC 9 (the
#: terminals that know OSC 777 mostly know it too).
DEFAULT_DESKTOP_NOTIFICATIONS: Literal["off", "osc9", "osc777", "both"] = "osc9"
#: How long the agent may take to answer ``initialize`` before the person is told it is not
#: responding (it is still waited for; the person chooses to restart or quit).
DEFAULT_INITIALIZE_TIMEOUT = 30.0
#: Agent logs kept (one per agent run, the agent's stderr): the newest this many...
DEFAULT_LOG_KEEP = 30
#: ...taking at most this many megabytes together; older ones are deleted as acp-tui starts.
DEFAULT_LOG_MEGABYTES = 100.0
#: Checkpoints: files larger than this many KiB are left out of a snapshot (and said).
DEFAULT_CHECKPOINT_MAX_FILE_KB = 1024
#: Checkpoints: a folder with more files than this (not ignored) is too big to snapshot at
#: every turn: checkpoints are off there, and the person is told.
DEFAULT_CHECKPOINT_MAX_FILES = 50_000
#: Checkpoints: the newest turns kept per session...
DEFAULT_CHECKPOINT_KEEP_PER_SESSION = 100
#: ...and across all sessions; older ones are pruned.
DEFAULT_CHECKPOINT_KEEP_TOTAL = 2000
