"""Background work gives way while a key is on its way to the screen
(acp_tui/protocol/input_first.py): it waits while the UI says a key is pending, briefly and
never past MOST, and is a plain checkpoint otherwise."""

from __future__ import annotations

import time

import anyio
import pytest

from acp_tui.protocol.input_first import MOST, InputFirst

pytestmark = pytest.mark.anyio


async def test_no_key_pending_is_a_plain_checkpoint() -> None:
    gate = InputFirst()
    started = time.perf_counter()
    for _ in range(100):
        await gate.give_way()
    assert gate.waits == 0
    assert time.perf_counter() - started < 1.0


async def test_a_pending_key_holds_the_work_until_it_is_echoed() -> None:
    gate = InputFirst()
    echoed = anyio.Event()
    gate.install(lambda: 0.0 if echoed.is_set() else MOST)
    order: list[str] = []

    async def work() -> None:
        await gate.give_way()
        order.append("work")

    async def key() -> None:
        await anyio.sleep(0.01)
        order.append("echo")
        echoed.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(work)
        tasks.start_soon(key)
    assert order == ["echo", "work"]
    assert gate.waits == 1


async def test_the_wait_is_bounded_whatever_the_ui_says() -> None:
    gate = InputFirst()
    gate.install(lambda: 10.0)  # a UI that never lets go
    started = time.perf_counter()
    await gate.give_way()
    assert time.perf_counter() - started < MOST + 0.5
    assert 0 < gate.waited <= MOST + 0.5


async def test_a_failing_or_removed_test_lets_the_work_go() -> None:
    gate = InputFirst()

    def broken() -> float:
        raise RuntimeError("the screen is gone")

    gate.install(broken)
    await gate.give_way()
    assert gate.waits == 0
    gate.uninstall(lambda: 1.0)  # not the one installed: stays
    assert gate._pending is broken
    gate.uninstall(broken)
    assert gate.pending() == 0.0
