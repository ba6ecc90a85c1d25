"""The permission broker: queueing, policies, cancellation, malformed requests, echo lines."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
import pytest

from acp_tui.session.asking.permissions import (
    PendingPermission,
    PermissionBroker,
)

pytestmark = pytest.mark.anyio

OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    {"optionId": "never", "name": "Never", "kind": "reject_always"},
]

CANCELLED = {"outcome": {"outcome": "cancelled"}}


def selected(option_id: str) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


def params(
    title: str = "Write src/app.py",
    session: str = "s1",
    options: Any = None,
    tool_call_id: str = "tc1",
) -> dict[str, Any]:
    return {
        "sessionId": session,
        "toolCall": {"toolCallId": tool_call_id, "title": title, "kind": "edit"},
        "options": OPTIONS if options is None else options,
    }


class Recorder:
    """A presenter that records what it was shown and waits for the test to answer."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, int, int]] = []
        self.answers: dict[str, anyio.Event] = {}
        self.choice: dict[str, str | None] = {}
        self.closed: list[str] = []

    async def __call__(self, pending: PendingPermission, position: int, total: int) -> str | None:
        title = pending.label
        self.shown.append((title, position, total))
        event = self.answers.setdefault(title, anyio.Event())
        try:
            await event.wait()
        except BaseException:
            self.closed.append(title)
            raise
        return self.choice[title]

    def answer(self, title: str, option_id: str | None) -> None:
        self.choice[title] = option_id
        self.answers.setdefault(title, anyio.Event()).set()


async def settle() -> None:
    for _ in range(20):
        await anyio.lowlevel.checkpoint()


async def test_single_request_selected_and_echoed() -> None:
    echoes: list[tuple[str, str]] = []
    broker = PermissionBroker(on_answered=lambda s, t: echoes.append((s, t)))
    presenter = Recorder()
    broker.set_presenter(presenter)
    results: list[dict[str, Any]] = []

    async with anyio.create_task_group() as tg:

        async def ask() -> None:
            results.append(await broker.request(params()))

        tg.start_soon(ask)
        await settle()
        assert presenter.shown == [("Write src/app.py", 1, 1)]
        assert broker.queue_length == 1
        presenter.answer("Write src/app.py", "yes")

    assert results == [selected("yes")]
    assert echoes == [("s1", "Allowed once: Write src/app.py")]
    assert broker.queue_length == 0


@pytest.mark.parametrize(
    ("option_id", "echo"),
    [
        ("yes", "Allowed once: Run rm -rf build"),
        ("always", "Allowed always: Run rm -rf build"),
        ("no", "Rejected once: Run rm -rf build"),
        ("never", "Rejected always: Run rm -rf build"),
        (None, "Cancelled: Run rm -rf build"),
        ("not-an-offered-option", "Cancelled: Run rm -rf build"),
    ],
)
async def test_echo_text_per_kind(option_id: str | None, echo: str) -> None:
    echoes: list[str] = []
    broker = PermissionBroker(on_answered=lambda _s, t: echoes.append(t))

    async def present(pending: PendingPermission, position: int, total: int) -> str | None:
        return option_id

    broker.set_presenter(present)
    result = await broker.request(params(title="Run rm -rf build"))
    if option_id in ("yes", "always", "no", "never"):
        assert result == selected(option_id)
    else:
        assert result == CANCELLED
    assert echoes == [echo]


async def test_echo_names_the_option_when_several_are_of_its_kind() -> None:
    """Claude's plan approval offers three allow_always options that do different things: the
    transcript said "Allowed always" whichever was picked."""
    echoes: list[str] = []
    broker = PermissionBroker(on_answered=lambda _s, t: echoes.append(t))

    async def present(pending: PendingPermission, position: int, total: int) -> str | None:
        return "acceptEdits"

    broker.set_presenter(present)
    options = [
        {"optionId": "bypass", "name": "Yes, and bypass permissions", "kind": "allow_always"},
        {"optionId": "acceptEdits", "name": "Yes, and auto-accept edits", "kind": "allow_always"},
        {"optionId": "plan", "name": "No, keep planning", "kind": "reject_once"},
    ]
    await broker.request(params(title="Ready to code?", options=options))
    assert echoes == ["Allowed always ('Yes, and auto-accept edits'): Ready to code?"]


async def test_queue_is_fifo_one_at_a_time_with_counts() -> None:
    counts: list[tuple[int, int]] = []
    broker = PermissionBroker(on_queue_changed=lambda k, n: counts.append((k, n)))
    presenter = Recorder()
    broker.set_presenter(presenter)
    results: dict[str, dict[str, Any]] = {}

    async with anyio.create_task_group() as tg:
        for name in ("first", "second", "third"):

            async def ask(name: str = name) -> None:
                results[name] = await broker.request(params(title=name, tool_call_id=name))

            tg.start_soon(ask)
            await settle()

        # Only the first is on screen; the others wait their turn.
        assert presenter.shown == [("first", 1, 1)]
        assert broker.queue_length == 3
        assert broker.position == (1, 3)
        assert counts[-1] == (1, 3)
        assert [p.label for p in broker.pending] == ["first", "second", "third"]

        presenter.answer("first", "yes")
        await settle()
        assert presenter.shown[-1] == ("second", 2, 3)
        presenter.answer("second", "no")
        await settle()
        assert presenter.shown[-1] == ("third", 3, 3)
        presenter.answer("third", "always")

    assert [t for t, _, _ in presenter.shown] == ["first", "second", "third"]
    assert results == {
        "first": selected("yes"),
        "second": selected("no"),
        "third": selected("always"),
    }
    assert broker.position == (0, 0)
    assert counts[-1] == (0, 0)


