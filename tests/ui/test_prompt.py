"""The prompt editor: sending, newlines, history, slash commands, @path mentions."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.config.history import InputHistory
from acp_tui.session.prompts.attachments import PromptCapabilities, build_prompt, find_mentions
from acp_tui.ui.models.commands import SlashCommand, agent_commands, match_commands
from acp_tui.ui.widgets import prompt_sources
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.prompt_completion import CompletionList
from acp_tui.ui.widgets.prompt_sources import FileIndex, scan_files
from tests.ui.chat_helpers import WAIT_LIMIT

COMMANDS: list[dict[str, Any]] = [
    {"name": "help", "description": "Show what the agent can do"},
    {"name": "plan", "description": "Draft a plan before editing", "input": {"hint": "task"}},
    {"name": "compact", "description": "Summarise the conversation so far"},
    {"name": "review", "description": "Review the pending changes", "input": None},
]


class PromptApp(App[None]):
    """A transcript stand-in and the editor docked at the bottom, like the chat screen. The app
    binds Escape (the screen cancels a turn with it) and records what the editor sends."""

    CSS = "PromptEditor { dock: bottom; }"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel_turn", "Cancel")]

    def __init__(
        self,
        *,
        cwd: Path | None = None,
        history: InputHistory | None = None,
        commands: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__()
        self._cwd = cwd
        self._history = history
        self._commands = commands if commands is not None else COMMANDS
        self.submitted: list[PromptEditor.Submitted] = []
        self.cancels = 0

    def compose(self) -> ComposeResult:
        yield Static("transcript")
        yield PromptEditor(history=self._history, cwd=self._cwd, commands=self._commands)

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        editor = self.query_one(PromptEditor)
        # As the chat screen gives it its controller's: files attached, the agent not known.
        cwd = self._cwd or Path.cwd()
        editor.builder = lambda text: build_prompt(text, cwd, PromptCapabilities())
        editor.focus()

    def action_cancel_turn(self) -> None:
        self.cancels += 1

    def on_prompt_editor_submitted(self, message: PromptEditor.Submitted) -> None:
        self.submitted.append(message)


def _editor(app: App[Any]) -> PromptEditor:
    return app.query_one(PromptEditor)


async def _type(pilot: Pilot[Any], text: str) -> None:
    await pilot.press(*["space" if char == " " else char for char in text])
    await pilot.pause()


async def _wait_for(pilot: Pilot[Any], condition: Any) -> None:
    """Poll (the file list for @ is scanned in a worker thread)."""
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.02)


async def _scans_done(pilot: Pilot[Any]) -> None:
    """Wait until no file scan is running and its result is applied: after this, a completion
    that an @ would open is open."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.fixture(autouse=True)
def _fresh_file_cache() -> None:
    prompt_sources.FILE_INDEXES.clear()


# -- sending and newlines ----------------------------------------------------------------------


@pytest.mark.anyio
async def test_enter_submits_and_clears() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        await _type(pilot, "hello agent")
        await pilot.press("enter")
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["hello agent"]
        assert app.submitted[0].blocks == [{"type": "text", "text": "hello agent"}]
        assert app.submitted[0].editor is _editor(app)
        assert _editor(app).text == ""
        assert _editor(app).text_area.has_focus


@pytest.mark.anyio
async def test_empty_and_blank_input_is_not_sent() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.press("enter")
        await _type(pilot, "   ")
        await pilot.press("ctrl+j", "enter")
        await pilot.pause()
        assert app.submitted == []
        assert len(_editor(app).history) == 0


@pytest.mark.anyio
async def test_newline_keys_insert_and_multiline_text_is_sent_intact() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        await _type(pilot, "one")
        await pilot.press("ctrl+j")
        await _type(pilot, "  two")
        await pilot.press("shift+enter")
        await _type(pilot, "three")
        await pilot.press("alt+enter")
        await _type(pilot, "four")
        assert _editor(app).text == "one\n  two\nthree\nfour"
        await pilot.press("enter")
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["one\n  two\nthree\nfour"]
        assert app.submitted[0].blocks[0] == {"type": "text", "text": "one\n  two\nthree\nfour"}


