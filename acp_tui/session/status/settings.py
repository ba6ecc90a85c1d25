"""What the status line shows in an agent's view: ``status_items`` and ``status_command``
(an agent's own over the config's top level, decided by the one resolver)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["STATUS_ITEMS", "StatusLineSettings"]

#: Every built-in item, in the order the README lists them.
STATUS_ITEMS: tuple[str, ...] = (
    "agent",
    "model",
    "mode",
    "context",
    "cost",
    "cwd",
    "git_branch",
    "elapsed",
    "turn_tokens",
)


@dataclass(frozen=True, slots=True)
class StatusLineSettings:
    """The built-in items, in the person's order, and the command (None: none)."""

    items: tuple[str, ...] = ()
    command: str | None = None

    @property
    def shown(self) -> bool:
        """Whether the line shows at all (nothing configured: it takes no room)."""
        return bool(self.items or self.command)
