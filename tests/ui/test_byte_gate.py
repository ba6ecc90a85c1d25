"""One gate for bytes (issue 36): whatever text from outside an app shows, nothing of it reaches
the terminal as a control sequence, on every surface.

Hypothesis makes hostile strings (OSC 52, 2 and 8, CSI of every kind, DCS/APC/PM/SOS, their
8-bit C1 forms, lone ESC, BEL, every C0 control, bidi overrides, zero-width and tag
characters, lone surrogates, very long runs, markup); the mirror agent
(:mod:`tests.agents.mirror_agent`) puts them into every field of the protocol and the tests put
them in file names, and the real app shows them on every surface: the transcript (messages,
thoughts, tool calls, diffs, terminals, plans, notices, compactions, unknown updates), the
header, the session options, the permission dialog, the form and the page-visit dialog, the
sidebar's rows, toasts, the command palette, the prompt's completion lists (commands and
files), the option selects, the inspector and the context panel; the sign-in picker and the
agent's name at start.

Everything the app writes to its terminal is captured (:mod:`tests.terminal_bytes`) and read
as a terminal reads it: no OSC but the app's own title, no DCS/APC/PM/SOS, no CSI but the
app's own set, no C0 or C1 control in text, nothing hidden.

Each test runs twice: with the last gate (the ``inert-output`` Textual patch, which cleans
every line at the step where Textual turns it into terminal output) and without it, where the
first gate (every surface's own sanitising) must hold alone, and where every line Textual is
handed is checked before it becomes bytes: no widget may give it a control character.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import OptionList, Select

from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.chat import ChatScreen
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.textual_patches import ENV, inert_output
from acp_tui.ui.widgets import prompt_sources
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from tests.agents import mirror_agent
from tests.terminal_bytes import Capture, assert_app_own, capture_writes, strip_is_inert
from tests.ui.chat_helpers import (
    app_settings,
    chat,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

SIZE = (120, 40)
MIRROR = [sys.executable, str(Path(mirror_agent.__file__).resolve())]

# ------------------------------------------------------------------------ hostile strings

_FIXED = [
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52: the clipboard
    "\x1b]52;c;ZXZpbA==\x1b\\",
    "\x9d52;c;ZXZpbA==\x9c",  # its 8-bit form
    "\x1b]2;pwned\x07",  # OSC 2: the window title
    "\x1b]0;pwned\x1b\\",
    "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",  # OSC 8: a hyperlink
    "\x1b]1337;File=inline=1:AAAA\x07",
    "\x1bPq#0;2;0;0;0#0~~\x1b\\",  # DCS (sixel)
    '\x1bP$q"p\x1b\\',  # DECRQSS: asks the terminal to answer
    "\x1b_Gf=100;AAAA\x1b\\",  # APC (kitty graphics)
    "\x1b^privacy\x1b\\",  # PM
    "\x1bXstring\x1b\\",  # SOS
    "\x90dcs\x9c",
    "\x9fapc\x9c",
    "\x9epm\x9c",
    "\x98sos\x9c",
    "\x1b]52;c;unterminated",
    "\x1bPunterminated",
    "\x1b",  # lone ESC
    "\x1bc",  # full reset
    "\x1b7\x1b8",
    "\x1b(0",
    "\x1b[?1049h",
    "\x1b[2J\x1b[H",
    "\x1b[6n",  # asks the terminal for the cursor position
    "\x1b[21t",  # asks for the window title
    "\x1b[?2004l",
    "\x1b[>0q",
    "\x1b[1;31m",
    "\x1b[5;5H",
    "\x07",
    "\x9b31m",
    "\x9b2J",
    "\u202e",
    "\u202a\u202b\u202c\u202d",
    "\u2066\u2067\u2068\u2069",
    "\u200e\u200f\u061c",
    "\u200b\u2060\ufeff\u00ad",
    "\U000e0041\U000e0042\U000e007f",
    "\u2028\u2029",
    "\ud800",
    "\udfff",
    "[/][@click=app.quit]Q[/][link=https://evil.example]L[/link][b]",
    "👨\u200d👩\u200d👧",
    "ب\u200cی",
]

_CONTROL = st.characters(min_codepoint=0, max_codepoint=0x9F).filter(lambda c: not c.isprintable())
_CSI = st.builds(
    lambda intro, params, inter, final: intro + params + inter + final,
    st.sampled_from(["\x1b[", "\x9b"]),
    st.text(alphabet="0123456789;:<=>?", max_size=8),
    st.text(alphabet=" !\"#$%&'()*+,-./", max_size=2),
    st.characters(min_codepoint=0x40, max_codepoint=0x7E),
)
_STRING = st.builds(
    lambda intro, body, end: intro + body + end,
    st.sampled_from(
        ["\x1b]", "\x1bP", "\x1bX", "\x1b^", "\x1b_", "\x9d", "\x90", "\x98", "\x9e", "\x9f"]
    ),
    st.text(max_size=12),
    st.sampled_from(["\x07", "\x1b\\", "\x9c", ""]),
)
_PIECE = st.one_of(
    st.sampled_from(_FIXED),
    _CSI,
    _STRING,
    _CONTROL,
    st.text(max_size=8),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=4),
    st.builds(
        lambda piece, times: piece * times,
        st.sampled_from(["x", "word ", "\x1b[1m", "\u200b"]),
        st.integers(1, 3000),
    ),
)
#: One hostile string: a few pieces joined (so a sequence may split a word, or end a string).
HOSTILE = st.lists(_PIECE, min_size=1, max_size=8).map("".join)
#: What one run mirrors: field n gets string n modulo their count.
PAYLOADS = st.lists(HOSTILE, min_size=3, max_size=7)

#: An example runs a turn of the real app (some 10 s here, mostly waiting): few of them, and no
#: shrinking (a failure names the strings and the sequences that got through, which is what
#: there is to know). Every run draws new strings; the ones that failed come back first.
EXAMPLES = settings(
    max_examples=4,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

# ------------------------------------------------------------------------ the two gates


@dataclass
class Gate:
    """What guards the terminal in this run, and every line handed to Textual that would
    have carried a control character (or hidden text) to it."""

    name: str
    leaks: list[str] = field(default_factory=list)


@pytest.fixture(params=["both-gates", "first-gate"])
def gate(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """``both-gates``: the app as it runs, its last gate on (the ``inert-output`` patch, on
    besides whatever else the run's ``ACP_TUI_PATCHES`` says). ``first-gate``: that patch off,
    every surface's own sanitising alone; each line Textual turns into terminal output
    (:meth:`Strip.render`) is looked at first: a widget handing it a control character is a
    leak, whether or not the bytes show it."""
    gate = Gate(request.param)
    spec = os.environ.get(ENV) or "all"
    if gate.name == "both-gates":
        monkeypatch.setenv(ENV, f"{spec},+inert-output")
        yield gate
        return
    monkeypatch.setenv(ENV, f"{spec},-inert-output")
    inert_output.uninstall()  # an earlier app's (the one made here leaves it off)
    render = Strip.render

    def checked(strip: Strip, console: Any) -> str:
        if strip._render_cache is None and not strip_is_inert(strip):
            gate.leaks.append(repr(strip.text.strip()))
        return render(strip, console)

    monkeypatch.setattr(Strip, "render", checked)
    yield gate


def assert_inert(capture: Capture, mark: int, gate: Gate, where: str) -> None:
    __tracebackhide__ = True
    assert_app_own(capture.since(mark), where)
    if gate.leaks:
        shown = "\n".join(leak[:160] for leak in gate.leaks[:6])
        pytest.fail(f"lines with control characters handed to Textual ({where}):\n{shown}")


# ------------------------------------------------------------------------ the app


class Mirrored:
    """The app on the mirror agent, driven by its pilot; what it wrote so far."""

    def __init__(
        self, pilot: Pilot[int], app: AcpTuiApp, payload: Path, project: Path, capture: Capture
    ) -> None:
        self.pilot, self.app, self.capture = pilot, app, capture
        self.payload, self.project = payload, project

    def __repr__(self) -> str:  # hypothesis prints the arguments of a failing example
        return "Mirrored()"

    def set(self, strings: list[str]) -> None:
        self.payload.write_text(json.dumps(strings))


def mirror_app(tmp_path: Path, payload: Path, *flags: str) -> AcpTuiApp:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    settings_, ui = app_settings(
        [*MIRROR, "--payload", str(payload), *flags],
        project,
        data_dir=tmp_path / ".data",
        log_dir=tmp_path / ".logs",
        notify_when_unfocused=False,
    )
    return make_app(settings_, ui=ui)


@pytest.fixture
async def mirrored(
    tmp_path: Path, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Mirrored]:
    capture = capture_writes(monkeypatch)
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps(["start"]))
    app = mirror_app(tmp_path, payload)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for_session(pilot)
        yield Mirrored(pilot, app, payload, tmp_path / "project", capture)


async def answer_dialogs(pilot: Pilot[int]) -> list[str]:
    """Until the turn is over: Escape each dialog it opens, once it is drawn. The dialogs
    seen, by kind (a form's mode)."""
    app = pilot.app
    seen: list[str] = []

    def dialog_or_done() -> bool:
        return not isinstance(app.screen, ChatScreen) or not chat(app).busy

    while True:
        await wait_for(pilot, dialog_or_done, "a dialog or the turn's end")
        dialog = app.screen
        if isinstance(dialog, ChatScreen):
            return seen
        kind = type(dialog).__name__
        mode = getattr(getattr(dialog, "request", None), "mode", None)
        seen.append(f"{kind}:{mode}" if isinstance(dialog, ElicitationScreen) else kind)
        await pilot.pause()
        if isinstance(dialog, ElicitationScreen) and mode == "form":
            # Escape in a form cancels its whole turn; Decline answers this form only, and
            # the turn goes on to its page to visit.
            await wait_for(pilot, lambda d=dialog: d.armed, "the form, armed")  # type: ignore[misc]
            await pilot.click("#answer-decline")
        else:
            await pilot.press("escape")
        await wait_for(pilot, lambda d=dialog: app.screen is not d, f"{kind} closed")  # type: ignore[misc]


# ------------------------------------------------------------------------ the tests


@EXAMPLES
@pytest.mark.timeout(900)
@given(strings=PAYLOADS)
async def test_a_turn_of_hostile_text_reaches_the_terminal_inert(
    mirrored: Mirrored, gate: Gate, strings: list[str]
) -> None:
    """Every field of a turn, and the dialogs it opens (permission, form, page to visit)."""
    pilot, app = mirrored.pilot, mirrored.app
    mirrored.set(strings)
    mark = mirrored.capture.mark
    screen = chat(app)
    screen.action_new_session()
    await wait_for(pilot, lambda: chat(app).session_id is not None, "a new session")
    await send(pilot, "mirror")
    seen = await answer_dialogs(pilot)
    assert seen == ["PermissionScreen", "ElicitationScreen:form", "ElicitationScreen:url"]
    await settle(pilot)
    assert_inert(mirrored.capture, mark, gate, "a turn")


def file_names(strings: list[str]) -> list[str]:
    """The strings as names a file can have here (no ``/`` or NUL, encodable, not too long),
    each after ``f<n>-`` (what the test types after ``@`` to list them)."""
    names = []
    for n, text in enumerate(strings):
        name = f"f{n}-" + text.replace("/", "_").replace("\0", "_")[:80]
        try:
            if len(os.fsencode(name)) <= 255:
                names.append(name)
        except UnicodeError:
            continue
    return names


async def visit(pilot: Pilot[int], open_it: Any, what: str) -> None:
    """Open a screen (``open_it()``), let it draw, Escape back."""
    app = pilot.app
    before = app.screen
    open_it()
    await wait_for(pilot, lambda: app.screen is not before, what)
    await settle_screen(pilot)
    await pilot.press("escape")
    await wait_for(pilot, lambda: app.screen is before, f"{what} closed")


async def settle_screen(pilot: Pilot[int]) -> None:
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def completions(pilot: Pilot[int], typed: str, what: str) -> None:
    """Type ``typed`` into the empty prompt, wait for its completion list, clear it."""
    screen = chat(pilot.app)
    prompt = screen.query_one("#prompt")
    prompt.set_draft("")  # type: ignore[attr-defined]
    prompt.focus()
    await pilot.press(*typed)
    options = prompt.query_one(OptionList)
    await wait_for(pilot, lambda: options.has_class("-open") and options.option_count > 0, what)
    await settle_screen(pilot)
    await pilot.press("escape")
    prompt.set_draft("")  # type: ignore[attr-defined]


async def palette(pilot: Pilot[int], typed: str) -> None:
    """Ctrl+P, type ``typed``, let the entries draw, Escape."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
    await pilot.press(*typed)
    await settle_screen(pilot)
    await pilot.press("escape")
    await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), "the palette closed")


@EXAMPLES
@pytest.mark.timeout(900)
@given(strings=PAYLOADS)
async def test_lists_names_and_messages_reach_the_terminal_inert(
    mirrored: Mirrored, gate: Gate, strings: list[str]
) -> None:
    """The sidebar's rows, the header, the option controls and their popup, the palette, the
    prompt's completion lists (the agent's commands, files named by the strings), toasts of
    the agent's errors, the inspector, the agent's log, the context panel, the rename box."""
    pilot, app = mirrored.pilot, mirrored.app
    project = mirrored.project
    for old in project.iterdir():
        old.unlink()
    for name in file_names(strings):
        (project / name).write_text("x")
    prompt_sources.FILE_INDEXES.clear()
    mirrored.set(strings)
    mark = mirrored.capture.mark
    screen = chat(app)
    screen.action_new_session()
    await wait_for(pilot, lambda: chat(app).session_id is not None, "a new session")
    for prompt in ("names", "fail"):
        await send(pilot, prompt)
        await wait_for(pilot, lambda: not chat(app).busy, f"the turn {prompt!r} to end")
    # The sidebar: listed sessions named by the strings (and an id for a title).
    sidebar = screen.query_one(SessionsSidebar)
    sidebar.reload()
    await wait_for(pilot, lambda: any(s.id == "listed-1" for s in sidebar.rows), "the listed rows")
    # The option controls, opened; their popup; the palette's entries in the agent's words.
    select = screen.query_one("#mode-select", Select)
    await wait_for(pilot, lambda: select.display, "the mode select")
    select.focus()
    await pilot.press("enter")
    await wait_for(pilot, lambda: select.expanded, "the open list")
    await settle_screen(pilot)
    await pilot.press("escape")
    await visit(pilot, screen.options.open_popup, "the options popup")
    await palette(pilot, "mode")
    await palette(pilot, "model")
    # Choosing a mode: the agent refuses with a message (a toast).
    await pilot.press("shift+tab")
    await settle(pilot)
    # The prompt's completions: the agent's commands, the project's files.
    await completions(pilot, "/", "the command list")
    await completions(pilot, "@f", "the file list")
    # The panels.
    await visit(pilot, screen.tools.show_inspector, "the inspector")
    await visit(pilot, screen.tools.show_stderr, "the agent's log")
    await visit(pilot, screen.tools.context_details, "the context panel")
    await visit(pilot, lambda: screen.session_actions.rename("listed-1"), "the rename box")
    await settle(pilot)
    assert_inert(mirrored.capture, mark, gate, "lists, names and messages")


@settings(EXAMPLES, max_examples=2)
@pytest.mark.timeout(900)
@given(strings=PAYLOADS)
async def test_the_agent_at_start_and_its_sign_in_reach_the_terminal_inert(
    tmp_path_factory: pytest.TempPathFactory,
    gate: Gate,
    monkeypatch: pytest.MonkeyPatch,
    strings: list[str],
) -> None:
    """The agent's name, title and version (header) and its sign-in methods (the picker,
    with what a terminal method would run), and the sign-in error."""
    capture = capture_writes(monkeypatch)
    tmp_path = tmp_path_factory.mktemp("start")
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps(strings))
    app = mirror_app(tmp_path, payload, "--auth")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_ready(pilot)
        screen.action_new_session()
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen), "the sign-in picker")
        await settle_screen(pilot)
        await pilot.press("down")
        await settle_screen(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), "the picker closed")
        await settle_screen(pilot)
        assert_inert(capture, 0, gate, "the agent's start")
