"""The session layer: everything between a face (the TUI, ``ask``, ``sessions``, the web mode)
and an agent process, without Textual. Its map, by job:

- :mod:`.launch`: what an agent is started with (``AgentSpec``, made by the one resolver
  from the config, the command line or the launcher), the one factory of what a face runs it
  with, the app's settings, the agent started before the UI, which session opens at start,
  and a recording played back as an agent.
- :mod:`.agent`: one agent connection, the ``SessionController``, and its parts over one
  state: turns, session calls, what the agent sends and asks, its traffic, each session's
  directories, MCP servers, branch/rename/archive.
- :mod:`.prompts`: what the person sends (``@file`` attachments) and what waits to go.
- :mod:`.asking`: what the agent asks the person (permissions, questions), one at a time.
- :mod:`.auth`: the agent's sign-in methods and signing in.
- :mod:`.workspace`: several agents at once: the running controllers, the sessions of every
  agent in one list, what needs the person across them.
- :mod:`.errors`: what went wrong, in this layer's words (the faces never see the wire's).
"""
