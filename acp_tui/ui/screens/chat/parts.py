"""The chat screen's parts, made and wired to one another in one place (:func:`make_parts`):
the view's model and the plain objects that do the screen's jobs, each given what it needs of
the others and of the screen (its Textual services, and the few things only the chat screen
does, :class:`ScreenSide`), never the screen itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.screen import Screen

from acp_tui.config.shell_log import ShellLog
from acp_tui.session.agent.controller import SessionController
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.settings import AppSettings
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.session.workspace.workspace import Workspace
from acp_tui.ui.keymap import effective_keys, key_label, key_words
from acp_tui.ui.models import KeyLabel
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.preferences import UiSettings
from acp_tui.ui.screens.chat.agent import AgentRunner, ScreenHooks
from acp_tui.ui.screens.chat.agent_name import agent_label
from acp_tui.ui.screens.chat.attention import Attention, in_front, others_open
from acp_tui.ui.screens.chat.commands import ChatCommands, CommandHooks
from acp_tui.ui.screens.chat.common import data_dir
from acp_tui.ui.screens.chat.drawing import ChatDrawing, ChatWidgets, Scheduling
from acp_tui.ui.screens.chat.local_index import IndexSync
from acp_tui.ui.screens.chat.modals import ChatDialogs
from acp_tui.ui.screens.chat.options import SessionOptions
from acp_tui.ui.screens.chat.other_agents import OtherAgents
from acp_tui.ui.screens.chat.own_status import OwnStatus
from acp_tui.ui.screens.chat.pacing import FramePacer
from acp_tui.ui.screens.chat.palette import ChatPalette, ViewActions
from acp_tui.ui.screens.chat.queue import QueueActions
from acp_tui.ui.screens.chat.rewind import RewindActions
from acp_tui.ui.screens.chat.rules import ChatRules
from acp_tui.ui.screens.chat.session_actions import SessionActions
from acp_tui.ui.screens.chat.sessions import SidebarRequests
from acp_tui.ui.screens.chat.shell import ShellMode
from acp_tui.ui.screens.chat.subagents import Subagents
from acp_tui.ui.screens.chat.tools import ChatTools, in_thread
from acp_tui.ui.screens.chat.write_review import ChatWriteReviews
from acp_tui.ui.widgets.session_list import SessionList

__all__ = ["ChatParts", "ScreenSide", "make_parts"]


@dataclass(frozen=True, slots=True)
class ScreenSide:
    """What only the chat screen does for its parts: its agent's controller (the latest run),
    its prompt's focus, its own actions, and its busy flag."""

    controller: Callable[[], SessionController | None]
    focus_prompt: Callable[[], None]
    new_session: Callable[[], None]
    toggle_thoughts: Callable[[], None]
    toggle_sidebar: Callable[[], None]
    set_busy: Callable[[bool], None]


@dataclass(frozen=True, slots=True)
class ChatParts:
    """The chat screen's parts (the screen keeps each as an attribute of the same name)."""

    model: ChatModel
    dialogs: ChatDialogs
    rewind: RewindActions
    rules: ChatRules
    options: SessionOptions
    index_sync: IndexSync
    session_actions: SessionActions
    tools: ChatTools
    other_agents: OtherAgents
    attention: Attention
    drawing: ChatDrawing
    agent: AgentRunner
    sidebar_requests: SidebarRequests
    subagents: Subagents
    palette: ChatPalette
    shell: ShellMode
    write_review: ChatWriteReviews
    commands: ChatCommands
    queued: QueueActions
    own_status: OwnStatus


