"""The views' state and the person's intents, in plain Python: no Textual, no Rich.

A screen or a widget draws what a model holds and hands it what the person did; the model
decides, through the session controller and the store. So the rules of a view (which draft
goes with which session, what a message typed while the agent starts becomes, when the list
asks for its next page) are tested without an app (tests/ui/models/), and the widgets stay
thin. The contract "Views' models import no Textual or Rich" in pyproject.toml keeps it so.
"""

from __future__ import annotations

from typing import Literal, Protocol

__all__ = ["KeyLabel", "Notify", "Severity"]

Severity = Literal["information", "warning", "error"]


class Notify(Protocol):
    """A toast: what the screen shows of a message (one or two lines, never markup)."""

    def __call__(
        self,
        message: str,
        *,
        title: str = "",
        severity: Severity = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None: ...


class KeyLabel(Protocol):
    """The key of a binding, by its id, as the person configured it ("Ctrl+R"), or
    ``fallback`` when it has none."""

    def __call__(self, binding_id: str, fallback: str = "(no key)", /) -> str: ...
