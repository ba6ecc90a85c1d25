"""Benchmark: the search index of every session at 10,000 sessions of 2,000 entries each
(20 million entries), queried as a person types.

The index is built once through :class:`acp_tui.store.search_index.SearchIndex` (the code the
writer's thread runs), in batches of one session, and kept for the next run (its file is
named by its size, under ``$ACP_TUI_BENCH_SEARCH_DIR`` or the system's temporary folder;
delete it to build again). Entries are 8-20 words from a vocabulary of 20,000 with a Zipf-like
spread (a few words in most entries, most words in few), each session with a word of its own
one word in the whole index said once, and a word in every other entry of the older half of
the sessions (none of the last months). Ten agents, a hundred projects, times spread over
a year.

Then each query below runs in a fresh connection (as the app's reader), 5 times; the median
of each and the slowest are reported. Target: < 100 ms per query. Also the file's size and
this process's peak RSS (the queries', the build runs in a child process of its own).

Run: ``python -m bench search`` (``--smoke``: 200 sessions of 200 entries;
``ACP_TUI_BENCH_SEARCH_SESSIONS=N``: N sessions of 2,000 entries).
"""

from __future__ import annotations

import itertools
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from acp_tui.store.search_index import EntryRow, SearchIndex, SessionRow
from acp_tui.store.search_query import parse_query
from acp_tui.store.search_schema import VERSION

NAME = "search"
TITLE = "Search index: 10,000 sessions x 2,000 entries"
try:
    from bench.common import Metric

    METRICS = [
        Metric("build_s", "build (once; kept for the next run)", "s", digits=0),
        Metric("size_mb", "index file", "MB", digits=0),
        Metric("rare_ms", "a word said once", "ms", ("<", 100.0)),
        Metric("session_word_ms", "a word of one session", "ms", ("<", 100.0)),
        Metric("common_ms", "a word in most entries (ranked: newest 1,000)", "ms", ("<", 100.0)),
        Metric("two_words_ms", "two common words", "ms", ("<", 100.0)),
        Metric("prefix_ms", "a word being typed (prefix)", "ms", ("<", 100.0)),
        Metric("agent_ms", "common word + @agent", "ms", ("<", 100.0)),
        Metric("project_ms", "common word + in:project", "ms", ("<", 100.0)),
        Metric("after_ms", "common word + after: (30 days)", "ms", ("<", 100.0)),
        Metric("before_ms", "common word + before: (180 days)", "ms", ("<", 100.0)),
        Metric(
            "absent_after_ms",
            "word of the older half + after: (none since)",
            "ms",
            ("<", 100.0),
        ),
        Metric("slowest_ms", "slowest single query", "ms", ("<", 100.0)),
        Metric("rss_mb", "peak RSS of the querying process", "MB", digits=0),
    ]
except ImportError:  # run as a script from elsewhere
    METRICS = []

VOCABULARY = 20_000
AGENTS = 10
PROJECTS = 100
YEAR = 365 * 86_400.0
NOW = 1_790_000_000.0


def _words() -> list[str]:
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    seen: set[str] = set()
    while len(seen) < VOCABULARY:
        seen.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 9))))
    return sorted(seen)


def _texts(words: list[str], count: int) -> list[str]:
    """``count`` distinct entry texts, words drawn with a Zipf-like weight."""
    rng = random.Random(11)
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(words))))
    return [
        " ".join(rng.choices(words, cum_weights=cumulative, k=rng.randint(8, 20)))
        for _ in range(count)
    ]


