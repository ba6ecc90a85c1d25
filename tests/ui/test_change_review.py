"""The change review on its own: moving through files faster than the old file's hunks leave
the screen never breaks it (each file shows its own hunks, marked as chosen), and the choice
of files and hunks is what the person made."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from acp_tui.services.hunks import FileChange
from acp_tui.ui.widgets.change_review import ChangeReview, HunkHeader, ReviewFile
from acp_tui.ui.widgets.diff_view import DiffView
from tests.ui.chat_helpers import wait_for

pytestmark = pytest.mark.anyio

OLD = "".join(f"line {n}\n" for n in range(40))


def _change(*lines: int) -> FileChange:
    new = OLD
    for n in lines:
        new = new.replace(f"line {n}\n", f"line {n} changed\n")
    return FileChange.compute(OLD, new)


class ReviewApp(App[None]):
    def __init__(self, files: list[ReviewFile]) -> None:
        super().__init__()
        self.files = files

    def compose(self) -> ComposeResult:
        yield ChangeReview(self.files, id="review")


FILES = [
    ReviewFile("a.py", "restore", _change(1, 20)),
    ReviewFile("b.py", "restore", _change(5)),
    ReviewFile("c.py", "restore", _change(2, 15, 30)),
    ReviewFile("d.bin", "restore", None),
]


async def test_moving_through_files_fast_shows_each_files_own_hunks() -> None:
    app = ReviewApp(FILES)
    async with app.run_test(size=(100, 30)) as pilot:
        review = app.query_one(ChangeReview)
        review.query_one("#review-files").focus()
        # Faster than a file's hunks leave the screen: every key in one go.
        await pilot.press("down", "down", "up", "down", "down", "up", "up", "down")
        await pilot.pause()

        def settled() -> bool:
            headers = list(review.query(HunkHeader))
            return bool(headers) and {h.file_index for h in headers} == {2}

        await wait_for(pilot, settled, "c.py's hunks alone")  # 0 1 2 1 2 3 2 1 2
        assert len(review.query(DiffView)) == 3
        # Leave c.py's second hunk out.
        await pilot.press("right", "down", "space")
        await pilot.pause()
        assert review.choices() == [None, None, frozenset({0, 2}), None]
        left_out = [h.hunk_index for h in review.query(HunkHeader) if h.has_class("-left-out")]
        assert left_out == [1]


async def test_each_file_is_one_row_however_narrow_the_list() -> None:
    long = [
        ReviewFile(f"a-rather-long-folder-name/file-{n}.py", "restore", _change(n), n == 1)
        for n in range(3)
    ]
    app = ReviewApp(long)
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        files = app.query_one("#review-files")
        assert files.virtual_size.height == len(long)
        rows = [str(files.get_option_at_index(i).prompt) for i in range(len(long))]
        assert rows[1].startswith("□ M ▲ ")  # a conflict: marked first, left out
