"""Driving the installed ``acp-tui`` in a :class:`PtyTerminal`, as a person would, and timing
what reaches the screen.

Everything here goes through the screen and the keyboard: the app is the console script
beside ``sys.executable`` (what ``pip install`` made), the agent a real subprocess. What the
app shows is read off the emulated screen; what the agent did is read from its marks file.
The few things that belong to acp-tui's look (how a ready prompt looks, which keys reach the
top of the transcript, what a fold row says) are in :class:`AppProfile`, so another client
can be driven by the same code with its own profile.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.blackbox.home import honest_environment, installed_acp_tui, isolated_env, prepare_home
from bench.blackbox.terminal import Condition, PtyTerminal, ScreenTimeout, visible
from bench.blackbox.workloads import BEGIN, END, marker

AGENT_SCRIPT = Path(__file__).resolve().parent / "agent.py"
COLS, ROWS = 120, 40
#: Bytecode caches for the launched app, kept between runs (as a pip-installed acp-tui has
#: them): without it, ``PYTHONDONTWRITEBYTECODE=1`` (set in some sandboxes) would compile every
#: module at each launch.
PYCACHE = Path(tempfile.gettempdir()) / "acp-tui-bench-pycache"
#: The app's cache directory, shared by every run like the bytecode.
APP_CACHE = Path(tempfile.gettempdir()) / "acp-tui-bench-cache"


@dataclass(frozen=True)
class AppProfile:
    """What the benchmarks need to know of the client's screen."""

    #: Shown in the prompt while it is empty.
    placeholder: str = "Message the agent"
    #: The header once the agent answered and a new session is open (agent name first).
    new_session: str = "New session"
    #: Keys that take the focus to the transcript and scroll it to its top.
    top_keys: tuple[str, ...] = ("shift+tab", "home")
    #: A row that stands for text not drawn (an acp-tui fold row); None if the client has none.
    fold_words: tuple[str, ...] = ("earlier lines", "folded")

    def ready(self, agent_name: str) -> Condition:
        """The agent is ready and the prompt usable: its name and a new session in the header,
        the empty prompt on screen."""
        placeholder, new_session = self.placeholder, self.new_session

        def condition(rows: list[str]) -> bool:
            return (
                agent_name in rows[0]
                and new_session in rows[0]
                and any(placeholder in row for row in rows)
            )

        return condition

    def fold_row(self) -> Condition:
        words = self.fold_words
        return lambda rows: any(all(word in row for word in words) for row in rows)


ACP_TUI = AppProfile()


def fresh_home() -> Path:
    """An empty home: XDG dirs and a project directory, all under a new temporary dir."""
    return prepare_home(Path(tempfile.mkdtemp(prefix="acp-tui-bb-")), "project")


def app_env(home: Path) -> dict[str, str]:
    # What a person's second and later launches find: the bytecode, and the stylesheets
    # parsed by an earlier run (acp_tui/ui/textual_patches/css_cache.py). Config, data and
    # state stay fresh.
    return {
        **isolated_env(home),
        "PYTHONPYCACHEPREFIX": str(PYCACHE),
        "XDG_CACHE_HOME": str(APP_CACHE),
    }


def base_env() -> dict[str, str]:
    env = honest_environment()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@dataclass
class Running:
    """A launched app: its terminal, home and the agent's marks file."""

    term: PtyTerminal
    home: Path
    marks: Path
    started: float

    def marks_of(self, event: str, turn: int | None = None) -> list[dict[str, Any]]:
        try:
            lines = self.marks.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        found = []
        for line in lines:
            record = json.loads(line)
            if record.get("event") == event and (turn is None or record.get("turn") == turn):
                found.append(record)
        return found

    def mark(self, event: str, turn: int, limit: float = 10.0) -> float:
        """The perf_counter time of the agent's ``event`` in ``turn`` (waits for it)."""
        deadline = time.monotonic() + limit
        while True:
            found = self.marks_of(event, turn)
            if found:
                return float(found[-1]["t"]) - PtyTerminal.wall_offset()
            if time.monotonic() > deadline:
                raise RuntimeError(f"the agent never marked {event!r} for turn {turn}")
            time.sleep(0.01)


