"""Every session option of the demo agent in the chat: the bar, the popup, the keys, the
palette, a refused change, and choices kept for the new session."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Checkbox, Static

from acp_tui.store.entries import Notice
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.options import OptionsScreen
from acp_tui.ui.widgets.chat_bar import ChatBar
from acp_tui.ui.widgets.key_footer import KeyFooter
from acp_tui.ui.widgets.option_controls import OptionSelect, OptionToggle
from acp_tui.ui.widgets.prompt import PromptEditor
from tests.ui.chat_helpers import (
    agent_app,
    chat,
    demo_app,
    fixture_app,
    record_notifications,
    send,
    wait_for,
    wait_for_ready,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (120, 40)


def sent(screen: ChatScreen, method: str) -> list[dict[str, Any]]:
    out = []
    for record in screen.controller.client.connection.traffic:  # type: ignore[union-attr]
        if record.direction == "out" and record.text and f'"{method}"' in record.text:
            message = json.loads(record.text)
            if message.get("method") == method:
                out.append(message["params"])
    return out


def option_value(screen: ChatScreen, option_id: str) -> Any:
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    for option in state.config_options or []:
        if option.get("id") == option_id:
            return option.get("currentValue")
    return None


def last_reply(screen: ChatScreen) -> str:
    state = screen.store.get(screen.session_id or "")
    texts = [getattr(e, "text", "") for e in state.transcript] if state else []
    return texts[-1] if texts else ""


async def test_every_category_has_a_control_in_category_order(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await wait_for_session(pilot)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: len(bar.controls) == 7, "the controls")
        assert list(bar.controls) == [
            "config:mode",
            "config:model",
            "config:thought_level",
            "config:speed",
            "config:verbosity",
            "config:format",
            "config:confirm_tools",
        ]
        await wait_for(pilot, lambda: not bar.hidden, "room for all")
        thinking = bar.controls["config:thought_level"]
        assert isinstance(thinking, OptionSelect)
        assert thinking.label_text(thinking.value) == "Thinking: Medium"
        assert isinstance(bar.controls["config:confirm_tools"], OptionToggle)
        assert screen.query_one("#mode-select") is bar.controls["config:mode"]
        # The client said it shows booleans: the agent lists its toggle.
        caps = screen.controller.client.client_capabilities()  # type: ignore[union-attr]
        assert caps["session"]["configOptions"] == {"boolean": {}}


async def test_the_thought_level_key_and_select_reach_the_agent(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        screen.focus_prompt()
        await pilot.press("alt+t")
        await wait_for(pilot, lambda: option_value(screen, "thought_level") == "high", "high")
        assert sent(screen, "session/set_config_option")[-1] == {
            "sessionId": screen.session_id,
            "configId": "thought_level",
            "value": "high",
        }
        bar = screen.query_one(ChatBar)
        select = bar.controls["config:thought_level"]
        await wait_for(pilot, lambda: select.value == "high", "the select to follow")
        await send(pilot, "/think why")
        await wait_for(pilot, lambda: "level: **High**" in last_reply(screen), "the agent's level")
        # The select: Off, and the agent answers without thinking.
        select.value = "off"  # type: ignore[assignment]
        await wait_for(pilot, lambda: option_value(screen, "thought_level") == "off", "off")
        await send(pilot, "/think why")
        await wait_for(pilot, lambda: "Thinking is **Off**" in last_reply(screen), "no thinking")


async def test_a_speed_option_has_its_control_and_reaches_the_agent(tmp_path: Path) -> None:
    """The unstable ``speed`` category: a select like the others, right after the thinking
    level (it stays in view when room is short), and the agent answers at the new speed."""
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: "config:speed" in bar.controls, "the speed control")
        speed = bar.controls["config:speed"]
        assert isinstance(speed, OptionSelect)
        assert list(bar.controls).index("config:speed") == 3
        assert speed.label_text(speed.value) == "Speed: Standard"
        speed.value = "fast"  # type: ignore[assignment]
        await wait_for(pilot, lambda: option_value(screen, "speed") == "fast", "fast")
        assert sent(screen, "session/set_config_option")[-1] == {
            "sessionId": screen.session_id,
            "configId": "speed",
            "value": "fast",
        }
        await send(pilot, "hello")
        await wait_for(pilot, lambda: "at Fast speed" in last_reply(screen), "the agent's speed")


async def test_shift_tab_cycles_the_mode_only_from_the_prompt(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        # From "ask" the next mode is "code" (after "code" comes one that skips the permission
        # questions, which asks first: tests/ui/test_mode_danger.py).
        screen.options.choose("config:mode", "ask")
        await wait_for(pilot, lambda: option_value(screen, "mode") == "ask", "the Ask mode")
        screen.focus_prompt()
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: option_value(screen, "mode") == "code", "the next mode")
        state = screen.store.get(screen.session_id or "")
        assert state is not None and state.current_mode_id == option_value(screen, "mode")
        # Elsewhere Shift+Tab moves the focus back, and the mode stays.
        mode = option_value(screen, "mode")
        select = screen.query_one(ChatBar).controls["config:model"]
        select.focus()
        await pilot.pause()
        await pilot.press("shift+tab")
        await pilot.pause()
        assert screen.focused is not select
        assert option_value(screen, "mode") == mode
        assert len(sent(screen, "session/set_config_option")) == 2


async def test_one_mode_is_nothing_to_cycle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kimi and fast-agent offer one mode: the footer offered Shift+Tab "Mode", which did
    nothing. It is not offered, and Shift+Tab sends nothing."""
    monkeypatch.setenv("FIXTURE_AGENT_ONE_MODE", "1")
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: last_reply(screen) == "You said: hello", "the reply")
        state = screen.store.get(screen.session_id or "")
        assert state is not None and [m["id"] for m in state.available_modes or []] == ["code"]
        screen.focus_prompt()
        await pilot.pause()
        footer = screen.query_one(KeyFooter)
        assert "Mode" not in [entry.description for entry in footer.entries]
        await pilot.press("shift+tab")
        await pilot.pause()
        assert sent(screen, "session/set_mode") == []
        assert sent(screen, "session/set_config_option") == []


