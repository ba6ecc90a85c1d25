"""A real terminal for journey tests: the installed ``acp-tui`` runs in tmux, driven by keys,
judged by the text on the screen, as a person sees it.

Each :class:`Terminal` has its own tmux server (``-L``, a socket named for the test) and its
own XDG config, data, state and cache dirs, so journeys run in parallel and never touch the
real user's files. Waits poll the screen until a condition holds (never a fixed sleep) and fail
with the whole screen in the message.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.blackbox.home import honest_environment, installed_acp_tui, isolated_env, prepare_home

#: How long a wait may take before it fails. Generous: journeys must pass on a loaded machine.
DEFAULT_TIMEOUT = 30.0
POLL_SECONDS = 0.05
#: How long a screen that holds may take to be the same on two captures (see wait_until), and
#: the pause between those captures.
SETTLE_SECONDS = 0.5
SETTLE_POLL = 0.02
AGENTS = Path(__file__).resolve().parent.parent / "agents"


def agent_command(script: str, *args: str) -> list[str]:
    """A test agent under ``tests/agents`` run with this interpreter."""
    return [sys.executable, str(AGENTS / script), *args]


def server_environment() -> dict[str, str]:
    """The tmux server passes its environment on to the pane: it gets one that does not lie
    about the terminal."""
    return honest_environment()


class Terminal:
    """One tmux window of ``cols`` x ``rows`` running a command in an isolated home."""

    def __init__(self, home: Path, cols: int = 120, rows: int = 40) -> None:
        self.home = home
        self.cols = cols
        self.rows = rows
        self.socket = self._new_socket()
        self.target = "journey"
        self.env = isolated_env(prepare_home(home))
        self.started = False
        self.status_file = home / "exit-status"

    # ------------------------------------------------------------------ tmux

    @staticmethod
    def _new_socket() -> str:
        return f"acp-journey-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def _tmux(
        self, *args: str, check: bool = True, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run a tmux client; ``env``: more of its environment (the first client starts the
        server, whose environment the panes inherit)."""
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(self._config()), *args],
            capture_output=True,
            text=True,
            check=check,
            env={**server_environment(), **(env or {})},
        )

    def _config(self) -> Path:
        """The server's options, set before the first pane exists: a pane born at tmux's default
        80x24 and resized at once would race the program's start-up."""
        path = self.home / "tmux.conf"
        if not path.exists():
            path.write_text(
                f"set -g default-size {self.cols}x{self.rows}\n"
                "set -g remain-on-exit on\n"
                "set -g status off\n"
                "set -g escape-time 0\n"
                "set -g history-limit 0\n"
            )
        return path

    def start(
        self,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        program: str | None = None,
    ) -> Terminal:
        """Run ``acp-tui ARGS`` (or ``program ARGS``) in the terminal. The pane stays after the
        program exits (``remain-on-exit``), so its last screen and exit status can be read."""
        command = [program or installed_acp_tui(), *args]
        # The program's exit status, written by a shell that waits for it: tmux (3.3) does not
        # always reap a pane's process, and then reports it dead with no status.
        self.status_file.unlink(missing_ok=True)
        recorded = ["sh", "-c", f'"$@"; echo $? > {shlex.quote(str(self.status_file))}', "sh"]
        # A restart gets a server of its own: ``kill-server`` returns before the old server has
        # gone, and a client reaching its socket meanwhile fails ("server exited unexpectedly").
        self.close()
        self.socket = self._new_socket()
        environment = {**self.env, **(env or {})}
        exports = [f"-e{name}={value}" for name, value in environment.items()]
        self._tmux(
            "new-session",
            "-d",
            "-s",
            self.target,
            "-x",
            str(self.cols),
            "-y",
            str(self.rows),
            "-c",
            str(cwd or self.home),
            *exports,
            shlex.join([*recorded, *command]),
            # tmux (3.3) gives a new pane the client's PATH, whatever ``-e`` says: the client
            # has the pane's whole environment too.
            env=environment,
        )
        self.started = True
        return self

    def close(self) -> None:
        if self.started:
            self._tmux("kill-server", check=False)
            self.started = False

    # ------------------------------------------------------------------ reading

    def screen(self) -> str:
        """The visible screen as text, one line per row (trailing spaces kept off)."""
        result = self._tmux("capture-pane", "-p", "-t", self.target, check=False)
        return result.stdout

    def coloured(self) -> str:
        """The visible screen with its colours and attributes (SGR sequences), as tmux keeps
        them: what a focus or a colour looks like."""
        return self._tmux("capture-pane", "-e", "-p", "-t", self.target, check=False).stdout

    def coloured_line(self, text: str) -> str:
        """The first row holding ``text`` (as :meth:`screen` shows it), with its colours;
        "" when no row holds it."""
        for coloured in self.coloured().split("\n"):
            if text in re.sub(r"\x1b\[[0-9;:]*m", "", coloured):
                return coloured
        return ""

    def lines(self) -> list[str]:
        text = self.screen()
        rows = text.split("\n")
        return rows[: self.rows]

    def title(self) -> str:
        """The pane's title, as the program set it (OSC 2)."""
        return self._tmux("display", "-p", "-t", self.target, "#{pane_title}").stdout.strip()

    def rang(self) -> bool:
        """Whether the program rang the bell (tmux keeps the flag until the window is seen)."""
        flag = self._tmux("display", "-p", "-t", self.target, "#{window_bell_flag}").stdout
        return flag.strip() == "1"

    def exited(self) -> int | None:
        """The program's exit status once it has exited, else None."""
        try:
            text = self.status_file.read_text().strip()
        except FileNotFoundError:
            return None
        return int(text) if text else None

    # ------------------------------------------------------------------ waiting

    def wait_until(
        self,
        condition: Callable[[str], bool],
        what: str,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        twice: bool = False,
    ) -> str:
        """Poll the screen until ``condition(screen)`` holds; return that screen, once settled.
        Exceptions from the condition are not swallowed: a broken condition fails as itself.

        tmux (3.3) keeps no frame whole: a capture can catch one half drawn. So the screen
        returned is the first that holds and is the same on the next capture (or, for a screen
        that keeps moving, the last that held within :data:`SETTLE_SECONDS`): what a test
        reads in it beside the condition is there (the key sheet's title drawn, its text not
        yet, failed a test in CI).

        ``twice``: it must hold on two captures in a row. For a condition that something is
        *not* on screen, where a frame half drawn lacks the row that would have said no."""
        deadline = time.monotonic() + timeout
        held_once = False
        while True:
            screen = self.screen()
            if condition(screen):
                if not twice:
                    return self._settled(screen, condition)
                if held_once:
                    return screen  # two captures in a row held: settled enough
                held_once = True
                time.sleep(POLL_SECONDS)
                continue
            held_once = False
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out after {timeout:.0f} s waiting for {what}; the screen:\n{screen}"
                )
            time.sleep(POLL_SECONDS)

    def _settled(self, screen: str, condition: Callable[[str], bool]) -> str:
        """``screen`` (which holds), or a later capture that holds, once two agree."""
        settle_by = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < settle_by:
            time.sleep(SETTLE_POLL)
            again = self.screen()
            if again == screen:
                return screen
            if not condition(again):
                return screen  # it moved on: what held is what was asked for
            screen = again
        return screen

    def wait_for(self, text: str | re.Pattern[str], timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait until ``text`` (a substring or a compiled pattern) is on the screen."""
        if isinstance(text, re.Pattern):
            return self.wait_until(
                lambda s: text.search(s) is not None, repr(text.pattern), timeout
            )
        return self.wait_until(lambda s: text in s, repr(text), timeout)

    def wait_header(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait until the top row (the chat screen's header: agent, session title) shows
        ``text``. "New session" there means a session is open; elsewhere on the screen it may
        be the footer's Ctrl+N hint."""
        return self.wait_until(
            lambda s: text in s.split("\n", 1)[0], f"{text!r} in the header", timeout
        )

    def wait_gone(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        return self.wait_until(lambda s: text not in s, f"{text!r} to go", timeout, twice=True)

    def wait_still(self, quiet: float = 0.5, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait until the screen has not changed for ``quiet`` seconds (before a click: what is
        under the pointer must not move between reading the screen and clicking)."""
        deadline = time.monotonic() + timeout
        last = self.screen()
        since = time.monotonic()
        while True:
            time.sleep(POLL_SECONDS)
            screen = self.screen()
            now = time.monotonic()
            if screen != last:
                last, since = screen, now
            elif now - since >= quiet:
                return screen
            if now > deadline:
                raise AssertionError(
                    f"the screen kept changing for {timeout:.0f} s; the last screen:\n{screen}"
                )

    def wait_exit(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        deadline = time.monotonic() + timeout
        while True:
            status = self.exited()
            if status is not None:
                return status
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the program did not exit within {timeout:.0f} s; the screen:\n{self.screen()}"
                )
            time.sleep(POLL_SECONDS)

    # ------------------------------------------------------------------ typing

    def type(self, text: str) -> None:
        """Type ``text`` literally, as keystrokes."""
        self._tmux("send-keys", "-t", self.target, "-l", text)

    def press(self, *keys: str) -> None:
        """Press keys by tmux name: ``Enter``, ``Escape``, ``C-b``, ``PageUp``, ``BTab``..."""
        for key in keys:
            self._tmux("send-keys", "-t", self.target, key)

    def press_together(self, *keys: str) -> None:
        """Press keys by tmux name in one go, as a fast typist or a paste of keys does: the app
        reads them together."""
        self._tmux("send-keys", "-t", self.target, *keys)

    def send(self, text: str) -> None:
        """Type a message and press Enter."""
        self.type(text)
        self.press("Enter")

    def click(self, column: int, row: int) -> None:
        """A left click at 0-based (column, row), sent as the terminal's SGR mouse report."""
        for final in ("M", "m"):
            sequence = f"\x1b[<0;{column + 1};{row + 1}{final}"
            self._tmux("send-keys", "-t", self.target, "-l", sequence)

    def resize(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        self._tmux("resize-window", "-t", self.target, "-x", str(cols), "-y", str(rows))

    # ------------------------------------------------------------------ finding

    def find(self, text: str) -> tuple[int, int] | None:
        """The (column, row) where ``text`` first shows, or None."""
        for row, line in enumerate(self.lines()):
            column = line.find(text)
            if column >= 0:
                return column, row
        return None
