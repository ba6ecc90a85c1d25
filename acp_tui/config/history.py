"""The prompts a person has sent, kept across runs.

Stored as JSON lines, one ``{"text": ..., "cwd": ...}`` object per prompt, oldest first
(``cwd``, the project it was sent in, is left out where unknown). Loading never
raises: a file that cannot be read or parsed is moved aside as ``<name>.corrupt`` and the
history starts empty. Saving writes a temporary file next to the target and renames it over
the target (``os.replace``), so a crash leaves either the old file or the new one, never half.

Pure Python, no Textual or Rich.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from acp_tui.text.safety import encodable

__all__ = ["Found", "InputHistory"]

log = logging.getLogger(__name__)


class Found(NamedTuple):
    """A prompt found in the history: its text, where it was sent, and whether that is the
    project searched from."""

    text: str
    cwd: str | None
    here: bool


class InputHistory:
    """A bounded list of sent prompts (oldest first), optionally backed by a file.

    ``path=None`` keeps the history in memory only. The file is read once, when the object is
    made; call :meth:`save` after :meth:`append` to write it (the prompt editor does)."""

    def __init__(self, path: Path | None = None, limit: int = 500) -> None:
        self.path = path
        self.limit = max(1, limit)
        self._entries: list[str] = []
        #: The project each entry was sent in (None: not known), beside :attr:`_entries`.
        self._cwds: list[str | None] = []
        self._lock = threading.Lock()
        self._saving: threading.Thread | None = None
        if path is not None:
            loaded = self._load(path)[-self.limit :]
            self._entries = [text for text, _cwd in loaded]
            self._cwds = [cwd for _text, cwd in loaded]

    # -- reading ---------------------------------------------------------------------------

    @property
    def entries(self) -> list[str]:
        """A copy of the entries, oldest first."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> str:
        return self._entries[index]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries))

    def search(self, query: str, cwd: str | None = None, limit: int = 200) -> list[Found]:
        """The prompts holding ``query`` (ignoring case; all of them for an empty query), one
        per text: those sent in ``cwd`` (at any time) first, then the others, each group
        newest first."""
        needle = query.casefold()
        here: dict[str, Found] = {}
        elsewhere: dict[str, Found] = {}
        with self._lock:
            pairs = list(zip(self._entries, self._cwds, strict=True))
        for text, where in reversed(pairs):
            if needle not in text.casefold():
                continue
            if cwd is not None and where == cwd:
                here.setdefault(text, Found(text, where, True))
            elif text not in elsewhere:
                elsewhere[text] = Found(text, where, False)
        others = [found for text, found in elsewhere.items() if text not in here]
        return [*here.values(), *others][:limit]

    # -- changing --------------------------------------------------------------------------

    def append(self, text: str, cwd: str | None = None) -> bool:
        """Add ``text`` (sent in the project ``cwd``) as the newest entry. Blank text and a
        repeat of the newest entry are not added. Returns whether the history changed."""
        if not text.strip():
            return False
        with self._lock:
            if self._entries and self._entries[-1] == text:
                return False
            self._entries.append(text)
            self._cwds.append(cwd)
            if len(self._entries) > self.limit:
                del self._entries[: len(self._entries) - self.limit]
                del self._cwds[: len(self._cwds) - self.limit]
        return True

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._cwds.clear()

    def save_in_background(self) -> threading.Thread:
        """:meth:`save` in a thread of its own, so that the caller (the prompt, on Enter) never
        waits for the disk: under another program's writes an ``fsync`` alone can take tens of
        milliseconds, which the person's next key would wait for. Each save snapshots the
        entries under the lock, so the last one to run writes the newest list. Not a daemon
        thread: the interpreter waits for it at exit, so a quit right after Enter keeps the
        prompt."""
        thread = threading.Thread(target=self.save, name="input-history-save")
        self._saving = thread
        thread.start()
        return thread

    def wait_saved(self, timeout: float | None = None) -> None:
        """Wait for the last :meth:`save_in_background` to end."""
        thread = self._saving
        if thread is not None:
            thread.join(timeout)

    def save(self) -> bool:
        """Write the history atomically. Returns False (and logs) when it could not be written;
        a history without a path saves nothing and returns True."""
        if self.path is None:
            return True
        path = self.path
        # Snapshot and write under one lock, so that concurrent saves land in order.
        with self._lock:
            payload = encodable(
                "".join(
                    json.dumps(
                        {"text": entry} if cwd is None else {"text": entry, "cwd": cwd},
                        ensure_ascii=False,
                    )
                    + "\n"
                    for entry, cwd in zip(self._entries, self._cwds, strict=True)
                )
            )
            tmp_name: str | None = None
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp_name = tempfile.mkstemp(
                    prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
                )
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(payload)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp_name, path)
                tmp_name = None
            except (OSError, ValueError) as error:
                log.warning("could not save input history to %s: %s", path, error)
                return False
            finally:
                if tmp_name is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp_name)
        return True

    # -- internals -------------------------------------------------------------------------

    @staticmethod
    def _load(path: Path) -> list[tuple[str, str | None]]:
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError, ValueError) as error:
            log.warning("input history %s is unreadable (%s); starting empty", path, error)
            InputHistory._set_aside(path)
            return []
        entries: list[tuple[str, str | None]] = []
        try:
            for line in raw.splitlines():
                if not line.strip():
                    continue
                item = json.loads(line)
                if isinstance(item, dict) and isinstance(item.get("text"), str):
                    cwd = item.get("cwd")
                    entries.append((item["text"], cwd if isinstance(cwd, str) else None))
                elif isinstance(item, str):
                    entries.append((item, None))
                else:
                    raise ValueError(f"unexpected entry {line[:80]!r}")
        except ValueError as error:  # json.JSONDecodeError is a ValueError
            log.warning("input history %s is corrupt (%s); starting empty", path, error)
            InputHistory._set_aside(path)
            return []
        return entries

    @staticmethod
    def _set_aside(path: Path) -> None:
        """Move a bad history file out of the way so the next save does not destroy it."""
        try:
            os.replace(path, path.with_name(path.name + ".corrupt"))
        except OSError as error:
            log.warning("could not move %s aside: %s", path, error)
