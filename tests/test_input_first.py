"""Background work gives way while a key is on its way to the screen
(acp_tui/pace/input_first.py): it waits while the UI says a key is pending, briefly and
never past MOST, and is a plain checkpoint otherwise."""

from __future__ import annotations

import time

import anyio
import pytest

from acp_tui.pace.input_first import MOST, STEP, InputFirst

pytestmark = pytest.mark.anyio


async def test_no_key_pending_is_a_plain_checkpoint() -> None:
    gate = InputFirst()
    started = time.perf_counter()
    for _ in range(100):
        await gate.give_way()
    assert gate.waits == 0
    assert time.perf_counter() - started < 1.0


async def test_a_pending_key_holds_the_work_until_it_is_echoed() -> None:
    """Only the echo lets the work go: the gate's clock stands still (MOST never passes, as
    on a machine too busy to wake the key's task in time), and the key is echoed once the
    work is held, whenever that is."""
    gate = InputFirst(clock=lambda: 0.0)
    echoed = anyio.Event()
    held = anyio.Event()

    def pending() -> float:
        held.set()
        return 0.0 if echoed.is_set() else MOST

    gate.install(pending)
    order: list[str] = []

    async def work() -> None:
        await gate.give_way()
        order.append("work")

    async def key() -> None:
        await held.wait()
        await anyio.sleep(STEP * 3)  # the work looks again meanwhile, and waits on
        order.append("echo")
        echoed.set()

    with anyio.fail_after(30):  # a hang guard: the gate never let the work go
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(work)
            tasks.start_soon(key)
    assert order == ["echo", "work"]
    assert gate.waits == 1


class SteppingClock:
    """A clock that moves on by ``step`` each time it is read: the gate's bound is counted in
    its own readings, whatever the machine's load does to the real time between them."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


async def test_the_wait_is_bounded_whatever_the_ui_says() -> None:
    clock = SteppingClock(STEP)
    gate = InputFirst(clock=clock)
    gate.install(lambda: 10.0)  # a UI that never lets go
    with anyio.fail_after(30):  # a hang guard: the bound never came
        await gate.give_way()
    assert gate.waits == 1
    assert MOST <= gate.waited <= MOST + 2 * STEP
    assert clock.now <= MOST + 3 * STEP


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