async def test_the_boolean_toggle_reaches_the_agent_from_the_popup(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_session(pilot)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: len(bar.options) == 7, "the options")
        # At 80 columns some options live in the popup only.
        assert "config:confirm_tools" in bar.hidden
        assert bar.more.display
        screen.options.open_popup()
        await wait_for(pilot, lambda: isinstance(app.screen, OptionsScreen), "the popup")
        popup = app.screen
        assert isinstance(popup, OptionsScreen)
        toggle = popup.controls["config:confirm_tools"]
        assert isinstance(toggle, Checkbox) and toggle.value is True
        # By keys alone: the first control has the focus, Tab goes down the rows.
        await wait_for(pilot, lambda: popup.focused is popup.controls["config:mode"], "focus")
        await pilot.press(*["tab"] * 6)
        assert popup.focused is toggle
        await pilot.press("space")
        await wait_for(pilot, lambda: option_value(screen, "confirm_tools") is False, "off")
        assert sent(screen, "session/set_config_option")[-1]["type"] == "boolean"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), "the chat")
        # The agent runs /run without asking now.
        await send(pilot, "/run echo hi")
        await wait_for(pilot, lambda: not screen.busy and "hi" in last_reply(screen), "the run")
        assert not screen.broker.pending


async def test_a_refused_change_is_said_and_the_control_shows_the_agents_value(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(200, 40), notifications=True) as pilot:
        screen = await wait_for_session(pilot)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: "config:verbosity" in bar.controls, "the controls")
        # An option value the agent does not have (as a stale list would offer).
        state = screen.store.get(screen.session_id)  # type: ignore[arg-type]
        options = [dict(o) for o in state.config_options]  # type: ignore[union-attr]
        verbosity = next(o for o in options if o["id"] == "verbosity")
        verbosity["options"] = [*verbosity["options"], {"value": "epic", "name": "Epic"}]
        screen.store.set_config_options(screen.session_id, options)  # type: ignore[arg-type]
        select = bar.controls["config:verbosity"]
        assert isinstance(select, OptionSelect)
        await wait_for(pilot, lambda: "Epic" in select.label_text("epic"), "the stale value")
        select.value = "epic"  # type: ignore[assignment]
        await wait_for(
            pilot,
            lambda: any("Not set: Reply length = Epic" in n.message for n in app._notifications),
            "the refusal",
        )
        # With the agent's reason, and what it put in the error's data (the values it has).
        refusal = next(n.message for n in app._notifications if "Not set" in n.message)
        assert "unknown value for verbosity: epic" in refusal and '"normal"' in refusal
        # Whole in the transcript, where a toast's cut cannot lose it.
        notices = [e.title for e in state.transcript if isinstance(e, Notice)]  # type: ignore[union-attr]
        assert any(
            n.startswith("Not set: Reply length = Epic: unknown value for verbosity: epic")
            and '"values": [' in n
            for n in notices
        ), notices
        await wait_for(pilot, lambda: select.value == "normal", "the agent's value again")
        assert option_value(screen, "verbosity") == "normal"


