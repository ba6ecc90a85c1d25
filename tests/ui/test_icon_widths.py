"""Every symbol the UI draws has one width in every terminal (issue 38): an emoji that is text
by default (``✏``, ``⚙``, ``⚠``, ``▶``...) is drawn one cell wide by some terminals and two by
others, more so with the variation selector that asks for the emoji (``✏️``), and a width the
app and the terminal disagree on leaves a stray cell or shifts the rest of the row. So the UI
uses wide emoji (two cells everywhere: ``📝``, ``⚡``) or plain symbols (one cell: ``✗``,
``▸``), never one of those. Checked over every string the UI's code holds, with wcwidth's
tables (the emoji a variation selector widens are the ones terminals disagree on)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from wcwidth import wcswidth, wcwidth

ROOT = Path(__file__).resolve().parents[2] / "acp_tui"
#: Where the UI's drawn strings live: the UI, and the text helpers it draws through.
FOLDERS = [ROOT / "ui", ROOT / "text"]
VS16 = "\ufe0f"


def disagreed(char: str) -> bool:
    """A character terminals draw at different widths: the variation selector that makes an
    emoji of the character before it, or a character it would widen."""
    if char == VS16:
        return True
    if ord(char) < 0x80:
        return False
    return wcwidth(char) == 1 and wcswidth(char + VS16) == 2


def strings_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_the_check_knows_the_symbols_terminals_disagree_on() -> None:
    for char in "✏⚙⚠✖ℹ⏸▶🗑" + VS16:
        assert disagreed(char), char
    for char in "📝❌⚡📖🔍💭✓✗✎▸▾▲●☰·…→":
        assert not disagreed(char), char


@pytest.mark.parametrize(
    "path",
    [path for folder in FOLDERS for path in sorted(folder.rglob("*.py"))],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_no_string_the_ui_draws_holds_one(path: Path) -> None:
    found = [
        f"line {line}: {text!r} holds {char!r} (U+{ord(char):04X})"
        for line, text in strings_of(path)
        for char in text
        if disagreed(char)
    ]
    assert found == []


def test_every_fold_of_the_transcript_has_marks_of_one_width() -> None:
    """Textual's Collapsible draws ▶ and ▼ unless told otherwise."""
    for path in (ROOT / "ui").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Collapsible"
            ):
                given = {keyword.arg for keyword in node.keywords}
                assert {"collapsed_symbol", "expanded_symbol"} <= given, (
                    f"{path.relative_to(ROOT)}:{node.lineno}"
                )