@pytest.mark.anyio
async def test_editor_grows_with_content_then_scrolls() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 30)) as pilot:
        area = _editor(app).text_area
        assert area.content_region.height == 1
        await _type(pilot, "a")
        for _ in range(3):
            await pilot.press("ctrl+j", "x")
        await pilot.pause()
        assert area.content_region.height == 4
        for _ in range(10):
            await pilot.press("ctrl+j", "x")
        await pilot.pause()
        assert area.content_region.height == 8
        assert area.max_scroll_y > 0


# -- history -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_up_and_down_browse_history_and_keep_the_draft() -> None:
    history = InputHistory(None)
    for text in ("first", "second\nprompt", "third"):
        history.append(text)
    app = PromptApp(history=history)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "my draft")
        await pilot.press("up")
        assert editor.text == "third"
        assert editor.draft == "my draft"  # an unedited recalled prompt is not the draft
        await pilot.press("up")
        assert editor.text == "second\nprompt"
        # The cursor is at the end (second line): Up first moves within the prompt...
        await pilot.press("up")
        assert editor.text == "second\nprompt"
        assert editor.text_area.cursor_location[0] == 0
        # ...then, on the first line, recalls the one before.
        await pilot.press("up")
        assert editor.text == "first"
        await pilot.press("up")  # the oldest: stays
        assert editor.text == "first"
        await pilot.press("down", "down")
        assert editor.text == "third"
        await pilot.press("down")
        assert editor.text == "my draft"
        assert editor.draft == "my draft"
        await pilot.press("down")  # not browsing: an ordinary cursor move
        assert editor.text == "my draft"


@pytest.mark.anyio
async def test_edits_to_a_recalled_prompt_are_kept_while_browsing() -> None:
    history = InputHistory(None)
    history.append("old one")
    history.append("old two")
    app = PromptApp(history=history)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "draft")
        await pilot.press("up")
        await _type(pilot, " edited")
        assert editor.text == "old two edited"
        assert editor.draft == "old two edited"
        await pilot.press("up")
        assert editor.text == "old one"
        await pilot.press("down")
        assert editor.text == "old two edited"
        await pilot.press("down")
        assert editor.text == "draft"
        assert history.entries == ["old one", "old two"]  # history itself is untouched


