"""``--continue`` finds the folder's most recent session whatever order the agent lists in.

The spec leaves ``session/list``'s order to the agent; acp-tui read one page, so an agent that
lists the oldest first had its newest session of page one reopened, not its newest. These drive
:func:`acp_tui.session.launch.start.open_at_start` over a stand-in for the session controller whose
list comes in pages, with a real store behind it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from acp_tui.protocol.jsonrpc import INTERNAL_ERROR, RpcError
from acp_tui.session.errors import AgentRefused, session_error
from acp_tui.session.launch.start import CONTINUE_PAGES, open_at_start
from acp_tui.store.store import SessionStore

CWD = "/work/project"


def row(number: int, *, dated: bool = True) -> dict[str, Any]:
    """Session ``number``: the higher, the more recent."""
    info: dict[str, Any] = {"sessionId": f"s{number:03d}", "cwd": CWD, "title": f"#{number}"}
    if dated:
        info["updatedAt"] = datetime.fromtimestamp(1_750_000_000 + number * 60, UTC).isoformat()
    return info


@dataclass
class Agent:
    can_list: bool = True


@dataclass
class PagedLink:
    """What open_at_start uses of a SessionController: the agent's list in pages of
    ``page_size``, each cursor the offset of the next page (or ``cursors``, if given, in turn),
    and the sessions it was asked to open."""

    rows: list[dict[str, Any]]
    page_size: int = 3
    cursors: list[str] | None = None
    agent: Agent = field(default_factory=Agent)
    store: SessionStore = field(default_factory=SessionStore)
    cursors_asked: list[str | None] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)

    async def list_sessions(
        self, cwd: str | None, cursor: str | None, *, pages: list[Any] | None = None
    ) -> str | None:
        self.cursors_asked.append(cursor)
        index = len(self.cursors_asked) - 1
        start = index * self.page_size
        page: dict[str, Any] = {"sessions": self.rows[start : start + self.page_size]}
        if self.cursors is not None:
            if index < len(self.cursors):
                page["nextCursor"] = self.cursors[index]
        elif start + self.page_size < len(self.rows):
            page["nextCursor"] = str(start + self.page_size)
        if pages is not None:
            pages.append(page)
        self.store.apply_list_page(page, cwd=cwd, cursor=cursor)
        state = self.store.list_state(cwd)
        return None if state.complete else state.next_cursor

    async def open_session(self, session_id: str, cwd: str | None, *, adopt: bool) -> None:
        self.opened.append(session_id)


async def continue_latest(controller: PagedLink) -> list[str]:
    outcome = await open_at_start(controller, cwd=CWD, resume="", continue_latest=True)  # type: ignore[arg-type]
    assert outcome.opened == (controller.opened[-1] if controller.opened else None)
    return controller.opened


@pytest.mark.anyio
async def test_newest_listed_first_reads_one_page() -> None:
    controller = PagedLink([row(n) for n in range(20, 0, -1)])
    assert await continue_latest(controller) == ["s020"]
    assert controller.cursors_asked == [None]


@pytest.mark.anyio
async def test_oldest_listed_first_reads_on_to_the_newest() -> None:
    controller = PagedLink([row(n) for n in range(1, 21)])
    assert await continue_latest(controller) == ["s020"]
    assert len(controller.cursors_asked) == 7  # 20 rows, 3 a page


@pytest.mark.anyio
async def test_one_row_a_page_oldest_first_reads_on_across_pages() -> None:
    controller = PagedLink([row(n) for n in range(1, 6)], page_size=1)
    assert await continue_latest(controller) == ["s005"]


@pytest.mark.anyio
async def test_undated_rows_keep_the_agents_order_and_one_page() -> None:
    """Without dates there is no telling which is newer: the agent's first row, as before."""
    controller = PagedLink([row(n, dated=False) for n in range(1, 10)])
    assert await continue_latest(controller) == ["s001"]
    assert controller.cursors_asked == [None]


@pytest.mark.anyio
async def test_a_cursor_handed_back_again_is_not_followed_twice() -> None:
    controller = PagedLink([row(n) for n in range(1, 31)], cursors=["a", "b", "a", "c"])
    await continue_latest(controller)
    assert controller.cursors_asked == [None, "a", "b"]


@pytest.mark.anyio
async def test_an_endless_list_is_read_to_a_bound() -> None:
    controller = PagedLink([row(n) for n in range(1, 400)])
    await continue_latest(controller)
    assert len(controller.cursors_asked) == CONTINUE_PAGES
    assert controller.opened == [f"s{3 * CONTINUE_PAGES:03d}"]


@pytest.mark.anyio
async def test_resume_without_an_id_offers_the_list_read_the_same_way() -> None:
    controller = PagedLink([row(n) for n in range(1, 10)])
    outcome = await open_at_start(controller, cwd=CWD, resume="", continue_latest=False)  # type: ignore[arg-type]
    assert outcome.choose and controller.opened == []
    assert controller.store.catalog(CWD)[0].id == "s009"


@pytest.mark.anyio
async def test_one_row_a_page_newest_first_reads_a_second_page_only() -> None:
    controller = PagedLink([row(n) for n in range(5, 0, -1)], page_size=1)
    assert await continue_latest(controller) == ["s005"]
    assert len(controller.cursors_asked) == 2


@pytest.mark.anyio
async def test_a_later_page_that_fails_leaves_the_pages_read() -> None:
    class FailingSecondPage(PagedLink):
        async def list_sessions(
            self, cwd: str | None, cursor: str | None, *, pages: list[Any] | None = None
        ) -> str | None:
            if cursor is not None and len(self.cursors_asked) >= 2:
                raise AgentRefused(INTERNAL_ERROR, "the index is locked")
            return await super().list_sessions(cwd, cursor, pages=pages)

    controller = FailingSecondPage([row(n) for n in range(1, 10)])
    assert await continue_latest(controller) == ["s006"]  # the newest of the two pages read


@pytest.mark.anyio
async def test_a_session_that_will_not_reopen_is_told_with_the_agents_reason_whole() -> None:
    """Gemini CLI answers a failed load with "Internal error" and the reason in ``data``: the
    message said "(Internal error (code -32603): {"details": …" and a toast cut the reason."""

    class Refusing(PagedLink):
        async def open_session(self, session_id: str, cwd: str | None, *, adopt: bool) -> None:
            # As the controller says it (acp_tui.session.errors): with the agent's reason.
            refused = RpcError(
                INTERNAL_ERROR,
                "Internal error",
                {"details": "No previous sessions found for this project."},
            )
            raise session_error(refused) from refused

    controller = Refusing([row(1)])
    outcome = await open_at_start(controller, cwd=CWD, resume="s001", continue_latest=False)  # type: ignore[arg-type]
    assert outcome.opened is None
    assert outcome.message is not None
    assert outcome.message.startswith(
        "Could not reopen “s001”: Internal error: No previous sessions found for this project."
    ), outcome.message
