"""Signing out, from the command palette (when the agent advertises ``auth.logout``).

https://agentclientprotocol.com/protocol/v1/initialization (``AgentAuthCapabilities.logout``):
the person confirms, the agent forgets the sign-in, and the client says so; the next call that
needs a sign-in offers the agent's methods again (the link asks on "authentication required").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from acp_tui.session.controller import SessionController
    from acp_tui.ui.screens.chat.host import ChatHost

LOGGED_OUT = "Logged out: the agent asks you to sign in again when it needs it."


def auth_palette_commands(screen: ChatHost) -> Iterable[SystemCommand]:
    link = screen.link
    if link is not None and screen.agent_alive and link.can_logout:
        yield SystemCommand(
            "Log out", "Sign out of the agent (asks first)", lambda: confirm_logout(screen)
        )


def confirm_logout(screen: ChatHost) -> None:
    """Ask first (in a worker of the screen: ``push_screen_wait``), then sign out."""
    link = screen.link
    if link is None:
        return
    screen.run_worker(_logout_after_asking(screen, link), name="log out", group="dialogs")


async def _logout_after_asking(screen: ChatHost, link: SessionController) -> None:
    from acp_tui.ui.screens.confirm import ConfirmScreen

    agent = link.agent.display_name if link.agent else "the agent"
    yes = await screen.app.push_screen_wait(
        ConfirmScreen("Log out", f"Sign out of {agent}?", "Log out")
    )
    if not yes or screen.link is not link:
        return

    async def logout() -> None:
        await link.logout()
        screen.notify(LOGGED_OUT, title="Logged out", markup=False)
        if screen.session_id is not None:
            screen.store.add_notice(screen.session_id, LOGGED_OUT, severity="info")

    link.spawn(logout, "log out")