async def test_requests_wait_for_a_presenter() -> None:
    broker = PermissionBroker()
    results: list[dict[str, Any]] = []
    async with anyio.create_task_group() as tg:

        async def ask() -> None:
            results.append(await broker.request(params()))

        tg.start_soon(ask)
        await settle()
        assert broker.queue_length == 1 and not results

        async def present(pending: PendingPermission, position: int, total: int) -> str | None:
            return "always"

        broker.set_presenter(present)
    assert results == [selected("always")]


async def test_yolo_allows_once_before_always_as_deny_rejects_once() -> None:
    """ "Always" would leave a rule in the agent's settings or switch its mode (claude-agent-acp
    lists "bypass permissions" first when leaving plan mode): allow once when offered."""
    echoes: list[str] = []
    broker = PermissionBroker("yolo", on_answered=lambda _s, t: echoes.append(t))
    options = [
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
        {"optionId": "always", "name": "Always", "kind": "allow_always"},
        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
        {"optionId": "yes-too", "name": "Allow too", "kind": "allow_once"},
    ]
    assert await broker.request(params(options=options)) == selected("yes")
    assert echoes == ["Auto-allowed (--yolo): Write src/app.py"]


async def test_yolo_takes_allow_always_when_it_is_the_only_allow() -> None:
    broker = PermissionBroker("yolo")
    options = [
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
        {"optionId": "always", "name": "Always", "kind": "allow_always"},
    ]
    assert await broker.request(params(options=options)) == selected("always")


async def test_yolo_without_allow_option_cancels_when_nobody_can_ask() -> None:
    echoes: list[str] = []
    broker = PermissionBroker("yolo", on_answered=lambda _s, t: echoes.append(t))
    options = [{"optionId": "no", "name": "Reject", "kind": "reject_once"}]
    assert await broker.request(params(options=options)) == CANCELLED
    assert echoes and echoes[0].startswith("Cancelled")


async def test_yolo_without_allow_option_asks_when_a_presenter_exists() -> None:
    broker = PermissionBroker("yolo")

    async def present(pending: PendingPermission, position: int, total: int) -> str | None:
        return "no"

    broker.set_presenter(present)
    options = [{"optionId": "no", "name": "Reject", "kind": "reject_once"}]
    assert await broker.request(params(options=options)) == selected("no")


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (OPTIONS, selected("no")),
        (
            [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "never", "name": "Never", "kind": "reject_always"},
            ],
            selected("never"),
        ),
        ([{"optionId": "yes", "name": "Allow", "kind": "allow_once"}], CANCELLED),
    ],
)
async def test_deny_policy(options: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    echoes: list[str] = []
    broker = PermissionBroker("deny", on_answered=lambda _s, t: echoes.append(t))
    assert await broker.request(params(options=options)) == expected
    assert len(echoes) == 1
    if expected == CANCELLED:
        assert echoes[0].startswith("Cancelled")
    else:
        assert echoes[0] == "Auto-rejected (--deny-all): Write src/app.py"


async def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError):
        PermissionBroker("maybe")  # type: ignore[arg-type]


async def test_cancel_session_answers_on_screen_and_queued_requests() -> None:
    echoes: list[tuple[str, str]] = []
    broker = PermissionBroker(on_answered=lambda s, t: echoes.append((s, t)))
    presenter = Recorder()
    broker.set_presenter(presenter)
    results: dict[str, dict[str, Any]] = {}

    async with anyio.create_task_group() as tg:
        for name, session in (("a1", "A"), ("b1", "B"), ("a2", "A")):

            async def ask(name: str = name, session: str = session) -> None:
                results[name] = await broker.request(
                    params(title=name, session=session, tool_call_id=name)
                )

            tg.start_soon(ask)
            await settle()

        assert presenter.shown == [("a1", 1, 1)]
        assert broker.cancel_session("A") == 2
        await settle()
        # The dialog on screen was closed (its presenter call cancelled); B's is shown next.
        assert presenter.closed == ["a1"]
        assert presenter.shown[-1][0] == "b1"
        assert broker.queue_length == 1
        assert broker.cancel_session("A") == 0
        presenter.answer("b1", "yes")

    assert results == {"a1": CANCELLED, "a2": CANCELLED, "b1": selected("yes")}
    assert ("A", "Cancelled: a1") in echoes
    assert ("A", "Cancelled: a2") in echoes
    assert ("B", "Allowed once: b1") in echoes


