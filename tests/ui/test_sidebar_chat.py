"""The sessions sidebar through the real chat screen, against a real agent process with 250 past
sessions in pages of 20 (tests/agents/paged_agent.py): paging, filter, open via load and via
resume, switching back, live titles of other sessions, agents that cannot reopen, mode / model
re-applied on reopen, and ``--resume`` / ``--continue``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from acp_tui.cli.parse import parse
from acp_tui.cli.tui import settings_from_invocation
from acp_tui.store.entries import AgentMessage, Notice
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.chat import ChatHeader, ChatScreen
from acp_tui.ui.widgets.entry_view import EntryView
from acp_tui.ui.widgets.sidebar import SessionsSidebar
from acp_tui.ui.widgets.transcript import Transcript
from tests.ui.chat_helpers import (
    agent_app,
    send,
    settle,
    wait_for,
    wait_for_ready,
    wait_for_session,
)

pytestmark = pytest.mark.anyio

PAGED_AGENT = Path(__file__).resolve().parents[1] / "agents" / "paged_agent.py"
#: Wide enough for the sidebar to show by default; short enough that one page fills the list.
SIZE = (140, 30)
PAGE = 20


def paged_app(tmp_path: Path, *flags: str, **overrides: Any) -> AcpTuiApp:
    argv = [sys.executable, str(PAGED_AGENT), "--sessions", "250", *flags]
    return agent_app(argv, tmp_path, **overrides)


def sidebar_of(screen: ChatScreen) -> SessionsSidebar:
    return screen.query_one(SessionsSidebar)


def requests(screen: ChatScreen, method: str) -> list[dict[str, Any]]:
    """The params of every request the client sent with ``method`` (the protocol inspector's
    record of this connection)."""
    assert screen.controller is not None and screen.controller.client is not None
    out: list[dict[str, Any]] = []
    for record in list(screen.controller.client.connection.traffic):
        if record.direction != "out" or not record.text:
            continue
        message = json.loads(record.text)
        if message.get("method") == method and "id" in message:
            out.append(message.get("params") or {})
    return out


def shown_texts(screen: ChatScreen) -> list[str]:
    """The text of the entries the transcript widget shows (views mounted, not only the store)."""
    transcript = screen.query_one(Transcript)
    return [
        getattr(view.entry, "text", "")
        for view in transcript.children
        if isinstance(view, EntryView)
    ]


def header_title(screen: ChatScreen) -> str:
    return str(screen.query_one(ChatHeader).query_one("#title").render())


def last_reply(screen: ChatScreen) -> str:
    state = screen.store.get(screen.session_id or "")
    replies = [e.text for e in state.transcript if isinstance(e, AgentMessage)] if state else []
    return replies[-1] if replies else ""


def list_text(sidebar: SessionsSidebar) -> str:
    lst = sidebar.session_list
    return "\n".join(lst.render_line(y).text for y in range(lst.scrollable_content_region.height))


def notifications(pilot: Pilot[None]) -> list[str]:
    return [n.message for n in pilot.app._notifications]


async def start(pilot: Pilot[None]) -> tuple[ChatScreen, SessionsSidebar]:
    """Wait for the first session and the sidebar's first page."""
    screen = await wait_for_session(pilot)
    sidebar = sidebar_of(screen)
    await wait_for(
        pilot,
        lambda: (
            screen.store.list_state(str(pilot.app.screen.spec.cwd)).pages >= 1
            and not sidebar.loading
        ),
        "the first page of sessions",
        limit=15,
    )
    return screen, sidebar


async def open_row(pilot: Pilot[None], sidebar: SessionsSidebar, session_id: str) -> None:
    """Highlight ``session_id``'s row in the sidebar list and press Enter on it."""
    lst = sidebar.session_list
    lst.focus()
    index = next(i for i, s in enumerate(sidebar.rows) if s.id == session_id)
    lst.move_cursor(index)
    await pilot.pause()
    assert sidebar.highlighted_session_id() == session_id
    await pilot.press("enter")