@contextmanager
def launch(
    args: list[str],
    home: Path | None = None,
    program: list[str] | None = None,
    *,
    keep_home: bool = False,
) -> Iterator[Running]:
    """``acp-tui ARGS`` (or ``program ARGS``: a stand-in client, for testing the benchmarks
    themselves) in a fresh home (or ``home``: kept afterwards with ``keep_home``, for a next
    launch), in a 120x40 pty; ended on exit."""
    home = home or fresh_home()
    marks = home / "marks.jsonl"
    command = program or [installed_acp_tui()]
    argv = [*command, *[arg.replace("{marks}", str(marks)) for arg in args]]
    term = PtyTerminal(
        argv, env={**base_env(), **app_env(home)}, cwd=home / "project", cols=COLS, rows=ROWS
    )
    try:
        started = term.start()
        yield Running(term, home, marks, started)
    finally:
        term.close()
        if not keep_home:
            shutil.rmtree(home, ignore_errors=True)


def bench_agent_args() -> list[str]:
    return ["--", sys.executable, str(AGENT_SCRIPT), "--marks", "{marks}"]


def wait_ready(run: Running, agent_name: str, limit: float = 60.0) -> float:
    return run.term.wait_until(ACP_TUI.ready(agent_name), limit, "a ready prompt")


def send_prompt(run: Running, text: str, expect: Condition) -> tuple[float, Any]:
    """Type ``text`` (waiting until the prompt shows it, so Enter finds the app idle), start
    watching for ``expect``, press Enter; return Enter's time and the watch."""
    run.term.type(text)
    run.term.wait_for(text, 30)
    watch = run.term.expect(expect)
    return run.term.press("enter"), watch


# ---------------------------------------------------------------------------- replies


def reply(
    workload: str, paced: bool, limit: float, top_limit: float, program: list[str] | None = None
) -> dict[str, float]:
    """One reply of ``workload`` in a fresh app on the bench agent.

    Reported: Enter -> the last word on screen (``enter_s``); the agent's last byte -> the last
    word on screen (``after_end_s``); whether the first words were reached by scrolling to the
    top of the reply with keys afterwards (``reached``: 1 or 0); whether no fold row was ever on
    screen (``unfolded``: 1 or 0); Enter -> the first words on screen after that scroll
    (``top_s``); the app's peak RSS (``rss_mb``); the app's CPU seconds from the prompt typed to
    the last word shown (``cpu_s``); ``timed_out`` (1 or 0): the last word did not show within
    ``limit``."""
    turn = 1
    with launch(bench_agent_args(), program=program) as run:
        term = run.term
        wait_ready(run, "bench-agent")
        fold_seen = term.expect(ACP_TUI.fold_row())
        command = f"/bench {workload} {'paced' if paced else 'burst'}"
        cpu_before = cpu_seconds(term.pid)
        entered, last = send_prompt(run, command, visible(marker(END, turn)))
        result: dict[str, float] = {"timed_out": 0.0}
        try:
            shown = term.settle(last, limit, f"the last word of {workload}")
        except ScreenTimeout:
            return {
                "enter_s": float("inf"),
                "after_end_s": float("inf"),
                "top_s": float("inf"),
                "unfolded": 0.0 if fold_seen.done.is_set() else 1.0,
                "reached": 0.0,
                "rss_mb": term.peak_rss_mb(),
                "cpu_s": float("inf"),
                "timed_out": 1.0,
            }
        result["cpu_s"] = cpu_seconds(term.pid) - cpu_before
        stream_end = run.mark("end", turn)
        result["enter_s"] = shown - entered
        result["after_end_s"] = shown - stream_end
        begin = marker(BEGIN, turn)
        fold_row = ACP_TUI.fold_row()
        # The first words, or a fold row where they should be: then a short grace for them
        # (the keys may still be on their way) instead of the whole limit.
        first = term.expect(lambda rows: visible(begin)(rows) or fold_row(rows))
        term.press(*ACP_TUI.top_keys)
        reached = False
        try:
            at = term.settle(first, top_limit, "the first words")
            if not term.contains(begin):
                at = term.wait_for(begin, top_limit / 4)
            result["top_s"] = at - entered
            reached = True
        except ScreenTimeout:
            result["top_s"] = float("inf")
        result["reached"] = 1.0 if reached else 0.0
        result["unfolded"] = 0.0 if fold_seen.done.is_set() else 1.0
        result["rss_mb"] = term.peak_rss_mb()
        return result