def build(path: Path, sessions: int, entries: int) -> float:
    """Build the index at ``path``; seconds taken."""
    started = time.perf_counter()
    words = _words()
    pool = _texts(words, 50_000)
    index = SearchIndex(path)
    # A bulk build: no waiting for the disk on each commit (the app's writer keeps the
    # default); batches of 50 sessions a transaction, as the writer batches what comes.
    index._conn.execute("PRAGMA synchronous = OFF")
    rare_session = sessions // 2
    batch: list[tuple[object, ...]] = []
    for s in range(sessions):
        agent = s % AGENTS
        row = SessionRow(
            agent=f"config:agent{agent}",
            label=f"agent{agent}",
            session_id=f"session-{s}",
            project=f"/home/me/project{s % PROJECTS}",
            title=f"session {s}",
            updated=NOW - YEAR * (1 - s / sessions),
        )
        at = row.updated or NOW
        rows = []
        for e in range(entries):
            text = pool[(s * entries + e) * 7919 % len(pool)]
            if e == entries // 2:
                text += f" sessionword{s}"
            if s == rare_session and e == 7:
                text += " xylophonic"
            if s < sessions // 2 and e % 2 == 0:
                text += " bygoneword"
            rows.append(EntryRow(e, ("user", "agent", "thought", "tool")[e % 4], at, text))
        batch.append(("put", row, rows, None))
        if len(batch) == 50:
            index.write(batch)
            batch = []
    index.write(batch)
    index.close()
    return time.perf_counter() - started


def _day(days_ago: int) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(NOW - days_ago * 86400))


def _queries(sessions: int) -> dict[str, str]:
    """Each measure's query; one ending in NUL is typed (no space after its last word)."""
    words = _words()
    common, second = words[0], words[1]  # the most said, by the Zipf-like weights
    return {
        "rare_ms": "xylophonic",
        "session_word_ms": f"sessionword{sessions // 3}",
        "common_ms": common,
        "two_words_ms": f"{common} {second}",
        "prefix_ms": common[:3] + "\x00",  # typed: no space after it
        "agent_ms": f"{common} @agent3",
        "project_ms": f"{common} in:project42",
        "after_ms": f"{common} after:{_day(30)}",
        "before_ms": f"{common} before:{_day(180)}",
        "absent_after_ms": f"bygoneword after:{_day(30)}",
    }


#: The measures whose query finds nothing (the rest must find something).
FIND_NOTHING = {"absent_after_ms"}


def _path(sessions: int, entries: int) -> Path:
    folder = Path(os.environ.get("ACP_TUI_BENCH_SEARCH_DIR") or tempfile.gettempdir())
    # The layout's version in the name: an index of an older layout would be emptied.
    return folder / f"acp-tui-bench-search-v{VERSION}-{sessions}x{entries}.sqlite3"


def measure(smoke: bool = False) -> dict[str, float]:
    sessions, entries = (200, 200) if smoke else (10_000, 2_000)
    if os.environ.get("ACP_TUI_BENCH_SEARCH_SESSIONS"):  # a smaller run, said in its name
        sessions = int(os.environ["ACP_TUI_BENCH_SEARCH_SESSIONS"])
    path = _path(sessions, entries)
    done = path.with_name(path.name + ".done")
    build_s = 0.0
    if not done.exists():
        for stale in path.parent.glob(path.name + "*"):
            stale.unlink()
        # In a child process: the build's memory is not the queries'.
        code = (
            "import sys; from pathlib import Path; from bench.bench_search import build; "
            f"print(build(Path({str(path)!r}), {sessions}, {entries}))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout
        build_s = float(out.strip().splitlines()[-1])
        done.write_text(f"{build_s}\n")
    else:
        build_s = float(done.read_text().strip() or 0)
    result: dict[str, float] = {
        "build_s": build_s,
        "size_mb": sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6,
    }
    slowest = 0.0
    for name, text in _queries(sessions).items():
        typing = text.endswith("\x00")
        query = parse_query(text.rstrip("\x00") + ("" if typing else " "))
        times = []
        for _ in range(5):
            index = SearchIndex(path)
            started = time.perf_counter()
            hits = index.search(query)
            times.append((time.perf_counter() - started) * 1000)
            index.close()
            assert bool(hits) != (name in FIND_NOTHING), f"{name}: {text!r} found {len(hits)}"
        result[name] = statistics.median(times)
        slowest = max(slowest, *times)
    result["slowest_ms"] = slowest
    result["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def main() -> None:
    for name, value in measure(smoke="--smoke" in sys.argv[1:]).items():
        print(f"{name:>18}: {value:,.1f}")


if __name__ == "__main__":
    main()
