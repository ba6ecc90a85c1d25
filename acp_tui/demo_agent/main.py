"""``python -m acp_tui.demo_agent``: parse options, then speak ACP on stdin/stdout.

stdout carries protocol lines only; logs go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio

from acp_tui.demo_agent import DEFAULT_CHUNK_DELAY


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m acp_tui.demo_agent",
        description="The acp-tui demo agent: an ACP agent on stdio with no network and no model.",
    )
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where sessions are saved (default: the user data dir of acp-tui, /demo-agent)",
    )
    parser.add_argument(
        "--chunk-delay",
        metavar="SECONDS",
        type=float,
        default=DEFAULT_CHUNK_DELAY,
        help=f"pause between streamed chunks (default {DEFAULT_CHUNK_DELAY}; 0 for tests)",
    )
    parser.add_argument(
        "--v2-updates",
        action="store_true",
        help="also send the v2 draft's state_update notifications around each turn",
    )
    parser.add_argument(
        "--require-auth",
        action="store_true",
        help="require sign-in from the start (as after /login), kept in the state dir",
    )
    parser.add_argument(
        "--whole-forks-only",
        action="store_true",
        help="session/fork copies whole sessions only (no forking at a message)",
    )
    parser.add_argument(
        "--no-auth-status",
        action="store_true",
        help="neither answer auth/status nor push auth/status_update (unstable): a client "
        "learns of a sign-in only from auth_required, as with most agents",
    )
    parser.add_argument(
        "--no-close",
        action="store_true",
        help="advertise neither session/close nor session/delete, as many agents do",
    )
    parser.add_argument(
        "--cut-replays",
        action="store_true",
        help="exit halfway through every replay (a truncated replay, for tests)",
    )
    parser.add_argument(
        "--login",
        action="store_true",
        help="do not speak ACP: run the terminal sign-in step (a terminal auth method runs this)",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log level on stderr (default WARNING)",
    )
    return parser


async def serve(
    state_dir: Path,
    chunk_delay: float,
    v2_updates: bool,
    require_auth: bool,
    whole_forks_only: bool = False,
    auth_status: bool = True,
    cut_replays: bool = False,
    closes: bool = True,
) -> None:
    from acp_tui.demo_agent.agent import DemoAgent
    from acp_tui.demo_agent.sessions import SessionStore
    from acp_tui.protocol.jsonrpc import Connection
    from acp_tui.protocol.stdio import stdio_streams

    receive, send = stdio_streams()
    agent = DemoAgent(
        SessionStore(state_dir),
        chunk_delay=chunk_delay,
        v2_updates=v2_updates,
        require_auth=require_auth,
        fork_at_message=not whole_forks_only,
        auth_status=auth_status,
        cut_replays=cut_replays,
        closes=closes,
    )
    connection = Connection(receive, send, record_traffic=False)
    agent.attach(connection)
    try:
        async with anyio.create_task_group() as group:
            agent.task_group = group
            await connection.run()
            group.cancel_scope.cancel()  # what ran on (/background) ends with the connection
    finally:
        agent.task_group = None
        agent.status.mark(set())  # its sessions are in nobody's memory now
        await connection.aclose()
        await receive.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    options = build_parser().parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, options.log_level),
        format="demo-agent %(levelname)s %(name)s: %(message)s",
    )
    if options.state_dir:
        state_dir = Path(options.state_dir).expanduser()
    else:
        from acp_tui.demo_agent.sessions import default_state_dir

        state_dir = default_state_dir()
    if options.login:
        from acp_tui.demo_agent.login import run_login

        return run_login(state_dir)
    from acp_tui.protocol.stdio import protect_stdout

    protect_stdout()
    try:
        anyio.run(
            serve,
            state_dir,
            options.chunk_delay,
            options.v2_updates,
            options.require_auth,
            options.whole_forks_only,
            not options.no_auth_status,
            options.cut_replays,
            not options.no_close,
        )
    except KeyboardInterrupt:
        return 130
    return 0
