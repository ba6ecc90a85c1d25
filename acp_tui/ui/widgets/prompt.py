"""The prompt editor: a multi-line input with history, slash commands and ``@path`` mentions.

``PromptEditor`` is a small container: a list of completions (hidden unless offered) above a
soft-wrapped ``TextArea`` that grows from one line to eight and then scrolls. The text area has
the focus; the editor reads its keys before the text area does:

- Enter sends (``PromptEditor.Submitted``) and clears; blank input is not sent.
  Shift+Enter, Ctrl+J and Alt+Enter insert a newline. (Both are configurable: the ids
  ``prompt-send`` and ``prompt-newline`` in the app's keymap.)
- Up on the first (visual) line recalls earlier prompts, Down goes forward again; the draft
  being typed is kept and comes back after the newest entry. Editing a recalled prompt makes it
  the draft, so nothing typed is lost.
- Alt+E (``external-editor``) opens the text in ``$VISUAL``/``$EDITOR``/``vi``; what the
  editor saves replaces it.
- ``/`` offers the agent's commands and acp-tui's (:mod:`acp_tui.ui.models.commands`), ``@``
  files under ``cwd``; Tab completes, Enter sends a command typed whole (or the only one
  starting so) else completes; Escape closes the list (without one, the screen's to cancel).

The file list for ``@`` is scanned in a worker thread (breadth first, bounded, skipping VCS,
dependency, cache and hidden directories) and cached per directory; a keystroke only filters
lists already in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, TextArea

from acp_tui.config.history import InputHistory
from acp_tui.session.prompts.attachments import (
    BuiltPrompt,
    image_paths_in_paste,
    mention_for,
)
from acp_tui.store.suggestions import PromptSuggestion
from acp_tui.ui.external_editor import edit_prompt
from acp_tui.ui.keymap import effective_keys, key_label, key_words
from acp_tui.ui.models.commands import ClientCommand, slash_list
from acp_tui.ui.textual_patches import access
from acp_tui.ui.widgets.image_paste import ImagePaste
from acp_tui.ui.widgets.prompt_completion import CompletionList
from acp_tui.ui.widgets.prompt_history import HistoryWalk
from acp_tui.ui.widgets.safe_input import SafeTextArea

__all__ = ["PromptEditor", "PromptTextArea", "text_only"]


def text_only(text: str) -> BuiltPrompt:
    """A prompt of its text alone: what an editor sends until it is given a builder."""
    return BuiltPrompt([{"type": "text", "text": text}])


# ---------------------------------------------------------------------------------------------
# Widgets
# ---------------------------------------------------------------------------------------------


class PromptTextArea(SafeTextArea):
    """The text area inside :class:`PromptEditor`. It asks the editor about each key first."""

    def __init__(self, editor: PromptEditor, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._editor = editor
        #: A key reached this area since the text last changed: the screen tells the
        #: person's typing from text set by the program (a queued message taken to edit).
        self._keyed = False

    def on_resize(self, event: events.Resize) -> None:
        self._editor.fit_placeholder(self.content_size.width - 1)  # the cursor's cell

    async def on_key(self, event: events.Key) -> None:
        self._keyed = True
        # Runs before TextArea._on_key (the dispatcher walks the MRO); prevent_default stops
        # TextArea's handler, stop() keeps the key from reaching the bindings further up.
        if self._editor._handle_key(event.key):
            event.stop()
            event.prevent_default()

    def change_was_typed(self) -> bool:
        """For the handler of a change of the text: whether a key made it (asked once per
        change)."""
        keyed, self._keyed = self._keyed, False
        return keyed

    async def on_paste(self, event: events.Paste) -> None:
        # A paste of nothing: the clipboard holds an image (no text), which is attached.
        if not event.text.strip() and self._editor.images.paste(expected=True):
            event.stop()
            event.prevent_default()
            return
        # A file dropped on the terminal pastes its path: an image's becomes a mention
        # (attached when sent). Runs before TextArea._on_paste, as _on_key does.
        paths = image_paths_in_paste(event.text, self._editor.cwd)
        if not paths:
            return
        event.stop()
        event.prevent_default()
        try:
            base = self._editor.cwd.resolve()
        except OSError:
            base = self._editor.cwd
        mentions = []
        for path in paths:
            try:
                shown = path.resolve().relative_to(base).as_posix()
            except (OSError, ValueError):
                shown = str(path)
            mentions.append(mention_for(shown))
        self.insert_words(" ".join(mentions) + " ")

    def insert_words(self, words: str) -> None:
        """Insert ``words`` at the cursor, a space before them unless one is there."""
        before = self.document[self.cursor_location[0]][: self.cursor_location[1]]
        self.insert((" " if before and not before[-1].isspace() else "") + words)


class PromptEditor(Vertical):
    """A multi-line prompt editor. See the module docstring for the keys.

    Attributes the screen sets: :attr:`commands` (the agent's available commands, dicts with
    ``name``, ``description`` and optionally ``input: {"hint": ...}``), :attr:`cwd` (the
    directory ``@`` completes in and resolves against) and :attr:`target` (the session the
    text is typed in)."""

    DEFAULT_CSS = """
    PromptEditor {
        height: auto;
        width: 1fr;
        & > PromptTextArea {
            height: auto;
            min-height: 3;
            max-height: 10;
            border: tall $border-blurred;
            &:focus {
                border: tall $border;
            }
            & .text-area--cursor-line {
                background: transparent;
            }
        }
        & > CompletionList {
            display: none;
            height: auto;
            max-height: 10;
            border: round $border;
            background: $surface;
            padding: 0;
            text-wrap: nowrap;
            text-overflow: ellipsis;
            &.-open {
                display: block;
            }
            & > .option-list--option-highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    class Submitted(Message):
        """The person sent a prompt. ``blocks`` are ACP content blocks ready for
        ``session/prompt``, as the editor's :attr:`PromptEditor.builder` made them."""

        def __init__(
            self, editor: PromptEditor, text: str, blocks: list[dict[str, Any]], now: bool = False
        ) -> None:
            super().__init__()
            self.editor = editor
            self.text = text
            self.blocks = blocks
            #: "Send now": into the running turn, or the turn cancelled for it.
            self.now = now
            #: The session it was typed in (:attr:`PromptEditor.target` at Enter): a key
            #: that switches the session after Enter must not carry it along.
            self.target = editor.target

        @property
        def control(self) -> PromptEditor:
            return self.editor

    #: Sending and new lines (configurable by id), read by :meth:`_handle_key` before the text
    #: area sees the key; Textual never runs them itself (see :meth:`check_action`). Where the
    #: terminal reports Shift/Alt+Enter as plain Enter, Ctrl+J is the way.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "send", "Send", show=False, id="prompt-send"),
        Binding(
            "shift+enter,ctrl+j,alt+enter", "newline", "New line", show=False, id="prompt-newline"
        ),
        # Ctrl+Enter where the terminal tells it from Enter (tmux and many do not): Alt+S.
        Binding("alt+s,ctrl+enter", "send_now", "Send now", show=False, id="send-now"),
        # Up on an empty prompt with messages queued: the last of them to edit; while one is
        # edited, Up and Down go to the others (at the first or last line).
        Binding("up", "queue_previous", show=False, id="queue-previous"),
        Binding("down", "queue_next", show=False, id="queue-next"),
        # Priority: the text area would type the "e" of Alt+E. Listed in the footer while no
        # turn runs (then Cancel needs the room); its unlisted twin works meanwhile.
        Binding("alt+e", "external_editor", "Editor", priority=True, id="external-editor"),
        Binding(
            "alt+e", "external_editor('unlisted')", show=False, priority=True, id="external-editor"
        ),
    ]

    def __init__(
        self,
        *,
        history: InputHistory | None = None,
        cwd: Path | None = None,
        commands: Iterable[Mapping[str, Any]] = (),
        placeholder: str | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.history: InputHistory = history if history is not None else InputHistory(None)
        self._cwd: Path = cwd if cwd is not None else Path.cwd()
        self._commands: list[Mapping[str, Any]] = list(commands)
        #: acp-tui's own commands (the screen's), listed after the agent's in the ``/`` list.
        self.client_commands: tuple[ClientCommand, ...] = ()
        #: Builds the blocks of what is sent (the screen gives its agent's controller's, which
        #: attaches each ``@file`` as the agent takes it; the same for ``acp-tui ask``).
        self.builder: Callable[[str], BuiltPrompt] = text_only
        #: Runs ``!cmd`` (shell mode): ``(command, attach)``, False when it cannot (None: a
        #: prompt without shell mode sends it as text).
        self.run_shell: Callable[[str, bool], bool] | None = None
        self._area = PromptTextArea(
            self,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            placeholder=self._placeholder() if placeholder is None else placeholder,
        )
        #: Ctrl+V (or an empty terminal paste) attaches an image on the clipboard.
        self.images = ImagePaste(
            self,
            insert=self._area.insert_words,
            paste_text=self._area.action_paste,
            notify=lambda text: self.screen.notify(text, severity="warning", markup=False),
        )
        #: The placeholder as given (kept whole), or None: the default, cut to fit by phrases.
        self._given_placeholder = placeholder
        self._list = CompletionList(
            self._area, lambda: slash_list(self._commands, self.client_commands), lambda: self._cwd
        )
        #: The word whose list Escape closed: Enter on it sends rather than completes.
        self._dismissed: tuple[str, str, int, int] | None = None
        self._walk = HistoryWalk(self.history)
        #: The queue's keys (``queue-previous``, ``queue-next``, ``send-now``), handed to the
        #: screen: True when it used the key (else Up and Down walk the history).
        self.queue_keys: Callable[[str], bool] = lambda action: False
        # The text we last put in the area ourselves: a Changed event for it is not typing
        # and does not open a completion list.
        self._loaded_text: str | None = None
        self._key_table: dict[str, str] = {}
        self._key_table_for: object = None
        #: The session the text is typed in (set by the screen; None: a new session).
        self.target: str | None = None
        #: A turn runs in the session on screen (set by the screen): the footer lists fewer keys.
        self.busy = False
        #: The agent's prompt suggestions for the session on screen (set by the screen): Tab
        #: on an empty prompt takes the first, Tab again the next.
        self.suggestions: Sequence[PromptSuggestion] = ()
        #: The suggestion put in the prompt: sent as the agent wrote it while unedited.
        self._taken: PromptSuggestion | None = None

    def compose(self) -> ComposeResult:
        yield self._list
        yield self._area

    # -- public API ------------------------------------------------------------------------

    @property
    def text_area(self) -> PromptTextArea:
        return self._area

    @property
    def commands(self) -> list[Mapping[str, Any]]:
        return self._commands

    @commands.setter
    def commands(self, commands: Iterable[Mapping[str, Any]]) -> None:
        self._commands = list(commands)
        if self._list.offered is not None and self._list.offered.kind == "command":
            self._list.update_for_cursor(may_open=False, force=True)

    @property
    def cwd(self) -> Path:
        return self._cwd

    @cwd.setter
    def cwd(self, cwd: str | Path) -> None:
        self._cwd = Path(cwd)
        if self._list.offered is not None and self._list.offered.kind == "path":
            self._list.close_list()

    @property
    def draft(self) -> str:
        """What is being typed: the editor's text, except while an unedited earlier prompt is
        shown from the history, when it is the draft put aside to browse."""
        return self._walk.draft(self._area.text)

    def set_draft(self, text: str) -> None:
        """Replace the editor's content with ``text`` (cursor at the end). Stops browsing the
        history and closes any completion list."""
        self._walk.reset()
        self._load(text)

    @property
    def text(self) -> str:
        """The text shown in the editor right now."""
        return self._area.text

    @property
    def completion_open(self) -> bool:
        return self._list.offered is not None

    def focus(self, scroll_visible: bool = True) -> PromptEditor:
        self._area.focus(scroll_visible)
        return self

    def take_suggestion(self, index: int) -> bool:
        """Put suggestion ``index`` in the prompt (nothing is sent): Tab, or a click on its
        chip. False when there is no such suggestion."""
        if not 0 <= index < len(self.suggestions):
            return False
        taken = self.suggestions[index]
        self.set_draft(taken.text)
        self._taken = taken
        return True

    @property
    def taken_suggestion(self) -> PromptSuggestion | None:
        """The suggestion in the prompt, while its text is as taken."""
        taken = self._taken
        return taken if taken is not None and self._area.text == taken.text else None

    def _tab_takes_suggestion(self) -> bool:
        """Tab on an empty prompt takes the first suggestion; on one it took, the next."""
        if not self.suggestions or self._list.offered is not None:
            return False
        taken = self.taken_suggestion
        if self._area.text and taken is None:
            return False
        index = 0
        if taken is not None and taken in self.suggestions:
            index = (list(self.suggestions).index(taken) + 1) % len(self.suggestions)
        return self.take_suggestion(index)

    def submit(self, now: bool = False) -> bool:
        """Send what is typed (as Enter does; ``now``: "send now", not after the running
        turn). Returns False when there is nothing to send."""
        text = self._area.text.rstrip().lstrip("\n")
        if not text.strip():
            return False
        if text.startswith("!") and text.lstrip("!").strip() and self.run_shell is not None:
            # Shell mode: the command runs here, not sent to the agent (``!!``: its output
            # goes with the next message). Not run: the text stays.
            attach = text.startswith("!!")
            self._sent(text)
            if not self.run_shell(text[1 + attach :].strip(), attach):
                self.set_draft(text)
            return True
        taken = self.taken_suggestion
        self._taken = None
        if taken is not None:
            # A suggestion sent as taken goes out as the agent wrote it (its blocks).
            built = BuiltPrompt(blocks=[dict(block) for block in taken.blocks])
        else:
            built = self.builder(text)
        if built.refused is not None:
            # Nothing is sent and nothing is lost: the text stays to be changed.
            self.screen.notify(built.refused, severity="error", timeout=10, markup=False)
            return False
        for note in built.notes:
            self.screen.notify(note, severity="warning", timeout=8, markup=False)
        self._sent(text)
        self.post_message(self.Submitted(self, text, built.blocks, now))
        return True

    def _sent(self, text: str) -> None:
        if self.history.append(text, str(self._cwd)):
            self.history.save_in_background()
        self._walk.reset()
        self._load("")

    def action_external_editor(self, _how: str = "") -> None:
        """The prompt in ``$VISUAL``/``$EDITOR``/``vi`` (:mod:`acp_tui.ui.external_editor`)."""
        edit_prompt(self.app, self._area.text, self._cwd, self.set_draft, self.screen.notify)
        self._area.focus()

    def replace_text(self, text: str) -> None:
        """Put ``text`` in place of the prompt's, undoably (Ctrl+Z brings the old one back)."""
        self._walk.reset()
        self._list.close_list()
        self._loaded_text = text
        area = self._area
        area.replace(text, (0, 0), area.document.end, maintain_selection_offset=False)
        area.move_cursor(area.document.end)

    def take_typing(self, key: str, text: str) -> None:
        """A key typed for the prompt that another screen received first (a permission dialog
        that opened under the person's fingers): it lands here as if typed here. ``text`` is
        what the key types ("" for Enter and Backspace)."""
        if text:
            self._area.insert(text)
        elif key == "backspace":
            self._area.action_delete_left()
        elif key == "enter":
            self._handle_key(key)

    # -- keys ------------------------------------------------------------------------------

    def _placeholder(self, width: int | None = None) -> str:
        """The default placeholder, or with ``width`` the most of it that fits, whole phrases
        only (at 80 columns beside the sidebar it was cut at "Enter to send ·")."""
        newline = " or ".join(key_words(key) for key in effective_keys(self, "prompt-newline")[:2])
        phrases = ["Message the agent", f"{key_label(self, 'prompt-send')} to send"]
        if newline:
            phrases.append(f"{newline} for a new line")
        while width is not None and len(phrases) > 1 and len(" · ".join(phrases)) > width:
            phrases.pop()
        return " · ".join(phrases)

    def fit_placeholder(self, width: int) -> None:
        if self._given_placeholder is None:
            text = self._placeholder(width)
            if self._area.placeholder != text:
                self._area.placeholder = text

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Sending and new lines go through _handle_key (with the completion list): never as
        # bindings.
        if action == "external_editor":
            return self.busy == bool(parameters)
        return action not in ("send", "newline", "send_now", "queue_previous", "queue_next")

    def sends_or_breaks(self, key: str) -> bool:
        """Whether ``key`` is one of this editor's send or new-line keys (the keymap's)."""
        return self._key_action(key) in ("send", "newline")

    def _key_action(self, key: str) -> str | None:
        """The action of ``key`` among this editor's keys, as the app's keymap has them (built
        again only when the keymap changes: this runs for every key typed)."""
        try:
            keymap = access.keymap(self.app)
        except Exception:  # not in an app: the defaults
            keymap = {}
        if self._key_table_for is not keymap:
            bindings = access.configured_bindings(self)
            self._key_table = {
                bound: found[0].action for bound, found in bindings.key_to_bindings.items() if found
            }
            self._key_table_for = keymap
        # "shift+\r" is how Textual names xterm's modifyOtherKeys form of Shift+Enter.
        return self._key_table.get(key.replace("\r", "enter"))

    def _handle_key(self, key: str) -> bool:
        """Handle a key pressed in the text area. True if it was used here."""
        if key == "tab" and self._tab_takes_suggestion():
            return True
        if key == "ctrl+v" and self.images.paste(expected=False):
            return True  # an image from the clipboard, else the text paste as ever
        action = self._key_action(key)
        completes = key in ("tab", "enter")
        if self._list.offered is not None or completes:
            # The list may be a few keys behind (its update waits for the text area's change
            # events, which queue behind a burst of keys): judge it on the text as it is now,
            # or Enter after "/slow 30" would complete "/slow" and drop " 30". Enter and Tab
            # also open the list typing calls for (not for text put there whole, such as a
            # recalled prompt, nor a word whose list Escape closed): what they do must not
            # depend on whether the list had time to show.
            opens = (
                completes
                and self._area.text != self._loaded_text
                and self._list.trigger() != self._dismissed
            )
            self._list.update_for_cursor(may_open=opens)
        if self._list.offered is not None:
            if key == "up":
                self._list.action_cursor_up()
                return True
            if key == "down":
                self._list.action_cursor_down()
                return True
            if key in ("tab", "enter"):
                highlighted = self._list.highlighted
                index = highlighted if highlighted is not None else 0
                if key == "enter" and self._list.offered.exact_submit[index]:
                    self._list.apply(index)  # a whole name, or the only one starting so
                    self.submit()
                else:
                    self._list.apply(index)
                return True
            if key == "escape":
                self._dismissed = self._list.trigger()
                self._list.close_list()
                return True
        if action in ("send", "send_now"):
            self._list.close_list()
            self.submit(now=action == "send_now")
            return True
        if key == "question_mark" and not self._area.text:
            self.call_later(self.run_action, "app.keys_help('?')")
            return True
        if action == "newline":
            start, end = self._area.selection
            self._area.replace("\n", start, end, maintain_selection_offset=False)
            return True
        area = self._area
        if action in ("queue_previous", "queue_next") and self._walk.index is None:
            nav = area.navigator
            edge = (
                nav.is_first_wrapped_line
                if action == "queue_previous"
                else nav.is_last_wrapped_line
            )
            if area.selection.is_empty and edge(area.cursor_location) and self.queue_keys(action):
                return True
        if key == "up" and area.selection.is_empty:
            if area.text == "" or area.navigator.is_first_wrapped_line(area.cursor_location):
                return self._shown(self._walk.back(area.text))
        if key == "down" and self._walk.index is not None and area.selection.is_empty:
            if area.navigator.is_last_wrapped_line(area.cursor_location):
                return self._shown(self._walk.forward(area.text))
        return False

    def _shown(self, text: str | None) -> bool:
        """Show ``text`` from the history (None: nothing to show, the key is not used)."""
        if text is None:
            return False
        self._load(text)
        return True

    def _load(self, text: str) -> None:
        """Put ``text`` in the area (not undoable as typing), cursor at the end."""
        self._list.close_list()
        self._loaded_text = text
        self._area.load_text(text)
        self._area.move_cursor(self._area.document.end)

    # -- reacting to the text area ---------------------------------------------------------

    @on(TextArea.Changed)
    def _text_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is not self._area:
            return
        if self._loaded_text is not None and self._area.text == self._loaded_text:
            return  # our own load, not typing: no completion list
        self._loaded_text = None
        self._list.update_for_cursor(may_open=True)

    @on(TextArea.SelectionChanged)
    def _selection_changed(self, event: TextArea.SelectionChanged) -> None:
        if event.text_area is self._area and self._list.offered is not None:
            self._list.update_for_cursor(may_open=False)

    @on(OptionList.OptionSelected)
    def _option_clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self._list.offered is not None:
            self._list.apply(event.option_index)
        self._area.focus()
