"""``acp-tui search``: the search index of every session, headless.

``acp-tui search WORDS... [--agent A]... [--json] [--limit N]`` prints the entries found,
best first: the agent, the session's title, project and id, when, and the text around the
match (the filters of the TUI's search work in WORDS too: ``@agent``, ``in:project``,
``before:``/``after:``). ``--forget SESSION`` takes a session out of the index,
``--reindex`` builds it again from the agents' own session lists
(:mod:`acp_tui.cli.search_reindex`), ``--stats`` says how big it is.

Exit codes: 0 found (or done); 1 nothing found (or no such session to forget); 2 a usage
error. Everything is written through :func:`acp_tui.cli.say.say`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence

from acp_tui.cli.say import InertArgumentParser, say
from acp_tui.config import locations
from acp_tui.store.search_index import SearchHit, SearchIndex
from acp_tui.store.search_query import parse_query
from acp_tui.text.relative_time import relative_time

__all__ = ["build_search_parser", "main_search"]

EXIT_NOT_FOUND = 1


def build_search_parser() -> argparse.ArgumentParser:
    parser = InertArgumentParser(
        prog="acp-tui search",
        description="Search every session of every agent acp-tui has shown: the words you "
        "and the agents said, thoughts, tool calls. Filters in the words: @agent, "
        "in:project, before:DATE, after:DATE (YYYY-MM-DD, today, yesterday, 3d, 2w).",
    )
    parser.add_argument("words", nargs="*", metavar="WORD", help="what to find (all of them)")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME",
        help="only this agent's sessions (its name or command contains NAME; repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="at most N results")
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--forget", metavar="SESSION", help="take this session out of the index (its id)"
    )
    what.add_argument(
        "--reindex",
        action="store_true",
        help="build the index again: start each configured agent (or each --agent), list its "
        "sessions and load them",
    )
    what.add_argument("--stats", action="store_true", help="how big the index is")
    return parser


def _index() -> SearchIndex:
    return SearchIndex(locations.search_index_file())


def main_search(argv: Sequence[str]) -> int:
    parser = build_search_parser()
    options = parser.parse_args(list(argv))
    if options.reindex:
        from acp_tui.cli.search_reindex import reindex

        return reindex(options.agent, json_output=options.json)
    if options.forget is not None:
        return _forget(options.forget, options.agent, options.json)
    if options.stats:
        return _stats(options.json)
    if options.limit < 1:
        parser.error("--limit must be 1 or more")
    query = parse_query(" ".join(options.words) + " ")
    if options.agent:
        query = dataclasses.replace(
            query, agents=query.agents + tuple(name.casefold() for name in options.agent)
        )
    for problem in query.problems:
        say(f"acp-tui search: {problem}", file=sys.stderr)
    if query.empty:
        parser.error("give the words to find (or --forget, --reindex, --stats)")
    index = _index()
    try:
        if index.note:
            say(f"acp-tui search: {index.note}", file=sys.stderr)
        hits = index.search(query, limit=options.limit)
    finally:
        index.close()
    if options.json:
        say(json.dumps([hit.to_dict() for hit in hits], ensure_ascii=False, indent=2))
    else:
        now = time.time()
        for hit in hits:
            _say_hit(hit, now)
        if not hits:
            say("Nothing found.", file=sys.stderr)
    return 0 if hits else EXIT_NOT_FOUND


def _say_hit(hit: SearchHit, now: float) -> None:
    head = f"{hit.label} · {hit.title} · {hit.project} · {relative_time(hit.at, now)}"
    say(head)
    say(f"  {' '.join(hit.snippet.split())}")
    say(f"  session {hit.session_id} · entry {hit.position} ({hit.kind})")


def _forget(session_id: str, agents: list[str], json_output: bool) -> int:
    index = _index()
    try:
        forgotten = index.forget_session(session_id, [name.casefold() for name in agents])
    finally:
        index.close()
    if json_output:
        say(json.dumps({"forgotten": forgotten}, ensure_ascii=False))
    elif forgotten:
        for agent in forgotten:
            say(f"Forgotten: session {session_id} of {agent}")
    else:
        say(f"acp-tui search: no session {session_id} in the index", file=sys.stderr)
    return 0 if forgotten else EXIT_NOT_FOUND


def _stats(json_output: bool) -> int:
    index = _index()
    try:
        stats = index.stats()
    finally:
        index.close()
    path = str(locations.search_index_file())
    if json_output:
        say(json.dumps({"file": path, **dataclasses.asdict(stats)}, ensure_ascii=False))
    else:
        size = stats.bytes / 1_048_576
        say(f"{path}: {stats.sessions} sessions, {stats.entries} entries, {size:.1f} MB")
    return 0
