"""The store's writer thread: batches, a failing batch dropped, an idle thread ends and comes
back, close drains what is queued."""

from __future__ import annotations

import threading

import pytest

from acp_tui.store import batch_thread
from acp_tui.store.batch_thread import BatchThread


def test_items_arrive_in_order_in_batches_on_the_thread_and_close_drains() -> None:
    seen: list[int] = []
    names: set[str] = set()
    gate = threading.Event()

    def handle(batch: list[int]) -> None:
        gate.wait(5)
        names.add(threading.current_thread().name)
        seen.extend(batch)

    worker: BatchThread[int] = BatchThread("the writer", handle)
    for n in range(100):
        worker.add(n)
    gate.set()
    worker.close()
    assert seen == list(range(100))
    assert names == {"the writer"}
    worker.add(100)  # after close: dropped, no thread started
    assert worker.flush(1)
    assert seen == list(range(100))


def test_a_failing_batch_is_dropped_and_the_next_is_handled() -> None:
    seen: list[str] = []

    def handle(batch: list[str]) -> None:
        if "bad" in batch:
            raise RuntimeError("disk full")
        seen.extend(batch)

    worker: BatchThread[str] = BatchThread("w", handle)
    worker.add("bad")
    assert worker.flush()
    worker.add("good")
    assert worker.flush()
    assert seen == ["good"]
    worker.close()


def test_instead_drops_what_was_not_yet_handed_over() -> None:
    seen: list[list[str]] = []
    started, go = threading.Event(), threading.Event()

    def handle(batch: list[str]) -> None:
        started.set()
        go.wait(5)
        seen.append(batch)

    worker: BatchThread[str] = BatchThread("w", handle)
    worker.add("first")
    assert started.wait(5)  # "first" is being handled: it is not dropped
    worker.add("queued")
    worker.add("clear", instead=True)
    worker.add("after")
    go.set()
    worker.close()
    assert seen == [["first"], ["clear", "after"]]


def test_an_idle_thread_ends_and_the_next_item_starts_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(batch_thread, "IDLE", 0.05)
    seen: list[int] = []
    threads: list[threading.Thread] = []

    def handle(batch: list[int]) -> None:
        threads.append(threading.current_thread())
        seen.extend(batch)

    worker: BatchThread[int] = BatchThread("w", handle)
    worker.add(1)
    assert worker.flush()
    threads[0].join(5)
    assert not threads[0].is_alive()
    worker.add(2)
    assert worker.flush()
    assert seen == [1, 2]
    assert threads[1] is not threads[0]
    worker.close()