def make_parts(
    screen: Screen[Any],
    side: ScreenSide,
    *,
    settings: AppSettings,
    spec: AgentSpec,
    workspace: Workspace,
    ui_settings: UiSettings,
    parts: AgentParts,
    widgets: ChatWidgets,
    pacer: FramePacer,
) -> ChatParts:
    """The view's parts for ``screen``, each given what it needs of the others and of the
    screen."""
    keys: KeyLabel = partial(key_label, screen)

    def app() -> Any:
        return screen.app

    model = ChatModel(
        store=parts.store,
        prompts=parts.prompts,
        broker=parts.broker,
        elicitations=parts.elicitations,
        controller=side.controller,
        notify=screen.notify,
        keys=keys,
        # ``--continue`` or ``--resume ID``: the view is not the new session's (its title
        # and last mode and model showed there until the reopened session replaced them).
        reopening_at_start=settings.resume is not None
        and (bool(settings.resume) or settings.continue_latest),
    )
    dialogs = ChatDialogs(
        model,
        app=app,
        run_worker=screen.run_worker,
        forward_typing=lambda key, text: widgets.prompt.take_typing(key, text),
        agent=lambda: agent_label(spec, side.controller()),
    )
    dialogs.attach(parts.broker, parts.elicitations)
    #: Rewind and "Changes of this turn" (Esc Esc, the palette, a key on a message).
    rewind = RewindActions(
        model,
        dialogs=dialogs,
        run_worker=screen.run_worker,
        set_draft=lambda text: widgets.prompt.set_draft(text),
        prompt_text=lambda: widgets.prompt.text,
    )
    #: The permission rules: the palette's list, and what the dialog offers.
    rules = ChatRules(
        model,
        rules=parts.rules,
        broker=parts.broker,
        push=lambda pushed, answered: screen.app.push_screen(pushed, answered),
        origin=dialogs.origin,
        default_cwd=spec.cwd,
        forward_typing=dialogs.forward_typing,
    )
    dialogs.rule_offer = rules.offer
    #: Review before the write lands (Ctrl+P → Review writes).
    write_review = ChatWriteReviews(
        model,
        parts.write_reviews,
        app=app,
        origin=dialogs.origin,
        forward_typing=dialogs.forward_typing,
        mark=lambda on: widgets.header.set_review_writes(on),
        answered=dialogs.answered,
    )
    model.write_reviews = parts.write_reviews
    options = SessionOptions(
        model,
        bar=lambda: widgets.bar,
        push=lambda popup, closed: screen.app.push_screen(popup, closed),
        refresh_bindings=screen.refresh_bindings,
        typing_in_prompt=lambda: (
            screen.focused is None or screen.focused is widgets.prompt.text_area
        ),
        width=lambda: screen.size.width,
        mark_mode=lambda name: widgets.header.set_mode_warning(name),
        ask=dialogs.ask_yes_no,
    )
    index_sync = IndexSync(
        model,
        settings,
        spec,
        reapply=options.reapply,
        spec_of=workspace.spec_of,
    )
    session_actions = SessionActions(
        model,
        push=lambda dialog, answered: screen.app.push_screen(dialog, answered),
        confirm_delete=dialogs.confirm_delete,
        origin=dialogs.origin,
        listed=lambda: widgets.sidebar.session_list.ids_where(widgets.sidebar.model.own),
    )
    tools = ChatTools(
        model,
        settings,
        push=lambda pushed, answered=None: screen.app.push_screen(pushed, answered),
        copy=lambda text: screen.app.copy_to_clipboard(text),
        gauge=lambda: widgets.gauge,
        announce=lambda message, **how: screen.app.notify(message, **how),
        origin=dialogs.origin,
        forward_typing=dialogs.forward_typing,
        in_thread=lambda work, done: in_thread(screen, work, done, model.notify),
    )
    other_agents = OtherAgents(
        workspace,
        settings,
        spec,
        notify=screen.notify,
        sidebar=lambda: widgets.sidebar,
        app=app,
    )
    attention = Attention(
        model,
        workspace,
        spec,
        ui_settings,
        app=app,
        keys=keys,
        in_front=lambda: in_front(screen, type(screen)),
        others_open=lambda: others_open(screen, type(screen)),
    )
    drawing = ChatDrawing(
        model,
        widgets,
        pacer=pacer,
        scheduling=Scheduling(
            timer=screen.set_timer,
            next_turn=screen.call_later,
            after_paint=screen.call_after_refresh,
            mounted=lambda: screen.is_mounted,
            attached=lambda: screen.is_attached,
        ),
        index_sync=index_sync,
        attention=attention,
        options=options,
        set_busy=side.set_busy,
        focus_prompt=side.focus_prompt,
        focused=lambda: screen.focused,
        notify=screen.notify,
    )
    own_status = OwnStatus(
        model,
        spec,
        line=lambda: widgets.own_status,
        in_front=attention.in_front,
        label=lambda: agent_label(spec, side.controller()),
    )
    drawing.drawn = own_status.refresh
    model.show = drawing.show
    model.focus_prompt = side.focus_prompt
    model.status_changed = drawing.status
    agent = AgentRunner(
        model,
        parts,
        workspace,
        settings,
        widgets=widgets,
        drawing=drawing,
        dialogs=dialogs,
        index_sync=index_sync,
        keys=keys,
        app=app,
        screen=ScreenHooks(
            run_worker=screen.run_worker,
            refresh_bindings=screen.refresh_bindings,
            on_screen=lambda: screen in screen.app.screen_stack,
            list_key=lambda binding_id: key_label(screen, binding_id, owner=SessionList),
        ),
    )
    sidebar_requests = SidebarRequests(
        model,
        workspace,
        spec,
        drawing=drawing,
        actions=session_actions,
        new_session=side.new_session,
        focus_prompt=side.focus_prompt,
        app=app,
        show_sidebar=ui_settings.show_sidebar,
    )
    subagents = Subagents(
        model,
        workspace,
        spec.key,
        push=lambda pushed: screen.app.push_screen(pushed),
        app=app,
        focus_transcript=lambda: screen.set_focus(widgets.transcript),
    )
    palette = ChatPalette(
        model,
        actions=ViewActions(
            new_session=side.new_session,
            toggle_thoughts=side.toggle_thoughts,
            toggle_sidebar=side.toggle_sidebar,
            restart_agent=agent.restart,
        ),
        tools=tools,
        sessions=session_actions,
        dialogs=dialogs,
        rules=rules.show_rules,
        key_words=lambda binding_id: next(
            (key_words(key) for key in effective_keys(screen, binding_id)), None
        ),
        highlighted=lambda: widgets.sidebar.highlighted_session_id(),
        other_agents=other_agents.commands,
        options=options.commands,
        agent_switches=lambda: getattr(screen.app, "agent_switch_commands", tuple)(),
        rewind=rewind.palette_commands,
        review_writes=write_review.palette_commands,
        subagents=subagents,
    )
    commands = ChatCommands(
        model,
        CommandHooks(
            new_session=side.new_session,
            show_sessions=sidebar_requests.show,
            options=options,
            tools=tools,
            sessions=session_actions,
            prompt=lambda: widgets.prompt,
            push=lambda pushed: screen.app.push_screen(pushed),
            quit=lambda: screen.app.call_later(screen.app.action_quit),
        ),
    )
    return ChatParts(
        write_review=write_review,
        model=model,
        dialogs=dialogs,
        rewind=rewind,
        rules=rules,
        options=options,
        index_sync=index_sync,
        session_actions=session_actions,
        tools=tools,
        other_agents=other_agents,
        attention=attention,
        drawing=drawing,
        agent=agent,
        sidebar_requests=sidebar_requests,
        subagents=subagents,
        palette=palette,
        shell=ShellMode(
            model,
            cwd=lambda: state.cwd if (state := model.state()) and state.cwd else spec.cwd,
            post=lambda *call: screen.app.call_from_thread(*call),
            columns=lambda: widgets.transcript.size.width - 4,
            to_bottom=lambda: widgets.transcript.to_bottom(),
            log=ShellLog(data_dir(settings) / "shell", spec.key),
        ),
        commands=commands,
        queued=QueueActions(
            model,
            widgets,
            focused=lambda: screen.focused,
            chain=lambda: screen.focus_chain,
            focus=lambda widget: screen.set_focus(widget),
        ),
        own_status=own_status,
    )
