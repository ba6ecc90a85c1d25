"""The queue of messages that cannot go out yet: order, edits held back, the new session's
messages adopted by the session that opens for them."""

from __future__ import annotations

from acp_tui.session.prompts.queue import PromptQueue


def texts(queue: PromptQueue, key: str | None) -> list[str]:
    return [item.text for item in queue.items(key)]


def test_items_go_out_oldest_first_per_session() -> None:
    changes: list[str | None] = []
    queue = PromptQueue(on_change=changes.append)
    queue.add("s1", "one")
    queue.add("s2", "other")
    queue.add("s1", "two")
    assert texts(queue, "s1") == ["one", "two"] and len(queue) == 3
    first = queue.take_next("s1")
    assert first is not None and first.text == "one"
    assert first.blocks == [{"type": "text", "text": "one"}]
    assert texts(queue, "s1") == ["two"]
    assert changes == ["s1", "s2", "s1", "s1"]


def test_an_item_being_edited_holds_it_and_everything_after_it() -> None:
    queue = PromptQueue()
    a = queue.add("s", "a")
    queue.add("s", "b")
    assert queue.begin_edit("s", a.queue_id) is a
    assert queue.editing("s") is a
    # The turn ends while the person edits: nothing goes, not even what comes after.
    assert queue.take_next("s") is None
    assert texts(queue, "s") == ["a", "b"]
    assert queue.save_edit("s", a.queue_id, "a, edited")
    assert queue.editing("s") is None
    sent = queue.take_next("s")
    assert sent is not None and sent.text == "a, edited"
    assert sent.blocks == [{"type": "text", "text": "a, edited"}]


def test_an_edit_behind_the_head_lets_the_head_go_then_holds() -> None:
    queue = PromptQueue()
    queue.add("s", "a")
    b = queue.add("s", "b")
    queue.begin_edit("s", b.queue_id)
    head = queue.take_next("s")
    assert head is not None and head.text == "a"
    assert queue.take_next("s") is None


def test_an_abandoned_edit_keeps_the_text_and_lets_it_go() -> None:
    queue = PromptQueue()
    a = queue.add("s", "as it was")
    queue.begin_edit("s", a.queue_id)
    assert queue.abandon_edit("s")
    item = queue.take_next("s")
    assert item is not None and item.text == "as it was"


def test_removing_the_item_being_edited_releases_the_queue() -> None:
    queue = PromptQueue()
    a = queue.add("s", "a")
    queue.add("s", "b")
    queue.begin_edit("s", a.queue_id)
    assert queue.remove("s", a.queue_id)
    item = queue.take_next("s")
    assert item is not None and item.text == "b"
    assert queue.take_next("s") is None and not queue.has("s")


def test_what_waits_for_the_new_session_is_adopted_after_what_the_session_had() -> None:
    queue = PromptQueue()
    queue.add("s", "already there")
    queue.add(None, "typed while starting")
    queue.rekey(None, "s")
    assert texts(queue, "s") == ["already there", "typed while starting"]
    assert not queue.has(None)
    queue.rekey("missing", "s")  # nothing to move: nothing changes
    assert texts(queue, "s") == ["already there", "typed while starting"]


def test_an_edit_goes_with_its_item_when_the_new_session_adopts_it() -> None:
    queue = PromptQueue()
    item = queue.add(None, "draft")
    queue.begin_edit(None, item.queue_id)
    queue.rekey(None, "s")
    assert queue.editing("s") is item and queue.take_next("s") is None