@pytest.mark.anyio
async def test_up_on_empty_editor_recalls_and_sending_records_history(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    history = InputHistory(path)
    app = PromptApp(history=history)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await pilot.press("up")  # nothing to recall: nothing happens
        assert editor.text == ""
        await _type(pilot, "remember me")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("up")
        assert editor.text == "remember me"
    history.wait_saved(timeout=30)
    assert InputHistory(path).entries == ["remember me"]


@pytest.mark.anyio
async def test_set_draft_replaces_text_and_ends_browsing() -> None:
    history = InputHistory(None)
    history.append("sent")
    app = PromptApp(history=history)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await pilot.press("up")
        editor.set_draft("restored\ndraft")
        await pilot.pause()
        assert editor.text == "restored\ndraft"
        assert editor.draft == "restored\ndraft"
        assert editor.text_area.cursor_location == (1, 5)
        await pilot.press("down")  # not browsing any more
        assert editor.text == "restored\ndraft"
        editor.set_draft("/help")  # loaded text does not pop up completions
        await pilot.pause()
        assert not editor.completion_open


# -- slash commands ----------------------------------------------------------------------------


def _option_texts(editor: PromptEditor) -> list[str]:
    options = editor._list.options
    return [str(option.prompt) for option in options]


@pytest.mark.anyio
async def test_slash_lists_commands_with_descriptions_filters_and_tab_completes() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/")
        assert editor.completion_open
        texts = _option_texts(editor)
        assert len(texts) == 4
        assert texts[0] == "/help  Show what the agent can do"
        assert texts[1] == "/plan <task>  Draft a plan before editing"
        await _type(pilot, "p")
        # "p" starts /plan; /help and /compact contain it.
        assert [t.split()[0] for t in _option_texts(editor)] == ["/plan", "/help", "/compact"]
        await _type(pilot, "l")
        assert [t.split()[0] for t in _option_texts(editor)] == ["/plan"]
        await pilot.press("tab")
        await pilot.pause()
        assert editor.text == "/plan "
        assert editor.text_area.cursor_location == (0, 6)
        assert not editor.completion_open
        assert app.submitted == []


@pytest.mark.anyio
async def test_command_names_with_spaces_narrow_past_the_space() -> None:
    """Gemini CLI's commands are named "memory show", "memory add"…: the list closed at the
    space and ``/memory sh`` could not narrow it. It stays open while a name goes on, and
    closes once the text is a command and its argument."""
    commands = [
        {"name": "memory show", "description": "Show the memory"},
        {"name": "memory add", "description": "Add to the memory", "input": {"hint": "text"}},
        {"name": "help", "description": "Help"},
    ]
    app = PromptApp(commands=commands)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/memory ")
        assert editor.completion_open
        assert [t.split("  ")[0] for t in _option_texts(editor)] == [
            "/memory show",
            "/memory add <text>",
        ]
        await _type(pilot, "sh")
        assert [t.split("  ")[0] for t in _option_texts(editor)] == ["/memory show"]
        await pilot.press("tab")
        await pilot.pause()
        assert editor.text == "/memory show "
        editor.set_draft("")
        await _type(pilot, "/memory add notes")
        assert not editor.completion_open


@pytest.mark.anyio
async def test_slash_list_up_down_and_enter_completes() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/")
        await pilot.press("down", "down", "up", "down")
        await pilot.press("enter")
        await pilot.pause()
        assert editor.text == "/compact "
        assert app.submitted == []
        await _type(pilot, "now")
        await pilot.press("enter")
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["/compact now"]


@pytest.mark.anyio
async def test_enter_on_a_fully_typed_command_without_input_sends_it() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/help")
        assert editor.completion_open
        await pilot.press("enter")
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["/help"]


@pytest.mark.anyio
@pytest.mark.parametrize("trigger", ["/pl", "see @RE"])
async def test_keys_that_outrun_the_list_are_judged_on_the_text_as_it_is(
    tmp_path: Path, trigger: str
) -> None:
    """A terminal delivers "/plan fix it⏎" in one burst: the list learns of the space only
    after Enter is handled. Enter once completed the stale list ("/plan " in place of
    "/plan fix it") and dropped the rest of what was typed."""
    (tmp_path / "README.md").write_text("x")
    app = PromptApp(cwd=tmp_path)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, trigger)
        await _wait_for(pilot, lambda: editor.completion_open)
        rest = " fix it"
        for char in rest:
            app.post_message(events.Key("space" if char == " " else char, char))
        app.post_message(events.Key("enter", "\r"))
        await _wait_for(pilot, lambda: bool(app.submitted))
        assert [m.text for m in app.submitted] == [trigger + rest]
        assert editor.text == ""


@pytest.mark.anyio
async def test_enter_typed_faster_than_the_list_follows_sends_what_was_typed() -> None:
    """Keys arrive in one burst (a fast typist, a paste-like burst from the terminal): Enter
    is handled before the list has caught up with the text. What was typed is sent, not the
    first entry of the list made for "/"."""
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/")
        assert editor.completion_open and _option_texts(editor)[0].startswith("/help")
        editor.text_area.insert("compact")  # no pause: its Changed message is not handled yet
        assert editor._handle_key("enter")
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["/compact"]
        assert editor.text == ""


ALIKE: list[dict[str, Any]] = [
    {"name": "planner", "description": "Plan with a planner", "input": {"hint": "task"}},
    {"name": "plan", "description": "Draft a plan", "input": {"hint": "clear (optional)"}},
    {"name": "help", "description": "Help"},
]


