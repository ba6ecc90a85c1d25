"""The chat screen's keys: its bindings, each with an id (the ``[keys]`` table of the config
remaps it by that id; :mod:`acp_tui.ui.keymap` lists them)."""

from __future__ import annotations

from textual.binding import Binding, BindingType

__all__ = ["CHAT_BINDINGS"]

CHAT_BINDINGS: list[BindingType] = [
    Binding("escape", "cancel_turn", "Cancel", show=True, id="cancel-turn"),
    # Escape where there is nothing to cancel: twice on an empty prompt, the rewind.
    Binding("escape", "rewind_escape", show=False, id="rewind-escape"),
    # The prompt's own key (the same id) acts there, this one where the focus is elsewhere
    # (the transcript, a button). Not Ctrl+Enter alone: most terminals (tmux among them) send
    # it as Enter. Not in the footer (at 80 columns it pushed Quit off): the queue's border,
    # a queued row's footer and the key sheet say it.
    Binding("alt+s,ctrl+enter", "send_now", "Send now", show=False, id="send-now"),
    # Priority: handled before the keys typed after it reach the prompt, so a message sent
    # right after Ctrl+N goes to the new session, not the one left.
    Binding("ctrl+n", "new_session", "New session", priority=True, id="new-session"),
    # Priority: resolved before the next key is handed out, so "/" typed right after it
    # already finds the sidebar focused (a binding resolved later would not).
    Binding("ctrl+b", "toggle_sidebar", "Sessions", priority=True, id="sessions-sidebar"),
    Binding("ctrl+t", "toggle_latest_thought", "Thought", id="latest-thought"),
    Binding("ctrl+o", "toggle_latest_tool", "Output", id="latest-output"),
    Binding("ctrl+r", "restart_agent", "Restart agent", show=False, id="restart-agent"),
    # The same key while the agent runs (the restart is only offered once it has exited):
    # the prompts sent, searched as shells do.
    Binding("ctrl+r", "search_history", "History", show=False, id="history-search"),
    # Priority: the prompt's text area takes Ctrl+C as its copy. Only while a shell-mode
    # command of the session on screen runs (see check_action): otherwise it copies.
    Binding("ctrl+c", "cancel_turn('shell')", "Stop", show=False, priority=True, id="shell-stop"),
    # Textual's Screen copies a mouse selection on Ctrl+C; a key bound here replaces all of
    # the Screen's bindings of that key, so its copy is bound again (after the prompt's own).
    Binding("ctrl+c", "screen.copy_text", "Copy", show=False, id="copy-selection"),
    # Priority: the prompt's text area takes Ctrl+Y as its redo.
    Binding("ctrl+y", "copy_last_reply", "Copy reply", show=False, priority=True, id="copy-reply"),
    Binding("alt+y", "copy_last_code", "Copy code", show=False, id="copy-code"),
    # Your messages in the transcript, to rewind from one (Enter on it).
    Binding("alt+up", "your_message(-1)", show=False, id="previous-message"),
    Binding("alt+down", "your_message(1)", show=False, id="next-message"),
    # Priority: the prompt has the focus when a toast says "ctrl+l to go there". Not Ctrl+G:
    # that is the app's next agent.
    Binding(
        "ctrl+l",
        "jump_waiting",
        "Go to waiting",
        show=False,
        priority=True,
        id="jump-waiting",
    ),
    # Shift+Tab from the prompt, as in Claude Code (elsewhere it moves the focus back: the
    # last binding of the three). Priority: the prompt would type the "t" of Alt+T. Each
    # key has a twin not listed in the footer, which works where the footer has no room
    # for it (see options.FOOTER_KEYS_WIDTH); the twin shares the id, so a remap
    # moves both.
    Binding(
        "shift+tab",
        "cycle_mode",
        "Mode",
        id="cycle-mode",
        priority=True,
    ),
    Binding("shift+tab", "cycle_mode('unlisted')", show=False, id="cycle-mode", priority=True),
    Binding("shift+tab", "app.focus_previous", "Focus previous", show=False, id="focus-previous"),
    Binding("alt+t", "cycle_thought_level", "Thinking", id="cycle-thought-level", priority=True),
    Binding(
        "alt+t",
        "cycle_thought_level('unlisted')",
        show=False,
        id="cycle-thought-level",
        priority=True,
    ),
    # Without a thinking level to cycle, the key says so: it must not fall through to the
    # prompt and type a "t". The same id, so a remapped key moves with it.
    Binding(
        "alt+t",
        "cycle_thought_level('none')",
        show=False,
        id="cycle-thought-level",
        priority=True,
    ),
    # The transcript from the prompt: before the prompt's own PgUp/PgDn (see check_action).
    Binding(
        "pageup", "scroll_transcript(-1)", "Scroll up", show=False, priority=True, id="page-up"
    ),
    Binding(
        "pagedown",
        "scroll_transcript(1)",
        "Scroll down",
        show=False,
        priority=True,
        id="page-down",
    ),
    Binding("ctrl+home", "transcript_top", "Top", show=False, priority=True, id="transcript-top"),
    Binding(
        "ctrl+end",
        "transcript_bottom",
        "Bottom",
        show=False,
        priority=True,
        id="transcript-bottom",
    ),
]
