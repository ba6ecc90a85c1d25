"""Images and files in prompts, in the real app against real agent processes: the demo agent
(images and embedded context) says what it received; an agent that takes neither gets links
and refuses images, and nothing typed is lost."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Static

from acp_tui.session.export.markdown import transcript_markdown
from acp_tui.store.entries import AgentMessage, UserMessage
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.transcript_views import UserMessageView
from tests.test_attachments import PNG
from tests.ui.chat_helpers import (
    chat,
    demo_app,
    fixture_app,
    record_notifications,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)
from tests.ui.test_resilience import screen_text

pytestmark = pytest.mark.anyio


def _replies(app: object) -> str:
    screen = chat(app)  # type: ignore[arg-type]
    state = screen.store.get(screen.session_id or "")
    if state is None:
        return ""
    return "\n".join(e.text for e in state.transcript if isinstance(e, AgentMessage))


def _chips(app: object) -> list[str]:
    screen = chat(app)  # type: ignore[arg-type]
    return [
        str(view.query_one(".attachments", Static).render())
        for view in screen.query(UserMessageView)
    ]


async def test_an_image_and_a_file_reach_the_demo_agent_and_show_as_chips(
    tmp_path: Path,
) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    (tmp_path / "notes.md").write_text("# Plan\n- ship it\n")
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_session(pilot)
        await send(pilot, "/image @shot.png and @notes.md")
        await wait_for(pilot, lambda: "2×3 pixels" in _replies(app), "the agent's description")
        await settle(pilot)
        replies = _replies(app)
        # What the agent got: the image's bytes (and its size from its header), the file's
        # text embedded.
        assert f"an image: `image/png`, {len(PNG)} bytes, 2×3 pixels" in replies
        assert "an embedded resource" in replies and "notes.md" in replies
        [chips] = _chips(app)
        assert f"shot.png · image/png · {len(PNG)} B" in chips
        assert "notes.md · text/markdown · 17 B" in chips
        shown = screen_text(app)
        assert "shot.png · image/png" in shown
        # The image's data is never drawn.
        state = chat(app).store.get(chat(app).session_id or "")
        assert state is not None
        [user] = [e for e in state.transcript if isinstance(e, UserMessage)]
        data = next(b["data"] for b in user.content if b.get("type") == "image")
        assert data[:12] not in shown
        # The exported transcript names the attachments too, and holds no data either.
        exported = transcript_markdown(state)
        assert f"- attached: shot.png · image/png · {len(PNG)} B" in exported
        assert "- attached: notes.md · text/markdown · 17 B" in exported
        assert data[:12] not in exported and "ship it" not in exported


async def test_a_reloaded_session_shows_its_images_as_chips(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    state_dir = tmp_path / "state"
    app = demo_app(tmp_path, state_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        session_id = screen.session_id
        await send(pilot, "look @shot.png")
        await wait_for(pilot, lambda: "image" in _replies(app), "the reply")
        await settle(pilot, answered=True)
    # A new run loads the session: the agent replays the user message with its image block.
    again = demo_app(tmp_path, state_dir, resume=session_id)
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: chat(again).session_id == session_id, "the session")
        await wait_for(pilot, lambda: any("shot.png" in c for c in _chips(again)), "a chip")
        await settle(pilot)
        [chips] = _chips(again)
        assert f"shot.png · image/png · {len(PNG)} B" in chips


async def test_an_agent_without_images_refuses_one_and_the_message_stays(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    app = fixture_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        text = "what is in @shot.png?"
        await send(pilot, text)
        await pilot.pause()
        editor = screen.query_one(PromptEditor)
        await wait_for(
            pilot,
            lambda: any("does not take images" in str(n.message) for n in app._notifications),
            "the refusal",
        )
        assert editor.text == text  # nothing lost
        assert screen.session_id is None  # nothing sent: no session was made for it
        assert not screen.prompts.has(None)


async def test_a_pasted_image_path_becomes_a_mention(tmp_path: Path) -> None:
    shots = tmp_path / "my shots"
    shots.mkdir()
    (shots / "a.png").write_bytes(PNG)
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        editor = screen.query_one(PromptEditor)
        editor.set_draft("see")
        editor.focus()
        await pilot.pause()
        # What a terminal pastes for a file dropped on it.
        editor.text_area.post_message(events.Paste(f"'{shots / 'a.png'}'"))
        await wait_for(pilot, lambda: editor.text == 'see @"my shots/a.png" ', "the mention")
        # Any other paste is text, as pasted.
        editor.text_area.post_message(events.Paste("plain words"))
        await wait_for(pilot, lambda: editor.text.endswith("plain words"), "the text")


async def test_a_planted_link_or_pipe_is_not_sent_and_the_message_stays(tmp_path: Path) -> None:
    """``@notes.md``, a link the agent planted to a file outside the project, or a FIFO: the
    ``@`` list does not offer them, Enter sends nothing (the message stays, a toast says where
    it leads), and a real file is then sent as before."""
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.txt").write_text("the secret\n")
    (project / "notes.md").symlink_to(tmp_path / "secret.txt")
    os.mkfifo(project / "notes-pipe.md")
    (project / "notes-real.md").write_text("# mine\n")
    app = demo_app(project, tmp_path / "state")
    toasts = record_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        editor = screen.query_one(PromptEditor)
        editor.focus()
        await pilot.press(*"see @notes")
        await wait_for(pilot, lambda: editor.completion_open, "the @ list")
        assert [str(o.prompt) for o in editor._list.options] == ["notes-real.md"]
        await pilot.press("escape")
        for text, said in (
            # The toast is cut at 100 characters: the start of where it leads.
            ("see @notes.md please", f"Not sent: @notes.md leads to {str(tmp_path)[:20]}"),
            ("see @notes-pipe.md", "Not sent: @notes-pipe.md is a named pipe (FIFO), not a"),
        ):
            editor.set_draft(text)
            await pilot.press("enter")
            await wait_for(pilot, lambda said=said: any(said in t for t in toasts), said)
            assert editor.text == text  # nothing lost
            # Nothing sent: the new session (opened early, or not yet) has no prompt.
            shown = screen.store.get(screen.session_id) if screen.session_id else None
            assert shown is None or shown.draft
        await send(pilot, "see @notes-real.md")
        await wait_for(pilot, lambda: "an embedded resource" in _replies(app), "the reply")
        assert "the secret" not in repr(chat(app).store.get(chat(app).session_id or ""))


#: Names a repository may hold: an escape sequence, a bell, a line break, a bidi override, a
#: tab, a quote beside a space, a backslash.
ODD_NAMES = [
    "q0\x1b]52;c;ZXZpbA==\x07.md",
    "q1\x07bell.md",
    "q2\nline.md",
    "q3\u202etxt.md",
    "q4\ttab.md",
    'q5 "quoted".md',
    "q6\\back.md",
]


async def test_a_file_named_with_control_characters_is_mentioned_from_the_list(
    tmp_path: Path,
) -> None:
    """Picked from the ``@`` list, each odd name is written into the prompt as visible text
    (its escapes, as the list shows it), reaches the agent as that very file, and its chip
    shows the escapes too."""
    for name in ODD_NAMES:
        (tmp_path / name).write_text("hello\n")
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_ready(pilot)
        editor = screen.query_one(PromptEditor)
        editor.focus()
        await pilot.press(*"see")
        for n in range(len(ODD_NAMES)):
            await pilot.press("space", "@", "q", str(n))
            await wait_for(pilot, lambda: editor.completion_open, "the @ list")
            await pilot.press("tab")
            await wait_for(pilot, lambda: not editor.completion_open, "the list closed")
        typed = editor.text
        assert all(char.isprintable() or char == " " for char in typed), repr(typed)
        assert "q0\\x1b]52;c;ZXZpbA==\\x07.md" in typed and "q2\\nline.md" in typed
        await pilot.press("enter")
        await wait_for(pilot, lambda: "an embedded resource" in _replies(app), "the reply")
        await settle(pilot, answered=True)
        state = chat(app).store.get(chat(app).session_id or "")
        assert state is not None
        [user] = [e for e in state.transcript if isinstance(e, UserMessage)]
        uris = [b["resource"]["uri"] for b in user.content if b.get("type") == "resource"]
        assert uris == [(tmp_path / name).resolve().as_uri() for name in ODD_NAMES]
        [chips] = _chips(app)
        assert "q0\\x1b]52;c;ZXZpbA==\\x07.md · text/markdown" in chips
        assert "q3\\u202etxt.md" in chips and "\x1b" not in chips and "\u202e" not in chips
