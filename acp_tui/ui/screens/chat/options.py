"""The chat screen's session options: the bar's controls, the popup, the keys that cycle the
mode and the thinking level, the palette entries, and choices kept across a reopen.

One list (:func:`acp_tui.store.options.session_options`) feeds all of them. A choice goes
to the agent at once (``session/set_config_option``, or the legacy ``session/set_mode`` /
``session/set_model``); before the new session exists it waits in
:class:`~acp_tui.session.launch.start.NewSessionChoices` and is applied right after ``session/new``.
The controls always show what the agent reports: a refused change is said in a toast and the
control goes back to the agent's value.

:class:`SessionOptions` is a plain object the chat screen owns; the screen's keys, the bar's
messages and the palette reach it through the screen.

A mode that skips the permission questions (:mod:`acp_tui.store.mode_danger`) is marked in
the header while it is in force, and a cycling key (Shift+Tab) enters one only with a yes;
a pick in the selector or the palette is deliberate and goes through as any other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any

from textual.screen import Screen

from acp_tui.session.errors import AgentGone, AgentRefused, SessionError
from acp_tui.store.mode_danger import current_danger, is_mode_option, pass_over, skips_permissions
from acp_tui.store.options import (
    SessionOption,
    by_category,
    cycled,
    option_of_category,
    session_options,
    valid_value,
)
from acp_tui.store.session import SessionState
from acp_tui.text.safety import escaped_line, one_line
from acp_tui.ui.agent_text import line_of
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.palette import AgentCommand
from acp_tui.ui.screens.options import OptionsScreen
from acp_tui.ui.widgets.chat_bar import ChatBar

__all__ = ["CYCLE_ACTIONS", "FOOTER_KEYS_WIDTH", "SessionOptions"]

#: Option categories set again on reopen even when the agent reports another value (see
#: :meth:`SessionOptions.reapply`).
RESTORED_OVER_THE_AGENT = frozenset({"model", "thought_level"})
#: Actions whose key cycles an option, and the category each one cycles.
CYCLE_ACTIONS = {"cycle_mode": "mode", "cycle_thought_level": "thought_level"}
#: Palette words for the options of these categories (others go by the agent's name).
PALETTE_NAMES = {"mode": "Mode", "model": "Model"}
#: The footer lists the cycling keys from this width on (narrower, they would push other keys
#: out of it; they work all the same).
FOOTER_KEYS_WIDTH = 100
#: How long the toast naming a value chosen with a key stays.
CYCLE_TOAST_SECONDS = 2.5

#: Asks the person a yes/no question (a dialog that arms, naming the agent and session):
#: ``(title, message, details, yes_label, no_label, escape_label, answered)``; ``answered``
#: gets True, False, or None (left with Escape).
AskYesNo = Callable[
    [str, str, list[tuple[str, str]], str, str, str, Callable[[bool | None], None]], object
]


class SessionOptions:
    """The options of the session on screen (or of the new session, before it exists).

    ``bar`` is the view's bar of controls, ``push`` shows the popup (and calls back when it
    closes), ``refresh_bindings`` has the footer read the keys again, ``typing_in_prompt``
    says whether the prompt has the focus, ``width`` is the screen's; ``mark_mode`` shows in
    the header the mode in force when it skips the permission questions (None: it does not),
    ``ask`` puts a yes/no question to the person."""

    def __init__(
        self,
        model: ChatModel,
        *,
        bar: Callable[[], ChatBar],
        push: Callable[[Screen[Any], Callable[[Any], None]], object],
        refresh_bindings: Callable[[], None],
        typing_in_prompt: Callable[[], bool],
        width: Callable[[], int],
        mark_mode: Callable[[str | None], None],
        ask: AskYesNo,
    ) -> None:
        self.model = model
        self.mark_mode = mark_mode
        self.ask = ask
        self.bar = bar
        self.push = push
        self.refresh_bindings = refresh_bindings
        self.typing_in_prompt = typing_in_prompt
        self.width = width
        self._popup: OptionsScreen | None = None

    # ------------------------------------------------------------------ reading

    def _state(self) -> SessionState:
        """The session on screen, or the stand-in for the new session."""
        state = self.model.state()
        return state if state is not None else self.model.new_choices.preview()

    def current(self) -> list[SessionOption]:
        return session_options(self._state())

    def _option(self, key: str) -> SessionOption | None:
        return next((o for o in self.current() if o.key == key), None)

    # ------------------------------------------------------------------ drawing

    def draw(self, state: SessionState) -> None:
        options = session_options(state)
        self.bar().show_options(options)
        danger = current_danger(options)
        self.mark_mode(danger.name or danger.value if danger is not None else None)
        popup = self._popup
        if popup is not None and popup.is_attached:
            popup.show_options(options)
        self.refresh_bindings()

    def _redraw(self) -> None:
        self.draw(self._state())

    # ------------------------------------------------------------------ choosing

    def choose(self, key: str, value: str | bool) -> None:
        """The person chose ``value`` for the option ``key`` (a control, a key, the palette)."""
        option = self._option(key)
        if option is None or not valid_value(option, value) or option.current == value:
            return
        session_id = self.model.session_id
        if session_id is None:
            # The new session does not exist yet: applied once it does.
            choices = self.model.new_choices
            if option.source == "modes":
                choices.mode = str(value)
            elif option.source == "models":
                choices.model = str(value)
            else:
                choices.config[option.id] = value
            self._redraw()
            return
        self._send(session_id, option, value)

    def _send(self, session_id: str, option: SessionOption, value: str | bool) -> None:
        controller = self.model.controller
        if controller is None:
            return
        call: Callable[[], Awaitable[None]]
        if option.source == "modes":
            call = partial(controller.set_mode, session_id, str(value))
        elif option.source == "models":
            call = partial(controller.set_model, session_id, str(value))
        else:
            call = partial(controller.set_config_option, session_id, option.id, value)

        async def job() -> None:
            try:
                await call()
            except AgentGone:
                raise
            except SessionError as error:
                self._refused(session_id, option, value, error)

        controller.spawn(job, f"set {option.name}")

    def _refused(
        self,
        session_id: str,
        option: SessionOption,
        value: str | bool,
        error: BaseException,
    ) -> None:
        reason = error.reason if isinstance(error, AgentRefused) else str(error)
        # Whole in the transcript (a toast keeps a line or two: Qwen Code's reason lost its
        # remedy there), short in the toast.
        self.model.store.add_notice(
            session_id,
            f"Not set: {option.name} = {option.value_name(value)}: {reason}",
            severity="warning",
        )
        # Short names first: the agent's reason must still fit in the toast.
        self.model.notify(
            f"Not set: {one_line(option.name, 20)} = {one_line(option.value_name(value), 20)}\n"
            f"{one_line(reason, 300)}",
            severity="error",
            timeout=8,
        )
        if session_id == self.model.session_id:
            # The control still shows what was asked for: back to what the agent has.
            self._redraw()

    # ------------------------------------------------------------------ keys, popup, palette

    def action_allowed(self, action: str, parameters: tuple[object, ...]) -> bool:
        """``check_action`` for the cycling keys: only with something to cycle, and Shift+Tab
        only from the prompt (elsewhere it moves the focus back, as everywhere). The footer
        lists them only when it has room: the listed binding steps aside for its twin."""
        option = option_of_category(self._state(), CYCLE_ACTIONS[action])
        # One mode is nothing to cycle (Kimi, fast-agent): the footer offered Shift+Tab "Mode",
        # which did nothing.
        nothing = option is None or (option.kind != "boolean" and len(option.choices) < 2)
        if parameters == ("none",):
            # The key's stand-in when there is nothing to cycle (only Alt+T has one: Shift+Tab
            # then moves the focus back, as everywhere).
            return nothing
        if nothing:
            return False
        if action == "cycle_mode" and not self.typing_in_prompt():
            return False
        listed = not parameters
        return (self.width() >= FOOTER_KEYS_WIDTH) == listed

    def cycle(self, category: str) -> None:
        """The next value of the session's option of ``category`` (its key: Shift+Tab for the
        mode, Alt+T for the thinking level)."""
        option = option_of_category(self._state(), category)
        if option is None:
            self._nothing_to_cycle(category)
            return
        value = cycled(option)
        if value is None:
            return
        if is_mode_option(option) and skips_permissions(option.choice(value)):
            # Never entered by a cycling key without a yes (a pick in the selector is
            # deliberate, and goes through as any other).
            self._ask_before(option, str(value))
            return
        self._cycle_to(option, value)

    def _cycle_to(self, option: SessionOption, value: str | bool) -> None:
        self.model.notify(
            f"{one_line(option.name, 40)}: {one_line(option.value_name(value), 40)}",
            timeout=CYCLE_TOAST_SECONDS,
        )
        self.choose(option.key, value)

    def _ask_before(self, option: SessionOption, value: str) -> None:
        """The cycling key reached a mode that skips the permission questions: switch to it
        only with a yes; "no" passes it over to the next mode that asks; Escape stays."""
        choice = option.choice(value)
        name = choice.name if choice is not None and choice.name else value
        details = [("Mode", escaped_line(name, 80))]
        if choice is not None and choice.description:
            details.append(("The agent says", escaped_line(choice.description, 300)))

        def answered(yes: bool | None) -> None:
            now = self._option(option.key)
            if yes is None or now is None or now.current != option.current:
                return  # left with Escape (the mode stays), or changed meanwhile
            if yes:
                self._cycle_to(now, value)
                return
            other = pass_over(now, value)  # "no": on to the next mode that asks
            if other is not None:
                self._cycle_to(now, other)

        self.ask(
            "Switch to a mode that skips the permission questions?",
            f"{self.model.keys('cycle-mode')} reached this mode. In it the agent runs tools and "
            "changes files without asking you first.",
            details,
            f"Switch to {one_line(name, 30)}",
            "Pass it over",
            f"stay in {one_line(option.value_name(), 30)}",
            answered,
        )

    def _nothing_to_cycle(self, category: str) -> None:
        """The cycling key of a category the session has no option of: said, never typed (an
        Alt+T that reached the prompt typed a "t"). An agent may offer its thinking under a
        category of its own (mistral-vibe's "thinking"): the popup has every option."""
        what = {"thought_level": "thinking level", "mode": "mode"}.get(category, category)
        where = ""
        if self.current():
            where = f" What it offers: Session options ({self.model.keys('command-palette')})."
        self.model.notify(f"This agent offers no {what} to cycle.{where}", timeout=4)

    def _cycling_key(
        self, options: list[SessionOption], action: str, binding_id: str
    ) -> str | None:
        """The key that cycles ``action``'s category, for the popup's help; None without one
        of its options (the popup then does not promise it)."""
        if by_category(options, CYCLE_ACTIONS[action]) is None:
            return None
        return self.model.keys(binding_id)

    def open_popup(self) -> None:
        """Every option of the session, in a popup."""
        options = self.current()
        popup = OptionsScreen(
            options,
            self.choose,
            mode_key=self._cycling_key(options, "cycle_mode", "cycle-mode"),
            thinking_key=self._cycling_key(options, "cycle_thought_level", "cycle-thought-level"),
        )
        self._popup = popup

        def closed(_: Any) -> None:
            self._popup = None

        self.push(popup, closed)

    def commands(self) -> Iterable[AgentCommand]:
        """Palette entries: the popup, then each value not chosen yet, of every option."""
        options = self.current()
        if options:
            yield AgentCommand(
                "Session options",
                "Every option of this session (mode, model, thinking, …)",
                self.open_popup,
            )
        for option in options:
            # The mode and the model by those words (what people search for), others by name.
            name = PALETTE_NAMES.get(option.category or "") or line_of(option.name, 40)
            if option.kind == "boolean":
                value = not bool(option.current)
                yield AgentCommand(
                    f"{name}: {'on' if value else 'off'}",
                    line_of(
                        option.description or f"Turn {option.name} {'on' if value else 'off'}", 200
                    ),
                    partial(self.choose, option.key, value),
                )
                continue
            for choice in option.choices:
                if choice.value == option.current:
                    continue
                yield AgentCommand(
                    f"{name}: {line_of(choice.name, 60)}",
                    line_of(choice.description or option.description or f"Set {option.name}", 200),
                    partial(self.choose, option.key, choice.value),
                )

    # ------------------------------------------------------------------ reopening

    def reapply(self, state: SessionState) -> None:
        """The choices of a reopened session that the agent forgot, set again to what they
        were here (an agent that does not keep them across a restart).

        An option the agent reports no value for gets its value back. The model and the
        thinking level get theirs back also when the agent reports another value: Gemini CLI
        forgets the model chosen and reports its default, and a session reopened on another
        model than the person picked is a surprise that costs. A mode or any other option the
        agent reports keeps the agent's value: a mode may have been left by the agent itself
        (a plan approved), and a reopen must never put a session back into a mode that skips
        the permission questions unasked."""
        index = self.model.index
        remembered = index.get(state.id) if index is not None else None
        if remembered is None:
            return
        for option in session_options(state):
            value = remembered.options.get(option.key)
            if value is None and option.source == "modes":
                value = remembered.mode
            elif value is None and option.category == "model":
                value = remembered.model
            if option.current is not None and (
                option.category not in RESTORED_OVER_THE_AGENT or value == option.current
            ):
                continue
            if value is not None and valid_value(option, value):
                self._send(state.id, option, value)