async def open_and_wait(
    pilot: Pilot[None], screen: ChatScreen, sidebar: SessionsSidebar, session_id: str
) -> None:
    await open_row(pilot, sidebar, session_id)
    await wait_for(
        pilot,
        lambda: (
            screen.session_id == session_id
            and not screen.store.get(session_id).replaying
            and screen.query_one(Transcript).session_id == session_id
        ),
        f"{session_id} to open",
        limit=15,
    )


# -- paging ----------------------------------------------------------------------------------


async def test_first_page_only_then_pages_load_stepwise_near_the_end(tmp_path: Path) -> None:
    # The agent holds every list answer after the first until `release` exists, so what is on
    # screen between two pages can be looked at.
    release = tmp_path / "release-lists"
    app = paged_app(tmp_path, "--hold-lists", str(release))
    async with app.run_test(size=SIZE) as pilot:
        # No session: the first message (or Ctrl+N) would make one.
        screen = await wait_for_ready(pilot)
        sidebar = sidebar_of(screen)
        cwd = str(tmp_path)
        assert sidebar.display  # 140 columns: shown by default
        state = screen.store.list_state(cwd)
        await wait_for(pilot, lambda: state.pages == 1, "the first page", limit=15)
        # The first page is shown as soon as it arrives: 20 sessions of this folder, newest
        # first.
        await wait_for(pilot, lambda: len(sidebar.rows) == PAGE, "the first page's rows")
        assert state.pages == 1 and not state.complete
        assert requests(screen, "session/list")[0] == {"cwd": cwd}  # no cursor, this folder
        assert requests(screen, "session/new") == []  # nothing sent, no session made
        assert [s.id for s in sidebar.rows[0:3]] == ["sess-00000", "sess-00001", "sess-00002"]
        assert all(s.cwd == cwd for s in sidebar.rows)
        assert "#0 Fix flaky test in the parser" in list_text(sidebar)
        assert "(20+)" in str(sidebar.query_one("#sidebar-header").render())
        # The list shows 11 of its 20 rows, within NEAR_END_ROWS of the end: the next page is
        # prefetched (a "loading more" row shows meanwhile), and then nothing more.
        await wait_for(
            pilot, lambda: len(requests(screen, "session/list")) == 2, "the prefetch request"
        )
        assert sidebar.loading and state.pages == 1
        release.touch()
        await wait_for(pilot, lambda: state.pages == 2 and not sidebar.loading, "a prefetch")
        await settle(pilot, answered=True)
        assert state.pages == 2 and len(requests(screen, "session/list")) == 2
        assert not sidebar.loading
        assert len(sidebar.rows) == 2 * PAGE

        # Moving the highlight down row by row pages in more only near the end, one at a time.
        sidebar.session_list.focus()
        await pilot.press("down", "down", "down")
        await settle(pilot, answered=True)
        assert state.pages == 2 and not sidebar.loading
        seen = [state.pages]
        for _ in range(3):
            await pilot.press("end")
            await wait_for(pilot, lambda: state.pages == seen[-1] + 1, "one more page")
            await wait_for(pilot, lambda: not sidebar.loading, "the page to be applied")
            seen.append(state.pages)
        assert seen == [2, 3, 4, 5]
        await settle(pilot, answered=True)
        assert state.pages == 5 and not sidebar.loading  # no page asked for without moving
        lists = requests(screen, "session/list")
        assert len(lists) == 5
        cursors = [p.get("cursor") for p in lists[1:]]
        assert all(cursors) and len(set(cursors)) == 4  # each later page with its own cursor
        assert len(sidebar.rows) == 5 * PAGE
        assert not state.complete

        # Scrolling the list (mouse wheel / scroll bar) near the end also pages.
        sidebar.session_list.scroll_end(animate=False, immediate=True)
        await wait_for(pilot, lambda: state.pages == 6, "a page on scrolling")
        await wait_for(pilot, lambda: not sidebar.loading, "the page to be applied")
        assert len(requests(screen, "session/list")) == 6


