"""Defaults of the config file, apart from its schema so that the loader and the schema share
them without importing each other (and a start-up without a config file loads no pydantic)."""

from __future__ import annotations

from typing import Literal

#: What the permission dialog does when the config says nothing: ask the person.
DEFAULT_PERMISSION_POLICY: Literal["ask", "yolo", "deny"] = "ask"
#: How a finished turn is announced when the app is not in front: the terminal bell.
DEFAULT_NOTIFICATIONS: Literal["bell", "off"] = "bell"
#: Seconds an agent has to answer ``initialize`` before the app says it does not.
DEFAULT_INITIALIZE_TIMEOUT = 30.0
