"""The command palette shows outside words literally: Textual reads a system command's title
and help as markup, so every entry of ours goes through :func:`literal_command`, and entries
named by the config or the agent are :class:`AgentCommand` items (never parsed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.command import CommandList, CommandPalette
from textual.content import Content

from acp_tui.ui.palette import literal_markup
from tests.ui.chat_helpers import demo_app, wait_for, wait_for_ready

pytestmark = pytest.mark.anyio

#: Names a config may hold that markup would read: styles, an action, a closing tag alone,
#: a theme variable, backslashes before a bracket.
NAMES = ["[b]bold[/b]", "[@click=app.quit]quit[/]", "[/]", "[$accent]v", "back\\[i]slash"]


#: Text with no control characters (Content drops those whatever the markup).
PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs"))


@given(st.text(alphabet=st.sampled_from("[]\\/@$=b x#:")) | st.text(PRINTABLE))
def test_literal_markup_reads_back_as_the_text_and_nothing_else(text: str) -> None:
    content = Content.from_markup(literal_markup(text))
    assert content.plain == text and not content.spans


async def test_configured_agent_names_in_the_palette_are_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Show sessions of: NAME" for agents whose names look like markup: each shown as
    typed, the action in one never live; and no entry the app gives Textual has a style
    or an action Textual parsed from it."""
    config = tmp_path / "config.toml"
    config.write_text(
        "".join(f'[agents.{json.dumps(name)}]\ncommand = "true"\n\n' for name in NAMES)
    )
    monkeypatch.setenv("ACP_TUI_CONFIG", str(config))
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        for command in app.get_system_commands(screen):
            for text in (command.title, command.help):
                assert not Content.from_markup(text).spans, text
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"Show")
        palette = app.screen

        def shown() -> list[str]:
            commands = palette.query_one(CommandList)
            options = [commands.get_option_at_index(i) for i in range(commands.option_count)]
            return [str(option.prompt) for option in options]

        await wait_for(pilot, lambda: len(shown()) >= len(NAMES), "the entries")
        texts = "\n".join(shown())
        for name in NAMES:
            assert f"Show sessions of: {name}" in texts, texts
            assert f"Start {name} in the background" in texts, texts
        assert app.is_running
