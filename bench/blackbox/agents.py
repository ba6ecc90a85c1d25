"""Several agents at once (issue 19), driven as a person would: ``acp-tui --agent alpha
--agent beta --agent gamma``, three bench agents configured in a fresh home; in each view in
turn (Ctrl+G goes to the next) a big reply is asked for, and while the three stream, keys are
typed into the prompt of the view on screen. Then each view is visited until its last word
shows.

Every time is read off the emulated screen, as in :mod:`bench.blackbox.drive`.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from bench.blackbox.drive import (
    ACP_TUI,
    AGENT_SCRIPT,
    Typist,
    fresh_home,
    launch,
    send_prompt,
    type_while,
)
from bench.blackbox.terminal import ScreenTimeout, visible
from bench.blackbox.workloads import END, marker

NAMES = ("alpha", "beta", "gamma")
#: Ctrl+G, the key to the next agent's view (``next-agent`` in the keymap).
NEXT_AGENT = b"\x07"


def configure(home: Any, names: tuple[str, ...]) -> None:
    """``[agents.NAME]`` for each name: the bench agent, each with its own marks file (so each
    command line differs: the same command twice would be one agent)."""
    lines = []
    for name in names:
        args = [str(AGENT_SCRIPT), "--marks", str(home / f"marks-{name}.jsonl")]
        lines += [
            f"[agents.{name}]",
            f"command = {json.dumps(sys.executable)}",
            f"args = {json.dumps(args)}",
            "",
        ]
    (home / "config" / "acp-tui" / "config.toml").write_text("\n".join(lines), encoding="utf-8")


def on_view(name: str, needle: str) -> Any:
    """``name``'s view is on screen (its name first in the header) and shows ``needle``."""
    return lambda rows: rows[0].lstrip().startswith(name) and visible(needle)(rows)


def streams_at_once(
    workload: str, limit: float, keys: int, gap: float = 0.05, key_limit: float = 5.0
) -> dict[str, Any]:
    """Three agents, each streaming ``workload`` (burst) at once. Reported: the first Enter ->
    the last word of every reply seen on its view (``all_drawn_s``; inf past ``limit``), the
    same for the reply on screen while it streamed (``shown_drawn_s``), the keys typed into
    that view meanwhile (``latencies``, ms), and the app's peak RSS (``rss_mb``)."""
    home = fresh_home()
    configure(home, NAMES)
    args = [part for name in NAMES for part in ("--agent", name)]
    last_word = marker(END, 1)
    with launch(args, home=home) as run:
        term = run.term
        entered: list[float] = []
        shown_last = None
        for index, name in enumerate(NAMES):
            if index:
                term.write(NEXT_AGENT)
            term.wait_until(ACP_TUI.ready(name), 60, f"{name} ready on screen")
            at, watch = send_prompt(run, f"/bench {workload} burst", on_view(name, last_word))
            entered.append(at)
            shown_last = watch
        assert shown_last is not None
        typist = Typist(run)
        latencies: list[float] = []
        deadline = time.monotonic() + limit
        type_while(typist, shown_last, latencies, keys, deadline, gap, key_limit)
        # Emptied here, in the view typed into: the rounds below start in another view, and
        # what was left here kept this view's prompt from ever being empty again (the run
        # then timed out waiting for it, about one run in four).
        typist.clear()
        result: dict[str, Any] = {"latencies": latencies}
        try:
            result["shown_drawn_s"] = (
                term.settle(shown_last, max(0.1, deadline - time.monotonic()), "the last word")
                - entered[0]
            )
            # The views behind, in turn: each shows its whole reply when looked at.
            drawn = result["shown_drawn_s"] + entered[0]
            for name in NAMES[:-1]:
                watch = term.expect(on_view(name, last_word))
                term.write(NEXT_AGENT)
                drawn = term.settle(
                    watch, max(0.1, deadline - time.monotonic()), f"{name}'s last word"
                )
            result["all_drawn_s"] = drawn - entered[0]
        except ScreenTimeout:
            result.setdefault("shown_drawn_s", float("inf"))
            result["all_drawn_s"] = float("inf")
        result["spread_s"] = entered[-1] - entered[0]
        if result["all_drawn_s"] != float("inf"):
            # One round gives few keys (the replies end fast): more rounds, each the three
            # replies asked for again, with keys typed into the last view's prompt until its
            # reply's last word shows. The view on screen now: beta (see the loop above).
            _more_keys(run, typist, workload, latencies, keys, time.monotonic() + limit, gap)
        result["rss_mb"] = term.peak_rss_mb()
        return result


def _more_keys(
    run: Any,
    typist: Typist,
    workload: str,
    latencies: list[float],
    keys: int,
    deadline: float,
    gap: float,
    key_limit: float = 5.0,
) -> None:
    term = run.term
    current = 1  # beta
    turn = 1
    while len(latencies) < keys and time.monotonic() < deadline:
        turn += 1
        typist.clear()
        last = None
        for step in range(len(NAMES)):
            name = NAMES[(current + step) % len(NAMES)]
            if step:
                term.write(NEXT_AGENT)
            term.wait_until(idle_view(name), 60, f"{name}'s view, its prompt empty")
            _, last = send_prompt(run, f"/bench {workload} burst", on_view(name, marker(END, turn)))
        current = (current + len(NAMES) - 1) % len(NAMES)
        assert last is not None
        type_while(typist, last, latencies, keys, deadline, gap, key_limit)
        if time.monotonic() > deadline:
            return
        term.settle(last, max(0.1, deadline - time.monotonic()), "the round's last word")


def idle_view(name: str) -> Any:
    """``name``'s view on screen with an empty prompt."""
    placeholder = ACP_TUI.placeholder
    return lambda rows: (
        rows[0].lstrip().startswith(name) and any(placeholder in row for row in rows)
    )
