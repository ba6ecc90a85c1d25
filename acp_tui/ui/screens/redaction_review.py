"""Before a redacted export is written: every redaction, to keep or undo.

:class:`RedactionReview` lists what the redaction engine (:mod:`acp_tui.text.redaction`)
found in the export: each row its kind and rule, where it is (the entry and the line) and a
masked preview (never the secret whole), marked ``redact`` or ``keep``. Nothing is written
until the person says so. It arms like every dialog that acts
(:mod:`acp_tui.ui.screens.armed`): Up/Down move (at once), Space undoes or redoes the
highlighted redaction, ``a`` redacts all again, ``y`` (alone, once armed) or the Write button
writes the export; Escape cancels, and nothing is written. It dismisses with the numbers of
the findings the person undid, or None.
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Static

from acp_tui.text.redaction import Finding
from acp_tui.ui.agent_text import agent_line
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import (
    ArmedButton,
    ArmedDialog,
    ChoiceList,
    DialogOrigin,
    HintLine,
    TypingForwarder,
    is_typing,
)

__all__ = ["RedactionReview", "finding_row", "summary"]

_MOVES = {
    "up": "cursor_up",
    "down": "cursor_down",
    "home": "first",
    "end": "last",
    "pageup": "page_up",
    "pagedown": "page_down",
}


#: Each kind of finding, counted more than once.
_PLURALS = {
    "home directory": "home directories",
    "e-mail address": "e-mail addresses",
    "password in URL": "passwords in URLs",
}


def _plural(kind: str, count: int) -> str:
    return kind if count == 1 else _PLURALS.get(kind, kind + "s")


def finding_row(finding: Finding, undone: bool) -> Text:
    """``✓ redact  secret  sk-a•••••• (53 chars) · entry 1 (your message), line 1 · Anthropic
    key``: what and its masked preview first (what a narrow terminal keeps); the preview is
    the only agent text in it, drawn literally on one line."""
    row = Text("✗ keep    " if undone else "✓ redact  ", style="italic" if undone else "bold")
    row.append(f"{finding.kind}  ")
    row.append_text(agent_line(finding.preview, 80, style="strike" if undone else ""))
    row.append(f" · {finding.where}, line {finding.line} · {finding.rule}", style="dim")
    return row


def summary(findings: list[Finding], undone: set[int]) -> str:
    """``11 found · 9 to redact · 2 kept as written`` with the kinds counted."""
    kinds: dict[str, int] = {}
    for finding in findings:
        kinds[finding.kind] = kinds.get(finding.kind, 0) + 1
    counted = ", ".join(f"{count} {_plural(kind, count)}" for kind, count in kinds.items())
    kept = f" · {len(undone)} kept as written" if undone else ""
    return f"{len(findings)} found ({counted}) · {len(findings) - len(undone)} to redact{kept}"


class RedactionReview(ArmedDialog[frozenset[int]]):
    """Every redaction of an export, each kept or undone (see the module docstring)."""

    DEFAULT_CSS = """
    RedactionReview { align: center middle; }
    RedactionReview > Vertical {
        width: 96%; max-width: 140; height: 90%; padding: 0 1;
        background: $panel; border: thick $warning;
    }
    RedactionReview .title { text-style: bold; }
    RedactionReview #summary { color: $text-muted; height: auto; }
    RedactionReview #findings { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    RedactionReview #buttons { height: auto; align-horizontal: right; }
    RedactionReview ArmedButton { margin: 0 0 0 2; }
    RedactionReview #hint { color: $text-muted; height: auto; }
    RedactionReview.-unarmed #hint { color: $text-warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="close-dialog"),
    ]
    AUTO_FOCUS = ""

    def __init__(
        self,
        findings: list[Finding],
        *,
        what: str = "Markdown",
        origin: DialogOrigin | None = None,
        forward_typing: TypingForwarder | None = None,
        arm_delay: float | None = None,
    ) -> None:
        super().__init__(origin=origin, arm_delay=arm_delay, forward_typing=forward_typing)
        self.findings = findings
        self.what = what
        #: The numbers of the findings the person undid (left as written).
        self.undone: set[int] = set()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield self.origin_line()
            yield Label(
                Text(f"Export as {self.what}: these will be redacted before it is written"),
                classes="title",
            )
            yield Static(summary(self.findings, self.undone), id="summary")
            yield ChoiceList(
                *(finding_row(finding, False) for finding in self.findings), id="findings"
            )
            with Horizontal(id="buttons"):
                yield ArmedButton("Cancel", "cancel", id="cancel")
                yield ArmedButton("Write export", "write", variant="warning", id="write")
            yield HintLine(self._hint_text(), id="hint")

    def on_mount(self) -> None:
        self.set_class(not self.armed, "-unarmed")

    @property
    def highlighted(self) -> int | None:
        return self.query_one("#findings", ChoiceList).highlighted

    def _hint_text(self) -> KeyHints:
        if not self.armed:
            return KeyHints(["Keys arm in a moment; typing goes to the prompt", "Esc cancel"])
        return KeyHints(
            ["↑↓ move", "Space undo/redo", "a redact all", "y write export", "Esc cancel"]
        )

    def dialog_key(self, event: events.Key) -> None:
        key = event.key
        if key in _MOVES:
            event.stop()
            event.prevent_default()
            getattr(self.query_one("#findings", ChoiceList), f"action_{_MOVES[key]}")()
        elif key == "space" and self.highlighted is not None:
            # Space on the row moved to with the arrows: deliberate, at once.
            self.answer_key(event, partial(self.toggle, self.highlighted), hold=False)
        elif key == "a":
            self.answer_key(event, self.redact_all)
        elif key == "y":
            self.answer_key(event, partial(self.answer_button, "write", 0.0))
        elif is_typing(event):
            self.pass_on_key(event)

    def choice_clicked(self, index: int, at: float) -> None:
        self.query_one("#findings", ChoiceList).highlighted = index
        self.toggle(index)

    def toggle(self, index: int) -> None:
        """Undo the redaction ``index`` (leave it as written), or redo it."""
        self.undone.symmetric_difference_update({index})
        self._show(index)

    def redact_all(self) -> None:
        changed, self.undone = self.undone, set()
        for index in changed:
            self._show(index)

    def _show(self, index: int) -> None:
        findings = self.query_one("#findings", ChoiceList)
        findings.replace_option_prompt_at_index(
            index, finding_row(self.findings[index], index in self.undone)
        )
        self.query_one("#summary", Static).update(summary(self.findings, self.undone))

    def answer_button(self, name: str, at: float) -> None:
        self.settle(frozenset(self.undone) if name == "write" else None)

    async def action_dismiss(self, result: object = None) -> None:
        """Escape: nothing is written (at any time: leaving is never an accident)."""
        self.settle(None)
