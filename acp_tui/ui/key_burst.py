"""Typing is never an answer: an answer key acts only when it stands alone.

A dialog that pops up while the person types (a permission, a form, a sign-in) must not take
the first key of their next message as an answer: "1 more thing" chose option 1, a leading
``r`` toggled the raw view. The arming gate (:mod:`acp_tui.ui.screens.armed`) already keeps
every key typed before the dialog was on screen, or while typing went on, away from the
answers. What it cannot see is the *next* key: a lone ``1`` and the ``1`` of "1 more" look the
same when they arrive. So an answer key is *held* for :data:`BURST_WINDOW`: if another key (or
a paste) comes within that time it was the start of a burst of typing and goes, with the rest,
to the prompt; if nothing comes, it acts.

The window: people's keys follow each other by 0.1-0.25 s while they type a word (median
inter-key times of ordinary typists are about 0.2 s), and a terminal or multiplexer delivers a
burst in one read. 0.3 s catches the second key of nearly every typed burst and keeps a
deliberate answer under a third of a second, below the half second after which the dialog arms
in the first place. Pure Python (no Textual): the rule is tested on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["BURST_WINDOW", "HeldKey", "KeyHold"]

#: Seconds an answer key waits for a next key before it acts (see the module docstring).
BURST_WINDOW = 0.3


@dataclass(frozen=True, slots=True)
class HeldKey:
    """An answer key waiting to see whether it stands alone."""

    key: str
    #: What the key types, were it typing ("" for Enter and keys that type nothing).
    text: str
    #: When it was typed (the input event's time).
    at: float
    #: What it does if it stands alone.
    act: Callable[[], object]


class KeyHold:
    """At most one held answer key, and the rule that decides what it was.

    :meth:`hold` a key; then either :meth:`next_input` (another key or a paste arrived) or
    :meth:`due` (the window passed) says whether it stood alone (act on it) or started a
    burst (it is typing). Whatever is decided, the key is no longer held."""

    def __init__(self, window: float = BURST_WINDOW) -> None:
        self.window = window
        self.held: HeldKey | None = None

    def hold(self, key: HeldKey) -> HeldKey | None:
        """Hold ``key``; a key held before it (not decided yet) is returned, as typing."""
        earlier, self.held = self.held, key
        return earlier

    def deadline(self) -> float | None:
        """When the held key stands alone if nothing else comes (None: nothing held)."""
        return None if self.held is None else self.held.at + self.window

    def starts_burst(self, key: HeldKey, next_at: float) -> bool:
        """Whether input at ``next_at`` follows ``key`` closely enough to be one burst."""
        return next_at - key.at < self.window

    def next_input(self, at: float) -> tuple[HeldKey | None, bool]:
        """Another key or a paste came at ``at``: (the held key, whether it stood alone).
        A key within the window was the start of typing; one after it stood alone (its
        decision was due and had not been taken yet)."""
        held, self.held = self.held, None
        if held is None:
            return None, False
        return held, not self.starts_burst(held, at)

    def due(self, now: float) -> HeldKey | None:
        """The held key, if it stood alone by ``now`` (then it is no longer held)."""
        held = self.held
        if held is None or now < held.at + self.window:
            return None
        self.held = None
        return held

    def release(self) -> HeldKey | None:
        """Stop holding (the dialog went, or was covered): the key, to be treated as typing."""
        held, self.held = self.held, None
        return held