@pytest.mark.anyio
@pytest.mark.parametrize("paced", [True, False], ids=["typed slowly", "one burst"])
@pytest.mark.parametrize(
    ("typed", "sent", "left"),
    [
        # A whole name is sent, a hint or not (the agent's input is optional: /plan's
        # first Enter only completed it), also when a longer name starts with it.
        ("/plan", ["/plan"], ""),
        ("/help", ["/help"], ""),
        # The start of one name only: that command is sent.
        ("/plann", ["/planner"], ""),
        ("/he", ["/help"], ""),
        # Several candidates: Enter completes the highlighted one (the first).
        ("/pla", [], "/planner "),
        ("/", [], "/planner "),
        # A name and its input: sent as typed.
        ("/plan clear", ["/plan clear"], ""),
    ],
)
async def test_enter_sends_a_whole_or_unambiguous_command_and_completes_otherwise(
    paced: bool, typed: str, sent: list[str], left: str
) -> None:
    """The same whether the keys were typed slowly or came in one burst, Enter handled before
    the list could show."""
    app = PromptApp(commands=ALIKE)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        if paced:
            await _type(pilot, typed)
            await pilot.press("enter")
        else:
            for char in typed:
                name = {"/": "slash", " ": "space"}.get(char, char)
                app.post_message(events.Key(name, char))
            app.post_message(events.Key("enter", "\r"))
        await pilot.pause()
        await pilot.pause()
        assert [m.text for m in app.submitted] == sent
        assert editor.text == left


@pytest.mark.anyio
async def test_tab_completes_a_whole_name_without_sending_it() -> None:
    app = PromptApp(commands=ALIKE)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/plan")
        # The exact name is highlighted, though "planner" comes first in the agent's order.
        assert editor._list.highlighted == 1
        await pilot.press("tab")
        await pilot.pause()
        assert editor.text == "/plan "
        assert app.submitted == []


@pytest.mark.anyio
async def test_a_recalled_command_is_sent_again_with_enter() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/plan")
        await pilot.press("escape", "enter")  # sent as typed
        await pilot.pause()
        await pilot.press("up", "enter")  # the same again, from the history
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["/plan", "/plan"]
        editor.set_draft("/plan")  # a draft put back whole (a restart, a session switch)
        await pilot.press("enter")
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["/plan", "/plan", "/plan"]


@pytest.mark.anyio
async def test_enter_after_escape_closed_the_list_sends_the_text_as_it_is() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/plan")
        assert editor.completion_open
        await pilot.press("escape", "enter")
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["/plan"]


@pytest.mark.anyio
async def test_no_list_when_nothing_matches_or_slash_is_not_first() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/zzz")
        assert not editor.completion_open
        await pilot.press("enter")
        await pilot.pause()
        assert [m.text for m in app.submitted] == ["/zzz"]
        await _type(pilot, "see /help")
        assert not editor.completion_open


@pytest.mark.anyio
async def test_commands_set_later_are_offered() -> None:
    app = PromptApp(commands=[])
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/")
        assert not editor.completion_open
        await pilot.press("backspace")
        editor.commands = [{"name": "deploy", "description": "Ship it"}]
        await _type(pilot, "/d")
        assert _option_texts(editor) == ["/deploy  Ship it"]


@pytest.mark.anyio
async def test_escape_closes_the_list_and_is_otherwise_left_to_the_screen() -> None:
    app = PromptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "/he")
        assert editor.completion_open
        await pilot.press("escape")
        await pilot.pause()
        assert not editor.completion_open
        assert app.cancels == 0  # consumed by the list
        assert editor.text == "/he"
        await pilot.press("escape")
        await pilot.pause()
        assert app.cancels == 1  # no list: the app's binding ran
        assert editor.text == "/he"
        assert editor.text_area.has_focus


@pytest.mark.anyio
async def test_command_descriptions_are_shown_literally() -> None:
    app = PromptApp(commands=[{"name": "x", "description": "[b]bold?[/b] \x1b[31mred"}])
    async with app.run_test(size=(80, 20)) as pilot:
        await _type(pilot, "/")
        assert _option_texts(_editor(app)) == ["/x  [b]bold?[/b] red"]


