"""What the permission dialog says, as a person reads it (issue 38): the command once (not
again in the ```` ```sh ```` block agents add as content), a title without Markdown's
backticks, and paths inside the project relative to it."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.text.titles import plain_title, project_path
from tests.ui.test_permission_dialog import DialogApp

pytestmark = pytest.mark.anyio

PROJECT = "/home/me/project"


def params(content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "sessionId": "s1",
        "toolCall": {
            "toolCallId": "call-1",
            "title": "Run `npm test` in `src`",
            "kind": "execute",
            "rawInput": {"command": "npm test", "cwd": PROJECT},
            "content": content,
            **extra,
        },
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
    }


def body_text(app: DialogApp) -> str:
    assert app.dialog is not None
    return "\n".join(  # the raw input (hidden, shown on request) is the agent's JSON as sent
        str(widget.render())
        for widget in app.dialog.query("#body Static, #body DiffView")
        if widget.id != "raw-input"
    )


@pytest.mark.parametrize(
    "block",
    ["```sh\nnpm test\n```", "```sh\n$ npm test\n```", "npm test", "```\n$ npm test\n```\n"],
    ids=["fenced", "fenced-prompt", "plain", "fenced-bare"],
)
async def test_the_command_shows_once_and_no_fence_shows(block: str) -> None:
    app = DialogApp(params([{"type": "content", "content": {"type": "text", "text": block}}]))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        text = body_text(app)
        assert text.count("npm test") == 1, text
        assert "```" not in text
        assert app.dialog is not None and app.dialog.title_text == "Run npm test in src"


async def test_other_text_shows_without_its_fence() -> None:
    content = [
        {"type": "content", "content": {"type": "text", "text": "```\nwill delete 3 files\n```"}}
    ]
    app = DialogApp(params(content))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        text = body_text(app)
        assert "will delete 3 files" in text and "```" not in text


async def test_paths_inside_the_project_are_relative_to_it() -> None:
    content = [
        {
            "type": "diff",
            "path": f"{PROJECT}/src/app.py",
            "oldText": "a\n",
            "newText": "b\n",
        }
    ]
    extra = {
        "locations": [{"path": f"{PROJECT}/src/app.py", "line": 3}, {"path": "/etc/hosts"}],
        "rawInput": {"command": "npm test", "cwd": f"{PROJECT}/web"},
    }
    app = DialogApp(params(content, **extra), project=PROJECT)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        text = body_text(app)
        assert "src/app.py:3, /etc/hosts" in text
        assert f"{PROJECT}/src" not in text
        assert "in web" in text  # the command's folder, relative too


def test_plain_title_and_project_path() -> None:
    assert plain_title("Read `src/app.py`") == "Read src/app.py"
    assert plain_title("Run ``a `b` c``") == "Run a `b` c"
    assert plain_title("a lone ` stays") == "a lone ` stays"
    assert plain_title("no code") == "no code"
    assert project_path("/p/src/a.py", "/p") == "src/a.py"
    assert project_path("/p2/a.py", "/p") == "/p2/a.py"
    assert project_path("/p", "/p") == "/p"
    assert project_path("rel/a.py", "/p") == "rel/a.py"
    assert project_path("/p/../etc/x", "/p") == "/p/../etc/x"
    assert project_path("/p/a.py", None) == "/p/a.py"
