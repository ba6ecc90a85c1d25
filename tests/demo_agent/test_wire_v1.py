"""Protocol v1 features over raw JSON-RPC, every message checked against the v1 schema:
what the official SDK cannot carry yet (notices, compaction, plan updates, the unstable
session methods) and what depends on the capabilities the client advertised."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import anyio
import pytest
from wire_client import CallFailed, v1_caps, wire_agent

from acp_tui.demo_agent import texts
from acp_tui.demo_agent.commands import HANDLERS

pytestmark = pytest.mark.anyio


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x10\x20\x30" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


# ---------------------------------------------------------------------- the command table


def test_every_command_has_a_handler_and_help() -> None:
    assert set(HANDLERS) == texts.COMMAND_NAMES
    help_text = texts.help_text()
    for command in texts.COMMANDS:
        assert f"`{command.usage_line().replace('|', chr(92) + '|')}`" in help_text
        assert command.description


async def test_help_lists_every_command_with_usage(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/help")
        reply = agent.text(sid)
        (commands,) = agent.updates("available_commands_update")
    for command in texts.COMMANDS:
        assert command.usage_line().replace("|", "\\|") in reply
    assert [c["name"] for c in commands["availableCommands"]] == [c.name for c in texts.COMMANDS]
    ask = next(c for c in commands["availableCommands"] if c["name"] == "ask")
    assert ask["input"] == {"hint": "url [seconds] (optional)"}


# ---------------------------------------------------------------------- capabilities


async def test_initialize_answers_what_is_implemented(state_dir: Path) -> None:
    async with wire_agent(state_dir, caps=v1_caps(auth={"terminal": True})) as agent:
        init = agent.init
    caps = init["agentCapabilities"]
    assert init["protocolVersion"] == 1
    assert caps["promptCapabilities"] == {"image": True, "audio": True, "embeddedContext": True}
    session_caps = caps["sessionCapabilities"]
    assert set(session_caps) == {
        "list",
        "resume",
        "close",
        "delete",
        "additionalDirectories",
        "fork",
        "title",
        "archive",
        "systemPrompt",
        "status",
        "options",
        "inject",
    }
    assert session_caps["inject"] == {"modes": ["steer"]}
    assert session_caps["systemPrompt"] == {"mode": {"override": {}}}
    assert caps["auth"] == {"logout": {}, "status": {}}
    # Each advertised session method answers (not -32601).
    methods = {
        "status": "session/status",
        "options": "session/options",
        "list": "session/list",
        "resume": "session/resume",
        "close": "session/close",
        "delete": "session/delete",
        "fork": "session/fork",
        "title": "session/set_title",
        "archive": "session/archive",
        "inject": "session/inject",
    }
    from acp_tui.demo_agent.agent import DemoAgent
    from acp_tui.demo_agent.sessions import SessionStore

    served = DemoAgent(SessionStore(state_dir)).methods()
    assert {methods[c] for c in session_caps if c in methods} <= served
    assert "auth/status" in served
    assert {"session/load", "logout", "authenticate", "session/unarchive"} <= served
    kinds = [m.get("type", "agent") for m in init["authMethods"]]
    assert kinds == ["terminal", "agent"]


async def test_terminal_auth_method_only_for_clients_that_can_run_it(state_dir: Path) -> None:
    async with wire_agent(state_dir) as agent:
        methods = agent.init["authMethods"]
    assert [m["id"] for m in methods] == ["demo-sign-in"]
    assert "type" not in methods[0]


# ---------------------------------------------------------------------- config options


async def test_config_options_of_every_category(state_dir: Path, work_dir: Path) -> None:
    caps = v1_caps(session={"configOptions": {"boolean": {}}})
    async with wire_agent(state_dir, caps=caps) as agent:
        new = await agent.call("session/new", {"cwd": str(work_dir), "mcpServers": []})
    options = {o["id"]: o for o in new["configOptions"]}
    assert [options[i].get("category") for i in options] == [
        "mode",
        "model",
        "thought_level",
        "speed",
        "model_config",
        "_demo_style",
        None,
    ]
    assert options["confirm_tools"]["type"] == "boolean"
    assert options["confirm_tools"]["currentValue"] is True
    assert options["thought_level"]["currentValue"] == "medium"
    assert new["modes"]["currentModeId"] == options["mode"]["currentValue"]


async def test_no_boolean_option_without_the_capability(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir) as agent:
        new = await agent.call("session/new", {"cwd": str(work_dir), "mcpServers": []})
        sid = new["sessionId"]
        with pytest.raises(CallFailed) as refused:
            await agent.call(
                "session/set_config_option",
                {"sessionId": sid, "configId": "confirm_tools", "type": "boolean", "value": False},
            )
    assert all(o["type"] == "select" for o in new["configOptions"])
    assert refused.value.code == -32602


async def test_thought_level_changes_how_long_think_thinks(state_dir: Path, work_dir: Path) -> None:
    lengths = {}
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        for level in ("off", "low", "medium", "high"):
            result = await agent.call(
                "session/set_config_option",
                {"sessionId": sid, "configId": "thought_level", "value": level},
            )
            current = {o["id"]: o["currentValue"] for o in result["configOptions"]}
            assert current["thought_level"] == level
            mark = agent.mark()
            await agent.prompt(sid, "/think about levels")
            thoughts = [
                m["params"]["update"]["content"]["text"]
                for m in agent.since(mark)
                if m.get("method") == "session/update"
                and m["params"]["update"]["sessionUpdate"] == "agent_thought_chunk"
            ]
            lengths[level] = len("".join(thoughts))
        # High also thinks a line before an ordinary reply; medium does not.
        mark = agent.mark()
        await agent.prompt(sid, "hello")
        assert any(
            m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_thought_chunk"
            for m in agent.since(mark)
        )
    assert lengths["off"] == 0
    assert 0 < lengths["low"] < lengths["medium"] < lengths["high"]


async def test_options_shape_replies_and_are_remembered(state_dir: Path, work_dir: Path) -> None:
    caps = v1_caps(session={"configOptions": {"boolean": {}}})
    async with wire_agent(state_dir, caps=caps) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "baseline reply please")
        normal = agent.text(sid)
        for option_id, value in (("verbosity", "short"), ("format", "plain"), ("mode", "ask")):
            await agent.call(
                "session/set_config_option",
                {"sessionId": sid, "configId": option_id, "value": value},
            )
        await agent.call(
            "session/set_config_option",
            {"sessionId": sid, "configId": "confirm_tools", "type": "boolean", "value": False},
        )
        mode_updates = agent.updates("current_mode_update")
        mark = agent.mark()
        await agent.prompt(sid, "short **plain** reply please")
        short = "".join(
            m["params"]["update"]["content"]["text"]
            for m in agent.since(mark)
            if m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"
        )
        with pytest.raises(CallFailed):
            await agent.call(
                "session/set_config_option",
                {"sessionId": sid, "configId": "verbosity", "value": "epic"},
            )
    assert mode_updates == [{"sessionUpdate": "current_mode_update", "currentModeId": "ask"}]
    assert "A few facts" in normal and "A few facts" not in short
    assert ">" not in short.replace("**plain**", "")  # no Markdown quote in plain text
    for how in ("session/load", "session/resume"):
        async with wire_agent(state_dir, caps=caps) as agent:
            reopened = await agent.call(
                how, {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []}
            )
        values = {o["id"]: o["currentValue"] for o in reopened["configOptions"]}
        assert values == {
            "mode": "ask",
            "model": "demo-swift",
            "thought_level": "medium",
            "speed": "standard",
            "verbosity": "short",
            "format": "plain",
            "confirm_tools": False,
        }
        assert reopened["modes"]["currentModeId"] == "ask"


async def test_confirm_tools_off_skips_the_permission_request(
    state_dir: Path, work_dir: Path
) -> None:
    writes: list[str] = []

    async def write(params: dict[str, Any]) -> dict[str, Any]:
        writes.append(params["path"])
        Path(params["path"]).write_text(params["content"])
        return {}

    caps = v1_caps(
        fs={"readTextFile": False, "writeTextFile": True},
        session={"configOptions": {"boolean": {}}},
    )
    async with wire_agent(state_dir, caps=caps, handlers={"fs/write_text_file": write}) as agent:
        sid = await agent.new_session(work_dir)
        await agent.call(
            "session/set_config_option",
            {"sessionId": sid, "configId": "confirm_tools", "type": "boolean", "value": False},
        )
        await agent.prompt(sid, "/edit quick.txt")
        assert agent.requests("session/request_permission") == []
    assert writes == [str(work_dir / "quick.txt")]


async def test_a_hidden_toggle_acts_at_its_default(state_dir: Path, work_dir: Path) -> None:
    """Turned off by a client that shows toggles, it is back on for one that cannot."""
    caps = v1_caps(session={"configOptions": {"boolean": {}}})
    async with wire_agent(state_dir, caps=caps) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "hi")
        await agent.call(
            "session/set_config_option",
            {"sessionId": sid, "configId": "confirm_tools", "type": "boolean", "value": False},
        )

    async def allow(params: dict[str, Any]) -> dict[str, Any]:
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    async def write(params: dict[str, Any]) -> dict[str, Any]:
        return {}

    handlers = {"session/request_permission": allow, "fs/write_text_file": write}
    fs = v1_caps(fs={"readTextFile": False, "writeTextFile": True})
    async with wire_agent(state_dir, caps=fs, handlers=handlers) as agent:
        await agent.call(
            "session/resume", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []}
        )
        await agent.prompt(sid, "/edit asked.txt")
        assert len(agent.requests("session/request_permission")) == 1


# ---------------------------------------------------------------------- elicitation


async def test_cancelling_the_turn_withdraws_the_form(state_dir: Path, work_dir: Path) -> None:
    """The SDK cannot see ``$/cancel_request`` (0.12 drops it): checked on the wire."""
    release = anyio.Event()

    async def form(params: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return {"action": "cancel"}

    caps = v1_caps(elicitation={"form": {}})
    async with wire_agent(state_dir, caps=caps, handlers={"elicitation/create": form}) as agent:
        sid = await agent.new_session(work_dir)
        result: dict[str, Any] = {}

        async def turn() -> None:
            result["response"] = await agent.prompt(sid, "/ask")

        async with anyio.create_task_group() as group:
            group.start_soon(turn)
            (asked,) = await agent.wait_for(lambda: agent.requests("elicitation/create"))
            await agent.notify("session/cancel", {"sessionId": sid})
            withdrawn = await agent.wait_for(lambda: agent.notifications("$/cancel_request"))
            release.set()
        assert withdrawn[0]["params"] == {"requestId": asked["id"]}
        assert result["response"]["stopReason"] == "cancelled"


# ---------------------------------------------------------------------- notices


async def test_notice_only_when_advertised(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir, caps=v1_caps(session={"notices": {}})) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/notice warning Disk almost full | Free some space")
        await agent.prompt(sid, "/notice just a title")
        await agent.prompt(sid, "/notice _custom A vendor severity")
        notices = agent.updates("notice")
    assert notices == [
        {
            "sessionUpdate": "notice",
            "severity": "warning",
            "title": "Disk almost full",
            "description": "Free some space",
        },
        {"sessionUpdate": "notice", "severity": "info", "title": "just a title"},
        {"sessionUpdate": "notice", "severity": "_custom", "title": "A vendor severity"},
    ]
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/notice error Something broke")
        assert agent.updates("notice") == []
        assert "session.notices" in agent.text(sid) and "Something broke" in agent.text(sid)


async def test_notices_are_not_replayed(state_dir: Path, work_dir: Path) -> None:
    caps = v1_caps(session={"notices": {}})
    async with wire_agent(state_dir, caps=caps) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/notice live only")
    async with wire_agent(state_dir, caps=caps) as agent:
        await agent.call("session/load", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []})
        assert agent.updates("notice") == []
        assert agent.updates("user_message_chunk")


# ---------------------------------------------------------------------- compaction


async def test_compact_reports_and_shrinks_the_context(state_dir: Path, work_dir: Path) -> None:
    caps = v1_caps(session={"compaction": {}})
    async with wire_agent(state_dir, caps=caps) as agent:
        sid = await agent.new_session(work_dir)
        for index in range(3):
            await agent.prompt(sid, f"a long message number {index} " * 40)
        await agent.prompt(sid, "/fill 60")
        before = agent.updates("usage_update")[-1]["used"]
        mark = agent.mark()
        await agent.prompt(sid, "/compact")
        turn = [
            m["params"]["update"] for m in agent.since(mark) if m.get("method") == "session/update"
        ]
    kinds = [u["sessionUpdate"] for u in turn]
    first = kinds.index("compaction_update")
    assert turn[first]["status"] == "in_progress"
    statuses = [u["status"] for u in turn if u["sessionUpdate"] == "compaction_update"]
    assert statuses == ["in_progress", "completed"]
    ids = {u["compactionId"] for u in turn if u["sessionUpdate"].startswith("compaction")}
    assert len(ids) == 1
    chunks = [u for u in turn if u["sessionUpdate"] == "compaction_summary_chunk"]
    assert len(chunks) > 3
    summary = "".join(c["content"]["text"] for c in chunks)
    assert "5 prompts" in summary  # the /compact prompt is one of them
    completed = kinds.index("compaction_update", first + 1)
    assert max(i for i, k in enumerate(kinds) if k == "compaction_summary_chunk") < completed
    usage_after = kinds.index("usage_update", completed)
    assert turn[usage_after]["used"] < before / 10
    # The replay shows the compaction once, complete, with its summary.
    async with wire_agent(state_dir, caps=caps) as agent:
        await agent.call("session/load", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []})
        await agent.wait_update("usage_update")
        (replayed,) = agent.updates("compaction_update")
        assert replayed["status"] == "completed"
        assert replayed["summary"] == [{"type": "text", "text": summary}]
        assert agent.updates("usage_update")[-1]["used"] < before / 10


async def test_compact_fail_and_without_capability(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir, caps=v1_caps(session={"compaction": {}})) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "something to compact")
        await agent.prompt(sid, "/compact fail")
        statuses = [u["status"] for u in agent.updates("compaction_update")]
        failed = agent.updates("compaction_update")[-1]
    assert statuses == ["in_progress", "failed"] and failed["error"]
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "x " * 2000)
        before = agent.updates("usage_update")[-1]["used"]
        await agent.prompt(sid, "/compact")
        kinds = set(agent.kinds(sid))
        assert not {"compaction_update", "compaction_summary_chunk"} & kinds
        assert "session.compaction" in agent.text(sid)
        assert agent.updates("usage_update")[-1]["used"] < before


async def test_cancel_during_compaction_marks_it_cancelled(state_dir: Path, work_dir: Path) -> None:
    argv_delay = ("--chunk-delay", "0.05")
    caps = v1_caps(session={"compaction": {}})
    async with wire_agent(state_dir, caps=caps, extra_args=argv_delay) as agent:
        sid = await agent.new_session(work_dir)
        result: dict[str, Any] = {}

        async def turn() -> None:
            result["response"] = await agent.prompt(sid, "/compact")

        async with anyio.create_task_group() as group:
            group.start_soon(turn)
            await agent.wait_update("compaction_summary_chunk")
            await agent.notify("session/cancel", {"sessionId": sid})
        assert result["response"]["stopReason"] == "cancelled"
        assert [u["status"] for u in agent.updates("compaction_update")] == [
            "in_progress",
            "cancelled",
        ]


# ---------------------------------------------------------------------- plans


async def test_plan_updates_and_removal_with_the_plan_capability(
    state_dir: Path, work_dir: Path
) -> None:
    async with wire_agent(state_dir, caps=v1_caps(plan={})) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "/plan")
        await agent.prompt(sid, "/plan clear")
        updates = agent.updates("plan_update")
        (removed,) = agent.updates("plan_removed")
        assert agent.updates("plan") == []
    plan_ids = {u["plan"]["planId"] for u in updates}
    assert len(plan_ids) == 1 and removed["planId"] in plan_ids
    assert {e["status"] for e in updates[-1]["plan"]["entries"]} == {"completed"}
    async with wire_agent(state_dir) as agent:  # no plan capability: legacy plan updates
        await agent.call("session/load", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []})
        plans = agent.updates("plan")
        assert [len(p["entries"]) for p in plans] == [5, 0]
        assert agent.updates("plan_update") == []


# ---------------------------------------------------------------------- prompts with blocks


async def test_image_audio_and_resources_are_echoed(state_dir: Path, work_dir: Path) -> None:
    picture = png(7, 3)
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": "/image"},
        {"type": "image", "mimeType": "image/png", "data": base64.b64encode(picture).decode()},
        {"type": "audio", "mimeType": "audio/wav", "data": base64.b64encode(b"RIFF1234").decode()},
        {
            "type": "resource",
            "resource": {
                "uri": "file:///tmp/notes.md",
                "text": "héllo\n",
                "mimeType": "text/markdown",
            },
        },
        {
            "type": "resource",
            "resource": {
                "uri": "file:///tmp/blob.bin",
                "blob": base64.b64encode(b"\0" * 10).decode(),
            },
        },
        {"type": "resource_link", "uri": "file:///tmp/big.log", "name": "big.log", "size": 4096},
    ]
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, *blocks)
        reply = agent.text(sid)
        await agent.prompt(sid, "/image")
        nothing = agent.text(sid)[len(reply) :]
        await agent.prompt(sid, {"type": "text", "text": "look"}, blocks[1])
    assert f"`image/png`, {len(picture):,} bytes, 7×3 pixels" in reply
    assert "`audio/wav`, 8 bytes" in reply
    assert "`file:///tmp/notes.md` (text, 7 bytes, `text/markdown`)" in reply
    assert "`file:///tmp/blob.bin` (binary, 10 bytes)" in reply
    assert "`file:///tmp/big.log` (big.log, 4,096 bytes)" in reply
    assert "Nothing is attached" in nothing
    # The image is kept and replayed as the user sent it.
    async with wire_agent(state_dir) as agent:
        await agent.call("session/load", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []})
        replayed = [u["content"] for u in agent.updates("user_message_chunk")]
    assert blocks[1] in replayed and blocks[3] in replayed


# ---------------------------------------------------------------------- sessions (unstable)


async def test_fork_copies_the_transcript(state_dir: Path, work_dir: Path, tmp_path: Path) -> None:
    extra = str(tmp_path)
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "the original question")
        await agent.call(
            "session/set_config_option",
            {"sessionId": sid, "configId": "model", "value": "demo-deep"},
        )
        fork = await agent.call(
            "session/fork",
            {
                "sessionId": sid,
                "cwd": str(work_dir),
                "mcpServers": [],
                "additionalDirectories": [extra],
            },
        )
        fork_id = fork["sessionId"]
        assert fork_id != sid
        assert {o["id"]: o["currentValue"] for o in fork["configOptions"]}["model"] == "demo-deep"
        await agent.wait_update("session_info_update", title=None)
        await agent.call(
            "session/set_title", {"sessionId": fork_id, "title": "  the original (branch) "}
        )
        await agent.prompt(fork_id, "only in the branch")
        listed = await agent.call("session/list", {})
        await agent.prompt(fork_id, "/dirs")
        dirs_reply = agent.text(fork_id)
    by_id = {s["sessionId"]: s for s in listed["sessions"]}
    assert by_id[fork_id]["title"] == "the original (branch)"  # not replaced by a prompt
    assert by_id[sid]["title"] == "the original question"
    assert by_id[fork_id]["additionalDirectories"] == [extra]
    assert by_id[fork_id]["_meta"]["messageCount"] == by_id[sid]["_meta"]["messageCount"] + 2
    assert extra in dirs_reply
    async with wire_agent(state_dir) as agent:
        await agent.call(
            "session/load", {"sessionId": fork_id, "cwd": str(work_dir), "mcpServers": []}
        )
        users = [u["content"]["text"] for u in agent.updates("user_message_chunk")]
    assert users[:2] == ["the original question", "only in the branch"]


async def test_set_title_rules(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir)
        await agent.prompt(sid, "first words become the title")
    async with wire_agent(state_dir) as agent:
        # Not open on this connection: still retitled, and -32602 / -32002 as the schema says.
        result = await agent.call("session/set_title", {"sessionId": sid, "title": "A  new\ttitle"})
        assert result == {"title": "A new title"}
        for bad, code in (
            ({"sessionId": sid, "title": "   "}, -32602),
            ({"sessionId": "demo-nope", "title": "x"}, -32002),
        ):
            with pytest.raises(CallFailed) as failed:
                await agent.call("session/set_title", bad)
            assert failed.value.code == code
        (listed,) = (await agent.call("session/list", {}))["sessions"]
        assert listed["title"] == "A new title"
        await agent.call(
            "session/resume", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []}
        )
        await agent.call("session/set_title", {"sessionId": sid, "title": "Live rename"})
        assert agent.updates("session_info_update")[-1]["title"] == "Live rename"


async def test_archive_hides_from_the_default_list(state_dir: Path, work_dir: Path) -> None:
    async with wire_agent(state_dir) as agent:
        keep = await agent.new_session(work_dir)
        await agent.prompt(keep, "keep me")
        gone = await agent.new_session(work_dir)
        await agent.prompt(gone, "archive me")
        await agent.call("session/archive", {"sessionId": gone})
        await agent.call("session/archive", {"sessionId": gone})  # archiving twice succeeds
        with pytest.raises(CallFailed):  # archived means closed
            await agent.prompt(gone, "still there?")

        async def listed(**filters: Any) -> list[tuple[str, bool]]:
            page = await agent.call("session/list", filters)
            return [(s["sessionId"], s["archived"]) for s in page["sessions"]]

        assert await listed() == [(keep, False)]
        assert await listed(archived="exclude") == [(keep, False)]
        assert await listed(archived="only") == [(gone, True)]
        assert set(await listed(archived="include")) == {(keep, False), (gone, True)}
        with pytest.raises(CallFailed) as bad:
            await listed(archived="_someday")
        assert bad.value.code == -32602
        await agent.call("session/unarchive", {"sessionId": gone})
        await agent.call("session/unarchive", {"sessionId": gone})
        assert set(await listed()) == {(keep, False), (gone, False)}
        with pytest.raises(CallFailed) as missing:
            await agent.call("session/archive", {"sessionId": "demo-missing"})
        assert missing.value.code == -32002


async def test_additional_directories(state_dir: Path, work_dir: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "lib", tmp_path / "docs"
    first.mkdir()
    async with wire_agent(state_dir) as agent:
        sid = await agent.new_session(work_dir, additionalDirectories=[str(first), str(second)])
        await agent.prompt(sid, "/dirs")
        reply = agent.text(sid)
        with pytest.raises(CallFailed) as relative:
            await agent.new_session(work_dir, additionalDirectories=["relative/path"])
        listed = (await agent.call("session/list", {}))["sessions"]
    assert relative.value.code == -32602
    assert f"`{first}` (additional directory, exists)" in reply
    assert f"`{second}` (additional directory, missing)" in reply
    assert listed[0]["additionalDirectories"] == [str(first), str(second)]
    # Reopening activates exactly what the client sends (none: none).
    async with wire_agent(state_dir) as agent:
        await agent.call(
            "session/resume", {"sessionId": sid, "cwd": str(work_dir), "mcpServers": []}
        )
        await agent.prompt(sid, "/dirs")
        assert "no additional directories" in agent.text(sid)
        await agent.call(
            "session/load",
            {
                "sessionId": sid,
                "cwd": str(work_dir),
                "mcpServers": [],
                "additionalDirectories": [str(second)],
            },
        )
        assert "additionalDirectories" in json.dumps(await agent.call("session/list", {}))


async def test_the_system_prompt_of_each_setup_request_is_echoed_and_bad_ones_refused(
    state_dir: Path, tmp_path: Path
) -> None:
    """``systemPrompt`` on new, load, resume and fork: ``/system`` quotes the one the session
    was opened with; a mode it does not know, empty content or a non-text block is -32602,
    never taken as something else (the schema's MUSTs)."""

    def prompt(mode: str, text: str) -> dict[str, Any]:
        return {"systemPrompt": {"mode": mode, "content": [{"type": "text", "text": text}]}}

    async with wire_agent(state_dir) as agent:
        first = await agent.new_session(tmp_path, **prompt("append", "Be brief."))
        await agent.prompt(first, "/system")
        assert "(append, 9 characters)" in agent.text(first) and "> Be brief." in agent.text(first)
        branch = (
            await agent.call(
                "session/fork",
                {"sessionId": first, "cwd": str(tmp_path), **prompt("override", "Branch.")},
            )
        )["sessionId"]
        await agent.prompt(branch, "/system")
        assert "(override, 7 characters)" in agent.text(branch)
        await agent.call("session/close", {"sessionId": first})
        await agent.call(
            "session/resume", {"sessionId": first, "cwd": str(tmp_path), **prompt("append", "R")}
        )
        mark = agent.mark()
        await agent.prompt(first, "/system")
        said = "".join(
            m["params"]["update"]["content"]["text"]
            for m in agent.since(mark)
            if m.get("method") == "session/update"
            and m["params"]["update"].get("sessionUpdate") == "agent_message_chunk"
        )
        assert "(append, 1 characters)" in said
        bad: list[Any] = [
            {"mode": "prepend", "content": [{"type": "text", "text": "x"}]},
            {"mode": "append", "content": []},
            {"mode": "append", "content": [{"type": "image", "data": "", "mimeType": "x"}]},
        ]
        for value in bad:
            with pytest.raises(CallFailed) as refused:
                await agent.new_session(tmp_path, systemPrompt=value)
            assert refused.value.code == -32602, value
