"""Run ``acp-tui --demo`` for real (``acp_tui.cli.main.main``) and note the first frame with the
prompt focused: writes ``time.time()`` of that frame to the file named by
``ACP_TUI_BENCH_MARK`` and exits. Used by :mod:`bench.bench_startup` under a pty."""

from __future__ import annotations

import os
import sys
import time


def main() -> int:
    mark = os.environ["ACP_TUI_BENCH_MARK"]
    from textual.app import App

    original = App._display
    done = False

    def _display(self: App, screen: object, renderable: object) -> None:
        nonlocal done
        original(self, screen, renderable)
        if done or renderable is None:
            return
        focused = self.focused
        if focused is not None and type(focused).__name__ == "PromptTextArea":
            done = True
            with open(mark, "w", encoding="ascii") as handle:
                handle.write(repr(time.time()))
            self.exit(0)

    App._display = _display  # type: ignore[method-assign]
    from acp_tui.cli.main import main as cli_main

    return cli_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