async def test_choices_for_the_new_session_go_out_before_its_first_prompt(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_session(pilot)  # learns what a new session of this agent offers
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), "the chat")
        screen = chat(app)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: "config:thought_level" in bar.controls, "remembered options")
        # Chosen as soon as the chat shows: whether the session opened early already or not,
        # the choice is the first prompt's.
        screen.focus_prompt()
        await pilot.press("alt+t")
        await wait_for(
            pilot, lambda: bar.controls["config:thought_level"].value == "high", "the choice"
        )
        await send(pilot, "/think")
        await wait_for(pilot, lambda: "level: **High**" in last_reply(screen), "high thinking")


async def test_an_agent_with_only_the_legacy_models_state_gets_a_model_picker(
    tmp_path: Path,
) -> None:
    from tests.test_additional_dirs import RECORDING_AGENT

    agent = tmp_path / "agent.py"
    agent.write_text(RECORDING_AGENT)
    log = tmp_path / "received.jsonl"
    app = agent_app([sys.executable, str(agent), str(log), "none"], tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: "models" in bar.controls, "the model picker")
        picker = screen.query_one("#model-select", OptionSelect)
        assert picker is bar.controls["models"] and picker.value == "small"
        assert picker.label_text("large") == "large" and picker.label_text("small") == "Small"
        picker.value = "large"
        await wait_for(pilot, lambda: '"session/set_model"' in log.read_text(), "set_model")
        state = screen.store.get(screen.session_id or "")
        assert state is not None
        await wait_for(
            pilot, lambda: (state.models or {}).get("currentModelId") == "large", "the model"
        )
        # The palette has it too.
        titles = [c.title for c in screen.agent_commands()]
        assert "Model: Small" in titles and "Session options" in titles


async def test_the_thinking_key_without_a_thinking_level_says_so_and_types_nothing(
    tmp_path: Path,
) -> None:
    """An agent with options but none of the thought_level category (mistral-vibe calls its
    own "thinking"): Alt+T types no "t" into the draft, a toast says why, nothing goes to
    the agent, and the options popup does not promise the key."""
    app = fixture_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        editor = screen.query_one(PromptEditor)
        await wait_for(pilot, lambda: screen.options.current() != [], "the agent's options")
        toasts = record_notifications(app)
        await pilot.press("a", "b")
        # As a terminal's Alt+T arrives (ESC t): with its character, which a text area types.
        app.post_message(events.Key("alt+t", "t"))
        await pilot.press("c")
        await wait_for(pilot, lambda: editor.text == "abc", "the draft, without a 't'")
        await wait_for(pilot, lambda: any("no thinking level" in t for t in toasts), "the toast")
        assert "Session options (Ctrl+P)" in next(t for t in toasts if "thinking" in t)
        assert sent(screen, "session/set_config_option") == []
        screen.options.open_popup()
        await wait_for(pilot, lambda: isinstance(app.screen, OptionsScreen), "the popup")
        help_text = str(app.screen.query_one("#options-help", Static).render())
        assert "Alt+T" not in help_text and "thinking" not in help_text, help_text
        assert "Shift+Tab cycles the mode." in help_text, help_text


async def test_the_options_popup_names_both_cycling_keys_when_both_have_options(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(pilot, lambda: len(screen.options.current()) > 2, "the agent's options")
        screen.options.open_popup()
        await wait_for(pilot, lambda: isinstance(app.screen, OptionsScreen), "the popup")
        help_text = str(app.screen.query_one("#options-help", Static).render())
        assert "Shift+Tab cycles the mode and Alt+T the thinking level." in help_text, help_text


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_a_select_of_the_bar_opens_upward_and_leaves_the_footer_whole(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """The bar is the row above the footer: its lists open above it (opened downward, a list
    covered the footer's keys and read "eCode  menu ^n New session")."""
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        screen = await wait_for_session(pilot)
        bar = screen.query_one(ChatBar)
        await wait_for(pilot, lambda: "config:model" in bar.controls, "the model select")
        select = bar.controls["config:model"]
        assert isinstance(select, OptionSelect)
        select.expanded = True
        await wait_for(pilot, lambda: select.choices_list is not None, "the list")
        overlay = select.choices_list
        assert overlay is not None
        await wait_for(pilot, lambda: overlay.region.height > 1, "the list laid out")
        await pilot.pause()
        assert overlay.region.bottom == select.region.y, (overlay.region, select.region)
        footer = screen.query_one(KeyFooter)
        assert not overlay.region.overlaps(footer.region)
        # Chosen from the list: it closes, and the value goes to the agent.
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: not select.expanded, "the list closed")
        await wait_for(pilot, lambda: sent(screen, "session/set_config_option") != [], "sent")
