"""The black-box benchmarks of issue 20: the installed ``acp-tui`` in a pseudo-terminal, its
screen emulated by pyte, timed by what the screen shows (see :mod:`bench.blackbox.drive`).

Each :class:`ScreenBench` is one name of ``python -m bench``; ``measure(smoke, quick)`` is
one run in a fresh interpreter. ``quick`` (``--quick``) keeps the cheap workloads only, so the
whole black-box set runs in under two minutes; ``smoke`` uses tiny inputs.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

from acp_tui.session.asking.elicitation import MAX_FORM_FIELDS
from bench.blackbox import drive
from bench.blackbox.workloads import PACE, chunks_for
from bench.common import Metric, percentile

SECTION = "black-box: acp-tui in a pty, screen read by pyte (issue 20 targets)"
TOP_LIMIT = 5.0


@dataclass
class ScreenBench:
    NAME: str
    TITLE: str
    METRICS: list[Metric]
    run: Callable[[bool, bool], dict[str, float]]
    #: A run that hit its time limit (``timed_out`` in its result) is not repeated: the next
    #: would too, minutes for nothing.
    REPEAT_AFTER_TIMEOUT: bool = False
    SECTION: str = SECTION
    CHECKED: bool = True
    #: Part of ``--quick`` (the CI variant, under two minutes in all).
    IN_QUICK: bool = True

    def measure(self, smoke: bool = False, quick: bool = False) -> dict[str, float]:
        return self.run(smoke, quick)


# ---------------------------------------------------------------------------- replies

#: The workloads of the issue, and what the closest peer did on them (issue 20, DESIGN.md).
REPLY_WORKLOADS: dict[str, tuple[str, str, str]] = {
    # name: (label, Toad burst, Toad paced)
    "paragraphs": (
        "400 Markdown paragraphs",
        "86 s headless (DESIGN.md)",
        "140 s (issue 20)",
    ),
    "tokens1k": ("1,000 tokens", "3-4 s headless (DESIGN.md)", ""),
    "tokens16k": ("16,000 tokens", "", ""),
    "long12k": (
        "one 12,000-token paragraph",
        "3,000 tokens: 27 s headless (DESIGN.md)",
        "3,000 tokens: 113 s (issue 20)",
    ),
}
QUICK_PACED = ("paragraphs", "tokens1k")


def _reply_metrics() -> list[Metric]:
    metrics = []
    for name, (label, toad_burst, toad_paced) in REPLY_WORKLOADS.items():
        metrics.append(
            Metric(
                f"{name}_burst_s",
                f"{label} at once: Enter -> last word, nothing folded",
                "s",
                ("<", 1.5),
                requires=(f"{name}_burst_unfolded", f"{name}_burst_reached"),
                toad=toad_burst,
            )
        )
        metrics.append(
            Metric(
                f"{name}_paced_s",
                f"{label} at 5 ms/chunk: stream end -> last word, nothing folded",
                "s",
                ("<", 1.0),
                requires=(f"{name}_paced_unfolded", f"{name}_paced_reached"),
                toad=toad_paced,
            )
        )
    return metrics


def _replies(smoke: bool, quick: bool) -> dict[str, float]:
    result: dict[str, float] = {}
    for name in REPLY_WORKLOADS:
        workload = "tiny" if smoke else name
        for paced in (False, True):
            if quick and paced and name not in QUICK_PACED:
                continue
            if smoke and paced and name != "paragraphs":
                continue
            stream_seconds = len(chunks_for(workload)) * PACE if paced else 0.0
            one = drive.reply(workload, paced, limit=stream_seconds + 60.0, top_limit=TOP_LIMIT)
            mode = "paced" if paced else "burst"
            result[f"{name}_{mode}_s"] = one["after_end_s"] if paced else one["enter_s"]
            result[f"{name}_{mode}_unfolded"] = one["unfolded"]
            result[f"{name}_{mode}_reached"] = one["reached"]
            result[f"{name}_{mode}_enter_s"] = one["enter_s"]
            result[f"{name}_{mode}_top_s"] = one["top_s"]
            result[f"{name}_{mode}_rss_mb"] = one["rss_mb"]
    return result


REPLIES = ScreenBench(
    "replies",
    "Replies on screen (bench agent, 120x40)",
    _reply_metrics(),
    _replies,
    REPEAT_AFTER_TIMEOUT=True,
)


# ---------------------------------------------------------------------------- huge replies


def _huge(name: str, limit: float, quick_limit: float) -> Callable[[bool, bool], dict[str, float]]:
    def run(smoke: bool, quick: bool) -> dict[str, float]:
        one = drive.reply(
            "tiny" if smoke else name,
            paced=False,
            limit=quick_limit if quick else limit,
            top_limit=TOP_LIMIT * 2,
        )
        return {
            f"{name}_s": one["enter_s"],
            f"{name}_top_s": one["top_s"],
            f"{name}_unfolded": one["unfolded"],
            f"{name}_reached": one["reached"],
            f"{name}_rss_mb": one["rss_mb"],
            f"{name}_cpu_s": one["cpu_s"],
            "timed_out": one["timed_out"],
        }

    return run


CHUNK5MB = ScreenBench(
    "chunk5mb",
    "One 5 MB chunk",
    [
        Metric(
            "chunk5mb_top_s",
            "Enter -> last word, then scrolled to the first words",
            "s",
            ("<", 2.0),
            requires=("chunk5mb_unfolded", "chunk5mb_reached"),
            toad="",
        ),
        Metric("chunk5mb_s", "Enter -> last word", "s"),
        Metric("chunk5mb_rss_mb", "peak RSS", "MB", digits=0),
        Metric("chunk5mb_cpu_s", "acp-tui's CPU time, prompt -> last word", "s"),
    ],
    _huge("chunk5mb", 60.0, 30.0),
)
CHUNK50MB = ScreenBench(
    "chunk50mb",
    "One 50 MB chunk",
    [
        Metric(
            "chunk50mb_s",
            "Enter -> last word, nothing folded",
            "s",
            ("<", 10.0),
            requires=("chunk50mb_unfolded", "chunk50mb_reached"),
        ),
        Metric(
            "chunk50mb_rss_mb",
            "peak RSS",
            "MB",
            ("<", 400.0),
            digits=0,
            toad="about 3x acp-tui's memory (issue 20)",
        ),
    ],
    _huge("chunk50mb", 90.0, 30.0),
    IN_QUICK=False,
)
WORD5MB = ScreenBench(
    "word5mb",
    "One 5 MB word (no space or newline: base64)",
    [
        Metric(
            "word5mb_top_s",
            "Enter -> last word, then scrolled to the first words",
            "s",
            ("<", 2.0),
            requires=("word5mb_unfolded", "word5mb_reached"),
        ),
        Metric("word5mb_s", "Enter -> last word", "s"),
        Metric("word5mb_rss_mb", "peak RSS", "MB", digits=0),
    ],
    _huge("word5mb", 60.0, 30.0),
)
WORD50MB = ScreenBench(
    "word50mb",
    "One 50 MB word (no space or newline: base64)",
    [
        Metric(
            "word50mb_top_s",
            "Enter -> last word, then scrolled to the first words",
            "s",
            ("<", 10.0),
            requires=("word50mb_unfolded", "word50mb_reached"),
        ),
        Metric("word50mb_s", "Enter -> last word", "s"),
        Metric("word50mb_rss_mb", "peak RSS", "MB", digits=0),
    ],
    _huge("word50mb", 90.0, 30.0),
    IN_QUICK=False,
)
CHUNKS200K = ScreenBench(
    "chunks200k",
    "200,000 chunks of one paragraph",
    [
        Metric(
            "chunks200k_s",
            "Enter -> last word, nothing folded",
            "s",
            ("<", 10.0),
            requires=("chunks200k_unfolded", "chunks200k_reached"),
        ),
        Metric("chunks200k_rss_mb", "peak RSS", "MB", digits=0),
    ],
    _huge("chunks200k", 90.0, 30.0),
    IN_QUICK=False,
)


# ---------------------------------------------------------------------------- keys

KEY_FLOODS: dict[str, str] = {
    # label: /bench arguments
    "paced": "tokens:4000 paced",
    "chunks200k": "chunks200k burst",
    "chunk5mb": "chunk5mb burst",
    "word5mb": "word5mb burst",
    "word50mb": "word50mb burst",
}
FLOOD_LABELS = {
    "paced": "a paced stream (5 ms/chunk)",
    "chunks200k": "200,000 chunks",
    "chunk5mb": "a 5 MB chunk",
    "word5mb": "a 5 MB word",
    "word50mb": "a 50 MB word",
}
#: The key -> screen target during each flood (issue 36: 100 ms while an unbroken word is drawn).
FLOOD_TARGETS_MS = {"word5mb": 100.0, "word50mb": 100.0}
QUICK_FLOODS = ("paced", "chunks200k", "word5mb")


def _keys_metrics() -> list[Metric]:
    metrics = [
        Metric(
            "floor_p50_ms", "harness floor: key -> echo (cat in a raw tty), p50", "ms", digits=2
        ),
        Metric("floor_p95_ms", "harness floor, p95", "ms", digits=2),
        Metric("idle_p50_ms", "acp-tui idle: key -> on screen, p50", "ms", digits=1),
    ]
    for flood, label in FLOOD_LABELS.items():
        metrics += [
            Metric(f"{flood}_p50_ms", f"during {label}: key -> on screen, p50", "ms", digits=1),
            Metric(
                f"{flood}_p95_ms",
                f"during {label}: key -> on screen, p95",
                "ms",
                ("<", FLOOD_TARGETS_MS.get(flood, 60.0)),
                digits=1,
            ),
            Metric(f"{flood}_keys", f"during {label}: keys typed", "keys", digits=0),
        ]
    return metrics


def _keys(smoke: bool, quick: bool) -> dict[str, float]:
    floor = drive.harness_floor(10 if smoke else 50)
    result = {
        "floor_p50_ms": statistics.median(floor),
        "floor_p95_ms": percentile(floor, 95),
    }
    for flood, arguments in KEY_FLOODS.items():
        if (quick or smoke) and flood not in QUICK_FLOODS:
            continue
        if smoke:
            arguments = "tokens:400 paced" if flood == "paced" else "paragraph:20000 burst"
        keys, budget = (3, 10.0) if smoke else (20, 12.0) if quick else (60, 40.0)
        typed = drive.keys_during(arguments, keys=keys, budget=budget)
        latencies = typed["latencies"]
        result[f"{flood}_p50_ms"] = percentile(latencies, 50)
        result[f"{flood}_p95_ms"] = percentile(latencies, 95)
        result[f"{flood}_keys"] = float(len(latencies))
        result.setdefault("idle_p50_ms", percentile(typed["idle"], 50))
    return result


KEYS = ScreenBench("keys", "Keystrokes during floods", _keys_metrics(), _keys)


# ---------------------------------------------------------------------------- launch


def _launch(smoke: bool, quick: bool) -> dict[str, float]:
    # Warm-up: fills the bytecode and the app's caches, as an installed app has them.
    drive.launch_to_ready(fill_caches=True)
    # Three even in --quick: CI judges the median, and a median of two is their mean, which one
    # launch slowed by a passing load can carry over the target.
    cpu: list[float] = []
    launches = [drive.launch_to_ready(cpu=cpu) for _ in range(1 if smoke else 3)]
    messages, tools = (10, 2) if smoke else (2_000, 200)
    return {
        "launch_s": statistics.median(launches),
        # The least: other work only adds to a process's CPU time (shared caches, cores).
        "launch_cpu_s": min(cpu),
        "resume_s": drive.resume_to_last(messages, tools, limit=60.0),
    }


LAUNCH = ScreenBench(
    "launch",
    "Launch and resume (demo agent)",
    [
        Metric(
            "launch_s",
            "acp-tui --demo: spawn -> agent ready, prompt usable",
            "s",
            ("<", 0.6),
            toad="2.3-2.9 s (issue 20)",
        ),
        Metric(
            "launch_cpu_s", "acp-tui's CPU time until ready, least of 3 (agent's not counted)", "s"
        ),
        Metric(
            "resume_s",
            "--resume of 2,000 messages + 200 tool calls: spawn -> last entry",
            "s",
            ("<", 1.2),
        ),
    ],
    _launch,
)


# ---------------------------------------------------------------------------- permission


def _permission(smoke: bool, quick: bool) -> dict[str, float]:
    return drive.permission(10 if smoke else 1_000, limit=60.0)


PERMISSION = ScreenBench(
    "permission",
    "Permission request with 1,000 options",
    [
        Metric("shown_s", "request sent -> first option on screen", "s"),
        Metric(
            "answered_s",
            "key 1 (pressed once armed) -> answered",
            "s",
            ("<", 0.3),
        ),
    ],
    _permission,
)


# ---------------------------------------------------------------------------- forms


def _forms(smoke: bool, quick: bool) -> dict[str, float]:
    huge = drive.form(60 if smoke else 5_000, limit=60.0)
    bound = drive.form(3 if smoke else MAX_FORM_FIELDS, limit=60.0)
    return {
        "form5000_s": huge["shown_s"],
        "form5000_refused": huge["refused"],
        "form5000_rss_mb": huge["rss_mb"],
        "form_bound_s": bound["shown_s"],
        "form_bound_rss_mb": bound["rss_mb"],
    }


FORMS = ScreenBench(
    "forms",
    "Forms (elicitation/create)",
    [
        Metric(
            "form5000_rss_mb",
            "a 5,000-field form: peak RSS (refused, the person told)",
            "MB",
            ("<", 300.0),
            requires=("form5000_refused",),
            digits=0,
        ),
        Metric("form5000_s", "a 5,000-field form: sent -> its refusal on screen", "s"),
        Metric(
            "form_bound_s",
            f"a form of {MAX_FORM_FIELDS} fields (the most shown): sent -> on screen",
            "s",
        ),
        Metric(
            "form_bound_rss_mb", f"a form of {MAX_FORM_FIELDS} fields: peak RSS", "MB", digits=0
        ),
    ],
    _forms,
)


# ---------------------------------------------------------------------------- replay

#: The recording replayed (bytes): issue 36's "190 MB recording".
REPLAY_SIZE = 190_000_000


def _replay(smoke: bool, quick: bool) -> dict[str, float]:
    one = drive.replay(2_000_000 if smoke else REPLAY_SIZE, limit=800.0)
    return {**one, "replay_streamed": 1.0 if one["replay_s"] != float("inf") else 0.0}


REPLAY190 = ScreenBench(
    "replay190",
    "acp-tui replay of a 190 MB recording (a long session: streamed replies, tool output)",
    [
        Metric(
            "replay_rss_mb",
            "replay --fast: peak RSS, to the last words on screen",
            "MB",
            ("<", 300.0),
            requires=("replay_streamed",),
            digits=0,
        ),
        Metric("replay_s", "replay --fast: spawn -> the last words on screen", "s"),
        Metric("check_rss_mb", "replay --check: peak RSS", "MB", ("<", 300.0), digits=0),
        Metric("check_s", "replay --check: spawn -> its verdict", "s"),
    ],
    _replay,
    IN_QUICK=False,
)


# ---------------------------------------------------------------------------- options


def _options(smoke: bool, quick: bool) -> dict[str, float]:
    one = drive.options(20 if smoke else 1_000, limit=60.0, keys=5 if smoke else 20)
    latencies = one["latencies"]
    return {
        "options_shown_s": one["shown_s"],
        "options_key_p50_ms": percentile(latencies, 50),
        "options_key_p95_ms": percentile(latencies, 95),
        "options_launch_s": one["launch_s"],
    }


OPTIONS1000 = ScreenBench(
    "options",
    "1,000 config options",
    [
        Metric(
            "options_shown_s",
            "config_option_update sent -> the bar on screen (☰ N more)",
            "s",
            ("<", 1.0),
        ),
        Metric("options_key_p50_ms", "with them: key -> on screen, p50", "ms", digits=1),
        Metric(
            "options_key_p95_ms", "with them: key -> on screen, p95", "ms", ("<", 60.0), digits=1
        ),
        Metric(
            "options_launch_s",
            "the next launch (they are remembered): spawn -> ready",
            "s",
            ("<", 1.5),
        ),
    ],
    _options,
)


# ---------------------------------------------------------------------------- checkpoints

CHECKPOINT_FILES = 10_000


def _checkpoints(smoke: bool, quick: bool) -> dict[str, float]:
    files, turns = (200, 2) if smoke else (CHECKPOINT_FILES, 2 if quick else 4)
    on = drive.checkpoint_delay(files, turns, limit=120.0)["delays"]
    off = drive.checkpoint_delay(files, turns, limit=120.0, checkpoints=False)["delays"]
    return {
        "cold_s": on[0],
        "turn_ms": statistics.median(on[1:]) * 1000,
        "off_ms": statistics.median(off[1:]) * 1000,
    }


CHECKPOINTS = ScreenBench(
    "checkpoints",
    "Checkpoint before each turn, 10,000-file git project (bench agent)",
    [
        Metric(
            "turn_ms",
            "Enter -> session/prompt on the wire, checkpoints on (turns after the first)",
            "ms",
            ("<", 300.0),
        ),
        Metric("off_ms", "the same with --no-checkpoints", "ms"),
        Metric(
            "cold_s",
            "the first prompt, sent as soon as the agent is ready, in a project never seen "
            "(waits at most 1 s for the background warm-up)",
            "s",
        ),
    ],
    _checkpoints,
)
