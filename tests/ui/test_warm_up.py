"""The command line's app loads what the first reply needs in a background thread soon after
it starts (acp_tui.ui.warm_up); apps made otherwise (the tests') do not."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest

from acp_tui.ui.warm_up import WARM_UP_LEXERS, WARM_UP_MODULES, warm_up_in_background
from tests.python_probe import run_python
from tests.ui.chat_helpers import fixture_app, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


def test_the_warm_up_imports_its_modules_in_a_thread_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "warm_up_probe_module.py").write_text(
        "import threading\nIMPORTED_IN = threading.current_thread().name\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "warm_up_probe_module", raising=False)
    thread = warm_up_in_background(["warm_up_probe_module"], lexers=())
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert thread.daemon
    module = sys.modules["warm_up_probe_module"]
    assert module.IMPORTED_IN == thread.name != threading.main_thread().name


def test_a_module_that_fails_to_import_is_logged_and_the_rest_still_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "warm_up_broken_module.py").write_text("raise ValueError('broken')\n")
    (tmp_path / "warm_up_fine_module.py").write_text("FINE = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("warm_up_broken_module", "warm_up_fine_module"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    warm_up_in_background(["warm_up_broken_module", "warm_up_fine_module"], lexers=()).join(
        timeout=30
    )
    assert sys.modules["warm_up_fine_module"].FINE
    assert "warm_up_broken_module" in caplog.text


def test_the_warm_up_loads_what_the_first_markdown_drawn_needs() -> None:
    """In a fresh interpreter, as the command line has it: nothing of it loaded before."""
    probe = (
        "import sys, json\n"
        "from acp_tui.ui.warm_up import warm_up_in_background\n"
        "names = ['markdown_it', 'rich.markdown', 'rich.syntax', 'acp_tui.ui.render.markdown']\n"
        "before = [n for n in names if n in sys.modules]\n"
        "warm_up_in_background().join(timeout=60)\n"
        "print(json.dumps([before, [n for n in names if n in sys.modules]]))\n"
    )
    before, after = json.loads(run_python(probe))
    assert before == []
    assert after == ["markdown_it", "rich.markdown", "rich.syntax", "acp_tui.ui.render.markdown"]
    assert "acp_tui.ui.render.markdown" in WARM_UP_MODULES


def test_the_warm_up_makes_the_lexers_of_the_usual_fences() -> None:
    """Pygments compiles a lexer's rules when the first lexer of its class is made (Python's
    took 110 ms): in a fresh interpreter, the thread leaves them compiled."""
    probe = (
        "import json\n"
        "from pygments.lexers.python import PythonLexer\n"
        "from pygments.lexers.javascript import TypeScriptLexer\n"
        "classes = [PythonLexer, TypeScriptLexer]\n"
        "before = ['_tokens' in cls.__dict__ for cls in classes]\n"
        "from acp_tui.ui.warm_up import warm_up_in_background\n"
        "warm_up_in_background().join(timeout=60)\n"
        "print(json.dumps([before, ['_tokens' in cls.__dict__ for cls in classes]]))\n"
    )
    before, after = json.loads(run_python(probe))
    assert before == [False, False]
    assert after == [True, True]
    assert WARM_UP_LEXERS[0] == "python"


def test_a_language_pygments_lacks_is_logged_and_the_rest_are_made() -> None:
    probe = (
        "import json, logging\n"
        "from pygments.lexers.diff import DiffLexer\n"
        "seen = []\n"
        "handler = logging.Handler()\n"
        "handler.emit = lambda record: seen.append(record.getMessage())\n"
        "logging.getLogger('acp_tui.ui.warm_up').addHandler(handler)\n"
        "logging.getLogger('acp_tui.ui.warm_up').setLevel(logging.INFO)\n"
        "from acp_tui.ui.warm_up import warm_up_in_background\n"
        "warm_up_in_background([], lexers=['no-such-language-here', 'diff']).join(timeout=60)\n"
        "print(json.dumps([seen, '_tokens' in DiffLexer.__dict__]))\n"
    )
    seen, made = json.loads(run_python(probe))
    assert any("no-such-language-here" in message for message in seen)
    assert made, "the language after it was still made"


async def test_an_app_asked_to_warm_up_does_so_once_it_is_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[float] = []
    monkeypatch.setattr("acp_tui.ui.app.WARM_UP_AFTER", 0.01)
    monkeypatch.setattr("acp_tui.ui.app.warm_up_in_background", lambda: started.append(1.0) or None)
    app = fixture_app(tmp_path)
    app.warm_up = True
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: started == [1.0], "the warm-up to start")


async def test_an_app_not_asked_does_not_warm_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[float] = []
    monkeypatch.setattr("acp_tui.ui.app.warm_up_in_background", lambda: started.append(1.0) or None)
    monkeypatch.setattr("acp_tui.ui.app.WARM_UP_AFTER", 0.01)
    app = fixture_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_session(pilot)
    assert started == []