# ---------------------------------------------------------------------------- keys


def harness_floor(keys: int = 50) -> list[float]:
    """Key -> echoed character on screen with ``cat`` in a raw tty: the harness's own
    latency (pty, emulator, condition checks), in ms."""
    term = PtyTerminal(["sh", "-c", "stty raw -echo; exec cat"], cols=COLS, rows=ROWS)
    latencies: list[float] = []
    try:
        term.start()
        term.type("ready")
        term.wait_for("ready", 10)
        rng = random.Random(7)
        typed = "ready"
        for _ in range(keys):
            char = rng.choice(string.ascii_lowercase)
            typed += char
            watch = term.expect(visible(typed[-8:]))
            sent = term.type(char)
            latencies.append((term.settle(watch, 5, "the echo") - sent) * 1000)
            time.sleep(0.005)
    finally:
        term.close()
    return latencies


class Typist:
    """Types random letters into the prompt, a key at a time, and times each to the screen."""

    #: Letters per line before the prompt is cleared (well inside the prompt's width).
    LINE = 30
    PREFIX = 6

    def __init__(self, run: Running, seed: int = 11) -> None:
        self.run = run
        self.rng = random.Random(seed)
        self.typed = ""

    def clear(self) -> None:
        if self.typed:
            self.run.term.write(b"\x7f" * len(self.typed))
            self.typed = ""
            self.run.term.wait_for(ACP_TUI.placeholder, 60)

    def _letters(self, count: int) -> str:
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(count))

    def key(self, limit: float) -> float:
        """One measured key, in ms (``limit`` * 1000 when it never showed)."""
        term = self.run.term
        if len(self.typed) >= self.PREFIX + self.LINE:
            self.clear()
        if not self.typed:
            # An unmeasured prefix first: what is typed is then unique on the screen.
            self.typed = self._letters(self.PREFIX)
            term.type(self.typed)
            term.wait_for(self.typed, 60)
        char = self._letters(1)
        self.typed += char
        watch = term.expect(visible(self.typed))
        sent = term.type(char)
        try:
            return (term.settle(watch, limit, "the key") - sent) * 1000
        except ScreenTimeout:
            return limit * 1000


def type_while(
    typist: Typist,
    watch: Any,
    latencies: list[float],
    keys: int,
    deadline: float,
    gap: float,
    key_limit: float,
) -> None:
    """Keys typed ``gap`` seconds apart, each timed into ``latencies`` (ms), until ``watch``
    is done, ``keys`` keys are timed in all, or the ``deadline`` (``time.monotonic``)."""
    while len(latencies) < keys and not watch.done.is_set() and time.monotonic() < deadline:
        latencies.append(typist.key(key_limit))
        time.sleep(gap)


def keys_during(
    flood: str, keys: int, budget: float, gap: float = 0.05, key_limit: float = 5.0
) -> dict[str, Any]:
    """Keys typed into the prompt while ``flood`` (``/bench`` arguments) streams: from Enter
    until its last word is on screen, the flood started again when it ended, for at most
    ``budget`` seconds or ``keys`` keys. Also the same app's idle latency first."""
    latencies: list[float] = []
    idle: list[float] = []
    with launch(bench_agent_args()) as run:
        wait_ready(run, "bench-agent")
        typist = Typist(run)
        for _ in range(20):
            idle.append(typist.key(key_limit))
            time.sleep(gap)
        typist.clear()
        deadline = time.monotonic() + budget
        turn = 0
        while len(latencies) < keys and time.monotonic() < deadline:
            typist.clear()
            turn += 1
            _, last = send_prompt(run, f"/bench {flood}", visible(marker(END, turn)))
            type_while(typist, last, latencies, keys, deadline, gap, key_limit)
            if not last.done.is_set():
                break  # out of keys or time with this flood still streaming
            typist.clear()
    return {"latencies": latencies, "idle": idle}