# -- @path mentions ----------------------------------------------------------------------------


def _make_tree(root: Path) -> None:
    for relative in (
        "README.md",
        "src/app/main.py",
        "src/app/models.py",
        "src/util.py",
        "docs/my notes.md",
        ".env",
        ".git/config",
        ".hidden/secret.py",
        "node_modules/pkg/main.js",
        "__pycache__/main.cpython-311.pyc",
        ".venv/lib/site.py",
    ):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")


@pytest.mark.anyio
async def test_at_path_completes_files_and_submit_adds_resource_links(tmp_path: Path) -> None:
    _make_tree(tmp_path)
    app = PromptApp(cwd=tmp_path)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        # An agent that takes only the baseline (text and links): files go as links.
        editor.builder = lambda text: build_prompt(text, tmp_path, PromptCapabilities.baseline())
        await _type(pilot, "look at @mai")
        await _wait_for(pilot, lambda: editor.completion_open)
        assert _option_texts(editor) == ["src/app/main.py"]  # not node_modules, not caches
        await pilot.press("tab")
        await pilot.pause()
        assert editor.text == "look at @src/app/main.py "
        await _type(pilot, "and @util")
        await _wait_for(pilot, lambda: editor.completion_open)
        await pilot.press("enter")  # completes, does not send
        await pilot.pause()
        assert app.submitted == []
        await _type(pilot, "and @nowhere.py")
        assert not editor.completion_open
        await pilot.press("enter")
        await pilot.pause()
    [message] = app.submitted
    text = "look at @src/app/main.py and @src/util.py and @nowhere.py"
    assert message.text == text
    assert message.blocks == [
        {"type": "text", "text": text},
        {
            "type": "resource_link",
            "uri": (tmp_path / "src/app/main.py").resolve().as_uri(),
            "name": "src/app/main.py",
            "mimeType": "text/x-python",
            "size": 1,
        },
        {
            "type": "resource_link",
            "uri": (tmp_path / "src/util.py").resolve().as_uri(),
            "name": "src/util.py",
            "mimeType": "text/x-python",
            "size": 1,
        },
    ]


@pytest.mark.anyio
async def test_at_path_with_spaces_is_quoted(tmp_path: Path) -> None:
    _make_tree(tmp_path)
    app = PromptApp(cwd=tmp_path)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "@notes")
        await _wait_for(pilot, lambda: editor.completion_open)
        await pilot.press("tab")
        await pilot.pause()
        assert editor.text == '@"docs/my notes.md" '
        await pilot.press("enter")
        await pilot.pause()
    # The agent is not known here: the file's text is embedded (a baseline agent gets a link
    # named "docs/my notes.md", see test_mentions_and_blocks).
    block = app.submitted[0].blocks[1]
    assert block["resource"]["uri"] == (tmp_path / "docs/my notes.md").resolve().as_uri()


@pytest.mark.anyio
async def test_at_needs_a_word_start_and_a_character(tmp_path: Path) -> None:
    _make_tree(tmp_path)
    app = PromptApp(cwd=tmp_path)
    async with app.run_test(size=(80, 20)) as pilot:
        editor = _editor(app)
        await _type(pilot, "mail me@read")
        await _scans_done(pilot)
        assert not editor.completion_open
        await _type(pilot, " @")
        await _scans_done(pilot)
        assert not editor.completion_open


# -- pure helpers ------------------------------------------------------------------------------


def test_scan_skips_ignored_and_hidden_dirs_and_is_bounded(tmp_path: Path) -> None:
    _make_tree(tmp_path)
    assert scan_files(tmp_path) == [
        ".env",
        "README.md",
        "docs/my notes.md",
        "src/util.py",
        "src/app/main.py",
        "src/app/models.py",
    ]
    assert scan_files(tmp_path, limit=3) == [".env", "README.md", "docs/my notes.md"]