async def test_filter_narrows_by_title_cwd_and_id_and_keeps_paging(tmp_path: Path) -> None:
    app = paged_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        state = screen.store.list_state(str(tmp_path))
        await wait_for(pilot, lambda: state.pages == 2 and not sidebar.loading, "the prefetch")
        sidebar.session_list.focus()
        await pilot.press("slash")
        assert sidebar.filter_has_focus
        await pilot.press(*"memory")
        # Paging goes on in matches until this folder is fully listed.
        await wait_for(pilot, lambda: state.complete, "all pages while filtering", limit=20)
        await wait_for(pilot, lambda: not sidebar.loading, "the last page")
        assert sidebar.filter_text == "memory"
        assert len(requests(screen, "session/list")) == state.pages > 1
        ids = [s.id for s in sidebar.rows]
        assert ids
        assert all("memory" in (s.title or "").lower() for s in sidebar.rows)
        # "Investigate memory leak" is topic 3: sessions 3, 10, 17, ... of this folder only
        # (every fourth session lives elsewhere).
        expected = [f"sess-{i:05d}" for i in range(250) if i % 7 == 3 and i % 4 != 3]
        assert ids == expected
        assert "Investigate memory leak" in list_text(sidebar)
        assert "Matches in this folder: " in str(sidebar.query_one("#sidebar-header").render())

        # By id.
        sidebar.set_filter("sess-00012")
        await wait_for(pilot, lambda: [s.id for s in sidebar.rows] == ["sess-00012"], "by id")
        # By cwd: in all folders, the other project's path matches only its sessions.
        sidebar.set_filter("")
        sidebar.session_list.focus()
        await pilot.press("a")
        await wait_for(pilot, lambda: sidebar.scope == "all", "all folders")
        sidebar.set_filter("other-project")
        await wait_for(
            pilot,
            lambda: screen.store.list_state(None).complete and not sidebar.loading,
            "all folders listed while filtering",
            limit=20,
        )
        rows = sidebar.rows
        assert rows and all(s.cwd == "/srv/other-project" for s in rows)
        assert len(rows) == len([i for i in range(250) if i % 4 == 3 and (i // 4) % 2 == 0])
        # Escape in the filter clears it: everything listed so far is back.
        sidebar.query_one("#sidebar-filter").focus()
        await pilot.press("escape")
        await wait_for(pilot, lambda: sidebar.filter_text == "", "the filter cleared")
        # Every session, not the new one (no prompt yet).
        await wait_for(pilot, lambda: len(sidebar.rows) == 250, "every session")


async def test_a_burst_of_keys_in_the_filter_filters_and_escape_clears(tmp_path: Path) -> None:
    """A terminal delivers typed keys in a burst: the filter box then queues one change per key.
    Each once wrote its own (older) value back into the box, so the changes chased each other
    for ever: the rows never narrowed and the typed text came out scrambled."""
    app = paged_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        _screen, sidebar = await start(pilot)
        everything = len(sidebar.rows)
        await pilot.press("ctrl+b", "slash")
        assert sidebar.filter_has_focus
        for key in "memory":
            app.post_message(events.Key(key, key))
        await wait_for(pilot, lambda: sidebar.filter_text == "memory", "the filter applied")
        await wait_for(pilot, lambda: not sidebar.loading, "the pages of matches")
        box = sidebar.query_one("#sidebar-filter", Input)
        assert box.value == "memory"
        rows = sidebar.rows
        assert rows and all("memory" in (s.title or "").lower() for s in rows)
        assert "Investigate memory leak" in list_text(sidebar)
        assert "Fix flaky test" not in list_text(sidebar)
        await pilot.press("escape")
        await wait_for(pilot, lambda: sidebar.filter_text == "", "the filter cleared")
        assert box.value == ""
        assert len(sidebar.rows) >= everything


async def test_a_word_typed_in_the_list_goes_whole_to_the_filter(tmp_path: Path) -> None:
    """The list's letter keys ate the letters of a filter typed there: "refactor" lost its r
    to Retry (with nothing to retry), its a to All dirs, and "memory" opened Rename at its e.
    Retry takes its key only when there is something to retry, and once the filter has text
    the letters are the filter's."""
    app = paged_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        scope = sidebar.scope
        await pilot.press("ctrl+b")
        assert screen.focused is sidebar.session_list
        await pilot.press(*"refactor")
        await wait_for(pilot, lambda: sidebar.filter_text == "refactor", "the whole word")
        assert sidebar.scope == scope and app.screen is screen
        await wait_for(pilot, lambda: "Refactor the config loader" in list_text(sidebar), "row")
        await pilot.press("escape")
        await wait_for(pilot, lambda: sidebar.filter_text == "", "the filter cleared")
        screen.set_focus(sidebar.session_list)
        await pilot.press(*"memory")
        await wait_for(pilot, lambda: sidebar.filter_text == "memory", "the whole word")
        assert app.screen is screen, "a letter of the word opened a dialog"


# -- open -----------------------------------------------------------------------------------


async def test_open_via_load_replays_history_then_the_prompt_works(tmp_path: Path) -> None:
    app = paged_app(tmp_path, "--load-only")
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        first = screen.session_id
        target = "sess-00005"
        await open_and_wait(pilot, screen, sidebar, target)
        assert requests(screen, "session/resume") == []
        assert [p["sessionId"] for p in requests(screen, "session/load")] == [target]
        # The replayed history is the transcript, on screen.
        await wait_for(
            pilot,
            lambda: (
                shown_texts(screen)
                == [f"What happened in {target}?", "We fixed the parser and added a test."]
            ),
            "the replayed transcript",
        )
        await wait_for(
            pilot, lambda: "#5 Speed up the sidebar" in header_title(screen), "the header title"
        )
        assert sidebar.current_session_id == target
        assert sidebar.highlighted_session_id() == target
        # The prompt is focused and works in the loaded session.
        await send(pilot, "after the load")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: after the load", "the reply")
        prompts = requests(screen, "session/prompt")
        assert [p["sessionId"] for p in prompts] == [target]
        await wait_for(
            pilot, lambda: "ok: after the load" in shown_texts(screen), "the reply on screen"
        )
        assert first is not None and first != target


async def test_open_via_resume_and_switch_back_is_instant(tmp_path: Path) -> None:
    app = paged_app(tmp_path, "--resume-only")
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        first = screen.session_id
        assert first is not None
        await send(pilot, "hello first")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: hello first", "a first reply")
        screen.query_one("#prompt").set_draft("half-typed")  # type: ignore[attr-defined]

        target = "sess-00002"
        await open_and_wait(pilot, screen, sidebar, target)
        assert requests(screen, "session/load") == []
        assert [p["sessionId"] for p in requests(screen, "session/resume")] == [target]
        assert shown_texts(screen) == []  # resume replays nothing
        await wait_for(
            pilot, lambda: "#2 Add dark mode toggle" in header_title(screen), "the header title"
        )
        await send(pilot, "in the resumed one")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: in the resumed one", "reply")

        # Back to the first session: no request at all, its transcript and draft are kept.
        sent_before = screen.controller.client.connection.stats.lines_out  # type: ignore[union-attr]
        await open_row(pilot, sidebar, first)
        await wait_for(
            pilot,
            lambda: (
                screen.session_id == first
                and "ok: hello first" in shown_texts(screen)
                and screen.query_one(Transcript).session_id == first
            ),
            "the switch back",
        )
        assert screen.controller.client.connection.stats.lines_out == sent_before  # type: ignore[union-attr]
        assert shown_texts(screen) == ["hello first", "ok: hello first"]
        assert screen.query_one("#prompt").draft == "half-typed"  # type: ignore[attr-defined]
        assert len(requests(screen, "session/resume")) == 1
        # And to the resumed one again: still no request, its transcript is there.
        await open_row(pilot, sidebar, target)
        await wait_for(
            pilot,
            lambda: screen.session_id == target and "ok: in the resumed one" in shown_texts(screen),
            "the switch to the resumed session",
        )
        assert screen.controller.client.connection.stats.lines_out == sent_before  # type: ignore[union-attr]


async def test_restart_reopens_with_resume_when_the_transcript_is_known(tmp_path: Path) -> None:
    # The agent can both load and resume: a first open loads (nothing known yet); after the
    # agent died, the transcript is known, so the reopen resumes instead of replaying.
    app = paged_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        target = "sess-00001"
        await open_and_wait(pilot, screen, sidebar, target)
        assert [p["sessionId"] for p in requests(screen, "session/load")] == [target]
        assert requests(screen, "session/resume") == []
        await wait_for(pilot, lambda: len(shown_texts(screen)) == 2, "the replay")
        await send(pilot, "exit")
        await wait_for(pilot, lambda: not screen.agent_alive, "the agent to exit")
        old_link = screen.controller
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: (
                screen.controller is not old_link
                and screen.agent_alive
                and screen.controller is not None
                and screen.controller.is_open(target)
                and screen.session_id == target
            ),
            "the restart to reopen the session",
            limit=15,
        )
        assert [p["sessionId"] for p in requests(screen, "session/resume")] == [target]
        assert requests(screen, "session/load") == []
        texts = shown_texts(screen)
        assert texts[:2] == [f"What happened in {target}?", "We fixed the parser and added a test."]
        # A resume replays nothing, as it should: nothing to say about it.
        assert kept_notices(screen) == []
        # The new agent process is asked for the list again, from its first page.
        await wait_for(
            pilot,
            lambda: any(not p.get("cursor") for p in requests(screen, "session/list")),
            "a first-page session/list to the restarted agent",
        )
        await send(pilot, "still here")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: still here", "a reply")


async def restart_after_exit(pilot: Pilot[None], screen: ChatScreen, target: str) -> None:
    """The agent exits (prompt ``exit``); Ctrl+R restarts it and reopens ``target``."""
    await send(pilot, "exit")
    await wait_for(pilot, lambda: not screen.agent_alive, "the agent to exit")
    old_link = screen.controller
    await pilot.press("ctrl+r")
    await wait_for(
        pilot,
        lambda: (
            screen.controller is not old_link
            and screen.agent_alive
            and screen.controller is not None
            and screen.controller.is_open(target)
            and screen.session_id == target
            and not screen.store.get(target).replaying  # type: ignore[union-attr]
        ),
        "the restart to reopen the session",
        limit=15,
    )


def kept_notices(screen: ChatScreen) -> list[str]:
    state = screen.store.get(screen.session_id or "")
    assert state is not None
    return [e.title for e in state.transcript if isinstance(e, Notice) and "Kept" in e.title]


async def test_a_resume_that_replays_the_conversation_never_shows_it_twice(
    tmp_path: Path,
) -> None:
    """fast-agent 0.10 replays the whole conversation on session/resume, which the protocol
    says replays nothing: after Ctrl+R every message was on screen twice."""
    app = paged_app(tmp_path, "--replay-on-resume")
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        target = "sess-00001"
        await open_and_wait(pilot, screen, sidebar, target)
        await wait_for(pilot, lambda: len(shown_texts(screen)) == 2, "the replay")
        await restart_after_exit(pilot, screen, target)
        assert [p["sessionId"] for p in requests(screen, "session/resume")] == [target]
        await send(pilot, "still here")
        # The views follow the store a frame later: wait for the reply's view, not its entry.
        await wait_for(pilot, lambda: shown_texts(screen)[-1:] == ["ok: still here"], "a reply")
        question, answer = f"What happened in {target}?", "We fixed the parser and added a test."
        conversation = [t for t in shown_texts(screen) if t]
        assert conversation == [question, answer, "exit", "still here", "ok: still here"]
        # The replay lacks the "exit" the agent died on: the person is told which is kept.
        assert len(kept_notices(screen)) == 1


async def test_agent_that_can_neither_resume_nor_load_says_so(tmp_path: Path) -> None:
    app = paged_app(tmp_path, "--neither")
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        first = screen.session_id
        await open_row(pilot, sidebar, "sess-00004")
        await wait_for(
            pilot,
            lambda: any("cannot reopen past sessions" in m for m in notifications(pilot)),
            "the message",
        )
        await settle(pilot, answered=True)
        assert screen.session_id == first
        assert requests(screen, "session/load") == []
        assert requests(screen, "session/resume") == []
        assert screen.agent_alive
        # Nothing broke: the current session still answers.
        await send(pilot, "still fine")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: still fine", "a reply")
        assert screen.session_id == first


# -- live titles --------------------------------------------------------------------------------


async def test_live_title_of_another_session_changes_its_row_and_survives_a_refresh(
    tmp_path: Path,
) -> None:
    # --stale-titles: the agent's session/list keeps the old title after the rename.
    app = paged_app(tmp_path, "--stale-titles")
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        other = "sess-00002"
        await open_and_wait(pilot, screen, sidebar, other)  # live, then not current
        await open_and_wait(pilot, screen, sidebar, "sess-00001")
        assert screen.session_id == "sess-00001"
        assert "#2 Add dark mode toggle" in list_text(sidebar)
        header_before = header_title(screen)

        await send(pilot, f"retitle {other} Renamed while live")
        await wait_for(pilot, lambda: "Renamed while live" in list_text(sidebar), "the new title")
        assert "#2 Add dark mode toggle" not in list_text(sidebar)
        assert screen.session_id == "sess-00001"
        assert header_title(screen) == header_before  # the current session's header is its own

        # A refresh of session/list (first page again, all folders and this one) brings the
        # stale title; the live one stays.
        lists_before = len(requests(screen, "session/list"))
        sidebar.session_list.focus()
        await pilot.press("a")
        await wait_for(
            pilot,
            lambda: len(requests(screen, "session/list")) > lists_before and not sidebar.loading,
            "the all-folders list",
        )
        stale = [p for p in requests(screen, "session/list")[lists_before:] if p.get("cwd") is None]
        assert stale  # the refresh really happened
        assert screen.store.get(other).title == "Renamed while live"
        await pilot.press("a")
        assert screen.controller is not None
        screen.controller.spawn(
            lambda: screen.controller.list_sessions(str(tmp_path), None), "refresh"
        )
        await wait_for(
            pilot,
            lambda: len(requests(screen, "session/list")) > lists_before + 1,
            "the refresh of this folder",
        )
        await settle(pilot, answered=True)
        assert screen.store.get(other).title == "Renamed while live"
        assert "Renamed while live" in list_text(sidebar)
        assert "#2 Add dark mode toggle" not in list_text(sidebar)
        # Switching to it shows the live title in the header.
        await open_row(pilot, sidebar, other)
        await wait_for(
            pilot, lambda: "Renamed while live" in header_title(screen), "the header title"
        )


# -- mode / model re-applied on reopen --------------------------------------------------------


async def remembered(pilot: Pilot[None], screen: ChatScreen, target: str, *, effort: str) -> None:
    """Wait until the local index holds the choices the tests below make in ``target``."""
    await wait_for(
        pilot,
        lambda: (
            (r := screen.model.index.get(target)) is not None
            and (r.mode, r.model) == ("architect", "large")
            and r.options.get("config:effort") == effort
            and r.options.get("config:fast") is True
        ),
        "the choices remembered",
    )


async def test_mode_and_model_chosen_are_reapplied_when_reopened(tmp_path: Path) -> None:
    target = "sess-00001"
    # First run: open a past session and choose a mode and a model in it.
    app = paged_app(tmp_path, "--modes")
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        await open_and_wait(pilot, screen, sidebar, target)
        state = screen.store.get(target)
        assert state.current_mode_id is None  # the agent does not report it on load
        screen.options.choose("modes", "architect")
        screen.options.choose("config:model", "large")
        # Every other option too: a thinking level, and a boolean by its key (Alt+T cycles).
        screen.options.choose("config:fast", True)
        screen.focus_prompt()
        await pilot.press("alt+t")
        await wait_for(
            pilot,
            lambda: state.current_mode_id == "architect" and state.current_model == "large",
            "the choices",
        )
        await remembered(pilot, screen, target, effort="low")
        await send(pilot, "whoami")
        await wait_for(pilot, lambda: last_reply(screen) == "mode=architect model=large", "who")

    # Second run, a new agent process that forgot: reopening the session re-applies them.
    app = paged_app(tmp_path, "--modes")
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        await open_and_wait(pilot, screen, sidebar, target)
        await wait_for(
            pilot,
            lambda: (
                requests(screen, "session/set_mode")
                and requests(screen, "session/set_config_option")
            ),
            "the choices re-applied",
        )
        assert requests(screen, "session/set_mode") == [
            {"sessionId": target, "modeId": "architect"}
        ]
        await wait_for(
            pilot, lambda: len(requests(screen, "session/set_config_option")) == 3, "all three"
        )
        assert [
            (p["sessionId"], p["configId"], p["value"])
            for p in requests(screen, "session/set_config_option")
        ] == [(target, "model", "large"), (target, "effort", "low"), (target, "fast", True)]
        await send(pilot, "whoami")
        await wait_for(pilot, lambda: last_reply(screen) == "mode=architect model=large", "who")
        await send(pilot, "options")
        await wait_for(pilot, lambda: last_reply(screen) == "effort=low fast=True", "options")
        # A session never given a choice gets none.
        await open_and_wait(pilot, screen, sidebar, "sess-00002")
        await settle(pilot, answered=True)
        assert len(requests(screen, "session/set_mode")) == 1


async def test_a_model_the_agent_reset_to_its_default_on_reopen_is_chosen_again(
    tmp_path: Path,
) -> None:
    """Gemini CLI forgets the model chosen in a session and reports its default when the
    session is reopened: the model and the thinking level are set again to the person's; the
    mode and the other options keep what the agent reports (never a mode put back unasked)."""
    target = "sess-00001"
    flags = ("--modes", "--defaults-on-reopen")
    app = paged_app(tmp_path, *flags)
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        await open_and_wait(pilot, screen, sidebar, target)
        state = screen.store.get(target)
        await wait_for(pilot, lambda: state.current_model == "small", "the agent's default")
        screen.options.choose("modes", "architect")
        screen.options.choose("config:model", "large")
        screen.options.choose("config:effort", "high")
        screen.options.choose("config:fast", True)
        await remembered(pilot, screen, target, effort="high")

    app = paged_app(tmp_path, *flags)
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        await open_and_wait(pilot, screen, sidebar, target)
        await wait_for(
            pilot,
            lambda: len(requests(screen, "session/set_config_option")) == 2,
            "the model and the thinking level set again",
        )
        assert [
            (p["configId"], p["value"]) for p in requests(screen, "session/set_config_option")
        ] == [("model", "large"), ("effort", "high")]
        await send(pilot, "whoami")
        await wait_for(pilot, lambda: last_reply(screen) == "mode=- model=large", "who")
        assert requests(screen, "session/set_mode") == []
        state = screen.store.get(target)
        assert state.current_mode_id == "ask"


# -- --resume / --continue -------------------------------------------------------------------


def test_resume_and_continue_command_lines_become_settings() -> None:
    agent = ["--", sys.executable, str(PAGED_AGENT)]
    latest = settings_from_invocation(parse(["--resume", *agent]))
    assert (latest.resume, latest.continue_latest) == ("", False)
    given = settings_from_invocation(parse(["--resume", "sess-00005", *agent]))
    assert given.resume == "sess-00005"
    cont = settings_from_invocation(parse(["--continue", *agent]))
    assert (cont.resume, cont.continue_latest) == ("", True)
    plain = settings_from_invocation(parse(agent))
    assert plain.resume is None


@pytest.mark.parametrize(
    ("flags", "overrides", "expected"),
    [
        ((), {"resume": "", "continue_latest": True}, "sess-00000"),
        # The newest session is on the last of the folder's ten pages.
        (("--oldest-first",), {"resume": "", "continue_latest": True}, "sess-00000"),
        ((), {"resume": "sess-00005"}, "sess-00005"),
    ],
    ids=["continue", "continue-oldest-listed-first", "resume-id"],
)
async def test_continue_and_resume_id_open_a_past_session_at_start(
    tmp_path: Path, flags: tuple[str, ...], overrides: dict[str, Any], expected: str
) -> None:
    app = paged_app(tmp_path, *flags, **overrides)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_session(pilot)
        await wait_for(
            pilot,
            lambda: (
                screen.session_id == expected
                and f"What happened in {expected}?" in shown_texts(screen)
            ),
            "the session to open with its history",
            limit=15,
        )
        assert requests(screen, "session/new") == []
        assert [p["sessionId"] for p in requests(screen, "session/load")] == [expected]
        assert sidebar_of(screen).current_session_id == expected
        await send(pilot, "go on")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: go on", "a reply")


async def test_resume_without_an_id_offers_the_sessions_and_opens_the_chosen_one(
    tmp_path: Path,
) -> None:
    """``--resume``: the sessions of this folder, focused, the most recent highlighted; nothing
    is opened (or created) until the person chooses."""
    app = paged_app(tmp_path, resume="")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await wait_for_ready(pilot)
        sidebar = sidebar_of(screen)
        await wait_for(
            pilot,
            lambda: screen.focused is sidebar.session_list and sidebar.rows,
            "the sessions offered",
        )
        assert sidebar.display  # shown although 100 columns would hide it
        assert sidebar.highlighted_session_id() == "sess-00000"
        assert "Choose a session to resume" in str(screen.query_one("#status").render())
        assert screen.session_id is None
        assert requests(screen, "session/new") == [] and requests(screen, "session/load") == []
        await pilot.press("down", "enter")
        await wait_for(
            pilot,
            lambda: (
                screen.session_id == "sess-00001"
                and "What happened in sess-00001?" in shown_texts(screen)
            ),
            "the chosen session to open",
            limit=15,
        )
        assert requests(screen, "session/new") == []
        await send(pilot, "go on")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: go on", "a reply")


async def test_resume_without_an_id_then_escape_is_a_new_session(tmp_path: Path) -> None:
    app = paged_app(tmp_path, resume="")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        sidebar = sidebar_of(screen)
        await wait_for(pilot, lambda: screen.focused is sidebar.session_list, "the sessions")
        await pilot.press("escape")
        assert screen.focused is screen.query_one("#prompt").text_area  # type: ignore[attr-defined]
        assert "Choose a session" not in str(screen.query_one("#status").render())
        await send(pilot, "fresh start")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: fresh start", "a reply")
        assert len(requests(screen, "session/new")) == 1
        assert requests(screen, "session/load") == []


async def test_resume_latest_with_no_session_in_this_directory_says_so(
    tmp_path: Path,
) -> None:
    # Every session of this agent lives in other directories.
    app = paged_app(tmp_path, "--cwd", "/srv/somewhere-else", resume="", continue_latest=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_ready(pilot)
        await wait_for(
            pilot,
            lambda: any("No earlier session" in str(n) for n in notifications(pilot)),
            "the notice",
        )
        assert [p.get("cwd") for p in requests(screen, "session/list")][:1] == [str(tmp_path)]
        assert requests(screen, "session/new") == [] and requests(screen, "session/load") == []
        assert screen.session_id is None
        # The first message makes the session.
        await send(pilot, "hello")
        await wait_for(pilot, lambda: last_reply(screen) == "ok: hello", "a reply")
        assert len(requests(screen, "session/new")) == 1


async def test_keyboard_only_into_the_sidebar_open_and_back(tmp_path: Path) -> None:
    """Ctrl+B goes to the visible sidebar, Enter opens the highlighted session, Escape in the
    list returns to the prompt; Ctrl+B inside the sidebar hides it, Ctrl+B again brings it
    back with the list focused and asks the agent for the first page again."""
    app = paged_app(tmp_path, "--load-only")
    async with app.run_test(size=SIZE) as pilot:
        screen, sidebar = await start(pilot)
        prompt_area = screen.query_one("#prompt").text_area  # type: ignore[attr-defined]
        assert screen.focused is prompt_area
        await pilot.press("ctrl+b")
        assert sidebar.display and screen.focused is sidebar.session_list
        await pilot.press("down", "down")
        target = sidebar.highlighted_session_id()
        assert target is not None and target != screen.session_id
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.session_id == target, "the session to open")
        await wait_for(pilot, lambda: requests(screen, "session/load") != [], "session/load")
        await pilot.press("ctrl+b")
        assert screen.focused is sidebar.session_list
        await pilot.press("escape")
        assert screen.focused is prompt_area and sidebar.display
        await pilot.press("ctrl+b", "ctrl+b")
        assert not sidebar.display and screen.focused is prompt_area
        first_pages = [p for p in requests(screen, "session/list") if not p.get("cursor")]
        await pilot.press("ctrl+b")
        assert sidebar.display and screen.focused is sidebar.session_list
        # Shown again: the list is asked for afresh (sessions made elsewhere appear).
        await wait_for(
            pilot,
            lambda: (
                len([p for p in requests(screen, "session/list") if not p.get("cursor")])
                == len(first_pages) + 1
                and not sidebar.loading
            ),
            "a first-page session/list",
        )