# ---------------------------------------------------------------------------- launch


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` has used so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def launch_to_ready(*, fill_caches: bool = False, cpu: list[float] | None = None) -> float:
    """``acp-tui --demo``: spawn -> the demo agent ready and the prompt usable, in seconds;
    then a typed key must show (else the prompt was not usable after all). ``fill_caches``:
    then wait (up to 15 s) for the app to keep its parsed stylesheets in its cache directory
    (its warm-up thread does, a second after start), as a person's earlier launch did.
    ``cpu`` gets the CPU seconds acp-tui had used when it was ready (its agent's not counted):
    less moved by other work on the machine than the time."""
    with launch(["--demo"]) as run:
        ready = wait_ready(run, "demo agent")
        if cpu is not None:
            cpu.append(cpu_seconds(run.term.pid))
        run.term.type("q")
        run.term.wait_until(
            lambda rows: any("▊ q" in row for row in rows), 30, "a key in the prompt"
        )
        if fill_caches:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and not any(APP_CACHE.glob("*/css-*.pickle")):
                time.sleep(0.05)
        return ready - run.started


def resume_to_last(messages: int, tools: int, limit: float) -> float:
    """``acp-tui --demo --resume ID`` of a saved session of ``messages`` messages and
    ``tools`` tool calls: spawn -> its last entry on screen, in seconds."""
    from bench.bench_replay import write_history

    home = fresh_home()
    last_words = marker(END, 0)
    session_id = write_history(
        home / "data" / "acp-tui" / "demo-agent",
        str(home / "project"),
        messages,
        tools,
        closing_text=f"That was the whole history. {last_words}",
    )
    with launch(["--demo", "--resume", session_id], home=home) as run:
        try:
            return run.term.wait_for(last_words, limit) - run.started
        except ScreenTimeout:
            return float("inf")


# ---------------------------------------------------------------------------- permission


def permission(options: int, limit: float) -> dict[str, float]:
    """A request with ``options`` options: the agent sent it -> its first option on screen ->
    the dialog armed (no key answers before: issue 17) -> "1" pressed -> the agent has the
    answer. Seconds."""
    with launch(bench_agent_args()) as run:
        term = run.term
        wait_ready(run, "bench-agent")
        _, dialog = send_prompt(run, f"/bench permission {options}", visible("Choice 0001"))
        try:
            shown = term.settle(dialog, limit, "the permission dialog")
        except ScreenTimeout:
            return {"shown_s": float("inf"), "answered_s": float("inf")}
        term.wait_for("1-9 choose", limit)  # armed
        pressed = term.type("1")
        sent = run.mark("permission-sent", 1)
        answered = run.mark("permission-answered", 1, limit=limit)
        outcome = run.marks_of("permission-answered", 1)[-1].get("outcome")
        if outcome != "opt-1":
            raise RuntimeError(f"the key 1 chose {outcome!r}, not the first option")
        term.wait_for(marker(END, 1), limit)
        return {"shown_s": shown - sent, "answered_s": answered - pressed}


# ---------------------------------------------------------------------------- forms


def form(fields: int, limit: float) -> dict[str, float]:
    """A form of ``fields`` text fields: the agent sent it -> on screen (its first field, or
    the message that it is refused) -> Escape (a form shown is cancelled) -> the agent has its
    answer; seconds, and the app's peak RSS."""
    with launch(bench_agent_args()) as run:
        term = run.term
        wait_ready(run, "bench-agent")
        shown = visible("Field 00001")
        refused = visible("cannot show")
        _, watch = send_prompt(run, f"/bench form {fields}", lambda r: shown(r) or refused(r))
        try:
            at = term.settle(watch, limit, "the form or its refusal")
        except ScreenTimeout:
            return {"shown_s": float("inf"), "refused": 0.0, "rss_mb": term.peak_rss_mb()}
        was_refused = term.contains("cannot show")
        if not was_refused:
            term.wait_for("Esc cancel", limit)
            term.press("escape")
        run.mark("form-answered", 1, limit=limit)
        term.wait_for(marker(END, 1), limit)
        return {
            "shown_s": at - run.mark("form-sent", 1),
            "refused": 1.0 if was_refused else 0.0,
            "rss_mb": term.peak_rss_mb(),
        }


# ---------------------------------------------------------------------------- replay


def replay(size: int, limit: float) -> dict[str, float]:
    """``acp-tui replay --fast`` of a recording of about ``size`` bytes (a long session:
    :mod:`bench.blackbox.recordings`): spawn -> its last words on screen, seconds; the app's
    peak RSS. Then ``acp-tui replay --check`` of it: seconds, peak RSS."""
    from bench.blackbox.recordings import LAST_WORDS, write_recording

    home = fresh_home()
    path = home / "session.jsonl"
    write_recording(path, size, cwd=str(home / "project"))
    result: dict[str, float] = {}
    with launch(["replay", "--fast", str(path)], home=home) as run:
        try:
            result["replay_s"] = run.term.wait_for(LAST_WORDS, limit) - run.started
        except ScreenTimeout:
            result["replay_s"] = float("inf")
        result["replay_rss_mb"] = run.term.peak_rss_mb()
    home = fresh_home()
    path = home / "session.jsonl"
    write_recording(path, size, cwd=str(home / "project"))
    check = [installed_acp_tui(), "replay", "--check", str(path)]
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *check],
        env={**base_env(), **app_env(home)},
        capture_output=True,
        text=True,
        timeout=limit,
        check=False,
    )
    result["check_s"] = time.perf_counter() - started
    if done.returncode != 0 or "no protocol errors" not in done.stdout:
        raise RuntimeError(f"replay --check failed: {done.stdout} {done.stderr}")
    result["check_rss_mb"] = int(done.stderr.strip().splitlines()[-1]) / 1000
    shutil.rmtree(home, ignore_errors=True)
    return result


# ---------------------------------------------------------------------------- options

#: The bar's button that holds the controls it has no room for (``ChatBar``).
MORE_OPTIONS = re.compile(r"☰ \d+ more")


def options(count: int, limit: float, keys: int = 20) -> dict[str, Any]:
    """``count`` config options: the agent's update sent -> the bar says what is behind
    "☰ N more"; keys typed with them there, each to the screen (ms); then the next launch,
    which shows them before its new session exists: spawn -> ready."""
    home = fresh_home()
    args = [*bench_agent_args(), "--options", str(count)]
    more = MORE_OPTIONS
    result: dict[str, Any] = {}
    try:
        with launch(args, home=home, keep_home=True) as run:
            term = run.term
            wait_ready(run, "bench-agent")
            _, watch = send_prompt(run, f"/bench options {count}", visible(marker(END, 1)))
            term.settle(watch, limit, "the agent's reply")
            sent = run.mark("options-sent", 1)
            shown = term.wait_until(
                lambda rows: any(more.search(row) for row in rows), limit, "☰ N more"
            )
            result["shown_s"] = max(0.0, shown - sent)
            typist = Typist(run)
            result["latencies"] = [typist.key(5.0) for _ in range(keys)]
        with launch(args, home=home) as run:
            wait_ready(run, "bench-agent", limit)
            run.term.wait_until(
                lambda rows: any(more.search(row) for row in rows), limit, "the remembered options"
            )
            result["launch_s"] = run.term.wait_for(ACP_TUI.placeholder, limit) - run.started
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return result


# ---------------------------------------------------------------------------- checkpoints


def _project_of(home: Path, files: int) -> None:
    """``files`` small source files in 100 folders, committed to a git repository (a project
    as acp-tui meets it)."""
    project = home / "project"
    for n in range(files):
        folder = project / f"pkg{n % 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"module{n:05d}.py").write_text(f"# module {n}\n" + "value = 1\n" * 20)
    env = {**base_env(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "project"],
    ):
        subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)


def checkpoint_delay(
    files: int, turns: int, limit: float, *, checkpoints: bool = True
) -> dict[str, Any]:
    """Enter -> ``session/prompt`` received by the agent, for each of ``turns`` prompts in
    a project of ``files`` files (seconds): what a checkpoint before each turn adds. The
    first prompt is sent as soon as the agent is ready, in a project acp-tui never saw."""
    home = fresh_home()
    try:
        _project_of(home, files)
        args = bench_agent_args() if checkpoints else ["--no-checkpoints", *bench_agent_args()]
        delays: list[float] = []
        with launch(args, home=home) as run:
            wait_ready(run, "bench-agent", limit)
            for turn in range(1, turns + 1):
                entered, done = send_prompt(
                    run, f"/bench tokens:5 burst {turn}", visible(marker(END, turn))
                )
                run.term.settle(done, limit, "the reply")
                delays.append(run.mark("prompt-received", turn, limit) - entered)
        return {"delays": delays}
    finally:
        shutil.rmtree(home, ignore_errors=True)