def test_file_index_ranks_name_prefix_then_name_then_path_then_fuzzy() -> None:
    index = FileIndex(
        Path("/r"),
        ["lib/xmain.py", "main/a.py", "tests/main_test.py", "src/main.py", "m/a/i/n.txt"],
    )
    assert index.match("main") == [
        "src/main.py",
        "tests/main_test.py",
        "lib/xmain.py",
        "main/a.py",
        "m/a/i/n.txt",
    ]
    # Case-insensitive; the fuzzy matches (characters in order) come last, shortest first.
    assert index.match("MAIN.PY") == [
        "src/main.py",
        "lib/xmain.py",
        "main/a.py",
        "tests/main_test.py",
    ]
    assert index.match("", limit=2) == ["lib/xmain.py", "main/a.py"]


def test_match_commands_prefix_first_then_contains() -> None:
    rows = agent_commands(COMMANDS)
    assert [c.name for c in match_commands("e", rows)] == ["help", "review"]
    assert [c.name for c in match_commands("", rows)] == [c["name"] for c in COMMANDS]


def test_mentions_and_blocks(tmp_path: Path) -> None:
    _make_tree(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("x")
    text = f'see @README.md, @"docs/my notes.md" and @README.md again, @{outside} and a@b.c'
    assert find_mentions(text) == [
        "README.md,",
        "docs/my notes.md",
        "README.md",
        str(outside),
    ]
    blocks = build_prompt(text, tmp_path, PromptCapabilities.baseline()).blocks
    assert blocks[0] == {"type": "text", "text": text}
    assert [(b["name"], b["uri"]) for b in blocks[1:]] == [
        ("README.md", (tmp_path / "README.md").resolve().as_uri()),
        ("docs/my notes.md", (tmp_path / "docs" / "my notes.md").resolve().as_uri()),
        (str(outside), outside.resolve().as_uri()),
    ]


# -- snapshot ----------------------------------------------------------------------------------


def test_snapshot_slash_command_list(snap_compare: Any) -> None:
    """The editor docked at the bottom with "/" typed: above it, a bordered list of four
    commands, the first (/help) highlighted; each row shows the bold /name, then an input
    hint in angle brackets where the command has one (<task> for /plan), then the description
    in a muted colour. The editor below shows "/" and the cursor."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("/")
        await pilot.pause()

    assert snap_compare(PromptApp(), terminal_size=(80, 20), run_before=run_before)


@pytest.mark.parametrize(
    ("hint", "shown"),
    [
        ("task", "<task>"),
        # fast-agent's hints carry their own brackets: shown as they are, not doubled.
        ("[summary|<tool-name>]", "[summary|<tool-name>]"),
        ("<tool-name>", "<tool-name>"),
        ("(optional) instructions", "(optional) instructions"),
        ("  <path>", "<path>"),
    ],
)
def test_a_command_hint_is_bracketed_once(hint: str, shown: str) -> None:
    command = SlashCommand("tools", "List tools", hint)
    row = CompletionList.command_prompt(command).plain
    assert row == f"/tools {shown}  List tools"


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (120, "Message the agent · Enter to send · Shift+Enter or Ctrl+J for a new line"),
        (60, "Message the agent · Enter to send"),
        (30, "Message the agent"),
        (12, "Message the agent"),  # the first phrase stays, cut by the area as before
    ],
)
@pytest.mark.anyio
async def test_the_placeholder_keeps_the_phrases_that_fit(columns: int, expected: str) -> None:
    """At 80 columns beside the sidebar, it was cut mid-phrase ("Enter to send ·"). It follows
    the width: a resize gives the longer one back."""
    app = PromptApp()
    async with app.run_test(size=(columns, 20)) as pilot:
        area = _editor(app).text_area
        await _wait_for(pilot, lambda: str(area.placeholder) == expected)
        assert len(str(area.placeholder)) < area.content_size.width or columns == 12
        await pilot.resize_terminal(120, 20)
        await _wait_for(pilot, lambda: str(area.placeholder).endswith("for a new line"))