async def test_cancel_all_answers_everything() -> None:
    broker = PermissionBroker()
    presenter = Recorder()
    broker.set_presenter(presenter)
    results: list[dict[str, Any]] = []
    async with anyio.create_task_group() as tg:
        for i in range(3):

            async def ask(i: int = i) -> None:
                results.append(
                    await broker.request(
                        params(title=f"t{i}", session=f"s{i}", tool_call_id=str(i))
                    )
                )

            tg.start_soon(ask)
        await settle()
        assert broker.cancel_all() == 3
    assert results == [CANCELLED] * 3
    assert presenter.closed == ["t0"]
    assert len(presenter.shown) == 1


async def test_cancelled_request_task_answers_cancelled() -> None:
    echoes: list[str] = []
    broker = PermissionBroker(on_answered=lambda _s, t: echoes.append(t))
    presenter = Recorder()
    broker.set_presenter(presenter)
    with anyio.move_on_after(0.05):
        await broker.request(params())
    assert broker.queue_length == 0
    assert echoes == ["Cancelled: Write src/app.py"]
    assert presenter.closed == ["Write src/app.py"]


async def test_presenter_error_answers_cancelled() -> None:
    broker = PermissionBroker()

    async def present(pending: PendingPermission, position: int, total: int) -> str | None:
        raise RuntimeError("boom")

    broker.set_presenter(present)
    assert await broker.request(params()) == CANCELLED


@pytest.mark.parametrize(
    "bad",
    [
        None,
        "not an object",
        [],
        {},
        {"sessionId": "s1"},
        {"sessionId": "s1", "toolCall": "x", "options": "allow"},
        {"sessionId": "s1", "toolCall": {"toolCallId": "t"}, "options": []},
        {"sessionId": 5, "toolCall": None, "options": [None, 3, {"name": "x"}, {"optionId": 7}]},
    ],
)
async def test_malformed_params_answer_cancelled_and_say_why(bad: Any) -> None:
    echoes: list[str] = []
    broker = PermissionBroker(on_answered=lambda _s, t: echoes.append(t))
    presenter = Recorder()
    broker.set_presenter(presenter)
    assert await broker.request(bad) == CANCELLED
    assert presenter.shown == []
    assert len(echoes) == 1
    assert echoes[0].startswith("Cancelled (")


async def test_partly_malformed_options_keep_the_usable_ones() -> None:
    pending = PendingPermission.from_params(
        {
            "sessionId": "s1",
            "toolCall": {"toolCallId": "t"},
            "options": [
                {"optionId": "a", "kind": "allow_once"},  # no name: the id stands in
                {"name": "no id", "kind": "allow_once"},
                {"optionId": "a", "name": "dup", "kind": "allow_once"},  # the same option twice
                {"optionId": "b", "name": "B", "kind": 3},
            ],
        }
    )
    assert [(c.option_id, c.name, c.kind) for c in pending.options] == [
        ("a", "a", "allow_once"),
        ("b", "B", ""),
    ]
    assert pending.label == "t"


async def test_echo_label_is_sanitised_and_cut() -> None:
    echoes: list[str] = []
    broker = PermissionBroker("yolo", on_answered=lambda _s, t: echoes.append(t))
    title = "\x1b[31mRun\x1b[0m \u202eevil\n" + "x" * 1000
    await broker.request(params(title=title))
    assert "\x1b" not in echoes[0] and "\u202e" not in echoes[0] and "\n" not in echoes[0]
    assert echoes[0].startswith("Auto-allowed (--yolo): Run evil xxx")
    assert echoes[0].endswith("…")
    assert len(echoes[0]) < 260


@pytest.mark.parametrize(
    "kinds",
    [
        ("reject_once", "allow_once"),
        ("allow_once", "reject_always"),
        ("allow_once", "allow_always"),
        ("reject_once", None),
    ],
)
async def test_an_option_id_shared_by_options_of_different_kinds_is_never_answered(
    kinds: tuple[str | None, str | None],
) -> None:
    """Round 3: "x" named a Reject and an Allow. The dialog showed Reject; Escape (or 1)
    answered "x", which the agent may read as Allow. Neither is offered; the rest are."""
    first, second = kinds
    pending = PendingPermission.from_params(
        params(
            options=[
                {"optionId": "x", "name": "Reject", "kind": first},
                {"optionId": "y", "name": "Other", "kind": "reject_once"},
                {"optionId": "x", "name": "Allow", "kind": second},
            ]
        )
    )
    assert [c.option_id for c in pending.options] == ["y"]
    only = PendingPermission.from_params(
        params(
            options=[
                {"optionId": "x", "name": "Reject", "kind": first},
                {"optionId": "x", "name": "Allow", "kind": second},
            ]
        )
    )
    assert only.options == [] and only.problem and "different kinds" in only.problem
    echoes: list[str] = []
    broker = PermissionBroker(on_answered=lambda _s, t: echoes.append(t))
    presenter = Recorder()
    broker.set_presenter(presenter)
    assert await broker.request(only.params) == CANCELLED
    assert presenter.shown == []
